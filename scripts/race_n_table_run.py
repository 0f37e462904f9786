"""Rows of the race-n figures from runs of ``results/race-n/measure-table-run.sh`` (two
processes, one per core): each seat's win probability at the start, the fairest head starts
(from the table, where the run wrote one), the cycles where best responses did not settle,
wall and CPU seconds and peak memory of each process, the load before and after; before each
run's row the estimate from the two runs before it (``race_n_figures.estimate``: a power law in
the goal, at least ``goal ** (N + 1)`` for the time).

    results/race-n/measure-table-run.sh /tmp/run-3000 --rules three-to-10000 --goal 3000
    results/race-n/measure-table-run.sh /tmp/run-5000 --rules three-to-10000 --goal 5000 --out /tmp/run-5000/t.npy
    python scripts/race_n_table_run.py /tmp/run-2000 /tmp/run-3000 /tmp/run-5000 /tmp/run-10000 \\
        --out results/race-n/two-processes        # two-processes.md, two-processes.json
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from jaxsolve.core.race_table import fairest  # noqa: E402
from race_n_figures import estimate, machine  # noqa: E402


def _times(run: Path) -> list[dict]:
    procs = []
    for f in sorted(run.glob("time-*.txt")):
        wall, user, sys_s, rss = f.read_text().split()[-4:]  # after "Command exited with non-zero status N"
        procs.append({"wall_seconds": float(wall), "user_seconds": float(user), "sys_seconds": float(sys_s), "peak_rss_mib": int(rss) / 1024})
    return procs


def row_of(run: Path, goal: int | None = None) -> dict:
    """One run's figures from its folder (``out-0.txt``, ``time-*.txt``, ``log.txt``, the table).
    A run that stopped with an error (no JSON line; ``goal`` then says which, three players
    without entry minimum as the table's rows are) gives the layers it reached and its last
    error line. A walk resumed from its checkpoint is named by its segments' folders joined by
    ``+`` (``A+B``): its figures are the last one's, its times each process's sums over the
    segments (each one's in ``segments``), its peak memory the largest."""
    parts = [Path(p) for p in str(run).split("+")]
    if len(parts) > 1:
        segments = [_times(p) for p in parts]
        row = row_of(parts[-1], goal)
        row["segments"] = [{"folder": p.name, "each_process": t} for p, t in zip(parts, segments)]
        row["each_process"] = [
            {k: (max if k == "peak_rss_mib" else sum)(t[i][k] for t in segments) for k in segments[-1][i]} for i in range(len(segments[-1]))
        ]
        row["wall_seconds"] = max(p["wall_seconds"] for p in row["each_process"])
        row["peak_rss_mib"] = max(p["peak_rss_mib"] for p in row["each_process"])
        row["load_before"] = " then ".join(r for r in (row_of(p, goal).get("load_before", "") for p in parts) if r)
        return row
    procs = _times(run)
    log = (run / "log.txt").read_text() if (run / "log.txt").exists() else ""
    loads = re.findall(r"load (before|after): ([\d. ]+)", log)
    lines = [ln for ln in (run / "out-0.txt").read_text().splitlines() if ln.startswith("{")]
    if not lines:
        err = (run / "err-0.txt").read_text().splitlines()
        bars = [ln for ln in err if ln.startswith("solving ")]
        return {
            "game": "zehntausend", "players": 3, "goal": goal, "entry": 0, "states": (goal // 50) ** 3 if goal else None, "failed": err[-1] if err else "?",
            "reached": bars[-1] if bars else "", "wall_seconds": max(p["wall_seconds"] for p in procs), "peak_rss_mib": max(p["peak_rss_mib"] for p in procs),
            "each_process": procs, **{f"load_{k}": v.strip() for k, v in loads},
        }
    line = json.loads(lines[0])
    rules = line["rules"]
    row = {
        "game": "zehntausend", "players": rules["players"], "goal": rules["goal"], "entry": rules["entry"], "states": (rules["goal"] // 50) ** rules["players"],
        "start": line["start"], "sha256": line["sha256"], "processes": line["processes"], "unsettled": line["unsettled"], "max_rounds": line["rounds"],
        "residual": line["residual"], "solve_seconds": line["solve_seconds"], "compile_seconds": line["compile_seconds"],
        "wall_seconds": max(p["wall_seconds"] for p in procs), "peak_rss_mib": max(p["peak_rss_mib"] for p in procs), "each_process": procs,
        **{f"load_{k}": v.strip() for k, v in loads},
    }
    if line.get("out"):
        table = Path(line["out"][0])
        values = np.load(table)
        side = json.loads(table.with_suffix(".json").read_text())
        # the sidecar states the unsettled cycles as a Python literal (a list of plain dicts)
        cycles = side["unsettled"] if isinstance(side["unsettled"], list) else ast.literal_eval(side["unsettled"])
        row["fairest"] = fairest(values, 50)
        row["sum_error"] = float(np.max(np.abs(values.sum(axis=-1) - 1.0)))
        row["unsettled_several_pure"] = sum(1 for c in cycles if c["pure"] > 1)
        row["unsettled_one_pure"] = sum(1 for c in cycles if c["pure"] == 1)
        row["mixed_selected"] = sum(1 for c in cycles if c["selected"] == "mixed")
        row["unsettled_cycles"] = cycles
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| Zehntausend, 3 players | start: win per seat (1 moves first) | fairest head starts (win) | wall s, each process (estimate) | CPU s, each process | peak MiB, each process (estimate) | cycles not settled: several pure / one pure / mixed | load before |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        est = r.get("estimate")
        each = r["each_process"]
        walls = " / ".join(f"{p['wall_seconds']:,.0f}" for p in each) + (f" ({est['wall_seconds']:,.0f})" if est else "")
        cpu = " / ".join(f"{p['user_seconds'] + p['sys_seconds']:,.0f}" for p in each)
        mem = " / ".join(f"{p['peak_rss_mib']:.0f}" for p in each) + (f" ({est['peak_rss_mib']:.0f})" if est else "")
        if "failed" in r:
            reached = r["reached"].split(": ", 1)[-1].split(",")[0]
            lines.append(f"| goal {r['goal']:,} | **stopped** at {reached} layers: {r['failed']} | | {walls} | {cpu} | {mem} | | {r.get('load_before', '')} |")
            continue
        start = " / ".join(f"{v:.6f}" for v in r["start"])
        fair = f"{' / '.join(str(p) for p in r['fairest']['points'])} ({' / '.join(f'{v:.4f}' for v in r['fairest']['win'])})" if "fairest" in r else "(no table written)"
        cyc = f"{r['unsettled_several_pure']} / {r['unsettled_one_pure']} / {r['mixed_selected']}" if "unsettled_several_pure" in r else f"{r['unsettled']} in all"
        entry = f", entry {r['entry']}" if r["entry"] else ""
        lines.append(f"| goal {r['goal']:,}{entry} | {start} | {fair} | {walls} | {cpu} | {mem} | {cyc} | {r.get('load_before', '')} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="race-n rows from measure-table-run.sh folders")
    ap.add_argument("runs", nargs="+", type=Path, help="run folders, smallest goal first")
    ap.add_argument("--out", type=Path, required=True, help="output stem (.md and .json)")
    ap.add_argument("--goals", type=int, nargs="*", default=[], help="the goal of each run, for runs that stopped without their JSON line")
    args = ap.parse_args(argv)
    rows: list[dict] = []
    for i, run in enumerate(args.runs):
        r = row_of(run, args.goals[i] if i < len(args.goals) else None)
        prev = [p for p in rows if p["entry"] == r["entry"]]
        r["estimate"] = estimate(prev, r["goal"])
        rows.append(r)
    args.out.with_suffix(".json").write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(table(rows))
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
