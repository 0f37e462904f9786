"""Analysis of any position of a category game: single-turn and in-game values, the advisor, per-box split.

Two *scopes*, as in the APL article:

* ``turn``: only this turn counts (the article's E, E_OS and W, W_OS): the turn is played to
  maximise what it puts on the sheet now (box points plus any bonus earned now for ``score``;
  1 for a box met for ``goals``). Computed with an all-zero table of later states.
* ``game``: this turn and the rest of the game played optimally (the article's E^SP, W^SP).

A turn in progress is ``(position, dice, throws_left)``; without dice the position is at the
start of a turn (before its first throw). ``throws`` overrides the throws of this turn only
(``throws=1``: no re-throw, the article's E(HABE)).

Solutions and evaluations are solved on demand and cached per process (``solution``,
``evaluation``); ``register`` adds one read from an export, ``cached_solution`` takes one from
the solution store without ever solving.

The advisor (``advise``) answers one situation with NumPy by default: the same turn arithmetic
as the solve (``solver``, ``dice`` with ``xp=numpy``) for one state, ranked by the policy's tie
rule. That path, with a cached table, runs without importing JAX; ``backend="jax"`` computes
the same arrays in one compiled program. Everything else here traces with JAX (imported on
first use).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from jaxsolve.core import dice as dicelib
from jaxsolve.core.arrays import lazy_jit, namespace
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category import solver, tables
from jaxsolve.games.category.position import Position, PositionError, check_throws_left, format_dice, parse_dice
from jaxsolve.games.category import policy
from jaxsolve.games.category.rules import CategoryRules, check_objective
from jaxsolve.games.category.kniffel import BOX_NAMES, NUM_BOXES

if TYPE_CHECKING:
    from jaxsolve.games.category import evaluate as evaluation_lib

SCOPES = ("game", "turn")
BACKENDS = ("numpy", "jax")


def split_names(rules: CategoryRules) -> tuple[str, ...]:
    """Names of the split channels: the sheet's boxes and the three bonuses."""
    from jaxsolve.games.category import evaluate as evaluation_lib

    return evaluation_lib.channels(rules)[:-1]

_SOLUTIONS: dict[tuple, solver.Solution] = {}
_EVALUATIONS: dict[int, tuple] = {}
_FLAT: dict[int, tuple] = {}
_HOST: dict[int, tuple] = {}


def _dtype_name() -> str:
    """``float64`` if JAX's x64 mode is on, else ``float32`` (imports JAX)."""
    import jax

    return "float64" if jax.config.jax_enable_x64 else "float32"


def _key(rules: CategoryRules, objective: str, dtype=None) -> tuple:
    return (rules, objective, np.dtype(dtype).name if dtype is not None else _dtype_name())


def solution(rules: CategoryRules, objective: str = "score", *, device=None, dtype=None) -> solver.Solution:
    """The solved value table of ``rules``/``objective`` (once per process and dtype; from the
    solution store when it holds it, see ``jaxsolve.cache``). ``dtype``: ``float32`` or
    ``float64`` (default: JAX's x64 setting)."""
    from jaxsolve.games.category import table_io

    check_objective(objective)
    key = _key(rules, objective, dtype)
    if key not in _SOLUTIONS:
        _SOLUTIONS[key] = table_io.solved(rules, objective, dtype=key[2], device=device)
    return _SOLUTIONS[key]


def cached_solution(rules: CategoryRules, objective: str = "score", dtype="float64") -> solver.Solution | None:
    """The solved table of ``rules``/``objective`` in ``dtype`` if this process or the solution
    store already holds it (loaded and checked as ``solution`` does), else None. Never solves
    and does not import JAX."""
    from jaxsolve.games.category import table_io

    check_objective(objective)
    key = _key(rules, objective, dtype)
    if key not in _SOLUTIONS:
        sol = table_io.cached(rules, objective, dtype=key[2])
        if sol is None:
            return None
        _SOLUTIONS[key] = sol
    return _SOLUTIONS[key]


def register(sol: solver.Solution, dtype=None) -> solver.Solution:
    """Use ``sol`` (e.g. ``table_io.load_solution(path)``) for its rules and objective from now on,
    also where ``dtype`` (default: JAX's x64 setting) is asked for and no table is held yet."""
    _SOLUTIONS[(sol.rules, sol.objective, np.dtype(sol.values.dtype).name)] = sol
    _SOLUTIONS.setdefault(_key(sol.rules, sol.objective, dtype), sol)
    return sol


def evaluation(sol: solver.Solution) -> evaluation_lib.Evaluation:
    """Per-box channels and second moment of every state under ``sol``'s policy (cached)."""
    return _evaluated(sol)[0]


def _evaluated(sol: solver.Solution):
    """``(Evaluation, flat channel table)`` of ``sol``, computed once per solution object."""
    import jax.numpy as jnp

    from jaxsolve.games.category import evaluate as evaluation_lib

    key = id(sol)
    if key not in _EVALUATIONS or _EVALUATIONS[key][0].solution is not sol:
        ev = evaluation_lib.evaluate(sol)
        aux = jnp.asarray(np.nan_to_num(ev.channels.reshape(-1, len(evaluation_lib.channels(sol.rules))), nan=0.0), sol.values.dtype)
        _EVALUATIONS[key] = (ev, aux)
    return _EVALUATIONS[key]


@functools.lru_cache(maxsize=8)
def _zeros(rules: CategoryRules, width: int, dtype_name: str):
    import jax.numpy as jnp

    shape = (int(np.prod(tables.state_shape(rules))),) + ((width,) if width else ())
    return jnp.zeros(shape, dtype_name)


def _flat(sol: solver.Solution | None, rules: CategoryRules, dtype=None):
    """Flat value table of later states: the solution's (NaN -> 0), or zeros for one turn alone
    (in ``dtype``, default JAX's x64 setting)."""
    import jax.numpy as jnp

    if sol is None:
        return _zeros(rules, 0, np.dtype(dtype).name if dtype is not None else _dtype_name())
    key = id(sol)
    if key not in _FLAT or _FLAT[key][0] is not sol:
        _FLAT[key] = (sol, jnp.asarray(np.nan_to_num(sol.values.reshape(-1), nan=0.0), sol.values.dtype))
    return _FLAT[key][1]


def _host_flat(sol: solver.Solution | None, rules: CategoryRules, dtype):
    """``_flat`` as a NumPy array in ``dtype``, for the NumPy path."""
    dtype = np.dtype(dtype)
    if sol is None:
        return np.zeros(int(np.prod(tables.state_shape(rules))), dtype)
    key = id(sol)
    if key not in _HOST or _HOST[key][0] is not sol or _HOST[key][1].dtype != dtype:
        _HOST[key] = (sol, np.nan_to_num(sol.values.reshape(-1), nan=0.0).astype(dtype, copy=False))
    return _HOST[key][1]


def _state_arrays(position: Position, rules: CategoryRules, xp=None):
    f, u, h = position.state(rules)
    if position.is_over:
        raise PositionError("the game is over: every box is filled")
    xp = namespace(xp)
    return tuple(xp.asarray([x], xp.int32) for x in (f, u, h))


def _throw(rules: CategoryRules, dice) -> int:
    sp = tables.space(rules.dice)
    return sp.throw_index(sp.counts_of_faces(dice))


@lazy_jit(static_argnames=("rules", "objective", "throws"))
def _turn_channels(values, aux, f, u, h, rules, objective, throws):
    from jaxsolve.games.category import evaluate as evaluation_lib

    return evaluation_lib.turn_channels(values, aux, f, u, h, rules=rules, objective=objective, throws=throws)


@lazy_jit(static_argnames=("rules", "objective", "throws_left", "first_throw"))
def _throw_channels(values, aux, f, u, h, rules, objective, throws_left, first_throw=None):
    from jaxsolve.games.category import evaluate as evaluation_lib

    return evaluation_lib.throw_channels(values, aux, f, u, h, rules=rules, objective=objective, throws_left=throws_left, first_throw=first_throw)


def _channels(sol, aux, position, rules, objective, dice, throws_left, throws):
    """Value and channels ``[C]`` of a position (start of a turn or mid-turn)."""
    values = _flat(sol, rules)
    f, u, h = _state_arrays(position, rules)
    if dice is None:
        v, c = _turn_channels(values, aux, f, u, h, rules=rules, objective=objective, throws=throws)
        return float(v[0]), np.asarray(c[0])
    best, chan = _throw_channels(values, aux, f, u, h, rules=rules, objective=objective, throws_left=throws_left)
    t = _throw(rules, dice)
    return float(best[t, 0]), np.asarray(chan[t, 0])


@dataclass
class TurnAnalysis:
    """One position analysed as a single turn and within the game.

    ``turn_value``: best expected outcome of this turn alone (E / W, E_OS / W_OS).
    ``turn_split``: that outcome split over the boxes and bonuses (policy optimal for the turn).
    ``game_value``: optimal expected outcome of the rest of the game, this turn included (E^SP).
    ``game_turn_split``: what this turn puts in each box under the game-optimal policy;
    its sum is ``this_turn``, and ``rest = game_value - this_turn`` (the article's Restwert).
    ``goals`` values are expected boxes met (x 100 = the article's percent).
    """

    rules: CategoryRules
    objective: str
    position: Position
    dice: tuple[int, ...] | None
    throws_left: int
    throws: int
    turn_value: float
    turn_split: dict[str, float]
    game_value: float
    game_turn_split: dict[str, float]

    @property
    def this_turn(self) -> float:
        return float(sum(self.game_turn_split.values()))

    @property
    def rest(self) -> float:
        return self.game_value - self.this_turn

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": self.objective,
            "position": str(self.position),
            "dice": list(self.dice) if self.dice else None,
            "throws_left": self.throws_left if self.dice else None,
            "throws_this_turn": self.throws,
            "turn": {"value": self.turn_value, "split": self.turn_split},
            "game": {"value": self.game_value, "this_turn": self.this_turn, "rest": self.rest, "this_turn_split": self.game_turn_split},
        }


def _check_turn(rules, position, dice, throws_left, throws):
    dice = parse_dice(dice, rules) if dice is not None else None
    throws_left = check_throws_left(throws_left, rules, dice)
    throws = rules.throws if throws is None else int(throws)
    if not 1 <= throws <= rules.throws:
        raise PositionError(f"throws this turn must be between 1 and {rules.throws}, got {throws}")
    if dice is not None and throws != rules.throws:
        raise PositionError("give either the dice showing or a throw count for the turn, not both")
    if position.is_over:
        raise PositionError("the game is over: every box is filled")
    return dice, throws_left, throws


def analyze_turn(
    rules: CategoryRules,
    position: Position,
    dice=None,
    throws_left: int | None = None,
    objective: str = "score",
    *,
    throws: int | None = None,
    sol: solver.Solution | None = None,
) -> TurnAnalysis:
    """Single-turn and in-game value of a position, with this turn's split over the boxes.

    ``throws`` (start of a turn only) overrides the throws of this turn, e.g. 1 = no re-throw.
    ``sol`` defaults to the cached solution of ``rules``/``objective``.
    """
    from jaxsolve.games.category import evaluate as evaluation_lib

    check_objective(objective)
    dice, throws_left, throws = _check_turn(rules, position, dice, throws_left, throws)
    sol = sol or solution(rules, objective)
    if sol.objective != objective or sol.rules != rules:
        raise JaxsolveError(f"the value table is for {sol.rules.name}/{sol.objective}, not {rules.name}/{objective}")
    aux = None  # this turn's own channels; nothing carried in from later states
    tv, tc = _channels(None, aux, position, rules, objective, dice, throws_left, throws)
    gv, gc = _channels(sol, aux, position, rules, objective, dice, throws_left, throws)
    split = lambda c: {k: float(x) for k, x in zip(split_names(rules), c[:-1])}  # noqa: E731
    return TurnAnalysis(rules, objective, position, dice, throws_left, throws, tv, split(tc), gv, split(gc))


@dataclass
class Breakdown:
    """Expected final outcome still to come from a position, split over boxes and bonuses.

    ``split`` sums to ``mean`` (the position's value); ``sd`` is the standard deviation of
    what is still to come (``score``: points; ``goals``: boxes met) under the optimal policy.
    """

    rules: CategoryRules
    objective: str
    position: Position
    dice: tuple[int, ...] | None
    throws_left: int
    split: dict[str, float]
    mean: float
    sd: float
    value: float

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": self.objective,
            "position": str(self.position),
            "sheet_total": self.position.total,
            "dice": list(self.dice) if self.dice else None,
            "throws_left": self.throws_left if self.dice else None,
            "value": self.value,
            "mean": self.mean,
            "sd": self.sd,
            "split": self.split,
        }


def breakdown(
    rules: CategoryRules,
    position: Position,
    dice=None,
    throws_left: int | None = None,
    objective: str = "score",
    *,
    sol: solver.Solution | None = None,
) -> Breakdown:
    """Per-box split and standard deviation of the rest of the game from a position.

    The channels come from a forward walk over the states the optimal policy reaches from the
    position (``evaluate.forward``): seconds for the full game instead of the minutes of
    evaluating every state (``evaluation``).
    """
    from jaxsolve.games.category import evaluate as evaluation_lib

    check_objective(objective)
    dice, throws_left, _ = _check_turn(rules, position, dice, throws_left, None)
    sol = sol or solution(rules, objective)
    value, _ = _channels(sol, None, position, rules, objective, dice, throws_left, rules.throws)
    throw = None if dice is None else _throw(rules, dice)
    walk = evaluation_lib.forward(sol, *position.state(rules), throw=throw, throws_left=throws_left if dice is not None else None)
    chan = walk.channels
    split = {k: float(x) for k, x in zip(split_names(rules), chan[:-1])}
    mean = float(chan[:-1].sum())
    var = float(chan[-1]) - mean**2
    return Breakdown(rules, objective, position, dice, throws_left, split, mean, float(np.sqrt(max(var, 0.0))), value)


@dataclass(frozen=True)
class Option:
    """One choice: ``kind`` is ``keep`` (keep ``keep``, re-throw ``rethrow`` dice) or ``box`` (fill it)."""

    kind: str
    value: float
    regret: float
    keep: tuple[int, ...] | None = None
    rethrow: int = 0
    box: str | None = None
    points: int | None = None

    @property
    def label(self) -> str:
        if self.kind == "box":
            return f"fill {self.box} ({self.points})"
        kept = " ".join(map(str, self.keep)) if self.keep else "nothing"
        return f"keep {kept}, re-throw {self.rethrow}"

    def to_dict(self) -> dict:
        out = {"option": self.label, "kind": self.kind, "value": self.value, "regret": self.regret}
        if self.kind == "box":
            out.update(box=self.box, points=self.points)
        else:
            out.update(keep=list(self.keep), rethrow=self.rethrow)
        return out


@dataclass
class Advice:
    """Every legal option of a turn in progress, best first.

    ``value`` is the engine's value of the throw (``turn_throw_values``) and equals the best
    option's value. Ties are ordered as the engine's policy breaks them: filling (keeping
    every die) before re-throwing, then more dice kept, then table / keep order.
    """

    rules: CategoryRules
    objective: str
    scope: str
    position: Position
    dice: tuple[int, ...]
    throws_left: int
    value: float
    options: list[Option] = field(default_factory=list)

    @property
    def best(self) -> Option:
        return self.options[0]

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": self.objective,
            "scope": self.scope,
            "position": str(self.position),
            "dice": list(self.dice),
            "throws_left": self.throws_left,
            "value": self.value,
            "options": [o.to_dict() for o in self.options],
        }


def turn_arrays(values, f, u, h, rules, objective, throws_left, xp=None):
    """Fill values and points ``[boxes, T, B]``, throw values ``[throws, T, B]``, keep values ``[K, B]``
    of states ``f, u, h`` ``[B]`` with ``throws_left`` re-throws left (``xp``: see ``jaxsolve.arrays``)."""
    first = rules.has_instant_bonus and throws_left == rules.throws - 1
    fills = solver.option_values(values, f, u, h, rules, objective, first, xp=xp)
    points = solver.moves(f, u, h, rules, xp=xp).points
    throw_values = solver.turn_throw_values(values, f, u, h, rules, objective, xp=xp)
    keep_values = dicelib.expect_keeps(tables.space(rules.dice), throw_values[max(throws_left - 1, 0)], xp=xp)
    return fills, points, throw_values, keep_values


_turn_arrays = lazy_jit(static_argnames=("rules", "objective", "throws_left"))(turn_arrays)


def _sub_keeps(counts):
    """Distinct proper sub-multisets (count vectors) of a throw."""
    full = tuple(int(c) for c in counts)
    for sub in itertools.product(*[range(c + 1) for c in full]):
        if sub != full:
            yield np.asarray(sub)


def advise(
    rules: CategoryRules,
    position: Position,
    dice,
    throws_left: int | None = None,
    objective: str = "score",
    *,
    scope: str = "game",
    sol: solver.Solution | None = None,
    dtype=None,
    backend: str = "numpy",
) -> Advice:
    """Rank every option of a turn in progress: each distinct keep (if a re-throw is left) and
    each open box, with its value and its regret against the best, best first.

    ``scope="turn"`` ranks for this turn alone (the article's E_OS / W_OS strategy).
    ``backend="numpy"`` (default) computes the one state's arrays with NumPy in ``dtype``
    (``float32``/``float64``; default: the table's, or for ``scope="turn"`` JAX's x64 setting;
    a float32 table is answered in float32); ``"jax"`` computes them in one compiled program,
    in the precision of JAX's x64 setting. Both run the same code (``turn_arrays``) and rank
    with the same tie rule.
    """
    check_objective(objective)
    if scope not in SCOPES:
        raise JaxsolveError(f"unknown scope {scope!r}; choose game or turn")
    if backend not in BACKENDS:
        raise JaxsolveError(f"unknown backend {backend!r}; choose numpy or jax")
    if dice is None or (isinstance(dice, str) and not dice.strip()):
        raise PositionError("the advisor needs the dice showing (--dice)")
    dice, throws_left, _ = _check_turn(rules, position, dice, throws_left, None)
    if scope == "game":
        sol = sol or solution(rules, objective, dtype=dtype)
        if sol.objective != objective or sol.rules != rules:
            raise JaxsolveError(f"the value table is for {sol.rules.name}/{sol.objective}, not {rules.name}/{objective}")
    table = sol if scope == "game" else None
    sp = tables.space(rules.dice)
    counts = sp.counts_of_faces(dice)
    t = sp.throw_index(counts)
    if backend == "numpy":
        dtype = np.dtype(dtype if dtype is not None else (sol.values.dtype if table is not None else _dtype_name()))
        if table is not None and np.dtype(table.values.dtype).itemsize < dtype.itemsize:
            dtype = np.dtype(table.values.dtype)  # a float32 table is answered in float32, as on JAX
        values = _host_flat(table, rules, dtype)
        f, u, h = _state_arrays(position, rules, np)
        arrays = turn_arrays(values, f, u, h, rules, objective, throws_left, xp=np)
    else:
        values = _flat(table, rules, dtype)
        f, u, h = _state_arrays(position, rules)
        arrays = _turn_arrays(values, f, u, h, rules=rules, objective=objective, throws_left=throws_left)
    fills, points, throw_values, keep_values = (np.asarray(a) for a in arrays)
    fills, points = fills[:, t, 0], points[:, t, 0]
    ranked = []
    for b in range(rules.num_boxes):
        if np.isfinite(fills[b]):
            ranked.append(((0, -rules.dice, b), Option("box", float(fills[b]), 0.0, box=rules.box_names[b], points=int(points[b]))))
    if throws_left > 0:
        keep_values = keep_values[:, 0]
        for sub in _sub_keeps(counts):
            k = sp.keep_index(sub)
            v = float(keep_values[k])
            opt = Option("keep", v, 0.0, keep=tuple(sp.faces_of(sub)), rethrow=rules.dice - int(sub.sum()))
            ranked.append(((1, -int(sub.sum()), k), opt))
    ranked = policy.rank_with_ties([(o.value, key, o) for key, o in ranked], np.dtype(values.dtype))
    best = ranked[0].value
    options = [Option(o.kind, o.value, best - o.value, o.keep, o.rethrow, o.box, o.points) for o in ranked]
    value = float(throw_values[throws_left, t, 0])
    return Advice(rules, objective, scope, position, dice, throws_left, value, options)


def describe_turn(dice, throws_left) -> str:
    return f"dice {format_dice(dice)}, {throws_left} re-throw{'s' if throws_left != 1 else ''} left" if dice else "start of a turn"


def single_box_table(rules: CategoryRules, throws: int | None = None, *, sol_free: bool = True) -> dict[str, tuple[float, float]]:
    """Article tables 1 (``throws=1``) and 10 (``throws=rules.throws``): one box open, one turn.

    Returns ``box -> (success probability in %, expected points)`` for a sheet where only that
    box is open (upper total 0, the all-same box not holding its points), this turn alone.
    """
    throws = rules.throws if throws is None else throws
    aux = None
    out = {}
    for b, name in enumerate(rules.box_names):
        pos = Position(tuple(None if i == b else 0 for i in range(rules.num_boxes)), rules.boxes)
        w, _ = _channels(None, aux, pos, rules, "goals", None, 0, throws)
        e, _ = _channels(None, aux, pos, rules, "score", None, 0, throws)
        out[name] = (100.0 * w, e)
    return out


TIE_TOL = 1e-9  # options within this (relative to the best option's size) count as tied


def tie_groups(rules: CategoryRules, objective: str, scope: str, position: Position | None = None, tol: float = TIE_TOL) -> tuple[tuple[str, ...], ...]:
    """Boxes whose fill values tie for the best choice after some throw, found from the values.

    For every throw of ``position`` (default: the start), the boxes whose option value is
    within ``tol * max(1, |best|)`` of the best box are tied there; boxes tied with each other
    on any throw are joined into one group (connected components). Where a policy's split
    over boxes differs from a printed one only inside such a group, only the tie-breaking
    differs. ``scope="turn"`` uses this turn's rewards alone, ``"game"`` the solved game.
    """
    check_objective(objective)
    if scope not in SCOPES:
        raise JaxsolveError(f"unknown scope {scope!r}; choose game or turn")
    position = position or Position()
    values = _flat(solution(rules, objective) if scope == "game" else None, rules)
    f, u, h = _state_arrays(position, rules)
    fills = np.asarray(_turn_arrays(values, f, u, h, rules=rules, objective=objective, throws_left=0)[0])[:, :, 0]
    fills = np.where(np.isfinite(fills), fills, -np.inf)
    best = fills.max(axis=0)
    tied = fills >= best - tol * np.maximum(1.0, np.abs(best))
    parent = list(range(NUM_BOXES))

    def root(b):
        while parent[b] != b:
            b = parent[b]
        return b

    for t in np.flatnonzero(tied.sum(axis=0) > 1):
        boxes = np.flatnonzero(tied[:, t])
        for b in boxes[1:]:
            parent[root(int(b))] = root(int(boxes[0]))
    groups: dict[int, list[str]] = {}
    for b in range(NUM_BOXES):
        groups.setdefault(root(b), []).append(BOX_NAMES[b])
    return tuple(tuple(g) for g in groups.values() if len(g) > 1)


def _mark(ours, printed, digits):
    if ours is None:
        return "n/a"
    return "=" if round(ours, digits) == round(printed, digits) else "≠"


def apl_tables(rules: CategoryRules | None = None) -> dict:
    """The article's tables 1, 10, 21 and 22 recomputed, next to the printed figures.

    Every cell carries ``ours``, ``printed`` and ``mark``: ``=`` (equal to the printed digits),
    ``≠`` (different), ``tie`` (different, but the cells of a group of tied options, see
    ``tie_groups``, sum to the printed sum: only the tie-breaking differs), ``n/a`` (not defined here: the
    article prints 0 as the game value of a single-turn column).
    """
    from jaxsolve.games.category import apl_article as art
    from jaxsolve.games.category.kniffel import get_rules

    rules = rules or get_rules("kniffel-apl")
    out: dict = {"rules": rules.name, "ew": list(art.EW)}
    for name, throws, printed in (("table1", 1, art.TABLE1), ("table10", rules.throws, art.TABLE10)):
        ours = single_box_table(rules, throws)
        out[name] = {
            box: {
                "W_percent": {"ours": ours[box][0], "printed": printed[box][0], "mark": _mark(ours[box][0], printed[box][0], 2)},
                "E_points": {"ours": ours[box][1], "printed": printed[box][1], "mark": _mark(ours[box][1], printed[box][1], 4)},
            }
            for box in BOX_NAMES
        }
    start = Position()
    for name, objective, printed, scale, digits in (("table21", "goals", art.TABLE21, 100.0, 2), ("table22", "score", art.TABLE22, 1.0, 4)):
        cols = {}
        cases = {"nothrow": dict(throws=1), "ew": dict(dice=art.EW, throws_left=rules.throws - 1), "opt": {}}
        for case, kwargs in cases.items():
            a = analyze_turn(rules, start, objective=objective, **kwargs)
            cols[f"turn_{case}"] = {**{b: scale * a.turn_split[b] for b in BOX_NAMES}, "sum": scale * a.turn_value, "rest": 0.0, "game": None}
            game = {b: scale * a.game_turn_split[b] for b in BOX_NAMES}
            cols[f"game_{case}"] = {**game, "sum": scale * a.this_turn, "rest": scale * a.rest, "game": scale * a.game_value}
        table: dict = {"columns": list(art.COLUMNS), "rows": {}}
        ties = {scope: tie_groups(rules, objective, scope) for scope in SCOPES}
        table["tie_groups"] = {scope: [list(g) for g in ties[scope]] for scope in SCOPES}
        for row in art.ROWS:
            cells = []
            for j, col in enumerate(art.COLUMNS):
                ours, pr = cols[col][row], printed[row][j]
                mark = _mark(ours, pr, digits)
                scope = col.split("_")[0]
                if mark == "≠":
                    for group in ties[scope]:
                        if row in group:
                            ours_sum = sum(cols[col][b] for b in group)
                            printed_sum = sum(printed[b][j] for b in group)
                            if abs(ours_sum - printed_sum) <= 0.5 * 10**-digits * len(group):
                                mark = "tie"
                cells.append({"ours": ours, "printed": pr, "mark": mark})
            table["rows"][row] = cells
        keeps = {}
        for scope in SCOPES:
            adv = advise(rules, start, art.EW, rules.throws - 1, objective, scope=scope)
            keeps[scope] = {"ours": adv.best.label, "printed": art.KEEPS_PRINTED[(objective, scope)]}
        table["best_option_for_ew"] = keeps
        out[name] = table
    return out


def _fmt(x, digits):
    return "n/a" if x is None else f"{x:.{digits}f}"


def apl_tables_markdown(data: dict) -> str:
    """A Markdown rendering of ``apl_tables()``: ours / printed, differences marked."""
    from jaxsolve.games.category.apl_article import COLUMNS

    ew = " ".join(map(str, data["ew"]))
    lines = [
        f"# APL article tables recomputed ({data['rules']})",
        "",
        "Generated by `jaxsolve tables kniffel`. Each cell: ours / printed; **≠** marks a difference at the",
        "printed digits, *tie* a difference only in how exactly tied options are broken (the cells of the",
        "tied group sum to the printed sum), n/a a cell the article fills with 0 for a single-turn column.",
        f"Tied groups are found from the computed values: boxes whose fill values lie within {TIE_TOL:g} (relative)",
        "of the best box after some first-turn throw (`analysis.tie_groups`).",
        "",
    ]
    for name, title in (("table1", "Table 1: first throw only, one box open"), ("table10", "Table 10: one turn (2 throws), one box open")):
        lines += [f"## {title}", "", "| box | W [%] ours | printed | | E [points] ours | printed | |", "|---|---:|---:|---|---:|---:|---|"]
        for box, cell in data[name].items():
            w, e = cell["W_percent"], cell["E_points"]
            lines.append(f"| {box} | {w['ours']:.2f} | {w['printed']:.2f} | {w['mark']} | {e['ours']:.4f} | {e['printed']:.4f} | {e['mark']} |")
        lines.append("")
    heads = {
        "turn_nothrow": "turn, no re-throw",
        "turn_ew": f"turn, EW={ew}",
        "turn_opt": "turn, optimal",
        "game_nothrow": "game, no re-throw",
        "game_ew": f"game, EW={ew}",
        "game_opt": "game, optimal",
    }
    for name, title, digits in (
        ("table21", "Table 21: start position, W (boxes met, %)", 2),
        ("table22", "Table 22: start position, E (points)", 4),
    ):
        t = data[name]
        lines += [f"## {title}", ""]
        for scope, keep in t["best_option_for_ew"].items():
            lines.append(f"- best option for EW = {ew}, {scope}: ours `{keep['ours']}`; printed: {keep['printed']}")
        lines += ["", "| row | " + " | ".join(heads[c] for c in COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
        for row, cells in t["rows"].items():
            parts = []
            for c in cells:
                mark = {"=": "", "≠": " **≠**", "tie": " *tie*", "n/a": " (n/a)"}[c["mark"]]
                parts.append(f"{_fmt(c['ours'], digits)} / {c['printed']:.{digits}f}{mark}")
            lines.append(f"| {row} | " + " | ".join(parts) + " |")
        lines.append("")
    counts: dict[str, int] = {}
    for name in ("table1", "table10"):
        for cell in data[name].values():
            for c in cell.values():
                counts[c["mark"]] = counts.get(c["mark"], 0) + 1
    for name in ("table21", "table22"):
        for cells in data[name]["rows"].values():
            for c in cells:
                counts[c["mark"]] = counts.get(c["mark"], 0) + 1
    lines.append("Cells: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return "\n".join(lines) + "\n"
