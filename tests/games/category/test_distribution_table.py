"""The stored table of every state's remaining-score distribution (``distribution-table``): written
in float32 and read back (memory-mapped) against the float64 distribution engine and the brute
force of tests/references/winning_reference.py; refused where it is the other kind of table or
altered; an opponent's distribution read from it in ``advise --opponent``, in a new process that
imports no JAX."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve import games
from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import distribution as D
from jaxsolve.games.category.engine import solutions, solver, table_io
from jaxsolve.games.category.objectives import target as TG
from jaxsolve.games.category.objectives import winning as W
from jaxsolve.games.category.sheets.position import parse_position, parse_state
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.io import cache, verify
from winning_reference import opponent_final

RULES3 = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)
OPEN = (0, 2, 8, 11, 12)
MASK = solver.filled_mask(set(range(13)) - set(OPEN))
F32 = 2.0**-24
"""float32 rounding of a probability p (a normal float32): at most ``2^-24 p``."""
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _random_layers(rules, rng, kind: str, prefilled: int = 0) -> D.LayerTables:
    """Random rows of every state of a (sub)game: P(at least t more) non-increasing in t from 1
    (``target``), or non-negative rows summing to 1 (``distribution``), float64."""
    lengths = D.support_lengths(rules)
    layers: list = [None] * (rules.num_boxes + 1)
    for k in range(bin(prefilled).count("1"), rules.num_boxes + 1):
        x = rng.uniform(0.0, 1.0, (len(D.sub_layer_states(rules, k, prefilled)[0]), lengths[k]))
        if kind == "target":
            x = np.sort(x, axis=1)[:, ::-1]
            x[:, 0] = 1.0
        else:
            x = x**8  # many small probabilities, as in a real row
            x /= x.sum(1, keepdims=True)
        layers[k] = x
    return D.LayerTables(rules, layers, D.layer_rows(rules, prefilled), kind, prefilled=prefilled)


@pytest.fixture(scope="module")
def random_dist():
    return _random_layers(RULES3, np.random.default_rng(1), "distribution", MASK)


@pytest.fixture
def saved(tmp_path, random_dist):
    path = tmp_path / "d.npy"
    TG.save_table(path, random_dist, game="kniffel")
    return path


@pytest.mark.parametrize("mmap", [False, True])
def test_stored_rows_are_the_float64_rows_rounded_to_float32(saved, random_dist, mmap):
    back = TG.load_table(saved, game="kniffel", rules=RULES3, mmap=mmap, kind="distribution", recompute=False)  # random rows: no solver's
    assert back.kind == "distribution" and back.prefilled == MASK
    for k in range(bin(MASK).count("1"), RULES3.num_boxes + 1):
        ref, got = random_dist.layers[k], np.asarray(back.layers[k][:], np.float64)
        assert got.shape == ref.shape and np.asarray(back.layers[k][:1]).dtype == np.float32
        assert np.all(np.abs(got - ref) <= F32 * ref + 1e-45)
    np.testing.assert_array_equal(back.at(MASK, 6, 0), random_dist.at(MASK, 6, 0).astype(np.float32))


def test_the_other_kind_or_an_altered_file_is_refused(tmp_path, saved, random_dist):
    with pytest.raises(JaxsolveError, match="not a target table"):
        TG.load_table(saved, game="kniffel", rules=RULES3)
    target = tmp_path / "t.npy"
    TG.save_table(target, _random_layers(RULES3, np.random.default_rng(2), "target", MASK), game="kniffel")
    with pytest.raises(JaxsolveError, match="not a distribution table"):
        TG.load_table(target, game="kniffel", kind="distribution")
    with pytest.raises(JaxsolveError, match="float32"):
        TG.save_table(tmp_path / "u.npy", random_dist, game="kniffel", store="uint16")
    with pytest.raises(JaxsolveError, match="one of target, distribution"):
        TG.load_table(saved, game="kniffel", kind="score")
    member = tmp_path / "d-layer_12.npy"
    data = bytearray(member.read_bytes())
    data[-3] ^= 1
    member.write_bytes(bytes(data))
    with pytest.raises(JaxsolveError, match="layer_12") as err:
        TG.load_table(saved, game="kniffel", layers=[12], mmap=True, kind="distribution", recompute=False)
    assert "\n" not in str(err.value)
    TG.load_table(saved, game="kniffel", layers=[10], mmap=True, kind="distribution", recompute=False)  # the other layers still read


def _opponent(open_boxes=OPEN):
    """A sheet with ``open_boxes`` open, upper total 0."""
    filled = ",".join(RULES3.box_names[b] for b in range(13) if b not in open_boxes)
    return parse_state(f"filled={filled} upper=0 all_same_held=0", RULES3)


def _store(folder, table) -> None:
    path = TG.store_path("kniffel", RULES3, "distribution")
    path.parent.mkdir(parents=True, exist_ok=True)
    TG.save_table(path, table, game="kniffel")
    TG.seal_table(path)


def test_an_opponent_row_is_read_from_the_store(tmp_path, solved, monkeypatch):
    """``remaining_distribution`` reads the stored row where the store holds the table: no engine
    is called (the load's check recomputes its sample of rows with the score table's policy)."""
    _, dist = solved

    def no_engine(*args, **kwargs):
        raise AssertionError("computed, not read from the table")

    monkeypatch.setattr(D, "distribution_numpy", no_engine)
    monkeypatch.setattr(D, "distribution", no_engine)
    try:
        cache.configure(tmp_path)
        _store(tmp_path, dist)
        got = W.remaining_distribution(RULES3, _opponent(), game="kniffel", engine="auto")
    finally:
        cache.configure(None)
    np.testing.assert_array_equal(got, dist.at(MASK, 0, 0).astype(np.float32).astype(np.float64))


def test_a_resealed_or_altered_in_place_table_is_refused(tmp_path, solved, monkeypatch):
    """A layer scaled by 0.9 and written again with a new sidecar (every hash right), and a layer
    altered in place with its size and time kept after its check was noted: both refused by the
    rows recomputed on loading, in one line."""
    _, dist = solved
    nb = RULES3.num_boxes
    k = nb - 2
    altered = D.LayerTables(RULES3, list(dist.layers), dist.rows, "distribution", prefilled=MASK)
    altered.layers[k] = dist.layers[k].copy()
    altered.layers[k][:, 1:] *= 0.9
    altered.layers[k][:, 0] = 1.0 - altered.layers[k][:, 1:].sum(1)  # rows still sum to 1
    resealed = tmp_path / "resealed.npy"
    TG.save_table(resealed, altered, game="kniffel")
    with pytest.raises(JaxsolveError, match=f"layer {k} does not follow from the rules") as err:
        TG.load_table(resealed, game="kniffel", rules=RULES3, layers=[k], mmap=True, kind="distribution")
    assert "\n" not in str(err.value)
    monkeypatch.setattr(verify, "WHOLE_HASH_BYTES", 0)  # every file counts as large: trusted by its note once hashed
    try:
        cache.configure(tmp_path / "store")
        _store(tmp_path, dist)
        path = TG.store_path("kniffel", RULES3, "distribution")
        TG.load_table(path, game="kniffel", rules=RULES3, layers=[k], mmap=True, kind="distribution")
        member = path.with_name(f"{path.stem}-layer_{k}.npy")
        st = member.stat()
        a = np.load(member)
        a[::-1] = a.copy()  # every row moved, sizes and sums kept
        np.save(member, a)
        os.utime(member, ns=(st.st_atime_ns, st.st_mtime_ns))
        with pytest.raises(JaxsolveError, match=f"layer {k} does not follow from the rules"):
            TG.load_table(path, game="kniffel", rules=RULES3, layers=[k], mmap=True, kind="distribution")
    finally:
        cache.configure(None)


@pytest.fixture(scope="module")
def solved():
    """The score solution of the reduced game and the float64 distribution of every state of the
    subgame with all boxes but ``OPEN`` filled (the distribution engine, in memory)."""
    sol = solutions.solution(RULES3, "score", dtype="float64")
    return sol, D.distribution(RULES3, sol, dtype="float64", keep="all", prefilled=MASK)


def test_stored_rows_equal_the_engine_and_the_brute_force(tmp_path, solved):
    """The engine's table stored and read back: every row within float32 rounding of the
    engine's, the brute force's and the NumPy engine's, which ``remaining_distribution`` gives
    where the store holds no table."""
    sol, dist = solved
    path = tmp_path / "d.npy"
    TG.save_table(path, dist, game="kniffel")
    back = TG.load_table(path, game="kniffel", rules=RULES3, mmap=True, kind="distribution")
    for k in range(bin(MASK).count("1"), RULES3.num_boxes + 1):
        ref, got = dist.layers[k], np.asarray(back.layers[k][:], np.float64)
        assert np.all(np.abs(got - ref) <= F32 * ref + 1e-45)
        assert np.abs(got.sum(1) - 1.0).max() < 1e-6
    got = np.asarray(back.at(MASK, 0, 0), np.float64)
    brute = opponent_final(RULES3, frozenset(range(13)) - set(OPEN), 0, len(got))
    assert np.all(np.abs(got - brute) <= F32 * brute + 1e-12)
    try:
        cache.configure(tmp_path)
        computed = W.remaining_distribution(RULES3, _opponent(), sol, game="kniffel", engine="auto")
        _store(tmp_path, dist)
        read = W.remaining_distribution(RULES3, _opponent(), sol, game="kniffel", engine="auto")
        outside = _opponent(OPEN + (1,))  # twos open too: not a state of the stored subgame, so computed
        np.testing.assert_array_equal(W.remaining_distribution(RULES3, outside, sol, game="kniffel"), W.remaining_distribution(RULES3, outside, sol, engine="numpy"))
    finally:
        cache.configure(None)
    assert np.all(np.abs(read - computed) <= F32 * computed + 1e-15)
    np.testing.assert_allclose(computed, brute, rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- a new process


ME = "ones=1 twos=4 threes=9 fours=12 fives=15 sixes=18 full_house=23"
OPPS = ("start 0", "ones=3 yacht=50 53")  # the start, and two boxes filled


@pytest.fixture(scope="module")
def yacht_store(tmp_path_factory):
    """A solution store of Yacht (12 boxes, no bonus: a whole game small enough to solve here in
    seconds) with the float64 score table and the whole game's target and distribution tables,
    each written by its command."""
    folder = tmp_path_factory.mktemp("store")
    rules = games.get_game("yacht").get_rules("yacht")
    for command in (["solve", "yacht", "--x64"], ["target-table", "yacht"], ["distribution-table", "yacht"]):
        res = CliRunner().invoke(app, [*command, "--cache-dir", str(folder), "--quiet", "--json"])
        assert res.exit_code == 0, res.output
    try:
        cache.configure(folder)
        sol = table_io.load_solution(cache.entry_path("yacht", rules, "score", "float64"), game="yacht")
    finally:
        cache.configure(None)
    return folder, rules, sol


def _advise(folder, *extra):
    args = ["advise", "yacht", "--position", ME, "--dice", "6", "6", "5", "2", "1", "--throws-left", "1", "--json", "--win-method", "table", *extra]
    args += [x for o in OPPS for x in ("--opponent", o)]
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, "-m", "jaxsolve.cli.jax_probe", *args, "--cache-dir", str(folder)], env=env, capture_output=True, text=True, timeout=120)


def test_table_answer_with_early_opponents_in_a_new_process_imports_no_jax(yacht_store):
    """Opponents at the start and with two boxes filled, their rows read from the stored
    distribution table: no JAX module imported, the answer of ``advise_win`` with those rows,
    not the one computed from the score table."""
    folder, rules, sol = yacht_store
    run = _advise(folder)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stderr.splitlines()[-1] == "no jax", run.stderr
    assert sum("using the distribution table" in x for x in run.stderr.splitlines()) == 2  # layers 0 and 2, one row each
    got = json.loads(run.stdout)
    me, opps = parse_position(ME, rules), [W.parse_opponent(o, rules) for o in OPPS]
    try:
        cache.configure(folder)
        ref = W.advise_win(rules, me, (6, 6, 5, 2, 1), 1, opps, method="table", sol=sol, game="yacht")
    finally:
        cache.configure(None)
    assert got["method"] == "table"
    assert [o["value"] for o in got["options"]] == pytest.approx([o.value for o in ref.options], abs=1e-12)


def test_an_altered_stored_distribution_table_is_one_error_line(yacht_store, tmp_path):
    """A distribution layer changed on disk after its check was noted: one line, exit status 1."""
    import shutil

    folder, rules, _ = yacht_store
    copy = tmp_path / "store"
    shutil.copytree(folder, copy)
    try:
        cache.configure(copy)
        path = TG.store_path("yacht", rules, "distribution")
    finally:
        cache.configure(None)
    member = path.with_name(path.stem + "-layer_2.npy")
    data = bytearray(member.read_bytes())
    data[-5] ^= 1
    member.write_bytes(bytes(data))
    args = ["advise", "yacht", "--position", ME, "--dice", "6", "6", "5", "2", "1", "--throws-left", "1", "--win-method", "table", "--quiet"]
    res = CliRunner().invoke(app, [*args, *(x for o in OPPS for x in ("--opponent", o)), "--cache-dir", str(copy)])
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "layer_2" in lines[0] and "SHA-256" in lines[0], res.output


@pytest.mark.slow
def test_cli_distribution_table_of_a_whole_game(tmp_path):
    """``distribution-table yacht`` into a store: every row the in-memory engine's within float32
    rounding, the start's mean the game value."""
    res = CliRunner().invoke(app, ["distribution-table", "yacht", "--cache-dir", str(tmp_path), "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    rules = games.get_game("yacht").get_rules("yacht")
    try:
        cache.configure(tmp_path)
        sol = solutions.cached_solution(rules, "score", "float64", game="yacht")
        back = TG.load_table(TG.store_path("yacht", rules, "distribution"), game="yacht", rules=rules, mmap=True, kind="distribution")
    finally:
        cache.configure(None)
    assert data["mean"] == pytest.approx(float(sol.value(0)), abs=1e-9)
    start = (0, 0, 0)
    ref = D.distribution_numpy(rules, sol, start).at(*start)
    got = np.asarray(back.at(*start), np.float64)
    assert np.all(np.abs(got - ref) <= F32 * ref + 1e-15)
