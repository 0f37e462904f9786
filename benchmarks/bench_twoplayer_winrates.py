"""Win rates of the two-player player against the expected-score player, and of the one-player
models in the same seat (docs/twoplayer.md, "Win rates").

For one case (a game and a start position) the two-player game is solved from the start
(``twoplayer.solve(start=)``, float64, every layer; ``--stored``: the whole game's float32
table from the solution store, ``twoplayer_store.load``) and ``--games`` games are played by
each pair of seats (``twoplayer.simulate(seats=)``, seat 0 the player to move at the start):

    optimal / score, score / optimal     the two-player player against the expected-score player
    score / score                        the expected-score player in both seats (exact value)
    table / score, score / table         the one-player win model (a static best response to the
                                         other's expected-score final distribution; exact value)
    optimal / optimal                    the table's value (exact)

Each result: seat 0's mean (1 win, the tie's worth, 0 loss), its standard error, wins and ties,
the exact value where one exists and the z of the mean against it, CPU and wall seconds, the
load. The cases' records are merged into ``OUT.json`` (one key per case) and ``OUT.md`` is
written from all of them.

    nice -n 10 python benchmarks/bench_twoplayer_winrates.py --case small --out results/twoplayer/win-rates
    nice -n 10 python benchmarks/bench_twoplayer_winrates.py --case yacht-end --out results/twoplayer/win-rates
    nice -n 10 python benchmarks/bench_twoplayer_winrates.py --case yahtzee-end --out results/twoplayer/win-rates
    nice -n 10 python benchmarks/bench_twoplayer_winrates.py --case yacht --out results/twoplayer/win-rates   # one-player seats
    nice -n 10 python benchmarks/bench_twoplayer_winrates.py --case yacht --stored \
        --seatings optimal/score,score/optimal,optimal/optimal --out results/twoplayer/win-rates
    python benchmarks/bench_twoplayer_winrates.py --case yahtzee-table --seatings optimal/score,score/optimal,score/score,optimal/optimal \
        --out results/twoplayer/win-rates   # needs `jaxsolve twoplayer-table kniffel --rules yahtzee --open 2`

``yahtzee-table``: the games start where expected-score play in both seats has left two open
boxes on each sheet (``twoplayer.reach``, one position per game), and the two-player player
reads the stored float32 table of every such position (``twoplayer_store.load(open_boxes=2)``);
its optimal/optimal exact value is the mean of the table's values at the games' starts.
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

SEATINGS = (("optimal", "score"), ("score", "optimal"), ("score", "score"), ("table", "score"), ("score", "table"), ("optimal", "optimal"))

CASES = {
    "small": {
        "game": "yacht", "rules": "small", "what": "yacht.small() (3 dice, 9 boxes), the whole game from its start",
        "mine": None, "theirs": None,
    },
    "yacht": {
        "game": "yacht", "rules": "yacht",
        "what": "Yacht, the whole game from its start (the two-player player from the stored float32 table with --stored; else the one-player seats only)",
        "mine": None, "theirs": None,
    },
    "yacht-end": {
        "game": "yacht", "rules": "yacht",
        "what": "Yacht, both players with four open boxes, the starter to move, scores set so that both expect the same final score",
        "mine": "ones=3 twos=6 threes=9 fours=12 fives=15 four_of_a_kind=20 little_straight=30 choice=24",
        "theirs": "ones=2 twos=8 threes=12 fives=20 sixes=24 full_house=26 big_straight=30 choice=23",
    },
    "yahtzee-end": {
        "game": "kniffel", "rules": "yahtzee",
        "what": "Yahtzee, both players with four open boxes, the starter to move, scores set so that both expect the same final score "
        "(his upper bonus still open at 50 of 63; the other's at 62)",
        "mine": "aces=2 twos=6 threes=9 fives=15 sixes=18 three_kind=24 four_kind=- small_straight=30 chance=22",
        "theirs": "aces=3 twos=4 fours=16 fives=15 sixes=24 three_kind=21 full_house=25 chance=23 large_straight=40",
    },
    "yahtzee-table": {
        "game": "kniffel", "rules": "yahtzee", "open": 2,
        "what": "Yahtzee end games from the stored table of every position with at most two open boxes each: each game starts where "
        "expected-score play in both seats left two open boxes on each sheet (one position per game), the starter to move",
        "mine": None, "theirs": None,
    },
}


def reached(case: dict, games: int, seed: int):
    """``(rules, table, starts, exact, note)`` of a ``yahtzee-table`` case: the stored end-game
    set, the games' starts reached by expected-score play, the optimal pair's exact mean there."""
    import numpy as np

    from jaxsolve.games.category.sheets import kniffel
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store

    rules = kniffel.get_rules(case["rules"])
    table = twoplayer_store.load(rules, "share", case["game"], open_boxes=case["open"])
    if table is None:
        raise SystemExit(f"no end-game set in the store: run `jaxsolve twoplayer-table {case['game']} --rules {case['rules']} --open {case['open']}`")
    t0, c0 = time.perf_counter(), time.process_time()
    starts = twoplayer.reach(rules, games, rules.num_boxes - case["open"], seed=seed)
    p = table.plans[0]  # seat 0 to move: row i_other * movers + i_mover, column lead + low; 0 below the window, 1 above
    rows = table.sheets[1].index[starts.seat1].astype(np.int64) * p.movers + table.sheets[0].index[starts.seat0]
    column = np.asarray(starts.lead, np.int64) + p.low
    order = np.argsort(rows)  # the memory-mapped layer read in file order
    stored = np.empty(games)
    stored[order] = np.asarray(table.layers[p.n][rows[order], np.clip(column[order], 0, p.width - 1)], np.float64)
    exact = float(np.where(column < 0, 0.0, np.where(column >= p.width, 1.0, stored)).mean())
    distinct = len(np.unique(np.stack([starts.seat0, starts.seat1, starts.lead]), axis=1)[0])
    note = {"table": f"twoplayer_store.load(open_boxes={case['open']}) (float32)", "starts": "twoplayer.reach (expected-score play, seed --seed - 1)",
            "distinct_starts": distinct, "reach_wall_s": time.perf_counter() - t0, "reach_cpu_s": time.process_time() - c0}
    return rules, table, starts, exact, note


def setup(case: dict, stored: bool):
    """``(rules, table, firsts, lead, note)`` of a case: its rules, the two-player table, the two
    start sheets and the starter's lead (scores making the expected finals equal)."""
    import numpy as np

    from jaxsolve.games.category.sheets import kniffel, yacht
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.sheets.position import parse_position

    rules = yacht.small() if case["rules"] == "small" else (yacht.get_rules("yacht") if case["game"] == "yacht" else kniffel.get_rules(case["rules"]))
    note: dict = {}
    if case["mine"] is None:
        if stored:
            try:
                from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store  # the whole game's table, stored by `twoplayer-table`
            except ImportError:
                raise SystemExit("this jaxsolve has no two-player solution store (twoplayer_store)") from None
            table = twoplayer_store.load(rules, "share", case["game"])
            if table is None:
                raise SystemExit(f"the solution store holds no two-player table of {rules.name}: run `jaxsolve twoplayer-table {case['game']}` first")
            note["table"] = "twoplayer_store.load (float32)"
        elif case["rules"] != "small":
            table = twoplayer.unsolved(rules)  # the one-player seats only
            note["table"] = "none (twoplayer.unsolved): the one-player seats only"
        else:
            t0, c0 = time.perf_counter(), time.process_time()
            table = twoplayer.solve(rules, keep="all", dtype="float64")
            note.update(table="twoplayer.solve float64", solve_wall_s=time.perf_counter() - t0, solve_cpu_s=time.process_time() - c0)
        return rules, table, (table.sheets[0].first, table.sheets[1].first), 0, note
    firsts = tuple(parse_position(case[k], rules).state(rules) for k in ("mine", "theirs"))
    firsts = tuple(tuple(int(x) for x in s) for s in firsts)
    sol = solutions.solution(rules, "score", dtype="float64")
    expect = [float(sol.value(*s)) for s in firsts]
    scores = [parse_position(case[k], rules).total for k in ("mine", "theirs")]
    bonus = [rules.upper_bonus if s[1] >= rules.upper_threshold and rules.upper_bonus else 0 for s in firsts]
    lead = int(np.rint(expect[1] - expect[0]))  # the starter's lead making both expected finals equal
    note.update(sheet_totals=scores, upper_bonus_earned=bonus, expected_remaining=expect, lead_rule="round(E[other's rest] - E[starter's rest])")
    t0, c0 = time.perf_counter(), time.process_time()
    table = twoplayer.solve(rules, start=firsts, keep="all", dtype="float64")
    note.update(table="twoplayer.solve(start=) float64", pairs=sum(p.pairs for p in table.plans),
                values=sum(p.pairs * p.width for p in table.plans), solve_wall_s=time.perf_counter() - t0, solve_cpu_s=time.process_time() - c0)
    return rules, table, firsts, lead, note


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", required=True, choices=tuple(CASES))
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1, help="seating i plays with seed + i")
    ap.add_argument("--stored", action="store_true", help="the whole game's table from the solution store (twoplayer_store.load)")
    ap.add_argument("--seatings", default="all", help="comma-separated seat pairs such as optimal/score (default all)")
    ap.add_argument("--out", type=Path, required=True, help="path without suffix: merges into .json, writes .md")
    args = ap.parse_args(argv)
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.bench import machine
    from jaxsolve.games.category.objectives import twoplayer

    case = CASES[args.case]
    seatings = SEATINGS if args.seatings == "all" else tuple(tuple(s.split("/")) for s in args.seatings.split(","))
    if args.case == "yacht" and not args.stored:
        seatings = tuple(s for s in seatings if "optimal" not in s)  # no two-player table without the store
    record: dict = {"case": args.case, "what": case["what"], "game": case["game"], "mine": case["mine"], "theirs": case["theirs"],
                    "games": args.games, "seed": args.seed, "tie": "share", "machine": machine(), "load_start": load(),
                    "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                    "command": "python benchmarks/bench_twoplayer_winrates.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    starts = models = None
    if "open" in case:
        rules, table, starts, optimal, note = reached(case, args.games, args.seed - 1)
        lead = 0
        record.update(rules=rules.name, start=None, lead=lead, **note)
        record["optimal_value"] = optimal
    else:
        rules, table, firsts, lead, note = setup(case, args.stored)
        record.update(rules=rules.name, start=[list(s) for s in firsts], lead=lead, **note)
        t0, c0 = time.perf_counter(), time.process_time()
        models = twoplayer.SeatModels(rules, firsts, lead, "share")
        record["models_wall_s"], record["models_cpu_s"] = time.perf_counter() - t0, time.process_time() - c0
        record["optimal_value"] = table.value(firsts[0], firsts[1], lead) if table.layers[table.plans[0].n] is not None else None
    record["seatings"] = {}
    for i, seats in enumerate(seatings):
        t0, c0 = time.perf_counter(), time.process_time()
        played = twoplayer.simulate(table, args.games, seed=args.seed + i, seats=seats, lead=lead, models=models, starts=starts)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        exact = record["optimal_value"] if seats == ("optimal", "optimal") else (None if models is None else models.exact(seats))
        row = {"seats": list(seats), "seed": args.seed + i, "mean": played.mean, "se": played.standard_error, "wins": played.wins, "ties": played.ties,
               "exact": exact, "z": None if exact is None else (played.mean - exact) / played.standard_error,
               "wall_s": wall, "cpu_s": cpu, "load": load()}
        record["seatings"]["/".join(seats)] = row
        print(f"{args.case} {'/'.join(seats)}: {played.mean:.5f} +- {played.standard_error:.5f}" + ("" if exact is None else f" (exact {exact:.5f}, z {row['z']:+.2f})")
              + f", {cpu:.0f} CPU s, {wall:.0f} s", flush=True)
    record["load_end"] = load()
    out_json = args.out.with_suffix(".json")
    everything = json.loads(out_json.read_text()) if out_json.is_file() else {}
    kept = everything.get(args.case, {})
    if kept.get("games") == args.games and kept.get("lead") == lead and args.seatings != "all":
        record["seatings"] = {**kept.get("seatings", {}), **record["seatings"]}  # the seatings not played again stay
        record["earlier"] = {k: v for k, v in kept.items() if k not in ("seatings", "earlier")}
    everything[args.case] = record
    out_json.parent.mkdir(parents=True, exist_ok=True)
    out_json.write_text(json.dumps(everything, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(markdown(everything))
    return 0


def rewrite(out: Path) -> None:
    """``OUT.md`` again from ``OUT.json`` (nothing played)."""
    out.with_suffix(".md").write_text(markdown(json.loads(out.with_suffix(".json").read_text())))


def markdown(everything: dict) -> str:
    lines = ["# Win rates: the two-player player and the one-player models against the expected-score player", "",
             "Written by `benchmarks/bench_twoplayer_winrates.py` (commands and seeds per case below; docs/twoplayer.md). Seat 0 is the",
             "player to move at the start (the game's starter); a value is seat 0's mean result (1 win, 1/2 tie, 0 loss) over the games,",
             "+- one standard error; `exact` where the pair of seats has a known value. **Other engineers' jobs ran on the same 2 cores**",
             "(the load in each case).", ""]
    for key, r in everything.items():
        lines += [f"## {key}: {r['what']}", "", f"`{r['command']}` ({r['games']:,} games per seating, seed {r['seed']} + i for the i-th seating; "
                  f"{r['started']}; load {r['load_start']} -> {r['load_end']}; table: {r.get('table', '?')})", ""]
        if r.get("earlier"):
            e = r["earlier"]
            lines += [f"The other seatings: `{e['command']}` ({e['started']}; load {e['load_start']} -> {e['load_end']}; table: {e.get('table', '?')})", ""]
        if r.get("mine"):
            lines += [f"- starter (seat 0): `{r['mine']}`", f"- other (seat 1): `{r['theirs']}`",
                      f"- the starter's lead {r['lead']:+d}: his expected rest {r['expected_remaining'][0]:.2f} against {r['expected_remaining'][1]:.2f} "
                      f"under `score` play, so both expect the same final score (the sheets' own totals, {r['sheet_totals'][0]} and {r['sheet_totals'][1]}, are not used)",
                      ""]
        rows = r["seatings"]
        lines += ["| seat 0 / seat 1 | seat 0's mean | +- SE | wins | ties | exact | z | CPU s | wall s |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for name, x in rows.items():
            exact = "" if x["exact"] is None else f"{x['exact']:.5f}"
            z = "" if x["z"] is None else f"{x['z']:+.2f}"
            lines.append(f"| {name} | {x['mean']:.5f} | {x['se']:.5f} | {x['wins']:.4f} | {x['ties']:.4f} | {exact} | {z} | {x['cpu_s']:.0f} | {x['wall_s']:.0f} |")
        ss = rows.get("score/score", {}).get("exact")
        simulated_ss = ss is None and "score/score" in rows
        if simulated_ss:
            ss = rows["score/score"]["mean"]
        if ss is not None:
            against = f" the expected-score pair simulated, +- {rows['score/score']['se']:.5f}," if simulated_ss else ""
            lines += ["", f"Gain over the expected-score player in the same seat (against an expected-score player;{against} seat 1's share is 1 - seat 0's):", ""]
            for name, seat, label in (("optimal/score", 0, "two-player player, seat 0"), ("score/optimal", 1, "two-player player, seat 1"),
                                      ("table/score", 0, "one-player win model, seat 0"), ("score/table", 1, "one-player win model, seat 1")):
                if name in rows:
                    x = rows[name]
                    value = x["exact"] if x["exact"] is not None else x["mean"]
                    gain = (value - ss) if seat == 0 else (ss - value)
                    how = "exact" if x["exact"] is not None else f"simulated, +- {x['se']:.5f}"
                    lines.append(f"- {label}: {gain:+.5f} ({how})")
        lines.append("")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
