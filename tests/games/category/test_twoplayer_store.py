"""Every layer of a two-player solve kept in the solution store (``twoplayer_store``): written
as the solve finishes each layer, read back memory-mapped bit for bit equal to the in-memory
solve (``keep="all"``), broken or foreign files refused with one clear line, and simulated play
from the stored table the same game for game as from the in-memory one."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.answers import table_commands
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store
from jaxsolve.games.category.sheets import yacht
from jaxsolve.io import cache, export, verify

TINY = yacht.reduced(2, ("choice",), name="yacht-reduced-2-dice-choice")
"""Two dice, the six upper boxes and Choice: 485,217 state-lead values, a second to solve."""


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    """The tiny game stored (ties shared) in a folder of its own, outside the solution store."""
    path = tmp_path_factory.mktemp("twoplayer") / "tiny.npy"
    twoplayer_store.save("yacht", TINY, tie="share", path=path)
    return path


@pytest.fixture(scope="module")
def in_memory() -> twoplayer.TwoPlayerTables:
    return twoplayer.solve(TINY, keep="all", dtype=np.float32)


def copy_of(stored: Path, folder: Path) -> Path:
    for f in stored.parent.iterdir():
        shutil.copy(f, folder / f.name)
    return folder / stored.name


def test_stored_layers_equal_the_in_memory_solve_bit_for_bit(stored, in_memory):
    table = twoplayer_store.load(TINY, "share", "yacht", path=stored)
    assert table is not None
    kept = [n for n, layer in enumerate(in_memory.layers) if layer is not None]
    assert kept == [n for n, layer in enumerate(table.layers) if layer is not None] == list(range(2 * TINY.num_boxes + 1))
    for n in kept:
        assert isinstance(table.layers[n], np.memmap)
        assert table.layers[n].dtype == np.float32
        assert np.array_equal(np.asarray(table.layers[n]), in_memory.layers[n]), n
    assert table.start == in_memory.start
    meta = export.read_metadata(stored)
    assert meta["tie"] == "share" and meta["start"] == in_memory.start
    assert sorted(meta["members"]) == sorted(f"layer_{n}" for n in kept[1:])


def test_simulation_from_the_stored_table_plays_the_same_games(stored, in_memory):
    table = twoplayer_store.load(TINY, "share", "yacht", path=stored)
    from_disk = twoplayer.simulate(table, 2000, seed=5)
    from_memory = twoplayer.simulate(in_memory, 2000, seed=5)
    assert np.array_equal(from_disk.lead, from_memory.lead)
    assert abs(from_disk.mean - in_memory.start) < 4 * from_disk.standard_error


def test_rows_recomputed_from_the_layer_below_match(stored):
    table = twoplayer_store.load(TINY, "share", "yacht", path=stored)
    p = table.plan(5)
    rows = np.arange(0, p.pairs, max(p.pairs // 7, 1))
    got = twoplayer_store.recompute_rows(table, 5, rows)
    assert np.abs(got - np.asarray(table.layers[5][rows], np.float64)).max() < 1e-6


def test_nothing_stored_is_none(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    assert twoplayer_store.load(TINY, "share", "yacht") is None
    assert twoplayer_store.load(TINY, "share", "yacht", path=tmp_path / "none.npy") is None


def _replace_layer(path: Path, n: int, values: np.ndarray) -> None:
    """Rewrite layer ``n`` with ``values`` and reseal the sidecar over it (hashes made to
    match): a file that only the content checks can refuse."""
    meta = export.read_metadata(path)
    records = dict(meta["members"])
    records[f"layer_{n}"] = export.write_member(path, f"layer_{n}", values)
    first, _ = export.load(path)
    keep = {k: v for k, v in meta.items() if k not in ("members", "format", "jaxsolve_version", "created", "host", "file", "shape",
                                                         "dtype", "npy_bytes", "sha256", "sidecar_sha256")}
    export.save_with_members(path, first, keep, records)


def _truncate(path: Path) -> None:
    f = export.member_path(path, "layer_7")
    f.write_bytes(f.read_bytes()[:-40])


def _flip(path: Path) -> None:
    f = export.member_path(path, "layer_7")
    data = bytearray(f.read_bytes())
    data[-9] ^= 0x40
    f.write_bytes(bytes(data))


def _swap(path: Path) -> None:
    a, b = export.member_path(path, "layer_3"), export.member_path(path, "layer_11")
    shutil.copy(b, a)


def _edit_sidecar(path: Path) -> None:
    side = export.sidecar_path(path)
    meta = json.loads(side.read_text())
    meta["start"] = 0.75
    side.write_text(json.dumps(meta))


def _shifted(path: Path) -> None:
    layer = np.load(export.member_path(path, "layer_6"))
    _replace_layer(path, 6, np.clip(layer + np.float32(0.01), 0, 1).astype(np.float32))


def _above_one(path: Path) -> None:
    layer = np.load(export.member_path(path, "layer_9"))
    layer[len(layer) // 2, 0] = 1.5
    _replace_layer(path, 9, layer)


def _wrong_end(path: Path) -> None:
    last = 2 * TINY.num_boxes
    layer = np.load(export.member_path(path, f"layer_{last}"))
    _replace_layer(path, last, np.ones_like(layer))


def _missing(path: Path) -> None:
    export.member_path(path, "layer_4").unlink()


@pytest.mark.parametrize(
    "damage, message",
    [
        (_truncate, "does not match its sidecar"),
        (_flip, "SHA-256 differs"),
        (_swap, "does not match its sidecar"),
        (_edit_sidecar, "has been edited"),
        (_missing, "is missing"),
        (_shifted, "layer 6 does not follow from the rules"),
        (_above_one, "layer 9 holds values outside"),
        (_wrong_end, "is not the end of the game"),
    ],
    ids=["truncated", "flipped-byte", "another-layer", "edited-sidecar", "missing", "resealed-shifted", "resealed-above-one", "resealed-end"],
)
def test_a_broken_layer_file_is_refused(stored, tmp_path, damage, message):
    path = copy_of(stored, tmp_path)
    damage(path)
    with pytest.raises(JaxsolveError, match=message) as got:
        twoplayer_store.load(TINY, "share", "yacht", path=path)
    assert "\n" not in str(got.value)


def test_a_foreign_table_is_refused(stored):
    with pytest.raises(JaxsolveError, match="twoplayer_share.*not .*twoplayer_win"):
        twoplayer_store.load(TINY, "win", "yacht", path=stored)
    with pytest.raises(JaxsolveError, match="other rules under the same name"):
        twoplayer_store.load(TINY.replace(throws=2), "share", "yacht", path=stored)
    with pytest.raises(JaxsolveError, match="not kniffel"):
        twoplayer_store.load(TINY, "share", "kniffel", path=stored)
    with pytest.raises(JaxsolveError, match="float32.*not .*float64"):
        twoplayer_store.load(TINY, "share", "yacht", dtype="float64", path=stored)


def test_the_command_stores_a_sealed_table_that_a_changed_file_breaks(tmp_path, monkeypatch):
    """In the solution store: written by the command, every file noted as checked (a load reads
    no layer in full), a layer whose middle rows were turned round in place with its size and
    time kept refused by the rows recomputed on every load, and a layer changed afterwards (its
    size and time no longer those noted) checked in full again and refused."""
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    cache.configure(None)  # the store in use (in $JAXSOLVE_CACHE), whatever a test before left set
    monkeypatch.setattr(verify, "WHOLE_HASH_BYTES", 0)  # every file counts as large: noted once checked
    report = table_commands.twoplayer_table_command(TINY, game="yacht", dtype=np.float32, device=None, quiet=True, ties="win",
                                                     max_memory=256, chunk=8)
    path = twoplayer_store.store_path("yacht", TINY, "win")
    assert path.is_relative_to(tmp_path) and report.data["file"] == str(path)
    assert report.data["start"] == pytest.approx(twoplayer.solve(TINY, tie="win", dtype=np.float32).start, abs=0)
    assert len(list(tmp_path.rglob("*.verified"))) == 2 * TINY.num_boxes + 1

    def read_in_full(*args, **kwargs):
        raise AssertionError("a sealed layer was checked in full again")

    with monkeypatch.context() as m:
        m.setattr(twoplayer_store, "_check_values", read_in_full)
        table = twoplayer_store.load(TINY, "win", "yacht")
    assert table is not None and table.start == report.data["start"]
    assert twoplayer_store.load(TINY, "share", "yacht") is None
    try:
        cache.configure(tmp_path, enabled=False)  # --no-cache: the store is not read
        assert twoplayer_store.load(TINY, "win", "yacht") is None
    finally:
        cache.configure(None)
    n = max(table.plans[:-1], key=lambda p: p.pairs).n
    member = export.member_path(path, f"layer_{n}")
    st = member.stat()
    layer = np.load(member)
    middle = slice(len(layer) // 4, 3 * len(layer) // 4)
    layer[middle] = layer[middle][::-1].copy()
    np.save(member, layer)
    os.utime(member, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(JaxsolveError, match=f"layer {n} does not follow from the rules"):
        twoplayer_store.load(TINY, "win", "yacht")
    _flip(path)
    with pytest.raises(JaxsolveError, match="SHA-256 differs"):
        twoplayer_store.load(TINY, "win", "yacht")


def test_an_end_game_set_written_in_slices_equals_the_in_memory_solve(tmp_path, in_memory):
    """Every position with at most 3 open boxes each (``open_boxes=3``), each layer written into
    its file in slices of a few rows (``twoplayer.solve(sink=)``): read back bit for bit the
    in-memory end-game solve, and within float32 rounding the whole game's layers; the whole
    game's entry and another set's are other entries, refused by name."""
    path = tmp_path / "end.npy"
    twoplayer_store.save("yacht", TINY, tie="share", path=path, open_boxes=3, slice_bytes=20_000)
    table = twoplayer_store.load(TINY, "share", "yacht", path=path, open_boxes=3)
    end = twoplayer.solve(TINY, keep="all", dtype=np.float32, open_boxes=3)
    assert table is not None and [p.n for p in table.plans] == [p.n for p in end.plans] == list(range(2 * TINY.num_boxes - 6, 2 * TINY.num_boxes + 1))
    for p in end.plans:
        assert np.array_equal(np.asarray(table.layers[p.n]), end.layers[p.n]), p.n
        assert np.abs(np.asarray(table.layers[p.n], np.float64) - in_memory.layers[p.n]).max() < 1e-6, p.n
    meta = export.read_metadata(path)
    assert meta["open_boxes"] == 3 and meta["start"] is None and meta["main_layer"] == 2 * TINY.num_boxes
    assert not list(tmp_path.glob(".*.tmp"))
    with pytest.raises(JaxsolveError, match="twoplayer_share_open3.*not .*twoplayer_share/"):
        twoplayer_store.load(TINY, "share", "yacht", path=path)
    with pytest.raises(JaxsolveError, match="twoplayer_share_open3.*not .*twoplayer_share_open2"):
        twoplayer_store.load(TINY, "share", "yacht", path=path, open_boxes=2)


def test_end_games_reached_by_expected_score_play_simulate_to_the_tables_values():
    """``reach``: both seats played by the expected-score player until three boxes are open on
    each sheet; from those positions the optimal pair's mean is the mean of the end-game set's
    values at them (within 4 standard errors), the expected-score seats play the same games as
    from one start each, and a start that is no sheet of the set is refused."""
    end = twoplayer.solve(TINY, keep="all", dtype=np.float32, open_boxes=3)
    starts = twoplayer.reach(TINY, 4000, TINY.num_boxes - 3, seed=4)
    decode = [[tuple(int(x) for x in twoplayer.decode(np.asarray(v), TINY)) for v in seat] for seat in (starts.seat0, starts.seat1)]
    exact = np.mean([end.value(a, b, int(lead)) for a, b, lead in zip(*decode, starts.lead)])
    played = twoplayer.simulate(end, 4000, seed=6, starts=starts)
    assert abs(played.mean - exact) < 4 * played.standard_error
    assert len(np.unique(starts.seat0)) > 20 and np.ptp(starts.lead) > 10
    mixed = twoplayer.simulate(end, 4000, seed=6, seats=("optimal", "score"), starts=starts)
    assert mixed.mean > 0.4 and mixed.seats == ("optimal", "score")
    bad = starts._replace(seat0=np.zeros(4000, np.int64))
    with pytest.raises(JaxsolveError, match="not a sheet with 4 boxes filled"):
        twoplayer.simulate(end, 4000, starts=bad)
    with pytest.raises(JaxsolveError, match="optimal and score seats only"):
        twoplayer.simulate(end, 4000, seats=("table", "score"), starts=starts)


def test_the_command_stores_an_end_game_set(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    got = CliRunner().invoke(app, ["twoplayer-table", "yacht", "--open", "1", "--quiet", "--json"])
    assert got.exit_code == 0, got.output
    data = json.loads(got.output[got.output.index("{"):])
    rules = yacht.get_rules("yacht")
    size = twoplayer_store.estimate(rules, open_boxes=1)
    assert data["open_boxes"] == 1 and data["values"] == size.values == 15_157 - 1 and data["start"] is None
    table = twoplayer_store.load(rules, "share", "yacht", open_boxes=1)
    assert table is not None and twoplayer_store.load(rules, "share", "yacht") is None
    bad = CliRunner().invoke(app, ["twoplayer-table", "yacht", "--open", "13", "--quiet"])
    assert bad.exit_code != 0 and "--open 13: yacht has 12 boxes" in bad.output and "Traceback" not in bad.output


def test_a_game_too_large_for_this_machine_is_refused_up_front(tmp_path):
    size = twoplayer_store.estimate(TINY)
    assert size.values == sum(p.pairs * p.width for p in twoplayer.plan_layers(TINY, (twoplayer.player_sheets(TINY),) * 2)[:-1])
    size.check(tmp_path, memory=size.memory_bytes, free=size.disk_bytes)
    with pytest.raises(JaxsolveError, match="GiB of memory while solving"):
        size.check(tmp_path, memory=size.memory_bytes - 1, free=size.disk_bytes)
    with pytest.raises(JaxsolveError, match="GiB on disk"):
        size.check(tmp_path, memory=size.memory_bytes, free=size.disk_bytes - 1)


def test_the_command_line_refuses_without_the_store():
    got = CliRunner().invoke(app, ["twoplayer-table", "yacht", "--no-cache"])
    assert got.exit_code != 0
    assert "only in the solution store" in got.output and "Traceback" not in got.output


def test_the_command_line_refuses_two_player_yahtzee_up_front():
    """Counted before anything is solved: 7.75 x 10^9 pairs in its widest layer (docs/twoplayer.md)."""
    got = CliRunner().invoke(app, ["twoplayer-table", "kniffel", "--rules", "yahtzee", "--quiet"])
    assert got.exit_code != 0
    assert "7,752,626,401 pairs of sheets in one layer" in got.output and "Traceback" not in got.output


@pytest.mark.slow
def test_reduced_yacht_stored_equals_in_memory_and_simulates():
    """``yacht.small()`` (3 dice, 9 boxes, 1.96 x 10^7 values): stored and loaded bit for bit the
    ``keep="all"`` solve, and 20,000 simulated games from the memory-mapped table the same as
    from the in-memory one (about 30 s on 2 cores)."""
    import tempfile

    rules = yacht.small()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "small.npy"
        twoplayer_store.save("yacht", rules, path=path)
        table = twoplayer_store.load(rules, "share", "yacht", path=path)
        full = twoplayer.solve(rules, keep="all", dtype=np.float32)
        assert table is not None
        for n, layer in enumerate(full.layers):
            assert np.array_equal(np.asarray(table.layers[n]), layer), n
        assert np.array_equal(twoplayer.simulate(table, 20_000, seed=3).lead, twoplayer.simulate(full, 20_000, seed=3).lead)
