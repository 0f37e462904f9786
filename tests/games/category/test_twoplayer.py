"""The two-player engine (both play to win) against an independent brute force on tiny sheets."""

from __future__ import annotations

import numpy as np
import pytest
from twoplayer_reference import TwoPlayer, yahtzee_points
from yacht_reference import points as yacht_points

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.sheets import yacht
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET

YAHTZEE_TINY = CategoryRules(name="yahtzee-tiny", dice=2, joker="none", extra_bonus=100, upper_bonus=35, upper_threshold=5, boxes=KNIFFEL_SHEET)
"""Yahtzee's scoring on two dice, the upper bonus at 5 points (twos and threes can reach it),
the extra bonus for a further pair while the Yahtzee box holds its 50."""


def mask(rules: CategoryRules, open_boxes) -> int:
    """The filled mask of a sheet whose open boxes are ``open_boxes``."""
    names = rules.box_names
    return rules.full_mask & ~sum(1 << names.index(b) for b in open_boxes)


def reference_for(rules: CategoryRules, tie: str) -> TwoPlayer:
    if rules.name == "yahtzee-tiny":
        return TwoPlayer(yahtzee_points, dice=rules.dice, throws=rules.throws, tie=twoplayer.TIES[tie], threshold=rules.upper_threshold,
                         upper_bonus=rules.upper_bonus, all_same_box="kniffel", extra_bonus=rules.extra_bonus, reach=700)
    return TwoPlayer(yacht_points, dice=rules.dice, throws=rules.throws, tie=twoplayer.TIES[tie], reach=300)


def engine_vector(table, mine, theirs, reach: int) -> np.ndarray:
    """The engine's values over the leads -reach..reach (0 below its window, 1 above)."""
    leads, v = table.values(mine, theirs)
    out = np.where(np.arange(-reach, reach + 1) < leads[0], 0.0, 1.0)
    out[leads + reach] = v
    return out


def reference_sheet(rules: CategoryRules, sheet):
    filled, upper, held = sheet
    return (frozenset(b for i, b in enumerate(rules.box_names) if not (filled >> i) & 1), upper, bool(held))


def check_layers(table, ref: TwoPlayer, every: int = 1) -> int:
    """Every ``every``-th pair of every kept layer against the reference, all leads; returns pairs checked."""
    rules = table.rules
    got, want, where = [], [], []
    for p in table.plans:
        if table.layers[p.n] is None:
            continue
        mine_sheets, their_sheets = table.sheets[p.mover], table.sheets[1 - p.mover]
        for row in range(0, p.pairs, every):
            j, i = divmod(row, p.movers)
            mine = (int(mine_sheets.filled[p.a][i]), int(mine_sheets.upper[p.a][i]), int(mine_sheets.held[p.a][i]))
            theirs = (int(their_sheets.filled[p.b][j]), int(their_sheets.upper[p.b][j]), int(their_sheets.held[p.b][j]))
            want.append(ref.values(reference_sheet(rules, mine), reference_sheet(rules, theirs), starter_moves=p.a == p.b))
            got.append(engine_vector(table, mine, theirs, ref.reach))
            where.append((p.n, mine, theirs))
    gap = np.abs(np.asarray(got) - np.asarray(want)).max(axis=1)
    worst = int(gap.argmax())
    assert gap[worst] < 1e-9, f"layer {where[worst][0]}, sheets {where[worst][1]} against {where[worst][2]}: off by {gap[worst]:.3g}"
    return len(got)


CASES = [
    pytest.param(yacht.small().replace(dice=2), ("twos", "choice", "yacht"), ("twos", "choice", "yacht"), id="yacht-2dice-3boxes"),
    pytest.param(yacht.small(), ("sixes", "full_house"), ("sixes", "full_house"), id="yacht-3dice-2boxes"),
    pytest.param(yacht.small().replace(dice=1), ("ones", "threes", "choice", "yacht"), ("ones", "threes", "choice", "yacht"), id="yacht-1die-4boxes"),
    pytest.param(yacht.small().replace(dice=2), ("ones", "choice", "yacht"), ("ones", "yacht"), id="yacht-second-to-move"),
    pytest.param(YAHTZEE_TINY, ("twos", "threes", "kniffel"), ("twos", "threes", "kniffel"), id="yahtzee-2dice-bonus"),
]


@pytest.mark.parametrize("tie", ["share", "win", "lose"])
@pytest.mark.parametrize("rules, mine_open, theirs_open", CASES)
def test_every_position_matches_the_brute_force(rules, mine_open, theirs_open, tie):
    """Every pair of sheets of every layer (start and mid positions, every upper total and
    Yahtzee-box state), every lead in [-R, R] (the engine's cut included), to 1e-9 in float64."""
    table = twoplayer.solve(rules, tie=tie, mine=mask(rules, mine_open), theirs=mask(rules, theirs_open), keep="all", dtype="float64")
    ref = reference_for(rules, tie)
    every = 1 if rules.name != "yahtzee-tiny" else 3
    assert check_layers(table, ref, every) >= 3
    starter = len(mine_open) == len(theirs_open)
    want = ref.value(mine_open, theirs_open, 0, starter_moves=starter)
    assert table.start == pytest.approx(want, abs=1e-9)


def test_tie_rules_order_and_symmetry():
    """A tie that goes to the starter can only help him: lose <= share <= win; the three differ
    in a game where ties happen (one die, two boxes)."""
    rules = yacht.small().replace(dice=1)
    got = twoplayer.outcome(rules, mine=mask(rules, ("ones", "twos")), theirs=mask(rules, ("ones", "twos")), dtype="float64")
    assert got.lose < got.share < got.win
    assert 0.0 < got.tie_worth < 1.0


def test_bad_input_is_one_clear_error():
    rules = yacht.small()
    with pytest.raises(JaxsolveError, match="tie must be one of"):
        twoplayer.solve(rules, tie="draw")
    with pytest.raises(JaxsolveError, match="one more"):
        twoplayer.solve(rules, mine=mask(rules, ("ones",)), theirs=mask(rules, ("ones", "twos", "threes")))
    with pytest.raises(JaxsolveError, match="keep must be"):
        twoplayer.solve(rules, keep="some")
    tiny = rules.replace(dice=1)
    start = mask(tiny, ("ones", "twos"))
    table = twoplayer.solve(tiny, mine=start, theirs=start)
    with pytest.raises(JaxsolveError, match="was not kept"):
        table.values((start, 0, 0), (start | 1, 0, 0))
    with pytest.raises(JaxsolveError, match="the player to move has 7 boxes filled and the other 8"):
        table.values((start | 1, 0, 0), (start, 0, 0))
    with pytest.raises(JaxsolveError, match="not a sheet of this solve"):
        table.values((mask(tiny, ("ones", "threes")), 0, 0), (start, 0, 0))


def test_simulated_play_matches_the_solved_value():
    """Optimal against optimal from the kept tables: the starter's mean result (1 win, 1/2 tie,
    0 loss) within 3 standard errors of the solved value."""
    rules = yacht.small().replace(dice=2)
    table = twoplayer.solve(rules, mine=mask(rules, ("twos", "fives", "yacht")), theirs=mask(rules, ("twos", "fives", "yacht")), keep="all", dtype="float64")
    played = twoplayer.simulate(table, 20_000, seed=1)
    assert abs(played.mean - table.start) < 3 * played.standard_error
    assert 0 < played.ties < 0.2


@pytest.mark.slow
def test_reduced_yacht_float32_simulation_and_regression_pin():
    """``yacht.small()`` (3 dice, 9 boxes), the whole two-player game: float32 within 1e-6 of
    float64 at the start, and 100,000 games of optimal against optimal within 3 standard errors
    of the solved value (about a minute on 2 cores). The start value is a regression pin (this
    engine's own float64 output, checked only against itself)."""
    rules = yacht.small()
    exact = twoplayer.solve(rules, keep="all", dtype="float64")
    assert exact.start == pytest.approx(0.4961052134403267, abs=1e-12)  # regression pin
    single = twoplayer.solve(rules, dtype="float32")
    assert single.start == pytest.approx(exact.start, abs=1e-6)
    played = twoplayer.simulate(exact, 100_000, seed=2)
    assert abs(played.mean - exact.start) < 3 * played.standard_error
