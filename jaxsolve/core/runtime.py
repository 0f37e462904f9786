"""Process-wide JAX settings: device, float64, the persistent compilation cache."""

from __future__ import annotations

import os
from pathlib import Path

import jax

from jaxsolve.errors import JaxsolveError

DEVICES = ("auto", "cpu", "gpu")


def configure(*, x64: bool = False, cache_dir: str | os.PathLike | None = None, use_cache: bool = True) -> None:
    """Set float64 and the caches under one root (``cache_dir``, else ``$JAXSOLVE_CACHE``, else
    ``~/.cache/jaxsolve``): JAX's persistent compilation cache in ``<root>/xla`` and the
    solution store (``jaxsolve.cache``) in ``<root>/tables``. ``use_cache=False`` uses neither."""
    from jaxsolve.io import cache

    jax.config.update("jax_enable_x64", bool(x64))
    cache.configure(cache_dir, enabled=use_cache, say=cache._CONFIG.say)
    if not use_cache:
        return
    path = cache.root() / "xla"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise JaxsolveError(f"cannot create compilation cache directory {path}: {exc.strerror}") from None
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def get_device(name: str = "auto") -> jax.Device:
    """The first device of a platform: ``auto`` (JAX's default), ``cpu`` or ``gpu``."""
    if name not in DEVICES:
        raise JaxsolveError(f"unknown device {name!r}; choose one of {', '.join(DEVICES)}")
    if name == "auto":
        return jax.devices()[0]
    try:
        return jax.devices(name)[0]
    except RuntimeError:
        raise JaxsolveError(f"no {name} device is visible to JAX on this machine") from None
