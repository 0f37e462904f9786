"""What the load check of a stored table costs (``jaxsolve.io.verify``): Yacht's whole target and
distribution tables and its two-player set of every position with at most three open boxes each,
each loaded in a new process with every layer read, its sample of rows recomputed from the rules,
and (target, distribution) without the recomputation beside it.

    python benchmarks/bench_verify.py [--store DIR] [--out results/store]

``--store``: a solution store holding the three tables (default: a temporary one, filled by the
commands ``target-table yacht``, ``distribution-table yacht`` and ``twoplayer-table yacht --open 3``
first). Writes ``verify.md`` and ``verify.json`` with the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from machine import describe, load

ROOT = Path(__file__).resolve().parent.parent
PROBE = r"""
import json, sys, time
from jaxsolve import games
from jaxsolve.io import cache
cache.configure(sys.argv[1])
kind, recompute = sys.argv[2], sys.argv[3] == "1"
rules = games.get_game("yacht").get_rules("yacht")
t = time.perf_counter()
if kind == "twoplayer":
    from jaxsolve.games.category.objectives.twoplayer import store
    table = store.load(rules, "share", "yacht", open_boxes=3)
    rows = sum(p.pairs for p in table.plans)
else:
    from jaxsolve.games.category.objectives import target
    table = target.load_table(target.store_path("yacht", rules, kind), game="yacht", rules=rules, mmap=True, kind=kind, recompute=recompute)
    rows = sum(len(a) for a in table.layers if a is not None)
print(json.dumps({"kind": kind, "recompute": recompute, "seconds": round(time.perf_counter() - t, 3), "rows": rows, "jax": "jax" in sys.modules}))
"""


def fill(store: Path) -> None:
    for command in (["target-table", "yacht"], ["distribution-table", "yacht"], ["twoplayer-table", "yacht", "--open", "3"]):
        subprocess.run([sys.executable, "-m", "jaxsolve", *command, "--cache-dir", str(store), "--quiet"], check=True, cwd=ROOT)


def probe(store: Path, kind: str, recompute: bool) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, str(store), kind, "1" if recompute else "0"], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "store")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = args.store or Path(tmp)
        if args.store is None:
            fill(store)
        rows = []
        for kind, recompute in (("target", True), ("target", False), ("distribution", True), ("distribution", False), ("twoplayer", True)):
            runs = [probe(store, kind, recompute) for _ in range(args.repeat)]
            best = min(runs, key=lambda r: r["seconds"])
            rows.append({**best, "seconds_all": [r["seconds"] for r in runs]})
    args.out.mkdir(parents=True, exist_ok=True)
    machine = describe()
    data = {"machine": machine, "load": load(), "rows": rows}
    (args.out / "verify.json").write_text(json.dumps(data, indent=2) + "\n")
    lines = [
        "# What the load check of a stored table costs",
        "",
        f"Machine: {machine}; load average before the run {data['load']} (other work ran beside it).",
        "Command: `python benchmarks/bench_verify.py`. Each figure is a new process loading every layer of",
        f"Yacht's table from the solution store (memory-mapped), best of {args.repeat}; the check recomputes",
        "66 random rows of every layer (the two-player set: each at 16 random leads) from the rules.",
        "",
        "| table | rows | recomputed | seconds (best) | all runs | JAX imported |",
        "| --- | ---: | --- | ---: | --- | --- |",
    ]
    for r in rows:
        lines.append(f"| {r['kind']} | {r['rows']:,} | {'yes' if r['recompute'] else 'no'} | {r['seconds']:.3f} | {', '.join(f'{s:.3f}' for s in r['seconds_all'])} | {'yes' if r['jax'] else 'no'} |")
    (args.out / "verify.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
