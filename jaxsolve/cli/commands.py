"""Every command a game registers (``Game.commands``): ``jaxsolve NAME GAME`` for each name
(``solve``, ``advise``, ``plot``, ``tables`` and the games' own, such as ``analyze`` or
``simulate``), one subcommand per registered game that offers it, built from its registration
(its presets, its overridable rules fields and the command's own options), printed in one
format for every game."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import typer

from jaxsolve.cli.common import Run, add_game_command, flush_stdout, group, rules_params
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Batch, Param, Report

HELP = {
    "solve": "Solve a game exactly and optionally export the value tensor.",
    "advise": "Rank every option of a position, best first, with value and regret.",
    "plot": "Draw figures as PNG files.",
    "tables": "Regenerate the source documents' tables.",
}

OUT = Param("out", Path, None, "Write the value tensor as .npy (with a .json sidecar).", flags=("--out", "-o"))
JSON = Param("as_json", bool, False, "Print machine-readable JSON.", flags=("--json",))
TABLE = Param("table", Path, None, "Answer from a value table written by `solve --out`.", aliases=("--values",))
TOP = Param("top", int, None, "Print only the best N options.", min=1)


def _split(game, values: dict) -> tuple:
    """The rules (preset with overrides), whether any was named, and the command's own values."""
    if "rules" not in values:
        return game.get_rules(), False, values
    names = {p.name for p in game.override_params()}
    overrides = {k: values.pop(k) for k in list(values) if k in names}
    rules = values.pop("rules")
    given = rules is not None or any(v is not None for v in overrides.values())
    return game.build_rules(rules, **overrides), given, values


def emit(report: Report, as_json: bool, quiet: bool) -> None:
    if as_json:
        typer.echo(json.dumps(report.data, default=str))
        return
    for line in report.lines:
        typer.echo(line)
    if not quiet:
        for line in report.details:
            typer.echo(line)


def render_advice(advice: Advice, top: int | None) -> list[str]:
    """The one table every game's ``advise`` prints: rank, option, value, regret."""
    rows = advice.options[:top]
    lines = list(advice.heading)
    if advice.value is not None:
        lines.append(f"value {advice.value:.6f} {advice.unit}")
    if not rows:
        return lines + ["no options"]
    width = max(len("option"), *(len(o.label) for o in rows))
    lines.append(f"{'#':>4}  {'option':<{width}}  {'value':>12}  {'regret':>10}")
    lines += [f"{i:>4}  {o.label:<{width}}  {o.value:12.6f}  {o.regret:10.6f}" for i, o in enumerate(rows, 1)]
    if len(advice.options) > len(rows):
        lines.append(f"      ... {len(advice.options) - len(rows)} more (--top)")
    return lines


def _solve(game, values: dict, run: Run) -> None:
    from jaxsolve.io import export

    rules, _, own = _split(game, values)
    out, as_json = own.pop("out"), own.pop("as_json")
    if out is not None:
        for path in game.outputs(out) if game.outputs else [out]:
            export.check_writable(path)
    command = game.commands["solve"]
    device = run.setup()
    report = command.run(rules, dtype=run.dtype, device=device, quiet=run.quiet or as_json, out=out, **own)
    if report.result is not None:  # the table the other commands use: kept in the solution cache
        from jaxsolve.io import cache

        cache.store(game, rules, report.result)
    emit(report, as_json, run.quiet)


def _advise(game, values: dict, run: Run) -> None:
    rules, given, own = _split(game, values)
    top, as_json = own.pop("top"), own.pop("as_json")
    table = own.pop("table", None)
    if table is not None and game.load is None:
        raise JaxsolveError(f"{game.name} has no value-table file to answer from")
    command = game.commands["advise"]
    run.setup(jax=False)
    result = command.run(rules, rules_given=given, table=table, dtype=run.dtype, setup=run.setup, quiet=run.quiet, **own)
    if isinstance(result, Batch):
        for answer in result.answers:
            typer.echo(json.dumps({**answer, "options": answer["options"][:top]} if "options" in answer else answer))
        flush_stdout()
        if any("error" in a for a in result.answers):
            raise typer.Exit(1)
        return
    if as_json:
        typer.echo(json.dumps(result.to_dict(top), default=str))
        return
    for line in render_advice(result, top):
        typer.echo(line)


def _report_command(name: str):
    def body(game, values: dict, run: Run) -> None:
        rules, given, own = _split(game, values)
        as_json = own.pop("as_json", False)
        command = game.commands[name]
        takes = inspect.signature(command.run).parameters
        # a command that answers without JAX: the store set up, JAX only where it must solve
        # (``--device gpu`` is refused where none is visible, also here); one that takes
        # ``setup`` checks its input first and calls it (JAX set up, the device returned) then
        if command.jax and "setup" not in takes:
            device = run.setup()
        else:
            device = run.setup(jax=False, note="setup" not in takes)
            if "setup" in takes:
                own["setup"] = run.setup
        if "rules_given" in takes:  # e.g. to check a --table against --rules
            own["rules_given"] = given
        report = command.run(rules, dtype=run.dtype, device=device, quiet=run.quiet or as_json, **own)
        emit(report, as_json, run.quiet)

    return body


BODIES = {"solve": _solve, "advise": _advise}


def _params(name: str, game, command) -> list[Param]:
    rules = rules_params(game) if command.rules else []
    own = list(command.params)
    if name == "solve":
        own.append(OUT)
    if name == "advise":
        own += [TABLE] if game.load else []
        own.append(TOP)
    return [*rules, *own, *([JSON] if command.json else [])]


def command_names(games) -> list[str]:
    """Every command name the games register: the generic ones first, then the games' own in
    the order they are registered."""
    names = [n for n in HELP if any(n in g.commands for g in games)]
    for game in games:
        names += [n for n in game.commands if n not in names]
    return names


def add_commands(app: typer.Typer, games, names) -> None:
    """``jaxsolve NAME``, a group for each command name in ``names``, with a subcommand for each
    game that registers it (``jaxsolve NAME GAME``)."""
    for name in names:
        offering = [g for g in games if name in g.commands]
        summary = HELP.get(name) or next((g.commands[name].summary for g in offering if g.commands[name].summary), f"The games' {name} command.")
        sub = group(name, summary)
        for game in offering:
            command = game.commands[name]
            x64 = game.precision if command.precision is None else command.precision
            body = BODIES.get(name) or _report_command(name)
            add_game_command(sub, game, body, _params(name, game, command), command.help or summary, x64=x64, quiet_help=command.quiet_help)
        app.add_typer(sub, name=name)
