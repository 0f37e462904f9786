"""Atomic ``.npy`` exports with a JSON sidecar that says what the array holds."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import tempfile
from pathlib import Path

import numpy as np

from jaxsolve.errors import JaxsolveError

FORMAT = "jaxsolve-export/1"


def sidecar_path(path: str | os.PathLike) -> Path:
    """``values.npy`` -> ``values.json``."""
    return Path(path).with_suffix(".json")


def _atomic_write(path: Path, write) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def check_writable(path: str | os.PathLike, suffix: str = ".npy") -> Path:
    """Fail early, with a clear message, when ``path`` cannot be written as a ``suffix`` file."""
    path = Path(path)
    if path.suffix.lower() != suffix:
        raise JaxsolveError(f"output path must end in {suffix}: {path}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise JaxsolveError(f"output directory does not exist: {parent}")
    if not os.access(parent, os.W_OK):
        raise JaxsolveError(f"output directory is not writable: {parent}")
    if path.exists() and path.is_dir():
        raise JaxsolveError(f"output path is a directory: {path}")
    return path


def save(path: str | os.PathLike, array: np.ndarray, metadata: dict) -> Path:
    """Write ``array`` to ``path`` and ``metadata`` (plus shape/dtype/provenance) beside it."""
    from jaxsolve import __version__

    path = check_writable(path)
    array = np.asarray(array)
    meta = {
        "format": FORMAT,
        "jaxsolve_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "host": platform.node(),
        "file": path.name,
        "shape": list(array.shape),
        "dtype": str(array.dtype),
        **metadata,
    }
    try:
        _atomic_write(path, lambda fh: np.save(fh, array, allow_pickle=False))
        text = json.dumps(meta, indent=2, default=_json_default).encode()
        _atomic_write(sidecar_path(path), lambda fh: fh.write(text))
    except OSError as exc:
        raise JaxsolveError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def load(path: str | os.PathLike) -> tuple[np.ndarray, dict]:
    """Read an export and its metadata; clear errors for missing or foreign files."""
    path = Path(path)
    if not path.is_file():
        raise JaxsolveError(f"no such export file: {path}")
    side = sidecar_path(path)
    if not side.is_file():
        raise JaxsolveError(f"{path} has no metadata sidecar {side.name}; not a jaxsolve export?")
    try:
        meta = json.loads(side.read_text())
        array = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise JaxsolveError(f"cannot read export {path}: {exc}") from None
    if meta.get("format") != FORMAT:
        raise JaxsolveError(f"{side} is not a {FORMAT} sidecar")
    if list(array.shape) != meta.get("shape"):
        raise JaxsolveError(f"{path}: shape {array.shape} does not match its metadata {meta.get('shape')}")
    return array, meta


def _json_default(obj):
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
