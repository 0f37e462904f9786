"""A race game for N players at one table as a registered game (``jaxsolve solve|advise|simulate|
plot|play GAME``): the hooks and commands every game on the N-player engine
(``jaxsolve.core.race_multi``) shares, written once; it names no game.

A game brings a ``TableSpec``: its name, rules (whose ``players`` field, 2..4, is the
``--players`` option), the points of one level, its engine solve and, in NumPy, its one-turn
options (``advise``, play) and its mover's one-turn value (the loader's check). This module
brings:

* ``solve``: the engine's solve in float64 (its tie rule is ``1e-12``), as a ``SolvedTable``; a
  float32 table asked for is the float64 one rounded;
* the export (``save``, ``load``): the value vectors ``[G] * N + [N]`` as ``.npy`` with a sidecar
  that names the game, the rules and the cycles whose best responses did not settle (and the
  equilibrium selected there); the loader checks shape, range, that every vector sums to 1 and
  (``verify``) that the mover's best turn, his bust payoff read from the table, is worth his
  value at a sample of states under the rules the sidecar names. Through these hooks the
  solution cache (``jaxsolve.io.cache``) keeps the table: a second ``advise`` in a new process
  reads it without JAX;
* the commands ``solve``, ``advise`` (every player's banked score in turn order, the mover
  first; each option's win probability for every seat; one line where the position's cycle has
  several equilibria or only a mixed one), ``simulate`` (where the game gives one) and ``plot``.
"""

from __future__ import annotations

import functools
import operator
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from jaxsolve.core.race_cycles import TIE, flat_index
from jaxsolve.core.race_table import cycle_note, fairest
from jaxsolve.core.rules import Presets
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Command, Game, Param, Ranked, Report

SAMPLE = 256
"""States the loader recomputes one turn at (every state of a smaller table)."""
SUM_TOL = 1e-9
"""A stored vector's entries sum to 1 within this (float64; ``1e-5`` for a float32 table)."""


@dataclass(frozen=True)
class TableSpec:
    """What a game on the N-player engine gives this module.

    Attributes:
        name: the game's registered name.
        rules_type, presets: its rules class (with a ``players`` field and ``levels``) and a
            callable returning its presets.
        step: points per level of a banked score (1 for Pig, 50 for Zehntausend).
        solve: ``solve(rules, progress=) -> engine solution`` (``values``, ``run``; float64, JAX).
        options: ``options(rules, values, scores, **turn) -> [(label, vector)]``: the options of
            the mover at ``scores`` (levels, mover first) with the turn as ``turn_params`` say,
            in NumPy, in the tie rule's order (writing or banking first).
        turn_values: ``turn_values(rules, values, states) -> [k]``: the mover's best one-turn
            value at flat states, his bust payoff read from ``values`` (NumPy).
        turn_params: ``advise``'s options that say where the turn stands.
        turn_text: ``turn_text(**turn) -> str``: the turn in words (``turn total 12``).
        check: ``check(rules, scores, **turn)``: refuses a turn that cannot be (a turn total
            that reaches the goal, a Zehntausend total off the 50 grid) before any solve.
        simulate: ``simulate(rules, values, unsettled, games, seed) -> wins per seat``, or None.
        simulate_games: the games ``simulate`` plays by default.
    """

    name: str
    rules_type: type
    presets: Callable[[], Presets]
    step: int
    solve: Callable[..., Any]
    options: Callable[..., list]
    turn_values: Callable[..., np.ndarray]
    turn_params: tuple[Param, ...]
    turn_text: Callable[..., str]
    check: Callable[..., None]
    simulate: Callable[..., np.ndarray] | None = None
    simulate_games: int = 100_000


@dataclass(frozen=True, eq=False)
class SolvedTable:
    """A solved table: ``values [G] * N + [N]`` (``values[s_0, ..., s_{N-1}]``: every player's
    win probability, mover first, at the turn start with those banked levels) and the cycles
    whose best responses did not settle (``unsettled``: plain dicts, ``race_table.plain_cycle``)."""

    rules: Any
    values: np.ndarray
    unsettled: list = field(default_factory=list)
    residual: float = 0.0
    rounds: int = 0
    compile_seconds: float = 0.0
    solve_seconds: float = 0.0
    device: str = ""

    @property
    def players(self) -> int:
        return int(self.rules.players)

    @property
    def start(self) -> np.ndarray:
        """Each seat's win probability at the start (seat 1 moves first)."""
        return np.asarray(self.values[(0,) * self.players], np.float64)

    @property
    def game_value(self) -> float:
        """The first mover's win probability at the start."""
        return float(self.start[0])

    def facts(self) -> dict:
        return {"game_value": self.game_value, "start": self.start.tolist(), "residual": self.residual, "rounds": self.rounds, "device": self.device}


# ----------------------------------------------------------------------------- the hooks


def solve(spec: TableSpec, rules: Any, *, dtype: str | None = None, device: Any = None, progress: Callable[[int, int], None] | None = None, checkpoint: Any = None) -> SolvedTable:
    """The table of ``rules`` (the engine computes in float64 whatever JAX's x64 mode; a float32
    table is its values rounded). ``checkpoint``: a file where a long walk keeps its progress and
    from which a stopped one goes on (``race_multi.solve_multi``)."""
    import jax

    from jaxsolve.core.arrays import precision
    from jaxsolve.core.race_table import plain_cycle

    dtype = "float64" if dtype is None else str(np.dtype(dtype))
    if dtype not in ("float32", "float64"):
        raise JaxsolveError(f"dtype must be float32 or float64, got {dtype}")
    with precision("float64"):
        if device is not None:
            with jax.default_device(device):
                sol = spec.solve(rules, progress=progress, checkpoint=checkpoint)
        else:
            sol = spec.solve(rules, progress=progress, checkpoint=checkpoint)
    shape = sol.values.shape[:-1]
    run = sol.run
    unsettled = [plain_cycle(u, shape, spec.step) for u in run.unsettled]
    where = str(device) if device is not None else str(jax.devices()[0])
    return SolvedTable(rules, np.asarray(sol.values, dtype), unsettled, float(run.residual), int(run.rounds), float(run.compile_seconds), float(run.solve_seconds), where)


def outputs(path: Any) -> list[Path]:
    return [Path(path)]


def save(spec: TableSpec, path: Any, sol: SolvedTable) -> list[Path]:
    """The value vectors to ``path`` (``.npy``) with a sidecar: game, rules, layout, the cycles
    that did not settle."""
    from jaxsolve.io import export

    n = sol.players
    meta = {
        "game": spec.name,
        "rules": sol.rules.to_dict(),
        "layout": f"[{', '.join(['s_mover'] + [f's_mover+{k}' for k in range(1, n)])}, seat]: turn-start win probability of each seat (mover first), "
        f"banked scores in levels of {spec.step} point(s)",
        "unsettled": sol.unsettled,
        **sol.facts(),
    }
    return [export.save(path, sol.values, meta)]


def _number(meta: dict, key: str) -> float:
    x = meta.get(key)
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x) else 0.0


def _unsettled_of(path: Any, meta: dict, rules: Any, step: int) -> list:
    found = meta.get("unsettled", [])
    n, G = rules.players, rules.levels
    ok = isinstance(found, list) and all(
        isinstance(u, dict) and isinstance(u.get("scores"), list) and len(u["scores"]) == n and all(isinstance(v, int) and 0 <= v < G * step for v in u["scores"])
        and u.get("selected") in ("pure", "mixed")
        for u in found
    )
    if not ok:
        raise JaxsolveError(f"{path}: its sidecar's list of unsettled cycles is malformed")
    return found


def sample_states(rules: Any) -> np.ndarray:
    """The flat states the loader recomputes: all of a small table, else the start, states with
    the mover at 0 (the entry minimum acts there) and the others at one level, the top corner and a fixed random sample
    (``SAMPLE`` in all)."""
    n, G = rules.players, rules.levels
    total = G**n
    if total <= SAMPLE:
        return np.arange(total)
    fixed: list[int] = [int(flat_index(np.array([0] * n), G)), int(flat_index(np.array([G - 1] * n), G))]
    fixed += [int(flat_index(np.array([0] + [lv] * (n - 1)), G)) for lv in range(0, G, max(1, G // 16))]
    rest = np.random.default_rng(0).choice(total, SAMPLE - len(fixed), replace=False)
    return np.unique(np.concatenate([np.asarray(fixed, np.int64), rest]))


def load(spec: TableSpec, path: Any, verify: bool = True) -> SolvedTable:
    """A table from ``save``'s files, checked: the export's own checks (hashes), bound to this
    game, rules of this game (a preset's name only with its content), the shape the rules imply,
    win probabilities whose vectors sum to 1, the unsettled cycles' list; with ``verify``, one
    turn of the rules the sidecar names at ``sample_states``: the mover's best turn at his bust
    payoff must give his value (within ``1e-9``; ``1e-5`` for a float32 table). A sidecar
    rewritten with other rules (another die, entry minimum or scoring) fails there."""
    from jaxsolve.io import export

    values, meta = export.load(path, game=spec.name)
    rules: Any = export.rules_from(path, meta, spec.rules_type)
    export.check_preset_name(path, spec.name, rules, spec.presets())
    n = rules.players
    export.check_array(path, values, shape=(rules.levels,) * n + (n,), dtypes=("float32", "float64"), low=0.0, high=1.0, what=f"rules {rules.name}")
    tol = SUM_TOL if values.dtype == np.float64 else 1e-5
    if np.max(np.abs(values.sum(axis=-1, dtype=np.float64) - 1.0)) > tol:
        raise JaxsolveError(f"{path}: the win probabilities of a state do not sum to 1")
    unsettled = _unsettled_of(path, meta, rules, spec.step)
    if verify:
        states = sample_states(rules)
        again = spec.turn_values(rules, values.astype(np.float64), states)
        held = values.reshape(-1, n)[states, 0].astype(np.float64)
        diff = np.abs(again - held)
        if not diff.max() <= tol:
            i = int(np.argmax(diff))
            where = np.unravel_index(int(states[i]), (rules.levels,) * n)
            raise JaxsolveError(
                f"{path}: the values are not a solution of the rules {rules.name} its sidecar names "
                f"(at {tuple(int(v) * spec.step for v in where)}: the mover's {held[i]:.6f} held, one turn gives {again[i]:.6f})"
            )
    device = meta.get("device", "file")
    return SolvedTable(rules, values, unsettled, _number(meta, "residual"), int(_number(meta, "rounds")), 0.0, 0.0, device if isinstance(device, str) else "file")


# ----------------------------------------------------------------------------- reading the table


def table_or_solution(spec: TableSpec, table: Any, rules: Any, rules_given: bool, dtype: str, setup: Callable[[], Any] | None) -> SolvedTable:
    """The table in the file ``table`` (which must hold ``rules`` where rules were given), else
    the solution cache's table of ``rules``: read without JAX where it holds one, else solved
    (``setup()`` sets JAX up and returns the device; None: the store's deferred set-up)."""
    from jaxsolve.games import get_game
    from jaxsolve.io import cache

    if table is not None:
        sol = load(spec, table)
        if rules_given and sol.rules != rules:
            raise JaxsolveError(f"{table} holds {sol.rules.name}, not {rules.name}")
        return sol
    game = get_game(spec.name)
    found = cache.stored(game, rules, dtype=dtype)
    if found is not None:
        return found
    return game.solution(rules, dtype=dtype, device=setup)


def parse_scores(text: Any, rules: Any, step: int) -> tuple[int, ...]:
    """Every player's banked score in turn order (the mover first) as levels: ``players`` whole
    numbers, each a multiple of ``step`` from 0 to below the goal."""
    n = rules.players
    items = [t for t in str(text).replace(";", ",").replace(" ", ",").split(",") if t]
    try:
        points = [int(t) for t in items]
    except ValueError:
        raise JaxsolveError(f"--scores must be {n} whole numbers separated by commas (the mover first), got {text!r}") from None
    if len(points) != n:
        raise JaxsolveError(f"--scores needs {n} banked scores (one per player, the player to move first), got {len(points)}")
    for p in points:
        if p < 0:
            raise JaxsolveError(f"a banked score cannot be negative, got {p}")
        if p >= rules.goal:
            raise JaxsolveError(f"a banked score of {p} has reached the goal {rules.goal}: the game is over")
        if p % step:
            raise JaxsolveError(f"a banked score must be a multiple of {step}, got {p}")
    return tuple(p // step for p in points)


def check_seat(seat: Any, players: int) -> int:
    """The index (0-based) of ``seat`` (1 moves first) at a table of ``players``; refused in one line."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= players:
        raise JaxsolveError(f"seat must be 1..{players} at a table of {players}, got {seat!r}")
    return seat - 1


def seat_names(n: int) -> list[str]:
    """The seats as ``advise`` names them, from the mover's view."""
    return ["you"] + [f"player +{k}" for k in range(1, n)]


def rank(options: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray, float]]:
    """``(label, vector, regret)`` best first for the mover. ``options`` come in the tie rule's
    order (writing or banking first); an option within ``1e-12`` of the best counts as a tie
    (regret 0) and keeps that order among the ties."""
    best = max(float(v[0]) for _, v in options)
    tied = [(label, v, 0.0) for label, v in options if float(v[0]) >= best - TIE]
    rest = sorted(((label, v, best - float(v[0])) for label, v in options if float(v[0]) < best - TIE), key=lambda o: o[2])
    return tied + rest


# ----------------------------------------------------------------------------- the commands

SOLVE_HELP = (
    "Win probabilities of every seat at every turn start, each player playing to win (max-n); the fairest head starts and "
    "the cycles where best responses did not settle. With --out X.npy writes the value vectors [levels] * N + [N] with a .json sidecar."
)
ADVISE_HELP = "Every option's win probability for each seat, the mover first; says when the position lies on a cycle with several equilibria or a mixed one."
SCORES = Param("scores", str, None, "Every player's banked score in turn order, the player to move first: e.g. 450,1200,800.", required=True)
def simulate_params(games: int) -> tuple[Param, ...]:
    """The options of ``simulate``, ``games`` by default."""
    return (
        Param("games", int, games, "Games of N players who all follow the solved equilibrium.", flags=("--games", "-n"), min=1, max=100_000_000),
        Param("seed", int, 0, "Random seed (same seed, same games).", min=0, max=2**31 - 1),
        Param("table", Path, None, "Play on a table written by `solve --out` (with its rules) instead of the cached one."),
    )
PLOT_PARAMS = (
    Param("out", Path, Path("."), "Folder for the PNG file (default: the current folder).", flags=("--out", "-o")),
    Param("table", Path, None, "Draw from a table written by `solve --out` (with its rules) instead of the cached one."),
)


def solve_command(spec: TableSpec, rules: Any, *, dtype: str, device: Any, quiet: bool, out: Any) -> Report:
    """The solve (a bar of layers on stderr), the export with ``out``; ``result`` the table, which
    the command line keeps in the solution cache."""
    from jaxsolve.core.progress import steps_bar

    with steps_bar(None, f"solving {rules.name}, layers", quiet) as steps:
        sol = solve(spec, rules, dtype=dtype, device=device, progress=steps)
    files = save(spec, out, sol) if out is not None else []
    n = rules.players
    fair = fairest(np.asarray(sol.values, np.float64), spec.step)
    several = sum(1 for u in sol.unsettled if u["pure"] > 1)
    mixed = sum(1 for u in sol.unsettled if u["selected"] == "mixed")
    lines = [
        f"{rules.name}: {n} players, goal {rules.goal}; win probability per seat at the start: " + ", ".join(f"seat {i + 1} {v:.6f}" for i, v in enumerate(sol.start)),
        f"fairest head starts: {' / '.join(str(p) for p in fair['points'])} points (win {' / '.join(f'{v:.4f}' for v in fair['win'])})",
        f"cycles where best responses did not settle: {len(sol.unsettled)} ({several} with several pure equilibria, {mixed} with a mixed one selected)",
    ]
    details = [f"solved on {sol.device} in {sol.solve_seconds:.2f} s (+{sol.compile_seconds:.2f} s compile), residual {sol.residual:.1e}, at most {sol.rounds} rounds ({dtype})"]
    if files:
        details.append(f"wrote {', '.join(str(f) for f in files)} and its .json sidecar")
    data = {
        "rules": rules.to_dict(), **sol.facts(), "fairest": fair, "unsettled": len(sol.unsettled), "several_pure": several, "mixed": mixed,
        "compile_seconds": round(sol.compile_seconds, 3), "solve_seconds": round(sol.solve_seconds, 4), "out": [str(f) for f in files],
    }
    return Report(tuple(lines), data, tuple(details), result=sol)


def advise_command(spec: TableSpec, rules: Any, *, rules_given: bool, table: Any, dtype: str, setup: Callable[..., Any], quiet: bool, scores: str, **turn: Any) -> Advice:
    """The options at a position, from the table file or the solution cache's table (read with
    NumPy; JAX is set up only when the table must be solved first)."""
    if table is None:  # bad input refused before any solve
        spec.check(rules, parse_scores(scores, rules, spec.step), **turn)
    sol = table_or_solution(spec, table, rules, rules_given, dtype, setup)
    rules = sol.rules
    levels = parse_scores(scores, rules, spec.step)
    spec.check(rules, levels, **turn)
    values = np.asarray(sol.values, np.float64)
    options = rank(spec.options(rules, values, levels, **turn))
    names = seat_names(rules.players)
    banked = ", ".join(f"{name} {lv * spec.step}" for name, lv in zip(names, levels))
    heading = [f"{rules.name} ({rules.players} players, goal {rules.goal}): banked {banked}; you move, {spec.turn_text(**turn)}"]
    heading += [f"  {label}: " + ", ".join(f"{name} {x:.6f}" for name, x in zip(names, v)) for label, v, _ in options]
    note = cycle_note(tuple(int(lv) for lv in levels), sol.unsettled, spec.step)
    if note:
        heading.append(note)
    ranked = tuple(Ranked(label, float(v[0]), regret, {"win": [float(x) for x in v]}) for label, v, regret in options)
    data = {"rules": rules.name, "players": rules.players, "seats": names, "scores": [lv * spec.step for lv in levels], **turn, "note": note}
    return Advice(tuple(heading), ranked, "win probability", float(options[0][1][0]), data)


def simulate_command(spec: TableSpec, rules: Any, *, rules_given: bool = False, dtype: str, device: Any, quiet: bool, games: int, seed: int, table: Any) -> Report:
    """Games of N players who all follow the solved equilibrium: each seat's win share with its
    standard error against the table's value."""
    assert spec.simulate is not None
    sol = table_or_solution(spec, table, rules, rules_given, dtype, None)
    t0 = time.perf_counter()
    wins = np.asarray(spec.simulate(sol.rules, np.asarray(sol.values, np.float64), sol.unsettled, games, seed))
    seconds = time.perf_counter() - t0
    start = sol.start
    rate = wins / games
    se = np.sqrt(rate * (1 - rate) / games)
    z = np.where(se > 0, (rate - start) / np.where(se > 0, se, 1.0), 0.0)
    lines = [f"{sol.rules.name}: {games:,} games of {sol.rules.players} players who all follow the solved equilibrium (seed {seed})"]
    lines += [f"seat {i + 1}: won {rate[i]:.6f} +- {se[i]:.6f} (one standard error), solved {start[i]:.6f}, z = {z[i]:+.2f}" for i in range(len(start))]
    data = {"rules": sol.rules.to_dict(), "games": games, "seed": seed, "wins": wins.tolist(), "rate": rate.tolist(), "standard_error": se.tolist(), "value": start.tolist(), "z": z.tolist()}
    return Report(tuple(lines), data, (f"played in {seconds:.2f} s",))


def plot_command(spec: TableSpec, rules: Any, *, rules_given: bool = False, dtype: str, device: Any, quiet: bool, out: Any, table: Any) -> Report:
    """One PNG: each seat's win probability over the banked scores of seats 1 and 2 (the others
    at 0), seat 1 to move."""
    from jaxsolve.io import export

    export.check_output_dir(out, create=True)
    sol = table_or_solution(spec, table, rules, rules_given, dtype, None)
    path = seat_maps(sol, Path(out), spec.step)
    return Report((f"wrote {path}",), {"files": [str(path)]})


def seat_maps(sol: SolvedTable, out: Path, step: int) -> Path:
    """``<rules>-seats.png``: one heatmap per seat of its win probability over the banked scores
    of seat 1 (to move) and seat 2, the other seats at 0; a line of each seat's win probability
    over seat 1's banked score beside them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rules = sol.rules
    n, G = rules.players, rules.levels
    values = np.asarray(sol.values, np.float64)
    plane = values[(slice(None), slice(None)) + (0,) * (n - 2)]  # [s_1, s_2, seat]
    fig, axes = plt.subplots(1, n + 1, figsize=(4.4 * (n + 1), 4.3), dpi=100, layout="constrained")
    ticks = np.arange(G) * step
    for seat in range(n):
        ax = axes[seat]
        im = ax.imshow(plane[:, :, seat].T, origin="lower", cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto", interpolation="nearest",
                       extent=(-0.5 * step, (G - 0.5) * step, -0.5 * step, (G - 0.5) * step))
        ax.set_title(f"seat {seat + 1} wins")
        ax.set_xlabel("seat 1's banked score (to move)")
        ax.set_ylabel("seat 2's banked score")
    fig.colorbar(im, ax=list(axes[:n]), label="win probability", shrink=0.9)
    ax = axes[n]
    for seat in range(n):
        ax.plot(ticks, plane[:, 0, seat], label=f"seat {seat + 1}")
    ax.set_xlabel("seat 1's banked score (the others at 0)")
    ax.set_ylabel("win probability")
    ax.set_ylim(0, 1)
    ax.legend()
    fig.suptitle(f"{rules.name}: {n} players to {rules.goal}, each playing to win (max-n); seat 1 to move")
    path = out / f"{rules.name}-seats.png"
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def commands(spec: TableSpec) -> dict[str, Command]:
    """The commands of the game ``spec``: solve, advise, simulate (where it has one), plot."""
    out = {
        "solve": Command(functools.partial(solve_command, spec), help=SOLVE_HELP, json=True),
        "advise": Command(functools.partial(advise_command, spec), (SCORES, *spec.turn_params), ADVISE_HELP),
    }
    if spec.simulate is not None:
        out["simulate"] = Command(
            functools.partial(simulate_command, spec), simulate_params(spec.simulate_games),
            "Play many games of N players who all follow the solved equilibrium (a mixing mover draws his policy each turn); each seat's win share against its value.",
            jax=False,
        )
    out["plot"] = Command(functools.partial(plot_command, spec), PLOT_PARAMS, "Each seat's win probability over the banked scores, as one PNG.", json=False, jax=False, quiet_help=None)
    return out


SEAT = Param("seat", int, 1, "Your seat at the table (1 moves first); the others are computer players who play the solved equilibrium.", min=1, max=4)
"""``play``'s seat at a table (every table game's play option)."""


def table_game(
    spec: TableSpec, title: str, *, module: str, default: str, small: str, play: str | None = None, play_params: tuple[Param, ...] | None = None,
    bench_presets: tuple[str, ...] = (), solve_seconds: dict[str, float] | None = None, display_name: str = "",
) -> Game:
    """The ``Game`` of ``spec``, the game folder ``module`` (its ``family``): the hooks and
    commands of this module; ``play``: ``module.Class`` of its play class in that folder, if any."""
    from jaxsolve.games.race_registration import lazy

    return Game(
        name=spec.name,
        title=title,
        family=module.rpartition(".")[2],
        core="fixpoint",
        presets=spec.presets,
        default=default,
        small=lambda: spec.presets()[small],
        solve=functools.partial(solve, spec),
        values=operator.attrgetter("values"),
        save=functools.partial(save, spec),
        load=functools.partial(load, spec),
        outputs=outputs,
        commands=commands(spec),
        play_game=lazy(*f"{module}.{play}".rsplit(".", 1)) if play else None,
        play_params=(SEAT,) if play_params is None else play_params,
        bench_presets=bench_presets,
        solve_seconds=dict(solve_seconds or {}),
        display_name=display_name,
    )
