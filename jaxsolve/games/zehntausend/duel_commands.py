"""What the generic commands do for the Zehntausend duel: solve (and export), advise, plot
(typer-free; the CLI builds the options from ``Param`` values)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Param, Ranked, Report

GAME = "zehntausend-duel"

SOLVE_PARAMS = (
    Param("tol", float, None, "Stop a layer's inner fixpoint when no value moves by more (default 1e-13 in float64, 1e-6 in float32).", min=1e-15, max=1.0),
    Param("compensation", int, 0, "Also report the start player's win probability when the second player starts with these points.", min=0),
    Param("devices", int, 1, "Split each layer's states over this many local devices (0: all; same values as one device).", min=0, max=4096),
)
ADVISE_PARAMS = (
    Param("mine", int, None, "My banked score.", required=True, min=0),
    Param("theirs", int, None, "Their banked score.", required=True, min=0),
    Param("turn", int, 0, "Points set aside this turn before this throw.", min=0),
    Param("dice", str, None, "The dice showing, e.g. 155234 or '1 5 5 2 3 4'.", required=True),
    Param("they_started", bool, False, "Who started the game (last-turn rule).", flags=("--they-started/--i-started",)),
)
SIMULATE_PARAMS = (
    Param("games", int, 100_000, "Games of optimal against optimal.", flags=("--games", "-n"), min=1, max=100_000_000),
    Param("seed", int, 0, "Random seed (same seed, same games).", min=0, max=2**31 - 1),
    Param("table", Path, None, "Play on a table written by `solve --out` (with its rules) instead of solving first."),
    Param("slots", int, 100_000, "Games played at once (each slot plays up to 10 in a row).", min=1, max=10_000_000),
)
PLOT_PARAMS = (
    Param("out", Path, Path("."), "Folder for the PNG file (default: the current folder).", flags=("--out", "-o")),
    Param("totals", str, None, "Turn totals (comma-separated) of the decision maps (default: 300 and 1000, those below the largest final score; "
          "else half of it)."),
    Param("table", Path, None, "Draw from a table written by `solve --out` (with its rules) instead of solving first."),
)


def solve(rules, *, dtype=None, device=None, tol=None, progress=None):
    """``duel.solve``; ``progress(layers done, layers)`` is called as layers are solved."""
    from jaxsolve.games.zehntausend import duel

    return duel.solve(rules, tol=tol, dtype=dtype, device=device, progress=progress)


def save(path, sol) -> list:
    """One export: the turn-start values to ``path``, the last-turn table to ``X-last.npy``, and
    one sidecar that names and hashes both (``jaxsolve.io.export.save_members``)."""
    from jaxsolve.io import export

    meta = {
        "game": GAME,
        "rules": sol.rules.to_dict(),
        "layout": "[ts, mine / 50, theirs / 50] turn-start win probability",
        "last_layout": "[d] best probability to end one turn with >= 50 d points (member 'last')",
        **sol.facts(),
    }
    return export.save_members(path, sol.start, meta, {"last": sol.last})


def last_path(path) -> Path:
    from jaxsolve.io import export

    return export.member_path(path, "last")


def outputs(path) -> list:
    return [Path(path), last_path(path)]


SAMPLE = 64
"""Turn-start states the loader recomputes with one turn of the rules the sidecar names."""


def load(path, verify: bool = True):
    """A solved duel from ``save``'s files, checked against its sidecar and its rules: both
    arrays as the one sidecar hashes them, shapes and range as the rules imply and (``verify``)
    the last-turn table recomputed from the rules, and one turn (``bellman_check``) of a sample
    of states. ``verify=False`` is for the solution cache, for files it has checked in full
    before (the same sidecar hash, so the same bytes)."""
    from jaxsolve.games.zehntausend.duel_numpy import DuelSolution, geometry
    from jaxsolve.games.zehntausend.duel_rules import PRESETS, DuelRules
    from jaxsolve.io import export

    start, meta = export.load(path, game=GAME)
    last = export.load_members(path, meta, ("last",))["last"]
    rules = export.rules_from(path, meta, DuelRules)
    export.check_preset_name(path, GAME, rules, PRESETS)
    if start.shape != rules.shape or last.shape != ((geometry(rules).Gb + 2,) if rules.last_turn else (1,)):
        raise JaxsolveError(f"{path}: shapes {start.shape}, {last.shape} are not those of {rules.name}")
    if start.dtype.name not in ("float32", "float64") or last.dtype != start.dtype:
        raise JaxsolveError(f"{path}: dtypes {start.dtype}, {last.dtype}; expected float32 or float64, both the same")
    if not (np.all(np.isfinite(start)) and start.min() >= 0.0 and start.max() <= 1.0):
        raise JaxsolveError(f"{path}: values outside [0, 1]: not win probabilities")
    tol = meta.get("tol", 0.0)
    tol = float(tol) if isinstance(tol, (int, float)) and not isinstance(tol, bool) and math.isfinite(tol) and tol >= 0 else 0.0
    if verify:
        bellman_check(path, rules, start, last, tol)
    return DuelSolution(
        rules=rules, start=start, last=last, rounds=np.zeros(0, np.int32), residual=float(meta.get("residual", 0.0)), tol=tol,
        dtype=str(start.dtype), device="file", compile_seconds=0.0, solve_seconds=0.0,
    )


def sample_states(rules) -> np.ndarray:
    """The flat indices ``(ts * G + a) * G + b`` the loader recomputes: the start state, a
    state of each player at 0 (the entry minimum acts there), the highest levels, and a fixed
    random sample of the rest (``SAMPLE`` in all, or every state of a smaller game)."""
    T, G, _ = rules.shape
    n = T * G * G
    if n <= SAMPLE:
        return np.arange(n)
    fixed = [(t * G + a) * G + b for t in range(T) for a, b in ((0, 0), (0, G - 1), (G - 1, 0), (G - 1, G - 1), (0, G // 2), (G // 2, 0))]
    rest = np.random.default_rng(0).choice(n, SAMPLE - len(fixed), replace=False)
    return np.unique(np.concatenate([np.asarray(fixed), rest]))


def bellman_check(path, rules, start: np.ndarray, last: np.ndarray, tol: float = 0.0) -> None:
    """Refuse tables that are not a solution of ``rules`` (those the sidecar names): the
    last-turn table is computed again from the rules, and one turn of the solver's arithmetic
    (``duel_numpy.turn_start_values``, in float64 with NumPy: no JAX) from the table's own values
    at ``sample_states`` must give those values back, both within ``max(1e-9, 10 tol)``
    (``max(1e-4, 10 tol)`` for a float32 table; ``tol``: the solve's tolerance, counted up to
    1e-4). A sidecar rewritten whole with other rules (another scoring, entry minimum, goal)
    fails here."""
    from jaxsolve.games.zehntausend import duel_numpy

    bound = max(1e-9 if start.dtype == np.float64 else 1e-4, 10 * min(tol, 1e-4))
    if rules.last_turn:
        again = duel_numpy.last_turn_table(rules)
        if not np.allclose(again, last, rtol=0.0, atol=bound):
            d = int(np.argmax(np.abs(again - last)))
            raise JaxsolveError(
                f"{path}: the last-turn table is not that of the rules {rules.name} its sidecar names "
                f"(at d = {d}: {last[d]:.6f} held, the rules give {again[d]:.6f})"
            )
    idx = sample_states(rules)
    values = duel_numpy.turn_start_values(start.reshape(-1).astype(np.float64), last.astype(np.float64), idx, rules)
    held = start.reshape(-1)[idx]
    diff = np.abs(values - held)
    if not diff.max() <= bound:
        i = int(np.argmax(diff))
        ts, a, b = (int(x) for x in np.unravel_index(int(idx[i]), start.shape))
        raise JaxsolveError(
            f"{path}: the values are not a solution of the rules {rules.name} its sidecar names "
            f"(at ts {ts}, mine {50 * a}, theirs {50 * b}: {held[i]:.6f} held, one turn gives {values[i]:.6f})"
        )


def device_mesh(devices: int, device):
    """None for one device, else a mesh over the first ``devices`` (0: all) local devices of
    ``device``'s platform."""
    import jax

    from jaxsolve.games.zehntausend import duel

    if devices == 1:
        return None
    found = jax.local_devices(backend=device.platform if device is not None else None)
    if devices > len(found):
        raise JaxsolveError(f"--devices {devices}: only {len(found)} {found[0].platform} device(s) here")
    return duel.mesh_of(found[: devices or None])


def solve_command(rules, *, dtype, device, quiet, out, tol, compensation, devices) -> Report:
    """The solve, with a bar of layers on stderr; ``result`` the solution where it is the
    table every other command uses (the default tolerance), so that it is cached."""
    from jaxsolve.core.progress import steps_bar
    from jaxsolve.games.zehntausend import duel
    from jaxsolve.io import cache

    if tol is not None and not (math.isfinite(tol) and tol > 0):
        raise JaxsolveError(f"--tol must be a positive finite number, got {tol}")
    if compensation % 50 or compensation >= rules.goal:
        raise JaxsolveError(f"--compensation must be a multiple of 50 below the goal {rules.goal}, got {compensation}")
    mesh = device_mesh(devices, device)
    if not quiet:  # also where stderr is no terminal (the bar then shows only at the end); the bar shows the time left as measured here
        cache.note(f"solving {GAME} under the rules {rules.name} in {dtype}")
    with steps_bar(layer_count(rules), f"solving {rules.name}, layers", quiet) as steps:
        sol = duel.solve(rules, tol=tol, dtype=dtype, device=device, mesh=mesh, progress=steps)
    files = save(out, sol) if out is not None else []
    fair = fairest_compensation(sol)
    data = {
        "rules": rules.to_dict(),
        **sol.facts(),
        "compensation": compensation,
        "start_win_with_compensation": sol.start_value(0, compensation),
        "fairest_compensation": fair,
        "compile_seconds": round(sol.compile_seconds, 3),
        "solve_seconds": round(sol.solve_seconds, 4),
        "out": [str(f) for f in files],
    }
    lines = [f"{rules.name}: the start player wins with {sol.game_value:.12f}"]
    if compensation:
        lines.append(f"with {compensation} points for the second player: {sol.start_value(0, compensation):.12f}")
    lines.append(f"closest to fair: {fair['points']} points for the {fair['to']} (start player wins {fair['start_win']:.6f})")
    details = [
        f"{sol.num_states:,} states, {int(sol.rounds.sum())} inner rounds over {len(sol.rounds)} layers, residual {sol.residual:.1e} ({sol.dtype})",
        f"solved on {sol.device} in {sol.solve_seconds:.2f} s (+{sol.compile_seconds:.2f} s compile)",
    ]
    if files:
        details.append(f"wrote {', '.join(str(f) for f in files)} and the .json sidecar of both")
    return Report(tuple(lines), data, tuple(details), result=sol if tol is None else None)


def layer_count(rules) -> int:
    """The layers of a duel solve: every sum of both banked levels (``duel.duel_layers``)."""
    return 2 * rules.shape[1] - 1


def fairest_compensation(sol) -> dict:
    """Points given at the start (multiples of 50) that bring the start player's win
    probability closest to 1/2: to the second player when the start player has the edge, else
    (the last-turn rule can favour the second player) to the start player."""
    to_second = sol.game_value >= 0.5
    values = sol.start[0, 0, :] if to_second else sol.start[0, :, 0]
    i = int(np.argmin(np.abs(values - 0.5)))
    return {"points": 50 * i, "to": "second player" if to_second else "start player", "start_win": float(values[i])}


def _table_or_solve(table, rules, rules_given: bool, dtype, device):
    """The solution in ``table`` (which must hold ``rules`` when rules were given), else the
    solution cache's table of ``rules`` (solved and cached when it holds none; ``device`` is a
    device or a callable that sets one up, called only then)."""
    if table is not None:
        sol = load(table)
        if rules_given and sol.rules != rules:
            raise JaxsolveError(f"{table} holds {sol.rules.name}, not {rules.name}")
        return sol
    from jaxsolve.games import get_game

    return get_game(GAME).solution(rules, dtype=dtype, device=device)


def cached_or_solve(table, rules, rules_given: bool, dtype, setup):
    """``_table_or_solve`` where JAX is set up (``setup()``, which returns the device) only to
    solve: a table file or a table the solution cache holds is read and checked without JAX."""
    if table is None:
        from jaxsolve.games import get_game
        from jaxsolve.io import cache

        sol = cache.stored(get_game(GAME), rules, dtype=dtype)
        if sol is not None:
            return sol
        return _table_or_solve(None, rules, rules_given, dtype, setup())
    return _table_or_solve(table, rules, rules_given, dtype, None)


def advise_command(rules, *, rules_given, table, dtype, setup, quiet, mine, theirs, turn, dice, they_started) -> Advice:
    """Every option of the throw ranked by win probability: answered with NumPy
    (``duel_numpy``) from the table file or the solution cache's table; JAX is set up only when
    the table must be solved first."""
    from jaxsolve.games.played import typed_faces
    from jaxsolve.games.zehntausend import duel_advisor

    faces = typed_faces(dice)
    if table is None:
        from jaxsolve.games.zehntausend.scoring import check_reachable, parse_throw

        duel_advisor.check_position(rules, mine, theirs, turn, they_started)
        check_reachable(rules.turn_rules, turn, int(parse_throw(faces).sum()), "a turn total of")
    sol = cached_or_solve(table, rules, rules_given, dtype, setup)
    choices = duel_advisor.advise(sol, mine, theirs, turn, faces, they_started)
    best = choices[0].value
    ranked = tuple(Ranked(c.label, c.value, best - c.value, c.detail) for c in choices)
    heading = (
        f"{sol.rules.name}: you {mine} banked, {turn} set aside this turn; they {theirs} banked; {'they' if they_started else 'you'} started",
        f"the dice show {' '.join(str(f) for f in sorted(faces))}: best {choices[0].label}, win probability {best:.6f}",
    )
    data = {"rules": sol.rules.name, "position": {"mine": mine, "theirs": theirs, "turn": turn, "dice": sorted(faces), "they_started": they_started}}
    return Advice(heading, ranked, "win probability", best, data)


def plot_command(rules, *, rules_given=False, dtype, device, quiet, out, totals, table) -> Report:
    from jaxsolve.games.zehntausend import duel_plot
    from jaxsolve.io import export

    export.check_output_dir(out, create=True)
    points = None if totals is None else _read_totals(totals)
    if table is None:
        _check_totals(points or default_totals(rules.top), rules)
    sol = cached_or_solve(table, rules, rules_given, dtype, lambda: device)  # device None: JAX set up by the store to solve
    points = points or default_totals(sol.rules.top)
    _check_totals(points, sol.rules)
    grid = duel_plot.decision_grid(sol, points)  # the NumPy turn: no JAX
    path = duel_plot.decision_maps(sol, out, points, grid)
    away = duel_plot.departures(grid, points, sol.rules)
    lines = [f"wrote {path}"]
    for key, d in away.items():
        p, n = key.split("/")
        lines.append(
            f"turn total {p}, {n} {'die' if n == '1' else 'dice'}: Peter says {d['peter']}; the duel player differs in "
            f"{d['share']:.1%} of {d['positions']:,} positions"
        )
    return Report(tuple(lines), {"files": [str(path)], "departures": away})


def _read_totals(totals: str) -> list[int]:
    try:
        points = [int(t) for t in totals.split(",") if t.strip()]
    except ValueError:
        raise JaxsolveError(f"--totals must be comma-separated multiples of 50, got {totals!r}") from None
    if not points or any(p < 0 or p % 50 for p in points):
        raise JaxsolveError(f"--totals must be comma-separated multiples of 50, got {totals!r}")
    return points


def default_totals(top: int) -> list[int]:
    """The decision maps' turn totals when none are given: 300 and 1000 where below the largest
    final score ``top``, else half of it (a multiple of 50)."""
    return [t for t in (300, 1000) if t < top] or [top // 2 // 50 * 50]


def _check_totals(points: list[int], rules) -> None:
    """Turn totals of the decision maps: below the largest final score ``rules.top`` kept."""
    far = [p for p in points if p >= rules.top]
    if far:
        raise JaxsolveError(f"--totals must be below {rules.top} (the largest final score of {rules.name}), got {far[0]}")


def simulate_command(rules, *, rules_given=False, dtype, device, quiet, games, seed, table, slots) -> Report:
    from jaxsolve.core.arrays import precision
    from jaxsolve.core.progress import layer_bars
    from jaxsolve.games.zehntausend import duel, duel_simulate

    sol = _table_or_solve(table, rules, rules_given, dtype, device)
    per_slot = 10 if games >= 10 * slots else 1
    geo = duel.geometry(sol.rules)
    with precision(sol.start.dtype), layer_bars({"decision table": geo.T * geo.G, "games": games}, quiet, label="simulate:") as advance:
        t0 = time.perf_counter()
        tables = duel_simulate.sim_tables(sol, duel_simulate.throw_values(sol, on_row=lambda _: advance("decision table", 1)), device=device)
        built = time.perf_counter() - t0
        res = duel_simulate.simulate(sol, games, seed, slots=min(slots, games), per_slot=per_slot, device=device, tables=tables, on_chunk=lambda n: advance("games", n))
    res.table_seconds = built
    data = {"rules": sol.rules.to_dict(), **res.to_dict()}
    lines = (
        f"{sol.rules.name}: the start player won {res.wins:,} of {res.games:,} games: {res.rate:.6f} +- {res.se:.6f} (one standard error)",
        f"solved: {res.solved:.6f}, z = {res.z:+.2f}",
    )
    details = (f"{res.throws:,} throws in {res.seconds:.2f} s (+{res.table_seconds:.2f} s for the decision table) on {device}",)
    return Report(lines, data, details)
