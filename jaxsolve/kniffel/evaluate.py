"""Policy evaluation: quantities other than the optimised value, under the optimal policy.

Given a solved value table, every state is walked again (same layers, same chunks) choosing
what the optimal policy chooses (box: argmax, ties to the earlier box; keep: argmax, ties to
the keep with more dice), while carrying *channels* instead of one value:

* one channel per box: expected points (``score``) or probability of meeting it (``goals``)
  that the rest of the game puts into that box;
* upper bonus, extra-Kniffel bonus and Im-Hieb bonus (``score`` only);
* the second moment of the remaining total (for its standard deviation).

The first 16 channels sum to the state's value.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve import dice
from jaxsolve.core.layered import run_layers
from jaxsolve.kniffel import policy, solver, tables
from jaxsolve.kniffel.rules import KniffelRules

EXTRA_CHANNELS: tuple[str, ...] = ("upper_bonus", "extra_bonus", "instant_bonus", "second_moment")


def channels(rules: KniffelRules) -> tuple[str, ...]:
    """Channel names: one per box of the sheet, the three bonuses, the second moment."""
    return rules.box_names + EXTRA_CHANNELS


def _fill(aux, best, box, state, rules, objective: str, first_throw: bool):
    """Channels carried by the best box after each throw: ``[T, B, C]``."""
    dtype = best.dtype
    mv = solver.chosen_moves(box, *state, rules)
    pts = solver.objective_reward(mv.points, objective, dtype)
    bonus = solver.objective_bonus(jnp.stack([mv.upper_bonus, mv.extra, mv.instant * first_throw], -1), objective, dtype)
    reward = pts + bonus.sum(-1)
    after = aux[mv.next_state]
    immediate = jnp.concatenate([jax.nn.one_hot(box, rules.num_boxes, dtype=dtype) * pts[..., None], bonus], -1)
    first = immediate + after[..., :-1]
    mean_after = after[..., :-1].sum(-1)
    moment = reward**2 + 2 * reward * mean_after + after[..., -1]
    return best, jnp.concatenate([first, moment[..., None]], -1)


def throw_channels(values, aux, filled, upper, holds50, rules: KniffelRules, objective: str = "score", rolls_left: int | None = None, first_throw: bool | None = None):
    """``([T, B], [T, B, C])``: value and channels of every throw with ``rolls_left`` re-throws left.

    ``values``/``aux`` are the flat tables of later states. ``first_throw`` (default: when
    ``rolls_left == rules.rolls - 1``) offers the Im-Hieb fill of the turn's first throw.
    """
    rolls_left = rules.rolls - 1 if rolls_left is None else rolls_left
    first_throw = (rolls_left == rules.rolls - 1) if first_throw is None else first_throw
    instant = first_throw and rules.has_instant_bonus
    sp = tables.space(rules.dice)

    def fill(with_instant):
        best, box = policy.best_box(values, filled, upper, holds50, rules, objective, with_instant)
        return _fill(aux, best, box, (filled, upper, holds50), rules, objective, with_instant)

    best, chan = fill(instant and rolls_left == 0)
    for _ in range(rolls_left):
        keep_best = dice.expect_keeps(sp, best)
        keep_chan = dice.expect_keeps(sp, chan)
        best, arg = policy.best_keep(sp, keep_best)
        chan = jnp.take_along_axis(keep_chan, jnp.broadcast_to(arg[..., None], arg.shape + (keep_chan.shape[-1],)), axis=0)
    if instant and rolls_left > 0:
        now, now_chan = fill(True)
        better = policy.fill_now_wins(now, best)
        best = jnp.where(better, now, best)
        chan = jnp.where(better[..., None], now_chan, chan)
    return best, chan


def turn_channels(values, aux, filled, upper, holds50, rules: KniffelRules, objective: str = "score", rolls: int | None = None):
    """``([B], [B, C])``: value and channels of states at the start of a turn.

    ``rolls`` overrides the throws of this turn only (e.g. 1 = no re-throw in this turn).
    """
    rolls = rules.rolls if rolls is None else rolls
    best, chan = throw_channels(values, aux, filled, upper, holds50, rules, objective, rolls - 1, first_throw=True)
    sp = tables.space(rules.dice)
    return dice.throw_mean(sp, best), dice.throw_mean(sp, chan)


@dataclass
class Evaluation:
    """Channels of every state under the optimal policy: ``channels[filled, upper, holds50, C]``."""

    solution: solver.Solution
    channels: np.ndarray

    def at(self, filled: int = 0, upper: int = 0, holds50: int = 0) -> dict[str, float]:
        row = self.channels[filled, min(upper, self.solution.rules.upper_threshold), holds50]
        return dict(zip(channels(self.solution.rules), (float(x) for x in row)))

    def mean(self, filled: int = 0, upper: int = 0, holds50: int = 0) -> float:
        row = self.channels[filled, min(upper, self.solution.rules.upper_threshold), holds50]
        return float(row[:-1].sum())

    def sd(self, filled: int = 0, upper: int = 0, holds50: int = 0) -> float:
        row = self.channels[filled, min(upper, self.solution.rules.upper_threshold), holds50]
        mean = row[:-1].sum()
        return float(np.sqrt(max(row[-1] - mean**2, 0.0)))


def evaluate(solution: solver.Solution, *, chunk: int = 512, on_layer=None) -> Evaluation:
    """Per-box split, bonuses and second moment of every state under the solution's policy."""
    rules, objective = solution.rules, solution.objective
    dtype = solution.values.dtype
    shape = solution.values.shape
    values = jnp.asarray(np.nan_to_num(solution.values.reshape(-1), nan=0.0), dtype)
    aux = jnp.zeros((values.shape[0], len(channels(rules))), dtype)

    def step(aux, values, rows, filled, upper, holds50):
        del rows
        _, chan = turn_channels(values, aux, filled, upper, holds50, rules, objective)
        return aux.at[tables.state_index(filled, upper, holds50, rules)].set(chan)

    run = run_layers(("kniffel-evaluate", rules, objective), step, solver.layers(rules), aux, values, chunk=chunk, on_layer=on_layer)
    aux = run.carry
    out = np.array(aux).reshape(shape + (len(channels(rules)),))
    out[np.isnan(solution.values)] = np.nan
    return Evaluation(solution, out)
