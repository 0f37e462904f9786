"""What the generic commands do for the Pig family: solve, advise, plot, tables (typer-free;
the CLI builds the options from ``Param`` values)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Param, Ranked, Report

SOLVE_PARAMS = (
    Param("tol", float, None, "Stop when a sweep changes no value by more (default 1e-12 in float64, 1e-6 in float32).", min=1e-15, max=1.0),
    Param("max_iter", int, 10_000, "Most sweeps before giving up.", min=1),
)
ADVISE_PARAMS = (
    Param("mine", int, None, "My banked score.", required=True, min=0),
    Param("theirs", int, None, "Their banked score.", required=True, min=0),
    Param("turn", int, 0, "My turn total so far (0 = the turn starts).", min=0),
    Param("they_started", bool, False, "Who started the game (last-turn rule).", flags=("--they-started/--i-started",)),
)
PLOT_PARAMS = (
    Param("out", Path, Path("."), "Folder for the PNG files (default: the current folder).", flags=("--out", "-o")),
    Param("theirs_max", int, None, "Largest opponent score on the y axis (default goal + 10).", min=0),
)
TABLES_PARAMS = (
    Param("throws", int, 3, "Tables of the one-turn distribution after R = 1..throws throws.", aliases=("--rolls",), min=1, max=20),
    Param("max_sum", int, 81, "P and P_SUM for S = 0..max-sum.", min=0, max=1000),
    Param("claims", bool, False, "Also solve the duel and check the source page's claims."),
    Param("out", Path, None, "Also write tables.json (and claims.json) into this folder.", flags=("--out", "-o")),
)


def solve(rules, *, dtype=None, device=None, tol=None):
    from jaxsolve.games.raab import solver

    return solver.solve(rules, tol=tol, dtype=dtype, device=device)


def outputs(path) -> list:
    from jaxsolve.games.raab import table_io

    return [Path(path), table_io.policy_path(path)]


def save(path, sol) -> list:
    """One export: the win probabilities to ``path``, the policy to ``X-policy.npy``, one
    sidecar naming and hashing both (``table_io.save_export``)."""
    from jaxsolve.games.raab import table_io

    return list(table_io.save_export(path, sol))


def load(path):
    """The solved game (``solver.PigSolution``) of an export ``save`` wrote, with every check
    of ``table_io.load_export``: both files as the one sidecar hashes them, and the values a
    fixpoint of the Bellman equations of the rules the sidecar names."""
    from jaxsolve.games.raab import table_io

    return table_io.load_export(path).solution()


def solved(rules, dtype, device):
    """The solution cache's table of ``rules`` (solved when it holds none; ``device``: a device
    or a callable that sets one up, called only then)."""
    from jaxsolve.games import get_game

    return get_game("raab").solution(rules, dtype=dtype, device=device)


def solve_command(rules, *, dtype, device, quiet, out, tol, max_iter) -> Report:
    from jaxsolve.games.raab import solver

    if tol is not None and not (math.isfinite(tol) and tol > 0):
        raise JaxsolveError(f"--tol must be a positive finite number, got {tol}")

    sol = solver.solve(rules, tol=tol, max_iter=max_iter, dtype=dtype, device=device)
    files = save(out, sol) if out is not None else []
    data = {
        "rules": rules.to_dict(),
        **sol.facts(),
        "compile_seconds": round(sol.compile_seconds, 3),
        "solve_seconds": round(sol.solve_seconds, 4),
        "out": str(files[0]) if files else None,
        "policy_out": str(files[1]) if files else None,
    }
    lines = (
        f"{rules.name}: the start player wins with {sol.game_value:.12f}",
        f"{sol.iterations} sweeps, residual {sol.residual:.2e} <= tol {sol.tol:.0e} ({sol.dtype})",
    )
    details = [f"solved on {sol.device} in {sol.solve_seconds:.3f} s (+{sol.compile_seconds:.2f} s compile)"]
    if files:
        details.append(f"wrote {files[0]}, {files[1]} and the .json sidecar that binds them")
    return Report(lines, data, tuple(details), result=sol if tol is None else None)


def advise_command(rules, *, rules_given, table, dtype, setup, quiet, mine, theirs, turn, they_started) -> Advice:
    from jaxsolve.core.arrays import precision
    from jaxsolve.games.raab import advisor, solver

    if table is not None:  # the export's turn-start values; the turn's options recomputed from them
        sol = load(table)
        if rules_given and sol.rules != rules:
            raise JaxsolveError(f"{table} holds {sol.rules.name}, not {rules.name}")
        rules = sol.rules
        setup()
    advisor.check_state(rules, mine, turn, theirs, they_started)
    if table is None:
        sol = solved(rules, dtype, setup)
    with precision(sol.start.dtype):  # a float64 table answers in float64
        adv = advisor.advise(solver.full(sol), mine, turn, theirs, they_started)
    options = [("roll", adv.win_if_roll)] + ([] if adv.win_if_stop is None else [(f"stop (bank {turn})", adv.win_if_stop)])
    options.sort(key=lambda o: (-o[1], o[0] != adv.decision))
    ranked = tuple(Ranked(label, value, adv.win - value) for label, value in options)
    starter = "they started" if they_started else "you started"
    heading = [f"{rules.name}: you {mine} banked, turn total {turn}; they {theirs} banked; {starter}"]
    if adv.win_if_stop is None:
        heading.append("a turn starts with a roll: stopping is not allowed")
    heading.append(f"{adv.decision.upper()}: with best play you win {adv.win:.6f}, they win {1.0 - adv.win:.6f}")
    data = {
        "rules": rules.name,
        "position": {"mine": mine, "turn": turn, "theirs": theirs, "they_started": they_started},
        "decision": adv.decision,
        "win_if_roll": adv.win_if_roll,
        "win_if_stop": adv.win_if_stop,
        "my_win": adv.win,
        "their_win": 1.0 - adv.win,
    }
    return Advice(tuple(heading), ranked, "win probability", adv.win, data)


def plot_command(rules, *, dtype, device, quiet, out, theirs_max) -> Report:
    from jaxsolve.games.raab import solver
    from jaxsolve.games.raab.plot import stop_heatmaps
    from jaxsolve.io import export

    export.check_output_dir(out)
    sol = solved(rules, dtype, device)
    paths = stop_heatmaps(solver.full(sol), out, theirs_max)
    return Report(tuple(f"wrote {p}" for p in paths), {"files": [str(p) for p in paths]})


def tables_command(rules, *, dtype, device, quiet, throws, max_sum, claims, out) -> Report:
    """The one-turn tables of "Würfeln bei Schlag den Raab" and, with ``claims``, its claims checked."""
    from jaxsolve.games.raab import source_tables
    from jaxsolve.io import export

    if out is not None:
        export.check_output_dir(out)
    dist = source_tables.turn_distribution(rules, throws)
    p, p_sum = source_tables.reach_table(rules, 200)
    stop_from, expected, _, _ = source_tables.solitaire(rules)
    data = {
        "rules": rules.to_dict(),
        "rounds": {
            str(r): [{"S": int(s), "A": int(a), "P": float(dist[r - 1, a, s])} for s in range(dist.shape[2]) for a in (0, 1) if dist[r - 1, a, s] > 0]
            for r in range(1, throws + 1)
        },
        "reach_200_rolls": [{"S": s, "P": float(p[s]), "P_SUM": float(p_sum[s])} for s in range(min(max_sum, len(p) - 1) + 1)],
        "equalize_roll_twice_bound": source_tables.equalize_bound(rules, 2),
        "solitaire": {"stop_at_turn_total": stop_from, "expected_points_per_turn": expected},
    }
    claim_data = source_tables.check_claims(rules, device=device, dtype=dtype) if claims else None
    if out is not None:
        export.atomic_write_text(out / "tables.json", json.dumps(data, indent=1) + "\n")
        if claim_data:
            export.atomic_write_text(out / "claims.json", json.dumps(claim_data, indent=1) + "\n")
    lines = []
    for r in range(1, throws + 1):
        lines += [f"R = {r}", "   S  A           P"]
        lines += [f"{row['S']:4d} {row['A']:2d}  {row['P']:.10f}" for row in data["rounds"][str(r)]]
    lines += ["", "   S             P         P_SUM   (200 throws; the source page cuts to 8 digits)"]
    lines += [f"{row['S']:4d}  {row['P']:.10f}  {row['P_SUM']:.10f}" for row in data["reach_200_rolls"]]
    lines += ["", f"equal an opponent who rolls twice then stops: {data['equalize_roll_twice_bound']:.10f}"]
    lines.append(f"solitaire (max expected points per turn): stop at turn total >= {stop_from}, E = {expected:.8f}")
    if claim_data:
        lead, tie, grow = claim_data["lead_80_suffices"], claim_data["tie_in_last_turn_roll_on"], claim_data["bound_growth"]
        lines.append(f"claim 'a lead of 80 suffices': largest lead where rolling is optimal = {lead['largest_lead_where_rolling_is_optimal']} -> {'holds' if lead['holds'] else 'FAILS'}")
        lines.append(f"claim 'at a tie in the last turn roll on': {tie['tie_states']} states, smallest margin {tie['smallest_margin_roll_minus_stop']:.6f} -> {'holds' if tie['holds'] else 'FAILS'}")
        change = abs(grow["game_value"] - grow["game_value_bigger_bound"])
        lines.append(f"bound {grow['bound']} -> {claim_data['checked_with_bound']}: game value changes by {change:.1e}, states by at most {grow['max_abs_difference_turn_start_states']:.1e}")
    return Report(tuple(lines), {**data, "claims": claim_data})
