"""Target tables exported and read back: every layer, checked on reading; advice from a table."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver
from jaxsolve.games.category.objectives import target as TG
from jaxsolve.games.category.objectives import target_situation
from jaxsolve.games.category.sheets.rules import CategoryRules

RULES = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)
OPEN = (0, 2, 8, 11, 12)
MASK = solver.filled_mask(set(range(13)) - set(OPEN))
runner = CliRunner()
FILLED = [x for b in ("aces", "twos", "threes", "fours", "fives", "sixes", "three_kind", "four_kind", "full_house", "small_straight") for x in ("--filled", b)]


@pytest.fixture(scope="module")
def table():
    return TG.solve_target(RULES, prefilled=MASK)


@pytest.mark.parametrize("store, tol", [("float32", 1e-7), ("uint16", 0.5 / 65535 + 1e-7)])
def test_round_trip(tmp_path, table, store, tol):
    path = tmp_path / "t.npy"
    files = TG.save_table(path, table, game="kniffel", store=store)
    assert len(files) == 1 + RULES.num_boxes - bin(MASK).count("1")
    back = TG.load_table(path, game="kniffel", rules=RULES)
    for a, b in zip(table.layers, back.layers):
        assert (a is None) == (b is None)
        if a is not None:
            assert np.abs(a - b).max() <= tol
    one = TG.load_table(path, game="kniffel", layers=[12])
    assert [k for k, a in enumerate(one.layers) if a is not None] == [12]


def test_advice_from_a_table_equals_the_solve(tmp_path, table):
    path = tmp_path / "t.npy"
    TG.save_table(path, table, game="kniffel")
    sub = MASK | 1  # later positions of the same game: aces filled, then threes too
    last = sub | 4
    part = TG.load_table(path, game="kniffel", layers=[bin(m).count("1") + 1 for m in (MASK, sub, last)])
    for mask, throws_left in ((MASK, 2), (MASK, 0), (sub, 1), (last, 0), (last, 2)):
        a = target_situation.target_options(table, mask, 0, 0, [1, 6, 6], throws_left, 30)
        b = target_situation.target_options(part, mask, 0, 0, [1, 6, 6], throws_left, 30)
        assert {(c.kind, c.what): c.probability for c in a} == pytest.approx({(c.kind, c.what): c.probability for c in b}, abs=1e-6)
    # the best keep's probability is the state's own value at the start of a turn
    start = target_situation.target_options(table, MASK, 0, 0, [1, 6, 6], 2, 30)[0].probability
    assert start <= table.at(MASK)[30] + 1e-12


def test_tampered_or_foreign_tables_are_refused(tmp_path, table):
    path = tmp_path / "t.npy"
    TG.save_table(path, table, game="kniffel")
    with pytest.raises(JaxsolveError, match="kniffel"):
        TG.load_table(path, game="yatzy")
    with pytest.raises(JaxsolveError, match="not"):
        TG.load_table(path, game="kniffel", rules=RULES.replace(extra_bonus=20))
    member = tmp_path / "t-layer_12.npy"
    data = bytearray(member.read_bytes())
    data[-1] ^= 1
    member.write_bytes(bytes(data))
    with pytest.raises(JaxsolveError, match="layer_12"):
        TG.load_table(path, game="kniffel", layers=[12])
    with pytest.raises(JaxsolveError, match="layer_12"):
        TG.load_table(path, game="kniffel", layers=[11])  # layer 11 is checked against layer 12, read for it
    TG.load_table(path, game="kniffel", layers=[10])  # the others still read
    with pytest.raises(JaxsolveError, match="no such"):
        TG.load_table(tmp_path / "none.npy", game="kniffel")


def test_cli_target_table_and_advice(tmp_path):
    out = tmp_path / "y.npy"
    res = runner.invoke(app, ["target-table", "kniffel", "--rules", "yahtzee", *FILLED, "--out", str(out), "--at", "30", "--json", "--quiet"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["p_at_least"]["0"] == 1.0 and 0 < data["p_at_least"]["30"] < 1
    args = ["advise-target", "kniffel", "6", "6", "6", "2", "1", "--target", "30", "--rerolls", "1", *FILLED, "--json"]
    solved = runner.invoke(app, args)
    read = runner.invoke(app, [*args, "--table", str(out)])
    assert solved.exit_code == 0 and read.exit_code == 0, solved.output + read.output
    a, b = json.loads(solved.stdout), json.loads(read.stdout)
    assert {c["what"]: c["probability"] for c in a} == pytest.approx({c["what"]: c["probability"] for c in b}, abs=1e-6)
    bad = runner.invoke(app, [*args[:-len(FILLED) - 1], "--json", "--table", str(out)])  # a position the table does not cover
    assert bad.exit_code == 1 and "covers only" in bad.output and "Traceback" not in bad.output
    bad = runner.invoke(app, [*args, "--table", str(tmp_path / "none.npy")])
    assert bad.exit_code == 1 and "no such target table" in bad.output


def test_a_layer_scaled_and_resealed_is_refused(tmp_path, table):
    """A layer scaled by 0.9 (t > 0) and the export written again whole, so that its sidecar and
    every hash are right and its values in range and non-increasing: refused on loading by the
    rows recomputed from the rules, in one line."""
    k = bin(MASK).count("1") + 1
    layers = list(table.layers)
    layers[k] = table.layers[k].copy()
    layers[k][:, 1:] *= 0.9
    path = tmp_path / "scaled.npy"
    TG.save_table(path, TG.LayerTables(RULES, layers, table.rows, "target", prefilled=MASK), game="kniffel")
    for mmap in (False, True):
        with pytest.raises(JaxsolveError, match=f"layer {k} does not follow from the rules") as err:
            TG.load_table(path, game="kniffel", rules=RULES, layers=[k], mmap=mmap)
        assert "\n" not in str(err.value)
    TG.load_table(path, game="kniffel", rules=RULES, layers=[k + 1])  # the layers below still read


@pytest.mark.parametrize("mmap", [False, True])
def test_a_table_renamed_as_a_whole_loads(tmp_path, table, mmap):
    path = tmp_path / "t.npy"
    TG.save_table(path, table, game="kniffel")
    for f in sorted(tmp_path.glob("t*")):
        f.rename(tmp_path / ("renamed" + f.name[1:]))
    back = TG.load_table(tmp_path / "renamed.npy", game="kniffel", rules=RULES, mmap=mmap)
    k = RULES.num_boxes - 1
    assert np.array_equal(np.asarray(back.layers[k][:]), table.layers[k].astype(np.float32))
