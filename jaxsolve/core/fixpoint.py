"""The fixpoint core: repeat a sweep to a tolerance, for games whose states form cycles.

``fixpoint`` is a ``lax.while_loop`` that applies ``sweep(values, operands)`` until the
max-norm change of one sweep is at most ``tol`` or ``max_iter`` sweeps were made, and returns
the values, the number of sweeps and the last change. ``solve_fixpoint`` compiles it once per
sweep and shapes (through the shared compile cache), checks the tolerance first and raises
``NotConvergedError`` when the cap is hit before the tolerance: a value that did not
converge is never returned as a result.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Hashable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.compile import abstract, compiled
from jaxsolve.errors import JaxsolveError


class NotConvergedError(JaxsolveError):
    """The iteration cap was reached before the tolerance."""


class FixpointResult(NamedTuple):
    values: jax.Array
    iterations: jax.Array  # sweeps made
    residual: jax.Array  # max-norm change of the last sweep


def check_tolerance(tol: Any) -> float:
    """``tol`` as a float if it is a positive finite number; ``JaxsolveError`` otherwise."""
    try:
        value = float(tol)
    except (TypeError, ValueError):
        raise JaxsolveError(f"tolerance must be a positive finite number, got {tol!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise JaxsolveError(f"tolerance must be a positive finite number, got {tol!r}")
    return value


def fixpoint(sweep: Callable[[jax.Array, Any], jax.Array], init: jax.Array, operands: Any, tol: jax.Array | float, max_iter: int) -> FixpointResult:
    """Apply ``sweep(values, operands)`` until the max-norm change is <= ``tol`` or ``max_iter`` sweeps."""

    def cond(state: FixpointResult) -> jax.Array:
        return (state.residual > tol) & (state.iterations < max_iter)

    def body(state: FixpointResult) -> FixpointResult:
        new = sweep(state.values, operands)
        return FixpointResult(new, state.iterations + 1, jnp.max(jnp.abs(new - state.values)))

    inf = jnp.asarray(jnp.inf, init.dtype)
    return jax.lax.while_loop(cond, body, FixpointResult(init, jnp.asarray(0, jnp.int32), inf))


class FixpointRun(NamedTuple):
    values: jax.Array
    iterations: int
    residual: float
    compile_seconds: float
    solve_seconds: float


def solve_fixpoint(key: Hashable, sweep: Callable[[jax.Array, Any], jax.Array], init: jax.Array, operands: Any, *, tol: float, max_iter: int) -> FixpointRun:
    """Run ``fixpoint`` compiled once per ``key`` (naming ``sweep``), shapes and ``max_iter``.

    Raises ``JaxsolveError`` for a tolerance that is not a positive finite number or a cap
    below 1, and ``NotConvergedError`` when ``max_iter`` sweeps leave a change above ``tol``.
    """
    tol = check_tolerance(tol)
    if int(max_iter) < 1:
        raise JaxsolveError(f"the iteration cap must be >= 1, got {max_iter}")
    max_iter = int(max_iter)
    tol_arr = jax.device_put(np.asarray(tol, init.dtype), init.sharding)  # explicit transfers only

    def run(values: jax.Array, ops: Any, tolerance: jax.Array) -> FixpointResult:
        return fixpoint(sweep, values, ops, tolerance, max_iter)

    exe, compile_seconds = compiled(("fixpoint", key, max_iter), run, abstract(init), abstract(operands), abstract(tol_arr))
    t0 = time.perf_counter()
    out = jax.block_until_ready(exe(init, operands, tol_arr))
    solve_seconds = time.perf_counter() - t0
    iterations, residual = (x.item() for x in jax.device_get((out.iterations, out.residual)))
    if not residual <= tol:
        raise NotConvergedError(
            f"no convergence: {iterations} sweeps (the cap) left a change of {residual:.3g} > tolerance {tol:.3g}; "
            "raise the iteration cap or the tolerance"
        )
    return FixpointRun(out.values, iterations, residual, compile_seconds, solve_seconds)
