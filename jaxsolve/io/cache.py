"""The solution store: solved tables written once to a cache folder and loaded from then on.

A solved value table is keyed by game, rules (name and a hash of every rules field), objective
and dtype, and written as an export (``.npy`` + validated JSON sidecar, ``jaxsolve.io.export``)
under ``<root>/tables/<game>/``. Every registered game is cached the same way, through its
registration (``solution``: the game's ``solve``, ``save`` and validating ``load`` hooks); a new
game needs no cache code of its own. The root is ``--cache-dir``, else ``$JAXSOLVE_CACHE``, else
``$XDG_CACHE_HOME/jaxsolve`` (``~/.cache/jaxsolve``); JAX's persistent compilation cache lives
beside it in ``<root>/xla``. ``setup`` is the one place both are set up (the command line and
the page call it). Loading goes through the game's validating loader, so a broken, foreign or
stale entry is never used: it is reported and solved again (a loader's recomputation from the
rules runs once per export: see ``_load``). Two processes asking for one table at once solve it
once: the entry's lock file (``_one_solver``) makes the second wait for the first's entry.

For a long-running process (the page's server while ``serve`` runs): ``keep_in_memory()`` (or
``setup(..., memory=True)``) keeps every table solved or loaded in memory under the same keys,
at most ``max_bytes`` of them (their arrays' bytes, ``table_bytes``, and the copies derived
from them that a holder keeps, ``charge``): past that the least
recently used go first (``on_forget`` hears which, so that other holders let go of them too),
and ``status(game, rules, dtype=)`` says, without loading, solving or importing JAX, whether a
table is at hand and, if not, about how long its solve takes (``estimate``: the seconds measured
per preset that the game registers, ``Game.solve_seconds``).

Every command that needs a table (advise, analyze, simulate, distribution, play, plot, the
heuristic comparisons, for every game) asks ``solution(...)`` or ``solved(...)``; ``solve`` and
``jaxsolve cache warm`` fill the store; ``jaxsolve cache list|clear`` shows and removes entries.
A command that answers from a table with NumPy leaves JAX alone until it must solve: it hands the
store its JAX set-up (``defer_jax``), which ``solution`` calls before a solve; a table read
without the recomputation (``verify=False``) is read without JAX.
"""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from jaxsolve.errors import JaxsolveError

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    import jax

    from jaxsolve.core.rules import Rules


class Game(Protocol):
    """What the store reads of a registered game (``jaxsolve.games.game.Game``; ``io`` does not
    import the games): its name and its hooks (``objective`` and ``solve_seconds`` read where present)."""

    @property
    def name(self) -> str: ...

    @property
    def solve(self) -> Any: ...

    @property
    def values(self) -> Any: ...

    @property
    def save(self) -> Any: ...

    @property
    def load(self) -> Any: ...

    def get_rules(self, name: str | None = None) -> Any: ...


TABLES = "tables"
XLA = "xla"


@dataclasses.dataclass
class _Config:
    root: Path | None = None
    enabled: bool = True
    say: Callable[[str], None] | None = None
    writable: bool = True
    memory: bool = False
    jax_setup: Callable[[], Any] | None = None
    dtype: str | None = None
    max_bytes: int | None = None


_CONFIG = _Config()
_MEMORY: OrderedDict[tuple[str, str], tuple[Any, int]] = OrderedDict()  # key -> (table, its bytes), least recently used first
_MEMORY_LOCK = threading.Lock()
_FORGET: list[Callable[[tuple[str, str], Any], None]] = []


def default_root() -> Path:
    env = os.environ.get("JAXSOLVE_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jaxsolve"


def configure(root: str | os.PathLike | None = None, *, enabled: bool = True, say: Callable[[str], None] | None = None, writable: bool = True) -> None:
    """Where the store lives, whether it is used, where its messages go (None: silent), and
    whether solved tables are written to it (False: only read; the caller has said why)."""
    _CONFIG.root = Path(root) if root is not None else None
    _CONFIG.enabled = enabled
    _CONFIG.say = say
    _CONFIG.writable = writable


def defer_jax(setup: Callable[[], Any] | None, dtype: str | None = None) -> None:
    """For a process that answers from cached tables without JAX (the command line's ``advise``
    and ``play`` of a game that answers with NumPy): ``setup()`` sets JAX up (precision,
    compilation cache) and returns the device; ``solution`` calls it once, before it solves or
    checks a table with JAX, where its caller gave no device. ``dtype``: the precision the
    command asked for (``asked_dtype``). ``None`` clears it (JAX is set up)."""
    _CONFIG.jax_setup = setup
    _CONFIG.dtype = dtype if setup is not None else None


def asked_dtype() -> str | None:
    """The precision a command asked for while JAX is not set up (``defer_jax``), else None
    (JAX's own setting decides)."""
    return _CONFIG.dtype


def _jax_ready(device: jax.Device | Callable[[], jax.Device] | None = None) -> Any:
    """``device`` (called if it is a callable that sets one up); where none is given, JAX set up
    by the deferred setup (``defer_jax``) if one is pending, and its device."""
    if callable(device):
        return device()
    if device is None and _CONFIG.jax_setup is not None:
        setup, _CONFIG.jax_setup = _CONFIG.jax_setup, None
        return setup()
    return device


def keep_in_memory(on: bool = True, max_bytes: int | None = None) -> None:
    """Keep every table this process solves or loads in memory, under its store key, and answer
    from there before the folder (for a long-running process: the page's server while ``serve``
    runs); at most ``max_bytes`` of them (``table_bytes``; None: no limit): past it the least
    recently used table goes first (the newest stays, however large). ``False`` drops the kept
    tables and keeps none from then on."""
    _CONFIG.memory = bool(on)
    _CONFIG.max_bytes = max_bytes if on else None
    if not on:
        forget()
    else:
        _let_go(_trim(None))


def on_forget(listener: Callable[[tuple[str, str], Any], None], on: bool = True) -> None:
    """Call ``listener(key, table)`` whenever a table kept in memory is let go (the limit of
    ``keep_in_memory``, or ``forget``): a holder of its own references (a per-process table
    cache, the games in play) drops them, so that the memory is freed. ``on=False``: no longer."""
    if on and listener not in _FORGET:
        _FORGET.append(listener)
    elif not on and listener in _FORGET:
        _FORGET.remove(listener)


def forget() -> None:
    """Drop the tables kept in memory (the folder's entries stay)."""
    with _MEMORY_LOCK:
        gone = [(k, sol) for k, (sol, _) in _MEMORY.items()]
        _MEMORY.clear()
    _let_go(gone)


def _let_go(gone: list[tuple[tuple[str, str], Any]]) -> None:
    for key, sol in gone:
        for listener in list(_FORGET):
            listener(key, sol)


def table_bytes(sol: Any) -> int:
    """The bytes of the arrays a solved table holds (NumPy or JAX arrays among its fields, in
    tuples, lists and dicts, each array counted once)."""
    seen: set[int] = set()
    total, stack, steps = 0, [sol], 0
    while stack and steps < 100_000:
        item, steps = stack.pop(), steps + 1
        if id(item) in seen or item is None or isinstance(item, (str, bytes, int, float, bool, type)):
            continue
        seen.add(id(item))
        size = getattr(item, "nbytes", None)
        if isinstance(size, int) and hasattr(item, "dtype") and hasattr(item, "shape"):
            total += size
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif dataclasses.is_dataclass(item):
            stack.extend(getattr(item, f.name, None) for f in dataclasses.fields(item))
        elif hasattr(item, "__dict__"):
            stack.extend(vars(item).values())
    return total


def memory_use() -> dict:
    """The tables kept in memory: ``tables`` (how many), ``bytes`` (``table_bytes``, all of them)
    and ``max_bytes`` (the limit, None: none)."""
    with _MEMORY_LOCK:
        return {"tables": len(_MEMORY), "bytes": sum(b for _, b in _MEMORY.values()), "max_bytes": _CONFIG.max_bytes}


def _memory_key(game: str, rules: Rules, objective: str, dtype: str) -> tuple[str, str]:
    return game, entry_name(rules, objective, dtype)


def memory_key(game: Game, rules: Rules, dtype: str) -> tuple[str, str]:
    """The key under which the registered ``game``'s table of ``rules`` in ``dtype`` is kept in
    memory (what ``on_forget`` listeners hear)."""
    return _memory_key(game.name, rules, objective_of(game), dtype)


def _trim(keep: tuple[str, str] | None) -> list[tuple[tuple[str, str], Any]]:
    """(Under the lock or not.) Drop the least recently used tables but ``keep`` until the kept
    bytes are within the limit; return what was dropped (to ``_let_go`` outside the lock)."""
    gone: list[tuple[tuple[str, str], Any]] = []
    limit = _CONFIG.max_bytes
    if limit is None:
        return gone
    with _MEMORY_LOCK:
        total = sum(b for _, b in _MEMORY.values())
        for key in list(_MEMORY):
            if total <= limit:
                break
            if key == keep:
                continue
            sol, size = _MEMORY.pop(key)
            total -= size
            gone.append((key, sol))
    return gone


def _remember(key: tuple[str, str], sol: Any) -> Any:
    if _CONFIG.memory:
        size = table_bytes(sol)
        with _MEMORY_LOCK:
            _MEMORY[key] = (sol, size)
            _MEMORY.move_to_end(key)
        _let_go(_trim(key))
    return sol


def _recall(key: tuple[str, str]) -> Any:
    if not _CONFIG.memory:
        return None
    with _MEMORY_LOCK:
        kept = _MEMORY.get(key)
        if kept is None:
            return None
        _MEMORY.move_to_end(key)
        return kept[0]


def charge(sol: Any, nbytes: int) -> None:
    """Count ``nbytes`` more against the table ``sol`` kept in memory: a copy derived from it that
    a holder keeps as long as the table is kept (a flattened copy; let go with it through
    ``on_forget``), so that the limit bounds what the tables really take; past it the least
    recently used other tables go. Nothing where ``sol`` is not kept."""
    if not _CONFIG.memory:
        return
    with _MEMORY_LOCK:
        key = next((k for k, (kept, _) in _MEMORY.items() if kept is sol), None)
        if key is None:
            return
        kept, size = _MEMORY[key]
        _MEMORY[key] = (kept, size + int(nbytes))
    _let_go(_trim(key))


def touch(key: tuple[str, str]) -> bool:
    """Mark the table kept under ``key`` (``memory_key``) as just used (it goes last among those
    the limit lets go); whether one is kept."""
    return _recall(key) is not None


def root() -> Path:
    return _CONFIG.root or default_root()


def unwritable(folder: str | os.PathLike | None = None) -> str | None:
    """None if the cache folder ``folder`` (None: ``default_root()``) takes files (its ``tables``
    and ``xla`` folders are created and a file written and removed in each), else one note line
    that says why not and that nothing is cached."""
    base = Path(folder) if folder is not None else default_root()
    try:
        for sub in (base / XLA, base / TABLES):
            sub.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=".jaxsolve-probe.", dir=sub)
            os.close(fd)
            os.unlink(name)
    except OSError as exc:
        return f"note: the cache folder {base} cannot be written ({exc.strerror or exc}); nothing is cached this time"
    return None


def setup(
    folder: str | os.PathLike | None = None, *, enabled: bool = True, say: Callable[[str], None] | None = None,
    writable: bool | None = None, compilation: bool = False, memory: bool | None = None, max_bytes: int | None = None,
) -> None:
    """Set up the caches under one folder (None: ``default_root()``): the solution store in
    ``<folder>/tables`` (``configure``) and, with ``compilation`` (for a process that computes
    with JAX; JAX is imported only then), JAX's persistent compilation cache in ``<folder>/xla``
    (``jaxsolve.core.runtime.compilation_cache_dir``). ``enabled=False`` uses neither.
    ``writable=False`` reads cached tables but writes no table and no compiled program (the
    caller has said why); None probes the folder (``unwritable``) and, if it takes no files,
    says why through ``say``. ``say`` receives the store's messages (None: silent). ``memory``:
    keep solved tables in this process too (``keep_in_memory``, at most ``max_bytes`` of them;
    None: leave as it is)."""
    if enabled and writable is None:
        note = unwritable(folder)
        writable = note is None
        if note is not None and say is not None:
            say(note)
    configure(folder, enabled=enabled, say=say, writable=writable is not False)
    if memory is not None:
        keep_in_memory(memory, max_bytes)
    if compilation and enabled and writable is not False:
        from jaxsolve.core import runtime

        runtime.compilation_cache_dir(root() / XLA)


def enabled() -> bool:
    return _CONFIG.enabled


def _say(message: str) -> None:
    if _CONFIG.say is not None:
        _CONFIG.say(message)


def talks() -> bool:
    """Whether the store's messages go anywhere (the command line: not under ``--quiet``); a
    progress bar of a solve the store makes is shown then."""
    return _CONFIG.say is not None


def note(message: str) -> None:
    """One line through the store's ``say`` (the command line: stderr, nothing under ``--quiet``)."""
    _say(message)


def rules_hash(rules: Rules) -> str:
    """A short hash of every rules field and the package version (two rule sets with one name,
    or two versions of the engine, never share an entry)."""
    from jaxsolve import __version__

    text = json.dumps({"rules": rules.to_dict(), "jaxsolve": __version__}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def entry_name(rules: Rules, objective: str, dtype: str) -> str:
    """The file name of an entry in its game's folder (also the key of a table kept in memory)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in rules.name)
    return f"{safe}-{rules_hash(rules)}-{objective}-{dtype}.npy"


def entry_path(game: str, rules: Rules, objective: str, dtype: str) -> Path:
    return root() / TABLES / game / entry_name(rules, objective, dtype)


VERIFIED = ".verified"
"""Beside an entry ``X.npy``, ``X.verified`` holds the sidecar hash of the export the game's
loader has checked in full (or the store has written): see ``_load``."""


def _takes_verify(load: Callable) -> bool:
    import inspect

    try:
        return "verify" in inspect.signature(load).parameters
    except (TypeError, ValueError):
        return False


def _load(path: Path, load: Callable, game: str, rules: Rules, objective: str, dtype: str) -> Any:
    """The entry at ``path`` read with ``load`` (saying so), None if there is none; a
    ``JaxsolveError`` if it is not usable: not a regular file, broken, or not the table of its
    key (``export.check_binding``: game, every rules field, objective, dtype), checked on the
    sidecar before the array is read.

    A loader that takes ``verify`` (``verify=False``: only the export's own checks, hashes
    included; no recomputation from the rules) is asked for its full check once per export: the
    sidecar hash it passed (which covers every array's hash) is noted beside the entry, and an
    entry whose sidecar still has that hash, so whose arrays are byte for byte the ones checked,
    is loaded without the recomputation (a second ``advise`` of the duel answers without JAX;
    its time: ``results/cache/cached-answer.md``)."""
    from jaxsolve.io import export

    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        raise JaxsolveError(f"{path} is not a regular file")
    meta = export.read_metadata(path)
    export.check_binding(path, meta, game=game, rules=rules, objective=objective, dtype=dtype)
    t0 = time.perf_counter()
    if _takes_verify(load):
        seal = str(meta.get("sidecar_sha256", ""))
        known = bool(seal) and _read_seal(path) == seal
        sol = load(path, verify=not known)
        if not known and seal:
            _write_seal(path, seal)
    else:
        sol = load(path)
    _say(f"using the cached table {path} ({time.perf_counter() - t0:.2f} s to load)")
    return sol


def _seal_path(path: Path) -> Path:
    return path.with_suffix(VERIFIED)


def _read_seal(path: Path) -> str | None:
    try:
        with open(_seal_path(path), encoding="ascii") as f:
            return f.read(200).strip()
    except (OSError, UnicodeDecodeError):
        return None


def _write_seal(path: Path, seal: str) -> None:
    if not _CONFIG.writable:
        return
    try:
        from jaxsolve.io import export

        export.atomic_write_text(_seal_path(path), seal + "\n")
    except (OSError, JaxsolveError):
        pass  # only the next load's full check is lost


def sealed(path: str | os.PathLike, seal: str) -> bool:
    """Whether the note beside ``path`` (``X.verified``) is ``seal``: what a full check of the
    file noted (see ``_load``; a file read in part, e.g. memory-mapped, notes its hash, size and
    modification time, so that a later read trusts it without hashing it again)."""
    return _read_seal(Path(path)) == seal


def mark_sealed(path: str | os.PathLike, seal: str) -> None:
    """Note ``seal`` beside ``path`` once its full check has passed (nothing where the store is
    read-only; a failed write costs only the next read's full check)."""
    _write_seal(Path(path), seal)


def cached(game: str, rules: Rules, *, objective: str, dtype: str, load: Callable) -> Any:
    """The solution of ``rules`` if the store is enabled and holds a valid entry, else None.

    Never solves: an unusable entry is left for ``solved`` to report and replace. A table kept
    in memory (``keep_in_memory``) is returned first.
    """
    key = _memory_key(game, rules, objective, dtype)
    kept = _recall(key)
    if kept is not None or not _CONFIG.enabled:
        return kept
    try:
        sol = _load(entry_path(game, rules, objective, dtype), load, game, rules, objective, dtype)
    except (JaxsolveError, OSError):
        return None
    return sol if sol is None else _remember(key, sol)


def _check_dtype(sol: Any, dtype: str, values: Callable[[Any], Any] | None) -> Any:
    import numpy as np

    if values is not None:
        got = np.dtype(np.asarray(values(sol)).dtype).name
        if got != dtype:
            raise JaxsolveError(f"the solve returned a {got} table where {dtype} was asked for (JAX's x64 mode is off?)")
    return sol


def solved(
    game: str, rules: Rules, *, objective: str, dtype: str, solve: Callable[[], Any], save: Callable | None, load: Callable | None,
    values: Callable[[Any], Any] | None = None, seconds: float | None = None,
) -> Any:
    """The solution of ``rules``: loaded from the store if it holds a valid entry, else solved
    with ``solve()`` and written there (when the store is enabled).

    An entry that is broken, foreign (another game, rules, objective or dtype than its key) or
    not a file is reported on one line and solved again; a store that cannot be written is one
    note, and the solution is still returned. ``values(solution)``: its array, whose dtype must
    be ``dtype`` (a solution in another precision is refused, never stored under this key).
    ``save``/``load`` None (a game without an export): kept in memory only, where it is on.
    Before solving, one line says what is solved and about how long it takes (``seconds``, the
    caller's ``estimate``, where known)."""
    key = _memory_key(game, rules, objective, dtype)
    kept = _recall(key)
    if kept is not None:
        return kept
    if not _CONFIG.enabled or save is None or load is None:
        return _remember(key, _check_dtype(_solving(game, rules, dtype, solve, seconds), dtype, values))
    path = entry_path(game, rules, objective, dtype)
    with _one_solver(path):  # another process solving this table: wait for it, then load its entry
        try:
            sol = _load(path, load, game, rules, objective, dtype)
        except (JaxsolveError, OSError) as exc:
            reason = str(exc) if isinstance(exc, JaxsolveError) else (exc.strerror or str(exc))
            _say(f"cached table {path} is not usable ({reason}); solving again")
        else:
            if sol is not None:
                return _remember(key, sol)
        sol = _check_dtype(_solving(game, rules, dtype, solve, seconds), dtype, values)
        _store(path, save, sol, seal=_takes_verify(load))
    return _remember(key, sol)


LOCK = ".lock"
"""Suffix of an entry's lock file: held while a process loads or solves and writes the entry."""

LOCK_WAIT_SECONDS = 600.0
"""How long a process waits for another one solving the same table before it solves too."""

_HELD = threading.local()


@contextlib.contextmanager
def _one_solver(path: Path) -> Iterator[None]:
    """Hold the entry's lock file (``fcntl.flock``, exclusive) while the block loads or solves
    and writes it, so that two processes (two commands at once, a test run's workers) asking
    for the same table solve it once: the second waits, then loads what the first wrote. A
    read-only store, a system without ``fcntl``, a lock file that cannot be opened or a wait
    past ``LOCK_WAIT_SECONDS`` go on without the lock (each process solves, as without it); a
    thread that holds the lock already (a solve that asks for its own entry) does not wait."""
    held = getattr(_HELD, "paths", None)
    if held is None:
        held = _HELD.paths = set()
    try:
        import fcntl
    except ImportError:  # not POSIX
        fcntl = None  # type: ignore[assignment]
    if fcntl is None or not _CONFIG.writable or path in held:
        yield
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        f = open(path.with_name(path.name + LOCK), "a+b")
    except OSError:
        yield
        return
    with f:
        locked, said, deadline = False, False, time.monotonic() + LOCK_WAIT_SECONDS
        while not locked and time.monotonic() < deadline:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
            except OSError:
                if not said:
                    _say(f"another solve of {path.name} is under way; waiting for it")
                    said = True
                time.sleep(0.2)
        held.add(path)
        try:
            yield
        finally:
            held.discard(path)
            if locked:
                fcntl.flock(f, fcntl.LOCK_UN)


LONG_SOLVE_SECONDS = 10.0
"""A solve expected to take at least this long (or for which no time is known) is announced."""


def _solving(game: str, rules: Rules, dtype: str, solve: Callable[[], Any], seconds: float | None = None) -> Any:
    """``solve()``, announced on one line (through the store's ``say``: stderr, not under
    ``--quiet``) unless the registered ``seconds`` (``estimate``) say it takes less than
    ``LONG_SOLVE_SECONDS``. The line gives no time: a figure measured on an idle machine is
    not what this one takes now; the solve's progress bar shows the time left at the rate its
    layers take here."""
    if seconds is None or seconds >= LONG_SOLVE_SECONDS:
        _say(f"solving {game} under the rules {rules.name} in {dtype}")
    return solve()


def _store(path: Path, save: Callable, sol: Any, *, seal: bool = False) -> bool:
    """Write ``sol`` to the entry ``path`` with ``save`` (unless the store is read-only); a
    failed write is one note, not an error. Whether it was written. ``seal``: note its sidecar
    hash as checked (the loader takes ``verify``; see ``_load``)."""
    if not _CONFIG.writable:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _seal_path(path).unlink(missing_ok=True)
        save(path, sol)
    except OSError as exc:
        _say(f"could not cache the table at {path}: {exc.strerror or exc}")
    except JaxsolveError as exc:
        _say(f"could not cache the table: {exc}")
    else:
        _say(f"solved and cached the table at {path}")
        if not seal:
            return True
        try:  # the arrays just written are the solve's own: no recomputation when they are read back
            from jaxsolve.io import export

            _write_seal(path, str(export.read_metadata(path)["sidecar_sha256"]))
        except (OSError, JaxsolveError, KeyError):
            pass
        return True
    return False


# ----------------------------------------------------------------------------- any registered game


def objective_of(game: Game) -> str:
    """The objective part of a registered game's key: its ``Game.objective``, ``value`` where the
    game has one objective."""
    return getattr(game, "objective", None) or "value"


def _exports(game: Game) -> tuple[Callable | None, Callable | None]:
    return (game.save, game.load) if game.save is not None and game.load is not None else (None, None)


def _precision(dtype: str) -> AbstractContextManager[Any]:
    from jaxsolve.core.arrays import precision

    return precision(dtype)


def solution(game: Game, rules: Rules, *, dtype: str, device: jax.Device | Callable[[], jax.Device] | None = None, solve: Callable[[], Any] | None = None) -> Any:
    """The solved table of the registered ``game`` (a ``Game``) under ``rules`` in ``dtype``
    (``float32`` or ``float64``): kept in memory, else from the store, else solved and stored,
    through the game's registration alone: its ``solve``, ``values``, ``save`` and validating
    ``load`` hooks (``solved``), so a new game needs no cache code. ``device``: a device, or a
    callable that sets one up (called only when a solve is needed). ``solve()`` replaces
    ``game.solve(rules, dtype=dtype, device=device)``; a float64 solve, and the loading of a
    float64 table, run with JAX's x64 mode on (``jaxsolve.core.arrays.precision``)."""
    save, load = _exports(game)

    def fresh() -> Any:
        where = _jax_ready(device if solve is None else None)
        with _precision(dtype):
            if solve is not None:
                return solve()
            return solve_with_progress(game, rules, dtype=dtype, device=where, quiet=not talks())

    def checked(path: Path, verify: bool = True) -> Any:
        assert load is not None
        if not verify:  # the export's own checks only: files are read, nothing is computed (no JAX)
            return load(path, verify=False)
        _jax_ready()
        with _precision(dtype):  # a loader that recomputes part of a float64 table does so in float64
            return load(path, verify=verify)

    def whole(path: Path) -> Any:
        assert load is not None
        _jax_ready()
        with _precision(dtype):
            return load(path)

    reader = None if load is None else (checked if _takes_verify(load) else whole)
    return solved(
        game.name, rules, objective=objective_of(game), dtype=dtype, solve=fresh, save=save, load=reader, values=game.values, seconds=estimate(game, rules)
    )


def solve_with_progress(game: Game, rules: Rules, *, dtype: str, device: jax.Device | None = None, quiet: bool = False) -> Any:
    """``game.solve(rules, dtype=, device=)``; where the hook takes ``progress`` (a callback of
    layers done and layers in all), with a bar on stderr (``core.progress.steps_bar``) that
    shows them and the time left (none if ``quiet``)."""
    import inspect

    from jaxsolve.core.progress import steps_bar

    try:
        takes = "progress" in inspect.signature(game.solve).parameters
    except (TypeError, ValueError):
        takes = False
    if not takes:
        return game.solve(rules, dtype=dtype, device=device)
    with steps_bar(None, f"solving {game.name} {rules.name}, layers", quiet) as steps:
        return game.solve(rules, dtype=dtype, device=device, progress=steps)


def stored(game: Game, rules: Rules, *, dtype: str) -> Any:
    """``solution`` without solving: the table kept in memory or held by the store, else None."""
    _, load = _exports(game)
    key = _memory_key(game.name, rules, objective_of(game), dtype)
    if load is None:
        return _recall(key)
    return cached(game.name, rules, objective=objective_of(game), dtype=dtype, load=load)


def store(game: Game, rules: Rules, sol: Any) -> Path | None:
    """Keep ``sol``, a solution of ``rules`` solved elsewhere (the ``solve`` command), in the store
    under the dtype it holds (and in memory, where on); the entry's path if one was written.
    An existing valid entry is left as it is."""
    import numpy as np

    dtype = np.dtype(np.asarray(game.values(sol)).dtype).name
    key = _memory_key(game.name, rules, objective_of(game), dtype)
    _remember(key, sol)
    save, _ = _exports(game)
    if not _CONFIG.enabled or save is None:
        return None
    path = entry_path(game.name, rules, objective_of(game), dtype)
    if path.is_file():
        try:
            from jaxsolve.io import export

            export.check_binding(path, export.read_metadata(path), game=game.name, rules=rules, objective=objective_of(game), dtype=dtype)
            return path
        except (JaxsolveError, OSError):
            pass
    return path if _store(path, save, sol, seal=game.load is not None and _takes_verify(game.load)) else None


def estimate(game: Game, rules: Rules) -> float | None:
    """The seconds a solve of ``rules`` is expected to take here: the registered ``game``'s
    ``solve_seconds`` of the preset ``rules`` are (measured on the 2-core CPU of
    ``benchmarks/machine.py``, see ``results/cache/``), else None: rules changed from a preset,
    or a preset not measured, are unknown, never guessed."""
    seconds = dict(getattr(game, "solve_seconds", None) or {}).get(rules.name)
    if seconds is None:
        return None
    try:
        return float(seconds) if game.get_rules(rules.name) == rules else None
    except JaxsolveError:
        return None


def duration(seconds: float) -> str:
    """``40 s``, ``12 min``, ``1.5 h``: a time to wait, roughly."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


@dataclasses.dataclass(frozen=True)
class Status:
    """Whether a table is at hand (``where``: ``memory``, ``disk`` or None) and, if not, about how
    many seconds its solve takes here (``estimate_seconds``, None: unknown)."""

    game: str
    rules: str
    dtype: str
    where: str | None
    path: str | None
    estimate_seconds: float | None

    @property
    def cached(self) -> bool:
        return self.where is not None

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "cached": self.cached}


def status(game: Game, rules: Rules, *, dtype: str) -> Status:
    """Whether the registered ``game``'s table of ``rules`` in ``dtype`` is kept in memory or in
    the store (its sidecar names this game, rules, objective and dtype; the array is not read,
    nothing is solved and JAX is not imported), and, if neither, the estimated solve time
    (``estimate``: the game's ``solve_seconds``). For the page: say how long a first answer
    takes before asking for it."""
    objective = objective_of(game)
    path = entry_path(game.name, rules, objective, dtype)
    where = None
    if _recall(_memory_key(game.name, rules, objective, dtype)) is not None:
        where = "memory"
    elif _CONFIG.enabled and game.load is not None and path.is_file():
        try:
            from jaxsolve.io import export

            export.check_binding(path, export.read_metadata(path), game=game.name, rules=rules, objective=objective, dtype=dtype)
            where = "disk"
        except (JaxsolveError, OSError):
            where = None
    seconds = None if where is not None else estimate(game, rules)
    return Status(game.name, rules.name, dtype, where, str(path) if where == "disk" else None, seconds)


@dataclasses.dataclass(frozen=True)
class Entry:
    path: Path
    game: str
    rules: str
    objective: str
    dtype: str
    bytes: int
    modified: float

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "path": str(self.path)}


ENTRY_NAME = re.compile(r".+-[0-9a-f]{12}-[A-Za-z0-9_.]+-float(32|64)")
"""The stem of an entry's file (``entry_name``); the other ``.npy`` files beside it are the
further arrays of its export (``X-last.npy``), counted in its size."""


def entries(game: str | None = None) -> list[Entry]:
    """Every table in the store (``game``: only that game's), read from the sidecars; an
    export's further arrays count in its size, not as entries of their own."""
    base = root() / TABLES
    if not base.is_dir():
        return []
    out = []
    for npy in sorted(base.glob("*/*.npy")):
        if (game is not None and npy.parent.name != game) or not ENTRY_NAME.fullmatch(npy.stem):
            continue
        side = npy.with_suffix(".json")
        try:
            if side.stat().st_size > (1 << 20):
                raise ValueError("sidecar too large")
            meta = json.loads(side.read_text())
            rules = meta.get("rules", {}).get("name", "?")
            objective = str(meta.get("objective", "-"))
            dtype = str(meta.get("dtype", npy.stem.rsplit("-", 1)[-1]))
        except (OSError, ValueError, AttributeError, RecursionError):
            rules, objective, dtype = "? (no readable sidecar)", "?", "?"
        try:
            st = npy.stat()
            size = st.st_size + (side.stat().st_size if side.is_file() else 0)
            size += sum(f.stat().st_size for f in npy.parent.glob(f"{glob.escape(npy.stem)}-*") if f.is_file() and not ENTRY_NAME.fullmatch(f.stem))
        except OSError:  # a dangling link: listed, with no size
            st, size = None, 0
        out.append(Entry(npy, npy.parent.name, rules, objective, dtype, size, st.st_mtime if st else 0.0))
    return out


def clear(game: str | None = None) -> list[Path]:
    """Remove the store's tables (``game``: only that game's) and the tables kept in memory;
    returns the removed files."""
    forget()
    base = root() / TABLES
    removed: list[Path] = []
    if not base.is_dir():
        return removed
    for path in sorted(base.glob("*/*")):
        if not path.is_file() or (game is not None and path.parent.name != game):
            continue
        if path.suffix in (".npy", ".json", VERIFIED, LOCK) or ".tmp" in path.name:
            try:
                path.unlink()
                removed.append(path)
            except OSError as exc:
                raise JaxsolveError(f"cannot remove {path}: {exc.strerror}") from None
    return removed
