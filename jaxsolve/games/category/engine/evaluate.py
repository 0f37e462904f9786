"""Policy evaluation: quantities other than the optimised value, under the optimal policy.

Given a solved value table, every state is walked again (same layers, same chunks) choosing
what the optimal policy chooses (box: argmax, ties to the earlier box; keep: argmax, ties to
the keep with more dice), while carrying *channels* instead of one value:

* one channel per box: expected points (``score``) or probability of meeting it (``goals``)
  that the rest of the game puts into that box;
* upper bonus, extra all-same bonus and Im-Hieb bonus (``score`` only);
* the second moment of the remaining total (for its standard deviation).

All channels but the last sum to the state's value.

Two walks give them: ``evaluate`` goes backward over every state (channels of all states);
``forward`` goes forward from one position over the states the policy reaches with positive
probability (channels of that position only, much faster: ``analysis.breakdown`` uses it).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core import dice
from jaxsolve.errors import JaxsolveError
from jaxsolve.core.layered import Layer, SplitStep, make_mesh, real_rows, run_layers
from jaxsolve.games.category.engine import policy, solver, tables
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.rules import CategoryRules

EXTRA_CHANNELS: tuple[str, ...] = ("upper_bonus", "extra_bonus", "instant_bonus", "second_moment")


MOMENT_CHANNELS: tuple[str, ...] = ("total", "second_moment")


def channels(rules: CategoryRules, split: bool = True) -> tuple[str, ...]:
    """Channel names: one per box of the sheet, the three bonuses, the second moment; without
    ``split`` only the total and the second moment (the mean and SD of every state in a
    twelfth of the memory for a 20-box sheet)."""
    return rules.box_names + EXTRA_CHANNELS if split else MOMENT_CHANNELS


def _fill(aux, best, box, state: EngineState, rules, objective: str, first_throw: bool, split: bool = True):
    """Channels carried by the best box after each throw: ``[T, B, C]``."""
    dtype = best.dtype
    mv = solver.chosen_moves(box, state, rules)
    pts = solver.objective_reward(mv.points, objective, dtype)
    bonus = solver.objective_bonus(jnp.stack([mv.upper_bonus, mv.extra, mv.instant * first_throw], -1), objective, dtype)
    reward = pts + bonus.sum(-1)
    width = len(channels(rules, split))
    after = jnp.zeros(mv.next_state.shape + (width,), dtype) if aux is None else aux[tables.canonical_index(mv.next_state, rules)]
    if split:
        immediate = jnp.concatenate([jax.nn.one_hot(box, rules.num_boxes, dtype=dtype) * pts[..., None], bonus], -1)
    else:
        immediate = reward[..., None]
    first = immediate + after[..., :-1]
    mean_after = after[..., :-1].sum(-1)
    moment = reward**2 + 2 * reward * mean_after + after[..., -1]
    return best, jnp.concatenate([first, moment[..., None]], -1)


def throw_channels(values, aux, state: EngineState, rules: CategoryRules, objective: str = "score", throws_left: int | None = None, first_throw: bool | None = None, split: bool = True):
    """``([T, B], [T, B, C])``: value and channels of every throw with ``throws_left`` re-throws left.

    ``values``/``aux`` are the flat tables of later states (``aux=None``: no channels after
    this turn, the turn's own split only). ``first_throw`` (default: when
    ``throws_left == rules.throws - 1``) offers the Im-Hieb fill of the turn's first throw.
    """
    throws_left = rules.throws - 1 if throws_left is None else throws_left
    first_throw = (throws_left == rules.throws - 1) if first_throw is None else first_throw
    instant = first_throw and rules.has_instant_bonus
    sp = tables.space(rules.dice)
    if not split and not rules.has_all_same_rules:
        return _moment_throws(values, aux, state, rules, objective, throws_left, instant)

    def fill(with_instant):
        best, box = policy.best_box(values, state, rules, objective, with_instant)
        return _fill(aux, best, box, state, rules, objective, with_instant, split)

    best, chan = fill(instant and throws_left == 0)
    for _ in range(throws_left):
        keep_best = dice.expect_keeps(sp, best)
        keep_chan = dice.expect_keeps(sp, chan)
        best, arg = policy.best_keep(sp, keep_best)
        chan = jnp.take_along_axis(keep_chan, jnp.broadcast_to(arg[..., None], arg.shape + (keep_chan.shape[-1],)), axis=0)
    if instant and throws_left > 0:
        now, now_chan = fill(True)
        better = policy.fill_now_wins(now, best)
        best = jnp.where(better, now, best)
        chan = jnp.where(better[..., None], now_chan, chan)
    return best, chan


def _after_rows(values, aux, state, rules: CategoryRules, objective: str):
    """Per state, what filling each box leads to: ``([rows, B] option values, [rows, B, 3])``.

    Rows as ``solver.next_indices`` (upper box f with c dice of its face: ``f * (dice + 1) + c``,
    then the lower boxes; ``solver.option_rows``); the option value is the next state's value plus the upper bonus
    earned (``CLOSED`` where the box may not be filled); the three columns are the next state's
    mean and second moment (``aux``) and the upper bonus. One table look-up per row and state
    instead of one per throw.
    """
    filled = state.filled
    dtype = values.dtype
    nb, width = rules.num_boxes, rules.dice + 1
    upper_index, lower_index, crossed = solver.next_indices(state, rules)
    nxt = jnp.concatenate([upper_index.reshape(-1), lower_index.reshape(-1)])
    rows = 6 * width + nb - 6
    boxes = jnp.arange(nb)[:, None]
    may_fill = jnp.concatenate([jnp.repeat(tables.fillable(filled[None, :], boxes[:6], rules), width, axis=0), tables.fillable(filled[None, :], boxes[6:], rules)])
    bonus = solver.objective_bonus(rules.upper_bonus * crossed, objective, dtype)
    bonus = jnp.concatenate([bonus.reshape(6 * width, -1), jnp.zeros((nb - 6,) + bonus.shape[2:], dtype)])
    option = jnp.where(may_fill, values[nxt].reshape(rows, -1) + bonus, solver.CLOSED)
    after = jnp.zeros((rows, filled.shape[0], 2), dtype) if aux is None else aux[nxt].reshape(rows, -1, 2)
    return option, jnp.concatenate([after, bonus[..., None]], -1)


def _pick_rows(option, rules: CategoryRules, objective: str, first_throw: bool):
    """``([T, B] value, [T, B] row, [T, B] reward)`` of the policy's box after each throw, from
    ``_after_rows``'s option values: the earliest box within the tolerance of the best."""
    dtype = option.dtype
    reward = np.asarray(solver._rewards(rules, objective, dtype, first_throw, np))
    row_of = solver.option_rows(rules)

    def options(option):
        return [option[row_of[b]] + jnp.asarray(reward[b], dtype)[:, None] for b in range(rules.num_boxes)]

    def near(option):
        best = functools.reduce(jnp.maximum, options(option))
        return best - policy.tolerance(best)

    def earliest(option, near):
        box = jnp.zeros(near.shape, jnp.int32)
        for b, opt in reversed(list(enumerate(options(option)))):
            box = jnp.where(opt >= near, b, box)
        return box

    # each apart: one pass each instead of XLA repeating the options per output
    box = dice.computed(earliest, option, dice.computed(near, option))
    throw = jnp.arange(row_of.shape[1])[:, None]
    row = jnp.asarray(row_of)[box, throw]
    paid = jnp.asarray(reward, dtype)[box, throw]
    value = option[row, jnp.arange(row.shape[1])[None, :]] + paid
    return value, row, paid


def _moment_fill(values, aux, state, rules: CategoryRules, objective: str, first_throw: bool):
    """``([T, B], ([T, B], [T, B]))``: the policy's box after each throw (``policy.best_box``: the
    earliest box within the tolerance of the best) with its value, and the mean and second
    moment of the rest of the game."""
    option, after = dice.computed(lambda v, a, *st: _after_rows(v, a, tables.EngineState(*st), rules, objective), values, aux, *state)
    value, row, paid = dice.computed(lambda o: _pick_rows(o, rules, objective, first_throw), option)
    cols = jnp.arange(row.shape[1])[None, :]
    mean_after, moment_after, bonus = (after[..., i][row, cols] for i in range(3))
    points = paid + bonus
    return value, (points + mean_after, points**2 + 2 * points * mean_after + moment_after)


def _moment_throws(values, aux, state, rules: CategoryRules, objective: str, throws_left: int, instant: bool):
    """``throw_channels`` without the per-box split, for rules where an all-same throw scores
    like any other: the box and the keeps chosen by the same policy, the mean and second moment
    carried through the keep choice (``dice.best_subkeep_carry``) instead of gathered by index."""
    sp = tables.space(rules.dice)
    best, chan = _moment_fill(values, aux, state, rules, objective, instant and throws_left == 0)
    tol = policy.rtol(best.dtype)
    for _ in range(throws_left):
        best, chan = dice.best_subkeep_carry(sp, dice.expect_keeps(sp, best), tuple(dice.expect_keeps(sp, c) for c in chan), tol)
    if instant and throws_left > 0:
        now, now_chan = _moment_fill(values, aux, state, rules, objective, True)
        better = policy.fill_now_wins(now, best)
        best = jnp.where(better, now, best)
        chan = tuple(jnp.where(better, a, b) for a, b in zip(now_chan, chan))
    return best, jnp.stack(chan, -1)


def turn_channels(values, aux, state: EngineState, rules: CategoryRules, objective: str = "score", throws: int | None = None, split: bool = True):
    """``([B], [B, C])``: value and channels of states at the start of a turn.

    ``throws`` overrides the throws of this turn only (e.g. 1 = no re-throw in this turn).
    """
    throws = rules.throws if throws is None else throws
    best, chan = throw_channels(values, aux, state, rules, objective, throws - 1, first_throw=True, split=split)
    sp = tables.space(rules.dice)
    return dice.throw_mean(sp, best), dice.throw_mean(sp, chan)


@dataclass
class Evaluation:
    """Channels of every state under the optimal policy: ``channels[filled, upper, all_same_held, C]``."""

    solution: solver.Solution
    channels: np.ndarray
    split: bool = True

    def at(self, filled: int = 0, upper: int = 0, all_same_held: int = 0) -> dict[str, float]:
        row = self.channels[filled, min(upper, self.solution.rules.upper_threshold), all_same_held]
        return dict(zip(channels(self.solution.rules, self.split), (float(x) for x in row)))

    def mean(self, filled: int = 0, upper: int = 0, all_same_held: int = 0) -> float:
        row = self.channels[filled, min(upper, self.solution.rules.upper_threshold), all_same_held]
        return float(row[:-1].sum())

    def sd(self, filled: int = 0, upper: int = 0, all_same_held: int = 0) -> float:
        row = self.channels[filled, min(upper, self.solution.rules.upper_threshold), all_same_held]
        mean = row[:-1].sum()
        return float(np.sqrt(max(row[-1] - mean**2, 0.0)))


def evaluate(solution: solver.Solution, *, split: bool = True, chunk: int = 512, devices=None, on_layer=None) -> Evaluation:
    """Per-box split, bonuses and second moment of every state under the solution's policy
    (``split=False``: only the total and the second moment). ``devices``: the devices that
    share each layer (a list, or 1; default: every CPU device on a CPU); on a CPU one program
    per layer loops over its chunks (the layered core's whole-layer mode).

    Like the value solve, it computes one state per class of equal-valued states (those states
    have the same future, so the same channels) and copies the rows to the others.
    """
    rules, objective = solution.rules, solution.objective
    dtype = solution.values.dtype
    shape = solution.values.shape
    width = len(channels(rules, split))
    values = jnp.asarray(np.nan_to_num(solution.values.reshape(-1), nan=0.0), dtype)
    aux = jnp.zeros((values.shape[0], width), dtype)

    def compute(aux, values, rows, *state):
        del rows
        return turn_channels(values, aux, EngineState(*state), rules, objective, split=split)[1]

    def write(aux, values, rows, states, chan):
        del values, rows
        return aux.at[EngineState(*states).flat_index(rules)].set(chan)

    if devices is None:  # on a CPU, every CPU device takes a share of each layer (``runtime.host_devices``)
        devices = jax.devices("cpu") if jax.devices()[0].platform == "cpu" else 1
    mesh = make_mesh(devices) if devices != 1 else None
    mesh = mesh if mesh is not None and mesh.devices.size > 1 else None
    run = run_layers(
        ("category-evaluate", rules, objective, split), SplitStep(compute, write), solver.representative_layers(rules), aux, values,
        chunk=chunk, mesh=mesh, on_layer=on_layer,
    )
    out = np.array(jax.device_get(run.carry))
    del run  # frees the device table before the host-side class fill
    solver.fill_classes(out, rules, inplace=True)
    out = out.reshape(shape + (width,))
    out[np.isnan(solution.values)] = np.nan
    return Evaluation(solution, out, split)


# ----------------------------------------------------------------------------- forward


@dataclass
class Forward:
    """Channels of one position under the optimal policy, from a forward walk.

    ``channels`` ``[C]`` is what ``Evaluation`` holds for one state (per box, bonuses, second
    moment of the remaining total); ``states`` the number of states the policy reaches (and
    that were evaluated), ``seconds`` the walk without compiling, ``compile_seconds`` apart.
    """

    solution: solver.Solution
    channels: np.ndarray
    states: int
    seconds: float
    compile_seconds: float
    timings: dict

    def at(self) -> dict[str, float]:
        return dict(zip(channels(self.solution.rules), (float(x) for x in self.channels)))

    def mean(self) -> float:
        return float(self.channels[:-1].sum())

    def sd(self) -> float:
        mean = self.channels[:-1].sum()
        return float(np.sqrt(max(self.channels[-1] - mean**2, 0.0)))


def forward_step(rules: CategoryRules, objective: str, throws_left: int | None = None):
    """The per-chunk step of the forward walk: ``((reach, totals), (values, start), rows, *state)``.

    ``reach[s] = (P, A)``: the probability that the game reaches state s (start of a turn) and
    the expected points scored before it on those games (``E[S; s]``); ``totals`` ``[C]``: the
    channels summed so far. A turn from s ends on throw t with the policy's box: reward r,
    next state n, probability ``q[t]``; it adds ``q P`` to ``P[n]``, ``q (A + r P)`` to
    ``A[n]``, ``q P`` times its points to the box and bonus totals, and ``q (r^2 P + 2 r A)``
    to the second moment of the final total. ``start`` (None: a fresh turn) is the throw
    showing, with ``throws_left`` re-throws left.
    """
    nb = rules.num_boxes

    def step(carry, operands, rows, *components):
        state = EngineState(*components)
        reach, totals = carry
        values, start = operands
        dtype = values.dtype
        idx = state.flat_index(rules)
        here = jnp.where(real_rows(rows)[:, None], reach[idx], 0)
        p, a = here[:, 0], here[:, 1]
        for q, box, first_throw in policy.end_of_turn(values, state, rules, objective, start, throws_left):
            mv = solver.chosen_moves(box, state, rules)
            pts = solver.objective_reward(mv.points, objective, dtype)
            bonus = [solver.objective_bonus(x, objective, dtype) for x in (mv.upper_bonus, mv.extra, mv.instant * first_throw)]
            reward = pts + sum(bonus)
            w, wa = q * p[None], q * a[None]
            per_box = jax.ops.segment_sum((w * pts).reshape(-1), box.reshape(-1), num_segments=nb)
            rest = [jnp.sum(w * x) for x in bonus] + [jnp.sum(w * reward**2 + 2 * reward * wa)]
            totals = totals + jnp.concatenate([per_box, jnp.stack(rest)])
            reach = reach.at[mv.next_state].add(jnp.stack([w, wa + w * reward], -1))
        return reach, totals

    return step


def forward(
    solution: solver.Solution,
    filled: int = 0,
    upper: int = 0,
    all_same_held: int = 0,
    *,
    throw: int | None = None,
    throws_left: int | None = None,
    chunk: int = 512,
    on_layer=None,
) -> Forward:
    """Per-box split, bonuses and second moment of the rest of the game from one position.

    The same channels as ``evaluate`` gives for every state, for one position only: the
    probability of reaching each state under the optimal policy (``policy.end_of_turn``) is
    carried forward over the layers, and only states reached with a positive probability are
    evaluated. ``throw`` (index into ``tables.space(rules.dice)``'s throws) with ``throws_left``
    re-throws left starts mid-turn; without it the position is at the start of a turn.
    ``chunk``: states per compiled batch.
    """
    t0 = time.perf_counter()
    rules, objective = solution.rules, solution.objective
    dtype = solution.values.dtype
    start_state = EngineState(int(filled), min(int(upper), rules.upper_threshold), int(all_same_held))
    if not 0 <= start_state[0] < rules.full_mask or start_state[1] < 0 or start_state[2] not in (0, 1) or np.isnan(solution.values[start_state]):
        raise JaxsolveError(f"not a reachable state with a box open: filled={filled}, upper={upper}, all_same_held={all_same_held}")
    sp = tables.space(rules.dice)
    if throw is not None and not 0 <= int(throw) < sp.num_throws:
        raise JaxsolveError(f"throw must be an index 0..{sp.num_throws - 1}, got {throw}")
    values = jnp.asarray(np.nan_to_num(solution.values.reshape(-1), nan=0.0), dtype)
    size = values.shape[0]
    origin = int(start_state.flat_index(rules))
    carry = (jnp.zeros((size, 2), dtype).at[origin, 0].set(1.0), jnp.zeros(len(channels(rules)), dtype))
    layer = bin(start_state[0]).count("1")
    compile_seconds, states = 0.0, 0
    timings: dict = {}
    if throw is not None:
        throws_left = rules.throws - 1 if throws_left is None else int(throws_left)
        start = jnp.zeros(sp.num_throws, dtype).at[int(throw)].set(1.0)
        one = tuple(np.asarray([x], np.int32) for x in start_state)
        run = run_layers(
            ("category-forward-throw", rules, objective, throws_left),
            forward_step(rules, objective, throws_left),
            [Layer(layer, one)], carry, (values, start), chunk=1,
        )
        carry, compile_seconds = run.carry, run.compile_seconds
        timings[f"{layer} (mid-turn)"] = run.timings[layer]
        states, layer = 1, layer + 1
    step = forward_step(rules, objective)
    for k in range(layer, rules.num_boxes):
        f, u, h = tables.layer_states(rules, k)
        prob = np.asarray(carry[0][:, 0])
        reached = prob[np.asarray(tables.state_index(f.astype(np.int64), u, h, rules))] > 0
        plan = [Layer(k, (f[reached], u[reached], h[reached]))]
        run = run_layers(("category-forward", rules, objective), step, plan, carry, (values, None), chunk=chunk, on_layer=on_layer)
        carry = run.carry
        compile_seconds += run.compile_seconds
        timings[k] = run.timings[k]
        states += int(reached.sum())
    totals = np.asarray(carry[1])
    return Forward(solution, totals, states, time.perf_counter() - t0 - compile_seconds, compile_seconds, timings)
