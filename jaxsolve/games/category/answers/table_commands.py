"""The category family's table exports: ``target-table``, ``distribution-table`` and
``twoplayer-table`` (typer-free, as ``family_commands``): each checks, before any work, that
its table can be written where it goes (``--out``, or the solution store under ``--cache-dir``)
and that the disk there has room for it, and only then sets up JAX (``setup``) and solves."""

from __future__ import annotations

import time
from pathlib import Path

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.answers.commands import say as _say
from jaxsolve.games.category.answers.family_commands import FILLED, DEVICES, CHUNK, _devices, _mask, _solve_target
from jaxsolve.games.game import Param, Report

def _out_param(use: str) -> Param:
    """The ``--out`` of a table export; by default the table goes where ``advise --opponent`` ``use``."""
    return Param(
        "out", Path, None,
        "The .npy to write (its layers beside it as NAME-layer_L.npy, one JSON sidecar); default: the whole game's table into the "
        f"solution store, where `advise --opponent` {use}.",
        flags=("--out", "-o"),
    )


TARGET_TABLE_PARAMS = (
    _out_param("answers table questions from"),
    FILLED,
    Param("store", str, "float32", "float32, or uint16 (round(65535 p): half the bytes, error at most 7.7e-6).", choices=("float32", "uint16")),
    Param("at", list, None, "Report the start's P(final >= T) (repeat, or several values).", item=int, min=0),
    DEVICES,
    Param("max_memory", int, 2048, "MiB one device may use; chunks shrink to fit.", min=1),
    Param("chunk", int, 8, "Most states per compiled batch.", min=1, max=1 << 16),
)
DISTRIBUTION_TABLE_PARAMS = (
    _out_param("reads the opponents' distributions from"),
    FILLED,
    DEVICES,
    Param("max_memory", int, None, "MiB one device may use; chunks shrink to fit.", min=1),
    CHUNK,
)
TWOPLAYER_TABLE_PARAMS = (
    Param("ties", str, "share", "What a tie is worth to the player who started: share (half), win (all) or lose (nothing).", choices=("share", "win", "lose")),
    Param("max_memory", int, 0, "MiB for a layer's tables and a chunk's working set; chunks shrink to fit (0: what the largest layer needs, "
          "at least 2048).", min=0),
    Param("chunk", int, 8, "Most pairs of sheets per compiled batch.", min=1, max=1 << 16),
    Param("open_boxes", int, 0, "Only every position where both players have at most this many boxes open (an end-game table); 0: the whole game.",
          flags=("--open",), min=0, max=20),
)


def target_table_command(rules, *, game, dtype, device, quiet, out, filled, store, at, devices, max_memory, chunk, setup=None) -> Report:
    """Solve the target objective for every state of the game (or of the subgame with ``filled``
    boxes closed) and export every layer (``target.save_table``), for ``advise-target --table``;
    without ``out``, the whole game's table into the solution store (``target.store_path``), for
    ``advise --opponent`` (its layers noted there as checked: no first read hashes them)."""
    def solve(mask, sizes, device):
        tab = _solve_target(rules, sizes, quiet, dtype=dtype, chunk=chunk, devices=_devices(devices, device), max_memory=max_memory << 20, prefilled=mask)
        return tab, tab.at(mask)

    tab, start, data, paths = _export(game, rules, filled, out, "target", store, solve, device, setup)
    points = sorted(set(at or [100, 200, 250, 300, 350, 400, 500]) | {0})
    tail = {t: float(start[t]) if t < len(start) else 0.0 for t in points}
    data.update(seconds=tab.seconds, compile_seconds=tab.compile_seconds, device=tab.device, p_at_least={str(t): v for t, v in tail.items()})
    lines = [
        f"{rules.name}: target table of {data['values']:,} state-target values in {tab.seconds:.1f} s (+{tab.compile_seconds:.1f} s compiling) on {tab.device}",
        *(f"  max P(final >= {t}) = {v:.6f}" for t, v in tail.items()),
        f"wrote {data['file']} and {len(paths) - 1} layer files beside it",
    ]
    return Report(tuple(lines), data, result=tab)


def _export(game, rules, filled, out, kind: str, store: str, solve, device, setup):
    """A ``kind`` table export (``target`` or ``distribution``) of the subgame with ``filled``
    boxes closed: where it goes and the disk there checked before any work, then JAX set up
    (``setup``), ``solve(mask, layer sizes, device) -> (table, the start's row)`` and every layer
    written (``target.save_table``; into the store: sealed). Returns the table, the start's row,
    the report's data so far and the files written."""
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.objectives import target as TG

    mask = _mask(filled, rules)
    in_store, out = _table_out(game, rules, mask, out, kind)
    sizes = {k: len(D.sub_layer_states(rules, k, mask)[0]) for k in range(rules.num_boxes)}
    check_disk(table_bytes(rules, sizes, 2 if store == "uint16" else 4), out.parent, f"the {kind} table")
    tab, start = solve(mask, sizes, setup() if setup is not None else device)
    paths = TG.save_table(out, tab, game=game, store=store)
    if in_store:
        TG.seal_table(out)
    values = sum(int(a.size) for a in tab.layers if a is not None)
    return tab, start, {"rules": rules.name, "prefilled": mask, "file": str(out), "files": len(paths), "store": store, "values": values}, paths


def _table_out(game, rules, mask: int, out, kind: str):
    """Where a ``target-table`` / ``distribution-table`` goes: ``out``, else (the whole game
    only) the solution store's ``target.store_path(game, rules, kind)``; checked writable.
    Returns (in the store, the path)."""
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.io import cache, export

    if mask == rules.full_mask:
        raise JaxsolveError("every box is filled: the game is over")
    in_store = out is None
    if in_store:
        if mask:
            raise JaxsolveError("the solution store keeps the whole game's table: give --out for the table of a subgame (--filled)")
        if not cache.enabled():
            raise JaxsolveError("--no-cache: give --out for the table")
        out = TG.store_path(game, rules, kind)
        check_store(out)
    export.check_writable(out)
    return in_store, out


def check_store(path: Path) -> None:
    """The solution store's folder for ``path`` created and taking files, or one line naming the
    cache folder (``--cache-dir``) and why not: before any work."""
    from jaxsolve.io import cache, export

    try:
        export.check_output_dir(path.parent, create=True)
    except JaxsolveError as exc:
        raise JaxsolveError(f"the solution store under {cache.root()} cannot be written ({exc}): give a writable --cache-dir") from None


def size_text(n: int) -> str:
    """Bytes as a reader compares them: GiB from 1 GiB on, else MiB, else KiB."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n} bytes"


def free_bytes(folder: Path) -> int | None:
    """The bytes free on the disk under ``folder`` (its nearest existing parent), or None."""
    import shutil

    probe = Path(folder)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        return shutil.disk_usage(probe).free
    except OSError:
        return None


def check_disk(need: int, folder: Path, what: str) -> None:
    """Refuse, before any work, a table of ``need`` bytes where the disk under ``folder`` has less free."""
    free = free_bytes(folder)
    if free is not None and need > free:
        raise JaxsolveError(f"{what} takes about {size_text(need)} on disk; {folder} has {size_text(free)} free")


def table_bytes(rules, sizes: dict[int, int], itemsize: int) -> int:
    """The bytes of a target or distribution table export: each layer's states times its
    support (``distribution.support_lengths``), and the end layer."""
    from jaxsolve.games.category.objectives import distribution as D

    widths = D.support_lengths(rules)
    return itemsize * (sum(n * widths[k] for k, n in sizes.items()) + widths[rules.num_boxes]) + 4096 * (len(sizes) + 2)  # the files' headers, the sidecar


def distribution_table_command(rules, *, game, dtype, device, quiet, out, filled, devices, max_memory, chunk, setup=None) -> Report:
    """The exact distribution of the remaining score (P(k more points) under the score-optimal
    policy) of every state of the game (or of the subgame with ``filled`` boxes closed), solved
    in ``dtype`` (float64) and exported in float32, every layer (``target.save_table``); without
    ``out``, the whole game's into the solution store (``target.store_path(..., 'distribution')``),
    where ``advise --opponent`` reads each opponent's row instead of computing it."""
    import numpy as np

    from jaxsolve.core.progress import layer_bars
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.engine import table_io

    def solve(mask, sizes, device):
        memory = None if max_memory is None else max_memory << 20
        with layer_bars(sizes, quiet, label="distribution layer") as advance:
            sol = table_io.solved(rules, game=game, dtype=dtype, device=device)
            tab = D.distribution(rules, sol, dtype=dtype, chunk=chunk, devices=_devices(devices, device), max_memory=memory, keep="all", prefilled=mask, on_layer=advance)
        start = np.asarray(tab.at(mask), np.float64)
        for k, layer in enumerate(tab.layers):  # one layer at a time: float64 and float32 of the whole table are never held at once
            if layer is not None:
                tab.layers[k] = np.asarray(layer).astype(np.float32)
        return tab, start

    tab, start, data, paths = _export(game, rules, filled, out, "distribution", "float32", solve, device, setup)
    summary = D.summarize(start)
    data.update(bytes=sum(Path(p).stat().st_size for p in paths), seconds=tab.seconds, compile_seconds=tab.compile_seconds, device=tab.device, mean=summary.mean, sd=summary.sd)
    lines = [
        f"{rules.name}: distribution table of {data['values']:,} state-point values in {tab.seconds:.1f} s (+{tab.compile_seconds:.1f} s compiling) on {tab.device}",
        f"  from the start: mean {summary.mean:.6f} more points, SD {summary.sd:.5f}",
        f"wrote {data['file']} and {len(paths) - 1} layer files beside it ({data['bytes']:,} bytes)",
    ]
    return Report(tuple(lines), data, result=tab)


def twoplayer_table_command(rules, *, game, dtype, device, quiet, ties, max_memory, chunk, open_boxes=0, setup=None) -> Report:
    """Solve the two-player game of ``rules`` (both play to win), or with ``open_boxes`` every
    position where both players have at most that many boxes open, and keep every layer in the
    solution store, each written as it is done (``twoplayer_store.save``), for simulated play
    and advice (``twoplayer_store.load``). Refused up front where the layers would not fit this
    machine's memory or the store's disk (``twoplayer_store.estimate``)."""
    import numpy as np

    from jaxsolve.core.progress import layer_bars
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store
    from jaxsolve.io import cache

    if not cache.enabled():
        raise JaxsolveError("--no-cache: the two-player table is kept only in the solution store")
    if open_boxes > rules.num_boxes:
        raise JaxsolveError(f"--open {open_boxes}: {rules.name} has {rules.num_boxes} boxes")
    k = open_boxes or None
    size = twoplayer_store.estimate(rules, dtype, k)
    path = twoplayer_store.store_path(game, rules, ties, str(np.dtype(dtype)), k)
    check_store(path)
    size.check(path.parent, free=1 << 62)  # rows and memory; the disk below, in figures of their size
    check_disk(size.disk_bytes, path.parent, "the two-player table")
    what = "two players" if k is None else f"two players, every position with at most {k} open boxes each"
    _say(f"{rules.name}, {what}: {size.pairs:,} pairs of sheets, {size.values:,} state-lead values, "
         f"{size_text(size.disk_bytes)} on disk, about {size.core_seconds / 60:.0f} core-minutes")
    device = setup() if setup is not None else device
    t = [time.perf_counter(), time.process_time()]

    def told(n: int, pairs: int) -> None:
        now = [time.perf_counter(), time.process_time()]
        if not quiet:
            _say(f"layer {n}: {pairs:,} pairs in {now[0] - t[0]:.1f} s ({now[1] - t[1]:.1f} CPU s), load {_load()}, {time.strftime('%H:%M:%S', time.gmtime())} UTC")
        t[:] = now

    with layer_bars(size.layer_pairs, quiet, label="layer") as advance:

        def on_layer(n: int, pairs: int) -> None:
            advance(n, pairs)
            told(n, pairs)

        tab, writer = twoplayer_store.save(game, rules, tie=ties, dtype=dtype, chunk=chunk, devices=[device] if device is not None else 1,
                                           max_memory=(max_memory << 20) or max(2 << 30, size.memory_bytes), on_layer=on_layer, open_boxes=k)
    data = {
        "rules": rules.name, "tie": ties, "dtype": str(np.dtype(dtype)), "file": str(path), "pairs": size.pairs, "values": size.values,
        "bytes": writer.bytes, "start": tab.start if k is None else None, "open_boxes": k, "seconds": tab.seconds, "compile_seconds": tab.compile_seconds, "device": tab.device,
    }
    lines = [
        f"{rules.name}, {what} (ties {ties}): {size.values:,} state-lead values in {tab.seconds:.1f} s (+{tab.compile_seconds:.1f} s compiling) on {tab.device}",
        f"  the first player's P(win) + {twoplayer_store.twoplayer.TIES[ties]} P(tie) = {tab.start:.9f}" if k is None else
        f"  the first layer: {tab.plans[0].pairs:,} pairs of sheets with {rules.num_boxes - tab.plans[0].a} open boxes each",
        f"wrote {path} and {len(writer.records)} layer files beside it ({size_text(writer.bytes)})",
    ]
    return Report(tuple(lines), data, result=tab)


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"
