"""The one compile cache: every jitted program of jaxsolve is lowered and compiled here once.

A program is named by a hashable key (its function, the rules and every static setting) and
the abstract shapes, dtypes and shardings of its arguments. ``compiled`` returns the
executable and the seconds spent compiling it now (0.0 when it came from the cache), so every
caller reports compile time apart from run time.

The cache holds at most ``MAX_PROGRAMS`` programs, dropping the least recently used: each
compiled CPU program maps about twenty memory regions, and a process that keeps thousands of
them (a server answering many rule sets, a long test run) reaches Linux's limit of 65,530
mappings, where the next compile dies with a segmentation fault inside XLA.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, Callable, Hashable

import jax

MAX_PROGRAMS = 1000
"""Programs the cache keeps (least recently used dropped first)."""

_CACHE: OrderedDict = OrderedDict()


def _spec_key(spec: Any) -> tuple:  # a pytree of ShapeDtypeStruct
    leaves, treedef = jax.tree_util.tree_flatten(spec)
    return (treedef,) + tuple((tuple(x.shape), str(x.dtype), getattr(x, "sharding", None)) for x in leaves)


def abstract(tree: Any, sharding: jax.sharding.Sharding | None = None) -> Any:
    """``ShapeDtypeStruct``s of a pytree of arrays (optionally with one sharding for all)."""

    def one(x: Any) -> jax.ShapeDtypeStruct:
        return jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=sharding if sharding is not None else getattr(x, "sharding", None))

    return jax.tree_util.tree_map(one, tree)


def compiled(key: Hashable, fn: Callable, *specs: Any, **jit_options: Any) -> tuple[jax.stages.Compiled, float]:
    """``(executable, compile_seconds)`` of ``jax.jit(fn, **jit_options)`` for argument ``specs``.

    ``specs`` are pytrees of ``jax.ShapeDtypeStruct`` (see ``abstract``); ``jit_options`` are
    passed to ``jax.jit`` (``donate_argnums``, ``in_shardings``, ``out_shardings``) and are
    part of the key.
    """
    full = (key, tuple(_spec_key(s) for s in specs), tuple(sorted((k, repr(v)) for k, v in jit_options.items())))
    hit = _CACHE.get(full)
    if hit is not None:
        _CACHE.move_to_end(full)
        return hit, 0.0
    t0 = time.perf_counter()
    exe = jax.jit(fn, **jit_options).lower(*specs).compile()
    _CACHE[full] = exe
    while len(_CACHE) > MAX_PROGRAMS:
        _CACHE.popitem(last=False)
    return exe, time.perf_counter() - t0


def clear() -> None:
    """Drop every program of the cache and JAX's own caches of traced and compiled functions
    (their memory and mappings are freed once nothing else holds them)."""
    _CACHE.clear()
    jax.clear_caches()


def cache_size() -> int:
    """Number of programs compiled in this process (tests check that a second solve adds none)."""
    return len(_CACHE)
