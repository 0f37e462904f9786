"""Full-game analysis benchmark: `jaxsolve analyze kniffel` (per-box split and SD of the score).

Times, for one rule set (default yahtzee, float64):
  * in-process, with an empty compilation cache: the value solve, then the forward walk of
    the start position (``evaluate.forward``): the first walk with its compile time apart, and ``--repeats`` warm walks (min and median, wall and
    CPU time of this process); ``analysis.breakdown`` warm;
  * end to end: a new ``jaxsolve analyze kniffel`` process with an empty compilation cache
    (compiling everything), then ``--repeats`` processes with that cache filled (warm);
  * ``--previous``: the backward evaluation of every state (``evaluate.evaluate``, what
    ``breakdown`` used before), once, for comparison (minutes on a CPU).

Wall times on a shared machine depend on its load; the load average and CPU times are
recorded beside them.

    python benchmarks/bench_analyze.py [--rules yahtzee] [--repeats 3] [--previous] --out results/kniffel/analyze_bench.md
        # writes OUT.md and OUT.json (default: analyze_bench.{md,json} in the current folder)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def timed(fn):
    """``(result, wall seconds, CPU seconds of this process)``."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def in_process(rules_name: str, repeats: int, previous: bool, cache: str) -> dict:
    from jaxsolve.core import runtime
    from jaxsolve.io import cache as store

    runtime.configure(x64=True)
    store.setup(cache, compilation=True)
    from jaxsolve.games.category.answers import analysis
    from jaxsolve.games.category.engine import evaluate, solver
    from jaxsolve.games.category.sheets.position import Position
    from jaxsolve.games.category.sheets.kniffel import get_rules

    rules = get_rules(rules_name)
    sol, first_solve, _ = timed(lambda: solver.solve(rules, "score"))
    warm_solve = [timed(lambda: solver.solve(rules, "score"))[1:] for _ in range(repeats)]
    walk, first_wall, first_cpu = timed(lambda: evaluate.forward(sol))
    warm = [timed(lambda: evaluate.forward(sol))[1:] for _ in range(repeats)]
    brk = [timed(lambda: analysis.breakdown(rules, Position(), sol=sol, objective="score"))[1:] for _ in range(repeats)]
    out = {
        "rules": rules.name,
        "game_value": sol.game_value,
        "split_sum": float(walk.channels[:-1].sum()),
        "sd": walk.sd(),
        "split": {k: float(v) for k, v in walk.at().items()},
        "states_reached": walk.states,
        "solve": {"first_wall": first_solve, "compile": sol.compile_seconds, "warm_wall_min": min(w for w, _ in warm_solve)},
        "forward": {
            "first_wall": first_wall,
            "first_cpu": first_cpu,
            "compile": walk.compile_seconds,
            "warm_wall_min": min(w for w, _ in warm),
            "warm_wall_median": statistics.median(w for w, _ in warm),
            "warm_cpu_min": min(c for _, c in warm),
        },
        "breakdown": {"warm_wall_min": min(w for w, _ in brk), "warm_cpu_min": min(c for _, c in brk)},
    }
    if previous:
        ev, wall, cpu = timed(lambda: evaluate.evaluate(sol))
        out["previous"] = {"wall": wall, "cpu": cpu, "split_sum": ev.mean(), "sd": ev.sd(), "max_abs_diff": float(abs(ev.channels[0, 0, 0] - walk.channels).max())}
    return out


def cli_run(rules_name: str, cache: str) -> dict:
    """One ``jaxsolve analyze kniffel`` process: wall, CPU (user + sys) and its mean/SD line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAXSOLVE_CACHE=cache)
    p = subprocess.run([sys.executable, "-m", "jaxsolve", "analyze", "kniffel", "--rules", rules_name], capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("rest of the game"))
    return {"wall": wall, "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), "line": line}


def end_to_end(rules_name: str, repeats: int) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        cold = cli_run(rules_name, cache)
        warm = [cli_run(rules_name, cache) for _ in range(repeats)]
    return {
        "cold_wall": cold["wall"],
        "cold_cpu": cold["cpu"],
        "warm_wall_min": min(w["wall"] for w in warm),
        "warm_wall_median": statistics.median(w["wall"] for w in warm),
        "warm_cpu_min": min(w["cpu"] for w in warm),
        "line": warm[-1]["line"],
    }


def markdown(report: dict) -> str:
    m, r, e = report["machine"], report["in_process"], report["end_to_end"]
    f, s = r["forward"], r["solve"]
    lines = [
        f"# `jaxsolve analyze kniffel --rules {r['rules']}`: full-game split and SD",
        "",
        "Generated by `python benchmarks/bench_analyze.py`. Float64, default device. In-process rows",
        "start from an empty compilation cache (compile = compiling now; first run = compile + run);",
        "warm = compiled. The CLI rows are new processes: with an empty JAX persistent cache, then",
        "with the cache that run filled. Wall times on a shared machine depend on its load",
        "(recorded below); CPU times are user + system seconds of this process (or the child), over",
        "all its threads.",
        "",
        f"- machine: {m['cpu']}, {m['cpu_count']} CPUs, {m['platform']}, Python {m['python']}, JAX {m['jax']}",
        f"- devices: {', '.join(m['devices'])}; date {m['date']}",
        f"- load average at start: {', '.join(f'{x:.2f}' for x in m['load_average'])}; at end: {', '.join(f'{x:.2f}' for x in report['load_after'])}",
        "",
        "## Figures",
        "",
        f"- game value {r['game_value']:.7f}; split sum {r['split_sum']:.7f}; SD {r['sd']:.4f}",
        f"- states reached by the optimal policy (evaluated): {r['states_reached']:,}",
        f"- CLI: `{e['line']}`",
        "",
        "## Times (seconds)",
        "",
        "| what | compile | first run | warm min (wall) | warm median (wall) | warm min (CPU) |",
        "|---|---:|---:|---:|---:|---:|",
        f"| value solve | {s['compile']:.2f} | {s['first_wall']:.2f} | {s['warm_wall_min']:.2f} | | |",
        f"| forward walk (`evaluate.forward`) | {f['compile']:.2f} | {f['first_wall']:.2f} | {f['warm_wall_min']:.2f} | {f['warm_wall_median']:.2f} | {f['warm_cpu_min']:.2f} |",
        f"| `analysis.breakdown` (walk + throw value) | | | {r['breakdown']['warm_wall_min']:.2f} | | {r['breakdown']['warm_cpu_min']:.2f} |",
        f"| CLI process, empty compile cache | (included) | {e['cold_wall']:.2f} | | | {e['cold_cpu']:.2f} |",
        f"| CLI process, compile cache filled | | | {e['warm_wall_min']:.2f} | {e['warm_wall_median']:.2f} | {e['warm_cpu_min']:.2f} |",
    ]
    if "previous" in r:
        p = r["previous"]
        lines += [
            "",
            "Previous method, the backward evaluation of every state (`evaluate.evaluate`), once in the",
            f"same process: {p['wall']:.1f} s wall, {p['cpu']:.1f} s CPU; split sum {p['split_sum']:.7f}, SD {p['sd']:.4f};",
            f"largest difference of a channel to the forward walk {p['max_abs_diff']:.1e}.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--previous", action="store_true", help="also time the backward evaluation of every state (minutes)")
    ap.add_argument("--out", default="analyze_bench.md", help="the .md table; the .json beside it (default: in the current folder)")
    args = ap.parse_args()
    report = {"machine": describe()}
    with tempfile.TemporaryDirectory() as cache:  # empty: the first runs compile
        report["in_process"] = in_process(args.rules, args.repeats, args.previous, cache)
    report["end_to_end"] = end_to_end(args.rules, args.repeats)
    report["load_after"] = list(os.getloadavg())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    out.write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
