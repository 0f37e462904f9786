"""Benchmark the full Zehntausend solve: tables, compile, warm runs, and cold end-to-end.

    .venv/bin/python benchmarks/bench_zehntausend.py [--device cpu|gpu] [--repeats 50] [--out results/zehntausend]   # default: the current folder

* tables: building W and V(w) for all throws of 1..6 dice (numpy, once per process and rule set);
* compile: lowering + XLA compile of the level scan (no persistent cache);
* warm: the compiled scan alone, ``block_until_ready``, median and min over ``--repeats`` runs;
* warm_solve: ``zehntausend.solve`` end to end in a warm process (tables cached, compile cached);
* cold: a new Python process that imports jaxsolve, solves and prints E(0, 6), without and with
  the persistent compilation cache (the second run reads what the first wrote), and the CLI
  ``jaxsolve solve zehntausend`` the same way.

Writes ``bench_<platform>.json`` with the machine description next to the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_model() -> str:
    from jaxsolve.bench import machine

    return machine()["cpu"]


def run_cold(code: str, env: dict) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    return time.perf_counter() - t0, out.stdout.strip()


def run_cold_cli(args: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "jaxsolve", *args], env=env, capture_output=True, text=True, check=True, cwd=ROOT)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--cold-repeats", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("."), help="folder (default: the current folder)")
    args = ap.parse_args()

    import jax

    from jaxsolve.core import runtime

    runtime.configure(x64=True)
    import jax.numpy as jnp

    from jaxsolve.games.zehntausend import scoring, solver
    from jaxsolve.games.zehntausend.rules import PRESETS, STEP

    device = runtime.get_device(args.device)
    rules = PRESETS["peter-2013"]

    t0 = time.perf_counter()
    tables = scoring.build_tables(rules)
    tables_s = time.perf_counter() - t0
    top = -(-tables.top // STEP)
    height = int(top) + int(tables.opt_points.max()) // STEP + 1
    kargs, static = solver.kernel_inputs(tables, int(top), height, jnp.float64)
    kargs = jax.device_put(kargs, device)

    t0 = time.perf_counter()
    compiled = solver._solve_levels.lower(*kargs, **static).compile()
    compile_s = time.perf_counter() - t0

    E = compiled(*kargs).block_until_ready()
    warm = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        E = compiled(*kargs).block_until_ready()
        warm.append(time.perf_counter() - t0)
    turn_value = float(E[0, 6])

    solver.solve(rules, device=device)
    warm_solve = []
    for _ in range(max(5, args.repeats // 5)):
        t0 = time.perf_counter()
        sol = solver.solve(rules, device=device)
        warm_solve.append(time.perf_counter() - t0)

    env = dict(os.environ)
    env["JAX_PLATFORMS"] = args.device if args.device == "cpu" else ""
    code = (
        "import time; t=time.perf_counter(); from jaxsolve.core import runtime; runtime.configure(x64=True);"
        "from jaxsolve.io import cache; cache.setup(enabled={cache}, compilation=True);"
        "from jaxsolve.games.zehntausend import solver; s=solver.solve(device=runtime.get_device('{dev}'));"
        "print(repr(s.turn_value), s.thresholds()[6], time.perf_counter()-t)"
    )
    cold = {}
    with tempfile.TemporaryDirectory() as cache:
        env["JAXSOLVE_CACHE"] = cache
        for label, use_cache in (("no_cache", False), ("persistent_cache", True)):
            runs = []
            for _ in range(args.cold_repeats):
                wall, out = run_cold(code.format(cache=use_cache, dev=args.device), env)
                runs.append(wall)
            cold[label] = {"median_s": statistics.median(runs), "runs_s": runs, "last_stdout": out}
        cli = ["solve", "zehntausend", "--quiet", "--device", args.device]
        cold["cli_no_cache"] = {"median_s": statistics.median([run_cold_cli(cli + ["--no-cache"], env) for _ in range(args.cold_repeats)])}
        cold["cli_persistent_cache"] = {"median_s": statistics.median([run_cold_cli(cli, env) for _ in range(args.cold_repeats)])}
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import jax, jaxsolve"], env=env, check=True, cwd=ROOT)
        cold["python_import_jax_jaxsolve_s"] = time.perf_counter() - t0

    report = {
        "benchmark": "zehntausend full solve: E(p, n) for p = 0..21900 step 50 (439 levels, 238 by scan), n = 0..6",
        "rules": rules.to_dict(),
        "turn_value": turn_value,
        "p6": sol.p6,
        "dtype": "float64",
        "tables_build_s": tables_s,
        "compile_s": compile_s,
        "warm_scan_median_s": statistics.median(warm),
        "warm_scan_min_s": min(warm),
        "warm_solve_median_s": statistics.median(warm_solve),
        "repeats": args.repeats,
        "cold": cold,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpu_model": cpu_model(),
            "cpu_count": os.cpu_count(),
            "loadavg_1_5_15": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "jax_version": jax.__version__,
            "device": str(device),
            "device_kind": getattr(device, "device_kind", ""),
        },
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"bench_{args.device}.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    print(f"E(0, 6) = {turn_value:.4f}, p6 = {sol.p6} on {device} ({cpu_model()}, {os.cpu_count()} cores, jax {jax.__version__})")
    print(f"tables {tables_s:.3f} s, compile {compile_s:.3f} s")
    print(f"warm scan: median {statistics.median(warm) * 1e3:.2f} ms, min {min(warm) * 1e3:.2f} ms over {args.repeats}")
    print(f"warm solve() end to end: median {statistics.median(warm_solve) * 1e3:.2f} ms")
    for k, v in cold.items():
        print(f"cold {k}: {v['median_s'] if isinstance(v, dict) else v:.2f} s")
    print(f"load average at the end: {report['machine']['loadavg_1_5_15']}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
