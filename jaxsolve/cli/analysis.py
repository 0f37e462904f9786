"""Analysis commands of category games: ``advise <game>``, ``analyze <game>`` (one per registered
game that names this module) and the APL article's tables (``tables kniffel``)."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from jaxsolve.cli import app
from jaxsolve.cli.common import Device, JsonOpt, Run, advise_app, for_each_game, handle_errors, shared_options, tables_app
from jaxsolve.errors import JaxsolveError

analyze_app = typer.Typer(help="Split a position's value over the boxes and bonuses, with its spread.", no_args_is_help=True)
app.add_typer(analyze_app, name="analyze")

DEFAULT_TABLES = Path("results") / "kniffel" / "apl_tables.md"


class Strategy(str, Enum):
    optimal = "optimal"
    heuristic = "heuristic"


class Scope(str, Enum):
    game = "game"
    turn = "turn"


ObjectiveOpt = Annotated[Optional[str], typer.Option("--objective", help="score (expected points, default) or goals (expected boxes met).")]
PositionOpt = Annotated[str, typer.Option("--position", "-p", help='Filled boxes with scores, e.g. "aces=3 twos=- kniffel=50" (default: start).')]
DiceOpt = Annotated[Optional[str], typer.Option("--dice", "-d", help="Dice showing: --dice 1 1 2 2 5 (or 11225).")]
RollsLeftOpt = Annotated[Optional[int], typer.Option("--rolls-left", help="Re-throws still allowed this turn (default: all but the first throw).")]
ValuesOpt = Annotated[Optional[Path], typer.Option("--values", help="Read the value table from a `solve <game> --out` export instead of solving.")]
MoreDice = Annotated[Optional[List[str]], typer.Argument(hidden=True, help="The rest of --dice.")]


def _context(game, rules, objective, values, run: Run, *, jax: bool = True):
    """Rules, objective and (if given) the loaded export, after configuring JAX (``jax=False``:
    the solution store only, see ``Run.setup``)."""
    from jaxsolve.games.category import analysis, table_io
    from jaxsolve.games.category.rules import check_objective

    run.setup(jax=jax)
    if values is not None:
        if not values.exists():
            raise JaxsolveError(f"value table {values} does not exist")
        sol = table_io.load_solution(values)
        if rules is not None and game.get_rules(rules) != sol.rules:
            raise JaxsolveError(f"{values} holds rules {sol.rules.name}, not {rules}")
        if objective is not None and objective != sol.objective:
            raise JaxsolveError(f"{values} holds the {sol.objective} objective, not {objective}")
        analysis.register(sol, dtype=run.dtype)
        return sol.rules, sol.objective, sol
    return game.get_rules(rules), check_objective(objective or "score"), None


def _dice_text(dice: Optional[str], more: Optional[List[str]]) -> Optional[str]:
    if more and dice is None:
        raise JaxsolveError(f"unexpected argument {' '.join(more)!r}; dice go after --dice")
    if dice is None:
        return None
    return " ".join([dice, *(more or [])])


def _unit(objective: str) -> str:
    return "points" if objective == "score" else "boxes met"


def heuristic_ratings(rules, position, dice, rolls_left, **options) -> list[tuple[str, float]]:
    """Ratings of the heuristic strategy (``jaxsolve.kniffel.heuristic.ratings``), best first.

    ``options`` (``reading``, ``strength``, ``seed``; the advisor passes those not at their
    defaults) go to ``ratings``.

    The function may return ``(label, value)`` pairs, dicts with ``option``/``value`` or a
    mapping ``label -> value``.
    """
    import importlib

    try:
        module = importlib.import_module("jaxsolve.games.category.heuristic")
    except ModuleNotFoundError as exc:
        if exc.name in ("jaxsolve.games.category.heuristic",):
            raise JaxsolveError("heuristic strategy not available") from None
        raise
    if not hasattr(module, "ratings"):
        raise JaxsolveError("heuristic strategy not available (jaxsolve.kniffel.heuristic has no ratings function)")
    raw = module.ratings(rules, position, dice, rolls_left, **options)
    items = raw.items() if isinstance(raw, dict) else raw
    out = []
    for item in items:
        if isinstance(item, dict):
            out.append((str(item.get("option", item.get("label"))), float(item["value"])))
        else:
            label, value = item[0], item[1]
            out.append((str(getattr(label, "label", label)), float(value)))
    return sorted(out, key=lambda lv: -lv[1])


def advise(
    game,
    more_dice: MoreDice = None,
    rules: str | None = None,
    objective: ObjectiveOpt = None,
    position: PositionOpt = "start",
    dice: DiceOpt = None,
    rolls_left: RollsLeftOpt = None,
    scope: Annotated[Scope, typer.Option("--scope", help="game: the rest of the game counts (E^SP); turn: this turn alone (E_OS).")] = Scope.game,
    strategy: Annotated[Strategy, typer.Option("--strategy", help="optimal (exact) or heuristic ratings.")] = Strategy.optimal,
    heuristic_reading: Annotated[str, typer.Option("--heuristic-reading", help="Heuristic: the start value's bonus term, fresh-turn (default) or chain.")] = "fresh-turn",
    bot_strength: Annotated[str, typer.Option("--bot-strength", help="Heuristic: strongest (default), strong, medium or weak (forecast noise).")] = "strongest",
    bot_seed: Annotated[int, typer.Option("--bot-seed", help="Heuristic: seed of the bot's forecast errors.")] = 0,
    values: ValuesOpt = None,
    top: Annotated[Optional[int], typer.Option("--top", min=1, help="Print only the best N options.")] = None,
    batch: Annotated[Optional[Path], typer.Option("--batch", help="Answer many questions: JSON lines from this file ('-': standard input), one JSON line out per question (see docs/kniffel-analysis.md).")] = None,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Rank every option of a turn of {title} (each distinct keep, each box to fill), best first.

    The position is a score sheet ("aces=3 twos=- fours=12") or a state ("filled=aces,chance
    upper=3 holds50=0")."""
    from jaxsolve.games.category import analysis
    from jaxsolve.games.category.position import check_rolls_left, format_dice, parse_dice, parse_position

    if batch is not None:
        if strategy is Strategy.heuristic or scope is Scope.turn or dice or more_dice or position != "start":
            raise JaxsolveError("--batch reads positions and dice from its lines; it answers with the optimal strategy, game scope")
        the_rules, the_objective, sol = _context(game, rules, objective, values, run)
        _answer_batch(the_rules, sol or analysis.solution(the_rules, the_objective), batch, top)
        return
    dice_text = _dice_text(dice, more_dice)
    if strategy is Strategy.heuristic:
        the_rules = game.get_rules(rules)
        pos = parse_position(position, the_rules)
        faces = parse_dice(dice_text, the_rules)
        if faces is None:
            raise JaxsolveError("the advisor needs the dice showing (--dice)")
        left = check_rolls_left(rolls_left, the_rules, faces)
        chosen = {"reading": (heuristic_reading, "fresh-turn"), "strength": (bot_strength, "strongest"), "seed": (bot_seed, 0)}
        ratings = heuristic_ratings(the_rules, pos, faces, left, **{k: v for k, (v, default) in chosen.items() if v != default})
        if as_json:
            best = ratings[0][1] if ratings else 0.0
            opts = [{"option": lab, "value": v, "regret": best - v} for lab, v in ratings]
            typer.echo(json.dumps({"rules": the_rules.name, "strategy": "heuristic", "position": str(pos), "dice": list(faces), "rolls_left": left, "options": opts}))
            return
        typer.echo(f"{the_rules.name}, heuristic: {pos}; dice {format_dice(faces)}, {left} re-throw(s) left")
        best = ratings[0][1] if ratings else 0.0
        for lab, v in ratings[:top]:
            typer.echo(f"  {lab:<34} {v:12.4f}  regret {best - v:.4f}")
        return

    # One situation is answered with NumPy (analysis.advise); JAX is configured (imported) only
    # to solve a table the store does not hold, or for an explicit --device.
    numpy_only = run.device is Device.auto
    the_rules, the_objective, sol = _context(game, rules, objective, values, run, jax=not numpy_only)
    pos = parse_position(position, the_rules)
    faces = parse_dice(dice_text, the_rules)
    if faces is None:
        raise JaxsolveError(f"the advisor needs the dice showing (--dice 1 1 2 2 5); use `analyze {game.name}` for a position's value")
    left = check_rolls_left(rolls_left, the_rules, faces)
    if scope is Scope.game and sol is None:
        sol = analysis.cached_solution(the_rules, the_objective, run.dtype) if numpy_only else None
        if sol is None:
            run.setup()
            sol = analysis.solution(the_rules, the_objective, dtype=run.dtype)
    advice = analysis.advise(the_rules, pos, faces, left, the_objective, scope=scope.value, sol=sol, dtype=run.dtype)
    if as_json:
        typer.echo(json.dumps(advice.to_dict()))
        return
    unit = _unit(the_objective)
    typer.echo(f"{the_rules.name}, {the_objective} ({scope.value}): {pos}")
    typer.echo(f"{analysis.describe_turn(faces, left)}; value {advice.value:.6f} {unit}")
    for o in advice.options[:top]:
        typer.echo(f"  {o.label:<34} {o.value:12.6f}  regret {o.regret:.6f}")


def _read_lines(source: Path) -> list[str]:
    import sys

    if str(source) == "-":
        return sys.stdin.read().splitlines()
    if not source.is_file():
        raise JaxsolveError(f"batch file {source} does not exist or is not a file")
    try:
        return source.read_text().splitlines()
    except UnicodeDecodeError:
        raise JaxsolveError(f"batch file {source} is not text (JSON lines expected)") from None


def _answer_batch(rules, sol, source: Path, top: Optional[int]) -> None:
    """JSON lines in, JSON lines out: every question in one batched evaluation.

    A question is ``{"position": "<sheet or state>", "dice": [1, 1, 2, 2, 5], "rolls_left": 1}``
    (or ``"state": {"filled": [...] or mask, "upper": 12, "holds50": 0}`` instead of the
    position). The answer is ``{"value": ..., "options": [...]}`` with the options of ``advise
    --json``, best first, or ``{"error": "..."}`` for a bad line (exit status 1 at the end).
    """
    import numpy as np

    from jaxsolve.games.category import query
    from jaxsolve.games.category.position import check_rolls_left, check_state, parse_dice, parse_position

    lines = _read_lines(source)
    questions, answers = [], [None] * len(lines)
    for i, line in enumerate(lines):
        if not line.strip():
            answers[i] = {"error": "empty line"}
            continue
        try:
            try:
                q = json.loads(line)
            except json.JSONDecodeError as exc:
                raise JaxsolveError(f"line {i + 1} is not JSON ({exc.msg})") from None
            if not isinstance(q, dict):
                raise JaxsolveError("a question is a JSON object")
            if "state" in q:
                st = q["state"]
                if not isinstance(st, dict):
                    raise JaxsolveError("state must be an object with filled, upper, holds50")
                filled = st.get("filled", 0)
                if isinstance(filled, list):
                    filled = "filled=" + ",".join(map(str, filled)) if filled else "filled=-"
                else:
                    filled = f"filled={int(filled)}"
                pos = parse_position(f"{filled} upper={int(st.get('upper', 0))} holds50={int(st.get('holds50', 0))}", rules)
            else:
                pos = parse_position(str(q.get("position", "start")), rules)
            faces = parse_dice(q.get("dice"), rules)
            if faces is None:
                raise JaxsolveError("a question needs the dice showing (\"dice\": [...])")
            left = check_rolls_left(q.get("rolls_left"), rules, faces)
            f, u, h = pos.state(rules)
            if f == rules.full_mask:
                raise JaxsolveError("the game is over: every box is filled")
            check_state(rules, f, pos.upper_total, h)
            questions.append((i, f, u, h, faces, left))
        except (JaxsolveError, ValueError, TypeError) as exc:
            answers[i] = {"error": str(exc)}
    if questions:
        table = query.Table(sol)
        idx, f, u, h, faces, left = (np.array(x) for x in zip(*questions))
        ov = table.option_values(f, u, h, faces, left)
        for n, i in enumerate(idx):
            answers[i] = {"value": float(ov.value[n]), "options": table.ranked(ov, n)[:top]}
    for answer in answers:
        typer.echo(json.dumps(answer))
    if any("error" in a for a in answers):
        raise typer.Exit(1)


def analyze(
    game,
    more_dice: MoreDice = None,
    rules: str | None = None,
    objective: ObjectiveOpt = None,
    position: PositionOpt = "start",
    dice: DiceOpt = None,
    rolls_left: RollsLeftOpt = None,
    split: Annotated[bool, typer.Option("--split/--no-split", help="Per-box split and SD of the rest of the game (a forward walk over the states optimal play reaches; seconds on a CPU).")] = True,
    values: ValuesOpt = None,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Value of a position as a single turn and within the game; split over boxes and bonuses, SD."""
    from jaxsolve.games.category import analysis
    from jaxsolve.games.category.position import parse_dice, parse_position

    dice_text = _dice_text(dice, more_dice)
    the_rules, the_objective, sol = _context(game, rules, objective, values, run)
    pos = parse_position(position, the_rules)
    faces = parse_dice(dice_text, the_rules)
    sol = sol or analysis.solution(the_rules, the_objective)
    turn = analysis.analyze_turn(the_rules, pos, faces, rolls_left, the_objective, sol=sol)
    brk = analysis.breakdown(the_rules, pos, faces, rolls_left, the_objective, sol=sol) if split else None
    if as_json:
        out = turn.to_dict()
        if brk is not None:
            out["rest_of_game"] = {"mean": brk.mean, "sd": brk.sd, "split": brk.split}
        typer.echo(json.dumps(out))
        return
    unit = _unit(the_objective)
    sheet = f"sheet {pos.total} points, " if pos.total is not None else ""
    typer.echo(f"{the_rules.name}, {the_objective}: {pos} ({sheet}upper {pos.upper_total})")
    typer.echo(analysis.describe_turn(faces, turn.rolls_left))
    typer.echo(f"as a single turn:  {turn.turn_value:.6f} {unit}")
    typer.echo(f"within the game:   {turn.game_value:.6f} {unit} = {turn.this_turn:.6f} this turn + {turn.rest:.6f} rest")
    if brk is None:
        return
    typer.echo(f"rest of the game under the optimal policy: mean {brk.mean:.6f}, SD {brk.sd:.6f} {unit}")
    for name, v in brk.split.items():
        if the_objective == "goals" and name.endswith("bonus"):
            continue
        typer.echo(f"  {name:<16} {v:10.4f}")


@tables_app.command("kniffel")
@handle_errors
@shared_options("fixed64", quiet_help="Do not print the tables.")
def tables_kniffel(
    out: Annotated[Path, typer.Option("--out", "-o", help="Markdown file to write (a .json is written beside it).")] = DEFAULT_TABLES,
    run: Run = Run(),
):
    """Regenerate the APL article's tables 1, 10, 21, 22 (kniffel-apl, float64) next to the printed figures."""
    from jaxsolve.games.category import analysis

    from jaxsolve.io import export

    if out.suffix != ".md":
        raise JaxsolveError(f"--out must end in .md, got {out}")
    export.check_writable(out, ".md")
    export.check_writable(out.with_suffix(".json"), ".json")
    run.setup()
    data = analysis.apl_tables()
    text = analysis.apl_tables_markdown(data)
    export.atomic_write_text(out, text)
    export.atomic_write_text(out.with_suffix(".json"), json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    if not run.quiet:
        typer.echo(text)
    typer.echo(f"wrote {out} and {out.with_suffix('.json')}")


for_each_game(advise_app, __name__, handle_errors(shared_options("float64", quiet_help="No notes on stderr (which cached table is used).")(advise)))
for_each_game(analyze_app, __name__, handle_errors(shared_options("float64", quiet_help="No notes on stderr (which cached table is used).")(analyze)))
