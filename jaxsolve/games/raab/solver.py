"""Pig-family dice duels (Schlag den Raab, Pig, Piglet): exact win probabilities by a JAX fixpoint.

One die; the player to move rolls, a *bust* face loses the turn total and passes the turn, any
other face adds its points; after a roll that did not bust the player may roll again or stop
and bank. A turn starts with a roll. With the *last-turn* rule (Schlag den Raab) the start
player's reaching the goal gives the other one a last turn, and ties at or above the goal go
on; without it (Pig) the first to bank the goal wins at once.

State, from the view of the player to decide (``TS/MSP/MAP/TSP`` as in "Würfeln bei Schlag den
Raab", stefan-taube.de)::

    ts   [T]  1 if the other player started (T = 2 with the last-turn rule, else T = 1)
    msp  [M]  my banked score 0..M-1        (M = goal + 1 with the last-turn rule, else goal)
    s    [S]  my banked score plus turn total, MSP + MAP, 0..top + max_points
    tsp  [N]  their banked score 0..top     (top = bound with the last-turn rule, else goal - 1)

When both banked scores are >= goal only their difference matters, so such a state is lowered
by the same amount until the smaller is the goal; after this reduction (and leaving out states
where the game is over) ``msp <= goal`` always, which is why M stops at goal + 1.

The cyclic part of the game (busts pass the turn back and forth) is a fixpoint over the
turn-start values ``W[ts, msp, tsp]``. One sweep evaluates a whole turn for every state at
once: a ``lax.scan`` over the total ``s`` from the top down (rolling only raises ``s``), with
the opponent's turn-start values of the previous iterate giving the bust and bank outcomes.
Sweeps repeat in the race-duel core's sweep driver (``jaxsolve.core.race``, on the
fixpoint core) until the max-norm change is at most ``tol``; the bust pairs are solved by the
engine's ``pair_solve``. The sweep driver rather than the engine's layered one: with the
last-turn rule, ties at or above the goal lower both banked scores, so the banked sum is not
monotone. The
result satisfies the one-roll Bellman equations (``bellman``) of the whole state array.

The advisor lives in ``advisor``, the export in ``table_io``, the one-turn tables and claims of
the source page in ``source_tables`` and the figures in ``plot``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.race import RaceSolution, pair_solve, solve_sweeps
from jaxsolve.games.raab.rules import PigRules

ROLL, STOP, NONE = 1, 0, -1

Table = np.ndarray | jax.Array  # built on the host, placed on the device by the solve


# ---------------------------------------------------------------------------------------------
# Transition tables (static, built once per rule set with NumPy; whole grids, no loops)


class SweepTables(NamedTuple):
    """Outcomes as ``c0 + c1 * W.flat[idx]`` of the turn-start values ``W [T, M, N]``."""

    term_mask: Table  # [T, M, N] game over at the start of this turn
    term_val: Table  # [T, M, N] my win probability there (0 or 1)
    bust_idx: Table  # [T, M, N]
    bust_c0: Table
    bust_c1: Table
    stop_idx: Table  # [S, T, N] (does not depend on my banked score)
    stop_c0: Table
    stop_c1: Table
    weights: Table  # [F] probability to add k + 1 points


def terminal(rules: PigRules, ts, m, t):
    """``(over, value)``: whether the game is over at turn start ``(ts, m, t)`` and who won."""
    ts, m, t = np.broadcast_arrays(ts, m, t)
    g = rules.goal
    if not rules.last_turn:
        return (m >= g) | (t >= g), (m >= g).astype(float)
    start_over = (ts == 0) & (((m < g) & (t >= g)) | ((m >= g) & (t < g)) | ((m >= g) & (t >= g) & (m != t)))
    start_val = (m >= g) & ((t < g) | (m > t))
    other_over = (ts == 1) & (m >= g) & ((t < g) | (m > t))
    return start_over | other_over, np.where(ts == 0, start_val, True).astype(float)


def reduce_scores(rules: PigRules, m, t):
    """Lower both scores by the same amount until the smaller is the goal (when both >= goal)."""
    m, t = np.broadcast_arrays(np.asarray(m), np.asarray(t))
    g = rules.goal
    d = np.where((m >= g) & (t >= g), np.minimum(m, t) - g, 0) if rules.last_turn else 0
    return m - d, t - d


def _lookup(rules: PigRules, ts, x, y):
    """Turn-start state ``(ts, x, y)`` as ``(c0, c1, idx)``: value = c0 + c1 * W.flat[idx]."""
    over, val = terminal(rules, ts, x, y)
    x, y = reduce_scores(rules, x, y)
    n_t, n_m, _, n_n = rules.shape
    idx = (np.asarray(ts) * n_m + np.minimum(x, n_m - 1)) * n_n + np.minimum(y, rules.top)
    return np.where(over, val, 0.0), np.where(over, 0.0, 1.0), np.where(over, 0, idx)


def _opponent(rules: PigRules, ts):
    return 1 - ts if rules.last_turn else ts


def build_tables(rules: PigRules, dtype=jnp.float64) -> SweepTables:
    n_t, n_m, n_s, n_n = rules.shape
    g = rules.goal
    ts, m, t = np.meshgrid(np.arange(n_t), np.arange(n_m), np.arange(n_n), indexing="ij")
    over, val = terminal(rules, ts, m, t)

    c0, c1, bidx = _lookup(rules, _opponent(rules, ts), t, m)
    bc0, bc1 = 1.0 - c0, -c1
    if rules.last_turn:
        last = (ts == 1) & (t >= g)
        bc0, bc1 = np.where(last, 0.0, bc0), np.where(last, 0.0, bc1)

    s, ts2, t2 = np.meshgrid(np.arange(n_s), np.arange(n_t), np.arange(n_n), indexing="ij")
    c0, c1, sidx = _lookup(rules, _opponent(rules, ts2), t2, s)
    sc0, sc1 = 1.0 - c0, -c1
    if rules.last_turn:
        last = (ts2 == 1) & (t2 >= g)
        win = ((ts2 == 1) & (t2 < g) & (s >= g)) | (last & (s > t2))
        lose = last & (s < t2)
    else:
        win, lose = s >= g, np.zeros_like(s, dtype=bool)
    sc0 = np.where(win, 1.0, np.where(lose, 0.0, sc0))
    sc1 = np.where(win | lose, 0.0, sc1)

    f = functools.partial(np.asarray, dtype=dtype)  # host arrays: the solve places them explicitly
    i32 = functools.partial(np.asarray, dtype=np.int32)
    return SweepTables(np.asarray(over), f(val), i32(bidx), f(bc0), f(bc1), i32(sidx), f(sc0), f(sc1), f(rules.weights))


# ---------------------------------------------------------------------------------------------
# The sweep: one whole turn for every state, and the fixpoint over turn-start values


def _bust_values(W, tab: SweepTables):
    return tab.bust_c0 + tab.bust_c1 * W.reshape(-1)[tab.bust_idx]  # [T, M, N]


def _turn(W, tab: SweepTables, rules: PigRules, collect: bool, unroll: int = 4):
    """Evaluate one turn for every state given the opponent's turn-start values ``W``.

    Returns the turn-start values ``[T, M, N]``, their sensitivity ``beta`` to this state's own
    bust value (the probability to bust before stopping under the chosen decisions) and, if
    ``collect``, the per-total arrays ``(V, roll, stop)`` each ``[S, T, M, N]`` in ascending
    ``s``. The carry holds the next ``max_points`` slabs as tuples, so shifting copies nothing.
    """
    n_t, n_m, n_s, n_n = rules.shape
    flat = W.reshape(-1)
    roll_base = rules.bust_prob * _bust_values(W, tab)
    m_idx = jnp.arange(n_m)[None, :, None]
    shape = (n_t, n_m, n_n)
    weights = [(k, tab.weights[k]) for k, w in enumerate(rules.weights) if w > 0]

    def start_row(dst, src, s):
        row = jnp.minimum(s, n_m - 1)
        fresh = jnp.where(s < n_m, jax.lax.dynamic_slice_in_dim(src, row, 1, axis=1), jax.lax.dynamic_slice_in_dim(dst, row, 1, axis=1))
        return jax.lax.dynamic_update_slice_in_dim(dst, fresh, row, axis=1)

    def step(carry, x):
        window, beta_window, new_w, new_beta = carry
        s, idx, c0, c1 = x
        stop = (c0 + c1 * flat[idx])[:, None, :]
        roll, beta = roll_base, rules.bust_prob
        for k, w in weights:
            roll = roll + w * window[k]
            beta = beta + w * beta_window[k]
        stops = (m_idx < s) & (stop >= roll) | (s > rules.top)
        value = jnp.where(tab.term_mask, tab.term_val, jnp.where(stops, stop, roll))
        beta = jnp.where(stops | tab.term_mask, 0.0, beta)
        out = (value, roll, jnp.broadcast_to(stop, shape)) if collect else None
        carry = ((value,) + window[:-1], (beta,) + beta_window[:-1], start_row(new_w, value, s), start_row(new_beta, beta, s))
        return carry, out

    zeros = tuple(jnp.zeros(shape, W.dtype) for _ in range(rules.max_points))
    xs = (jnp.arange(n_s - 1, -1, -1), tab.stop_idx[::-1], tab.stop_c0[::-1], tab.stop_c1[::-1])
    (_, _, new_w, beta), ys = jax.lax.scan(step, (zeros, zeros, W, jnp.zeros_like(W)), xs, unroll=unroll)
    if collect:
        ys = tuple(y[::-1] for y in ys)
    return new_w, beta, ys


def sweep(W, tab: SweepTables, rules: PigRules):
    """One sweep: a whole turn for every state, then each bust pair solved exactly.

    A bust at ``(ts, msp, tsp)`` leads to the opponent's ``(ts', tsp, msp)`` and back, the only
    short cycle of the game. With the decisions of this turn fixed, each turn-start value is
    affine in its partner's, ``W = a + k * W[partner]`` (``k = -beta``), so the pair is solved
    in closed form, ``W = (a + k a_p) / (1 - k k_p)``; bank outcomes still use the previous
    iterate. A fixpoint of this map is a fixpoint of the plain turn evaluation.
    """
    partner = W.reshape(-1)[tab.bust_idx]
    value, beta, _ = _turn(W, tab, rules, collect=False)
    flat = pair_solve(value.reshape(-1), (beta * tab.bust_c1).reshape(-1), partner.reshape(-1), tab.bust_idx.reshape(-1))
    return flat.reshape(W.shape)


def _sweep_of(rules: PigRules):
    """``sweep`` with the rules bound: ``(W, tab) -> W`` as the fixpoint core takes it."""
    return functools.partial(_bound_sweep, rules=rules)


def _bound_sweep(W, tab: SweepTables, rules: PigRules):
    return sweep(W, tab, rules)


@functools.partial(jax.jit, static_argnames=("rules",))
def turn_arrays(W, tab: SweepTables, rules: PigRules):
    """Whole-state arrays ``[T, M, S, N]`` from turn-start values: value, roll value, stop value."""
    _, _, (value, roll, stop) = _turn(W, tab, rules, collect=True)
    return tuple(jnp.moveaxis(a, 0, 2) for a in (value, roll, stop))


@functools.partial(jax.jit, static_argnames=("rules",))
def bellman(V, tab: SweepTables, rules: PigRules):
    """One Jacobi sweep of the one-roll Bellman equations over the whole array ``V [T, M, S, N]``.

    Independent of the turn scan: every state looks one roll ahead into ``V`` itself.
    Entries with ``s < msp`` (no such state) are returned unchanged.
    """
    n_t, n_m, n_s, n_n = rules.shape
    diag = jnp.arange(n_m)
    W = V[:, diag, diag, :]
    stop = jnp.moveaxis(tab.stop_c0 + tab.stop_c1 * W.reshape(-1)[tab.stop_idx], 0, 1)[:, None]
    padded = jnp.concatenate([V, jnp.zeros(V.shape[:2] + (rules.max_points,) + V.shape[3:], V.dtype)], axis=2)
    ahead = sum(tab.weights[k] * padded[:, :, k + 1 : k + 1 + n_s] for k in range(rules.max_points))
    roll = rules.bust_prob * _bust_values(W, tab)[:, :, None, :] + ahead
    s = jnp.arange(n_s)[None, None, :, None]
    m = jnp.arange(n_m)[None, :, None, None]
    best = jnp.where(s > m, jnp.maximum(roll, stop), roll)
    new = jnp.where(s <= rules.top, best, stop)
    new = jnp.where(tab.term_mask[:, :, None, :], tab.term_val[:, :, None, :], new)
    return jnp.where(s < m, V, new)


# ---------------------------------------------------------------------------------------------
# Public entry points


@dataclass(frozen=True, eq=False)
class PigSolution(RaceSolution):
    """Solved game: turn-start win probabilities ``start [T, M, N]`` and run facts."""

    rules: PigRules
    iterations: int

    def run_facts(self) -> dict:
        return {"iterations": self.iterations}


def default_tol(dtype) -> float:
    return 1e-12 if jnp.dtype(dtype) == jnp.float64 else 1e-6


def solve(
    rules: PigRules,
    *,
    tol: float | None = None,
    max_iter: int = 10_000,
    device: jax.Device | None = None,
    dtype=None,
) -> PigSolution:
    """Win probabilities of every turn-start state under optimal play by both players."""
    from jaxsolve.core.arrays import float_dtype

    dtype = jnp.dtype(float_dtype(dtype))
    tol = default_tol(dtype) if tol is None else tol
    device = device or jax.devices()[0]
    n_t, n_m, _, n_n = rules.shape
    with jax.default_device(device):
        tab = jax.device_put(build_tables(rules, dtype), device)
        W0 = jax.device_put(np.full((n_t, n_m, n_n), 0.5, dtype), device)
        run = solve_sweeps(("pig", rules), _sweep_of(rules), W0, tab, tol=tol, max_iter=max_iter)
    return PigSolution.of_run(run, rules=rules, start=np.asarray(run.values), tol=tol, dtype=dtype, device=device, iterations=run.iterations)


@dataclass(frozen=True)
class FullSolution:
    """Every state: ``value``, ``roll``, ``stop`` ``[T, M, S, N]`` and ``policy`` (1 roll, 0 stop, -1 none)."""

    rules: PigRules
    value: np.ndarray
    roll: np.ndarray
    stop: np.ndarray
    policy: np.ndarray


def full(sol: PigSolution) -> FullSolution:
    """All mid-turn values, both options and the optimal decision, from a solved game."""
    rules = sol.rules
    tab = build_tables(rules, sol.start.dtype)
    value, roll, stop = (np.asarray(a) for a in turn_arrays(jnp.asarray(sol.start), tab, rules))
    n_t, n_m, n_s, n_n = rules.shape
    s = np.arange(n_s)[None, None, :, None]
    m = np.arange(n_m)[None, :, None, None]
    over = np.asarray(tab.term_mask)[:, :, None, :]
    roll_best = (s == m) | (roll > stop)
    policy = np.where(roll_best, ROLL, STOP).astype(np.int8)
    policy = np.where((s < m) | (s > rules.top) | over, NONE, policy).astype(np.int8)
    value = np.where(s < m, np.nan, value)
    stop = np.where((s <= m) | over, np.nan, stop)
    roll = np.where((s < m) | (s > rules.top) | over, np.nan, roll)
    return FullSolution(rules, value, roll, stop, policy)
