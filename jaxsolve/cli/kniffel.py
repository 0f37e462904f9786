"""Category games (Kniffel / Yahtzee and every game with a score sheet): ``solve <game>``.

The command is added once per registered game that names this module (``jaxsolve.games``).
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated, Optional

import typer

from jaxsolve.cli.common import JsonOpt, OutOpt, Run, for_each_game, handle_errors, shared_options, solve_app

ObjectiveOpt = Annotated[str, typer.Option("--objective", help="score (expected points) or goals (expected boxes met).")]
RollsOpt = Annotated[Optional[int], typer.Option("--rolls", min=1, max=6, help="Override throws per turn.")]
ExtraBonusOpt = Annotated[Optional[int], typer.Option("--extra-bonus", min=0, help="Override the extra-Yahtzee bonus.")]


class Joker(str, Enum):
    none = "none"
    forced = "forced"
    free = "free"
    kniffel = "kniffel"


JokerOpt = Annotated[Optional[Joker], typer.Option("--joker", help="Override the joker mode.")]


def build_rules(game, rules: str | None, rolls=None, joker=None, extra_bonus=None):
    """The game's preset ``rules`` (its default if None) with the command line's overrides."""
    return game.get_rules(rules).replace(rolls=rolls, joker=joker.value if joker else None, extra_bonus=extra_bonus)


def solve(
    game,
    rules: str | None = None,
    objective: ObjectiveOpt = "score",
    rolls: RollsOpt = None,
    joker: JokerOpt = None,
    extra_bonus: ExtraBonusOpt = None,
    out: OutOpt = None,
    chunk: Annotated[int, typer.Option(min=16, max=1 << 16, help="States per compiled batch.")] = 1024,
    expect: Annotated[str, typer.Option(help="Keep-expectation operator: levels, dense or sparse.")] = "levels",
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Solve {title} by backward induction and print the game value."""
    from jaxsolve import export
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.kniffel import solver, store, tables
    from jaxsolve.kniffel.rules import check_objective
    from jaxsolve.progress import layer_bars

    the_rules = build_rules(game, rules, rolls, joker, extra_bonus)
    check_objective(objective)
    if expect not in ("levels", "dense", "sparse"):
        raise JaxsolveError(f"unknown --expect {expect!r}; choose levels, dense or sparse")
    if out is not None:
        export.check_writable(out)
    dev = run.setup()
    sizes = {k: -(-len(tables.layer_states(the_rules, k)[0]) // chunk) * chunk for k in range(the_rules.num_boxes)}
    with layer_bars(sizes, run.quiet or as_json) as advance:
        sol = solver.solve(the_rules, objective, chunk=chunk, expect=expect, device=dev, on_layer=advance)
    if out is not None:
        store.save_solution(out, sol)
    summary = {
        "game": game.name,
        "rules": the_rules.name,
        "objective": objective,
        "game_value": sol.game_value,
        "dtype": str(sol.values.dtype) if run.x64 else "float32",
        "device": sol.device,
        "compile_seconds": round(sol.compile_seconds, 3),
        "solve_seconds": round(sol.solve_seconds, 3),
        "out": str(out) if out else None,
    }
    if as_json:
        typer.echo(json.dumps(summary))
        return
    unit = "points" if objective == "score" else "boxes met"
    typer.echo(f"{the_rules.name} ({objective}): game value {sol.game_value:.7f} {unit}")
    if not run.quiet:
        typer.echo(f"solved on {sol.device} in {sol.solve_seconds:.2f} s (+{sol.compile_seconds:.2f} s compile)")
        if out:
            typer.echo(f"wrote {out} and {export.sidecar_path(out)}")


for_each_game(solve_app, __name__, handle_errors(shared_options()(solve)))
