"""Schlag den Raab dice duel and the Pig family: solve, advise, plot, tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from jaxsolve.cli.common import (
    Device,
    JsonOpt,
    OutOpt,
    Run,
    advise_app,
    handle_errors,
    out_folder,
    plot_app,
    positive_finite,
    setup,
    shared_options,
    solve_app,
    tables_app,
)
from jaxsolve.games.raab.rules import PRESETS

RulesOpt = Annotated[str, typer.Option("--rules", "-r", help=f"Rule preset: {', '.join(PRESETS)}.")]
GoalOpt = Annotated[Optional[int], typer.Option("--goal", help="Override the goal score.")]
SidesOpt = Annotated[Optional[int], typer.Option("--sides", help="Override the die's sides (faces add their number).")]
BustOpt = Annotated[Optional[int], typer.Option("--bust", help="Override the face that loses the turn total.")]
LastTurnOpt = Annotated[
    Optional[bool],
    typer.Option("--last-turn/--no-last-turn", help="Override the last-turn rule (the other player answers a start player's goal)."),
]
BoundOpt = Annotated[Optional[int], typer.Option("--bound", help="Largest banked score kept (last-turn rule; default goal + 80).")]
TolOpt = Annotated[Optional[float], typer.Option("--tol", help="Stop when a sweep changes no value by more (default 1e-12 in float64, 1e-6 in float32).")]
MaxIterOpt = Annotated[int, typer.Option("--max-iter", min=1, help="Most sweeps before giving up.")]


def build_rules(rules: str, goal, sides, bust, last_turn, bound):
    from jaxsolve.games.raab.solver import get_rules

    return get_rules(rules, goal=goal, sides=sides, bust=bust, last_turn=last_turn, bound=bound)


def _solve(the_rules, run: Run, tol=None, max_iter=10_000):
    from jaxsolve.games.raab import solver as raab

    dev = run.setup()
    return raab.solve(the_rules, tol=tol, max_iter=max_iter, device=dev)


@solve_app.command("raab")
@handle_errors
@shared_options("float64")
def solve_raab(
    rules: RulesOpt = "raab",
    goal: GoalOpt = None,
    sides: SidesOpt = None,
    bust: BustOpt = None,
    last_turn: LastTurnOpt = None,
    bound: BoundOpt = None,
    tol: TolOpt = None,
    max_iter: MaxIterOpt = 10_000,
    out: OutOpt = None,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Win probabilities of Schlag den Raab / Pig under optimal play by both (fixpoint iteration).

    With --out X.npy writes the win probabilities to X.npy and the policy to X-policy.npy,
    both in the layout [TS, MSP, MAP, TSP] with a .json sidecar each."""
    from jaxsolve.io import export
    from jaxsolve.games.raab import solver as raab

    positive_finite("--tol", tol)
    the_rules = build_rules(rules, goal, sides, bust, last_turn, bound)
    if out is not None:
        export.check_writable(out)
        export.check_writable(raab.policy_path(out))
    sol = _solve(the_rules, run, tol, max_iter)
    policy_path = None
    if out is not None:
        policy_path = raab.save_export(out, sol)[1]
    summary = {
        "rules": the_rules.to_dict(),
        "game_value": sol.game_value,
        "iterations": sol.iterations,
        "residual": sol.residual,
        "tol": sol.tol,
        "dtype": sol.dtype,
        "device": sol.device,
        "compile_seconds": round(sol.compile_seconds, 3),
        "solve_seconds": round(sol.solve_seconds, 4),
        "out": str(out) if out else None,
        "policy_out": str(policy_path) if policy_path else None,
    }
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(f"{the_rules.name}: the start player wins with {sol.game_value:.12f}")
    typer.echo(f"{sol.iterations} sweeps, residual {sol.residual:.2e} <= tol {sol.tol:.0e} ({sol.dtype})")
    if not run.quiet:
        typer.echo(f"solved on {sol.device} in {sol.solve_seconds:.3f} s (+{sol.compile_seconds:.2f} s compile)")
        if out:
            typer.echo(f"wrote {out}, {policy_path} and their .json sidecars")


@advise_app.command("raab")
@handle_errors
@shared_options("float64", quiet_help=None)
def advise_raab(
    mine: Annotated[int, typer.Option("--mine", help="My banked score.")],
    theirs: Annotated[int, typer.Option("--theirs", help="Their banked score.")],
    turn: Annotated[int, typer.Option("--turn", help="My turn total so far (0 = the turn starts).")] = 0,
    they_started: Annotated[bool, typer.Option("--they-started/--i-started", help="Who started the game (last-turn rule).")] = False,
    rules: RulesOpt = "raab",
    goal: GoalOpt = None,
    sides: SidesOpt = None,
    bust: BustOpt = None,
    last_turn: LastTurnOpt = None,
    bound: BoundOpt = None,
    as_json: JsonOpt = False,
    run: Run = Run(),
):
    """Roll or stop? The win probability of each choice at a position."""
    from jaxsolve.games.raab import solver as raab

    the_rules = build_rules(rules, goal, sides, bust, last_turn, bound)
    raab.check_state(the_rules, mine, turn, theirs, they_started)
    sol = _solve(the_rules, run)
    adv = raab.advise(raab.full(sol), mine, turn, theirs, they_started)
    result = {
        "rules": the_rules.name,
        "position": {"mine": mine, "turn": turn, "theirs": theirs, "they_started": they_started},
        "decision": adv.decision,
        "win_if_roll": adv.win_if_roll,
        "win_if_stop": adv.win_if_stop,
        "my_win": adv.win,
        "their_win": 1.0 - adv.win,
    }
    if as_json:
        typer.echo(json.dumps(result))
        return
    stop = "not allowed (a turn starts with a roll)" if adv.win_if_stop is None else f"{adv.win_if_stop:.6f}"
    typer.echo(f"{adv.decision.upper()}: win if you roll {adv.win_if_roll:.6f}, if you stop {stop}")
    typer.echo(f"with best play you win {adv.win:.6f}, they win {1.0 - adv.win:.6f}")


@plot_app.command("raab")
@handle_errors
@shared_options("fixed64", quiet_help=None)
def plot_raab(
    rules: RulesOpt = "raab",
    goal: GoalOpt = None,
    sides: SidesOpt = None,
    bust: BustOpt = None,
    last_turn: LastTurnOpt = None,
    bound: BoundOpt = None,
    out_dir: Annotated[Path, out_folder("the PNG files")] = Path("results/raab"),
    theirs_max: Annotated[Optional[int], typer.Option("--theirs-max", min=0, help="Largest opponent score on the y axis (default goal + 10).")] = None,
    run: Run = Run(),
):
    """Heatmaps of the turn total at which to stop, over both banked scores, one per TS."""
    from jaxsolve.io import export
    from jaxsolve.games.raab import solver as raab
    from jaxsolve.games.raab.plot import stop_heatmaps

    the_rules = build_rules(rules, goal, sides, bust, last_turn, bound)
    export.check_output_dir(out_dir)
    sol = _solve(the_rules, run)
    for path in stop_heatmaps(raab.full(sol), out_dir, theirs_max):
        typer.echo(f"wrote {path}")


@tables_app.command("raab")
@handle_errors
def tables_raab(
    rules: RulesOpt = "raab",
    goal: GoalOpt = None,
    sides: SidesOpt = None,
    bust: BustOpt = None,
    last_turn: LastTurnOpt = None,
    bound: BoundOpt = None,
    rolls: Annotated[int, typer.Option("--rolls", min=1, max=20, help="Tables of the one-turn distribution for R = 1..rolls.")] = 3,
    max_sum: Annotated[int, typer.Option("--max-sum", min=0, max=1000, help="P and P_SUM for S = 0..max-sum.")] = 81,
    claims: Annotated[bool, typer.Option("--claims", help="Also solve the duel and check the source page's claims.")] = False,
    out_dir: Annotated[Optional[Path], typer.Option("--out", "-o", help="Also write tables.json (and claims.json) into this folder.")] = None,
    as_json: JsonOpt = False,
):
    """The one-turn tables of "Würfeln bei Schlag den Raab": distribution after R rolls, P_SUM(S), the 'roll twice' bound."""
    from jaxsolve.io import export
    from jaxsolve.games.raab import solver as raab

    the_rules = build_rules(rules, goal, sides, bust, last_turn, bound)
    if out_dir is not None:
        export.check_output_dir(out_dir)
    setup(Device.cpu, True, None, True)
    dist = raab.turn_distribution(the_rules, rolls)
    p, p_sum = raab.reach_table(the_rules, 200)
    stop_from, expected, _, _ = raab.solitaire(the_rules)
    data = {
        "rules": the_rules.to_dict(),
        "rounds": {
            str(r): [{"S": int(s), "A": int(a), "P": float(dist[r - 1, a, s])} for s in range(dist.shape[2]) for a in (0, 1) if dist[r - 1, a, s] > 0]
            for r in range(1, rolls + 1)
        },
        "reach_200_rolls": [{"S": s, "P": float(p[s]), "P_SUM": float(p_sum[s])} for s in range(min(max_sum, len(p) - 1) + 1)],
        "equalize_roll_twice_bound": raab.equalize_bound(the_rules, 2),
        "solitaire": {"stop_at_turn_total": stop_from, "expected_points_per_turn": expected},
    }
    claim_data = raab.check_claims(the_rules) if claims else None
    if out_dir is not None:
        export.atomic_write_text(out_dir / "tables.json", json.dumps(data, indent=1) + "\n")
        if claim_data:
            export.atomic_write_text(out_dir / "claims.json", json.dumps(claim_data, indent=1) + "\n")
    if as_json:
        typer.echo(json.dumps({**data, "claims": claim_data}))
        return
    for r in range(1, rolls + 1):
        typer.echo(f"R = {r}\n   S  A           P")
        for row in data["rounds"][str(r)]:
            typer.echo(f"{row['S']:4d} {row['A']:2d}  {row['P']:.10f}")
    typer.echo("\n   S             P         P_SUM   (200 rolls; the source page cuts to 8 digits)")
    for row in data["reach_200_rolls"]:
        typer.echo(f"{row['S']:4d}  {row['P']:.10f}  {row['P_SUM']:.10f}")
    typer.echo(f"\nequal an opponent who rolls twice then stops: {data['equalize_roll_twice_bound']:.10f}")
    typer.echo(f"solitaire (max expected points per turn): stop at turn total >= {stop_from}, E = {expected:.8f}")
    if claim_data:
        lead = claim_data["lead_80_suffices"]
        tie = claim_data["tie_in_last_turn_roll_on"]
        grow = claim_data["bound_growth"]
        typer.echo(f"claim 'a lead of 80 suffices': largest lead where rolling is optimal = {lead['largest_lead_where_rolling_is_optimal']} -> {'holds' if lead['holds'] else 'FAILS'}")
        typer.echo(f"claim 'at a tie in the last turn roll on': {tie['tie_states']} states, smallest margin {tie['smallest_margin_roll_minus_stop']:.6f} -> {'holds' if tie['holds'] else 'FAILS'}")
        typer.echo(f"bound {grow['bound']} -> {claim_data['checked_with_bound']}: game value changes by {abs(grow['game_value'] - grow['game_value_bigger_bound']):.1e}, states by at most {grow['max_abs_difference_turn_start_states']:.1e}")
