"""Win-probability advice at a table: speed, the table's answer against the exact one, and
simulated games (standard Yahtzee rules, float64).

    python benchmarks/bench_winning.py speed [--out results/winning/speed-cpu.json]
    python benchmarks/bench_winning.py table --table yahtzee-target.npy [--out results/winning/table-answer-cpu.json]
    python benchmarks/bench_winning.py simulate [--games 100000] [--out results/winning/simulate-cpu.json]
    python benchmarks/bench_winning.py first-answer [--table yahtzee-target.npy] [--repeats 5] [--out results/winning/first-answer-cpu.json]
    python benchmarks/bench_winning.py first-answer --set early [--repeats 3] [--out results/winning/first-answer-early-cpu.json]
    python benchmarks/bench_winning.py table-error [--out results/winning/distribution-table-error.json]

``speed``: exact advice (the best response solved over the states my game reaches) at positions
with 6 and 9 open boxes against two opponents, each timed three ways: the first question in a
new process on a fresh machine (empty compilation cache: imports, the score table read from the
solution store, the opponents' distributions and the response solved, every program compiled),
the first question in a new process once JAX's persistent compilation cache holds the programs,
and, in one process, a question of another turn (programs compiled, opponents' distributions
kept) and a second question of the same turn (response kept). ``table``: the table's answer from
the whole game's step target table in the solution store (``--table``: an export to put there
first), at the 6- and 9-open positions and a late one: the first answer in a new process, the
one-time full check of a layer, and later answers in one process. ``simulate``: from late
positions (4 open boxes each), 100,000 games of the win-probability player and of the
expected-score player in the same seat against one and against three expected-score players;
each rate beside the engine's prediction. ``first-answer``: the command line's ``advise kniffel
--opponent`` at the 6-open position against the two 6-open opponents, exact and table (the
whole game's target table in the store: ``--table`` puts an export there first), each in a new
process ``--repeats`` times: wall and CPU seconds of the whole process (interpreter start and
imports included), and whether it imported JAX. ``first-answer --set early``: the same with
opponents early in the game (at the start, one, two and three boxes filled: the whole game's
remaining-score distribution table of ``jaxsolve distribution-table kniffel`` in the store gives
their rows), me at the start (table) and at the 6-open position (exact and table).
``table-error``: on the reduced game (three dice, ``kniffel.small``), the whole game's
distribution table solved in float64, stored in float32 (``target.save_table``) and read back:
the largest absolute and relative error of its probabilities and row sums, and the win
probabilities of a few table answers with early opponents read from it against those from the
float64 distributions.

The solution store and compilation cache used are a folder of their own (``--cache-dir``,
default ``<tmp>/jaxsolve-bench-winning``; the Yahtzee score table is linked from the user's
store when it is there, else solved once). Wall seconds and CPU seconds (of this process, or of
the child process for a new process's figures) are recorded with the load average (other jobs
share the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
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
POSITIONS = {"6": ME6, "9": ME9, "late": LATE_ME}
EARLY = (
    # (name, my position, opponents, methods): opponents at the start and 1 to 3 boxes filled
    ("me at the start, opponents at the start and 1 box filled", "start", ["start 0", "chance=22 22"], ("table",)),
    ("me at the start, opponents with 2 and 3 boxes filled", "start", ["aces=3 kniffel=50 53", "sixes=18 full_house=25 large_straight=40 83"], ("table",)),
    ("me at the 6-open benchmark position, opponents at the start and 1 to 3 boxes filled", ME6,
     ["start 0", "chance=22 22", "aces=3 kniffel=50 53", "sixes=18 full_house=25 large_straight=40 83"], ("exact", "table")),
)
SITUATIONS = (((6, 6, 5, 2, 1), 2), ((4, 4, 3, 2, 1), 1), ((1, 2, 3, 4, 6), 1), ((5, 5, 5, 3, 3), 1), ((6, 5, 4, 3, 1), 0))
GAME = "kniffel"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "jaxsolve-bench-winning"


def _rules():
    """The Yahtzee preset (its tables are stored under its name)."""
    from jaxsolve import games

    return games.get_game(GAME).get_rules("yahtzee")


def _clock():
    return time.perf_counter(), time.process_time()


def _since(t):
    w, c = _clock()
    return round(w - t[0], 3), round(c - t[1], 3)


def _setup(cache_dir: Path) -> None:
    """float64, the solution store and JAX's persistent compilation cache in ``cache_dir``."""
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.io import cache

    cache.setup(cache_dir, compilation=True)


def _score_table(rules, cache_dir: Path) -> None:
    """The Yahtzee score table (float64) in ``cache_dir``'s store: linked from the user's store
    when it holds it, else solved there once."""
    from jaxsolve.io import cache

    entry = cache.entry_path(GAME, rules, "score", "float64")
    mine = cache_dir / cache.TABLES / GAME / entry.name
    if not mine.is_file():
        mine.parent.mkdir(parents=True, exist_ok=True)
        user = cache.default_root() / cache.TABLES / GAME / entry.name
        if user.is_file():
            for f in (user, user.with_suffix(".json")):
                shutil.copy2(f, mine.parent / f.name)
    from jaxsolve.games.category.engine import solutions

    solutions.solution(rules, "score", game=GAME, dtype="float64")


def question(args) -> dict:
    """One question in this (new) process: what the parent times with a clock of its own."""
    t = _clock()
    _setup(args.cache_dir)
    from jaxsolve.games.category.objectives import winning as W
    from jaxsolve.games.category.sheets.position import parse_position
    rules = _rules()
    opps = [W.parse_opponent(o, rules) for o in (LATE_OPPS if args.position == "late" else OPPS)]
    pos = parse_position(POSITIONS[args.position], rules)
    dice, left = SITUATIONS[0]
    adv = W.advise_win(rules, pos, dice, left, opps, method=args.method, game=GAME)
    return {"value": adv.value, "best": adv.options[0].label, "in_process_wall_cpu_s": _since(t)}


def _new_process(method: str, position: str, cache_dir: Path) -> dict:
    """``question`` in a child process, timed from here (interpreter start and imports included)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    got = subprocess.run(
        [sys.executable, __file__, "question", "--method", method, "--position", position, "--cache-dir", str(cache_dir)],
        capture_output=True, text=True, env=env, check=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {**json.loads(got.stdout.strip().splitlines()[-1]), "process_wall_cpu_s": [round(wall, 3), round(cpu, 3)], "load_average": os.getloadavg()}


def _fresh_copy(cache_dir: Path) -> Path:
    """A store holding what ``cache_dir``'s does (linked), with an empty compilation cache: a
    fresh machine once the tables are there."""
    from jaxsolve.io import cache

    fresh = Path(tempfile.mkdtemp(prefix="jaxsolve-bench-fresh-"))
    shutil.copytree(cache_dir / cache.TABLES, fresh / cache.TABLES, copy_function=os.link)
    return fresh


def speed(rules, args):
    from jaxsolve.games.category.objectives import winning as W
    from jaxsolve.games.category.sheets.position import parse_position

    _score_table(rules, args.cache_dir)
    opps = [W.parse_opponent(o, rules) for o in OPPS]
    rows = []
    for key in ("6", "9"):
        text = POSITIONS[key]
        pos = parse_position(text, rules)
        fresh = _fresh_copy(args.cache_dir)
        row: dict = {"position": text, "open_boxes": len(pos.open_boxes), "score": W.my_score(rules, pos, None), "opponents": OPPS}
        row["new_process_fresh_machine"] = _new_process("exact", key, fresh)
        row["new_process_compilation_cached"] = _new_process("exact", key, fresh)
        shutil.rmtree(fresh, ignore_errors=True)
        (dice, left), (dice2, left2) = SITUATIONS[0], SITUATIONS[1]
        t = _clock()
        first = W.advise_win(rules, pos, dice, left, opps, method="exact", game=GAME)
        row["first_question_in_this_process_wall_cpu_s"] = _since(t)
        t = _clock()
        W.advise_win(rules, pos, dice2, left2, opps, method="exact", game=GAME)
        row["same_turn_question_wall_cpu_s"] = _since(t)
        for extra in (3, 8):  # another turn: my score differs, so another utility and another response
            t = _clock()
            other = W.advise_win(rules, pos, dice, left, opps, method="exact", game=GAME, score=first.score + extra)
            row[f"another_turn_question_score_plus_{extra}_wall_cpu_s"] = _since(t)
        response = W.response_table(rules, pos.filled, W.utility_of_points(rules, pos, other.score, W.win_utility([W.final_distribution(rules, o) for o in opps])), start=pos.state(rules))
        row["reached_states"] = [int(len(a)) for a in response.layers if a is not None]
        row["channel_width"] = int(response.layers[-1].shape[1])
        row["exact_value"], row["exact_best"] = first.value, first.options[0].label
        row["load_average"] = os.getloadavg()
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def table_answer(rules, args):
    """The table's answer from the whole game's target table in the solution store."""
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.games.category.objectives import winning as W
    from jaxsolve.games.category.sheets.position import parse_position
    from jaxsolve.io import cache

    _score_table(rules, args.cache_dir)
    stored = TG.store_path(GAME, rules)
    out: list = []
    if not stored.is_file():
        if args.table is None:
            raise SystemExit(f"no target table in {stored}: give --table (a `jaxsolve target-table kniffel --out` export)")
        t = _clock()
        TG.store_export(args.table, game=GAME, rules=rules)
        out.append({"stored_from": str(args.table), "store_wall_cpu_s": _since(t)})
    for key in ("6", "9", "late"):
        pos = parse_position(POSITIONS[key], rules)
        layer = bin(pos.filled).count("1")
        row: dict = {"position": POSITIONS[key], "open_boxes": len(pos.open_boxes), "layers_read": [layer, layer + 1]}
        fresh = _fresh_copy(args.cache_dir)
        row["new_process_fresh_machine"] = _new_process("table", key, fresh)
        row["new_process_compilation_cached"] = _new_process("table", key, fresh)
        shutil.rmtree(fresh, ignore_errors=True)
        # the one-time full check of the layers this position reads (their notes removed first)
        for k in (layer, layer + 1):
            f = stored if k == 0 else stored.with_name(f"{stored.stem}-layer_{k}.npy")
            f.with_suffix(cache.VERIFIED).unlink(missing_ok=True)
        t = _clock()
        TG.load_table(stored, game=GAME, rules=rules, layers=(layer, layer + 1), mmap=True)
        row["full_check_of_both_layers_wall_cpu_s"] = _since(t)
        row["layer_bytes"] = [(stored if k == 0 else stored.with_name(f"{stored.stem}-layer_{k}.npy")).stat().st_size for k in (layer, layer + 1)]
        opps = [W.parse_opponent(o, rules) for o in (LATE_OPPS if key == "late" else OPPS)]
        t = _clock()
        for o in opps:
            W.final_distribution(rules, o, game=GAME)
        row["opponents_distributions_in_this_process_wall_cpu_s"] = _since(t)
        row["answers"] = []
        for dice, left in SITUATIONS:
            t = _clock()
            adv = W.advise_win(rules, pos, dice, left, opps, method="table", game=GAME)
            row["answers"].append({"dice": list(dice), "throws_left": left, "best": adv.options[0].label, "value": adv.value, "wall_cpu_s": _since(t)})
        if key != "late":
            exact = W.advise_win(rules, pos, *SITUATIONS[0], opps, method="exact", game=GAME)
            row["exact_value_first_situation"] = exact.value
            row["exact_best_first_situation"] = exact.options[0].label
            row["table_loss_first_situation"] = exact.value - {o.label: o.value for o in exact.options}[row["answers"][0]["best"]]
        row["load_average"] = os.getloadavg()
        out.append(row)
        print(json.dumps(row), flush=True)
    return out


def simulate(rules, games, out):
    import numpy as np

    from jaxsolve.games.category.objectives import winning as W
    from jaxsolve.games.category.objectives import winning_simulate as S
    from jaxsolve.games.category.sheets.position import parse_position

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


def first_answer(rules, args) -> dict:
    """``advise kniffel --opponent`` in new processes: the 6-open position, dice 6 6 5 2 1 with two
    re-throws left, the two 6-open opponents; exact and table, ``args.repeats`` times each. With
    ``args.set == 'early'``: each row of ``EARLY`` (the distribution table in the store)."""
    from jaxsolve.games.category.objectives import target as TG

    _score_table(rules, args.cache_dir)
    if not TG.store_path(GAME, rules).is_file():
        if args.table is None:
            raise SystemExit(f"no target table in {TG.store_path(GAME, rules)}: give --table (a `jaxsolve target-table kniffel --out` export)")
        TG.store_export(args.table, game=GAME, rules=rules)
    if args.set == "benchmark":
        return _first_answers(ME6, OPPS, ("exact", "table"), args)
    if not TG.store_path(GAME, rules, "distribution").is_file():
        raise SystemExit(f"no distribution table in {TG.store_path(GAME, rules, 'distribution')}: run `jaxsolve distribution-table kniffel --cache-dir {args.cache_dir}`")
    return {"rows": [{"name": name, **_first_answers(me, opps, methods, args)} for name, me, opps, methods in EARLY]}


def _first_answers(me: str, opps: list, methods: tuple, args) -> dict:
    """``advise`` of ``me`` against ``opps`` in ``args.repeats`` new processes per method."""
    (dice, left) = SITUATIONS[0]
    command = ["advise", GAME, "--rules", "yahtzee", "--position", me, "--dice", *map(str, dice), "--throws-left", str(left), "--json"]
    command += [x for o in opps for x in ("--opponent", o)]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    out: dict = {"command": "python -m jaxsolve " + " ".join(command + ["--win-method", "METHOD", "--cache-dir", "CACHE"]), "runs": {}}
    for method in methods:
        runs = []
        for _ in range(args.repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            got = subprocess.run([sys.executable, "-m", "jaxsolve.cli.jax_probe", *command, "--win-method", method, "--cache-dir", str(args.cache_dir)], capture_output=True, text=True, env=env, check=True)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            answer = json.loads(got.stdout)
            runs.append({
                "wall_s": round(wall, 3), "user_s": round(after.ru_utime - before.ru_utime, 3), "sys_s": round(after.ru_stime - before.ru_stime, 3),
                "load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)], "jax_imported": got.stderr.splitlines()[-1] != "no jax",
                "value": answer["value"], "best": answer["options"][0]["option"],
            })
            print(json.dumps({"method": method, **runs[-1]}), flush=True)
        out["runs"][method] = runs
    return out


REDUCED_ME = "aces=3 twos=6 threes=9 fours=12 fives=15 sixes=18 three_kind=15"
REDUCED_OPPS = (["start 0"], ["start 0", "chance=12 12"], ["aces=2 kniffel=50 52", "sixes=12 full_house=- large_straight=- 12", "start 0"])
REDUCED_SITUATIONS = (((6, 6, 5), 2), ((4, 4, 3), 1), ((1, 2, 6), 0))


def table_error(args) -> dict:
    """The float32 store's error on the reduced game (see the module's docstring)."""
    import numpy as np

    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.sheets import kniffel
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.games.category.objectives import winning as W
    from jaxsolve.games.category.sheets.position import parse_position
    from jaxsolve.io import cache

    rules = kniffel.small()
    store = Path(tempfile.mkdtemp(prefix="jaxsolve-bench-dist-"))
    cache.configure(store)
    try:
        sol = solutions.solution(rules, "score", dtype="float64")
        t = _clock()
        dist = D.distribution(rules, sol, dtype="float64", keep="all")
        solve = _since(t)
        path = TG.store_path(GAME, rules, "distribution")
        path.parent.mkdir(parents=True, exist_ok=True)
        TG.save_table(path, dist, game=GAME)
        back = TG.load_table(path, game=GAME, rules=rules, mmap=True, kind="distribution")
        worst = {"absolute": 0.0, "relative_of_nonzero": 0.0, "row_sum": 0.0}
        for k, ref in enumerate(dist.layers):
            got = np.asarray(back.layers[k][:], np.float64)
            err = np.abs(got - ref)
            worst["absolute"] = max(worst["absolute"], float(err.max()))
            nz = ref > 0
            worst["relative_of_nonzero"] = max(worst["relative_of_nonzero"], float((err[nz] / ref[nz]).max()))
            worst["row_sum"] = max(worst["row_sum"], float(np.abs(got.sum(1) - 1.0).max()))
        me = parse_position(REDUCED_ME, rules)
        mine = TG.solve_target(rules, dtype="float64", prefilled=me.filled)
        answers = []
        for opps_text in REDUCED_OPPS:
            opps = [W.parse_opponent(o, rules) for o in opps_text]
            for dice, left in REDUCED_SITUATIONS:
                W._REMAINING.clear()
                read = W.advise_win(rules, me, dice, left, opps, method="table", game=GAME, table=mine, sol=sol)  # the stored rows
                computed = W.advise_win(rules, me, dice, left, opps, method="table", game=None, table=mine, sol=sol, engine="numpy")  # float64
                diff = max(abs(a.value - {o.label: o.value for o in computed.options}[a.label]) for a in read.options)
                answers.append({
                    "opponents": opps_text, "dice": list(dice), "throws_left": left, "value_float64": computed.value, "value_from_table": read.value,
                    "largest_option_difference": diff, "same_ranking": [o.label for o in read.options] == [o.label for o in computed.options],
                })
                print(json.dumps(answers[-1]), flush=True)
    finally:
        cache.configure(None)
        shutil.rmtree(store, ignore_errors=True)
    values = sum(int(a.size) for a in dist.layers)
    return {"rules": rules.to_dict(), "values": values, "solve_wall_cpu_s": solve, "store": "float32", "largest_error": worst, "win_probabilities": answers}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("speed", "table", "simulate", "question", "first-answer", "table-error"))
    ap.add_argument("--repeats", type=int, default=5, help="first-answer: new processes per method")
    ap.add_argument("--set", default="benchmark", choices=("benchmark", "early"), help="first-answer: the 6-open benchmark question, or opponents early in the game")
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="solution store and compilation cache of the benchmark")
    ap.add_argument("--table", type=Path, default=None, help="table: a whole-game target table export to put into the store first")
    ap.add_argument("--method", default="exact", help="question: exact or table")
    ap.add_argument("--position", default="6", choices=tuple(POSITIONS), help="question: 6, 9 (open boxes) or late")
    args = ap.parse_args()
    if args.what == "question":
        print(json.dumps(question(args)), flush=True)
        return
    if args.what == "first-answer":  # this process needs no JAX either: the score table is read or, if missing, solved with it
        from jaxsolve.bench import machine as machine_info
        from jaxsolve.io import cache

        cache.setup(args.cache_dir, compilation=False)
        rules = _rules()
        got = first_answer(rules, args)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"machine": machine_info(), "rules": rules.name, **got}, indent=1) + "\n")
        return
    _setup(args.cache_dir)
    from jaxsolve.bench import machine as machine_info

    if args.what == "table-error":
        got = table_error(args)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"machine": machine_info(), **got}, indent=1) + "\n")
        return
    rules = _rules()
    if args.what == "speed":
        rows = speed(rules, args)
    elif args.what == "table":
        rows = table_answer(rules, args)
    else:
        rows = simulate(rules, args.games, args.out)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine_info(), "rules": rules.name, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
