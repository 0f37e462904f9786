"""The one optimal turn policy of category games, with one tie rule.

Given a table of start-of-turn state values, a turn's decisions are: after the last throw
(or when filling early), which box to fill; with re-throws left, which dice to keep; with an
Im-Hieb bonus, whether to fill right after the first throw. Simulation, policy evaluation,
score distributions and the advisor all take their decisions from here.

**Tie rule.** Two options whose values differ by at most ``tol = rtol * max(1, |v|)``
(``rtol`` = 1e-9 in float64, 1e-5 in float32; see ``RTOL``) are tied, and ties are decided by
preference: ending the turn (filling a box now) before re-throwing, a keep with more dice
before one with fewer, an earlier box of the sheet before a later one. Options are compared in
that order and a less preferred option is chosen only if it is better by more than ``tol``.
The tolerance absorbs float rounding, so the choice does not depend on it.

``rank_with_ties`` applies the same rule to a list of options in plain Python (the advisor,
the batch answers); the array functions take ``xp`` (``jaxsolve.core.arrays``): traced with
JAX by default (imported on first use), or run eagerly with NumPy (``xp=numpy``: the opponents'
score distributions of a win-probability answer without JAX, ``distribution.distribution_numpy``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

import numpy as np

from jaxsolve.core import dice
from jaxsolve.core.arrays import namespace, set_at
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.rules import CategoryRules

if TYPE_CHECKING:
    import jax

RTOL = {"float64": 1e-9, "float32": 1e-5}


def rtol(dtype) -> float:
    """Relative tie tolerance of a float dtype."""
    return RTOL.get(np.dtype(dtype).name, 1e-5)


def tolerance(value, xp=None):
    """Absolute tie tolerance around ``value`` (an array of the values' dtype)."""
    xp = namespace(xp)
    return rtol(value.dtype) * xp.maximum(1.0, xp.abs(value))


def best_box(values, state: EngineState, rules: CategoryRules, objective: str = "score", first_throw: bool = False, xp=None):
    """``(value, box)`` ``[T, B]`` after each throw: the earliest box within the tolerance of the best.

    Folds over the boxes (``solver.box_options``) instead of stacking ``[boxes, T, B]``: the
    same choice as ranking ``solver.option_values``, without materializing it.
    """
    xp = namespace(xp)
    regular, same = solver.box_options(values, state, rules, objective, first_throw, xp=xp)
    value, box = _earliest_near_best(regular, xp)
    if same is None:
        return value, box
    same_value, same_box = _earliest_near_best(list(xp.moveaxis(same, 1, 0)), xp)
    cols = tables.all_same_throws(rules.dice)
    return set_at(value, cols, same_value, xp), set_at(box, cols, same_box, xp)


def _earliest_near_best(options, xp=None):
    """``(value, index)`` of the first option within the tolerance of the best, elementwise."""
    xp = namespace(xp)
    best = functools.reduce(xp.maximum, options)
    near = best - tolerance(best, xp)
    value, box = best, xp.zeros(best.shape, xp.int32)
    for b in range(len(options) - 1, -1, -1):
        take = options[b] >= near
        value = xp.where(take, options[b], value)
        box = xp.where(take, xp.int32(b), box)
    return value, box


def best_keep(space, keep_values, xp=None):
    """``(value, keep)`` for every throw: the best contained keep, ties to more dice (see module)."""
    return dice.best_subkeep_arg(space, keep_values, rtol(keep_values.dtype), xp=xp)


def fill_now_wins(now, rethrow, xp=None):
    """Im-Hieb choice: filling after the first throw wins ties against re-throwing."""
    return now >= rethrow - tolerance(rethrow, xp)


class TurnDecisions(NamedTuple):
    """The optimal decisions of one turn for a batch of states (``T`` throws, ``B`` states).

    keep: ``[throws - 1, T, B]`` keep index after a throw with ``r + 1`` re-throws left (row r).
    box: ``[T, B]`` box filled after the last throw.
    fill_now: ``[T, B]`` (Im-Hieb rules) fill right after the first throw instead of re-throwing.
    box_now: ``[T, B]`` the box filled then.
    values: ``[throws, T, B]`` value of each throw with r re-throws left (row r).
    """

    keep: jax.Array
    box: jax.Array
    fill_now: jax.Array
    box_now: jax.Array
    values: jax.Array


def optimal_turn(values, state: EngineState, rules: CategoryRules, objective: str = "score", xp=None) -> TurnDecisions:
    """The turn decisions of the optimal policy for ``values`` (flat start-of-turn table)."""
    xp = namespace(xp)
    sp = tables.space(rules.dice)
    current, box = best_box(values, state, rules, objective, rules.throws == 1 and rules.has_instant_bonus, xp)
    stages, keeps = [current], []
    for _ in range(rules.throws - 1):
        current, arg = best_keep(sp, dice.expect_keeps(sp, current, xp=xp), xp)
        stages.append(current)
        keeps.append(arg)
    keep = xp.stack(keeps) if keeps else xp.zeros((0,) + box.shape, xp.int32)
    if rules.has_instant_bonus and rules.throws > 1:
        now, box_now = best_box(values, state, rules, objective, first_throw=True, xp=xp)
        fill_now = fill_now_wins(now, current, xp)
        stages[-1] = xp.where(fill_now, now, current)
    else:
        fill_now, box_now = xp.zeros(box.shape, bool), box
    return TurnDecisions(keep, box, fill_now, box_now, xp.stack(stages))


def end_of_turn(values, state: EngineState, rules: CategoryRules, objective: str = "score", start=None, throws_left: int | None = None, xp=None):
    """Where the optimal turn ends: ``[(q [T, B], box [T, B], first_throw)]``.

    ``q[t, b]`` is the probability that the turn of state b is decided on throw t with box
    ``box[t, b]``; with an Im-Hieb bonus a first entry (``first_throw`` True) holds the stops
    right after the first throw. ``start`` ``[T]`` or ``[T, B]`` is the distribution of the
    throw showing with ``throws_left`` re-throws left (default: a fresh turn, ``throws - 1``).
    The throw distribution is pushed through the chosen keep of every re-throw
    (``dice.rethrow_mass``).
    """
    xp = namespace(xp)
    sp = tables.space(rules.dice)
    dtype = values.dtype
    throws_left = rules.throws - 1 if throws_left is None else int(throws_left)
    if not 0 <= throws_left < rules.throws:
        raise ValueError(f"throws_left must be in 0..{rules.throws - 1}, got {throws_left}")
    turn = optimal_turn(values, state, rules, objective, xp)
    B = state.filled.shape[0]
    p = xp.asarray(sp.throw_prob, dtype) if start is None else xp.asarray(start, dtype)
    p = xp.broadcast_to(p.reshape((sp.num_throws, -1)), (sp.num_throws, B))
    out = []
    first = throws_left == rules.throws - 1
    if first and throws_left > 0 and rules.has_instant_bonus:
        out.append((xp.where(turn.fill_now, p, 0), turn.box_now, True))
        p = xp.where(turn.fill_now, 0, p)
    cols = xp.broadcast_to(xp.arange(B)[None, :], (sp.num_throws, B))
    for r in range(throws_left - 1, -1, -1):
        mass = _scatter_add(xp.zeros((sp.num_keeps, B), dtype), (turn.keep[r], cols), p, xp)
        p = dice.rethrow_mass(sp, mass, xp=xp)
    out.append((p, turn.box, rules.throws == 1))
    return out


def _scatter_add(x, index, value, xp):
    """``x`` with ``value`` added at ``index`` (repeated indices add up)."""
    if xp is np:
        np.add.at(x, index, value)
        return x
    return x.at[index].add(value)


def rank_with_ties(items: Sequence[tuple[float, Any, Any]], dtype) -> list:
    """Order ``(value, preference key, option)`` items best first under the tie rule.

    The best remaining value and every option within its tolerance form a group, ordered by
    the preference key (smaller = preferred); groups follow each other by value.
    """
    r = rtol(dtype)
    rest = sorted(items, key=lambda it: -it[0])
    out = []
    while rest:
        top = rest[0][0]
        tol = r * max(1.0, abs(top))
        group = [it for it in rest if it[0] >= top - tol]
        rest = [it for it in rest if it[0] < top - tol]
        out += [it[2] for it in sorted(group, key=lambda it: it[1])]
    return out
