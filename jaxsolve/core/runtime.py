"""Process-wide JAX settings: float64, the CPU device count, the device, JAX's persistent
compilation cache. Nothing here knows where jaxsolve keeps its files: a caller gives the
compilation cache folder as a path (``jaxsolve.io.cache.setup`` does, for the command line and
the page)."""

from __future__ import annotations

import os
import resource

import jax

from jaxsolve.errors import JaxsolveError

DEVICES = ("auto", "cpu", "gpu")


def configure(*, x64: bool = False, compilation_cache: str | os.PathLike | None = None) -> None:
    """Switch JAX's float64 mode (``x64``), show the CPU as ``host_devices()`` devices, and, given
    a folder, keep JAX's persistent compilation cache there (``compilation_cache_dir``)."""
    jax.config.update("jax_enable_x64", bool(x64))
    host_devices()
    if compilation_cache is not None:
        compilation_cache_dir(compilation_cache)


def compilation_cache_dir(path: str | os.PathLike) -> None:
    """Keep every compiled program in JAX's persistent compilation cache in folder ``path``
    (created if missing; a ``JaxsolveError`` if it cannot be)."""
    folder = os.fspath(path)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise JaxsolveError(f"cannot create compilation cache directory {folder}: {exc.strerror}") from None
    jax.config.update("jax_compilation_cache_dir", folder)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask, e.g. under ``taskset``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# One CPU device by default. One device per core solves faster than one device
# (results/bench/cores.md has the measurements), but every device holds its own copy of the table
# being filled and the programs compile for the mesh (a longer compile, which a single solve does
# not win back): the command line keeps one device and a user asks for more with
# JAX_NUM_CPU_DEVICES=N (or XLA_FLAGS=--xla_force_host_platform_device_count=N).
MAX_HOST_DEVICES = 1


def host_devices(count: int | None = None) -> None:
    """Show the CPU to JAX as ``count`` devices (default: one per usable core, at most
    ``MAX_HOST_DEVICES``), so that a layered solve can share each layer between the cores
    (``jaxsolve.core.layered``'s schedules). Takes effect only before JAX's first computation and when
    neither ``$JAX_NUM_CPU_DEVICES`` nor ``$XLA_FLAGS`` fixes the count already (a ``count``
    given here overrides ``$JAX_NUM_CPU_DEVICES``)."""
    if count is None and os.environ.get("JAX_NUM_CPU_DEVICES"):
        return
    count = min(usable_cores(), MAX_HOST_DEVICES) if count is None else int(count)
    if "xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
        try:
            jax.config.update("jax_num_cpu_devices", max(1, count))
        except RuntimeError:  # JAX has already started its backends: keep what it shows
            pass


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


def peak_memory(device: jax.Device) -> tuple[float, str]:
    """Peak memory in MiB and what it measures: the device's own peak where it reports one
    (GPUs), else this process's resident-memory high-water mark (CPU)."""
    stats = device.memory_stats() if hasattr(device, "memory_stats") else None
    if stats and "peak_bytes_in_use" in stats:
        return stats["peak_bytes_in_use"] / 2**20, "device peak"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "process RSS high-water"
