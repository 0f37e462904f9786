"""A stored two-player end-game set (``jaxsolve twoplayer-table GAME --open K``) checked against
positions solved on their own, and read by a new process (docs/twoplayer.md, "End-game sets in
the store").

1. ``--positions N`` positions of the set's first layer (both players with K open boxes, the
   starter to move), drawn at random: each position's end game solved again from its two sheets
   (``twoplayer.solve(start=)``, float64, nothing shared with the stored solve but the engine)
   and compared with the stored float32 row at every lead of the position's window (beyond it
   the stored values must be 0 below and 1 above).
2. ``--advise``: a new ``jaxsolve advise ... --against`` process answering from the set, timed
   whole (interpreter, imports, loading and checking the set, the answer).

    python benchmarks/bench_twoplayer_endtable.py --rules yahtzee --open 2 --positions 40 --out results/twoplayer/endgame-table-yahtzee
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import load  # noqa: E402

ADVISE = {
    "yahtzee": ["advise", "kniffel", "--rules", "yahtzee", "-p",
                "aces=2 twos=6 threes=9 fours=12 fives=15 sixes=18 three_kind=24 four_kind=- small_straight=30 large_straight=40 chance=22",
                "--dice", "6", "6", "6", "2", "3", "--throws-left", "1", "--against",
                "aces=3 twos=4 threes=9 fours=16 fives=15 sixes=24 three_kind=21 full_house=25 chance=23 large_straight=40 yahtzee=- 215", "--json"],
}
ADVISE["kniffel"] = ["kniffel" if a == "yahtzee" else a for a in ADVISE["yahtzee"]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="yahtzee", choices=("yahtzee", "kniffel"))
    ap.add_argument("--open", type=int, default=2)
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--advise", type=int, default=3, help="new advise processes timed (0: none)")
    ap.add_argument("--out", type=Path, required=True, help="path without suffix: .json and .md")
    args = ap.parse_args(argv)
    import jax
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.bench import machine
    from jaxsolve.games.category.sheets import kniffel
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store

    rules = kniffel.get_rules(args.rules)
    t0 = time.perf_counter()
    table = twoplayer_store.load(rules, "share", "kniffel", open_boxes=args.open)
    if table is None:
        raise SystemExit(f"no end-game set stored: run `jaxsolve twoplayer-table kniffel --rules {args.rules} --open {args.open}`")
    load_s = time.perf_counter() - t0
    p = table.plans[0]
    mine_s, theirs_s = table.sheets[p.mover], table.sheets[1 - p.mover]
    rng = np.random.default_rng(args.seed)
    rows = []
    worst, t_solve = 0.0, 0.0
    for _ in range(args.positions):
        i, j = int(rng.integers(p.movers)), int(rng.integers(p.others))
        mine = (int(mine_s.filled[p.a][i]), int(mine_s.upper[p.a][i]), int(mine_s.held[p.a][i]))
        theirs = (int(theirs_s.filled[p.b][j]), int(theirs_s.upper[p.b][j]), int(theirs_s.held[p.b][j]))
        leads, stored = table.values(mine, theirs)
        t1 = time.perf_counter()
        own = twoplayer.solve(rules, start=(mine, theirs), dtype="float64")
        t_solve += time.perf_counter() - t1
        own_leads, own_v = own.values(mine, theirs)
        inside = (leads >= own_leads[0]) & (leads <= own_leads[-1])
        diff = np.abs(stored[inside] - own_v[np.searchsorted(own_leads, leads[inside])]).max()
        outside = float(np.abs(stored[leads < own_leads[0]]).max(initial=0.0)) + float(np.abs(1 - stored[leads > own_leads[-1]]).max(initial=0.0))
        worst = max(worst, float(diff), outside)
        rows.append({"mine": mine, "theirs": theirs, "leads": [int(own_leads[0]), int(own_leads[-1])], "max_abs": float(diff),
                     "outside": outside, "at_lead_0": float(own.value(mine, theirs, 0))})
    timed = []
    for _ in range(args.advise):
        t1 = time.perf_counter()
        got = subprocess.run([sys.executable, "-m", "jaxsolve", *ADVISE[args.rules]], capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - t1
        data = json.loads(got.stdout[got.stdout.index("{"):]) if got.returncode == 0 else {"error": got.stderr[-300:]}
        timed.append({"wall_s": wall, "source": data.get("table"), "value": data.get("value")})
    record = {"rules": rules.name, "open": args.open, "positions": args.positions, "seed": args.seed, "load_s": load_s,
              "first_layer": {"n": p.n, "pairs": p.pairs, "leads": p.width}, "max_abs_difference": worst,
              "solve_s_per_position": t_solve / max(1, args.positions), "checked": rows, "advise": timed,
              "machine": machine(), "load": load(), "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "command": "python benchmarks/bench_twoplayer_endtable.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    lines = [f"# {rules.name}: the stored two-player end-game set (at most {args.open} open boxes each) checked", "",
             f"`{record['command']}` ({record['when']}; load {record['load']}). Machine: {record['machine'].get('cpu', '?')}, "
             f"{record['machine'].get('cpu_count', '?')} cores (`machine` in the JSON).", "",
             f"- the set loaded (memory-mapped, its sealed files trusted, two rows of each layer recomputed) in {load_s:.2f} s",
             f"- {args.positions} positions of its first layer ({p.pairs:,} pairs of sheets, {p.width} leads), drawn at random, each solved "
             f"again from its two sheets in float64 (`twoplayer.solve(start=)`, {record['solve_s_per_position']:.1f} s each): "
             f"largest difference from the stored float32 values over every lead **{worst:.2e}**",
             ]
    for t in timed:
        lines.append(f"- a new `jaxsolve advise ... --against` process: {t['wall_s']:.2f} s wall, table {t['source']}, P(win) {t['value']}")
    lines += ["", "| mine (filled, upper, flag) | theirs | leads solved | max abs diff | P(win) at lead 0 |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {tuple(r['mine'])} | {tuple(r['theirs'])} | {r['leads'][0]}..{r['leads'][1]} | {r['max_abs']:.2e} | {r['at_lead_0']:.6f} |")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:8]))
    return 0 if worst < 1e-5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
