"""One array code, two namespaces: ``jax.numpy`` or NumPy.

The turn arithmetic of the category engine (``jaxsolve.kniffel.solver``) and the dice operators
(``jaxsolve.dice``) take ``xp``: ``None`` (the default) is ``jax.numpy``, traced inside the
compiled solve, evaluation and batch programs; ``numpy`` runs the same lines eagerly, which is
how one situation is answered from a cached table without importing JAX
(``jaxsolve.games.category.advisor.advise``). JAX is imported here on first use only, so a module
that imports this one does not load JAX.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np


def namespace(xp=None):
    """``xp`` if given, else ``jax.numpy``."""
    if xp is not None:
        return xp
    import jax.numpy as jnp

    return jnp


def set_at(x, index, value, xp):
    """``x`` with ``x[index] = value``: ``x.at[index].set(value)`` in JAX, a changed copy in NumPy."""
    if xp is np:
        out = np.array(x, copy=True)
        out[index] = value
        return out
    return x.at[index].set(value)


def lazy_jit(**jit_options) -> Callable:
    """``jax.jit(fn, **jit_options)``, built at the first call (JAX is imported then, not here)."""

    def decorate(fn: Callable) -> Callable:
        jitted = None

        @functools.wraps(fn)
        def call(*args, **kwargs):
            nonlocal jitted
            if jitted is None:
                import jax

                jitted = jax.jit(fn, **jit_options)
            return jitted(*args, **kwargs)

        return call

    return decorate


def float_dtype(dtype=None) -> np.dtype:
    """The float precision of a computation: ``dtype`` if given, else the default, float64 when
    JAX's x64 switch is on and float32 otherwise (the one place that says so; imports JAX only
    when ``dtype`` is None)."""
    if dtype is not None:
        return np.dtype(dtype)
    import jax

    return np.dtype("float64" if jax.config.jax_enable_x64 else "float32")
