"""The advisor of a category game: every option of a turn in progress ranked, with its regret.

``advise`` answers one situation with NumPy by default: the same turn arithmetic as the solve
(``solver``, ``dice`` with ``xp=numpy``; ``turn_arrays``) for one state, ranked by the policy's
tie rule. That path, with a cached table (``solutions.cached_solution``), runs without importing
JAX; ``backend="jax"`` computes the same arrays in one compiled program. The scopes (``game``,
``turn``) are those of ``analysis``. ``tie_groups`` finds the boxes whose fill values tie for
the best choice (traces with JAX, imported on first use).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

import numpy as np

from jaxsolve.core import dice as dicelib
from jaxsolve.core.arrays import lazy_jit
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.answers import analysis
from jaxsolve.games.category.engine import policy, solutions, solver, tables
from jaxsolve.games.category.sheets.sheet import BOX_NAMES, NUM_BOXES
from jaxsolve.games.category.sheets.position import Position, PositionError, format_dice
from jaxsolve.games.category.sheets.rules import CategoryRules, check_objective


SCOPES = ("game", "turn")
BACKENDS = ("numpy", "jax")


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
            out.update(keep=list(self.keep or ()), rethrow=self.rethrow)
        return out


@dataclass
class TurnAdvice:
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


def turn_arrays(values, state: tables.EngineState, rules, objective, throws_left, xp=None):
    """Fill values and points ``[boxes, T, B]``, throw values ``[throws, T, B]``, keep values ``[K, B]``
    of states ``[B]`` with ``throws_left`` re-throws left (``xp``: see ``jaxsolve.core.arrays``)."""
    first = rules.has_instant_bonus and throws_left == rules.throws - 1
    fills = solver.option_values(values, state, rules, objective, first, xp=xp)
    points = solver.moves(state, rules, xp=xp).points
    throw_values = solver.turn_throw_values(values, state, rules, objective, xp=xp)
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
) -> TurnAdvice:
    """Rank every option of a turn in progress: each distinct keep (if a re-throw is left) and
    each open box, with its value and its regret against the best, best first (a regret is
    never below 0: an option tied with the best may be worth a rounding error more).

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
    dice, throws_left, _ = analysis.check_turn(rules, position, dice, throws_left, None)
    if scope == "game":
        sol = sol or solutions.solution(rules, objective, dtype=dtype)
        if sol.objective != objective or sol.rules != rules:
            raise JaxsolveError(f"the value table is for {sol.rules.name}/{sol.objective}, not {rules.name}/{objective}")
    table = sol if scope == "game" else None
    sp = tables.space(rules.dice)
    counts = sp.counts_of_faces(dice)
    t = sp.throw_index(counts)
    if backend == "numpy":
        dtype = np.dtype(dtype if dtype is not None else (table.values.dtype if table is not None else solutions.default_dtype_name()))
        if table is not None and np.dtype(table.values.dtype).itemsize < dtype.itemsize:
            dtype = np.dtype(table.values.dtype)  # a float32 table is answered in float32, as on JAX
        values = solutions.host_values(table, rules, dtype)
        state = analysis.state_arrays(position, rules, np)
        arrays = turn_arrays(values, state, rules, objective, throws_left, xp=np)
    else:
        values = solutions.flat_values(table, rules, dtype)
        state = analysis.state_arrays(position, rules)
        arrays = _turn_arrays(values, state, rules=rules, objective=objective, throws_left=throws_left)
    fills, points, throw_values, keep_values = (np.asarray(a) for a in arrays)
    keeps = [(float(keep_values[sp.keep_index(sub), 0]), sub) for sub in _sub_keeps(counts)] if throws_left > 0 else []
    options = rank(rules, fills[:, t, 0], points[:, t, 0], keeps, np.dtype(values.dtype))
    value = float(throw_values[throws_left, t, 0])
    return TurnAdvice(rules, objective, scope, position, dice, throws_left, value, options)


def rank(rules: CategoryRules, fills, points, keeps, dtype, floor: float | None = 0.0) -> list[Option]:
    """Options best first by the engine's tie rule (filling before re-throwing, then more dice
    kept, then sheet / keep order), each with its regret against the best, at least ``floor``
    (None: as it is). ``fills`` and ``points`` ``[boxes]`` (a box not allowed: not finite);
    ``keeps``: ``(value, face counts)`` pairs."""
    sp = tables.space(rules.dice)
    items = [(float(fills[b]), (0, -rules.dice, int(b)), Option("box", float(fills[b]), 0.0, box=rules.box_names[b], points=int(points[b])))
             for b in np.flatnonzero(np.isfinite(fills))]
    for value, counts in keeps:
        kept = int(counts.sum())
        items.append((value, (1, -kept, sp.keep_index(counts)), Option("keep", value, 0.0, keep=tuple(sp.faces_of(counts)), rethrow=rules.dice - kept)))
    ranked = policy.rank_with_ties(items, dtype)
    best = ranked[0].value if ranked else np.nan
    return [replace(o, regret=best - o.value if floor is None else max(best - o.value, floor)) for o in ranked]


def describe_turn(dice, throws_left) -> str:
    return f"dice {format_dice(dice)}, {throws_left} re-throw{'s' if throws_left != 1 else ''} left" if dice else "start of a turn"


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
    values = solutions.flat_values(solutions.solution(rules, objective) if scope == "game" else None, rules)
    state = analysis.state_arrays(position, rules)
    fills = np.asarray(_turn_arrays(values, state, rules=rules, objective=objective, throws_left=0)[0])[:, :, 0]
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
