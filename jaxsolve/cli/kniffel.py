"""Kniffel / Yahtzee commands."""

from __future__ import annotations

import json
from enum import Enum
from typing import Annotated, Optional

import typer

from jaxsolve.cli.common import (
    CacheOpt,
    Device,
    DeviceOpt,
    JsonOpt,
    NoCacheOpt,
    OutOpt,
    QuietOpt,
    X64Opt,
    handle_errors,
    setup,
    solve_app,
)
from jaxsolve.kniffel.rules import PRESETS, get_rules

RulesOpt = Annotated[str, typer.Option("--rules", "-r", help=f"Rule preset: {', '.join(PRESETS)}.")]
ObjectiveOpt = Annotated[str, typer.Option("--objective", help="score (expected points) or goals (expected boxes met).")]
RollsOpt = Annotated[Optional[int], typer.Option("--rolls", min=1, max=6, help="Override throws per turn.")]
ExtraBonusOpt = Annotated[Optional[int], typer.Option("--extra-bonus", min=0, help="Override the extra-Kniffel bonus.")]


class Joker(str, Enum):
    none = "none"
    forced = "forced"
    free = "free"
    kniffel = "kniffel"


JokerOpt = Annotated[Optional[Joker], typer.Option("--joker", help="Override the joker mode.")]


def build_rules(rules: str, rolls, joker, extra_bonus):
    return get_rules(rules).replace(rolls=rolls, joker=joker.value if joker else None, extra_bonus=extra_bonus)


@solve_app.command("kniffel")
@handle_errors
def solve_kniffel(
    rules: RulesOpt = "yahtzee",
    objective: ObjectiveOpt = "score",
    rolls: RollsOpt = None,
    joker: JokerOpt = None,
    extra_bonus: ExtraBonusOpt = None,
    out: OutOpt = None,
    device: DeviceOpt = Device.auto,
    x64: X64Opt = False,
    quiet: QuietOpt = False,
    cache_dir: CacheOpt = None,
    no_cache: NoCacheOpt = False,
    chunk: Annotated[int, typer.Option(min=16, max=1 << 16, help="States per compiled batch.")] = 1024,
    expect: Annotated[str, typer.Option(help="Keep-expectation operator: levels, dense or sparse.")] = "levels",
    as_json: JsonOpt = False,
):
    """Solve Kniffel/Yahtzee by backward induction and print the game value."""
    from jaxsolve import export
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.kniffel import solver, store, tables
    from jaxsolve.kniffel.rules import check_objective
    from jaxsolve.progress import layer_bars

    the_rules = build_rules(rules, rolls, joker, extra_bonus)
    check_objective(objective)
    if expect not in ("levels", "dense", "sparse"):
        raise JaxsolveError(f"unknown --expect {expect!r}; choose levels, dense or sparse")
    if out is not None:
        export.check_writable(out)
    dev = setup(device, x64, cache_dir, no_cache)
    sizes = {k: -(-len(tables.layer_states(the_rules, k)[0]) // chunk) * chunk for k in range(the_rules.num_boxes)}
    with layer_bars(sizes, quiet or as_json) as advance:
        sol = solver.solve(the_rules, objective, chunk=chunk, expect=expect, device=dev, on_layer=advance)
    if out is not None:
        store.save_solution(out, sol)
    summary = {
        "rules": the_rules.name,
        "objective": objective,
        "game_value": sol.game_value,
        "dtype": str(sol.values.dtype) if x64 else "float32",
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
    if not quiet:
        typer.echo(f"solved on {sol.device} in {sol.solve_seconds:.2f} s (+{sol.compile_seconds:.2f} s compile)")
        if out:
            typer.echo(f"wrote {out} and {export.sidecar_path(out)}")
