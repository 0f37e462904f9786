"""Shared pieces of the command line: command groups, common options, error handling."""

from __future__ import annotations

import errno
import functools
import math
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from jaxsolve.errors import JaxsolveError

solve_app = typer.Typer(help="Solve a game exactly and optionally export the value tensor.", no_args_is_help=True)
advise_app = typer.Typer(help="Rank every option of a position, best first.", no_args_is_help=True)
plot_app = typer.Typer(help="Draw figures as PNG files.", no_args_is_help=True)
simulate_app = typer.Typer(help="Play many games at once with a strategy.", no_args_is_help=True)
tables_app = typer.Typer(help="Regenerate the source documents' tables.", no_args_is_help=True)


class Device(str, Enum):
    auto = "auto"
    cpu = "cpu"
    gpu = "gpu"


DeviceOpt = Annotated[Device, typer.Option("--device", help="Where to compute: auto (JAX default), cpu or gpu.")]
X64Opt = Annotated[bool, typer.Option("--x64/--x32", help="Compute in float64 (default float32).")]
X64DefaultOpt = Annotated[bool, typer.Option("--x64/--x32", help="Compute in float64 (the default here) or float32.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars; print only the result.")]
CacheOpt = Annotated[
    Optional[Path],
    typer.Option("--cache-dir", help="JAX persistent compilation cache (default ~/.cache/jaxsolve/xla or $JAXSOLVE_CACHE)."),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not use the persistent compilation cache.")]
OutOpt = Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the result as .npy (with a .json sidecar).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]


def fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def handle_errors(fn):
    """Turn a ``JaxsolveError`` (and a failed write, an exhausted memory) into one
    ``error: ...`` line on stderr and exit status 1."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            result = fn(*args, **kwargs)
            flush_stdout()
            return result
        except JaxsolveError as exc:
            fail(str(exc))
        except MemoryError:
            fail("out of memory; try a smaller size")
        except OSError as exc:
            where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
            if exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EBADF) and not where:
                fail(f"cannot write the output: {exc.strerror or exc}")
            fail(f"input/output error{where}: {exc.strerror or exc}")

    return wrapper


def flush_stdout() -> None:
    """Flush stdout now, so that a full disk or a closed pipe is one error line, not a traceback."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        try:  # nothing more can be written there; keep the interpreter's final flush quiet
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass
        fail(f"cannot write the output: {exc.strerror or exc}")


def positive_finite(name: str, value: float | None) -> float | None:
    """``value`` if it is a positive finite number (or None), else a clear error."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise JaxsolveError(f"{name} must be a positive finite number, got {value}")
    return value


def limited(name: str, value: int, low: int, high: int) -> int:
    """``value`` if ``low <= value <= high``, else an error that states the limits."""
    if not low <= value <= high:
        raise JaxsolveError(f"{name} must be between {low:,} and {high:,}, got {value:,}")
    return value


def setup(device: Device, x64: bool, cache_dir: Optional[Path] = None, no_cache: bool = False):
    """Configure JAX for a command and return the chosen device."""
    from jaxsolve import runtime

    runtime.configure(x64=x64, cache_dir=cache_dir, use_cache=not no_cache)
    return runtime.get_device(device.value)
