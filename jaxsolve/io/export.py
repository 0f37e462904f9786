"""``.npy`` exports with a JSON sidecar that says what the array holds, and checks on reading.

Writing (``save``, ``save_members``, ``save_group``): every file of an export is first written in
full to a temporary file beside its target (``.NAME.<pid>.<random>.tmp``, fsynced). The arrays
the present sidecars name are then hard-linked under their hash (``.NAME.<sha256[:16]>.prev``),
the new arrays renamed into place and the sidecars last; the kept arrays are removed once the
new sidecars are in place. Each sidecar records the byte size and the SHA-256 of the ``.npy``
file it describes; an export of several arrays (the duel's start and last-turn tables, Raab's
win probabilities and policy: ``save_members``) has ONE sidecar that records every member's
too, so the sidecar is the single point where the old export becomes the new one: a write cut
short anywhere leaves the old export (its arrays read from where they were kept) or the new
one, never a mix. Every solved game is one such export. For a group of separate exports
(``save_group``) each sidecar names the hashes of the other members, so a cut between two
sidecars leaves a set the loader refuses as out of step.
Temporary files left by a killed writer of the same target are removed by the next write.

Reading (``load``, ``load_group``, ``check_array``, ``rules_from``): the one validating loader
every game's ``load_*`` goes through. It refuses, with a one-line ``JaxsolveError``:

* a missing file or sidecar, a sidecar that is not a JSON object or not of this format;
* an array whose size or SHA-256 differs from its sidecar's (a half-replaced export), a member
  array (``load_members``) other than the one the sidecar records (e.g. the last-turn table of
  another export), or a group member whose partner does not carry the hash its sidecar names;
* a file that is not a plain ``.npy`` array (an ``.npz`` renamed, a pickle, an empty file);
* a shape or dtype other than the sidecar's (``load``) or other than the rules imply
  (``check_array``), NaN at a state that must have a value, NaN missing where a state is
  unreachable, infinities, values outside their range;
* rules that are missing, not an object, with unknown or missing fields, or invalid.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import io
import json
import os
import platform
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Sequence, TypeVar

import numpy as np

from jaxsolve.core.rules import Presets, Rules
from jaxsolve.errors import JaxsolveError

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

_R = TypeVar("_R", bound=Rules)

FORMAT = "jaxsolve-export/5"
OLD_FORMATS = {
    "jaxsolve-export/4": "was written by an older jaxsolve (export format 4, where the arrays of one solved game could be "
    "exports of their own)",
    "jaxsolve-export/3": "was written by an older jaxsolve whose sidecar carries no hash of its own",
    "jaxsolve-export/1": "was written by an older jaxsolve without a content hash",
    "jaxsolve-export/2": "was written by an older jaxsolve (export format 2)",
}
"""Formats of earlier versions, refused with why. Format 3 renamed the category games' rules
fields (``rolls`` -> ``throws``, ``instant_kniffel`` -> ``instant_all_same``, box kind
``yahtzee`` -> ``all_same``), their state axis (``holds50`` -> ``all_same_held``) and the
saved-throw key (``saved_cap`` -> ``max_saved``); format 4 added ``sidecar_sha256``; format 5
added ``members``: the further arrays of one export (the duel's last-turn table), each hashed by
the one sidecar."""
MAX_SIDECAR_BYTES = 1 << 20
"""A sidecar larger than this is refused before it is read (real ones are a few KiB)."""
NPY_MAGIC = b"\x93NUMPY"


def sidecar_path(path: str | os.PathLike) -> Path:
    """``values.npy`` -> ``values.json``."""
    return Path(path).with_suffix(".json")


# ----------------------------------------------------------------------------- writing


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by someone else
        return True
    return True


def remove_stale_temps(path: str | os.PathLike) -> list[Path]:
    """Delete temporary files a killed writer of ``path`` left behind; return them.

    A temp file is ``.NAME.<pid>.<random>.tmp`` (``.NAME.<random>.tmp`` from older versions);
    it is stale when no process ``pid`` runs any more (older names: always).
    """
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    pattern = re.compile(r"^\." + re.escape(path.name) + r"\.(?:(\d+)\.)?[^/]*\.tmp$")
    removed: list[Path] = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        m = pattern.match(entry.name)
        if not m or (m.group(1) and _pid_alive(int(m.group(1)))):
            continue
        try:
            entry.unlink()
            removed.append(entry)
        except OSError:
            pass
    return removed


def _write_temp(path: Path, data: bytes) -> str:
    """Write ``data`` to a fresh temp file beside ``path`` (fsynced); return its name."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Replace ``path`` by ``data`` atomically (temp file + rename); a clear error if it fails."""
    path = Path(path)
    remove_stale_temps(path)
    try:
        tmp = _write_temp(path, data)
        try:
            os.replace(tmp, path)
        except BaseException:
            _unlink(tmp)
            raise
    except OSError as exc:
        raise JaxsolveError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode())


def check_writable(path: str | os.PathLike, suffix: str = ".npy") -> Path:
    """Fail early, with a clear message, when ``path`` cannot be written as a ``suffix`` file."""
    path = Path(path)
    if path.suffix.lower() != suffix:
        raise JaxsolveError(f"output path must end in {suffix}: {path}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise JaxsolveError(f"output directory does not exist: {parent}")
    _probe(parent)
    if path.is_dir():
        raise JaxsolveError(f"output path is a directory: {path}")
    return path


def check_output_dir(directory: str | os.PathLike, *, create: bool = False) -> Path:
    """Fail early when files cannot be written into ``directory`` (created first if ``create``)."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise JaxsolveError(f"output path is not a directory: {directory}")
    if not directory.exists():
        if not create:
            raise JaxsolveError(f"output directory does not exist: {directory}")
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JaxsolveError(f"cannot create output directory {directory}: {exc.strerror or exc}") from None
    _probe(directory)
    return directory


def _probe(directory: Path) -> None:
    """Create and remove a file in ``directory``: the one sure test that it takes new files."""
    if not os.access(directory, os.W_OK | os.X_OK):
        raise JaxsolveError(f"output directory is not writable: {directory}")
    try:
        fd, name = tempfile.mkstemp(prefix=".jaxsolve-probe.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise JaxsolveError(f"output directory is not writable: {directory} ({exc.strerror or exc})") from None
    os.close(fd)
    _unlink(name)


def _npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_json(obj: object) -> bytes:
    """``obj`` as canonical JSON bytes (sorted keys, no spaces, ASCII): what ``meta_hash`` hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=True, default=_json_default).encode()


def meta_hash(meta: dict) -> str:
    """SHA-256 of a sidecar's canonical JSON without its own ``sidecar_sha256`` entry. The
    sidecar holds the array's SHA-256 too, so this one hash covers the metadata and the array."""
    return _sha256(canonical_json({k: v for k, v in meta.items() if k != "sidecar_sha256"}))


def seal(meta: dict) -> dict:
    """``meta`` (JSON-normalised) with its ``sidecar_sha256`` set."""
    meta = json.loads(canonical_json({k: v for k, v in meta.items() if k != "sidecar_sha256"}))
    return {**meta, "sidecar_sha256": meta_hash(meta)}


def save(path: str | os.PathLike, array: np.ndarray, metadata: dict) -> Path:
    """Write ``array`` to ``path`` and ``metadata`` (plus size, hash, shape, dtype, provenance) beside it."""
    return save_group([(path, array, metadata)])[0]


def member_path(path: str | os.PathLike, key: str) -> Path:
    """``X.npy`` -> ``X-KEY.npy``: where ``save_members`` writes the member ``key``."""
    path = Path(path)
    return path.with_name(f"{path.stem}-{key}.npy")


def written_as(path: str | os.PathLike, meta: dict, key: str | None = None) -> str:
    """The file name the sidecar ``meta`` of the export at ``path`` records for its main array
    (``key`` None) or its member ``key``: the names as written, so that an export renamed as a
    whole (every file's base name changed alike, ``X*.npy`` -> ``Y*.npy``) still matches."""
    base = Path(str(meta.get("file") or Path(path).name))
    return base.name if key is None else member_path(base, key).name


def save_members(path: str | os.PathLike, array: np.ndarray, metadata: dict, members: dict[str, np.ndarray]) -> list[Path]:
    """Write one export of several arrays: ``array`` to ``path``, each of ``members`` to
    ``member_path(path, key)``, and ONE sidecar beside ``path`` that records, under
    ``members``, the file name, shape, dtype, byte size and SHA-256 of every member (its own
    hash covers them). ``load`` then ``load_members`` read it back; a member of another export
    put in its place is refused. Returns ``[path, member paths...]``."""
    if not members or any(not re.fullmatch(r"[a-z][a-z0-9_]*", k) for k in members):
        raise ValueError(f"member keys must be lower-case words, got {list(members)}")
    member_files = {k: check_writable(member_path(path, k)) for k in members}
    blobs = {k: _npy_bytes(np.asarray(a)) for k, a in members.items()}
    record = {
        k: {"file": member_files[k].name, "shape": list(np.asarray(a).shape), "dtype": str(np.asarray(a).dtype), "npy_bytes": len(blobs[k]), "sha256": _sha256(blobs[k])}
        for k, a in members.items()
    }
    return _write([(path, array, {**metadata, "members": record})], extra=[(member_files[k], blobs[k]) for k in members])


def _member_target(path: str | os.PathLike, key: str) -> Path:
    if not re.fullmatch(r"[a-z][a-z0-9_]*", key):
        raise ValueError(f"member keys must be lower-case words, got {key!r}")
    target = check_writable(member_path(path, key))
    remove_stale_temps(target)
    return target


def _member_temp(target: Path) -> tuple[int, str]:
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    return fd, tmp


def _seal_member(tmp: str, target: Path, shape: tuple[int, ...], dtype: DTypeLike) -> dict:
    """Hash a written member's temp file and rename it into place; its record."""
    with open(tmp, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    size = os.path.getsize(tmp)
    os.replace(tmp, target)
    _fsync_dir(target.parent)
    return {"file": target.name, "shape": list(shape), "dtype": str(np.dtype(dtype)), "npy_bytes": size, "sha256": digest}


def write_member(path: str | os.PathLike, key: str, array: np.ndarray) -> dict:
    """Write the member ``key`` of the export at ``path`` now, ahead of its sidecar (a table
    written layer by layer as a solve finishes them): streamed to a temp file, hashed, renamed
    into place. Returns its record (file name, shape, dtype, byte size, SHA-256) for
    ``save_with_members``; until that sidecar is written the member belongs to no export."""
    target = _member_target(path, key)
    array = np.ascontiguousarray(array)
    tmp = ""
    try:
        fd, tmp = _member_temp(target)
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, array, allow_pickle=False)
            fh.flush()
            os.fsync(fh.fileno())
        return _seal_member(tmp, target, array.shape, array.dtype)
    except OSError as exc:
        if tmp:
            _unlink(tmp)
        raise JaxsolveError(f"cannot write {target}: {exc.strerror or exc}") from None
    except BaseException:
        if tmp:
            _unlink(tmp)
        raise


class MemberSink:
    """A member of the export at ``path`` filled in place (a layer larger than memory, written
    in slices as they are solved): ``array`` a ``shape``/``dtype`` memory map of its temp file,
    ``finish()`` flushes it, hashes it and renames it into place, returning its record as
    ``write_member`` does; ``discard()`` removes the temp file (a cut solve)."""

    def __init__(self, path: str | os.PathLike, key: str, shape: tuple[int, ...], dtype: DTypeLike) -> None:
        self.target = _member_target(path, key)
        self.shape, self.dtype = tuple(int(x) for x in shape), np.dtype(dtype)
        self.tmp = ""
        try:
            fd, self.tmp = _member_temp(self.target)
            os.close(fd)
            self.array = np.lib.format.open_memmap(self.tmp, mode="w+", dtype=self.dtype, shape=self.shape)
        except OSError as exc:
            self.discard()
            raise JaxsolveError(f"cannot write {self.target}: {exc.strerror or exc}") from None

    def finish(self) -> dict:
        try:
            self.array.flush()
            del self.array
            with open(self.tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            return _seal_member(self.tmp, self.target, self.shape, self.dtype)
        except OSError as exc:
            self.discard()
            raise JaxsolveError(f"cannot write {self.target}: {exc.strerror or exc}") from None

    def discard(self) -> None:
        if self.tmp:
            _unlink(self.tmp)
            self.tmp = ""


def save_with_members(path: str | os.PathLike, array: np.ndarray, metadata: dict, records: dict[str, dict]) -> list[Path]:
    """Write ``array`` to ``path`` and the ONE sidecar of an export whose members are already
    written (``write_member``'s ``records``), as ``save_members`` would have written them."""
    if not records or any(not re.fullmatch(r"[a-z][a-z0-9_]*", k) for k in records):
        raise ValueError(f"member keys must be lower-case words, got {list(records)}")
    for key, record in records.items():
        if record.get("file") != member_path(path, key).name:
            raise JaxsolveError(f"member {key} was written as {record.get('file')}, not beside {Path(path).name}")
    return [*_write([(path, array, {**metadata, "members": records})]), *(member_path(path, k) for k in records)]


def save_group(items: list[tuple[str | os.PathLike, np.ndarray, dict]]) -> list[Path]:
    """Write several exports, each with its own sidecar, as one unit (one solved game's arrays
    are one export instead: ``save_members``).

    Each sidecar names the size and SHA-256 of its own array and the hashes of the other
    members (``companions``), so a reader can tell a complete group from a mixed one.
    """
    return _write(items)


def _write(items: list[tuple[str | os.PathLike, np.ndarray, dict]], extra: Sequence[tuple[Path, bytes]] = ()) -> list[Path]:
    """Write the exports ``items`` and the member files ``extra`` (already serialised): every
    file to a temp first, then the arrays renamed into place and the sidecars last."""
    from jaxsolve import __version__

    paths = [check_writable(p) for p, _, _ in items]
    extra = list(extra)
    if len({p.resolve() for p in paths + [e for e, _ in extra]}) != len(paths) + len(extra):
        raise JaxsolveError("two files of one export have the same name")
    blobs = [_npy_bytes(np.asarray(a)) for _, a, _ in items]
    hashes = [_sha256(b) for b in blobs]
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    sidecars = []
    for i, ((_, array, metadata), path) in enumerate(zip(items, paths)):
        array = np.asarray(array)
        meta = {
            "format": FORMAT,
            "jaxsolve_version": __version__,
            "created": created,
            "host": platform.node(),
            **metadata,
            "file": path.name,
            "shape": list(array.shape),
            "dtype": str(array.dtype),
            "npy_bytes": len(blobs[i]),
            "sha256": hashes[i],
        }
        if len(items) > 1:
            meta["companions"] = {paths[j].name: hashes[j] for j in range(len(items)) if j != i}
        meta = seal(meta)
        sidecars.append(json.dumps(meta, indent=2, default=_json_default).encode())
    arrays = [e for e, _ in extra] + paths
    targets = arrays + [sidecar_path(p) for p in paths]
    temps: list[str] = []
    try:
        for target in targets:
            remove_stale_temps(target)
        for target, data in zip(targets, [b for _, b in extra] + blobs + sidecars):
            temps.append(_write_temp(target, data))
        # the arrays the present sidecars name stay readable under their hash until the new
        # sidecars are in place: a cut before that leaves the old export, loadable
        for path in paths:
            _keep_old_arrays(path)
        _fsync_dir(paths[0].parent)
        # arrays first, sidecars (with the hashes) last
        for tmp, target in zip(temps, targets):
            os.replace(tmp, target)
        _fsync_dir(paths[0].parent)
        for target in arrays:
            _drop_old_arrays(target)
    except OSError as exc:
        raise JaxsolveError(f"cannot write {paths[0]}: {exc.strerror or exc}") from None
    finally:
        for tmp in temps:
            if os.path.exists(tmp):
                _unlink(tmp)
    return [*paths, *[e for e, _ in extra]]


def old_array_path(path: str | os.PathLike, sha256: str) -> Path:
    """``.X.npy.<first 16 hex digits of its SHA-256>.prev``: where a write keeps the array its
    present sidecar names until the new sidecar is in place."""
    path = Path(path)
    return path.with_name(f".{path.name}.{sha256[:16]}.prev")


def _keep_old_arrays(path: Path) -> None:
    """Hard-link every array the present sidecar of ``path`` names (``path`` and its members)
    to ``old_array_path``, so that the old export stays loadable while the new one's files are
    renamed into place. Nothing when there is no readable sidecar or links are not supported
    (a cut then leaves files that do not match, refused)."""
    side = sidecar_path(path)
    try:
        if side.stat().st_size > MAX_SIDECAR_BYTES:
            return
        meta = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return
    if not isinstance(meta, dict):
        return
    named = [(path, meta.get("sha256"))]
    members = meta.get("members")
    if isinstance(members, dict):
        named += [(path.with_name(str(m.get("file"))), m.get("sha256")) for m in members.values() if isinstance(m, dict)]
    for array, sha in named:
        if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha) or array.parent != path.parent:
            continue
        keep = old_array_path(array, sha)
        if keep.exists() or not array.is_file():
            continue
        try:
            os.link(array, keep)
        except OSError:
            pass


def _drop_old_arrays(path: Path) -> None:
    """Remove the arrays ``_keep_old_arrays`` kept for ``path`` (its new sidecar is in place)."""
    pattern = re.compile(r"^\." + re.escape(path.name) + r"\.[0-9a-f]{16}\.prev$")
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        if pattern.match(entry.name):
            _unlink(str(entry))


def _read_verified(path: Path, size: int, sha256: str, *, kept_only: bool = False) -> bytes | None:
    """The bytes of ``path`` if they have ``size`` and ``sha256``, else those of the old array a
    cut write kept (``old_array_path``) if it has them, else None. ``kept_only``: only the kept one."""
    for candidate in ([] if kept_only else [path]) + [old_array_path(path, sha256)]:
        try:
            if candidate.stat().st_size != size:
                continue
            data = candidate.read_bytes()
        except OSError:
            continue
        if _sha256(data) == sha256:
            return data
    return None


# ----------------------------------------------------------------------------- reading


def _read_sidecar(path: Path) -> dict:
    side = sidecar_path(path)
    if not side.is_file():
        raise JaxsolveError(f"{path} has no metadata sidecar {side.name}; not a jaxsolve export?")
    try:
        size = side.stat().st_size
    except OSError as exc:
        raise JaxsolveError(f"cannot read {side}: {exc.strerror or exc}") from None
    if size > MAX_SIDECAR_BYTES:
        raise JaxsolveError(f"{side} is {size:,} bytes, too large for a jaxsolve export sidecar")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except OSError as exc:
        raise JaxsolveError(f"cannot read {side}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise JaxsolveError(f"{side} is not a JSON sidecar of a jaxsolve export") from None
    if not isinstance(meta, dict):
        raise JaxsolveError(f"{side} is not a jaxsolve export sidecar (a JSON {type(meta).__name__}, not an object)")
    fmt = meta.get("format")
    if isinstance(fmt, str) and fmt in OLD_FORMATS:
        raise JaxsolveError(f"{side} {OLD_FORMATS[fmt]}; solve again to re-export it")
    if fmt != FORMAT:
        raise JaxsolveError(f"{side} is not a {FORMAT} sidecar (format {fmt!r})")
    for key, kind in (("sha256", str), ("npy_bytes", int), ("shape", list), ("dtype", str)):
        if not isinstance(meta.get(key), kind) or isinstance(meta.get(key), bool):
            raise JaxsolveError(f"{side} lacks a valid {key!r} entry")
    if not isinstance(meta.get("sidecar_sha256"), str) or meta["sidecar_sha256"] != meta_hash(meta):
        raise JaxsolveError(f"{side} has been edited: its content does not match its own hash (sidecar_sha256); solve again")
    return meta


def _check_magic(path: Path, data: bytes) -> None:
    if not data:
        raise JaxsolveError(f"{path} is empty, not a .npy array")
    if not data.startswith(NPY_MAGIC):
        kind = "a zip archive (.npz?)" if data.startswith(b"PK") else "not a .npy file"
        raise JaxsolveError(f"{path} is {kind}, not a .npy array")


def _parse_npy(path: Path, data: bytes) -> np.ndarray:
    _check_magic(path, data)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, EOFError, OSError) as exc:
        raise JaxsolveError(f"{path} is not a readable .npy array: {exc}") from None
    if not isinstance(array, np.ndarray):
        raise JaxsolveError(f"{path} is not a single .npy array")
    return array


def load(path: str | os.PathLike, *, game: str | None = None) -> tuple[np.ndarray, dict]:
    """Read an export and its sidecar, checked against each other (size, hash, shape, dtype).

    ``game``: refuse exports of another game. Content checks against the rules are the
    game's (``check_array``, ``rules_from``).
    """
    path = Path(path)
    if path.suffix.lower() == ".json":
        raise JaxsolveError(f"{path} is a sidecar; give its .npy file ({path.with_suffix('.npy')})")
    if not path.is_file():
        raise JaxsolveError(f"no such export file: {path}")
    meta = _read_sidecar(path)
    data = _read_verified(path, meta["npy_bytes"], meta["sha256"], kept_only=True)  # a cut write's old array
    if data is None:
        data = _read_checked(path, meta)
    array = _npy_as_recorded(path, data, meta, "its sidecar's")
    if game is not None:
        check_binding(path, meta, game=game)
    return array, meta


def _npy_as_recorded(path: Path, data: bytes, record: dict, whose: str) -> np.ndarray:
    """The array in ``data``, refused unless of the shape and dtype ``record`` states."""
    array = _parse_npy(path, data)
    if list(array.shape) != record["shape"] or str(array.dtype) != record["dtype"]:
        raise JaxsolveError(f"{path}: {array.dtype} {list(array.shape)} does not match {whose} {record['dtype']} {record['shape']}")
    return array


def _read_checked(path: Path, meta: dict) -> bytes:
    """The bytes of ``path``, refused unless of the size and SHA-256 its sidecar ``meta`` names."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise JaxsolveError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size == 0:
        raise JaxsolveError(f"{path} is empty, not a .npy array")
    if size != meta["npy_bytes"]:  # checked before the file is read: a huge stray file is never loaded
        raise JaxsolveError(
            f"{path} does not match its sidecar {sidecar_path(path).name} ({size:,} bytes, the sidecar says {meta['npy_bytes']:,}): "
            "the pair is out of step, e.g. an interrupted write; solve again"
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise JaxsolveError(f"cannot read {path}: {exc.strerror or exc}") from None
    _check_magic(path, data)
    if len(data) != meta["npy_bytes"] or _sha256(data) != meta["sha256"]:
        raise JaxsolveError(
            f"{path} does not match its sidecar {sidecar_path(path).name} (size or SHA-256 differ): "
            "the pair is out of step, e.g. an interrupted write; solve again"
        )
    return data


def load_members(path: str | os.PathLike, meta: dict, keys: tuple[str, ...], *, some: bool = False) -> dict[str, np.ndarray]:
    """The member arrays ``keys`` of the export at ``path`` (its sidecar ``meta``, from
    ``load`` or ``read_metadata``), each checked against the sidecar's record of it: file name,
    byte size, SHA-256, shape and dtype. A member file of another export (or of an earlier
    write) is refused. ``some``: ``keys`` may be some of the members (the others not read)."""
    path = Path(path)
    side = sidecar_path(path)
    record = meta.get("members")
    if not isinstance(record, dict) or (not set(keys) <= set(record) if some else sorted(record) != sorted(keys)):
        raise JaxsolveError(f"{side} does not name the member arrays {', '.join(keys)} of this export")
    out = {}
    for key in keys:
        entry = record[key]
        member = member_path(path, key)
        if (
            not isinstance(entry, dict)
            or entry.get("file") != written_as(path, meta, key)
            or not isinstance(entry.get("sha256"), str)
            or not isinstance(entry.get("npy_bytes"), int)
            or not isinstance(entry.get("shape"), list)
            or not isinstance(entry.get("dtype"), str)
        ):
            raise JaxsolveError(f"{side} lacks a valid record of its member {member.name}")
        found = _read_verified(member, entry["npy_bytes"], entry["sha256"])
        if found is None and not member.is_file():
            raise JaxsolveError(f"{path}: its member file {member.name} is missing{_renamed_hint(path, meta)}")
        if found is None:
            raise JaxsolveError(
                f"{member} is not the {key} array {side.name} names (size or SHA-256 differ): a file of another export "
                "or an interrupted write; solve again"
            )
        out[key] = _npy_as_recorded(member, found, entry, "its record")
    return out


def _renamed_hint(path: str | os.PathLike, meta: dict) -> str:
    """Why a member may be missing: the export renamed in part (its sidecar and main file, not
    its members), else that it must be solved again."""
    first = written_as(path, meta)
    if first != Path(path).name:
        return f" (the export was written as {first}: rename all of its files alike, or solve again)"
    return "; solve again"


def load_group(paths: list[str | os.PathLike], *, game: str | None = None) -> list[tuple[np.ndarray, dict]]:
    """``load`` each member of a group written by ``save_group`` and check they belong together."""
    out = [load(p, game=game) for p in paths]
    names = [Path(p).name for p in paths]
    for i, (_, meta) in enumerate(out):
        comp = meta.get("companions")
        if not isinstance(comp, dict):
            raise JaxsolveError(f"{sidecar_path(paths[i])} does not name the other files of its export")
        for j, (_, other) in enumerate(out):
            if j != i and comp.get(names[j]) != other["sha256"]:
                raise JaxsolveError(
                    f"{paths[i]} and {paths[j]} are not from the same export (out of step, e.g. an interrupted write); solve again"
                )
    return out


def describe(meta: dict) -> str:
    """``game/rules/objective/dtype`` of a sidecar (``?`` for what it does not say)."""
    rules = meta.get("rules")
    name = rules.get("name", "?") if isinstance(rules, dict) else "?"
    parts = [str(meta.get("game", "?")), str(name)]
    if "objective" in meta:
        parts.append(str(meta["objective"]))
    parts.append(str(meta.get("dtype", "?")))
    return "/".join(parts)


def check_binding(path: str | os.PathLike, meta: dict, *, game: str | None = None, rules: Rules | dict | None = None, objective: str | None = None, dtype: str | None = None) -> dict:
    """Refuse an export that is not the table asked for: of another ``game``, other ``rules``
    (every field, compared as the sidecar states them, not only the name), another
    ``objective`` or another ``dtype``. The one line names both (``game/rules/objective/dtype``).
    ``None`` skips that part; ``objective`` is compared where the sidecar states one."""
    wanted_rules = rules.to_dict() if rules is not None and hasattr(rules, "to_dict") else rules
    have_rules = meta.get("rules")
    bad = (
        (game is not None and meta.get("game") != game)
        or (wanted_rules is not None and canonical_json(have_rules) != canonical_json(wanted_rules))
        or (objective is not None and "objective" in meta and meta.get("objective") != objective)
        or (dtype is not None and meta.get("dtype") != dtype)
    )
    if bad:
        want = {"game": game if game is not None else meta.get("game"), "dtype": dtype if dtype is not None else meta.get("dtype")}
        want["rules"] = wanted_rules if wanted_rules is not None else have_rules
        if "objective" in meta:
            want["objective"] = objective if objective is not None else meta.get("objective")
        held = describe(meta)
        if wanted_rules is None and objective is None and dtype is None:
            raise JaxsolveError(f"{path} holds a table of {meta.get('game')!r} ({held}), not {game}")
        asked = describe(want)
        same = " (other rules under the same name)" if asked == held else ""
        raise JaxsolveError(f"{path} holds the {held} table{same}, not {asked}")
    return meta


def check_preset_name(path: str | os.PathLike, game: str, rules: Rules, presets: Presets | None) -> None:
    """Refuse rules that carry the name of one of ``presets`` (``game``'s, given by the game's
    loader) but not its content (a sidecar whose rules were renamed): a table is never answered
    under a name it was not solved for. ``presets`` None: nothing to compare with."""
    if presets is None or rules.name not in presets:
        return
    if presets[rules.name] != rules:
        raise JaxsolveError(f"{sidecar_path(path)}: its rules are named {rules.name!r}, a preset of {game}, but differ from that preset")


def read_metadata(path: str | os.PathLike) -> dict:
    """The validated sidecar of ``path`` (format, required entries, its own hash), without
    reading the array."""
    return _read_sidecar(Path(path))


def open_table(path: str | os.PathLike, *, what: str, objective: str, cls: type[_R], game: str | None = None, rules: Rules | dict | None = None) -> tuple[Path, dict, _R]:
    """``(path, sidecar, rules)`` of an export that must hold ``objective`` (``what`` names it in
    the errors): the file there, its sidecar valid and bound to ``game`` / ``rules`` where given,
    its rules a ``cls``."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        raise JaxsolveError(f"{p} is the sidecar of a {what}; give its .npy file ({p.with_suffix('.npy')})")
    layer = re.fullmatch(r"(.+)-layer_\d+\.npy", p.name)
    if layer and (p.parent / f"{layer.group(1)}.npy").is_file():
        raise JaxsolveError(f"{p} is one layer of a {what}; give the table's first file ({p.parent / f'{layer.group(1)}.npy'})")
    if not p.is_file():
        raise JaxsolveError(f"no such {what}: {p}")
    meta = read_metadata(p)
    check_binding(p, meta, game=game, rules=rules)
    if meta.get("objective") != objective:
        raise JaxsolveError(f"{sidecar_path(p)}: not a {what} (objective {meta.get('objective')!r})")
    return p, meta, rules_from(p, meta, cls)


def rules_from(path: str | os.PathLike, meta: dict, cls: type[_R]) -> _R:
    """The sidecar's ``rules`` as a ``cls`` (a rules dataclass): every field, no other, valid."""
    side = sidecar_path(path)
    rules = meta.get("rules")
    if not isinstance(rules, dict):
        raise JaxsolveError(f"{side} has no rules object")
    names = {f.name for f in dataclasses.fields(cls)}
    unknown, missing = sorted(set(rules) - names), sorted(names - set(rules))
    if unknown:
        raise JaxsolveError(f"{side}: unknown rules field(s) {', '.join(map(repr, unknown))}")
    if missing:
        raise JaxsolveError(f"{side}: rules field(s) missing: {', '.join(missing)}")
    try:
        return cls.from_dict(rules)
    except JaxsolveError as exc:
        raise JaxsolveError(f"{side}: invalid rules: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise JaxsolveError(f"{side}: invalid rules: {exc}") from None


def check_array(
    path: str | os.PathLike,
    array: np.ndarray,
    *,
    shape: tuple[int, ...],
    dtypes: tuple[str, ...],
    defined: np.ndarray | None = None,
    low: float | None = None,
    high: float | None = None,
    what: str = "",
) -> np.ndarray:
    """Check an export's array against what its rules imply.

    ``shape`` and ``dtypes`` (names) must match; for a float array NaN must be exactly where
    ``defined`` is False (``defined=None``: nowhere) and every other entry finite and within
    ``[low, high]``; for an integer array every entry must be within ``[low, high]``.
    """
    what = f" for {what}" if what else ""
    if tuple(array.shape) != tuple(shape):
        raise JaxsolveError(f"{path}: shape {list(array.shape)} does not fit the rules{what}: expected {list(shape)}")
    if array.dtype.name not in dtypes:
        raise JaxsolveError(f"{path}: dtype {array.dtype.name}{what}; expected {' or '.join(dtypes)}")
    if np.issubdtype(array.dtype, np.floating):
        nan = np.isnan(array)
        if defined is None:
            defined = np.ones(array.shape, bool)
        if (nan & defined).any():
            raise JaxsolveError(f"{path}: NaN at {int((nan & defined).sum()):,} reachable state(s); not a complete solution")
        if (~nan & ~defined).any():
            raise JaxsolveError(f"{path}: values at {int((~nan & ~defined).sum()):,} unreachable state(s), which must be NaN")
        vals = array[defined]
        if not np.isfinite(vals).all():
            raise JaxsolveError(f"{path}: infinite values at {int((~np.isfinite(vals)).sum()):,} state(s)")
    else:
        vals = array if defined is None else array[defined]
    if vals.size and low is not None and vals.min() < low:
        raise JaxsolveError(f"{path}: value {vals.min()} below {low}{what}")
    if vals.size and high is not None and vals.max() > high:
        raise JaxsolveError(f"{path}: value {vals.max()} above {high}{what}")
    return array


def _json_default(obj: object) -> int | float | list:
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


__all__ = [
    "FORMAT",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_array",
    "check_binding",
    "check_preset_name",
    "describe",
    "meta_hash",
    "read_metadata",
    "seal",
    "check_output_dir",
    "check_writable",
    "load",
    "load_group",
    "load_members",
    "member_path",
    "remove_stale_temps",
    "rules_from",
    "save",
    "save_group",
    "save_members",
    "sidecar_path",
]
