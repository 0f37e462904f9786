"""Every layer of a two-player solve (``twoplayer``) kept in the solution store, written as the
solve finishes each layer, so the whole two-player Yacht (2.04 x 10^9 state-lead values, 8.2 GB
in float32) is kept without ever holding more than two layers in memory (docs/twoplayer.md).

The store entry is one export (``jaxsolve.io.export``) of several arrays, like the target
table's (``target.save_table``): the first layer (the start, both sheets as prefilled) in
``<cache>/tables/<game>/<rules>-<hash>-twoplayer_<tie>-<dtype>.npy`` and each later layer ``n``
beside it as the member ``layer_n``, each written into its memory-mapped temp file a slice at a
time and hashed and renamed the moment the layer is done (``twoplayer.solve(sink=)``,
``export.MemberSink``). An end-game set (every position with at most K open boxes each,
objective ``twoplayer_<tie>_open<K>``) keeps the end of the game in the entry's own file and
every solved layer, its largest first, as members (``main_layer``). The sidecar, written last, names every member's size and SHA-256, the rules,
the tie rule, the dtype and the layer plans, so until a solve has finished there is no entry
(``load`` answers None) and a layer of another solve is refused.

``load`` memory-maps every layer (``verify.map_array``): each checked in full (its SHA-256,
values finite and in [0, 1], the last layer the end of the game), a large one once, then trusted
by the note of that check beside it; on every load, note or not, a random sample of rows of every
layer (``verify.sample_rows``) is recomputed from the layer below (one turn in NumPy) and compared.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from jaxsolve.core import dice
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.objectives.distribution import max_turn_reward
from jaxsolve.games.category.sheets.rules import CategoryRules

DTYPES = ("float32", "float64")
CHECK_TOLERANCE = {"float32": 2e-5, "float64": 1e-12}
"""How far a recomputed row may differ from the stored one (the solve and the check sum the
same terms in other orders; float32 rounding over 26 layers stays below 1e-6)."""


def objective(tie: str, open_boxes: int | None = None) -> str:
    """The store's objective name of a tie rule (``twoplayer_share``, ...), of an end-game set
    ``twoplayer_share_open2`` (every position with at most 2 open boxes each)."""
    if tie not in twoplayer.TIES:
        raise JaxsolveError(f"tie must be one of {', '.join(twoplayer.TIES)}, got {tie!r}")
    return f"twoplayer_{tie}" + ("" if open_boxes is None else f"_open{int(open_boxes)}")


def store_path(game: str, rules: CategoryRules, tie: str = "share", dtype: str = "float32", open_boxes: int | None = None) -> Path:
    """Where the whole two-player game of ``rules`` (tie rule ``tie``; with ``open_boxes``, its
    end-game set) lies in the solution store: ``<cache>/tables/<game>/<rules>-<hash>-<objective>
    -<dtype>.npy``, its layers beside it as ``...-layer_<n>.npy``."""
    from jaxsolve.io import cache

    if dtype not in DTYPES:
        raise JaxsolveError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    return cache.entry_path(game, rules, objective(tie, open_boxes), dtype)


def game_plans(rules: CategoryRules, open_boxes: int | None = None) -> tuple[tuple, list]:
    """``(sheets, plans)`` of the whole game, or of its end-game set (``twoplayer.end_plans``)."""
    sheets = (twoplayer.player_sheets(rules, 0), twoplayer.player_sheets(rules, 0))
    plans = twoplayer.plan_layers(rules, sheets)
    return sheets, plans if open_boxes is None else twoplayer.end_plans(rules, plans, int(open_boxes))


def main_layer(plans: list, open_boxes: int | None) -> int:
    """The layer held in an entry's own file (the others are its members): the start of the
    whole game (one row), or the end of the game for an end-game set (whose first layer is its
    largest, written in slices as a member)."""
    return plans[0].n if open_boxes is None else plans[-1].n


CORE_US_PER_VALUE = 1.2
"""Core-microseconds per state-lead value of a float32 solve, from the whole two-player Yacht's
solve measured in results/twoplayer/yacht.md."""


@dataclasses.dataclass(frozen=True)
class Size:
    """What a whole two-player solve of some rules takes, counted before solving: the pairs
    of sheets and state-lead values, per layer its pairs, the bytes on disk, the memory it holds
    at most (``estimate``) and its CPU time at ``CORE_US_PER_VALUE``."""

    pairs: int
    values: int
    layer_pairs: dict
    largest_row: int
    disk_bytes: int
    memory_bytes: int

    @property
    def core_seconds(self) -> float:
        return self.values * CORE_US_PER_VALUE * 1e-6

    def check(self, folder: Path, memory: int | None = None, free: int | None = None) -> None:
        """Refuse, with one line, a solve that cannot run here: a layer of more rows than int32
        counts, more memory than this machine has (``memory``, default its physical memory) or
        more bytes than the disk under ``folder`` has free (``free``)."""
        import os
        import shutil

        if self.largest_row > twoplayer.MAX_ROWS:
            raise JaxsolveError(f"{self.largest_row:,} pairs of sheets in one layer: too many for int32 rows; this game is too large for a two-player table")
        if memory is None:
            try:
                memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            except (ValueError, OSError, AttributeError):
                memory = None
        if memory is not None and self.memory_bytes > memory:
            raise JaxsolveError(f"the two-player table needs about {self.memory_bytes / 2**30:,.1f} GiB of memory while solving; this machine has {memory / 2**30:,.1f} GiB")
        if free is None:
            probe = Path(folder)
            while not probe.exists() and probe != probe.parent:
                probe = probe.parent
            try:
                free = shutil.disk_usage(probe).free
            except OSError:
                free = None
        if free is not None and self.disk_bytes > free:
            raise JaxsolveError(f"the two-player table takes {self.disk_bytes / 2**30:,.1f} GiB on disk; {folder} has {free / 2**30:,.1f} GiB free")


def estimate(rules: CategoryRules, dtype=np.float32, open_boxes: int | None = None) -> Size:
    """The ``Size`` of the whole two-player game of ``rules`` or of its end-game set (the
    sheets are listed, nothing solved: seconds for Yacht). Each layer is written to disk in
    slices (``twoplayer.solve(sink=)``), so memory holds the layer below whole (padded, twice)
    and at most ``twoplayer.DEFAULT_SLICE_BYTES`` of the layer being solved (three times)."""
    _, plans = game_plans(rules, open_boxes)
    item = np.dtype(dtype).itemsize
    values = sum(p.pairs * p.width for p in plans)
    pad = max_turn_reward(rules)
    held = max(2 * q.pairs * (q.width + pad) * item + 3 * min(p.pairs * p.width * item, twoplayer.DEFAULT_SLICE_BYTES)
               for p, q in zip(plans, plans[1:]))
    return Size(
        pairs=sum(p.pairs for p in plans[:-1]), values=sum(p.pairs * p.width for p in plans[:-1]), layer_pairs={p.n: p.pairs for p in plans[:-1]},
        largest_row=max(p.pairs for p in plans), disk_bytes=values * item, memory_bytes=held,
    )


def _plan_dicts(plans) -> list[dict]:
    return [dataclasses.asdict(p) for p in plans]


def _sheet_counts(sheets) -> list[list[int]]:
    return [[s.count(k) for k in range(len(s.filled))] for s in sheets]


class Writer:
    """``on_values`` of ``twoplayer.solve`` writing each layer into the store as it is done
    (``export.write_member``), then ``finish`` the first layer and the sidecar.

    Any entry already at the path is removed first, so a cut solve leaves no entry (its layer
    files are overwritten by the next solve)."""

    def __init__(self, path: Path, *, game: str, rules: CategoryRules, tie: str, dtype: str, open_boxes: int | None = None):
        from jaxsolve.io import export

        self.path, self.game, self.rules, self.tie, self.dtype = Path(path), game, rules, tie, dtype
        self.open_boxes = None if open_boxes is None else int(open_boxes)
        self.sheets, self.plans = game_plans(rules, self.open_boxes)
        self.main = main_layer(self.plans, self.open_boxes)
        self.records: dict[str, dict] = {}
        self.sinks: dict[int, export.MemberSink] = {}
        self.first: np.ndarray | None = None
        self.bytes = 0
        export.check_writable(self.path)
        for old in (self.path, export.sidecar_path(self.path)):
            try:
                old.unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise JaxsolveError(f"cannot remove the old entry {old}: {exc.strerror or exc}") from None

    def __call__(self, n: int, values: np.ndarray) -> None:
        from jaxsolve.io import export

        p = self.plans[n - self.plans[0].n]
        if values.shape != (p.pairs, p.width) or str(values.dtype) != self.dtype:
            raise JaxsolveError(f"layer {n} is {values.dtype} {values.shape}, the store expects {self.dtype} {(p.pairs, p.width)}")
        if n == self.main:
            self.first = np.array(values)
            return
        sink = self.sinks.pop(n, None)
        record = sink.finish() if sink is not None else export.write_member(self.path, f"layer_{n}", np.asarray(values))
        self.records[f"layer_{n}"] = record
        self.bytes += record["npy_bytes"]

    def sink(self, p: twoplayer.LayerPlan) -> np.ndarray:
        """Where ``twoplayer.solve(sink=)`` assembles layer ``p``: its member's file, memory-mapped
        (``export.MemberSink``; the main layer in memory)."""
        from jaxsolve.io import export

        if p.n == self.main:
            return np.empty((p.pairs, p.width), self.dtype)
        self.sinks[p.n] = export.MemberSink(self.path, f"layer_{p.n}", (p.pairs, p.width), self.dtype)
        return self.sinks[p.n].array

    def discard(self) -> None:
        """Remove the temp files of layers not finished (a cut solve)."""
        for sink in self.sinks.values():
            sink.discard()
        self.sinks.clear()

    def finish(self, table: twoplayer.TwoPlayerTables) -> list[Path]:
        """Write the first layer and the sidecar (naming every layer), and note every file as
        checked (``verify.seal_export``: a first ``load`` does not hash 8 GB again)."""
        from jaxsolve.io import export, verify

        missing = [p.n for p in self.plans if p.n != self.main and f"layer_{p.n}" not in self.records]
        if self.first is None or missing:
            raise JaxsolveError(f"the solve did not hand over every layer (missing: {missing or [self.main]})")
        meta = {
            "game": self.game,
            "rules": self.rules.to_dict(),
            "objective": objective(self.tie, self.open_boxes),
            "tie": self.tie,
            "tie_value": twoplayer.TIES[self.tie],
            "value_meaning": "P(the player to move wins), both playing to win; a tie worth tie_value to the player who started; "
            "row i_other * movers + i_mover, column lead + low (twoplayer.TwoPlayerTables)",
            "prefilled": [0, 0],
            "first_layer": self.plans[0].n,
            "main_layer": self.main,
            "open_boxes": self.open_boxes,
            "layers": _plan_dicts(self.plans),
            "sheets": _sheet_counts(self.sheets),
            "start": float(table.start) if self.open_boxes is None else None,
            "solve_seconds": float(table.seconds),
            "compile_seconds": float(table.compile_seconds),
            "device": table.device,
        }
        paths = export.save_with_members(self.path, self.first, meta, self.records)
        verify.seal_export(self.path)
        self.bytes += int(export.read_metadata(self.path)["npy_bytes"])
        return paths


def save(game: str, rules: CategoryRules, *, tie: str = "share", dtype=np.float32, path: Path | None = None, open_boxes: int | None = None,
         **options) -> tuple[twoplayer.TwoPlayerTables, Writer]:
    """Solve the whole two-player game of ``rules`` (with ``open_boxes``: every position where
    both players have at most that many boxes open) and keep every layer in the store (or at
    ``path``), written in slices as they are solved (``options``: those of ``twoplayer.solve``
    but ``keep``, ``on_values``, ``sink``, ``shapes``). Returns the solve (its first layer
    only) and the writer (``bytes``)."""
    name = str(np.dtype(dtype))
    out = store_path(game, rules, tie, name, open_boxes) if path is None else Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = Writer(out, game=game, rules=rules, tie=tie, dtype=name, open_boxes=open_boxes)
    try:
        table = twoplayer.solve(rules, tie=tie, dtype=np.dtype(dtype), keep="start", on_values=writer, sink=writer.sink, shapes="layer",
                                open_boxes=open_boxes, **options)
        writer.finish(table)
    finally:
        writer.discard()
    return table, writer


def load(rules: CategoryRules, tie: str, game: str, *, dtype: str = "float32", path: Path | None = None,
         open_boxes: int | None = None) -> twoplayer.TwoPlayerTables | None:
    """The stored two-player game of ``rules`` under the tie rule ``tie`` (with ``open_boxes``:
    its end-game set; every layer, memory-mapped read-only), or None when the store holds none
    (or is off: ``--no-cache``). Refused with one clear line
    (``JaxsolveError``) when broken or not this game's: the sidecar's own hash, the game, every
    rules field, the tie rule and dtype, the layer plans and sheet counts the rules give, each
    layer's file name, size and SHA-256 (checked once, then trusted by its note), values in
    [0, 1], the last layer the end of the game, and a random sample of rows of each layer
    (``verify.sample_rows``) recomputed from the layer below."""
    from jaxsolve.io import export, verify

    from jaxsolve.io import cache

    if path is None and not cache.enabled():  # --no-cache: the store is not read
        return None
    p = store_path(game, rules, tie, dtype, open_boxes) if path is None else Path(path)
    if not p.exists() and not p.is_symlink():
        return None
    if not p.is_file():
        raise JaxsolveError(f"{p} is not a regular file")
    meta = export.read_metadata(p)
    export.check_binding(p, meta, game=game, rules=rules, objective=objective(tie, open_boxes), dtype=dtype)
    side = export.sidecar_path(p)
    sheets, plans = game_plans(rules, open_boxes)
    main = main_layer(plans, open_boxes)
    if meta.get("tie") != tie or meta.get("layers") != _plan_dicts(plans) or meta.get("sheets") != _sheet_counts(sheets):
        raise JaxsolveError(f"{side}: its tie rule, layers or sheets are not those of {rules.name} with ties {tie}")
    members = meta.get("members")
    if not isinstance(members, dict):
        raise JaxsolveError(f"{side} names no layer files")
    last = plans[-1]
    layers: list = [None] * (2 * rules.num_boxes + 1)
    for plan in plans:
        record = meta if plan.n == main else members.get(f"layer_{plan.n}")
        if not isinstance(record, dict):
            raise JaxsolveError(f"{side} does not name the layer file layer_{plan.n}")
        file = p if plan.n == main else export.member_path(p, f"layer_{plan.n}")

        def check(v: np.ndarray, plan: twoplayer.LayerPlan = plan, file: Path = file) -> None:
            _check_values(file, v, plan, twoplayer.TIES[tie] if plan is last else None)

        name = export.written_as(p, meta, None if plan.n == main else f"layer_{plan.n}")
        layers[plan.n] = verify.map_array(file, record, (plan.pairs, plan.width), dtype, check, name=name)
    table = twoplayer.TwoPlayerTables(rules, tie, sheets, plans, layers, float(meta.get("solve_seconds", 0.0)),
                                      float(meta.get("compile_seconds", 0.0)), str(meta.get("device", "")))
    for plan in reversed(plans[:-1]) if not rules.has_instant_bonus else ():  # deepest first: a wrong layer is named, not the one above it
        _check_rows(p, table, plan, CHECK_TOLERANCE[dtype])
    return table


def _check_values(path: Path, v: np.ndarray, plan: twoplayer.LayerPlan, tie_value: float | None, block: int = 1 << 16) -> None:
    """A layer's values finite and in [0, 1] (a block of rows at a time); the last layer (both
    sheets full) 1 above lead 0, ``tie_value`` at 0, 0 below."""
    for r0 in range(0, len(v), block):
        b = np.asarray(v[r0: r0 + block])
        if not np.all(np.isfinite(b)) or b.min(initial=0.0) < 0.0 or b.max(initial=1.0) > 1.0:
            raise JaxsolveError(f"{path}: layer {plan.n} holds values outside [0, 1]")
        if tie_value is not None:
            want = np.zeros(plan.width, b.dtype)
            want[plan.low] = tie_value
            if not np.array_equal(b, np.broadcast_to(want, b.shape)):
                raise JaxsolveError(f"{path}: layer {plan.n} is not the end of the game (lead 0 worth {tie_value}, the rest 0)")


def recompute_rows(table: twoplayer.TwoPlayerTables, n: int, rows, columns=None) -> np.ndarray:
    """``[len(rows), width]``: rows of layer ``n`` computed again from layer ``n + 1`` (one turn,
    NumPy float64, every lead of the layer's window): the start-of-turn value of each position,
    the mean over the first throw of the best play (``twoplayer.turn_arrays``). ``columns``
    (``[len(rows), c]``, indices ``lead + low``): only those entries of each row."""
    p = table.plan(n)
    rules = table.rules
    sp = tables.space(rules.dice)
    rows = np.asarray(rows, np.int64)
    cols = np.broadcast_to(np.arange(p.width, dtype=np.int64), (len(rows), p.width)) if columns is None else np.asarray(columns, np.int64)
    movers = np.repeat(rows % p.movers, cols.shape[1])
    others = np.repeat(rows // p.movers, cols.shape[1])
    _, final, keeps = twoplayer.turn_arrays(table, p, movers, others, cols.reshape(-1) - p.low)
    stage = dice.best_subkeep(sp, keeps[-1], xp=np) if keeps else final.max(0)  # each throw's value with every re-throw left
    return np.asarray(dice.throw_mean(sp, stage, xp=np), np.float64).reshape(cols.shape)


def _check_rows(path: Path, table: twoplayer.TwoPlayerTables, p: twoplayer.LayerPlan, tolerance: float) -> None:
    """A random sample of rows of layer ``p`` (``verify.sample_rows``), each at a random sample
    of its leads (``verify.sample_columns``: a turn costs as much per lead as per row),
    recomputed from the layer below and compared with the stored entries."""
    from jaxsolve.io import verify

    rows = verify.sample_rows(p.pairs)
    cols = verify.sample_columns(len(rows), p.width)
    stored = np.take_along_axis(np.asarray(table.layers[p.n][rows]), cols, axis=1)
    verify.compare_rows(path, f"layer {p.n}", stored, recompute_rows(table, p.n, rows, cols), tolerance)
