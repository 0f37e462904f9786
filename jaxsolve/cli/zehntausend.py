"""Zehntausend commands: solve E(p, n), advise on a throw, plot figure 1 of D. Peter (2013)."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from jaxsolve.cli.common import (
    Device,
    JsonOpt,
    OutOpt,
    Run,
    advise_app,
    handle_errors,
    plot_app,
    setup,
    shared_options,
    solve_app,
)
from jaxsolve.games.zehntausend.rules import PRESETS

DEFAULT_FIGURE = Path("results") / "zehntausend" / "delta_e.png"
P_MAX_LIMIT = 1_000_000  # 20,000 grid points on the figure's p axis


class TwoFives(str, Enum):
    off = "off"
    one = "one"
    any = "any"


RulesOpt = Annotated[str, typer.Option("--rules", "-r", help=f"Rule preset: {', '.join(PRESETS)}.")]
StraightOpt = Annotated[Optional[int], typer.Option("--straight", help="Points for 1-2-3-4-5-6 (0: no straight).")]
SixKindOpt = Annotated[Optional[int], typer.Option("--six-of-a-kind", help="Points for six of a kind (0: keep doubling).")]
ThreePairsOpt = Annotated[Optional[int], typer.Option("--three-pairs", help="Points for three pairs (0: nothing).")]
TwoFivesOpt = Annotated[Optional[TwoFives], typer.Option("--two-fives", help="Two 5s as one pseudo-1 worth 100: off, one per set-aside, any.")]


def build_rules(rules: str, straight, six_of_a_kind, three_pairs, two_fives):
    from jaxsolve.games.zehntausend.solver import get_rules

    return get_rules(rules).replace(
        straight=straight, six_of_a_kind=six_of_a_kind, three_pairs=three_pairs, two_fives=two_fives.value if two_fives else None
    )


def _solve(the_rules, run: Run):
    from jaxsolve.games.zehntausend import solver as z

    dev = run.setup()
    return z.solve(the_rules, device=dev)


@solve_app.command("zehntausend")
@handle_errors
@shared_options("float64")
def solve_zehntausend(
    rules: RulesOpt = "peter-2013",
    straight: StraightOpt = None,
    six_of_a_kind: SixKindOpt = None,
    three_pairs: ThreePairsOpt = None,
    two_fives: TwoFivesOpt = None,
    out: OutOpt = None,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Compute E(p, n) for all p (multiples of 50) and n = 0..6; print E(0, 6) and p1..p6."""
    from jaxsolve.io import export
    from jaxsolve.games.zehntausend import solver as z

    the_rules = build_rules(rules, straight, six_of_a_kind, three_pairs, two_fives)
    if out is not None:
        export.check_writable(out)
    sol = _solve(the_rules, run)
    if out is not None:
        z.save_solution(out, sol)
    t = sol.tables
    summary = {
        "rules": the_rules.to_dict(),
        "turn_value": sol.turn_value,
        "thresholds": {str(n): p for n, p in sol.thresholds().items()},
        "p6_exact": str(t.stop_point(6)),
        "delta6": str(t.delta(6)),
        "bust6": str(t.bust_probability(6)),
        "E0": {str(n): sol.value(0, n) for n in range(1, 7)},
        "dtype": str(sol.E.dtype),
        "device": sol.device,
        "compile_seconds": round(sol.compile_seconds, 4),
        "solve_seconds": round(sol.solve_seconds, 5),
        "out": str(out) if out else None,
    }
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"Zehntausend ({the_rules.name}): E(0, 6) = {sol.turn_value:.4f} points per turn")
    typer.echo("thresholds (go on with n dice only while p < p_n): " + ", ".join(f"p{n} = {p}" for n, p in sol.thresholds().items()))
    if not run.quiet:
        typer.echo(
            f"p6: Delta_6 / P0_6 = ({t.delta(6)}) / ({t.bust_probability(6)}) = {t.stop_point(6)} = {float(t.stop_point(6)):.2f}"
        )
        typer.echo("E(0, n), n = 1..5: " + ", ".join(f"{sol.value(0, n):.2f}" for n in range(1, 6)))
        typer.echo(f"solved on {sol.device} in {sol.solve_seconds * 1000:.1f} ms (+{sol.compile_seconds:.2f} s compile), {sol.E.dtype}")
        if out:
            typer.echo(f"wrote {out} and {export.sidecar_path(out)}")


def parse_faces(dice: str, more: list[str]) -> list[int]:
    """Faces from ``--dice 1 5 5 2`` (first value plus positional rest), ``--dice 1552`` or ``1,5,5,2``."""
    from jaxsolve.errors import JaxsolveError

    faces = []
    for token in [dice, *more]:
        for part in token.replace(",", " ").split():
            chars = list(part) if part.isdigit() else [part]
            for c in chars:
                try:
                    faces.append(int(c))
                except ValueError:
                    raise JaxsolveError(f"dice show faces 1 to 6, got {c!r}") from None
    return faces


@advise_app.command("zehntausend")
@handle_errors
@shared_options("float64", quiet_help=None)
def advise_zehntausend(
    points: Annotated[int, typer.Option("--points", "-p", help="Turn points already set aside (multiple of 50).")],
    dice: Annotated[str, typer.Option("--dice", "-d", help="The throw: --dice 1 5 5 2 2 2, --dice 155222 or --dice 1,5,5,2,2,2.")],
    more_dice: Annotated[Optional[List[str]], typer.Argument(help="The other dice of the throw.", show_default=False)] = None,
    rules: RulesOpt = "peter-2013",
    straight: StraightOpt = None,
    six_of_a_kind: SixKindOpt = None,
    three_pairs: ThreePairsOpt = None,
    two_fives: TwoFivesOpt = None,
    table: Annotated[Optional[Path], typer.Option("--table", help="Use an E export from `solve zehntausend --out` instead of solving.")] = None,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """List every legal choice for a throw (write, or set aside u and throw on), best first."""
    from jaxsolve.games.zehntausend import solver as z

    faces = parse_faces(dice, more_dice or [])
    z.check_points(points)
    counts = z.parse_throw(faces)
    if table is not None:
        sol = z.load_solution(table)
    else:
        sol = _solve(build_rules(rules, straight, six_of_a_kind, three_pairs, two_fives), run)
    choices = z.advise(sol, points, faces)
    if as_json:
        payload = {
            "rules": sol.rules.to_dict(),
            "points": points,
            "throw": sorted(faces),
            "write_points": z.write_points(sol.rules, counts),
            "choices": [c.to_dict() for c in choices],
        }
        typer.echo(json.dumps(payload))
        return
    typer.echo(f"p = {points}, throw {' '.join(map(str, sorted(faces)))}  (rules: {sol.rules.name})")
    width = max(len(c.describe()) for c in choices)
    for rank, c in enumerate(choices, 1):
        typer.echo(f"{rank:>3}. {c.describe():<{width}}  E = {c.value:10.4f}")


@plot_app.command("zehntausend")
@handle_errors
@shared_options("float64")
def plot_zehntausend(
    out: Annotated[Path, typer.Option("--out", "-o", help="PNG file to write.")] = DEFAULT_FIGURE,
    rules: RulesOpt = "peter-2013",
    straight: StraightOpt = None,
    six_of_a_kind: SixKindOpt = None,
    three_pairs: ThreePairsOpt = None,
    two_fives: TwoFivesOpt = None,
    p_max: Annotated[Optional[int], typer.Option("--p-max", min=100, max=P_MAX_LIMIT, help=f"Right end of the p axis (default 1.3 p6; at most {P_MAX_LIMIT:,}).")] = None,
    run: Run = Run(),
):
    """Draw Delta E(p, n) = E(p, n) - p for n = 1..6 on a log p axis, with the n = 6 asymptote."""
    from jaxsolve.games.zehntausend import solver as z

    the_rules = build_rules(rules, straight, six_of_a_kind, three_pairs, two_fives)
    z.check_png_path(out)
    sol = _solve(the_rules, run)
    z.plot_gain(sol, out, p_max=p_max)
    if not run.quiet:
        typer.echo(f"wrote {out}")
