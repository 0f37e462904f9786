"""Benchmark the Pig-family fixpoint (Schlag den Raab and Pig) in float64 to tol 1e-12.

Compiles once, then times warm runs of the compiled fixpoint with ``block_until_ready``;
reports compile time apart, and the cold time of a new process (import + compile + solve,
persistent compilation cache off). Writes JSON with the machine description.

    .venv/bin/python benchmarks/bench_raab.py [--repeats 5] [--device cpu] [--out results/raab/bench-cpu.json]   # default: bench-<device>.json here
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

COLD = """
import time, jax
t0 = time.perf_counter()
jax.config.update("jax_enable_x64", True)
from jaxsolve.games.raab import solver
from jaxsolve.games.raab.rules import PRESETS
sol = solver.solve(PRESETS[{name!r}], device=jax.devices({device!r})[0])
print(time.perf_counter() - t0, sol.game_value)
"""


def cpu_model() -> str:
    from jaxsolve.bench import machine

    return machine()["cpu"]


def bench(name: str, device: str, repeats: int) -> dict:
    import jax
    import jax.numpy as jnp

    from jaxsolve.games.raab import solver
    from jaxsolve.games.raab.rules import PRESETS

    rules = PRESETS[name]
    dev = jax.devices(device)[0]
    first = solver.solve(rules, tol=1e-12, device=dev, dtype=jnp.float64)
    compile_s, first_s = first.compile_seconds, first.solve_seconds
    warm = []
    for _ in range(repeats):
        sol = solver.solve(rules, tol=1e-12, device=dev, dtype=jnp.float64)
        warm.append(sol.solve_seconds)
    value = sol.game_value
    tight = solver.solve(rules, tol=1e-14, device=dev)
    cold = []
    for _ in range(2):
        env = {**os.environ, "JAX_ENABLE_COMPILATION_CACHE": "false"}
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-c", COLD.format(name=name, device=device)], capture_output=True, text=True, env=env, check=True)
        cold.append({"wall_seconds": time.perf_counter() - t0, "in_process_seconds": float(res.stdout.split()[0])})
    return {
        "rules": rules.to_dict(),
        "states": rules.num_states,
        "turn_start_states": int(sol.start.size),
        "game_value": value,
        "iterations": sol.iterations,
        "residual": sol.residual,
        "tol": 1e-12,
        "difference_to_tol_1e-14": abs(value - tight.game_value),
        "compile_seconds": compile_s,
        "first_run_seconds": first_s,
        "warm_seconds": warm,
        "warm_median_seconds": statistics.median(warm),
        "warm_min_seconds": min(warm),
        "cold_process": cold,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--games", nargs="+", default=["raab", "pig"])
    args = parser.parse_args()

    import jax

    jax.config.update("jax_enable_x64", True)
    dev = jax.devices(args.device)[0]
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    machine = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "jax_version": jax.__version__,
        "device": str(dev),
        "device_kind": dev.device_kind,
        "gpu_available": bool([d for d in jax.devices() if d.platform == "gpu"]),
        "load_average_at_start": load,
    }
    results = {"machine": machine, "dtype": "float64", "games": {}}
    for name in args.games:
        r = bench(name, args.device, args.repeats)
        results["games"][name] = r
        print(
            f"{name:5s} value {r['game_value']:.12f}  {r['iterations']} sweeps  residual {r['residual']:.1e}  "
            f"compile {r['compile_seconds']:.2f} s  warm median {r['warm_median_seconds']:.3f} s (min {r['warm_min_seconds']:.3f})  "
            f"cold process {min(c['wall_seconds'] for c in r['cold_process']):.2f} s"
        )
    try:
        results["machine"]["load_average_at_end"] = os.getloadavg()
    except OSError:
        pass
    out = args.out or Path(f"bench-{args.device}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
