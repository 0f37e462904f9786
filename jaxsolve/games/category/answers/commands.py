"""What the generic commands do for a category game (solve, advise; the APL tables for the
Kniffel sheet), typer-free: the CLI builds the options from the ``Param`` values here. The
float dtype a command computes in is passed to every solver and table call as a value."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Batch, Param, Ranked, Report
from jaxsolve.games.category.engine.objective import TWOPLAYER, WIN, for_advice
from jaxsolve.games.category.engine.objective import objective as objective_named

OBJECTIVE = Param("objective", str, None, "score (expected points, default), goals (expected boxes met) or another registered scalar objective.")
SOLVE_PARAMS = (
    OBJECTIVE,
    Param("chunk", int, None, "States per compiled batch (default: 512, with --saved-throws 1024).", min=16, max=1 << 16),
    Param("expect", str, "levels", "Keep-expectation operator.", choices=("levels", "dense", "sparse")),
    Param(
        "max_saved", int, None, "Save unused throws for later turns, at most this many carried (Maxi Yatzy's rule; 0: none saved).",
        flags=("--saved-throws",), aliases=("--saved-rolls",), min=0, max=60,
    ),
    Param("devices", int, 1, "With --saved-throws: shard over the first n visible devices (0: all).", min=0),
)
POSITION = Param("position", str, "start", 'Filled boxes with scores, e.g. "aces=3 twos=- kniffel=50" (default: start).', flags=("--position", "-p"))
DICE = Param("dice", str, None, "Dice showing: --dice 1 1 2 2 5 (or 11225).", flags=("--dice", "-d"))
MORE_DICE = Param("more_dice", list, None, "The rest of --dice.", argument=True)
THROWS_LEFT = Param("throws_left", int, None, "Re-throws still allowed this turn (default: all but the first throw).", aliases=("--rolls-left",), min=0)
ADVISE_PARAMS = (
    MORE_DICE,
    OBJECTIVE,
    POSITION,
    DICE,
    THROWS_LEFT,
    Param("scope", str, "game", "game: the rest of the game counts (E^SP); turn: this turn alone (E_OS).", choices=("game", "turn")),
    Param("strategy", str, "optimal", "optimal (exact) or heuristic ratings.", choices=("optimal", "heuristic")),
    Param("heuristic_reading", str, "fresh-turn", "Heuristic: the start value's bonus term, fresh-turn or chain."),
    Param("bot_strength", str, "strongest", "Heuristic: strongest, strong, medium or weak (forecast noise)."),
    Param("bot_seed", int, 0, "Heuristic: seed of the bot's forecast errors."),
    Param("batch", Path, None, "Answer many questions: JSON lines from this file ('-': standard input), one JSON line out per question."),
    Param(
        "opponent", list, None,
        'An opponent\'s sheet and current score, e.g. "aces=3 twos=- 5" or "start 0" (repeat): rank by P(finish first) against players who play for expected points.',
    ),
    Param("score", int, None, "With --opponent or --against: my current total (default: the sheet's total plus an upper bonus earned).", min=0),
    Param("ties", str, "share", "With --opponent or --against: a tie for first is shared (1/players tied), a win or a loss.", choices=("share", "win", "lose")),
    Param(
        "win_method", str, "auto",
        "With --opponent: exact (best response solved over my remaining game), table (the target table `target-table GAME` keeps in the "
        "solution store, else solved for my subgame; an upper bound) or auto (exact up to 9 open boxes).",
        choices=("auto", "exact", "table"),
    ),
    Param(
        "against", str, None,
        'The other player\'s sheet and score, e.g. "ones=3 twos=- 5": rank by my P(win) against one player who plays to win too '
        "(the two-player model, both playing to win; --opponent models players who play for expected points).",
    ),
    Param(
        "i_started", bool, True, "With --against: who started the game (at my turn the other has as many boxes filled if I started, one more if he did).",
        flags=("--i-started/--they-started",),
    ),
)
PLAY_PARAMS = (
    Param(
        "against", str, "expected",
        "expected: the opponents play for expected points; optimal: one opponent who plays to win against you (the two-player optimal strategy, "
        "your P(win) and the loss of each move beside the options).",
        choices=("expected", "optimal"),
    ),
    Param(
        "start", str, None,
        'With --against optimal: start from filled sheets, yours then his after a slash, e.g. "ones=3 twos=6 / ones=2 twos=8" '
        "(an end game; both with as many boxes filled).",
    ),
    Param("they_start", bool, False, "With --against optimal: the opponent throws first."),
    Param("ties", str, "share", "With --against optimal: a tie is shared (half a win), a win or a loss for you.", choices=("share", "win", "lose")),
)
"""The settings of ``play`` beside ``--opponents`` (``play.CategoryGame``)."""
TABLES_PARAMS = (Param("out", Path, Path("apl_tables.md"), "Markdown file to write (a .json is written beside it).", flags=("--out", "-o")),)


def solve(rules, *, dtype=None, device=None, progress=None):
    """The score table; ``progress(layers done, layers)`` is called as layers are solved."""
    from jaxsolve.games.category.engine import solver, table_io

    return solver.solve(rules, dtype=dtype, device=device, chunk=256 if rules.dice < 5 else 512, on_layer=table_io.layer_progress(rules, progress))


def unit(name: str) -> str:
    return objective_named(name).unit


def solve_command(rules, *, game, dtype, device, quiet, out, objective, chunk, expect, max_saved, devices) -> Report:
    """The value solve (or, with ``max_saved``, the saved-throw solve) with a bar per layer."""
    import jax

    from jaxsolve.core.progress import layer_bars
    from jaxsolve.core.runtime import peak_memory
    from jaxsolve.games.category.engine import saved, solver, table_io, tables
    from jaxsolve.games.category.sheets.rules import check_objective
    from jaxsolve.io import export

    objective = check_objective(objective or "score")
    if devices != 1 and max_saved is None:
        raise JaxsolveError("--devices shards the saved-throw solve: give --saved-throws too")
    if max_saved is not None:
        saved.check_max_saved(max_saved, rules)
        if out is not None:  # the table, and its bytes while it is written
            saved.check_table_fits(rules, max_saved, dtype, copies=2)
        if devices != 1 and devices > len(jax.devices()):
            raise JaxsolveError(f"--devices {devices}: only {len(jax.devices())} visible")
    sizes = {k: len(tables.representative_states(rules, k)[0]) for k in range(rules.num_boxes)}
    with layer_bars(sizes, quiet) as advance:
        if max_saved is None:
            sol = solver.solve(rules, objective, dtype=dtype, chunk=chunk or 512, expect=expect, device=device, on_layer=advance)
        else:
            shard = None if devices == 1 else (devices or len(jax.devices()))
            sol = saved.solve(
                rules, max_saved, objective, dtype=dtype, chunk=chunk or 1024, device=device, devices=shard, table=out is not None, on_layer=advance
            )
    if out is not None:
        (table_io if max_saved is None else saved).save_solution(out, sol, game=game)
    peak = peak_memory(device)
    data = {
        "game": game,
        "rules": rules.name,
        "objective": objective,
        "max_saved": max_saved,
        "game_value": sol.game_value,
        "dtype": dtype,
        "device": sol.device,
        "compile_seconds": round(sol.compile_seconds, 3),
        "solve_seconds": round(sol.solve_seconds, 3),
        "peak_memory_mib": round(peak[0], 1),
        "peak_memory_kind": peak[1],
        "out": str(out) if out else None,
    }
    kept = "" if max_saved is None else f", up to {max_saved} saved throw{'s' * (max_saved != 1)}"
    lines = (f"{rules.name} ({objective}{kept}): game value {sol.game_value:.7f} {unit(objective)}",)
    details = [f"solved on {sol.device} in {sol.solve_seconds:.2f} s (+{sol.compile_seconds:.2f} s compile), peak memory {peak[0] / 1024:.2f} GiB ({peak[1]})"]
    if out:
        details.append(f"wrote {out} and {export.sidecar_path(out)}")
    table = max_saved is None and objective == "score"  # the table the other commands use: cached
    return Report(lines, data, tuple(details), result=sol if table else None)


def _context(game, rules, rules_given, objective, table, dtype):
    """Rules, objective and the solution read from ``table`` (None without one)."""
    from jaxsolve.games.category.engine import solutions, table_io
    from jaxsolve.games.category.sheets.rules import check_objective

    if table is None:
        return rules, check_objective(objective or "score"), None
    if not table.exists():
        raise JaxsolveError(f"value table {table} does not exist")
    sol = table_io.load_solution(table, game=game, rules=rules if rules_given else None, objective=objective)
    if rules_given and rules != sol.rules:
        raise JaxsolveError(f"{table} holds rules {sol.rules.name}, not {rules.name}")
    if objective is not None and objective != sol.objective:
        raise JaxsolveError(f"{table} holds the {sol.objective} objective, not {objective}")
    solutions.adopt(sol, dtype=dtype)
    return sol.rules, sol.objective, sol


LONGEST_NUMBER = 9
"""Most digits of a number in a position or an opponent's text (no score or box value comes near)."""


def check_numbers(*given: tuple[str, str | None]) -> None:
    """Refuse a number of more than ``LONGEST_NUMBER`` digits in ``(option, text)`` pairs, naming
    the option (Python reads at most 4,300 digits; nothing in a position needs ten)."""
    for flag, text in given:
        if not text:
            continue
        for run in re.findall(r"\d+", text):
            if len(run) > LONGEST_NUMBER:
                shown = text if len(text) <= 40 else f"{text[:37]}..."
                raise JaxsolveError(f"{flag} {shown!r}: a number of {len(run):,} digits is no score or box value (at most {LONGEST_NUMBER} digits)")


def _dice_text(dice, more):
    if more and dice is None:
        raise JaxsolveError(f"unexpected argument {' '.join(more)!r}; dice go after --dice")
    return None if dice is None else " ".join([dice, *(more or [])])


def advise_command(
    rules, *, game, rules_given, table, dtype, setup, quiet, more_dice, objective, position, dice, throws_left, scope, strategy,
    heuristic_reading, bot_strength, bot_seed, batch, opponent=None, score=None, ties="share", win_method="auto", against=None, i_started=True,
):
    """Every option of a turn ranked (optimal play, or the rating heuristic), or a batch of questions;
    with ``opponent``, ranked by my probability to finish first (``winning.advise_win``)."""
    from jaxsolve.games.category.answers import advisor
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.sheets.position import check_throws_left, parse_position

    check_numbers(("--position", position), *(("--opponent", o) for o in opponent or ()), ("--against", against))
    asked = for_advice(objective, opponent=bool(opponent), against=against is not None)
    asked.refuse({
        "opponent": bool(opponent), "against": against is not None, "batch": batch is not None, "heuristic": strategy == "heuristic",
        "turn_scope": scope == "turn", "objective": (objective or "score") != "score", "table": table is not None,
        "win_method": win_method != "auto", "score": score is not None, "ties": ties != "share", "they_started": not i_started,
    })
    if asked is TWOPLAYER:
        return two_player_advice(rules, game, setup, position, _dice_text(dice, more_dice), throws_left, against, score, ties, i_started)
    if asked is WIN:
        return winning_advice(rules, game, setup, position, _dice_text(dice, more_dice), throws_left, opponent, score, ties, win_method)

    if batch is not None:
        if strategy == "heuristic" or scope == "turn" or dice or more_dice or position != "start":
            raise JaxsolveError("--batch reads positions and dice from its lines; it answers with the optimal strategy, game scope")
        rules, objective, sol = _context(game, rules, rules_given, objective, table, dtype)
        if sol is None:
            setup()
            sol = solutions.solution(rules, objective, game=game, dtype=dtype)
        return Batch(tuple(answer_batch(rules, sol, _read_lines(batch), errors=_stderr_line, game=game)))
    dice_text = _dice_text(dice, more_dice)
    if strategy == "heuristic":
        return _heuristic(rules, position, dice_text, throws_left, heuristic_reading, bot_strength, bot_seed)
    # One situation is answered with NumPy (advisor.advise); JAX is configured (imported) only
    # to solve a table the solution cache does not hold.
    rules, objective, sol = _context(game, rules, rules_given, objective, table, dtype)
    pos = parse_position(position, rules)
    faces = _faces(dice_text, rules, f"(--dice 1 1 2 2 5); use `analyze {game}` for a position's value")
    left = check_throws_left(throws_left, rules, faces)
    if scope == "game" and sol is None:
        sol = solutions.cached_solution(rules, objective, dtype, game=game)
        if sol is None:
            setup()
            sol = solutions.solution(rules, objective, game=game, dtype=dtype)
    advice = advisor.advise(rules, pos, faces, left, objective, scope=scope, sol=sol, dtype=dtype)
    heading = (f"{rules.name}, {objective} ({scope}): {pos}", f"{advisor.describe_turn(faces, left)}")
    return _advice(advice, heading, unit(objective))


def _faces(dice_text, rules, need: str = "(--dice 1 1 2 2 5)"):
    """The dice showing, parsed; the advisor refuses a question without them (``need``: how to give them)."""
    from jaxsolve.games.category.sheets.position import parse_dice

    faces = parse_dice(dice_text, rules)
    if faces is None:
        raise JaxsolveError(f"the advisor needs the dice showing {need}")
    return faces


def _advice(advice, heading, unit: str, **extra) -> Advice:
    """An answer's options as ``Ranked`` rows (each ``extra`` a name and a function of the option)
    under ``heading``; its data all of ``advice.to_dict()`` but the value and the options."""
    data = {k: v for k, v in advice.to_dict().items() if k not in ("value", "options")}
    options = tuple(
        Ranked(o.label, o.value, o.regret, {**{k: v for k, v in o.to_dict().items() if k not in ("option", "value", "regret")}, **{k: f(o) for k, f in extra.items()}})
        for o in advice.options
    )
    return Advice(heading, options, unit, advice.value, data)


def winning_advice(rules, game, setup, position, dice_text, throws_left, opponents, score, ties, method) -> Advice:
    """``advise --opponent``: every option ranked by P(finish first) (``winning.advise_win``)."""
    from jaxsolve.games.category.objectives import winning
    from jaxsolve.games.category.sheets.position import parse_position

    pos = parse_position(position, rules)
    faces = _faces(dice_text, rules)
    opps = [winning.parse_opponent(text, rules) for text in opponents]
    if method == "exact":
        check_exact_size(rules, pos, game)
    # small games in NumPy from the cached score table: JAX set up (imported) only where needed
    advice = winning.advise_win(rules, pos, faces, throws_left, opps, score=score, ties=ties, method=method, game=game, jax_setup=setup)
    return _advice(advice, winning.describe(advice), "P(finish first)")


EXACT_MAX_BYTES = 1 << 30
"""The most float64 values (in bytes) ``--win-method exact`` solves beyond ``winning.EXACT_MAX_OPEN``
open boxes (the table alone, before the solve's working memory)."""


def check_exact_size(rules, position, game: str) -> None:
    """Refuse ``--win-method exact`` where my best response over the rest of the game is more
    than ``EXACT_MAX_BYTES`` of values (past ``winning.EXACT_MAX_OPEN`` open boxes), naming what answers."""
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.objectives import winning

    f, u, h = position.state(rules)
    n_open = rules.num_boxes - bin(f).count("1")
    if n_open <= winning.EXACT_MAX_OPEN:
        return
    widths = D.support_lengths(rules)
    need = 8 * sum(len(D.sub_layer_states(rules, k, f, (f, u, h))[0]) * widths[k] for k in range(bin(f).count("1"), rules.num_boxes))
    if need > EXACT_MAX_BYTES:
        raise JaxsolveError(
            f"--win-method exact with {n_open} open boxes solves my best response over {need / 2**30:,.1f} GiB of values (at most "
            f"{EXACT_MAX_BYTES / 2**30:,.0f} GiB here): use --win-method table (an upper bound, from the target table `jaxsolve "
            f"target-table {game} --rules {rules.name}` keeps in the solution store) or auto (exact from {winning.EXACT_MAX_OPEN} open boxes on)"
        )


def two_player_advice(rules, game, setup, position, dice_text, throws_left, against, score, ties, i_started) -> Advice:
    """``advise --against``: every option ranked by my P(win) against one player who plays to win
    (``twoplayer_advice.advise``), the expected-score move named with its P(win)."""
    from jaxsolve.games.category.objectives.twoplayer import advice as twoplayer_advice

    sides = twoplayer_advice.parse_sides(rules, position, score, against, i_started)
    faces = _faces(dice_text, rules)
    setup()
    try:
        advice = twoplayer_advice.advise(rules, sides, faces, throws_left, ties=ties, game=game)
    except JaxsolveError as exc:
        told, whole, _ = str(exc).partition("; build the whole game's table once with")
        remedy = whole and endgame_remedy(rules, game)
        if not remedy:
            raise
        raise JaxsolveError(f"{told}; {remedy}") from None
    expected = advice.expected.label if advice.expected is not None else None
    return _advice(advice, twoplayer_advice.describe(advice), "P(win)", expected_score_move=lambda o: o.label == expected)


def endgame_remedy(rules, game: str) -> str | None:
    """Where the whole two-player table of ``rules`` cannot be built on this machine
    (``twoplayer_store.estimate``: too many rows or too much memory), what helps instead: the
    end-game set of the most open boxes that can (``twoplayer-table GAME --open K``), for
    positions that near the end, or ``--opponent``; None where the whole table can be built."""
    from jaxsolve.games.category.objectives.twoplayer import store

    def fits(k: int | None) -> bool:
        try:
            store.estimate(rules, "float32", k).check(Path("."), free=1 << 62)
        except JaxsolveError:
            return False
        return True

    if fits(None):
        return None
    k = next((k for k in range(rules.num_boxes - 1, 0, -1) if fits(k)), None)
    other = "rank against players who play for expected points with --opponent"
    if k is None:
        return f"the whole two-player table of {rules.name} is too large for this machine; {other}"
    return (
        f"the whole two-player table of {rules.name} is too large for this machine: `jaxsolve twoplayer-table {game} --rules {rules.name} "
        f"--open {k}` builds the end games with at most {k} open boxes each (advice from there on); before that, {other}"
    )


def _heuristic(rules, position, dice_text, throws_left, reading, strength, seed) -> Advice:
    """The rating heuristic's ratings of a turn, best first (JaFuffy's ratings, 0..1)."""
    from jaxsolve.games.category.simulation import heuristic
    from jaxsolve.games.category.sheets.position import check_throws_left, format_dice, parse_position

    pos = parse_position(position, rules)
    faces = _faces(dice_text, rules, "(--dice)")
    left = check_throws_left(throws_left, rules, faces)
    ratings = heuristic.ratings(rules, pos, faces, left, reading=reading, strength=strength, seed=seed)
    best = ratings[0]["value"] if ratings else 0.0
    options = tuple(Ranked(r["option"], float(r["value"]), best - float(r["value"])) for r in ratings)
    heading = (f"{rules.name}, heuristic: {pos}; dice {format_dice(faces)}, {left} re-throw(s) left",)
    data = {"rules": rules.name, "strategy": "heuristic", "position": str(pos), "dice": list(faces), "throws_left": left}
    return Advice(heading, options, "rating", None, data)


def say(message: str) -> None:
    """``message`` as a line on standard error (nothing where it is closed)."""
    try:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def _stderr_line(message: str) -> None:
    say(f"error: {message}")


def _read_lines(source: Path) -> list[str]:
    if str(source) == "-":
        return sys.stdin.read().splitlines()
    if not source.is_file():
        raise JaxsolveError(f"batch file {source} does not exist or is not a file")
    try:
        return source.read_text().splitlines()
    except UnicodeDecodeError:
        raise JaxsolveError(f"batch file {source} is not text (JSON lines expected)") from None


WIN_KEYS = ("opponents", "score", "ties", "win_method")
QUESTION_KEYS = ("position", "state", "dice", "throws_left", "rolls_left", *WIN_KEYS)
STATE_KEYS = ("filled", "upper", "all_same_held", "holds50")
MAX_LINE = 10_000
"""Longest batch line read (characters); a question is well under 200."""


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number here")


def _parse_line(line: str) -> dict:
    if len(line) > MAX_LINE:
        raise JaxsolveError(f"longer than {MAX_LINE:,} characters; not a question")
    try:
        q = json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise JaxsolveError(f"not JSON ({exc.msg}, column {exc.colno})") from None
    except ValueError as exc:
        raise JaxsolveError(f"not JSON as read here ({exc})") from None
    except RecursionError:
        raise JaxsolveError("not JSON as read here (nested too deeply)") from None
    if not isinstance(q, dict):
        raise JaxsolveError(f"a question is a JSON object, not a JSON {_json_kind(q)}")
    return q


def _json_kind(x) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}[type(x)]


def _known(obj: dict, keys: tuple[str, ...], where: str) -> None:
    unknown = [k for k in obj if k not in keys]
    if unknown:
        raise JaxsolveError(f"unknown key{'s' * (len(unknown) > 1)} {', '.join(map(repr, unknown))} in {where} (known: {', '.join(keys)})")


def _integer(value, name: str, low: int, high: int) -> int:
    """A JSON integer (not a boolean, not a float such as 1.9 or 2.0) within ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise JaxsolveError(f"{name} must be an integer, got {json.dumps(value)[:40]}")
    if not low <= value <= high:
        raise JaxsolveError(f"{name} must be between {low} and {high}, got {value}")
    return value


def _either(obj: dict, key: str, old_key: str, default):
    """``obj[key]``, or ``obj[old_key]`` (the spelling of older versions), or ``default``; not both."""
    if key in obj and old_key in obj:
        raise JaxsolveError(f"give {key} or its old spelling {old_key}, not both")
    return obj.get(key, obj.get(old_key, default))


def read_question(rules, line: str):
    """One batch line checked against the question schema: ``(filled, upper, all_same_held,
    dice, throws_left)``, or a ``JaxsolveError`` that says what is wrong.

    The schema: an object with ``dice`` (an array of faces or a string such as ``"11225"``),
    optional ``throws_left`` (an integer 0..throws-1; old spelling ``rolls_left``), and at most
    one of ``position`` (a string, as ``advise --position``) or ``state`` (an object with
    ``filled``: an array of box names or the integer mask, ``upper``: an integer >= 0,
    ``all_same_held``: 0 or 1, old spelling ``holds50``). No other keys; no floats where an
    integer is meant; the state must be one a game reaches."""
    from jaxsolve.games.category.sheets.position import check_state, check_throws_left, parse_dice, parse_position

    q = _parse_line(line)
    _known(q, QUESTION_KEYS, "the question")
    if "position" in q and "state" in q:
        raise JaxsolveError("give position or state, not both")
    if "state" in q:
        st = q["state"]
        if not isinstance(st, dict):
            raise JaxsolveError(f"state must be an object with filled, upper, all_same_held, not a JSON {_json_kind(st)}")
        _known(st, STATE_KEYS, "state")
        filled = st.get("filled", [])
        if isinstance(filled, list):
            if not all(isinstance(b, (str, int)) and not isinstance(b, bool) for b in filled):
                raise JaxsolveError("state.filled must be an array of box names (or the integer mask)")
            if len(set(map(str, filled))) != len(filled):
                raise JaxsolveError("state.filled names a box twice")
            filled = "filled=" + ",".join(map(str, filled)) if filled else "filled=-"
        else:
            filled = f"filled={_integer(filled, 'state.filled', 0, rules.full_mask)}"
        upper = _integer(st.get("upper", 0), "state.upper", 0, 6 * 6 * rules.dice)
        held = _integer(_either(st, "all_same_held", "holds50", 0), "state.all_same_held", 0, 1)
        pos = parse_position(f"{filled} upper={upper} all_same_held={held}", rules)
    else:
        position = q.get("position", "start")
        if not isinstance(position, str) or not position.strip():
            raise JaxsolveError("position must be a non-empty string such as \"aces=3 twos=-\"")
        check_numbers(("position", position))
        pos = parse_position(position, rules)
    dice = q.get("dice")
    if dice is None:
        raise JaxsolveError("a question needs the dice showing (\"dice\": [...])")
    if isinstance(dice, list):
        dice = [_integer(d, "a die", 1, 6) for d in dice]
    elif not isinstance(dice, str):
        raise JaxsolveError(f"dice must be an array of faces or a string such as \"11225\", not a JSON {_json_kind(dice)}")
    faces = parse_dice(dice, rules)
    if faces is None:
        raise JaxsolveError("a question needs the dice showing (\"dice\": [...])")
    left = _either(q, "throws_left", "rolls_left", None)
    if left is not None:
        left = _integer(left, "throws_left", 0, rules.throws - 1)
    left = check_throws_left(left, rules, faces)
    f, u, h = pos.state(rules)
    if f == rules.full_mask:
        raise JaxsolveError("the game is over: every box is filled")
    check_state(rules, f, pos.upper_total, h)
    return f, u, h, faces, left


def answer_batch(rules, sol, lines: list[str], *, errors=None, game: str | None = None) -> list[dict]:
    """JSON lines in, one answer per line: every question in one batched evaluation.

    A question is ``{"position": "<sheet or state>", "dice": [1, 1, 2, 2, 5], "throws_left": 1}``
    (or ``"state": {"filled": [...] or mask, "upper": 12, "all_same_held": 0}`` instead of the
    position; the old keys ``rolls_left`` and ``holds50`` are read too), checked by
    ``read_question``. The answer is ``{"value": ..., "options": [...]}`` with the options of
    ``advise --json``, best first, or ``{"error": "line N: ..."}`` for a bad line (also passed
    to ``errors(message)`` when given, e.g. to print it on stderr).
    """
    import numpy as np

    from jaxsolve.games.category.answers import query

    questions: list[tuple] = []
    answers: list[dict] = [{} for _ in lines]
    for i, line in enumerate(lines):
        try:
            if not line.strip():
                raise JaxsolveError("empty line")
            asked = read_question(rules, line)
            q = _parse_line(line)
            if any(k in q for k in WIN_KEYS):
                answers[i] = win_answer(rules, sol, q, asked, game=game)
                continue
            questions.append((i, *asked))
        except (JaxsolveError, ValueError, TypeError) as exc:
            answers[i] = {"error": f"line {i + 1}: {exc}"}
            if errors is not None:
                errors(answers[i]["error"])
    if questions:
        table = query.Table(sol)
        idx, f, u, h, faces, left = (np.array(x) for x in zip(*questions))
        ov = table.option_values(f, u, h, faces, left)
        for n, i in enumerate(idx):
            answers[i] = {"rules": rules.name, "value": float(ov.value[n]), "options": table.ranked(ov, n)}
    return answers


def win_answer(rules, sol, q: dict, asked: tuple, *, game: str | None = None) -> dict:
    """A batch question with ``opponents`` (a list of ``"SHEET SCORE"`` texts, as ``--opponent``),
    optional ``score`` (mine), ``ties`` and ``win_method``: the options ranked by P(finish first)
    (``game``: where the solution store's target table is looked up for ``table``)."""
    from jaxsolve.games.category.objectives import winning
    from jaxsolve.games.category.sheets.position import Position, SheetState, parse_position, parse_state

    opps = q.get("opponents")
    if not isinstance(opps, list) or not opps or not all(isinstance(o, str) for o in opps):
        raise JaxsolveError('opponents must be a non-empty array of "SHEET SCORE" texts, e.g. ["aces=3 twos=- 3"]')
    check_numbers(*(("opponents", o) for o in opps))
    score = q.get("score")
    if score is not None:
        score = _integer(score, "score", 0, 10_000)
    ties, method = q.get("ties", "share"), q.get("win_method", "auto")
    if ties not in winning.TIES or method not in winning.METHODS:
        raise JaxsolveError(f"ties must be one of {', '.join(winning.TIES)} and win_method one of {', '.join(winning.METHODS)}")
    f, u, h, faces, left = asked
    pos: Position | SheetState
    if "state" in q:
        names = ",".join(rules.box_names[b] for b in range(rules.num_boxes) if f >> b & 1) or "-"
        pos = parse_state(f"filled={names} upper={u} all_same_held={h}", rules)
    else:
        pos = parse_position(q.get("position", "start"), rules)
    if method == "exact":
        check_exact_size(rules, pos, game or "GAME")
    advice = winning.advise_win(rules, pos, faces, left, [winning.parse_opponent(o, rules) for o in opps], score=score, ties=ties, method=method, sol=sol, game=game)
    return {"rules": rules.name, **{k: v for k, v in advice.to_dict().items() if k != "rules"}}


def apl_tables_command(rules, *, apl_rules, dtype, device, quiet, out) -> Report:
    """The APL article's tables 1, 10, 21, 22 (``kniffel-apl``, float64) next to the printed figures."""
    from jaxsolve.games.category.checks import apl_article
    from jaxsolve.io import export

    if out.suffix != ".md":
        raise JaxsolveError(f"--out must end in .md, got {out}")
    export.check_writable(out, ".md")
    export.check_writable(out.with_suffix(".json"), ".json")
    data = apl_article.apl_tables(apl_rules)
    text = apl_article.apl_tables_markdown(data)
    export.atomic_write_text(out, text)
    export.atomic_write_text(out.with_suffix(".json"), json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return Report((f"wrote {out} and {out.with_suffix('.json')}",), {"files": [str(out), str(out.with_suffix(".json"))]}, (text,))
