"""The fast paths of win-probability advice: the solve of only the states reached from a position
(against a breadth-first walk of the moves and against the whole-subgame solve, float64), one
compiled step for many positions, and the table answer from a memory-mapped target table kept
in the solution store (checked in full once, then trusted by its note)."""

import hashlib
import os

import numpy as np
import pytest

from jaxsolve.core import compile as compile_cache
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import distribution as D
from jaxsolve.games.category.answers import table_commands
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.objectives import target as TG
from jaxsolve.games.category.objectives import winning as W
from jaxsolve.games.category.sheets.position import Position
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import Box, face_boxes
from jaxsolve.io import cache, verify

RULES = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)
# (filled boxes, upper total, all-same box holds): the upper total 4 and the all-same box (11)
# holding its points; aces, threes, three of a kind and small straight open
START = (solver.filled_mask(set(range(13)) - {0, 2, 6, 9}), 4, 1)


def reached_by_moves(rules, start):
    """Every state a game reaches from ``start``: a breadth-first walk of the legal moves."""
    cap = rules.upper_threshold
    seen = {int(tables.state_index(start[0], min(start[1], cap), start[2], rules))}
    frontier = [tuple(start)]
    while frontier:
        f, u, h = (np.asarray(x, np.int32) for x in zip(*frontier))
        mv = solver.moves(tables.EngineState(f, u, h), rules, xp=np)
        nxt = {int(x) for x in np.asarray(mv.next_state)[np.asarray(mv.allowed)]} - seen
        seen |= nxt
        frontier = [(s // (2 * (cap + 1)), s // 2 % (cap + 1), s % 2) for s in nxt]
    return seen


def reach_set(rules, start):
    out = set()
    for layer in range(bin(start[0]).count("1"), rules.num_boxes + 1):
        f, u, h = D.sub_layer_states(rules, layer, start=start)
        out |= {int(x) for x in tables.state_index(f.astype(np.int64), u, h, rules)}
    return out


@pytest.mark.parametrize("start", [START, (START[0] & ~(1 << 11), 4, 0), (solver.filled_mask({1, 4, 6, 7, 10, 11}), 5, 0)])
def test_reached_states_are_those_the_moves_reach(start):
    assert reach_set(RULES, start) == reached_by_moves(RULES, start)


def test_reach_only_solve_equals_the_whole_subgame():
    """Cross-check: every state of the solve from the position (bucketed shapes) has the
    whole-subgame solve's vector to 1e-12 (float64), for the best response to a utility and
    for the opponents' score distribution."""
    w = np.clip((np.arange(60) - 20) / 30.0, 0.0, 1.0) ** 1.5
    terminal = TG.utility_terminal(w)
    whole = TG.solve_target(RULES, dtype="float64", prefilled=START[0], terminal=terminal)
    reach = TG.solve_target(RULES, dtype="float64", start=START, shapes="bucket", terminal=terminal)
    assert reach.start == START
    compared = 0
    for layer in range(bin(START[0]).count("1"), RULES.num_boxes + 1):
        for f, u, h in zip(*D.sub_layer_states(RULES, layer, start=START)):
            np.testing.assert_allclose(reach.at(f, u, h), whole.at(f, u, h), rtol=0, atol=1e-12)
            compared += 1
    assert compared > 10 and compared < sum(len(a) for a in whole.layers if a is not None)
    assert 0.0 < reach.at(*START)[len(w) - 1] < 1.0

    sol = solver.solve(RULES, dtype="float64", chunk=256)
    whole_d = D.distribution(RULES, sol, dtype="float64", keep="start", prefilled=START[0])
    reach_d = D.distribution(RULES, sol, dtype="float64", chunk=8, keep="start", start=START, shapes="bucket")
    np.testing.assert_allclose(reach_d.at(*START), whole_d.at(*START), rtol=0, atol=1e-12)
    assert reach_d.at(*START).sum() == pytest.approx(1.0, abs=1e-12)


def test_one_compiled_step_serves_other_positions():
    """Two positions whose reached states and utility fall in the same shape buckets: the second
    solve compiles nothing."""
    w = np.linspace(0.0, 1.0, 40)
    TG.solve_target(RULES, dtype="float64", start=START, shapes="bucket", terminal=TG.utility_terminal(w))
    before = compile_cache.cache_size()
    other = (START[0] | 1 << 9, 4, 1)  # one more box filled
    got = TG.solve_target(RULES, dtype="float64", start=other, shapes="bucket", terminal=TG.utility_terminal(w[:-3]))
    assert compile_cache.cache_size() == before
    assert got.compile_seconds == 0.0


def test_an_unreachable_start_is_refused():
    with pytest.raises(JaxsolveError, match="unreachable state"):
        TG.solve_target(RULES, dtype="float64", start=(START[0] & ~(1 << 11), 4, 1), shapes="bucket")
    with pytest.raises(JaxsolveError, match="not only those reached"):
        TG.save_table("x.npy", TG.solve_target(RULES, dtype="float64", start=START, shapes="bucket"), game="kniffel")


# ----------------------------------------------------------------------------- the stored table

SMALL = CategoryRules(
    name="custom", dice=3, throws=2, joker="none", extra_bonus=0, upper_threshold=9,
    boxes=face_boxes() + (Box("pair", "groups", (2,), total=True),),
)


@pytest.fixture()
def store(tmp_path, monkeypatch):
    """A solution store of its own holding the whole SMALL game's target table, written by the
    ``target-table`` command without ``--out``."""
    import jax

    cache.setup(tmp_path / "cache", compilation=False)
    table_commands.target_table_command(
        SMALL, game="kniffel", dtype="float32", device=jax.devices()[0], quiet=True, out=None, filled=None,
        store="float32", at=None, devices=1, max_memory=2048, chunk=8,
    )
    yield TG.store_path("kniffel", SMALL)
    cache.setup(None, compilation=False)


def test_table_answer_from_the_stored_table(store):
    pos = Position((2, None, 6, None, None, None, None), SMALL.boxes)
    opp = W.Opponent(Position((None, 4, None, 8, None, None, 2), SMALL.boxes), 14)
    stored = W.advise_win(SMALL, pos, (1, 2, 2), 1, [opp], method="table", game="kniffel")
    solved = W.advise_win(SMALL, pos, (1, 2, 2), 1, [opp], method="table", table=TG.solve_target(SMALL, dtype="float64"))
    assert [o.label for o in stored.options] == [o.label for o in solved.options]
    np.testing.assert_allclose([o.value for o in stored.options], [o.value for o in solved.options], rtol=0, atol=1e-6)
    assert all(0.0 <= o.value <= 1.0 for o in stored.options)
    # mapped, not loaded: a layer is a read-only memory map of its file
    layer = TG.load_table(store, game="kniffel", rules=SMALL, layers=[2], mmap=True).layers[2]
    assert isinstance(layer, np.memmap)


def test_a_large_stored_layer_is_hashed_once_but_its_rows_are_recomputed_on_every_load(store, monkeypatch):
    monkeypatch.setattr(verify, "WHOLE_HASH_BYTES", 0)  # every file counts as large: noted once hashed
    verify.seal_export(store)
    member = store.with_name(store.stem + "-layer_3.npy")
    assert cache.sealed(member, verify.seal_of(_record(store, 3), member.stat()))

    def no_hashing(*args, **kwargs):
        raise AssertionError("hashed again")

    with monkeypatch.context() as m:
        m.setattr(hashlib, "file_digest", no_hashing)
        TG.load_table(store, game="kniffel", rules=SMALL, layers=[3], mmap=True)  # the note stands for the hash
    # altered in place, size and modification time kept: the note still matches, the recomputed rows do not
    st = member.stat()
    a = np.load(member)
    a[:, 1:] *= np.float32(0.9)
    np.save(member, a)
    os.utime(member, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cache.sealed(member, verify.seal_of(_record(store, 3), member.stat()))
    with pytest.raises(JaxsolveError, match="layer 3 does not follow from the rules"):
        TG.load_table(store, game="kniffel", rules=SMALL, layers=[3], mmap=True)
    # a changed time: hashed again, refused on its SHA-256
    os.utime(member)
    with pytest.raises(JaxsolveError, match="SHA-256"):
        TG.load_table(store, game="kniffel", rules=SMALL, layers=[3], mmap=True)


def test_a_small_stored_layer_is_hashed_on_every_load(store):
    member = store.with_name(store.stem + "-layer_3.npy")
    assert not cache.sealed(member, verify.seal_of(_record(store, 3), member.stat()))
    st = member.stat()
    data = bytearray(member.read_bytes())
    data[-4:] = np.float32(0.5).tobytes()
    member.write_bytes(bytes(data))
    os.utime(member, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(JaxsolveError, match="SHA-256"):
        TG.load_table(store, game="kniffel", rules=SMALL, layers=[3], mmap=True)


def _record(path, layer):
    from jaxsolve.io import export

    return export.read_metadata(path)["members"][f"layer_{layer}"]


def test_the_store_keeps_only_the_whole_game(tmp_path):
    import jax

    cache.setup(tmp_path / "cache", compilation=False)
    try:
        with pytest.raises(JaxsolveError, match="give --out"):
            table_commands.target_table_command(
                SMALL, game="kniffel", dtype="float32", device=jax.devices()[0], quiet=True, out=None, filled=["aces"],
                store="float32", at=None, devices=1, max_memory=2048, chunk=8,
            )
    finally:
        cache.setup(None, compilation=False)
