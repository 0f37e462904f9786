"""Kniffel/Yahtzee full-solve benchmark, side by side with yatzy-solver (PyPI) on one machine.

Reports, for the standard game (free joker = yatzy-solver's "american", forced joker =
"american+forced-joker"):
  * warm solve time (compiled, in-process) vs yatzy-solver's in-process build, and their ratio;
  * compile time, apart;
  * cold end-to-end wall time of a new CLI process with an empty compilation cache, and again
    with JAX's persistent cache filled by the first run; yatzy-solver's cold build likewise;
  * peak resident memory of those processes;
  * the keep-expectation operators (levels / dense / sparse) and float64.

    python benchmarks/bench_kniffel.py --out results   # writes bench_kniffel_<backend>.{json,md} there (default: the current folder)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import describe  # noqa: E402

PAIRS = [("yahtzee-free", "american"), ("yahtzee", "american+forced-joker")]

MEASURE = r"""
import resource, subprocess, sys, time, json
t = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t
print(json.dumps({"rc": p.returncode, "wall": wall, "maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "stdout": p.stdout[-400:], "stderr": p.stderr[-400:]}))
"""


def run_measured(cmd: list[str], env=None) -> dict:
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, env=env, check=True)
    res = json.loads(out.stdout)
    if res["rc"] != 0:
        raise RuntimeError(f"{cmd} failed: {res['stderr']}")
    return res


def warm_jaxsolve(rules_name: str, repeats: int, **kw) -> dict:
    import numpy as np

    from jaxsolve.games.category.engine import solver
    from jaxsolve.games.category.sheets.kniffel import get_rules

    rules = get_rules(rules_name)
    first = solver.solve(rules, **kw)
    runs = [solver.solve(rules, **kw).solve_seconds for _ in range(repeats)]
    return {
        "value": first.game_value,
        "compile_seconds": first.compile_seconds,
        "first_solve_seconds": first.solve_seconds,
        "warm_min": min(runs),
        "warm_median": statistics.median(runs),
        "dtype": str(np.asarray(first.values).dtype),
    }


def warm_yatzy(variant: str, repeats: int) -> dict:
    import yatzy_solver

    runs, value = [], None
    for _ in range(repeats + 1):
        t = time.perf_counter()
        s = yatzy_solver.Solver.build(yatzy_solver.Variant(variant))
        runs.append(time.perf_counter() - t)
        value = s.state_value("upper 0 | filled -")
    return {"value": value, "first": runs[0], "warm_min": min(runs[1:]), "warm_median": statistics.median(runs[1:])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-cold", action="store_true")
    ap.add_argument("--skip-operators", action="store_true")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default=".", help="folder (default: the current folder)")
    ap.add_argument("--streams", type=int, default=None, help="CPU devices the layered core shares each layer between (default: as the command line, one)")
    args = ap.parse_args()

    import jax
    from jaxsolve.core import runtime

    runtime.host_devices(args.streams)  # before JAX's first computation

    try:
        import yatzy_solver  # noqa: F401

        have_peer = True
    except ImportError:
        have_peer = False
        print("yatzy-solver not installed (pip install -e '.[bench]'): peer columns skipped")

    device = jax.devices(args.device)[0]
    report = {"machine": describe(), "device": str(device), "repeats": args.repeats, "pairs": []}
    for ours, theirs in PAIRS:
        row = {"rules": ours, "peer_variant": theirs}
        with jax.default_device(device):
            row["jaxsolve_f32"] = warm_jaxsolve(ours, args.repeats, device=device, dtype="float32")
        if have_peer:
            row["yatzy_solver"] = warm_yatzy(theirs, args.repeats)
            row["speedup_warm"] = row["yatzy_solver"]["warm_median"] / row["jaxsolve_f32"]["warm_median"]
        print(json.dumps(row), flush=True)
        report["pairs"].append(row)

    if not args.skip_operators:
        ops = {}
        for expect in ("levels", "dense", "sparse"):
            ops[expect] = warm_jaxsolve("yahtzee", max(1, args.repeats - 1), device=device, dtype="float32", expect=expect)
            print(expect, json.dumps(ops[expect]), flush=True)
        jax.config.update("jax_enable_x64", True)
        ops["levels_float64"] = warm_jaxsolve("yahtzee", max(1, args.repeats - 1), device=device, dtype="float64")
        print("float64", json.dumps(ops["levels_float64"]), flush=True)
        report["operators"] = ops

    if not args.skip_cold:
        cold = {}
        with tempfile.TemporaryDirectory() as cache:
            cmd = [sys.executable, "-m", "jaxsolve", "solve", "kniffel", "--rules", "yahtzee-free", "--quiet", "--device", args.device, "--cache-dir", cache]
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            cold["cli_empty_cache"] = run_measured(cmd, env)
            cold["cli_cached"] = run_measured(cmd, env)
            cold["cli_no_cache"] = run_measured(cmd[:-2] + ["--no-cache"], env)
        if have_peer:
            code = "import yatzy_solver as y; s = y.Solver.build(y.Variant('american')); print(s.state_value('upper 0 | filled -'))"
            cold["yatzy_solver_build"] = run_measured([sys.executable, "-c", code])
        for k, v in cold.items():
            print(k, round(v["wall"], 3), "s", v["maxrss_kb"] // 1024, "MiB", flush=True)
        cold["cached_over_cold"] = cold["cli_cached"]["wall"] / cold["cli_empty_cache"]["wall"]
        report["cold"] = cold

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"bench_kniffel_{device.platform}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2))
    stem.with_suffix(".md").write_text(markdown(report))
    print(f"wrote {stem}.json and {stem}.md")


def markdown(r: dict) -> str:
    m = r["machine"]
    lines = [
        f"# Kniffel full solve: jaxsolve vs yatzy-solver ({r['device']})",
        "",
        f"Machine: {m['cpu']}, {m['cpu_count']} cores, {m['platform']}, jax {m['jax']}; load average at start {m['load_average']}.",
        f"Command: `python benchmarks/bench_kniffel.py --repeats {r['repeats']}`",
        "",
        "| rules | jaxsolve value | warm solve (median) | compile | yatzy-solver value | yatzy-solver build (median) | speed-up |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for p in r["pairs"]:
        j = p["jaxsolve_f32"]
        y = p.get("yatzy_solver")
        lines.append(
            f"| {p['rules']} (f32) | {j['value']:.4f} | {j['warm_median']:.3f} s | {j['compile_seconds']:.2f} s | "
            + (f"{y['value']:.4f} | {y['warm_median']:.3f} s | {p['speedup_warm']:.2f}x |" if y else "- | - | - |")
        )
    if "operators" in r:
        lines += ["", "| operator | warm solve (median) | compile |", "| --- | --- | --- |"]
        for k, v in r["operators"].items():
            lines.append(f"| {k} | {v['warm_median']:.3f} s | {v['compile_seconds']:.2f} s |")
    if "cold" in r:
        c = r["cold"]
        lines += ["", "| cold process | wall | peak RSS |", "| --- | --- | --- |"]
        for k, v in c.items():
            if isinstance(v, dict):
                lines.append(f"| {k} | {v['wall']:.2f} s | {v['maxrss_kb'] // 1024} MiB |")
        lines.append(f"\nCached CLI run / cold CLI run: {c['cached_over_cold']:.2f}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
