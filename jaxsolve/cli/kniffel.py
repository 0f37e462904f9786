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
    saved_rolls: Annotated[
        Optional[int],
        typer.Option("--saved-rolls", min=0, max=60, help="Save unused throws for later turns, at most this many carried (Maxi Yatzy's rule; 0: none saved)."),
    ] = None,
    devices: Annotated[int, typer.Option("--devices", min=0, help="With --saved-rolls: shard over the first n visible devices (0: all).")] = 1,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Solve {title} by backward induction and print the game value."""
    import jax

    from jaxsolve.io import export
    from jaxsolve.bench import peak_memory
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.category import saved, solver, table_io, tables
    from jaxsolve.games.category.rules import check_objective
    from jaxsolve.core.progress import layer_bars

    the_rules = build_rules(game, rules, rolls, joker, extra_bonus)
    check_objective(objective)
    if expect not in ("levels", "dense", "sparse"):
        raise JaxsolveError(f"unknown --expect {expect!r}; choose levels, dense or sparse")
    if out is not None:
        export.check_writable(out)
    if devices != 1 and saved_rolls is None:
        raise JaxsolveError("--devices shards the saved-throw solve: give --saved-rolls too")
    if saved_rolls is not None:
        saved.check_cap(saved_rolls, the_rules)
        if out is not None:  # the table, and its bytes while it is written
            saved.check_table_fits(the_rules, saved_rolls, "float64" if run.x64 else "float32", copies=2)
    dev = run.setup()
    sizes = {k: len(tables.representative_states(the_rules, k)[0]) for k in range(the_rules.num_boxes)}
    with layer_bars(sizes, run.quiet or as_json) as advance:
        if saved_rolls is None:
            sol = solver.solve(the_rules, objective, chunk=chunk, expect=expect, device=dev, on_layer=advance)
        else:
            if devices != 1 and devices > len(jax.devices()):
                raise JaxsolveError(f"--devices {devices}: only {len(jax.devices())} visible")
            sol = saved.solve(
                the_rules,
                saved_rolls,
                objective,
                chunk=chunk,
                device=dev,
                devices=None if devices == 1 else (devices or len(jax.devices())),
                table=out is not None,
                on_layer=advance,
            )
    if out is not None:
        (store if saved_rolls is None else saved).save_solution(out, sol, game=game.name)
    peak = peak_memory(dev)
    summary = {
        "game": game.name,
        "rules": the_rules.name,
        "objective": objective,
        "saved_rolls": saved_rolls,
        "game_value": sol.game_value,
        "dtype": "float64" if run.x64 else "float32",
        "device": sol.device,
        "compile_seconds": round(sol.compile_seconds, 3),
        "solve_seconds": round(sol.solve_seconds, 3),
        "peak_memory_mib": round(peak[0], 1),
        "peak_memory_kind": peak[1],
        "out": str(out) if out else None,
    }
    if as_json:
        typer.echo(json.dumps(summary))
        return
    unit = "points" if objective == "score" else "boxes met"
    kept = "" if saved_rolls is None else f", up to {saved_rolls} saved throw{'s' * (saved_rolls != 1)}"
    typer.echo(f"{the_rules.name} ({objective}{kept}): game value {sol.game_value:.7f} {unit}")
    if not run.quiet:
        typer.echo(f"solved on {sol.device} in {sol.solve_seconds:.2f} s (+{sol.compile_seconds:.2f} s compile), peak memory {peak[0] / 1024:.2f} GiB ({peak[1]})")
        if out:
            typer.echo(f"wrote {out} and {export.sidecar_path(out)}")


for_each_game(solve_app, __name__, handle_errors(shared_options()(solve)))
