"""The process cache of solved tables of a category game.

``solution`` solves the table of some rules and objective on demand, or loads it from the
solution store (``jaxsolve.io.cache``), once per process and dtype; ``cached_solution`` takes one
from this process or the store without ever solving (and without importing JAX); ``register``
adds one read from an export. ``flat_values`` and ``host_values`` hold each table flattened
(NaN -> 0) as the values of later states for a turn's arithmetic: on the device (JAX) or as a
NumPy array.
"""

from __future__ import annotations

import functools

import numpy as np

from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets.rules import CategoryRules, check_objective
from jaxsolve.core.arrays import float_dtype
from jaxsolve.io import cache


_SOLUTIONS: dict[tuple, solver.Solution] = {}
_FLAT: dict[int, tuple] = {}
_HOST: dict[int, tuple] = {}


def default_dtype_name() -> str:
    """``float64`` if JAX's x64 mode is on, else ``float32`` (imports JAX)."""
    return float_dtype().name


def _key(rules: CategoryRules, objective: str, dtype=None) -> tuple:
    return (rules, objective, np.dtype(dtype).name if dtype is not None else default_dtype_name())


def solution(rules: CategoryRules, objective: str = "score", *, game: str | None = None, device=None, dtype=None) -> solver.Solution:
    """The solved value table of ``rules``/``objective`` (once per process and dtype; with
    ``game``, the registered game, from that game's solution cache when it holds it, see
    ``jaxsolve.io.cache``). ``dtype``: ``float32`` or ``float64`` (default: JAX's x64 setting)."""
    from jaxsolve.games.category.engine import table_io

    check_objective(objective)
    key = _key(rules, objective, dtype)
    if key not in _SOLUTIONS:
        _SOLUTIONS[key] = table_io.solved(rules, objective, game=game, dtype=key[2], device=device)
    return _SOLUTIONS[key]


def cached_solution(rules: CategoryRules, objective: str = "score", dtype="float64", *, game: str | None = None) -> solver.Solution | None:
    """The solved table of ``rules``/``objective`` in ``dtype`` if this process or ``game``'s
    solution cache already holds it (loaded and checked as ``solution`` does), else None. Never
    solves and does not import JAX."""
    from jaxsolve.games.category.engine import table_io

    check_objective(objective)
    key = _key(rules, objective, dtype)
    if key not in _SOLUTIONS:
        sol = table_io.cached(rules, objective, game=game, dtype=key[2])
        if sol is None:
            return None
        _SOLUTIONS[key] = sol
    return _SOLUTIONS[key]


def adopt(sol: solver.Solution, dtype=None) -> solver.Solution:
    """Use ``sol`` (e.g. ``table_io.load_solution(path)``) for its rules and objective from now on,
    also where ``dtype`` (default: JAX's x64 setting) is asked for and no table is held yet."""
    _SOLUTIONS[(sol.rules, sol.objective, np.dtype(sol.values.dtype).name)] = sol
    _SOLUTIONS.setdefault(_key(sol.rules, sol.objective, dtype), sol)
    return sol


@functools.lru_cache(maxsize=8)
def _zeros(rules: CategoryRules, width: int, dtype_name: str):
    import jax.numpy as jnp

    shape = (int(np.prod(tables.state_shape(rules))),) + ((width,) if width else ())
    return jnp.zeros(shape, dtype_name)


def forget(sol: solver.Solution) -> None:
    """Let go of ``sol`` here (its entries and their flattened copies): the solution store has
    dropped it from memory (``cache.on_forget``), so that a bounded server frees it (the index
    arrays kept per rules go too: ``tables.forget_layouts``)."""
    for key in [k for k, v in list(_SOLUTIONS.items()) if v is sol]:
        del _SOLUTIONS[key]
    _FLAT.pop(id(sol), None)
    _HOST.pop(id(sol), None)


def _forgotten(key, sol) -> None:
    if isinstance(sol, solver.Solution):
        forget(sol)


cache.on_forget(_forgotten)


def flat_values(sol: solver.Solution | None, rules: CategoryRules, dtype=None):
    """Flat value table of later states: the solution's (NaN -> 0), or zeros for one turn alone
    (in ``dtype``, default JAX's x64 setting)."""
    import jax.numpy as jnp

    if sol is None:
        return _zeros(rules, 0, np.dtype(dtype).name if dtype is not None else default_dtype_name())
    key = id(sol)
    if key not in _FLAT or _FLAT[key][0] is not sol:
        _FLAT[key] = (sol, jnp.asarray(np.nan_to_num(sol.values.reshape(-1), nan=0.0), sol.values.dtype))
        cache.charge(sol, _FLAT[key][1].nbytes)  # counted against the table's memory limit (a server's)
    return _FLAT[key][1]


def host_values(sol: solver.Solution | None, rules: CategoryRules, dtype):
    """``flat_values`` as a NumPy array in ``dtype``, for the NumPy path."""
    dtype = np.dtype(dtype)
    if sol is None:
        return np.zeros(int(np.prod(tables.state_shape(rules))), dtype)
    key = id(sol)
    if key not in _HOST or _HOST[key][0] is not sol or _HOST[key][1].dtype != dtype:
        _HOST[key] = (sol, np.nan_to_num(sol.values.reshape(-1), nan=0.0).astype(dtype, copy=False))
        cache.charge(sol, _HOST[key][1].nbytes)
    return _HOST[key][1]
