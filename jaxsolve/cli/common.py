"""Shared pieces of the command line: command groups, common options, error handling."""

from __future__ import annotations

import dataclasses
import errno
import functools
import inspect
import math
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

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
CacheOpt = Annotated[
    Optional[Path],
    typer.Option("--cache-dir", help="Cache folder: solved tables (tables/) and compiled programs (xla/); default $JAXSOLVE_CACHE or ~/.cache/jaxsolve."),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write cached tables or compiled programs.")]
OutOpt = Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the result as .npy (with a .json sidecar).")]


def out_folder(what: str) -> Any:
    """The ``--out`` option of a command that writes several files into a folder."""
    return typer.Option("--out", "-o", help=f"Folder for {what}.")
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
        except Exception as exc:  # an accelerator or XLA running out of memory: one line too
            if not _is_out_of_memory(exc):
                raise
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            fail(f"out of memory on the device ({first}); try a smaller size, fewer saved throws or more devices")

    return wrapper


def _is_out_of_memory(exc: Exception) -> bool:
    """Whether ``exc`` is XLA's out-of-memory error (``RESOURCE_EXHAUSTED``), without importing jax."""
    return type(exc).__name__ in ("JaxRuntimeError", "XlaRuntimeError") and "RESOURCE_EXHAUSTED" in str(exc)


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


def _note(message: str) -> None:
    typer.echo(message, err=True)


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
    from jaxsolve.core import runtime

    runtime.configure(x64=x64, cache_dir=cache_dir, use_cache=not no_cache)
    return runtime.get_device(device.value)


# ----------------------------------------------------------------------------- shared options

X64Mode = str  # "float32"/"float64": the default, switched by --x64/--x32; "fixed32"/"fixed64": no option


@dataclasses.dataclass(frozen=True)
class Run:
    """The options every computing command shares (declared once, in ``shared_options``)."""

    device: Device = Device.auto
    x64: bool = False
    quiet: bool = False
    cache_dir: Optional[Path] = None
    no_cache: bool = False

    @property
    def dtype(self) -> str:
        """The float precision asked for: ``float64`` (``--x64``) or ``float32``."""
        return "float64" if self.x64 else "float32"

    def setup(self, jax: bool = True):
        """Configure JAX (precision, caches) and return the chosen device; the solution store
        reports on stderr what it loads or writes (unless ``--quiet``). ``jax=False`` configures
        the solution store only (JAX is not imported; returns None): for a command that may
        answer from a cached table with NumPy and calls ``setup()`` only if it must solve."""
        from jaxsolve.io import cache

        device = setup(self.device, self.x64, self.cache_dir, self.no_cache) if jax else None
        cache.configure(self.cache_dir, enabled=not self.no_cache, say=None if self.quiet else _note)
        return device


QUIET_HELP = "No progress bars; print only the result."


def _run_parameters(x64: X64Mode, quiet_help: str | None) -> list[inspect.Parameter]:
    P = inspect.Parameter
    params = [P("device", P.KEYWORD_ONLY, annotation=DeviceOpt, default=Device.auto)]
    if x64 == "float32":
        params.append(P("x64", P.KEYWORD_ONLY, annotation=X64Opt, default=False))
    elif x64 == "float64":
        params.append(P("x64", P.KEYWORD_ONLY, annotation=X64DefaultOpt, default=True))
    if quiet_help is not None:
        params.append(P("quiet", P.KEYWORD_ONLY, annotation=Annotated[bool, typer.Option("--quiet", "-q", help=quiet_help)], default=False))
    params += [
        P("cache_dir", P.KEYWORD_ONLY, annotation=CacheOpt, default=None),
        P("no_cache", P.KEYWORD_ONLY, annotation=NoCacheOpt, default=False),
    ]
    return params


def _with_signature(fn: Callable, wrapper: Callable, params: list[inspect.Parameter]) -> Callable:
    """Give ``wrapper`` the parameters typer reads (``__signature__`` and ``__annotations__``)."""
    functools.update_wrapper(wrapper, fn)
    wrapper.__signature__ = inspect.Signature(params)
    wrapper.__annotations__ = {p.name: p.annotation for p in params}
    return wrapper


def shared_options(x64: X64Mode = "float32", quiet_help: str | None = QUIET_HELP) -> Callable:
    """Replace a command's ``run: Run`` parameter by the shared options: ``--device``,
    ``--x64/--x32`` (default float32 or float64; none where the command fixes the precision),
    ``--quiet`` (unless ``quiet_help`` is None), ``--cache-dir`` and ``--no-cache``. The
    command receives them as one ``Run``."""
    if x64 not in ("float32", "float64", "fixed32", "fixed64"):
        raise ValueError(f"x64 mode {x64!r}")

    def decorate(fn: Callable) -> Callable:
        own = [p for p in inspect.signature(fn, eval_str=True).parameters.values() if p.name != "run"]
        added = _run_parameters(x64, quiet_help)
        names = [p.name for p in added]

        def wrapper(*args, **kwargs):
            chosen = {n: kwargs.pop(n) for n in names if n in kwargs}
            if x64.startswith("fixed"):
                chosen["x64"] = x64 == "fixed64"
            return fn(*args, run=Run(**chosen), **kwargs)

        return _with_signature(fn, wrapper, own + added)

    return decorate


def rules_option(game) -> Any:
    """The ``--rules`` option of a registered game: its presets and default, from the registry."""
    names = ", ".join(game.presets())
    return Annotated[Optional[str], typer.Option("--rules", "-r", help=f"Rule preset: {names} (default {game.default}).")]


def for_each_game(group: typer.Typer, module: str, fn: Callable) -> None:
    """Add ``fn`` to ``group`` once per registered game that names ``module`` among its CLI
    modules, as ``group <game>``. ``fn`` takes ``game`` (bound here) and ``rules`` (the game's
    ``--rules`` option with its own presets); ``{title}`` in its docstring becomes the game's title."""
    from jaxsolve import games

    for game in games.games():
        if module not in game.cli:
            continue
        params = []
        for p in inspect.signature(fn, eval_str=True).parameters.values():
            if p.name == "game":
                continue
            if p.name == "rules":
                p = p.replace(annotation=rules_option(game), default=None)
            params.append(p)

        def command(*args, _game=game, **kwargs):
            return fn(*args, game=_game, **kwargs)

        command = _with_signature(fn, command, params)
        command.__doc__ = (fn.__doc__ or "").replace("{title}", game.title)
        group.command(game.name)(command)
