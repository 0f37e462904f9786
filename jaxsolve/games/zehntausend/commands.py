"""What the generic commands do for Zehntausend: solve E(p, n), advise on a throw, plot figure 1
of D. Peter (2013) (typer-free; the CLI builds the options from ``Param`` values)."""

from __future__ import annotations

from pathlib import Path

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Param, Ranked, Report

P_MAX_LIMIT = 1_000_000  # 20,000 grid points on the figure's p axis

ADVISE_PARAMS = (
    Param("points", int, None, "Turn points already set aside (multiple of 50).", flags=("--points", "-p"), required=True, min=0),
    Param("dice", str, None, "The throw: --dice 1 5 5 2 2 2, --dice 155222 or --dice 1,5,5,2,2,2.", flags=("--dice", "-d"), required=True),
    Param("more_dice", list, None, "The other dice of the throw.", argument=True),
)
PLOT_PARAMS = (
    Param("out", Path, Path("delta_e.png"), "PNG file to write.", flags=("--out", "-o")),
    Param("p_max", int, None, f"Right end of the p axis (default 1.3 p6; at most {P_MAX_LIMIT:,}).", min=100, max=P_MAX_LIMIT),
)


def solve(rules, *, dtype=None, device=None):
    from jaxsolve.games.zehntausend import solver

    return solver.solve(rules, dtype=dtype, device=device)


def save(path, sol) -> list:
    from jaxsolve.games.zehntausend import table_io

    table_io.save_solution(path, sol)
    return [Path(path)]


def load(path):
    from jaxsolve.games.zehntausend import table_io

    return table_io.load_solution(path)


def solved(rules, dtype, device):
    """The solution cache's table of ``rules`` (solved and cached when it holds none; ``device``:
    a device or a callable that sets one up, called only then)."""
    from jaxsolve.games import get_game

    return get_game("zehntausend").solution(rules, dtype=dtype, device=device)


def solve_command(rules, *, dtype, device, quiet, out) -> Report:
    from jaxsolve.io import export

    sol = solve(rules, dtype=dtype, device=device)
    if out is not None:
        save(out, sol)
    t = sol.tables
    data = {
        "rules": rules.to_dict(),
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
    lines = (
        f"Zehntausend ({rules.name}): E(0, 6) = {sol.turn_value:.4f} points per turn",
        "thresholds (go on with n dice only while p < p_n): " + ", ".join(f"p{n} = {p}" for n, p in sol.thresholds().items()),
    )
    details = [
        f"p6: Delta_6 / P0_6 = ({t.delta(6)}) / ({t.bust_probability(6)}) = {t.stop_point(6)} = {float(t.stop_point(6)):.2f}",
        "E(0, n), n = 1..5: " + ", ".join(f"{sol.value(0, n):.2f}" for n in range(1, 6)),
        f"solved on {sol.device} in {sol.solve_seconds * 1000:.1f} ms (+{sol.compile_seconds:.2f} s compile), {sol.E.dtype}",
    ]
    if out:
        details.append(f"wrote {out} and {export.sidecar_path(out)}")
    return Report(lines, data, tuple(details), result=sol)


def advise_command(rules, *, rules_given, table, dtype, setup, quiet, points, dice, more_dice) -> Advice:
    """Every legal choice for a throw (write, or set aside and throw on), best first."""
    from jaxsolve.core.arrays import precision
    from jaxsolve.core.dice import parse_faces
    from jaxsolve.games.zehntausend import advisor, scoring, solver

    faces = parse_faces(" ".join([dice, *(more_dice or [])]))
    solver.check_points(points)
    counts = scoring.parse_throw(faces)
    if table is None:
        scoring.check_reachable(rules, points, int(counts.sum()))
    if table is not None:
        sol = load(table)
        if rules_given and sol.rules != rules:
            raise JaxsolveError(f"{table} holds rules {sol.rules.name}, not {rules.name}")
    else:
        sol = solved(rules, dtype, setup)
    with precision(sol.E.dtype):  # a float64 table answers in float64
        choices = advisor.advise(sol, points, faces)
    best = choices[0].value
    ranked = tuple(Ranked(c.describe(), c.value, best - c.value) for c in choices)
    heading = (f"p = {points}, throw {' '.join(map(str, sorted(faces)))}  (rules: {sol.rules.name})",)
    data = {
        "rules": sol.rules.to_dict(),
        "points": points,
        "throw": sorted(faces),
        "write_points": scoring.write_points(sol.rules, counts),
        "choices": [c.to_dict() for c in choices],
    }
    return Advice(heading, ranked, "expected points of the turn, E", best, data)


def plot_command(rules, *, dtype, device, quiet, out, p_max) -> Report:
    from jaxsolve.games.zehntausend import plot

    plot.check_png_path(out)
    sol = solved(rules, dtype, device)
    plot.plot_gain(sol, out, p_max=p_max)
    return Report((), {"files": [str(out)]}, (f"wrote {out}",))
