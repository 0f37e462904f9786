"""Zehntausend (10,000): one turn, maximise the expected turn score E(p, n).

The game (rules as values; by default those of D. Peter, "Optimale Strategie für das
Würfelspiel Zehntausend", 2013, preset ``peter-2013``):

* a throw ``w`` of ``n`` dice with no scoring die is a bust: the turn ends with 0 points;
* otherwise the player writes (``p + W(w)``) or sets aside a usable subset ``u`` and throws
  the other ``n - |u|`` dice; with all six used (``n = 0``) she throws six again or stops.

``E(p, n)`` is the optimal expected final score when holding ``p`` turn points and having
decided to throw ``n`` dice (``n = 0``: all six were used, throw six again or write ``p``).
All scores are multiples of 50, so ``p`` lives on the grid ``50 * level``.

Every set-aside adds at least 50 points, so ``E(p, .)`` only depends on ``E(p', .)`` with
``p' > p`` (the one same-``p`` link ``E(p, 0) = max(p, E(p, 6))`` is resolved inside a level).
Above ``p_top = max_n Delta_n / P0_n`` (``Delta_n``: expected ``W`` of one throw, ``P0_n``:
probability of a bust) stopping after the next throw is a fixed point of the optimality
equation, so there ``E(p, n) = (1 - P0_n) p + Delta_n`` exactly. The solver starts from that
closed form on the first grid level at or above ``p_top`` and runs one ``lax.scan`` down to
``p = 0``; each scan step solves one whole level (all ``n`` and all throws) as array operations.

The throw tables ``W``/``V`` live in ``scoring``; the advisor in ``advisor``, the export of
``E`` in ``table_io`` and the figure in ``plot``.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.compile import abstract, compiled
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.rules import DICE, PRESETS, STEP, ZehntausendRules
from jaxsolve.games.zehntausend.scoring import ScoringTables, build_tables
from jaxsolve.core.arrays import float_dtype


@functools.partial(jax.jit, static_argnames=("levels", "height"))
def _solve_levels(row_prob, row_n, write, gather, valid, closed_slope, closed_offset, *, levels: int, height: int):
    """``E[level, n]`` for ``level < height``: closed form from ``levels`` up, scan below.

    Args:
        row_prob, row_n, write: ``[R]`` per throw.
        gather: ``[R, U]`` index into the flattened window ``E[level + 1 : level + D + 1, :]``.
        valid:  ``[R, U]``.
        closed_slope, closed_offset: ``[7]`` ``E(p, n) = slope * p + offset`` above the top.
    """
    dtype = closed_slope.dtype
    p_all = STEP * jnp.arange(height, dtype=dtype)
    table = p_all[:, None] * closed_slope[None, :] + closed_offset[None, :]
    span = (height - levels) * (DICE + 1)
    by_n = jax.nn.one_hot(row_n - 1, DICE, dtype=dtype).T * row_prob[None, :]
    write = write.astype(dtype)
    neg = jnp.asarray(-jnp.inf, dtype)

    def level_step(table, level):
        p = STEP * level.astype(dtype)
        window = jax.lax.dynamic_slice(table, (level + 1, 0), (height - levels, DICE + 1)).reshape(span)
        go_on = jnp.max(jnp.where(valid, window[gather], neg), axis=1)
        turn = jnp.where(write > 0, jnp.maximum(p + write, go_on), 0.0)
        e = by_n @ turn
        row = jnp.concatenate([jnp.maximum(p, e[DICE - 1 :]), e])
        return jax.lax.dynamic_update_slice(table, row[None, :], (level, 0)), None

    table, _ = jax.lax.scan(level_step, table, jnp.arange(levels - 1, -1, -1))
    return table


@dataclass(frozen=True, eq=False)
class Solution:
    """``E(p, n)`` on the grid ``p = 50 * level``, ``level < E.shape[0]``, ``n = 0..6``.

    Attributes:
        rules: the rule set.
        E: ``[levels, 7]`` optimal expected final turn score.
        top_level: first level solved in closed form (``50 * top_level >= max_n Delta_n/P0_n``).
        tables: the ``W``/``V`` tables used.
        compile_seconds, solve_seconds: timings of the jitted solve; device: where it ran.
    """

    rules: ZehntausendRules
    E: np.ndarray
    top_level: int
    tables: ScoringTables
    compile_seconds: float = 0.0
    solve_seconds: float = 0.0
    device: str = ""

    @property
    def points(self) -> np.ndarray:
        return STEP * np.arange(self.E.shape[0])

    def value(self, p: int, n: int) -> float:
        """``E(p, n)`` for any multiple of 50 (closed form above the grid)."""
        check_points(p)
        if not 0 <= n <= DICE:
            raise JaxsolveError(f"number of dice must be 0..{DICE}, got {n}")
        level = p // STEP
        if level < self.E.shape[0]:
            return float(self.E[level, n])
        if n == 0:
            return float(p)
        return float((1 - self.tables.bust_probability(n)) * p + self.tables.delta(n))

    def thresholds(self) -> dict[int, int]:
        """``p_n``: the first multiple of 50 with ``E(p, n) <= p`` (go on only below it)."""
        gain = self.E[:, 1:] - self.points[:, None]
        return {n: int(self.points[np.argmax(gain[:, n - 1] <= 0)]) for n in range(1, DICE + 1)}

    @property
    def p6(self) -> int:
        return self.thresholds()[DICE]

    @property
    def game_value(self) -> float:
        """The registry's headline value: ``E(0, 6)``."""
        return self.turn_value

    @property
    def turn_value(self) -> float:
        """``E(0, 6)``: the expected points of a turn played optimally."""
        return float(self.E[0, DICE])


def check_points(p) -> int:
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 0 or p % STEP:
        raise JaxsolveError(f"points must be a non-negative multiple of {STEP}, got {p}")
    return int(p)


def kernel_inputs(tables: ScoringTables, top_level: int, height: int, dtype) -> tuple[tuple, dict]:
    """Arguments of the jitted level scan for these tables and grid."""
    offset = tables.opt_points // STEP
    if (offset[tables.opt_valid] < 1).any():
        raise JaxsolveError("every set-aside must score at least 50")
    reach = int(offset.max())
    if height < top_level + reach + 1:
        raise JaxsolveError(f"grid of {height} levels is too short for top level {top_level}")
    next_n = tables.row_n[:, None] - tables.opt_dice
    gather = np.where(tables.opt_valid, (offset - 1) * (DICE + 1) + next_n, 0)
    slope = [1.0] + [float(1 - tables.bust_probability(n)) for n in range(1, DICE + 1)]
    offs = [0.0] + [float(tables.delta(n)) for n in range(1, DICE + 1)]
    args = (  # host arrays: the solve places them explicitly
        np.asarray(tables.row_prob, dtype),
        np.asarray(tables.row_n, np.int32),
        np.asarray(tables.write, np.int32),
        np.asarray(gather, np.int32),
        np.asarray(tables.opt_valid),
        np.asarray(slope, dtype),
        np.asarray(offs, dtype),
    )
    return args, {"levels": top_level, "height": height}


def _compiled_scan(args: tuple, static: dict):
    """The compiled level scan for these shapes, dtypes, grid and device (the shared compile cache)."""

    def run(*arrays):
        return _solve_levels(*arrays, **static)

    return compiled(("zehntausend-levels", tuple(sorted(static.items()))), run, *(abstract(a) for a in args))


def solve(
    rules: ZehntausendRules | None = None,
    *,
    top_level: int | None = None,
    extra_levels: int = 0,
    device: jax.Device | None = None,
    dtype=None,
) -> Solution:
    """Solve ``E(p, n)`` for all multiples of 50 and ``n = 0..6``.

    Args:
        rules: the rule set (default: ``peter-2013``).
        top_level: first grid level taken in closed form; default (and the only correct
            choice from below) ``ceil(max_n Delta_n / P0_n / 50)``. A higher one checks
            self-consistency, a lower one gives a (wrong) truncated game.
        extra_levels: closed-form levels kept beyond the reach of the highest scan step.
        device: where to compute (default: JAX's default device).
        dtype: float dtype (default float64 if x64 is on, else float32).
    """
    rules = rules or PRESETS["peter-2013"]
    tables = build_tables(rules)
    if top_level is None:
        top_level = math.ceil(tables.top / STEP)
    reach = int(tables.opt_points.max()) // STEP
    height = top_level + reach + 1 + extra_levels
    dtype = jnp.dtype(float_dtype(dtype))
    device = device or jax.devices()[0]
    args, static = kernel_inputs(tables, top_level, height, dtype)
    args = jax.device_put(args, device)
    exe, compile_seconds = _compiled_scan(args, static)
    t0 = time.perf_counter()
    E = exe(*args).block_until_ready()
    return Solution(rules, np.asarray(E), top_level, tables, compile_seconds, time.perf_counter() - t0, str(device))
