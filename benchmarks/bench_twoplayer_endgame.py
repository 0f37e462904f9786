"""What two-player end games cost (docs/twoplayer.md, "End games"): every position with at most
k open boxes per player, counted for Yacht, Yahtzee and Kniffel (``twoplayer_endgame.endgame_cost``:
sheet pairs, state-lead values, float32 bytes), and solved where it fits, timed (wall, CPU
seconds, compiling, core-microseconds per value); and single positions' end games from their
sheets (``twoplayer.solve(start=)``).

    nice -n 10 python benchmarks/bench_twoplayer_endgame.py --out results/twoplayer/endgame
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import load  # noqa: E402

POSITIONS = {
    "yahtzee, 3 open each": ("yahtzee",
                             "aces=2 twos=6 threes=9 fives=15 sixes=18 three_kind=24 four_kind=- small_straight=30 chance=22 kniffel=50",
                             "aces=3 twos=4 threes=12 fours=16 fives=15 sixes=18 three_kind=21 full_house=25 chance=23 large_straight=40"),
    "yahtzee, 4 open each": ("yahtzee",
                             "aces=2 twos=6 threes=9 fives=15 sixes=18 three_kind=24 four_kind=- small_straight=30 chance=22",
                             "aces=3 twos=4 fours=16 fives=15 sixes=24 three_kind=21 full_house=25 chance=23 large_straight=40"),
    "yahtzee, 5 open each": ("yahtzee",
                             "aces=2 twos=6 threes=9 fives=15 sixes=18 three_kind=24 small_straight=30 chance=22",
                             "aces=3 twos=4 fours=16 fives=15 sixes=24 three_kind=21 full_house=25 chance=23"),
    "kniffel, 4 open each": ("kniffel",
                             "aces=2 twos=6 threes=9 fives=15 sixes=18 three_kind=24 four_kind=- small_straight=30 chance=22",
                             "aces=3 twos=4 fours=16 fives=15 sixes=24 three_kind=21 full_house=25 chance=23 large_straight=40"),
}


def timed(fn, *args, **kwargs):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--solve-open", type=int, nargs="*", default=[2, 3, 4], help="Yacht's whole sets solved (k)")
    ap.add_argument("--solve-open-yahtzee", type=int, nargs="*", default=[1], help="Yahtzee's whole sets solved (k)")
    ap.add_argument("--out", type=Path, required=True, help="path without suffix: writes .json and .md")
    args = ap.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.bench import machine
    from jaxsolve.games.category.sheets import kniffel, yacht
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.objectives.twoplayer import endgame as E
    from jaxsolve.games.category.sheets.position import parse_position

    games = {"yacht": yacht.get_rules("yacht"), "yahtzee": kniffel.get_rules("yahtzee"), "kniffel": kniffel.get_rules("kniffel")}
    record: dict = {"machine": machine(), "load_start": load(), "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                    "command": "python benchmarks/bench_twoplayer_endgame.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                    "core_seconds_per_value": E.CORE_SECONDS_PER_VALUE, "counts": [], "solved": []}
    for name, rules in games.items():
        for k in (1, 2, 3, 4):
            c = E.endgame_cost(rules, open_boxes=k)
            record["counts"].append({"game": name, "open": k, "pairs": c.pairs, "values": c.values, "float32_gib": c.float32_bytes / 2**30,
                                     "estimated_core_hours": c.core_seconds / 3600, "sheets_per_player": list(c.sheets[rules.num_boxes - k:])})
            print(f"{name} k={k}: {c.pairs:,} pairs, {c.values:,} values", flush=True)
    for name, k in [("yacht", k) for k in args.solve_open] + [("yahtzee", k) for k in args.solve_open_yahtzee]:
        table, wall, cpu = timed(twoplayer.solve, games[name], open_boxes=k, keep="all", dtype="float32")
        values, pairs = sum(p.pairs * p.width for p in table.plans), sum(p.pairs for p in table.plans)
        compile_s = table.compile_seconds
        del table
        record["solved"].append({"what": f"{name}, every position with at most {k} open boxes each", "dtype": "float32", "pairs": pairs,
                                 "values": values, "wall_s": wall, "cpu_s": cpu, "compile_s": compile_s,
                                 "core_us_per_value": 1e6 * cpu / values, "load": load()})
        print(record["solved"][-1], flush=True)
    for what, (preset, mine, theirs) in POSITIONS.items():
        rules = games[preset]
        start = tuple(tuple(int(x) for x in parse_position(s, rules).state(rules)) for s in (mine, theirs))
        table, wall, cpu = timed(twoplayer.solve, rules, start=start, keep="all", dtype="float64")
        values = sum(p.pairs * p.width for p in table.plans)
        record["solved"].append({"what": f"{what}: {mine} | {theirs}", "dtype": "float64", "pairs": sum(p.pairs for p in table.plans), "values": values,
                                 "wall_s": wall, "cpu_s": cpu, "compile_s": table.compile_seconds, "core_us_per_value": 1e6 * cpu / values,
                                 "start_value": table.value(start[0], start[1], 0), "load": load()})
        print(record["solved"][-1], flush=True)
    record["load_end"] = load()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    lines = ["# Two-player end games: what they cost", "",
             f"`{record['command']}` ({record['started']}; load {record['load_start']} -> {record['load_end']}). Machine: the project's 2-core AMD EPYC",
             "(each file's `machine`). **Other engineers' jobs ran on the same 2 cores** (the load): CPU seconds (`time.process_time`) beside wall.", "",
             "## Every position with at most k open boxes per player (counted, nothing solved)", "",
             f"Estimated core-hours at {E.CORE_SECONDS_PER_VALUE * 1e6:.1f} core-microseconds per value (the whole two-player Yacht's measured rate).", "",
             "| game | k | sheets per player (k .. 0 open) | pairs of sheets | state-lead values | float32 | core-hours (est.) |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for c in record["counts"]:
        lines.append(f"| {c['game']} | {c['open']} | {', '.join(f'{x:,}' for x in c['sheets_per_player'])} | {c['pairs']:,} | {c['values']:,} | "
                     f"{c['float32_gib']:.3g} GiB | {c['estimated_core_hours']:.3g} |")
    lines += ["", "## Solved here", "", "| what | dtype | pairs | values | wall s | CPU s | compiling s | core-us per value (compiling included) |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in record["solved"]:
        lines.append(f"| {s['what']} | {s['dtype']} | {s['pairs']:,} | {s['values']:,} | {s['wall_s']:.1f} | {s['cpu_s']:.1f} | {s['compile_s']:.1f} | {s['core_us_per_value']:.2f} |")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
