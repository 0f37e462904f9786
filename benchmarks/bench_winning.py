"""Win-probability advice at a table: speed, the table's answer against the exact one, and
simulated games (standard Yahtzee rules, float64).

    python benchmarks/bench_winning.py speed [--out results/winning/speed-cpu.json]
    python benchmarks/bench_winning.py table [--out results/winning/table-answer-cpu.json]
    python benchmarks/bench_winning.py simulate [--games 100000] [--out results/winning/simulate-cpu.json]

``speed``: exact advice (the best response solved over my remaining game) at positions with 6
and 9 open boxes against two opponents: the first question (the opponents' distributions and
the response solved, compiling included) and a second question of the same turn; the table's
answer (the step target table of the subgame solved once, then kept) and how far it is from the
exact answer. ``simulate``: from late positions (4 open boxes each), 100,000 games of the
win-probability player and of the expected-score player in the same seat against one and
against three expected-score players; each rate beside the engine's prediction.
Wall seconds and this process's CPU seconds are recorded with the load average (other jobs
share the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ME6 = "aces=3 twos=6 threes=12 fours=12 fives=15 sixes=18 three_kind=24"
ME9 = "aces=2 twos=6 threes=9 fours=12"
OPPS = [
    "aces=3 twos=4 threes=9 fours=16 fives=10 sixes=24 chance=23 124",
    "aces=1 twos=6 threes=6 fours=12 full_house=25 small_straight=30 large_straight=40 120",
]
LATE_ME = "aces=3 twos=6 threes=9 fours=12 fives=15 sixes=18 three_kind=22 four_kind=- full_house=25"
LATE_OPPS = [
    "aces=2 twos=8 threes=9 fours=12 fives=20 sixes=18 small_straight=30 large_straight=40 kniffel=- 174",
    "aces=3 twos=6 threes=6 fours=8 fives=15 sixes=24 three_kind=25 full_house=25 chance=21 133",
    "aces=1 twos=4 threes=9 fours=12 fives=20 sixes=24 four_kind=26 small_straight=30 kniffel=- 161",
]


def _clock():
    return time.perf_counter(), time.process_time()


def _since(t):
    w, c = _clock()
    return round(w - t[0], 3), round(c - t[1], 3)


def speed(rules, out):
    from jaxsolve.games.category import winning as W
    from jaxsolve.games.category.position import parse_position

    opps = [W.parse_opponent(o, rules) for o in OPPS]
    rows = []
    for text in (ME6, ME9):
        pos = parse_position(text, rules)
        n_open = len(pos.open_boxes)
        t = _clock()
        first = W.advise_win(rules, pos, (6, 6, 5, 2, 1), 2, opps, method="exact")
        cold = _since(t)
        t = _clock()
        second = W.advise_win(rules, pos, (4, 4, 3, 2, 1), 1, opps, method="exact")
        warm = _since(t)
        W._RESPONSES.clear()
        t = _clock()
        W.advise_win(rules, pos, (6, 6, 5, 2, 1), 2, opps, method="exact")
        solve = _since(t)
        t = _clock()
        W.target_table(rules, pos.filled)
        table_solve = _since(t)
        t = _clock()
        tab1 = W.advise_win(rules, pos, (6, 6, 5, 2, 1), 2, opps, method="table")
        table_answer = _since(t)
        tab2 = W.advise_win(rules, pos, (4, 4, 3, 2, 1), 1, opps, method="table")
        gaps = []
        for ex, tb in ((first, tab1), (second, tab2)):
            exact = {o.label: o.value for o in ex.options}
            chosen = tb.options[0].label
            gaps.append({
                "dice": list(ex.dice), "throws_left": ex.throws_left,
                "exact_best": ex.options[0].label, "exact_value": ex.value,
                "table_best": chosen, "table_value": tb.value,
                "table_minus_exact": tb.value - ex.value,
                "loss_of_table_choice": ex.value - exact[chosen],
                "before_turn_exact": ex.before_turn, "before_turn_table": tb.before_turn,
            })
        rows.append({
            "position": text, "open_boxes": n_open, "score": first.score,
            "opponents": OPPS,
            "exact_first_question_wall_cpu_s": cold,
            "exact_same_turn_question_wall_cpu_s": warm,
            "exact_response_solve_compiled_wall_cpu_s": solve,
            "target_table_solve_wall_cpu_s": table_solve,
            "table_answer_from_kept_table_wall_cpu_s": table_answer,
            "exact_vs_table": gaps,
            "load_average": os.getloadavg(),
        })
        print(json.dumps(rows[-1]), flush=True)
    return rows


def table_answer(rules, out):
    """The table's answer at the late position (4 open boxes) from a kept step target table:
    the first answer (compiling) and later answers of other situations."""
    from jaxsolve.games.category import winning as W
    from jaxsolve.games.category.position import parse_position

    pos = parse_position(LATE_ME, rules)
    opps = [W.parse_opponent(o, rules) for o in LATE_OPPS]
    for o in opps:
        W.final_distribution(rules, o)
    t = _clock()
    W.target_table(rules, pos.filled)
    row = {"position": LATE_ME, "open_boxes": len(pos.open_boxes), "table_solve_wall_cpu_s": _since(t), "answers": []}
    for dice, left in (((6, 6, 5, 2, 1), 2), ((4, 4, 3, 2, 1), 2), ((1, 2, 3, 4, 6), 1), ((5, 5, 5, 3, 3), 1), ((6, 5, 4, 3, 1), 0)):
        t = _clock()
        adv = W.advise_win(rules, pos, dice, left, opps, method="table")
        row["answers"].append({"dice": list(dice), "throws_left": left, "best": adv.options[0].label, "value": adv.value, "wall_cpu_s": _since(t)})
    row["load_average"] = os.getloadavg()
    print(json.dumps(row), flush=True)
    return [row]


def simulate(rules, games, out):
    import numpy as np

    from jaxsolve.games.category import winning as W
    from jaxsolve.games.category import winning_simulate as S
    from jaxsolve.games.category.position import parse_position

    pos = parse_position(LATE_ME, rules)
    mine = W.my_score(rules, pos, None)
    state = pos.state(rules)
    rows = []
    for k in (1, 3):
        opps = [W.parse_opponent(o, rules) for o in LATE_OPPS[:k]]
        finals = [W.final_distribution(rules, o) for o in opps]
        u = W.win_utility(finals)
        w = W.utility_of_points(rules, pos, mine, u)
        K = len(w) - 1
        drawn = S.draw_finals(finals, games, seed=11)
        row = {"opponents": [str(o) for o in opps], "me": LATE_ME, "my_score": mine, "games": games}
        for name, terminal in (("win_probability", w), ("expected_score", np.arange(K + 1, dtype=float))):
            t = _clock()
            table = W.response_table(rules, pos.filled, terminal)
            played = S.play_table(table, state, K, games, seed=5)
            won = S.outcomes(mine + played.points, drawn)
            row[name] = {
                "win_rate": float(won.mean()), "standard_error": float(won.std() / np.sqrt(games)),
                "mean_final": float(mine + played.points.mean()), "wall_cpu_s": _since(t),
            }
        row["win_probability"]["predicted"] = float(W.response_table(rules, pos.filled, w).at(*state)[K])
        rest = W.remaining_distribution(rules, pos)
        row["expected_score"]["predicted"] = float(rest @ u[np.minimum(mine + np.arange(len(rest)), len(u) - 1)])
        row["gain"] = row["win_probability"]["win_rate"] - row["expected_score"]["win_rate"]
        row["load_average"] = os.getloadavg()
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("speed", "table", "simulate"))
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.bench import machine as machine_info
    from jaxsolve.games.category.rules import CategoryRules

    rules = CategoryRules()
    if args.what == "speed":
        rows = speed(rules, args.out)
    elif args.what == "table":
        rows = table_answer(rules, args.out)
    else:
        rows = simulate(rules, args.games, args.out)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine_info(), "rules": rules.name, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
