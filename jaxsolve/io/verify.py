"""How every stored table proves what it is each time it is read: the one verification policy.

A table (an export, a cache entry, a two-player set, a target or distribution table) is read
through ``jaxsolve.io.export``, which checks the sidecar's own hash, every array's byte size and
SHA-256 against it, the game, the rules and the objective. Those checks prove only that the
files are the ones the sidecar names; a sidecar written again over altered arrays passes them.
So every loader of a layered table also recomputes, from the rules, a random sample of rows of
every layer it reads (from the layer after it) and compares them with the stored rows:

* ``sample_rows``: ``SAMPLE_ROWS`` rows drawn at random, afresh on every load, without
  replacement (all rows of a smaller layer). A layer of which a tenth of the rows were altered
  passes with probability ``0.9 ** SAMPLE_ROWS`` (below ``MISS``). Where each channel of a row
  costs a turn of its own (the two-player leads), each sampled row is recomputed at
  ``SAMPLE_COLUMNS`` random channels (``sample_columns``);
* ``map_array``: a large file (over ``WHOLE_HASH_BYTES``) read memory-mapped is hashed in full
  on its first read from the solution store and later trusted by a note of that hash beside it
  (hash, size, modification time): the note saves reading gigabytes, but never the recomputed
  sample, which is what catches bytes altered in place with the time kept. A smaller file is
  hashed whole on every read, note or not.

``compare_rows`` is the one check of a recomputed sample, with the one error message.
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import numpy as np

from jaxsolve.errors import JaxsolveError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

ALTERED_FRACTION = 0.1
"""The share of a layer's rows an alteration must not hide in: a sample catches it almost surely."""
MISS = 1e-3
"""The largest chance that a layer with ``ALTERED_FRACTION`` of its rows altered passes a load."""
SAMPLE_ROWS = math.ceil(math.log(MISS) / math.log(1.0 - ALTERED_FRACTION))
"""Rows of every layer recomputed on every load: 66 (0.9^66 = 9.6e-4)."""
SAMPLE_COLUMNS = 16
"""Channels of each sampled row recomputed where each channel costs a turn of its own (the
two-player table's leads); every channel where the channels come at once (target, distribution)."""
WHOLE_HASH_BYTES = 64 << 20
"""Files up to this size are hashed whole on every read; larger ones once, then by their note."""


def sample_rows(rows: int, count: int = SAMPLE_ROWS, rng: np.random.Generator | None = None) -> np.ndarray:
    """``min(count, rows)`` distinct row indices of a layer of ``rows`` rows, sorted, drawn
    uniformly at random (a fresh generator by default, so no two loads check the same rows)."""
    rows = int(rows)
    if rows <= count:
        return np.arange(rows, dtype=np.int64)
    rng = np.random.default_rng() if rng is None else rng
    return np.sort(rng.choice(rows, size=int(count), replace=False)).astype(np.int64)


def sample_columns(rows: int, width: int, count: int = SAMPLE_COLUMNS, rng: np.random.Generator | None = None) -> np.ndarray:
    """``[rows, min(count, width)]``: for each sampled row, distinct channels drawn at random (for
    tables whose recomputation costs as much per channel as per row: the two-player leads)."""
    if width <= count:
        return np.broadcast_to(np.arange(width, dtype=np.int64), (int(rows), int(width))).copy()
    rng = np.random.default_rng() if rng is None else rng
    return np.sort(rng.random((int(rows), int(width))).argsort(axis=1)[:, :count], axis=1).astype(np.int64)


def compare_rows(path: str | Path, what: str, stored: ArrayLike, recomputed: ArrayLike, tolerance: float) -> None:
    """Refuse, in one line naming ``path`` and ``what`` (e.g. ``layer 7``), a sample whose stored
    rows differ from the rows recomputed from the rules by more than ``tolerance``."""
    stored = np.asarray(stored, np.float64)
    recomputed = np.asarray(recomputed, np.float64)
    if stored.shape != recomputed.shape:
        raise JaxsolveError(f"{path}: {what} has rows of shape {stored.shape[1:]}, the rules give {recomputed.shape[1:]}")
    worst = float(np.abs(stored - recomputed).max(initial=0.0))
    if not worst <= tolerance:
        raise JaxsolveError(
            f"{path}: {what} does not follow from the rules (rows recomputed on loading differ by {worst:.3g}): "
            "the table was altered or written by another solver; solve it again"
        )


def seal_of(record: dict, st: os.stat_result) -> str:
    """What a full check of a file notes beside it: its recorded SHA-256, size and modification
    time (a file changed since no longer matches the note)."""
    return f"{record['sha256']} {st.st_size} {st.st_mtime_ns}"


def trusts_note(size: int) -> bool:
    """Whether a file of ``size`` bytes may be trusted by the note of an earlier full hash
    (``WHOLE_HASH_BYTES``); a smaller file is hashed whole on every read."""
    return int(size) > WHOLE_HASH_BYTES


def map_array(path: Path, record: dict, shape: tuple[int, ...], dtype: str, check: Callable[[np.ndarray], None], *, name: str | None = None) -> np.ndarray:
    """The ``.npy`` file ``path`` memory-mapped read-only, refused unless it is the array its
    sidecar's ``record`` names (byte size, SHA-256; file name ``name``, default ``path.name``)
    of ``shape`` and ``dtype``, with values that pass ``check``. The hash and ``check`` read the
    whole file; a file over ``WHOLE_HASH_BYTES`` in the solution store is then noted as checked
    (``cache.mark_sealed``) and a later read of the same file (same hash, size and time) skips
    both. The caller recomputes a sample of rows (``sample_rows``) on every read."""
    from jaxsolve.io import cache, export

    if record.get("file") != (path.name if name is None else name) or not isinstance(record.get("sha256"), str) or not isinstance(record.get("npy_bytes"), int):
        raise JaxsolveError(f"{export.sidecar_path(path)} lacks a valid record of {path.name}")
    try:
        st = path.stat()
    except OSError:
        raise JaxsolveError(f"{path} is missing; export the table again") from None
    if st.st_size != record["npy_bytes"]:
        raise JaxsolveError(f"{path} does not match its sidecar ({st.st_size:,} bytes, the sidecar says {record['npy_bytes']:,}): out of step; export again")
    seal = seal_of(record, st)
    try:
        in_store = path.resolve().is_relative_to((cache.root() / cache.TABLES).resolve())
    except OSError:
        in_store = False
    known = in_store and trusts_note(st.st_size) and cache.sealed(path, seal)
    try:
        if not known:
            with open(path, "rb") as fh:
                if not fh.read(len(export.NPY_MAGIC)) == export.NPY_MAGIC:
                    raise JaxsolveError(f"{path} is not a .npy array")
                fh.seek(0)
                if hashlib.file_digest(fh, "sha256").hexdigest() != record["sha256"]:
                    raise JaxsolveError(f"{path} does not match its sidecar (SHA-256 differs): out of step, e.g. an interrupted write; export again")
        a = np.load(path, mmap_mode="r", allow_pickle=False)
    except OSError as exc:
        raise JaxsolveError(f"cannot read {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise JaxsolveError(f"{path} is not a readable .npy array: {exc}") from None
    if a.shape != tuple(shape) or str(a.dtype) != dtype:
        raise JaxsolveError(f"{path}: {a.dtype} {list(a.shape)}, its sidecar says {dtype} {list(shape)}")
    if not known:
        check(a)
        if in_store and trusts_note(st.st_size):
            cache.mark_sealed(path, seal)
    return a


def seal_export(path: str | Path) -> None:
    """Note every large file of the export at ``path`` (in the solution store) as checked, as a
    full check would (``map_array``): for a table this process has just written from its solve."""
    from jaxsolve.io import cache, export

    p = Path(path)
    meta = export.read_metadata(p)
    members: dict = meta["members"] if isinstance(meta.get("members"), dict) else {}
    for file, record in [(p, meta)] + [(export.member_path(p, k), r) for k, r in sorted(members.items())]:
        st = file.stat()
        if trusts_note(st.st_size):
            cache.mark_sealed(file, seal_of(record, st))
