"""One array code, two namespaces: ``jax.numpy`` or NumPy.

The turn arithmetic of the category engine (``jaxsolve.games.category.engine.solver``) and the dice operators
(``jaxsolve.core.dice``) take ``xp``: ``None`` (the default) is ``jax.numpy``, traced inside the
compiled solve, evaluation and batch programs; ``numpy`` runs the same lines eagerly, which is
how one situation is answered from a cached table without importing JAX
(``jaxsolve.games.category.answers.advisor.advise``). JAX is imported here on first use only, so a module
that imports this one does not load JAX.
"""

from __future__ import annotations

import contextlib
import functools
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from jaxsolve.errors import JaxsolveError

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

FLOAT_DTYPES = ("float32", "float64")

Array = Any
"""An array of either namespace: a NumPy array, or a JAX array (concrete or traced). The same
lines run on both, so the type checker cannot tell which; ``xp`` says it at run time."""


def namespace(xp: ModuleType | None = None) -> ModuleType:
    """``xp`` if given, else ``jax.numpy``."""
    if xp is not None:
        return xp
    import jax.numpy as jnp

    return jnp


def set_at(x: Array, index: Any, value: Any, xp: ModuleType) -> Array:
    """``x`` with ``x[index] = value``: ``x.at[index].set(value)`` in JAX, a changed copy in NumPy."""
    if xp is np:
        out = np.array(x, copy=True)
        out[index] = value
        return out
    return x.at[index].set(value)


def lazy_jit(**jit_options: Any) -> Callable[[Callable], Callable]:
    """``jax.jit(fn, **jit_options)``, built at the first call (JAX is imported then, not here)."""

    def decorate(fn: Callable) -> Callable:
        jitted = None

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal jitted
            if jitted is None:
                import jax

                jitted = jax.jit(fn, **jit_options)
            return jitted(*args, **kwargs)

        return call

    return decorate


def x64_enabled() -> bool:
    """Whether JAX computes in float64 here and now: its x64 mode, process-wide
    (``runtime.configure(x64=True)``) or inside ``precision`` (imports JAX)."""
    import jax

    return bool(jax.config.read("jax_enable_x64"))


def float_dtype(dtype: DTypeLike | None = None) -> np.dtype:
    """The float precision of a JAX computation: ``dtype`` (``float32`` or ``float64``) as the
    caller passes it, else the process default, float64 when JAX's x64 mode is on and float32
    otherwise (the one place that says so). A float64 request while x64 mode is off is a
    ``JaxsolveError``: JAX would compute in float32 without a word. Imports JAX only when
    ``dtype`` is None or float64."""
    if dtype is None:
        return np.dtype("float64" if x64_enabled() else "float32")
    try:
        out = np.dtype(dtype)
    except TypeError:
        raise JaxsolveError(f"unknown float dtype {dtype!r}; choose float32 or float64") from None
    if out.name not in FLOAT_DTYPES:
        raise JaxsolveError(f"a computation runs in float32 or float64, not {out.name}")
    if out == np.float64 and not x64_enabled():
        raise JaxsolveError(
            "float64 asked for while JAX's x64 mode is off: switch it on first (runtime.configure(x64=True)) "
            "or compute inside arrays.precision('float64')"
        )
    return out


def precision(dtype: DTypeLike) -> contextlib.AbstractContextManager[Any]:
    """A context for a computation in ``dtype``: for float64 with JAX's x64 mode off, that mode
    switched on (in this thread, restored on leaving); otherwise nothing changes. A loader that
    solves in the precision its caller asks for (``float_dtype``'s rule) runs its solve inside."""
    if np.dtype(dtype) == np.float64 and not x64_enabled():
        import jax

        return jax.enable_x64(True)
    return contextlib.nullcontext()
