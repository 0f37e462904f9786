"""The two-player subgame solved on demand by ``twoplayer_advice.table_for``: Yacht with the last
k boxes open on both sheets (float64, every layer kept, compiling included), its size in
state-lead values (``subgame_values``) against CPU and wall seconds; and one answer of
``advise --against`` on such a subgame. Sets ``twoplayer_advice.MAX_SUBGAME_VALUES``.

    python benchmarks/bench_twoplayer_advice.py 3 4 5 6 7 8 [--out results/twoplayer/advice.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from machine import describe, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("open", type=int, nargs="+", help="boxes open on each sheet")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    from jaxsolve.core.arrays import precision
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.objectives.twoplayer import advice as twoplayer_advice
    from jaxsolve.games.category.sheets import yacht

    rules = yacht.get_rules("yacht")
    rows = []
    for k in args.open:
        mask = rules.full_mask & ~(((1 << k) - 1) << (rules.num_boxes - k))
        size = twoplayer_advice.subgame_values(rules, mask, mask)
        before = load()
        c0, w0 = time.process_time(), time.perf_counter()
        with precision("float64"):
            table = twoplayer.solve(rules, tie="share", mine=mask, theirs=mask, keep="all", dtype="float64")
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        row = {
            "open_each": k, "values": size, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "compile_s": round(table.compile_seconds, 2),
            "cpu_us_per_value": round(1e6 * cpu / size, 2), "start_share": table.start, "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            "load_before": before, "load_after": load(),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out is not None:
        args.out.write_text(json.dumps({"machine": describe(), "rules": rules.name, "dtype": "float64", "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
