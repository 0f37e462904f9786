"""Where a CLI call's wall time goes: interpreter, imports, the solution store, the answer.

Every figure is the wall time of a fresh process, the minimum over ``--repeat`` runs, so the
differences between rows are the cost of each step. The advisor rows run two advisor examples
(the README's kniffel-apl one and a Yahtzee one): first with an empty cache folder (the call
solves the table, compiles the solve and caches the table), then with the filled folder
(the call loads the table and answers with NumPy, without importing JAX). The load average
is read before and after every row.

    python benchmarks/startup.py [--repeat 5] [--solve-repeat 1]

Writes startup.md (+ .json) with the machine into ``--out`` (default: the current folder; the
committed ones: ``--out results``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXAMPLES = {
    "kniffel-apl (README)": ["advise", "kniffel", "--rules", "kniffel-apl", "--position", "aces=3 twos=- fours=12",
                             "--dice", "1", "1", "2", "2", "5", "--rolls-left", "1"],
    "yahtzee": ["advise", "kniffel", "--rules", "yahtzee", "--position", "sixes=24 kniffel=50 chance=22",
                "--dice", "6", "6", "6", "6", "6"],
}

STEPS = [
    ("interpreter", ["-c", "pass"]),
    ("import numpy", ["-c", "import numpy"]),
    ("import jax", ["-c", "import jax, jax.numpy"]),
    ("import jaxsolve.cli (every command registered; no JAX)", ["-c", "import jaxsolve.cli"]),
    ("jaxsolve --help", ["-m", "jaxsolve", "--help"]),
]


def load() -> float:
    return round(os.getloadavg()[0], 2)


def wall(args, env, repeat):
    """Min wall time of ``repeat`` fresh processes, with the 1-minute load before and after."""
    before, best = load(), float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], env=env, check=True, capture_output=True)
        best = min(best, time.perf_counter() - t0)
    return best, before, load()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--solve-repeat", type=int, default=1, help="solving calls per example, each with a fresh empty cache")
    ap.add_argument("--out", default=".", help="folder (default: the current folder)")
    args = ap.parse_args()
    from jaxsolve.bench import machine

    base = {**os.environ, "PYTHONPATH": str(ROOT)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**base, "JAXSOLVE_CACHE": tmp}
        for label, cmd in STEPS:
            rows.append((label, *wall(cmd, env, args.repeat)))
        for name, cmd in EXAMPLES.items():
            solving = []
            for _ in range(args.solve_repeat):
                with tempfile.TemporaryDirectory() as empty:
                    solving.append(wall(["-m", "jaxsolve", *cmd], {**base, "JAXSOLVE_CACHE": empty}, 1))
            rows.append((f"advise {name}, empty cache: solves, compiles, caches the table", *min(solving)))
            subprocess.run([sys.executable, "-m", "jaxsolve", *cmd], env=env, check=True, capture_output=True)  # fill the store
            rows.append((f"advise {name}, cached table (NumPy answer, no JAX)", *wall(["-m", "jaxsolve", *cmd], env, args.repeat)))
        inner = subprocess.run([sys.executable, "-c", PHASES], env=env, check=True, capture_output=True, text=True)
        phases = json.loads(inner.stdout.strip().splitlines()[-1])
    report = {
        "machine": machine(),
        "repeat": args.repeat,
        "solve_repeat": args.solve_repeat,
        "rows": [{"step": s, "seconds": round(t, 3), "load_before": lb, "load_after": la} for s, t, lb, la in rows],
        "advise_phases": phases,
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "startup.json").write_text(json.dumps(report, indent=1) + "\n")
    md = [
        "# Start-up: where a CLI call's wall time goes",
        "",
        f"Fresh processes; min of {args.repeat} runs (solving calls: min of {args.solve_repeat}, each with an empty cache).",
        "Load: the 1-minute load average before / after the row's runs.",
        "",
        "| step | seconds | load |",
        "| --- | --- | --- |",
    ]
    md += [f"| {s} | {t:.2f} | {lb:.2f} / {la:.2f} |" for s, t, lb, la in rows]
    md += ["", "Inside the cached advise call (one process, the README example):", "", "| phase | seconds |", "| --- | --- |"]
    md += [f"| {k} | {v:.3f} |" if isinstance(v, float) else f"| {k} | {v} |" for k, v in phases.items()]
    m = report["machine"]
    md += ["", f"Machine: {m['cpu']} ({m['cpu_count']} CPUs), load average at the end {m['load_average']}, JAX {m['jax']}, {m['date']}."]
    (out / "startup.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


PHASES = r"""
import json, os, sys, time
t0 = time.perf_counter()
import jaxsolve.cli
t1 = time.perf_counter()
from jaxsolve.io import cache
from jaxsolve.games.category.answers import advisor
from jaxsolve.games.category.sheets import position
from jaxsolve.games.category.engine import solutions
from jaxsolve.games.category.sheets.kniffel import get_rules
cache.configure(None)
rules = get_rules("kniffel-apl")
sol = solutions.cached_solution(rules, "score", "float64", game="kniffel")
assert sol is not None
t2 = time.perf_counter()
pos = position.parse_position("aces=3 twos=- fours=12", rules)
advisor.advise(rules, pos, (1, 1, 2, 2, 5), 1, sol=sol, dtype="float64")
t3 = time.perf_counter()
advisor.advise(rules, pos, (1, 1, 2, 2, 6), 1, sol=sol, dtype="float64")
t4 = time.perf_counter()
print(json.dumps({"import jaxsolve.cli (every command registered)": t1 - t0, "load the cached table (validated)": t2 - t1,
                  "first answer (NumPy)": t3 - t2, "next answer (NumPy)": t4 - t3,
                  "JAX imported": "yes" if "jax" in sys.modules else "no"}))
"""

if __name__ == "__main__":
    main()
