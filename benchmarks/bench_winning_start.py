"""How much playing to win gains from the start of the game: simulated Yahtzee games of the
win-probability player against 1, 2 and 3 expected-score players, and the expected-score
player in the same seat (standard Yahtzee, preset ``yahtzee`` of ``kniffel``).

    python benchmarks/bench_winning_start.py late            # the late position, two opponents
    python benchmarks/bench_winning_start.py start --opponents 2 [--tables DIR]
    python benchmarks/bench_winning_start.py start --opponents 1
    python benchmarks/bench_winning_start.py start --opponents 3

``start``: every player at the start (0 points). The opponents' finals are their exact
distributions under the expected-score policy (the distribution engine, float64); my win
probability given my final f is ``winning.win_utility``. The win-probability player is the
exact best response to them: one full-game ``target.solve_target`` with the terminal
``utility_terminal(w)`` (float32, chunk 8, 2 CPU devices, every layer kept), w[k] = u(k) cut
where u stays within ``TRIM32`` of its top (float32 resolves no finer near 1); the prediction
is the start state's value. He does not look at the opponents' sheets during the game.
The expected-score player in the same seat: P(win) exactly from his final distribution, and
simulated (``simulate.simulate``, the optimal strategy of the float64 score table).
``late``: the late position of ``bench_winning.py simulate`` (4 open boxes each) against its
first two opponents, float64 responses (``winning.response_table``).

My games: ``winning_simulate.play_channel`` (each game reads its own channel of the table);
the opponents' finals: ``draw_finals``. 100,000 games per player. Each row is written to
``--out`` as soon as it is done (a cut run leaves the rows it finished); wall and CPU seconds
(this process, every thread), the peak resident memory and the load average are recorded
(other jobs share the machine). ``--tables DIR`` keeps each solved table there
(``target.save_table``) and reads it back on a later run instead of solving again; the
opponents' start-of-game distribution and the expected-score player's games (the same for
every number of opponents) are kept there too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TRIM32 = 2.0**-24
"""The utility is cut where it stays within this of its top: float32's spacing just below 1."""
LATE_ME = "aces=3 twos=6 threes=9 fours=12 fives=15 sixes=18 three_kind=22 four_kind=- full_house=25"
LATE_OPPS = [
    "aces=2 twos=8 threes=9 fours=12 fives=20 sixes=18 small_straight=30 large_straight=40 kniffel=- 174",
    "aces=3 twos=6 threes=6 fours=8 fives=15 sixes=24 three_kind=25 full_house=25 chance=21 133",
]
SEED_ME, SEED_OPPONENTS = 5, 11


def _clock():
    return time.perf_counter(), time.process_time()


def _since(t):
    w, c = _clock()
    return round(w - t[0], 2), round(c - t[1], 2)


def _peak_gib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 3)


def _rate(won, games: int) -> dict:
    import numpy as np

    return {"win_rate": float(won.mean()), "standard_error": float(won.std() / np.sqrt(games))}


def cut_utility(u, top: int, trim: float = TRIM32):
    """``w[k] = u(k)``, k = 0..top, cut after the last k where u is more than ``trim`` below its top."""
    import numpy as np

    w = np.asarray(u, np.float64)[np.minimum(np.arange(top + 1), len(u) - 1)]
    far = np.flatnonzero(w[-1] - w > trim)
    return w[: int(far[-1]) + 2] if len(far) else w[:1]


def write_row(out: Path, key: str, row: dict) -> None:
    """Add or replace the row ``key`` of ``out`` (the other rows kept)."""
    from jaxsolve.bench import machine

    doc = json.loads(out.read_text()) if out.is_file() else {"rules": "yahtzee", "rows": {}}
    doc["machine"] = machine()
    doc["rows"][key] = row
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")


def late(rules, games: int, out: Path, log) -> None:
    import numpy as np

    from jaxsolve.games.category.objectives import winning as W
    from jaxsolve.games.category.objectives import winning_simulate as S
    from jaxsolve.games.category.sheets.position import parse_position

    pos = parse_position(LATE_ME, rules)
    mine = W.my_score(rules, pos, None)
    state = pos.state(rules)
    opps = [W.parse_opponent(o, rules) for o in LATE_OPPS]
    finals = [W.final_distribution(rules, o, game="kniffel") for o in opps]
    u = W.win_utility(finals)
    w = W.utility_of_points(rules, pos, mine, u)
    K = len(w) - 1
    drawn = S.draw_finals(finals, games, seed=SEED_OPPONENTS)
    row: dict = {"start": "late", "opponents": [str(o) for o in opps], "me": LATE_ME, "my_score": mine, "games": games, "channel": K}
    for name, terminal in (("win_probability", w), ("expected_score", np.arange(K + 1, dtype=float))):
        t = _clock()
        table = W.response_table(rules, pos.filled, terminal)
        solve = _since(t)
        t = _clock()
        played = S.play_channel(table, state, K, games, seed=SEED_ME)
        won = S.outcomes(mine + played.points, drawn)
        row[name] = {**_rate(won, games), "mean_final": float(mine + played.points.mean()), "solve_wall_cpu_s": solve, "play_wall_cpu_s": _since(t)}
        if name == "win_probability":
            row[name]["predicted"] = float(table.at(*state)[K])
    rest = W.remaining_distribution(rules, pos, game="kniffel")
    row["expected_score"]["predicted"] = float(rest @ u[np.minimum(mine + np.arange(len(rest)), len(u) - 1)])
    for name in ("win_probability", "expected_score"):
        r = row[name]
        r["gap_in_se"] = (r["win_rate"] - r["predicted"]) / r["standard_error"]
    row["gain"] = row["win_probability"]["win_rate"] - row["expected_score"]["win_rate"]
    row["predicted_gain"] = row["win_probability"]["predicted"] - row["expected_score"]["predicted"]
    row["peak_rss_gib"] = _peak_gib()
    row["load_average"] = os.getloadavg()
    log(json.dumps(row))
    write_row(out, "late-2", row)


def start(rules, k: int, games: int, out: Path, tables_dir: Path | None, log) -> None:
    import numpy as np

    from jaxsolve.games.category.simulation import simulate as SIM
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.games.category.objectives import winning as W
    from jaxsolve.games.category.objectives import winning_simulate as S
    from jaxsolve.games.category.objectives.distribution import support_lengths

    key = f"start-{k}"
    row: dict = {"start": "start of the game", "opponents": k, "games": games, "load_start": os.getloadavg()}
    t = _clock()
    sol = solutions.solution(rules, "score", game="kniffel", dtype="float64")
    kept = None if tables_dir is None else tables_dir / "start-final-distribution.npy"
    if kept is not None and kept.is_file():
        final = np.load(kept)
    else:
        final = W.final_distribution(rules, W.parse_opponent("start 0", rules), sol, game="kniffel")
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            np.save(kept, final)
    finals = [final] * k
    u = W.win_utility(finals)
    w = cut_utility(u, support_lengths(rules)[0] - 1)
    K = len(w) - 1
    row.update(channel=K, trim=TRIM32, distribution_wall_cpu_s=_since(t), rss_before_solve_gib=_peak_gib())
    log(f"{key}: utility over 0..{K} points (cut at {TRIM32:.3g}), distribution {row['distribution_wall_cpu_s']}")
    path = None if tables_dir is None else tables_dir / f"winning-start-{k}-float32.npy"
    t = _clock()
    if path is not None and path.is_file():
        table = TG.load_table(path, game="kniffel", rules=rules)
        if table.terminal is None or len(table.terminal) != len(w) or np.max(np.abs(table.terminal - TG.utility_terminal(w))) > 1e-12:
            raise SystemExit(f"{path} was solved for another utility")
        row["table"] = {"read_from": str(path), "read_wall_cpu_s": _since(t), "solve_seconds_recorded": table.seconds}
    else:
        mark = [time.perf_counter()]

        def on_layer(index: int, n: int) -> None:
            log(f"{key}: layer {index} ({n} states) {time.perf_counter() - mark[0]:.1f} s, load {os.getloadavg()[0]:.1f}")
            mark[0] = time.perf_counter()

        table = TG.solve_target(rules, dtype="float32", chunk=8, devices=2, keep="all", terminal=TG.utility_terminal(w), on_layer=on_layer)
        row["table"] = {
            "solve_wall_cpu_s": _since(t), "run_seconds": table.seconds, "compile_seconds": table.compile_seconds,
            "peak_rss_gib": _peak_gib(), "load_after": os.getloadavg(), "values": int(sum(len(x) for x in table.layers) * (K + 1)),
        }
        log(f"{key}: solved {row['table']}")
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            TG.save_table(path, table, game="kniffel")
    predicted = float(table.at(0, 0, 0)[K])
    drawn = S.draw_finals(finals, games, seed=SEED_OPPONENTS)

    t = _clock()
    played = S.play_channel(table, (0, 0, 0), K, games, seed=SEED_ME, on_turn=lambda layer, s: log(f"{key}: turn {layer + 1} played, {s:.1f} s"))
    won = S.outcomes(played.points, drawn)
    row["win_probability"] = {**_rate(won, games), "predicted": predicted, "mean_final": float(played.points.mean()), "play_wall_cpu_s": _since(t)}
    del table
    log(f"{key}: {row['win_probability']}")

    t = _clock()
    kept = None if tables_dir is None else tables_dir / f"start-optimal-scores-{games}-seed{SEED_ME}.npy"
    if kept is not None and kept.is_file():  # the same games for every number of opponents
        scores = np.load(kept)
    else:
        scores = np.asarray(SIM.simulate(rules, "optimal", games, seed=SEED_ME, solution=sol, dtype=np.float64).scores, np.int64)
        if kept is not None:
            np.save(kept, scores)
    won = S.outcomes(scores, drawn)
    exact = float(final @ u[np.minimum(np.arange(len(final)), len(u) - 1)])
    row["expected_score"] = {**_rate(won, games), "predicted": exact, "mean_final": float(scores.mean()), "play_wall_cpu_s": _since(t)}
    for name in ("win_probability", "expected_score"):
        r = row[name]
        r["gap_in_se"] = (r["win_rate"] - r["predicted"]) / r["standard_error"]
    row["gain"] = row["win_probability"]["win_rate"] - row["expected_score"]["win_rate"]
    row["predicted_gain"] = predicted - exact
    row["peak_rss_gib"] = _peak_gib()
    row["load_average"] = os.getloadavg()
    log(json.dumps(row))
    write_row(out, key, row)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("late", "start"))
    ap.add_argument("--opponents", type=int, default=2, choices=(1, 2, 3))
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--tables", type=Path, default=None, help="keep each solved table here and read it back on a later run")
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "winning" / "simulate-start-cpu.json")
    args = ap.parse_args(argv)
    if args.games <= 0:
        print(f"error: --games must be positive, got {args.games}", file=sys.stderr)
        return 1
    from jaxsolve.core import runtime

    runtime.host_devices(2)
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.games.category.sheets import kniffel

    rules = kniffel.get_rules("yahtzee")

    def log(text: str) -> None:
        print(time.strftime("%H:%M:%S"), text, flush=True)

    if args.what == "late":
        late(rules, args.games, args.out, log)
    else:
        start(rules, args.opponents, args.games, args.out, args.tables, log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
