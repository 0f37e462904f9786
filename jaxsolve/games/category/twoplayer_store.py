"""Every layer of a two-player solve (``twoplayer``) kept in the solution store, written as the
solve finishes each layer, so the whole two-player Yacht (2.04 x 10^9 state-lead values, 8.2 GB
in float32) is kept without ever holding more than two layers in memory (docs/twoplayer.md).

The store entry is one export (``jaxsolve.io.export``) of several arrays, like the target
table's (``target.save_table``): the first layer (the start, both sheets as prefilled) in
``<cache>/tables/<game>/<rules>-<hash>-twoplayer_<tie>-<dtype>.npy`` and each later layer ``n``
beside it as the member ``layer_n`` (``export.write_member``: atomic, hashed, written the moment
the layer is done). The sidecar, written last, names every member's size and SHA-256, the rules,
the tie rule, the dtype and the layer plans, so until a solve has finished there is no entry
(``load`` answers None) and a layer of another solve is refused.

``load`` memory-maps every layer (``target.mapped_layer``): each checked in full once (its
SHA-256, values finite and in [0, 1], the last layer the end of the game), noted as checked
beside it (``cache.mark_sealed``) and trusted by that note afterwards; on every load a few rows
of each layer are recomputed from the layer below (one turn in NumPy) and compared.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from jaxsolve.core import dice
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category import tables, twoplayer
from jaxsolve.games.category.rules import CategoryRules

DTYPES = ("float32", "float64")
CHECK_ROWS = 2
"""Rows of each layer recomputed from the layer below on every ``load``."""
CHECK_TOLERANCE = {"float32": 2e-5, "float64": 1e-12}
"""How far a recomputed row may differ from the stored one (the solve and the check sum the
same terms in other orders; float32 rounding over 26 layers stays below 1e-6)."""


def objective(tie: str) -> str:
    """The store's objective name of a tie rule (``twoplayer_share``, ...)."""
    if tie not in twoplayer.TIES:
        raise JaxsolveError(f"tie must be one of {', '.join(twoplayer.TIES)}, got {tie!r}")
    return f"twoplayer_{tie}"


def store_path(game: str, rules: CategoryRules, tie: str = "share", dtype: str = "float32") -> Path:
    """Where the whole two-player game of ``rules`` (tie rule ``tie``) lies in the solution
    store: ``<cache>/tables/<game>/<rules>-<hash>-twoplayer_<tie>-<dtype>.npy``, its layers
    beside it as ``...-layer_<n>.npy``."""
    from jaxsolve.io import cache

    if dtype not in DTYPES:
        raise JaxsolveError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    return cache.entry_path(game, rules, objective(tie), dtype)


CORE_US_PER_VALUE = 1.2
"""Core-microseconds per state-lead value of a float32 solve on this project's 2-core CPU (the
whole two-player Yacht: 2,307 CPU seconds for 2.04 x 10^9 values, results/twoplayer/yacht.md)."""
LAYER_COPIES = 5
"""Copies of the largest layer held at once while solving (the layer below padded, on the
device and in NumPy, the layer being solved, and its values handed to the writer)."""


@dataclasses.dataclass(frozen=True)
class Size:
    """What a whole two-player solve of some rules takes, counted before solving: the pairs
    of sheets and state-lead values, per layer its pairs, the bytes on disk, the memory it holds
    at most (``LAYER_COPIES`` of its largest layer) and its CPU time at ``CORE_US_PER_VALUE``."""

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


def estimate(rules: CategoryRules, dtype=np.float32) -> Size:
    """The ``Size`` of the whole two-player game of ``rules`` (the sheets are listed, nothing
    solved: seconds for Yacht)."""
    sheets = (twoplayer.player_sheets(rules, 0), twoplayer.player_sheets(rules, 0))
    plans = twoplayer.plan_layers(rules, sheets)
    item = np.dtype(dtype).itemsize
    values = sum(p.pairs * p.width for p in plans)
    largest = max(p.pairs * p.width for p in plans)
    return Size(
        pairs=sum(p.pairs for p in plans[:-1]), values=sum(p.pairs * p.width for p in plans[:-1]), layer_pairs={p.n: p.pairs for p in plans[:-1]},
        largest_row=max(p.pairs for p in plans), disk_bytes=values * item, memory_bytes=LAYER_COPIES * largest * item,
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

    def __init__(self, path: Path, *, game: str, rules: CategoryRules, tie: str, dtype: str):
        from jaxsolve.io import export

        self.path, self.game, self.rules, self.tie, self.dtype = Path(path), game, rules, tie, dtype
        self.sheets = (twoplayer.player_sheets(rules, 0), twoplayer.player_sheets(rules, 0))
        self.plans = twoplayer.plan_layers(rules, self.sheets)
        self.records: dict[str, dict] = {}
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
        values = np.asarray(values)
        if values.shape != (p.pairs, p.width) or str(values.dtype) != self.dtype:
            raise JaxsolveError(f"layer {n} is {values.dtype} {values.shape}, the store expects {self.dtype} {(p.pairs, p.width)}")
        if p is self.plans[0]:
            self.first = np.array(values)
            return
        record = export.write_member(self.path, f"layer_{n}", values)
        self.records[f"layer_{n}"] = record
        self.bytes += record["npy_bytes"]

    def finish(self, table: twoplayer.TwoPlayerTables) -> list[Path]:
        """Write the first layer and the sidecar (naming every layer), and note every file as
        checked (``target.seal_table``: a first ``load`` does not hash 8 GB again)."""
        from jaxsolve.games.category import target
        from jaxsolve.io import export

        missing = [p.n for p in self.plans[1:] if f"layer_{p.n}" not in self.records]
        if self.first is None or missing:
            raise JaxsolveError(f"the solve did not hand over every layer (missing: {missing or [self.plans[0].n]})")
        meta = {
            "game": self.game,
            "rules": self.rules.to_dict(),
            "objective": objective(self.tie),
            "tie": self.tie,
            "tie_value": twoplayer.TIES[self.tie],
            "value_meaning": "P(the player to move wins), both playing to win; a tie worth tie_value to the player who started; "
            "row i_other * movers + i_mover, column lead + low (twoplayer.TwoPlayerTables)",
            "prefilled": [0, 0],
            "first_layer": self.plans[0].n,
            "layers": _plan_dicts(self.plans),
            "sheets": _sheet_counts(self.sheets),
            "start": float(table.start),
            "solve_seconds": float(table.seconds),
            "compile_seconds": float(table.compile_seconds),
            "device": table.device,
        }
        paths = export.save_with_members(self.path, self.first, meta, self.records)
        target.seal_table(self.path)
        self.bytes += int(export.read_metadata(self.path)["npy_bytes"])
        return paths


def save(game: str, rules: CategoryRules, *, tie: str = "share", dtype=np.float32, path: Path | None = None, **options) -> tuple[twoplayer.TwoPlayerTables, Writer]:
    """Solve the whole two-player game of ``rules`` and keep every layer in the store (or at
    ``path``), written as each is done (``options``: those of ``twoplayer.solve`` but ``keep``
    and ``on_values``). Returns the solve (its first layer only) and the writer (``bytes``)."""
    name = str(np.dtype(dtype))
    out = store_path(game, rules, tie, name) if path is None else Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = Writer(out, game=game, rules=rules, tie=tie, dtype=name)
    table = twoplayer.solve(rules, tie=tie, dtype=np.dtype(dtype), keep="start", on_values=writer, **options)
    writer.finish(table)
    return table, writer


def load(rules: CategoryRules, tie: str, game: str, *, dtype: str = "float32", path: Path | None = None) -> twoplayer.TwoPlayerTables | None:
    """The stored two-player game of ``rules`` under the tie rule ``tie`` (every layer,
    memory-mapped read-only), or None when the store holds none. Refused with one clear line
    (``JaxsolveError``) when broken or not this game's: the sidecar's own hash, the game, every
    rules field, the tie rule and dtype, the layer plans and sheet counts the rules give, each
    layer's file name, size and SHA-256 (checked once, then trusted by its note), values in
    [0, 1], the last layer the end of the game, and ``CHECK_ROWS`` rows of each layer
    recomputed from the layer below."""
    from jaxsolve.games.category import target
    from jaxsolve.io import export

    p = store_path(game, rules, tie, dtype) if path is None else Path(path)
    if not p.exists() and not p.is_symlink():
        return None
    if not p.is_file():
        raise JaxsolveError(f"{p} is not a regular file")
    meta = export.read_metadata(p)
    export.check_binding(p, meta, game=game, rules=rules, objective=objective(tie), dtype=dtype)
    side = export.sidecar_path(p)
    sheets = (twoplayer.player_sheets(rules, 0), twoplayer.player_sheets(rules, 0))
    plans = twoplayer.plan_layers(rules, sheets)
    if meta.get("tie") != tie or meta.get("layers") != _plan_dicts(plans) or meta.get("sheets") != _sheet_counts(sheets):
        raise JaxsolveError(f"{side}: its tie rule, layers or sheets are not those of {rules.name} with ties {tie}")
    members = meta.get("members")
    if not isinstance(members, dict):
        raise JaxsolveError(f"{side} names no layer files")
    last = plans[-1]
    layers: list = [None] * (2 * rules.num_boxes + 1)
    for plan in plans:
        record = meta if plan is plans[0] else members.get(f"layer_{plan.n}")
        if not isinstance(record, dict):
            raise JaxsolveError(f"{side} does not name the layer file layer_{plan.n}")
        file = p if plan is plans[0] else export.member_path(p, f"layer_{plan.n}")

        def check(v: np.ndarray, plan: twoplayer.LayerPlan = plan, file: Path = file) -> None:
            _check_values(file, v, plan, twoplayer.TIES[tie] if plan is last else None)

        layers[plan.n] = target.mapped_layer(file, record, (plan.pairs, plan.width), dtype, check)
    table = twoplayer.TwoPlayerTables(rules, tie, sheets, plans, layers, float(meta.get("solve_seconds", 0.0)),
                                      float(meta.get("compile_seconds", 0.0)), str(meta.get("device", "")))
    for plan in reversed(plans[:-1]) if not rules.has_instant_bonus else ():  # deepest first: a wrong layer is named, not the one above it
        _check_rows(p, table, plan, CHECK_ROWS, CHECK_TOLERANCE[dtype])
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


def recompute_rows(table: twoplayer.TwoPlayerTables, n: int, rows) -> np.ndarray:
    """``[len(rows), width]``: rows of layer ``n`` computed again from layer ``n + 1`` (one turn,
    NumPy float64, every lead of the layer's window): the start-of-turn value of each position,
    the mean over the first throw of the best play (``twoplayer._turn_arrays``)."""
    p = table.plan(n)
    rules = table.rules
    sp = tables.space(rules.dice)
    rows = np.asarray(rows, np.int64)
    leads = np.arange(-p.low, p.high + 1, dtype=np.int64)
    movers = np.repeat(rows % p.movers, p.width)
    others = np.repeat(rows // p.movers, p.width)
    _, final, _ = twoplayer._turn_arrays(table, p, movers, others, np.tile(leads, len(rows)))
    stage = final.max(0)
    for _ in range(rules.throws - 1):
        stage = dice.reroll(sp, stage, xp=np)
    return np.asarray(dice.throw_mean(sp, stage, xp=np), np.float64).reshape(len(rows), p.width)


def _check_rows(path: Path, table: twoplayer.TwoPlayerTables, p: twoplayer.LayerPlan, count: int, tolerance: float) -> None:
    """``count`` rows of layer ``p`` (spread over it, the first and the last among them)
    recomputed from the layer below and compared with the stored ones."""
    rows = np.unique(np.linspace(0, p.pairs - 1, max(count, 1)).round().astype(np.int64))
    got = recompute_rows(table, p.n, rows)
    stored = np.asarray(table.layers[p.n][rows], np.float64)
    worst = float(np.abs(got - stored).max(initial=0.0))
    if not worst <= tolerance:
        raise JaxsolveError(f"{path}: layer {p.n} does not follow from layer {p.n + 1} (rows recomputed differ by {worst:.3g})")
