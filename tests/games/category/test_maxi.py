"""Maxi Yatzy: the sheet against the rule text, reduced games and saved throws against brute force."""

import itertools

import numpy as np
import pytest

from jaxsolve import games
from jaxsolve.games.category.sheets import maxi
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import saved, solver, tables
from jaxsolve.games.category.sheets.position import parse_position
from maxi_reference import game_value, points

BOXES = maxi.get_rules("maxi").box_names


def test_sheet_is_the_maxi_card():
    rules = maxi.get_rules("maxi")
    assert rules.dice == 6 and rules.num_boxes == 20 and rules.throws == 3
    assert (rules.upper_threshold, rules.upper_bonus, rules.joker, rules.extra_bonus) == (84, 100, "none", 0)
    assert BOXES[6:] == ("one_pair", "two_pairs", "three_pairs", "three_of_a_kind", "four_of_a_kind", "five_of_a_kind", "small_straight",
                         "large_straight", "full_straight", "full_house", "villa", "tower", "chance", "maxi_yatzy")
    assert games.get_game("maxi").get_rules() == rules
    assert maxi.get_rules("maxi-yatzy") == rules


def test_scores_match_the_rule_text_on_every_throw():
    rules = maxi.get_rules("maxi")
    scores = tables.throw_scores(rules)
    for t, counts in enumerate(tables.space(6).throws):
        d = tuple(f for f in range(1, 7) for _ in range(int(counts[f - 1])))
        assert [points(b, d) for b in BOXES] == scores[:, t].tolist(), d


@pytest.mark.parametrize(
    "dice,box,expected",
    [  # the examples printed with the rules
        ((3, 1, 1, 6, 1, 4), "ones", 3), ((6, 4, 2, 6, 5, 1), "one_pair", 12), ((2, 1, 3, 3, 5, 5), "two_pairs", 16),
        ((2, 2, 5, 5, 6, 6), "three_pairs", 26), ((4, 5, 3, 5, 5, 4), "three_of_a_kind", 15), ((2, 4, 2, 2, 5, 2), "four_of_a_kind", 8),
        ((3, 3, 2, 3, 3, 3), "five_of_a_kind", 15), ((1, 2, 3, 4, 5, 3), "small_straight", 15), ((2, 3, 4, 5, 6, 6), "large_straight", 20),
        ((1, 2, 3, 4, 5, 6), "full_straight", 21), ((3, 4, 4, 6, 6, 6), "full_house", 26), ((2, 2, 2, 5, 5, 5), "villa", 21),
        ((3, 3, 6, 6, 6, 6), "tower", 30), ((3, 4, 2, 6, 5, 4), "chance", 24), ((4, 4, 4, 4, 4, 4), "maxi_yatzy", 100),
    ],
)
def test_published_examples(dice, box, expected):
    rules = maxi.get_rules("maxi")
    counts = np.bincount(np.asarray(dice) - 1, minlength=6)
    t = tables.space(6).throw_index(counts)
    assert tables.throw_scores(rules)[BOXES.index(box), t] == expected


def test_state_space_size_matches_the_published_count():
    # MarcusTL12, yatzy_solver (2023): 3,510 reachable (upper boxes, capped upper total) pairs
    # for six dice, so 3,510 x 2^14 = 57,507,840 states before the Maxi Yatzy flag.
    rules = maxi.get_rules("maxi")
    assert int(tables.reachable_uppers(rules.upper_threshold, 6).sum()) == 3510
    without_flag = sum(int((tables.layer_states(rules, k)[2] == 0).sum()) for k in range(rules.num_boxes + 1))
    assert without_flag == 57_507_840


REDUCED = [
    # (dice, upper threshold, open boxes)
    (3, 8, ("threes", "sixes", "one_pair", "three_of_a_kind", "maxi_yatzy")),
    (3, 5, ("ones", "twos", "two_pairs", "chance")),
    (4, 12, ("sixes", "two_pairs", "four_of_a_kind")),
    (2, 6, ("ones", "twos", "threes", "one_pair", "maxi_yatzy")),
]


def _reduced_rules(dice, threshold, open_boxes):
    lower = tuple(b for b in BOXES[6:] if b in open_boxes)
    return maxi.reduced(dice, lower, threshold)


@pytest.mark.parametrize("case", REDUCED, ids=[f"{c[0]}dice-{len(c[2])}open" for c in REDUCED])
def test_reduced_games_match_brute_force(case):
    dice, threshold, open_boxes = case
    rules = _reduced_rules(*case)
    prefilled = [b for b in rules.box_names if b not in open_boxes]
    sol = solver.solve(rules)
    expected = game_value(open_boxes, dice=dice, threshold=threshold)
    assert sol.value(solver.filled_mask(prefilled, rules)) == pytest.approx(expected, abs=1e-9)


SAVED = [
    # (dice, upper threshold, open boxes, throws, max_saved)
    (2, 6, ("ones", "twos", "one_pair", "maxi_yatzy"), 3, 1),
    (2, 6, ("twos", "threes", "one_pair", "chance"), 2, 2),
    (3, 8, ("threes", "sixes", "three_of_a_kind", "maxi_yatzy"), 2, 1),
    pytest.param(2, 5, ("ones", "twos", "one_pair", "maxi_yatzy", "chance"), 2, 4, marks=pytest.mark.slow),
]


def _saved_id(case):
    c = case.values if hasattr(case, "values") else case
    return f"{c[0]}dice-{len(c[2])}open-throws{c[3]}-max_saved{c[4]}"


@pytest.mark.parametrize("dice, threshold, open_boxes, throws, max_saved", SAVED, ids=[_saved_id(c) for c in SAVED])
def test_saved_throws_match_brute_force(dice, threshold, open_boxes, throws, max_saved):
    rules = _reduced_rules(dice, threshold, open_boxes).replace(throws=throws)
    prefilled = [b for b in rules.box_names if b not in open_boxes]
    mask = solver.filled_mask(prefilled, rules)
    sol = saved.solve(rules, max_saved)
    for s in range(max_saved + 1):
        expected = game_value(open_boxes, dice=dice, threshold=threshold, throws=throws, max_saved=max_saved, saved=s)
        assert sol.value(mask, saved=s) == pytest.approx(expected, abs=1e-9), s


@pytest.mark.slow
def test_max_saved_zero_is_the_game_without_saving():
    rules = maxi.small()
    plain, zero = solver.solve(rules), saved.solve(rules, 0)
    np.testing.assert_array_equal(zero.values[0], plain.values)


@pytest.mark.slow
def test_value_grows_with_max_saved_and_stops_at_the_useful_max_saved():
    rules = _reduced_rules(2, 5, ("ones", "twos", "one_pair", "chance")).replace(throws=2)
    mask = solver.filled_mask([b for b in rules.box_names if b not in ("ones", "twos", "one_pair", "chance")], rules)
    values = [saved.solve(rules, max_saved).value(mask) for max_saved in range(5)]
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(values)) and values[1] > values[0] + 1e-3
    # four open boxes: at most three turns can each save one throw for a later turn
    assert values[3] == pytest.approx(values[4], abs=1e-12)


def test_value_only_solve_and_unreachable_saved_rows():
    rules = maxi.small().replace(throws=2)
    full, lean = saved.solve(rules, 3), saved.solve(rules, 3, table=False)
    assert lean.values is None and lean.game_value == full.game_value
    with pytest.raises(JaxsolveError, match="game value only"):
        lean.value(0)
    # a turn saves at most one throw here: one box filled leaves rows 0 and 1, the rest is NaN
    one = solver.filled_mask(["ones"], rules)
    assert np.isfinite(full.values[:2, one, 0, 0]).all() and np.isnan(full.values[2:, one, 0, 0]).all()
    np.testing.assert_array_equal(np.isfinite(full.values), saved.defined_mask(rules, 3))


def test_saved_export_round_trip_and_checks(tmp_path):
    rules = maxi.small().replace(throws=2)
    sol = saved.solve(rules, 2)
    path = tmp_path / "saved.npy"
    saved.save_solution(path, sol, game="maxi")
    back = saved.load_solution(path, game="maxi")
    np.testing.assert_array_equal(back.values, sol.values)
    assert back.max_saved == 2 and back.rules == rules and back.game_value == sol.game_value
    from jaxsolve.games.category.engine import table_io

    plain = tmp_path / "plain.npy"
    table_io.save_solution(plain, solver.solve(rules), game="maxi")
    with pytest.raises(JaxsolveError, match="max_saved"):
        saved.load_solution(plain, game="maxi")
    with pytest.raises(JaxsolveError):
        table_io.load_solution(path, game="maxi")


@pytest.mark.parametrize("bad", [-1, 61, 1.5, True, "2"])
def test_bad_max_saved_is_refused(bad):
    with pytest.raises(JaxsolveError, match="most saved throws"):
        saved.solve(maxi.small(), bad)


def test_positions_use_the_maxi_box_names():
    rules = maxi.get_rules("maxi")
    pos = parse_position("ones=3 villa=21 tower=- maxi_yatzy=100", rules)
    assert pos.filled == solver.filled_mask(["ones", "villa", "tower", "maxi_yatzy"], rules)


def test_device_out_of_memory_is_one_error_line(monkeypatch):
    from typer.testing import CliRunner

    from jaxsolve.cli import app

    class JaxRuntimeError(RuntimeError):
        pass

    def exhausted(*args, **kwargs):
        raise JaxRuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating 34225520640 bytes.")

    monkeypatch.setattr(saved, "solve", exhausted)
    result = CliRunner().invoke(app, ["solve", "maxi", "--saved-rolls", "3", "--quiet", "--no-cache"])
    assert result.exit_code == 1
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: out of memory on the device"), result.output


def test_an_export_larger_than_memory_is_refused_before_solving(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from jaxsolve.cli import app

    def must_not_solve(*args, **kwargs):
        raise AssertionError("solved although the export cannot fit")

    monkeypatch.setattr(saved, "available_memory", lambda: 2**30)
    monkeypatch.setattr(saved, "solve", must_not_solve)
    result = CliRunner().invoke(app, ["solve", "maxi", "--saved-rolls", "2", "--quiet", "--no-cache", "--out", str(tmp_path / "t.npy")])
    assert result.exit_code == 1 and "error: the whole table with up to 2 saved throws needs 4.0 GiB" in result.output, result.output
    assert not list(tmp_path.iterdir())


def test_moments_only_evaluation_equals_the_split_one():
    from jaxsolve.games.category.engine import evaluate

    sol = solver.solve(maxi.small())
    full, moments = evaluate.evaluate(sol), evaluate.evaluate(sol, split=False)
    assert moments.channels.shape[-1] == 2
    finite = ~np.isnan(sol.values)
    np.testing.assert_allclose(moments.channels[..., 0][finite], sol.values[finite], rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(moments.channels[..., 1][finite], full.channels[..., -1][finite], rtol=1e-12)
    assert moments.sd() == pytest.approx(full.sd(), rel=1e-12) and moments.sd() > 0


# Regression pins: this program's own values of the full game (no published optimum exists to
# compare with); float64 394.5575068 (docs/maxi.md), float32 below.
MAXI_FLOAT32_REGRESSION_PIN = 394.5580


@pytest.mark.slow
def test_full_maxi_solve_float32_and_the_simulation_agree():
    from jaxsolve.games.category.simulation import simulate

    rules = maxi.get_rules("maxi")
    sol = solver.solve(rules, dtype="float32")
    assert sol.values.dtype == np.float32
    assert sol.game_value == pytest.approx(MAXI_FLOAT32_REGRESSION_PIN, abs=2e-3)
    result = simulate.simulate(rules, "optimal", 20_000, seed=3, solution=sol)
    assert abs(result.mean - sol.game_value) < 3 * result.se


@pytest.mark.slow
def test_cli_saved_throw_solve_exports_a_table_the_loader_accepts(tmp_path):
    import json

    from typer.testing import CliRunner

    from jaxsolve.cli import app

    path = tmp_path / "yatzy-saved.npy"
    args = ["solve", "yatzy", "--rolls", "2", "--saved-rolls", "1", "--x64", "--no-cache", "--json", "--out", str(path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    back = saved.load_solution(path, game="yatzy")
    assert back.max_saved == 1 and back.values.shape[0] == 2 and back.rules.throws == 2
    assert summary["game_value"] == back.game_value and summary["max_saved"] == 1
    plain = solver.solve(back.rules)
    assert back.game_value > plain.game_value
