"""Where a CLI call's wall time goes: interpreter, imports, cache, compile, work.

Every figure is the wall time of a fresh process (min over --repeat runs), so the differences
between rows are the cost of each step. The advisor rows run the README's advisor example with
an empty cache folder (solves and caches the table) and then with the filled one.

    python benchmarks/startup.py [--repeat 3]

Writes results/startup.md (+ .json) with the machine.
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

ADVISE = ["-m", "jaxsolve", "advise", "kniffel", "--rules", "kniffel-apl", "--position", "aces=3 twos=- fours=12",
          "--dice", "1", "1", "2", "2", "5", "--rolls-left", "1"]

STEPS = [
    ("interpreter", ["-c", "pass"]),
    ("import numpy", ["-c", "import numpy"]),
    ("import jax", ["-c", "import jax, jax.numpy"]),
    ("import jaxsolve.cli (every command registered)", ["-c", "import jaxsolve.cli"]),
    ("jaxsolve --help", ["-m", "jaxsolve", "--help"]),
]


def wall(args, env, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *args], env=env, check=True, capture_output=True)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "results"))
    args = ap.parse_args()
    from jaxsolve.bench import machine

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "JAXSOLVE_CACHE": tmp}
        for label, cmd in STEPS:
            rows.append((label, wall(cmd, env, args.repeat)))
        t0 = time.perf_counter()
        subprocess.run([sys.executable, *ADVISE], env=env, check=True, capture_output=True)
        rows.append(("advise, empty cache (solves, caches the table, compiles)", time.perf_counter() - t0))
        rows.append(("advise, cached table and compiled programs", wall(ADVISE, env, args.repeat)))
        inner = subprocess.run([sys.executable, "-c", PHASES], env=env, check=True, capture_output=True, text=True)
        phases = json.loads(inner.stdout.strip().splitlines()[-1])
    report = {"machine": machine(), "repeat": args.repeat, "rows": [{"step": s, "seconds": round(t, 3)} for s, t in rows], "advise_phases": phases}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "startup.json").write_text(json.dumps(report, indent=1) + "\n")
    md = ["# Start-up: where a CLI call's wall time goes", "", "| step (fresh process, min of runs) | seconds |", "| --- | --- |"]
    md += [f"| {s} | {t:.2f} |" for s, t in rows]
    md += ["", "Inside the cached advise call (one process, after imports):", "", "| phase | seconds |", "| --- | --- |"]
    md += [f"| {k} | {v:.3f} |" for k, v in phases.items()]
    md += ["", f"Machine: {report['machine']['cpu']} ({report['machine']['cpu_count']} CPUs), load average {report['machine']['load_average']}, JAX {report['machine']['jax']}, {report['machine']['date']}."]
    (out / "startup.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


PHASES = r"""
import json, time
t0 = time.perf_counter()
from jaxsolve import runtime
from jaxsolve.kniffel import analysis, position
from jaxsolve.kniffel.rules import get_rules
t1 = time.perf_counter()
runtime.configure(x64=True)
rules = get_rules("kniffel-apl")
sol = analysis.solution(rules)
t2 = time.perf_counter()
pos = position.parse_position("aces=3 twos=- fours=12", rules)
analysis.advise(rules, pos, (1, 1, 2, 2, 5), 1, sol=sol)
t3 = time.perf_counter()
analysis.advise(rules, pos, (1, 1, 2, 2, 6), 1, sol=sol)
t4 = time.perf_counter()
print(json.dumps({"imports (jax, the category engine)": t1 - t0, "load the cached table (validated)": t2 - t1,
                  "first answer (trace; compiled program from the XLA cache)": t3 - t2, "next answer": t4 - t3}))
"""

if __name__ == "__main__":
    main()
