"""Optimal play of a category game by backward induction over layers of filled boxes.

A turn is: throw -> (keep, re-throw) x (throws - 1) -> fill a box. For a batch of states the
turn is evaluated as arrays: ``option_values`` gives the value of filling every box after every
final throw (``[boxes, T, B]``), the best box gives the final-throw values, each re-throw is the
shared ``dice.reroll`` operator, and the mean over the first throw is the state's value.
Layers (number of filled boxes) are solved from boxes - 1 down to 0 in fixed-size chunks, so one
compilation serves the whole game.

A batch of states is a ``tables.EngineState`` of ``[B]`` int32 arrays (filled mask, upper total,
all-same held), a pytree that passes through ``jax.jit`` and ``jax.vmap`` as it is.

The turn arithmetic (``option_values``, ``moves``, ``turn_throw_values`` and what they use) takes
``xp`` (``jaxsolve.core.arrays``): ``jax.numpy`` by default, traced in every compiled program, or
NumPy, which answers one situation from a cached table without importing JAX
(``advisor.advise``). JAX is imported on first use, not with this module.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, NamedTuple

import numpy as np

from jaxsolve.core import dice
from jaxsolve.core.arrays import namespace, set_at
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine.objective import scalar_objective
from jaxsolve.games.category.sheets.rules import CategoryRules, check_objective
from jaxsolve.core.arrays import float_dtype

if TYPE_CHECKING:
    import jax

    from jaxsolve.core.layered import Layer


def objective_reward(points, objective: str, dtype, xp=None):
    """Immediate reward of a box filled with ``points`` under the objective (its ``reward``)."""
    reward = scalar_objective(objective).reward
    assert reward is not None  # a scalar objective has one (engine.objective.register)
    return reward(points, dtype, namespace(xp))


def objective_bonus(points, objective: str, dtype, xp=None):
    """Value of bonus points under the objective (its ``bonus``: the points for ``score``,
    nothing for ``goals``)."""
    bonus = scalar_objective(objective).bonus
    assert bonus is not None
    return bonus(points, dtype, namespace(xp))


CLOSED = -1e30  # value of a closed box in the fast path (finite, so one-hot products stay exact)


def _instant_bonus(points, box, rules: CategoryRules, xp=None):
    """Im-Hieb bonus for a box filled with ``points`` right after the first throw."""
    xp = namespace(xp)
    amount = xp.where(box == rules.all_same_box, rules.instant_all_same, rules.instant_other)
    return xp.where(points > 0, amount, 0)


def _next_values(values, state: EngineState, rules: CategoryRules, objective: str, xp=None):
    """The table look-ups of a turn's last step, once per state (normal scoring).

    Returns ``(upper_next, lower_next)``: ``upper_next[f, c, B]`` the value after filling upper
    box f with c dice showing its face (upper bonus included), ``lower_next[b - 6, B]`` after
    filling lower box b (all-same box: holding no points); ``CLOSED`` where the box may not be
    filled.
    """
    # Computed once per state, apart: else XLA would fuse the table look-ups into the [T, B]
    # loops that read them and repeat them for every throw.
    return dice.computed(functools.partial(_next_values_now, rules=rules, objective=objective, xp=xp), values, state, xp=xp)


def _next_values_now(values, state: EngineState, rules: CategoryRules, objective: str, xp=None):
    xp = namespace(xp)
    upper_index, lower_index, crossed = next_indices(state, rules, xp)
    may_fill = tables.fillable(state.filled[None, :], xp.arange(rules.num_boxes)[:, None], rules)
    lower_next = xp.where(may_fill[6:], values[lower_index], CLOSED)
    upper_next = values[upper_index] + objective_bonus(rules.upper_bonus * crossed, objective, values.dtype, xp)
    upper_next = xp.where(may_fill[:6, None, :], upper_next, CLOSED)
    return upper_next, lower_next


def next_indices(state: EngineState, rules: CategoryRules, xp=None):
    """Where each box leads, for a batch of states (normal scoring, closed boxes included).

    Returns ``(upper_index [6, dice + 1, B], lower_index [boxes - 6, B], crossed [6, dice + 1, B])``:
    the flat table index, at the class representative (``tables.canonical``), of the state after
    filling upper box f with c dice showing its face, or lower box b (the all-same box holding no
    points); ``crossed``: whether that upper fill earns the upper bonus.
    """
    xp = namespace(xp)
    cap = rules.upper_threshold
    nb = rules.num_boxes

    filled, upper, held = state

    def index(f, u, h):
        return tables.canonical(EngineState(f, u, h), rules).flat_index(rules)

    boxes = xp.arange(nb)[:, None]
    new_filled = filled[None, :] | (1 << boxes)
    lower_holds = held[None, :] * (xp.arange(6, nb) != rules.all_same_box)[:, None]
    faces = xp.arange(1, 7)
    up_next = xp.minimum(cap, upper[None, None, :] + (faces[:, None] * xp.arange(rules.dice + 1)[None, :])[:, :, None])
    crossed = (upper[None, None, :] < cap) & (up_next >= cap)
    return index(new_filled[:6, None, :], up_next, held[None, None, :]), index(new_filled[6:], upper[None, :], lower_holds), crossed


def option_rows(rules: CategoryRules) -> np.ndarray:
    """``[boxes, T]`` int32: the row of ``next_indices`` (upper rows flattened, then the lower
    ones) that filling each box after each throw reads: upper box f with c dice of its face
    ``f * (dice + 1) + c``, lower box b ``6 * (dice + 1) + b - 6``."""
    counts = tables.throw_counts(rules.dice)
    width = rules.dice + 1
    return np.stack([b * width + counts[b] if b < 6 else np.full(counts.shape[1], 6 * width + b - 6) for b in range(rules.num_boxes)]).astype(np.int32)


def _regular_options(values, state: EngineState, rules: CategoryRules, objective: str, first_throw: bool = False, xp=None, nexts=None):
    """One array ``[T, B]`` per box: value of filling it after each throw, normal scoring.

    Closed boxes are ``CLOSED`` (very negative). All-same throws (all dice showing one face) are handled by ``_all_same_options``.
    ``nexts``: ``_next_values`` when already computed.
    """
    upper_next, lower_next = nexts if nexts is not None else _next_values(values, state, rules, objective, xp)
    return _upper_options(upper_next, rules, objective, first_throw, xp) + _lower_options(lower_next, rules, objective, first_throw, xp)


def _rewards(rules: CategoryRules, objective: str, dtype, first_throw: bool, xp=None):
    """``[boxes, T]`` immediate reward of filling each box after each throw (normal scoring)."""
    scores = tables.throw_scores(rules)
    reward = objective_reward(scores, objective, dtype, xp)
    if first_throw:
        reward = reward + objective_bonus(_instant_bonus(scores, np.arange(rules.num_boxes)[:, None], rules, xp), objective, dtype, xp)
    return reward


def _upper_options(upper_next, rules: CategoryRules, objective: str, first_throw: bool = False, xp=None):
    """The upper boxes' ``[T, B]`` arrays of ``_regular_options``."""
    reward = _rewards(rules, objective, upper_next.dtype, first_throw, xp)
    counts = tables.throw_counts(rules.dice)
    return [upper_next[f, counts[f]] + reward[f][:, None] for f in range(6)]


def _lower_options(lower_next, rules: CategoryRules, objective: str, first_throw: bool = False, xp=None):
    """The lower boxes' ``[T, B]`` arrays of ``_regular_options``."""
    reward = _rewards(rules, objective, lower_next.dtype, first_throw, xp)
    return [reward[b][:, None] + lower_next[b - 6][None, :] for b in range(6, rules.num_boxes)]


class Moves(NamedTuple):
    """Every (box, throw) move of a batch of states, as arrays of one common shape.

    points: box points; extra: extra all-same bonus; upper_bonus: upper bonus earned by this
    move; next_state: flat index of the next state; allowed: legal and open.
    """

    points: jax.Array
    extra: jax.Array
    upper_bonus: jax.Array
    next_state: jax.Array
    allowed: jax.Array
    instant: jax.Array

    def values(self, values, objective: str, first_throw: bool = False, xp=None):
        """Immediate reward + value of the next state, ``-inf`` where not allowed."""
        xp = namespace(xp)
        return xp.where(self.allowed, self.reward(objective, values.dtype, first_throw, xp) + values[self.next_state], -xp.inf)

    def score(self, first_throw: bool = False):
        """Points each move adds to the score sheet: box points and every bonus it earns."""
        return self.points + self.extra + self.upper_bonus + (self.instant if first_throw else 0)

    def reward(self, objective: str, dtype, first_throw: bool = False, xp=None):
        """Immediate reward of each move (bonuses included for ``score``)."""
        bonus = self.extra + self.upper_bonus + (self.instant if first_throw else 0)
        return objective_reward(self.points, objective, dtype, xp) + objective_bonus(bonus, objective, dtype, xp)


def _all_same_moves(state: EngineState, rules: CategoryRules, xp=None) -> Moves:
    """Moves ``[6 faces, boxes, B]`` of placing all dice of one face, joker and bonus included."""
    xp = namespace(xp)
    filled, upper, held = state
    cap = rules.upper_threshold
    asb = rules.all_same_box
    boxes = xp.arange(rules.num_boxes)[None, :, None]
    face = xp.arange(6)[:, None, None]
    all_same_filled = ((filled >> asb) & 1 == 1)[None, None, :]
    upper_face_filled = ((filled[None, None, :] >> face) & 1) == 1
    holds = (held == 1)[None, None, :]
    base = xp.asarray(tables.throw_scores(rules)[:, tables.all_same_throws(rules.dice)].T)[:, :, None]
    if rules.joker == "none":
        joker = xp.zeros_like(upper_face_filled)
    elif rules.joker == "forced":
        joker = all_same_filled
    elif rules.joker == "free":
        joker = all_same_filled & upper_face_filled
    else:
        joker = holds
    points = xp.where(joker & (xp.asarray(tables.joker_points(rules)) > 0)[None, :, None], xp.asarray(tables.joker_points(rules))[None, :, None], base)

    allowed = tables.fillable(filled[None, None, :], boxes, rules)
    if rules.joker == "forced":
        is_open = ((filled[None, None, :] >> boxes) & 1) == 0
        any_lower_open = xp.any(is_open[:, 6:], axis=1, keepdims=True)
        forced = xp.where(~upper_face_filled, boxes == face, xp.where(any_lower_open, boxes >= 6, boxes < 6))
        allowed = allowed & (forced | ~all_same_filled)

    extra = rules.extra_bonus * (holds & (rules.bonus_on_scratch | (points > 0)))
    is_upper = boxes < 6
    up_next = xp.where(is_upper, xp.minimum(cap, upper[None, None, :] + points), upper[None, None, :])
    crossed = is_upper & (upper[None, None, :] < cap) & (up_next >= cap)
    holds_next = xp.where(boxes == asb, 1, held[None, None, :])
    nxt = tables.state_index(filled[None, None, :] | (1 << boxes), up_next, holds_next, rules)
    instant = _instant_bonus(points, boxes, rules, xp)
    shape = xp.broadcast_shapes(points.shape, allowed.shape, nxt.shape)
    parts = (points, extra, rules.upper_bonus * crossed, nxt, allowed, instant)
    return Moves(*(xp.broadcast_to(a, shape) for a in parts))


def _all_same_options(values, state: EngineState, rules: CategoryRules, objective: str, first_throw: bool = False, xp=None, nexts=None):
    """``[6 faces, boxes, B]`` values of placing all dice of one face, joker and bonus included.

    The next states are those of normal scoring (``_next_values``; a joker pays fixed points
    only in lower boxes, whose next state does not depend on the points) except the all-same
    box, which then holds its points: one more table look-up per state.
    """
    xp = namespace(xp)
    mv = _all_same_moves(state, rules, xp)
    if tables.joker_points(rules)[:6].any():  # a joker that changes an upper total: the moves' own next states
        after = values[tables.canonical_index(mv.next_state, rules)]
        return xp.where(mv.allowed, mv.reward(objective, values.dtype, first_throw, xp) + after, -xp.inf)
    upper_next, lower_next = nexts if nexts is not None else _next_values(values, state, rules, objective, xp)
    nb, asb = rules.num_boxes, rules.all_same_box
    # upper box b after all dice showing face f: b's count is dice if b == f, else 0
    same_face = np.eye(6, dtype=bool)[:, :, None]
    upper_after = xp.where(same_face, upper_next[None, :, rules.dice], upper_next[None, :, 0])
    asb_filled = state.filled | (1 << asb)
    held = values[tables.canonical(EngineState(asb_filled, state.upper, xp.ones_like(state.all_same_held)), rules).flat_index(rules)]
    lower = [held if b == asb else lower_next[b - 6] for b in range(6, nb)]
    after = xp.concatenate([upper_after, xp.broadcast_to(xp.stack(lower)[None], (6, nb - 6) + lower_next.shape[1:])], axis=1)
    bonus = mv.extra + (mv.instant if first_throw else 0)  # the upper bonus is in upper_next
    reward = objective_reward(mv.points, objective, values.dtype, xp) + objective_bonus(bonus, objective, values.dtype, xp)
    return xp.where(mv.allowed, reward + after, -xp.inf)


def moves(state: EngineState, rules: CategoryRules, xp=None) -> Moves:
    """All moves ``[boxes, T throws, B]`` of a batch of states (explicit, for analysis)."""
    xp = namespace(xp)
    filled, upper, held = state
    cap = rules.upper_threshold
    nb = rules.num_boxes
    boxes = xp.arange(nb)[:, None, None]
    points = xp.broadcast_to(xp.asarray(tables.throw_scores(rules))[:, :, None], (nb, tables.space(rules.dice).num_throws, filled.shape[0]))
    allowed = tables.fillable(filled[None, None, :], boxes, rules)
    is_upper = boxes < 6
    up_next = xp.where(is_upper, xp.minimum(cap, upper[None, None, :] + points), upper[None, None, :])
    crossed = is_upper & (upper[None, None, :] < cap) & (up_next >= cap)
    holds_next = xp.where(boxes == rules.all_same_box, 0, held[None, None, :])
    nxt = tables.state_index(filled[None, None, :] | (1 << boxes), up_next, holds_next, rules)
    zeros = xp.zeros_like(points)
    instant = _instant_bonus(points, boxes, rules, xp)
    regular = Moves(points, zeros, rules.upper_bonus * crossed + zeros, nxt + zeros, allowed | (zeros > 0), instant)
    if rules.all_same_box < 0:
        return regular
    same = _all_same_moves(state, rules, xp)
    cols = tables.all_same_throws(rules.dice)
    return Moves(*(set_at(r, (slice(None), cols), xp.swapaxes(f, 0, 1).astype(r.dtype), xp) for r, f in zip(regular, same)))


def chosen_moves(box, state: EngineState, rules: CategoryRules, xp=None) -> Moves:
    """The moves ``[T, B]`` that fill ``box[t, b]`` (one chosen box per throw and state)."""
    xp = namespace(xp)
    filled, upper, held = state
    cap = rules.upper_threshold
    sp = tables.space(rules.dice)
    points = xp.asarray(tables.throw_scores(rules))[box, xp.arange(sp.num_throws)[:, None]]
    is_upper = box < 6
    up_next = xp.where(is_upper, xp.minimum(cap, upper[None, :] + points), upper[None, :])
    crossed = is_upper & (upper[None, :] < cap) & (up_next >= cap)
    holds_next = xp.where(box == rules.all_same_box, 0, held[None, :])
    nxt = tables.state_index(filled[None, :] | (1 << box), up_next, holds_next, rules)
    allowed = tables.fillable(filled[None, :], box, rules)
    regular = Moves(points, xp.zeros_like(points), rules.upper_bonus * crossed, nxt, allowed, _instant_bonus(points, box, rules, xp))
    if rules.all_same_box < 0:
        return regular
    cols = tables.all_same_throws(rules.dice)
    same = _all_same_moves(state, rules, xp)
    same_box = box[cols][:, None, :]
    return Moves(*(set_at(r, cols, xp.take_along_axis(f, same_box, axis=1)[:, 0].astype(r.dtype), xp) for r, f in zip(regular, same)))


def box_options(values, state: EngineState, rules: CategoryRules, objective: str = "score", first_throw: bool = False, xp=None):
    """The values of ``option_values`` in parts, for consumers that fold over the boxes.

    Returns ``(regular, all_same)``: ``regular`` one ``[T, B]`` array per box (normal scoring for
    every throw; a closed box is about ``CLOSED``), ``all_same`` ``[6 faces, boxes, B]`` for the
    throws of all dice showing one face (``-inf`` where not allowed; ``None`` without an
    all-same box), which replace those throws' columns (``tables.all_same_throws``).
    """
    nexts = _next_values(values, state, rules, objective, xp)
    regular = _regular_options(values, state, rules, objective, first_throw, xp, nexts)
    if rules.all_same_box < 0:
        return regular, None
    return regular, _all_same_options(values, state, rules, objective, first_throw, xp, nexts)


def option_values(values, state: EngineState, rules: CategoryRules, objective: str = "score", first_throw: bool = False, xp=None):
    """Value of filling each box after each final throw, for a batch of states.

    Args:
        values: ``[states]`` flat value table (later layers filled in).
        state: the states, ``[B]`` int32 components.
    Returns:
        ``[boxes, T, B]`` immediate reward + value of the next state, ``-inf`` where not allowed
        (equal to ``moves(...).values(...)``, computed with fewer table look-ups).
    """
    xp = namespace(xp)
    nexts = _next_values(values, state, rules, objective, xp)
    out = xp.stack(_regular_options(values, state, rules, objective, first_throw, xp, nexts))
    out = xp.where(out <= CLOSED / 2, -xp.inf, out)
    if rules.all_same_box < 0:
        return out
    same = _all_same_options(values, state, rules, objective, first_throw, xp, nexts)
    return set_at(out, (slice(None), tables.all_same_throws(rules.dice)), xp.swapaxes(same, 0, 1), xp)


@functools.lru_cache(maxsize=None)
def _paying(rules: CategoryRules, objective: str, dtype_name: str, first_throw: bool):
    """Static tables of the sparse box pick: ``(rows, reward)``, each ``[T, L]``.

    For every throw, the boxes that pay for it (points > 0): ``rows`` indexes the stacked
    next-state values of ``_sparse_best`` (upper box f with c dice of its face: row
    ``f * (dice + 1) + c``; lower box b: row ``6 * (dice + 1) + b - 6``), ``reward`` is the
    immediate reward. Throws with fewer than ``L`` paying boxes are padded with the last row
    (the scratch value) and reward 0.
    """
    scores = tables.throw_scores(rules)
    reward = np.asarray(_rewards(rules, objective, np.dtype(dtype_name), first_throw, np))
    row_of = option_rows(rules)
    scratch = 6 * (rules.dice + 1) + rules.num_boxes - 6
    pays = scores > 0
    size = int(pays.sum(axis=0).max())
    rows = np.full((scores.shape[1], size), scratch, np.int32)
    paid = np.zeros((scores.shape[1], size), np.dtype(dtype_name))
    for t in range(scores.shape[1]):
        boxes = np.flatnonzero(pays[:, t])
        rows[t, : len(boxes)] = row_of[boxes, t]
        paid[t, : len(boxes)] = reward[boxes, t]
    return rows, paid


def _sparse_best(upper_next, lower_next, rules: CategoryRules, objective: str, first_throw: bool, xp=None):
    """``[T, B]`` best box value after each throw, normal scoring, from the boxes that pay only.

    Every reward is >= 0 and is 0 exactly where a box scores no points, so a box that pays
    nothing for a throw is worth its scratch value (filling it with 0), the same for every
    throw: the best is the larger of the best scratch value and the best paying box. The same
    maximum as over every box (a maximum is exact), with a third of Maxi Yatzy's options.
    """
    xp = namespace(xp)
    dtype = upper_next.dtype
    rows, paid = _paying(rules, objective, np.dtype(dtype).name, first_throw)
    batch = lower_next.shape[1:]

    def stacked(upper_next, lower_next):
        scratch = functools.reduce(xp.maximum, [upper_next[f, 0] for f in range(6)] + [lower_next[b] for b in range(lower_next.shape[0])])
        return xp.concatenate([upper_next.reshape((-1,) + batch), lower_next, scratch[None]], axis=0)

    table = dice.computed(stacked, upper_next, lower_next, xp=xp)
    scratch = table[-1][None]
    paid = xp.asarray(paid)
    return functools.reduce(xp.maximum, [scratch] + [paid[:, j][:, None] + table[rows[:, j]] for j in range(rows.shape[1])])


def final_throw_values(values, state: EngineState, rules: CategoryRules, objective: str = "score", first_throw: bool = False, xp=None, nexts=None):
    """``[T, B]`` value of filling the best box now (``first_throw``: Im-Hieb bonus included).

    ``nexts``: the states' ``_next_values`` when already computed."""
    xp = namespace(xp)
    if nexts is None:
        nexts = _next_values(values, state, rules, objective, xp)
    upper_next, lower_next = nexts
    best = _sparse_best(upper_next, lower_next, rules, objective, first_throw, xp)
    if rules.all_same_box < 0 or not rules.has_all_same_rules:
        # without joker or extra bonus an all-same throw scores like any other throw
        return best
    same = xp.max(_all_same_options(values, state, rules, objective, first_throw, xp, nexts), axis=1)
    return set_at(best, tables.all_same_throws(rules.dice), same, xp)


def turn_throw_values(values, state: EngineState, rules: CategoryRules, objective="score", *, expect="levels", subkeep="levels", xp=None):
    """``[throws, T, B]`` value of each throw with r re-throws left (r = 0..throws-1)."""
    xp = namespace(xp)
    sp = tables.space(rules.dice)
    current = final_throw_values(values, state, rules, objective, xp=xp)
    out = [current]
    for _ in range(rules.throws - 1):
        current = dice.reroll(sp, current, expect, subkeep, xp)
        out.append(current)
    if rules.has_instant_bonus:
        now = final_throw_values(values, state, rules, objective, first_throw=True, xp=xp)
        out[-1] = xp.maximum(out[-1], now)
    return xp.stack(out)


def state_values(values, state: EngineState, rules: CategoryRules, objective="score", *, expect="levels", subkeep="levels", xp=None):
    """``[B]`` value of each state at the start of a turn (before the first throw)."""
    xp = namespace(xp)
    sp = tables.space(rules.dice)
    current = final_throw_values(values, state, rules, objective, xp=xp)
    for _ in range(rules.throws - 1):
        current = dice.reroll(sp, current, expect, subkeep, xp)
    if rules.has_instant_bonus:
        now = final_throw_values(values, state, rules, objective, first_throw=True, xp=xp)
        current = xp.maximum(current, now)
    return dice.throw_mean(sp, current, xp)


@dataclass
class Solution:
    """Value of every state of one rule set and objective.

    ``values`` has shape ``[2**boxes filled masks, cap + 1 upper totals, 2 all-same-held flags]``;
    unreachable states are NaN.
    """

    rules: CategoryRules
    objective: str
    values: np.ndarray
    solve_seconds: float = 0.0
    compile_seconds: float = 0.0
    device: str = ""
    timings: dict = field(default_factory=dict)

    @property
    def game_value(self) -> float:
        return float(self.values[0, 0, 0])

    def value(self, filled: int = 0, upper: int = 0, all_same_held: int = 0) -> float:
        """Value of a state (start of a turn); NaN for an unreachable one.

        ``filled`` is a mask of filled boxes (see ``filled_mask``), ``upper`` the upper total.
        """
        if not 0 <= int(filled) < 1 << self.rules.num_boxes or upper < 0 or all_same_held not in (0, 1):
            raise JaxsolveError(f"not a state: filled={filled}, upper={upper}, all_same_held={all_same_held}")
        return float(self.values[int(filled), min(int(upper), self.rules.upper_threshold), int(all_same_held)])


def layers(rules: CategoryRules, first: int = 0) -> list[Layer]:
    """Layers of reachable states, last layer to ``first``: ``Layer(filled boxes, EngineState)``."""
    from jaxsolve.core.layered import Layer

    return [Layer(k, tables.layer_states(rules, k)) for k in range(rules.num_boxes - 1, first - 1, -1)]


def representative_layers(rules: CategoryRules) -> list[Layer]:
    """``layers`` with only each class's representative state (what the value solve computes)."""
    from jaxsolve.core.layered import Layer

    return [Layer(k, tables.representative_states(rules, k)) for k in range(rules.num_boxes - 1, -1, -1)]


def fill_classes(values: np.ndarray, rules: CategoryRules, inplace: bool = False) -> np.ndarray:
    """The flat value table with every reachable state given its representative's value
    (``inplace``: written into ``values`` itself, no copy)."""
    out = values if inplace else values.copy()
    targets, sources = tables.class_copies(rules)
    out[targets] = out[sources]
    return out


def value_step(rules: CategoryRules, objective: str, expect: str = "levels", subkeep: str = "levels"):
    """The per-chunk step of the value solve: ``(values, (), rows, *state) -> values`` with
    ``state`` the chunk's ``EngineState`` components (a ``SplitStep``: the states' values, then
    their writing into the table)."""
    from jaxsolve.core.layered import SplitStep

    def compute(values, operands, rows, *state):
        del operands, rows
        return state_values(values, EngineState(*state), rules, objective, expect=expect, subkeep=subkeep)

    def write(values, operands, rows, states, v):
        del operands, rows
        return values.at[EngineState(*states).flat_index(rules)].set(v)

    return SplitStep(compute, write)


def solve(
    rules: CategoryRules,
    objective: str = "score",
    *,
    dtype=None,
    chunk: int = 512,
    expect: str = "levels",
    subkeep: str = "levels",
    device=None,
    devices=None,
    on_layer: Callable[[int, int], None] | None = None,
    representatives: bool = True,
) -> Solution:
    """Solve the whole game by backward induction (the layered core with ``value_step``).

    Args:
        rules: the rule set.
        objective: ``score`` (expected final score) or ``goals`` (expected boxes met).
        dtype: float dtype of the values (default: float64 if x64 is enabled, else float32).
        chunk: states per compiled batch (one compilation per rules/objective/chunk/dtype/device
            and process; ``compile_seconds`` is 0 when it was already compiled); an accelerator
            takes at least its kind's floor (``layered.chunk_for``).
        expect, subkeep: which dice operators to use (see ``jaxsolve.core.dice``).
        device: a ``jax.Device``; default device if None.
        devices: the devices the layers are spread over (``jax.Device`` list, an int: the first
            n visible, ``"all"``: every visible device of ``device``'s platform), in the layered
            core's schedule for them (``layered.choose_schedule``: whole layers on CPU devices,
            one chunk stream per device on several accelerators). None: ``"all"`` on a CPU,
            whose devices are its cores once JAX shows several (``runtime.host_devices``, which
            the command line sets up), else ``device`` alone.
        on_layer: called as ``on_layer(layer, states)`` when a layer is done (progress).
        representatives: compute only one state of each class of equal-valued states
            (``tables.canonical``) and copy its value to the others; False computes every
            reachable state (the same values, slower; for tests).
    """
    import jax
    import jax.numpy as jnp

    from jaxsolve.core.layered import chunk_for, make_mesh, run_layers

    check_objective(objective)
    dtype = jnp.dtype(float_dtype(dtype))
    device = device or jax.devices()[0]
    if devices is None and device.platform == "cpu":
        devices = "all"
    if devices == "all":
        devices = jax.devices(device.platform)
    mesh = make_mesh(devices) if devices is not None else None
    if mesh is not None and mesh.devices.size == 1:
        device, mesh = mesh.devices.flat[0], None
    chunk = chunk_for(device, chunk)
    shape = tables.state_shape(rules)
    init = np.full(shape, np.nan, dtype=dtype)
    init[rules.full_mask] = 0.0
    values = jax.device_put(init.reshape(-1), device, may_alias=False)  # explicit: no implicit transfer in a solve
    del init
    run = run_layers(
        ("category-values", rules, objective, expect, subkeep),
        value_step(rules, objective, expect, subkeep),
        representative_layers(rules) if representatives else layers(rules),
        values,
        chunk=chunk,
        device=device,
        mesh=mesh,
        on_layer=on_layer,
    )
    out = np.array(jax.device_get(run.carry))
    seconds, compile_seconds, timings = run.seconds, run.compile_seconds, run.timings
    del run  # frees the device table before the host-side class fill
    if representatives:
        fill_classes(out, rules, inplace=True)
    where = ", ".join(str(d) for d in mesh.devices.flat) if mesh is not None else str(device)
    return Solution(rules, objective, out.reshape(shape), seconds, compile_seconds, where, timings)


def filled_mask(boxes, rules: CategoryRules | None = None) -> int:
    """Mask of filled boxes from box names (or aliases) or indices, in the sheet's order."""
    from jaxsolve.games.category.sheets.position import box_index

    mask = 0
    for b in boxes:
        mask |= 1 << box_index(b, rules)
    return mask
