"""The solution store: solved tables written once to a cache folder and loaded from then on.

A solved value table is keyed by game, rules (name and a hash of every rules field), objective
and dtype, and written as an export (``.npy`` + validated JSON sidecar, ``jaxsolve.export``)
under ``<root>/tables/<game>/``. The root is ``--cache-dir``, else ``$JAXSOLVE_CACHE``, else
``$XDG_CACHE_HOME/jaxsolve`` (``~/.cache/jaxsolve``); JAX's persistent compilation cache lives
beside it in ``<root>/xla``. ``setup`` is the one place both are set up (the command line and
the page call it). Loading goes through the game's validating loader, so a broken,
foreign or stale entry is never used: it is reported, removed and solved again.

Every command that needs a table (advise, analyze, simulate, distribution, play, the heuristic
comparisons) asks ``solved(...)``; ``jaxsolve cache list|clear`` shows and removes entries.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from jaxsolve.errors import JaxsolveError

TABLES = "tables"
XLA = "xla"


@dataclasses.dataclass
class _Config:
    root: Path | None = None
    enabled: bool = True
    say: Callable[[str], None] | None = None
    writable: bool = True


_CONFIG = _Config()


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
    writable: bool | None = None, compilation: bool = False,
) -> None:
    """Set up the caches under one folder (None: ``default_root()``): the solution store in
    ``<folder>/tables`` (``configure``) and, with ``compilation`` (for a process that computes
    with JAX; JAX is imported only then), JAX's persistent compilation cache in ``<folder>/xla``
    (``jaxsolve.core.runtime.compilation_cache_dir``). ``enabled=False`` uses neither.
    ``writable=False`` reads cached tables but writes no table and no compiled program (the
    caller has said why); None probes the folder (``unwritable``) and, if it takes no files,
    says why through ``say``. ``say`` receives the store's messages (None: silent)."""
    if enabled and writable is None:
        note = unwritable(folder)
        writable = note is None
        if note is not None and say is not None:
            say(note)
    configure(folder, enabled=enabled, say=say, writable=writable is not False)
    if compilation and enabled and writable is not False:
        from jaxsolve.core import runtime

        runtime.compilation_cache_dir(root() / XLA)


def enabled() -> bool:
    return _CONFIG.enabled


def _say(message: str) -> None:
    if _CONFIG.say is not None:
        _CONFIG.say(message)


def rules_hash(rules) -> str:
    """A short hash of every rules field and the package version (two rule sets with one name,
    or two versions of the engine, never share an entry)."""
    from jaxsolve import __version__

    text = json.dumps({"rules": rules.to_dict(), "jaxsolve": __version__}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def entry_path(game: str, rules, objective: str, dtype: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in rules.name)
    return root() / TABLES / game / f"{safe}-{rules_hash(rules)}-{objective}-{dtype}.npy"


def _load(path: Path, load: Callable, game: str, rules, objective: str, dtype: str) -> Any:
    """The entry at ``path`` read with ``load`` (saying so), None if there is none; a
    ``JaxsolveError`` if it is not usable: not a regular file, broken, or not the table of its
    key (``export.check_binding``: game, every rules field, objective, dtype), checked on the
    sidecar before the array is read."""
    from jaxsolve.io import export

    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        raise JaxsolveError(f"{path} is not a regular file")
    export.check_binding(path, export.read_metadata(path), game=game, rules=rules, objective=objective, dtype=dtype)
    t0 = time.perf_counter()
    sol = load(path)
    _say(f"using the cached table {path} ({time.perf_counter() - t0:.2f} s to load)")
    return sol


def cached(game: str, rules, *, objective: str, dtype: str, load: Callable) -> Any:
    """The solution of ``rules`` if the store is enabled and holds a valid entry, else None.

    Never solves: an unusable entry is left for ``solved`` to report and replace.
    """
    if not _CONFIG.enabled:
        return None
    try:
        return _load(entry_path(game, rules, objective, dtype), load, game, rules, objective, dtype)
    except (JaxsolveError, OSError):
        return None


def _check_dtype(sol: Any, dtype: str, values: Callable[[Any], Any] | None) -> Any:
    import numpy as np

    if values is not None:
        got = np.dtype(np.asarray(values(sol)).dtype).name
        if got != dtype:
            raise JaxsolveError(f"the solve returned a {got} table where {dtype} was asked for (JAX's x64 mode is off?)")
    return sol


def solved(
    game: str, rules, *, objective: str, dtype: str, solve: Callable[[], Any], save: Callable, load: Callable,
    values: Callable[[Any], Any] | None = None,
) -> Any:
    """The solution of ``rules``: loaded from the store if it holds a valid entry, else solved
    with ``solve()`` and written there (when the store is enabled).

    An entry that is broken, foreign (another game, rules, objective or dtype than its key) or
    not a file is reported on one line and solved again; a store that cannot be written is one
    note, and the solution is still returned. ``values(solution)``: its array, whose dtype must
    be ``dtype`` (a solution in another precision is refused, never stored under this key)."""
    if not _CONFIG.enabled:
        return _check_dtype(solve(), dtype, values)
    path = entry_path(game, rules, objective, dtype)
    try:
        sol = _load(path, load, game, rules, objective, dtype)
    except (JaxsolveError, OSError) as exc:
        reason = str(exc) if isinstance(exc, JaxsolveError) else (exc.strerror or str(exc))
        _say(f"cached table {path} is not usable ({reason}); solving again")
    else:
        if sol is not None:
            return sol
    sol = _check_dtype(solve(), dtype, values)
    if not _CONFIG.writable:
        return sol
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        save(path, sol)
    except OSError as exc:
        _say(f"could not cache the table at {path}: {exc.strerror or exc}")
    except JaxsolveError as exc:
        _say(f"could not cache the table: {exc}")
    else:
        _say(f"solved and cached the table at {path}")
    return sol


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


def entries(game: str | None = None) -> list[Entry]:
    """Every table in the store (``game``: only that game's), read from the sidecars."""
    base = root() / TABLES
    if not base.is_dir():
        return []
    out = []
    for npy in sorted(base.glob("*/*.npy")):
        if game is not None and npy.parent.name != game:
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
        except OSError:  # a dangling link: listed, with no size
            st, size = None, 0
        out.append(Entry(npy, npy.parent.name, rules, objective, dtype, size, st.st_mtime if st else 0.0))
    return out


def clear(game: str | None = None) -> list[Path]:
    """Remove the store's tables (``game``: only that game's); returns the removed files."""
    base = root() / TABLES
    removed: list[Path] = []
    if not base.is_dir():
        return removed
    for path in sorted(base.glob("*/*")):
        if not path.is_file() or (game is not None and path.parent.name != game):
            continue
        if path.suffix in (".npy", ".json") or ".tmp" in path.name:
            try:
                path.unlink()
                removed.append(path)
            except OSError as exc:
                raise JaxsolveError(f"cannot remove {path}: {exc.strerror}") from None
    return removed
