"""Kniffel engine: published figures, regression pins, independent brute force on reduced games, loader."""

import numpy as np
import pytest

from jaxsolve.games.category.engine import solver, table_io, tables
from jaxsolve.games.category.sheets.rules import CategoryRules, RulesError
from jaxsolve.games.category.sheets.kniffel import PRESETS, get_rules
from kniffel_reference import game_value

# Figures printed by others, asserted only to the digits they were printed with:
PUBLISHED = {
    # T. Verhoeff, "Optimal Solitaire Yahtzee Player" (web pages, TU Eindhoven, 1999): 254.5896
    # for Yahtzee with the extra bonus and a free joker choice
    "yahtzee-free": (254.5896, 4),
    # M. Mitsos, "Analyse von Kniffel und Ermittlung der optimalen Spielstrategie ueber APL",
    # APL-Journal 28 (2009), issue 1/2, table 22: 189.9733 (two throws per turn)
    "kniffel-apl": (189.9733, 4),
}

# Regression pins: this program's own float64 values (they agree with the published figures
# above to the printed digits); a change here is a change in the solver's results.
REGRESSION_PINS = {
    "yahtzee": 254.5877287,
    "yahtzee-free": 254.5896095,
    "yahtzee-nojoker": 253.9702412,
    "yahtzee-nobonus": 245.8707745,
    "kniffel-apl": 189.973320,
}


@pytest.fixture(scope="module")
def solutions():
    return {}


def solved(cache, name):
    if name not in cache:
        cache[name] = solver.solve(PRESETS[name])
    return cache[name]


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_published_values(solutions, name):
    printed, digits = PUBLISHED[name]
    assert round(solved(solutions, name).game_value, digits) == printed


@pytest.mark.parametrize("name", list(REGRESSION_PINS))
def test_regression_pins_float64(solutions, name):
    sol = solved(solutions, name)
    assert sol.values.dtype == np.float64
    assert sol.game_value == pytest.approx(REGRESSION_PINS[name], abs=1e-6)


def test_float32_agrees(solutions):
    sol32 = solver.solve(PRESETS["yahtzee"], dtype=np.float32)
    assert sol32.values.dtype == np.float32
    assert sol32.game_value == pytest.approx(REGRESSION_PINS["yahtzee"], abs=1e-3)


def test_reachable_count_and_nan_marking(solutions):
    sol = solved(solutions, "yahtzee")
    assert tables.num_reachable() == 536_448
    assert int(np.isfinite(sol.values).sum()) == 536_448
    assert np.isnan(sol.value(0, 5, 0))  # no upper box filled yet, upper total 5
    assert sol.value(sol.rules.full_mask, 63, 1) == 0.0


REDUCED = [
    # (dice, throws, joker, bonus_on_scratch, threshold, open boxes[, instant bonuses])
    (3, 3, "none", True, 6, (0, 2, 8, 10, 11, 12)),
    (3, 2, "kniffel", False, 6, (0, 2, 6, 11, 12), (30, 5)),
    (3, 1, "forced", True, 6, (0, 2, 11, 12), (30, 5)),
    (3, 3, "forced", True, 6, (0, 2, 8, 10, 11, 12)),
    (3, 3, "free", True, 6, (0, 2, 8, 10, 11, 12)),
    (3, 2, "kniffel", False, 6, (0, 2, 8, 10, 11, 12)),
    (4, 2, "forced", True, 8, (1, 3, 6, 7, 9, 11)),
    (2, 3, "free", True, 4, (0, 1, 5, 6, 11, 12, 8)),
]


@pytest.mark.parametrize("case", REDUCED, ids=lambda c: f"{c[0]}d-{c[1]}r-{c[2]}")
def test_reduced_games_match_brute_force(case):
    n, throws, joker, on_scratch, threshold, open_boxes, *instant = case
    kn, other = instant[0] if instant else (0, 0)
    rules = CategoryRules(
        throws=throws, joker=joker, bonus_on_scratch=on_scratch, upper_threshold=threshold, dice=n, instant_all_same=kn, instant_other=other
    )
    prefilled = frozenset(range(13)) - set(open_boxes)
    sol = solver.solve(rules, chunk=256)
    assert sol.value(solver.filled_mask(prefilled)) == pytest.approx(game_value(rules, prefilled), abs=1e-9)


def test_export_round_trip(tmp_path):
    rules = CategoryRules(dice=2, throws=2, upper_threshold=5)
    sol = solver.solve(rules, chunk=256)
    path = tmp_path / "small.npy"
    table_io.save_solution(path, sol, game="kniffel")
    back = table_io.load_solution(path, game="kniffel")
    assert back.rules == rules
    np.testing.assert_array_equal(back.values, sol.values)
    assert back.value(0, 0, 0) == pytest.approx(sol.game_value)
    assert not list(tmp_path.glob("*.tmp"))


def test_rules_errors():
    with pytest.raises(RulesError, match="unknown Kniffel rules"):
        get_rules("yahtzy")
    with pytest.raises(RulesError, match="joker"):
        CategoryRules(joker="wild")
    with pytest.raises(RulesError):
        CategoryRules(throws=0)
