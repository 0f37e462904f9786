"""Shared pieces of the command line: command groups, common options, error handling."""

from __future__ import annotations

import functools
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
    """Turn a ``JaxsolveError`` into ``error: ...`` on stderr and exit status 1."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except JaxsolveError as exc:
            fail(str(exc))

    return wrapper


def setup(device: Device, x64: bool, cache_dir: Optional[Path] = None, no_cache: bool = False):
    """Configure JAX for a command and return the chosen device."""
    from jaxsolve import runtime

    runtime.configure(x64=x64, cache_dir=cache_dir, use_cache=not no_cache)
    return runtime.get_device(device.value)
