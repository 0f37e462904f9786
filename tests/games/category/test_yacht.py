"""Yacht on the category engine: the sheet's scoring against the rule text and the Exercism
exercise's examples, the registration, the one-player optimal expected score (a regression
pin: no published figure for these rules was found) and reduced games against a brute force."""

import numpy as np
import pytest

from jaxsolve import games
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets import yacht
from jaxsolve.games.category.sheets.position import parse_position
from yacht_reference import BOXES, game_value, points

REGRESSION_PIN = 166.9550677045723
"""Our own float64 optimal expected score of one-player Yacht (12 boxes, straights 30, no
bonus). No published optimal value for these rules was found (the one we know of, 191.77 in
ho94949/yacht-dice, scores another sheet: an upper bonus of 35, straights 15 and 30); the
brute force on reduced sheets below is the cross-check."""

# The worked examples of the Exercism exercise "yacht" (exercism/problem-specifications,
# canonical-data.json, 2017): dice, box, points.
EXERCISM_EXAMPLES = [
    ((5, 5, 5, 5, 5), "yacht", 50),
    ((1, 3, 3, 2, 5), "yacht", 0),
    ((3, 1, 1, 5, 1), "ones", 3),
    ((4, 3, 6, 5, 5), "ones", 0),
    ((1, 4, 1, 4, 1), "fours", 8),
    ((3, 3, 3, 3, 3), "threes", 15),
    ((3, 3, 3, 3, 3), "fives", 0),
    ((2, 2, 4, 4, 4), "full_house", 16),
    ((5, 3, 3, 5, 3), "full_house", 19),
    ((2, 2, 4, 4, 5), "full_house", 0),
    ((2, 2, 2, 2, 2), "full_house", 0),
    ((1, 2, 2, 2, 2), "four_of_a_kind", 8),
    ((6, 6, 4, 6, 6), "four_of_a_kind", 24),
    ((3, 3, 3, 3, 3), "four_of_a_kind", 12),
    ((3, 3, 3, 5, 5), "four_of_a_kind", 0),
    ((3, 5, 4, 1, 2), "little_straight", 30),
    ((1, 2, 3, 4, 5), "big_straight", 0),
    ((1, 2, 3, 4, 6), "little_straight", 0),
    ((4, 6, 2, 5, 3), "big_straight", 30),
    ((6, 5, 4, 3, 2), "little_straight", 0),
    ((3, 3, 5, 6, 6), "choice", 23),
    ((2, 2, 2, 2, 2), "choice", 10),
]


def engine_points(rules, dice: tuple[int, ...]) -> list[int]:
    sp = tables.space(rules.dice)
    counts = tuple(int((np.asarray(dice) == f).sum()) for f in range(1, 7))
    t = next(i for i, c in enumerate(sp.throws) if tuple(int(x) for x in c) == counts)
    return [int(x) for x in tables.throw_scores(rules)[:, t]]


def test_the_engine_scores_the_exercism_examples():
    rules = yacht.get_rules("yacht")
    for dice, box, expected in EXERCISM_EXAMPLES:
        assert points(box, dice) == expected, (dice, box)
        assert engine_points(rules, dice)[BOXES.index(box)] == expected, (dice, box)


def test_every_throw_scores_as_the_rule_text_says():
    rules = yacht.get_rules("yacht")
    assert rules.box_names == BOXES
    sp = tables.space(5)
    ours = tables.throw_scores(rules)
    for t, counts in enumerate(sp.throws):
        faces = tuple(sp.faces_of(counts))
        assert [int(x) for x in ours[:, t]] == [points(b, faces) for b in BOXES], faces


def test_the_registered_game():
    game = games.get_game("yacht")
    rules = game.get_rules()
    assert rules == yacht.PRESETS["yacht"] and game.family == "category"
    assert (rules.dice, rules.throws, rules.upper_bonus, rules.joker, rules.extra_bonus) == (5, 3, 0, "none", 0)
    assert not rules.has_all_same_rules
    pos = parse_position("ones=3 fh=19 four_of_a_kind=24 little_straight=30 choice=- yacht=50", rules)
    assert [pos.scores[i] for i in (0, 6, 7, 8, 10, 11)] == [3, 19, 24, 30, 0, 50]


def test_one_player_optimal_expected_score():
    sol = solver.solve(yacht.get_rules("yacht"))
    assert sol.values.dtype == np.float64
    assert sol.game_value == pytest.approx(REGRESSION_PIN, abs=1e-9)
    # without an upper bonus the upper total is worth nothing: where both upper states are
    # reachable they have the same value
    low, high = sol.values[:, 0, :], sol.values[:, 1, :]
    both = ~np.isnan(low) & ~np.isnan(high)
    assert both.sum() > 1000
    np.testing.assert_array_equal(low[both], high[both])


REDUCED = [
    # (dice, open boxes)
    (3, ("threes", "sixes", "full_house", "four_of_a_kind", "choice", "yacht")),
    (4, ("fives", "four_of_a_kind", "choice", "yacht")),
    (5, ("little_straight", "big_straight", "yacht")),
]


@pytest.mark.parametrize("case", REDUCED, ids=[f"{d}dice-{len(b)}open" for d, b in REDUCED])
def test_reduced_games_match_brute_force(case):
    """The engine's value of a sheet with only ``open`` boxes left equals a plain-Python brute
    force's (written from the rule text, every keep tried)."""
    dice, open_boxes = case
    rules = yacht.get_rules("yacht").replace(dice=dice)
    sol = solver.solve(rules)
    prefilled = [b for b in BOXES if b not in open_boxes]
    assert sol.value(solver.filled_mask(prefilled, rules)) == pytest.approx(game_value(open_boxes, dice=dice), abs=1e-9)
