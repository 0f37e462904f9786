"""Shared pieces of the command line: command groups, common options, error handling."""

from __future__ import annotations

import dataclasses
import errno
import functools
import inspect
import os
import re
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Callable, List, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Param


class _BareFlags:
    """``--help`` shows a flag (``--json``, ``--x64/--x32``, ``--help``) without a value
    placeholder: it takes none."""

    def get_params(self, ctx):
        params = super().get_params(ctx)  # type: ignore[misc]
        for param in params:
            if getattr(param, "is_flag", False):
                param.metavar = ""
        return params


class Command(_BareFlags, TyperCommand):
    """A command of ``jaxsolve`` (every command is built with this class): its options in their
    help panels' order, the command's own first, then ``SOLVING``, then ``ADVANCED``."""

    def get_params(self, ctx):
        order = {None: 0, SOLVING: 1, ADVANCED: 2}
        return sorted(super().get_params(ctx), key=lambda p: order.get(getattr(p, "rich_help_panel", None), 1))


class Group(_BareFlags, TyperGroup):
    """A group of commands of ``jaxsolve`` (``solve``, ``advise``, ..., ``cache``). In a group of
    games (``jaxsolve NAME GAME``), a rule preset's name stands for its game under it
    (``jaxsolve advise yahtzee``: ``advise kniffel --rules yahtzee``; ``preset_names``), case
    does not matter, and a name it does not know is answered with the games it is closest to."""

    def resolve_command(self, ctx, args):
        if args and args[0] not in self.commands:
            names = preset_names(self.commands)
            word = args[0].lower()
            if word in self.commands:
                args = [word, *args[1:]]
            elif word in names:
                game, preset = names[word]
                takes_rules = any("--rules" in getattr(p, "opts", ()) for p in self.commands[game].params)
                args = [game, *(["--rules", preset] if takes_rules else []), *args[1:]]
        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as exc:  # click's UsageError, as typer carries it
            if args and not args[0].startswith("-") and str(getattr(exc, "message", "")).startswith("No such command"):
                exc.message = unknown_game_message(self.commands, args[0], ctx.command_path)
            raise


def _game_names() -> dict[str, tuple[str, ...]]:
    """Every registered game's name and its presets' names (no JAX imported)."""
    from jaxsolve import games as registry

    return {g.name: tuple(g.presets()) for g in registry.games()}


def preset_names(commands) -> dict[str, tuple[str, str]]:
    """The rule presets that stand for a game among ``commands`` (a group's commands by name):
    ``{preset: (game, preset)}`` for each preset name of one such game that is no game's name."""
    games = _game_names()
    found: dict[str, list[tuple[str, str]]] = {}
    for game, presets in games.items():
        if game in commands:
            for preset in presets:
                if preset not in games:
                    found.setdefault(preset.lower(), []).append((game, preset))
    return {name: hits[0] for name, hits in found.items() if len(hits) == 1}


def unknown_game_message(commands, name: str, where: str) -> str:
    """``No such command``, with the game ``name`` names where it has no such command, or the
    names (games, presets standing for games) closest to it."""
    import difflib

    games = _game_names()
    word = name.lower()
    owner = word if word in games else next((g for g, presets in games.items() if word in (p.lower() for p in presets)), None)
    if owner is not None:
        what = owner if owner == word else f"{owner} (rules {name})"
        offered = [g for g in games if g in commands]
        return f"{where} has no {what}; it is offered for {', '.join(offered)}."
    presets = preset_names(commands)
    matches = difflib.get_close_matches(word, [*commands, *presets], n=3, cutoff=0.6)
    said = [f"'{m}' ({presets[m][0]} --rules {presets[m][1]})" if m in presets else f"'{m}'" for m in matches]
    return f"No such command '{name}'." + (f" Did you mean {', '.join(said)}?" if said else "")


def group(name: str | None, help: str) -> typer.Typer:
    """A command group (``jaxsolve NAME``) that shows its help when called without a command."""
    return typer.Typer(name=name, help=help, no_args_is_help=True, cls=Group)


class Device(str, Enum):
    auto = "auto"
    cpu = "cpu"
    gpu = "gpu"


SOLVING = "Tables and solving"
ADVANCED = "Advanced"
"""The help panels after a command's own options (typer's ``rich_help_panel``): where the
tables come from and how they are computed; then the rules fields and the rarely needed."""
SOLVING_OPTIONS = frozenset({"table", "objective", "win_method", "chunk", "expect", "devices", "max_memory", "store", "max_saved"})
ADVANCED_OPTIONS = frozenset({"scope", "strategy", "heuristic_reading", "bot_strength", "bot_seed", "batch"})

DeviceOpt = Annotated[Device, typer.Option("--device", help="Where to compute: auto (JAX default), cpu or gpu.", rich_help_panel=SOLVING)]
X64Opt = Annotated[bool, typer.Option("--x64/--x32", help="Compute in float64 (default float32).", rich_help_panel=SOLVING)]
X64DefaultOpt = Annotated[bool, typer.Option("--x64/--x32", help="Compute in float64 (the default here) or float32.", rich_help_panel=SOLVING)]
CacheOpt = Annotated[
    Optional[Path],
    typer.Option(
        "--cache-dir", help="Cache folder: solved tables (tables/) and compiled programs (xla/); default $JAXSOLVE_CACHE or ~/.cache/jaxsolve.",
        rich_help_panel=SOLVING,
    ),
]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write cached tables or compiled programs.", rich_help_panel=SOLVING)]


def out_folder(what: str) -> Any:
    """The ``--out`` option of a command that writes several files into a folder."""
    return typer.Option("--out", "-o", help=f"Folder for {what} (default: the current folder).")
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
        except ValueError as exc:  # Python reads at most 4,300 digits of a number
            if "integer string conversion" not in str(exc):
                raise
            fail("a number in the input is too long (a few digits are all any option takes)")
        except OSError as exc:
            where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
            if exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EBADF) and not where:
                fail(f"cannot write the output: {exc.strerror or exc}")
            fail(f"input/output error{where}: {exc.strerror or exc}")
        except Exception as exc:  # an accelerator or XLA running out of memory: one line too
            if not _is_out_of_memory(exc):
                raise
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            fewer = ", fewer saved throws" if kwargs.get("max_saved") is not None else ""  # solve --saved-throws
            fail(f"out of memory on the device ({first}); try a smaller size{fewer} or more devices")

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


_UNWRITABLE_SAID: set = set()


def cache_writable(cache_dir: Optional[Path]) -> bool:
    """Whether the cache folder takes files (``cache.unwritable``); if not, one note on stderr
    (once per folder, also under ``--quiet``) and the command goes on without writing the cache
    (cached tables are still read)."""
    from jaxsolve.io import cache

    note = cache.unwritable(cache_dir)
    if note is None:
        return True
    if note not in _UNWRITABLE_SAID:
        _UNWRITABLE_SAID.add(note)
        _note(note)
    return False


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

    def setup(self, jax: bool = True, note: bool = True):
        """Configure JAX (precision, caches) and return the chosen device; the solution store
        reports on stderr what it loads or writes (unless ``--quiet``). ``jax=False`` configures
        the solution store only (JAX is not imported; returns None): for a command that may
        answer from a cached table with NumPy and calls ``setup()`` only if it must solve (the
        store calls it before a solve its caller did not set up: ``cache.defer_jax``).
        ``note=False``: no note on an unwritable cache folder (a command that must write there
        says so itself)."""
        from jaxsolve.io import cache

        writable = self.no_cache or (cache_writable(self.cache_dir) if note else cache.unwritable(self.cache_dir) is None)
        cache.setup(self.cache_dir, enabled=not self.no_cache, say=None if self.quiet else _note, writable=writable, compilation=jax)
        if not jax:
            check_device(self.device.value, x64=self.x64)
            cache.defer_jax(self.setup, self.dtype)  # JAX set up by the store where it must solve
            return None
        cache.defer_jax(None)
        from jaxsolve.core import runtime

        runtime.configure(x64=self.x64)
        return runtime.get_device(self.device.value)


def gpu_support_installed() -> bool:
    """Whether JAX could have a GPU here at all, without importing JAX: a PJRT plug-in package
    (``jax_plugins``, e.g. the CUDA or ROCm plug-in) or a jaxlib built with CUDA or ROCm."""
    import importlib.util

    if importlib.util.find_spec("jax_plugins") is not None:
        return True
    jaxlib = importlib.util.find_spec("jaxlib")
    folders = list(jaxlib.submodule_search_locations or []) if jaxlib is not None else []
    return any((Path(folder) / name).is_dir() for folder in folders for name in ("cuda", "rocm"))


def check_device(name: str, *, x64: bool = False) -> None:
    """Refuse ``--device gpu`` where no GPU is visible, also for a command that may answer
    without JAX: cheaply (no JAX import) where no GPU support is installed, else by asking JAX."""
    if name != "gpu":
        return
    if not gpu_support_installed():
        raise JaxsolveError("no gpu device is visible to JAX on this machine")
    from jaxsolve.core import runtime

    runtime.configure(x64=x64)
    runtime.get_device(name)


QUIET_HELP = "No progress bars; print only the result."


def _run_parameters(x64: X64Mode, quiet_help: str | None) -> list[inspect.Parameter]:
    P = inspect.Parameter
    params = [P("device", P.KEYWORD_ONLY, annotation=DeviceOpt, default=Device.auto)]
    if x64 == "float32":
        params.append(P("x64", P.KEYWORD_ONLY, annotation=X64Opt, default=False))
    elif x64 == "float64":
        params.append(P("x64", P.KEYWORD_ONLY, annotation=X64DefaultOpt, default=True))
    if quiet_help is not None:
        params.append(P("quiet", P.KEYWORD_ONLY, annotation=Annotated[bool, typer.Option("--quiet", "-q", help=quiet_help, rich_help_panel=SOLVING)], default=False))
    params += [
        P("cache_dir", P.KEYWORD_ONLY, annotation=CacheOpt, default=None),
        P("no_cache", P.KEYWORD_ONLY, annotation=NoCacheOpt, default=False),
    ]
    return params


def _with_signature(fn: Callable, wrapper: Callable, params: list[inspect.Parameter]) -> Callable:
    """Give ``wrapper`` the parameters typer reads (``__signature__`` and ``__annotations__``)."""
    functools.update_wrapper(wrapper, fn)
    wrapper.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]  # a function takes any attribute
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


def _option_type(p: Param) -> Any:
    if p.type is list:
        return Optional[List[int]] if p.item is int else Optional[List[str]]
    if p.type is Path:
        return Path if p.default is not None and not p.argument else Optional[Path]
    return p.type if (p.required or (p.default is not None and p.type is not bool)) else Optional[p.type]


def _metavar(p: Param) -> str | None:
    """What ``--help`` shows after the option: nothing for a flag, a number's range (the range
    ``Param.check`` takes: ``Param.bounds``), typer's own type name otherwise."""
    if p.type is bool:
        return ""
    if p.range_text() is not None:
        return f"<{p.kind.__name__}{'...' if p.type is list else ''}> [{p.range_text()}]"
    return None


_MARKUP = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")  # what rich reads as a markup tag (rich.markup.escape's pattern)


def literal(text: str) -> str:
    """Help text shown as written: what rich markup would read as a tag (``[ts, mine/50]``)
    escaped, where typer draws the help with rich."""
    from typer import core

    if not core.HAS_RICH or core.DEFAULT_MARKUP_MODE is None:
        return text
    return _MARKUP.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", text)


def _help(p: Param) -> str:
    if p.choices and "one of" not in p.help:
        return literal(f"{p.help} (one of {', '.join(p.choices)})")
    return literal(p.help)


def panel(p: Param, overrides: frozenset[str] = frozenset()) -> str | None:
    """The help panel of an option: None (the command's own, first) for what a player gives
    (a position, dice, opponents, the rules preset, the output), ``SOLVING`` for where the tables
    come from and how they are computed, ``ADVANCED`` for the rules fields (``overrides``) and
    the rarely needed."""
    if p.name in overrides or p.name in ADVANCED_OPTIONS:
        return ADVANCED
    return SOLVING if p.name in SOLVING_OPTIONS else None


def typer_parameters(p: Param, help_panel: str | None = None) -> list[inspect.Parameter]:
    """The typer parameters of a ``Param``: the option (or argument) itself, then one hidden
    option per old spelling (``aliases``), named ``<name>__<i>``. typer reads the text into the
    option's type; ``collect`` checks the values (``Param.check``). ``help_panel``: the help
    panel it is shown in (None: the command's options)."""
    P = inspect.Parameter
    if p.argument:
        info = typer.Argument(help=_help(p), show_default=False)
        default = ... if p.required else p.default
        return [P(p.name, P.POSITIONAL_OR_KEYWORD, annotation=Annotated[_option_type(p), info], default=default)]
    main = typer.Option(*p.spellings, help=_help(p), show_default=p.default not in (None, False, ()), metavar=_metavar(p), rich_help_panel=help_panel)
    default = ... if p.required else p.default
    out = [P(p.name, P.KEYWORD_ONLY, annotation=Annotated[_option_type(p), main], default=default)]
    old = _option_type(p) if p.type is list else Optional[p.type]
    for i, alias in enumerate(p.aliases):
        info = typer.Option(alias, hidden=True)
        out.append(P(f"{p.name}__{i}", P.KEYWORD_ONLY, annotation=Annotated[old, info], default=None))
    return out


def collect(params: list[Param], kwargs: dict) -> dict:
    """The values of ``params`` from typer's keyword arguments, each checked by ``Param.check``
    (the one check of an option's value, the page's too): an old spelling (alias) stands for the
    option (and is named in its messages)."""
    out = {}
    for p in params:
        value = p.check(kwargs.pop(p.name))
        for i, alias in enumerate(p.aliases):
            old = kwargs.pop(f"{p.name}__{i}")
            if old is not None:
                if value not in (None, p.default):
                    raise JaxsolveError(f"{alias} is the old spelling of {p.flag}: give one of them")
                value = p.check(old, alias)
        out[p.name] = value
    return out


def rules_params(game) -> list[Param]:
    """``--rules`` (the game's presets, from the registry) and one option per overridable rules field."""
    names = ", ".join(game.presets())
    return [Param("rules", str, None, f"Rule preset: {names} (default {game.default}).", flags=("--rules", "-r")), *game.override_params()]


def add_game_command(
    group: typer.Typer,
    game,
    body: Callable,
    params: list[Param],
    doc: str,
    *,
    x64: X64Mode | None = None,
    quiet_help: str | None = QUIET_HELP,
) -> None:
    """Add ``group <game>``: a command with ``params`` (and the shared options, unless ``x64`` is
    None) that calls ``body(game, values, run)`` with the parsed values by name; errors become
    one ``error:`` line."""
    P = inspect.Parameter
    overrides = frozenset(o.name for o in game.override_params()) if hasattr(game, "override_params") else frozenset()
    typed = [q.replace(kind=P.KEYWORD_ONLY) for p in params for q in typer_parameters(p, panel(p, overrides))]

    def command(**kwargs):
        values = collect(params, kwargs)
        return body(game, values, kwargs.pop("run", None))

    command.__name__ = f"{group.info.name or 'command'}_{game.name}".replace("-", "_")
    command.__doc__ = literal(doc)
    signature = inspect.Signature(typed + [P("run", P.KEYWORD_ONLY, annotation=Run, default=Run())])
    command.__signature__ = signature  # type: ignore[attr-defined]  # a function takes any attribute
    command.__annotations__ = {q.name: q.annotation for q in signature.parameters.values()}
    fn = command if x64 is None else shared_options(x64, quiet_help)(command)
    if x64 is None:
        fn.__signature__ = inspect.Signature(typed)  # type: ignore[union-attr]  # a function takes any attribute
    group.command(game.name, cls=Command)(handle_errors(fn))
