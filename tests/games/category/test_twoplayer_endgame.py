"""Two-player end games from real sheets (``twoplayer.solve(start=)``) and the seat policies of
``twoplayer.simulate``: against the unrestricted solve, the independent brute force, and the
exact values of the one-player models."""

from __future__ import annotations

import numpy as np
import pytest
from test_twoplayer import YAHTZEE_TINY, check_layers, engine_vector, mask, reference_for

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category import twoplayer, yacht

TINY_OPEN = ("twos", "threes", "kniffel", "aces")
"""Yahtzee scoring on two dice (upper bonus 35 at 5, the extra bonus 100): four open boxes, so
the upper total and the Yahtzee box's state vary along the game."""


def restricted_rows(table):
    """Every (layer, mover's sheet, other's sheet) of a kept solve."""
    for p in table.plans:
        mine, theirs = table.sheets[p.mover], table.sheets[1 - p.mover]
        for row in range(p.pairs):
            j, i = divmod(row, p.movers)
            yield (
                (int(mine.filled[p.a][i]), int(mine.upper[p.a][i]), int(mine.held[p.a][i])),
                (int(theirs.filled[p.b][j]), int(theirs.upper[p.b][j]), int(theirs.held[p.b][j])),
            )


@pytest.fixture(scope="module")
def tiny_full():
    m = mask(YAHTZEE_TINY, TINY_OPEN)
    return twoplayer.solve(YAHTZEE_TINY, mine=m, theirs=m, keep="all", dtype="float64")


@pytest.mark.parametrize("uppers", [(5, 4), pytest.param((4, 0), marks=pytest.mark.slow), pytest.param((0, 0), marks=pytest.mark.slow)], ids=["5-4", "4-0", "0-0"])
def test_restricted_solve_equals_the_unrestricted_one(tiny_full, uppers):
    """From real sheets (upper totals 4 / 5 / 0), only the sheets reached from them are solved:
    fewer pairs, and on every one of them, every lead, the unrestricted solve's values to 1e-12."""
    m = mask(YAHTZEE_TINY, TINY_OPEN)
    start = ((m, uppers[0], 0), (m, uppers[1], 0))
    table = twoplayer.solve(YAHTZEE_TINY, start=start, keep="all", dtype="float64")
    assert sum(p.pairs for p in table.plans) <= sum(p.pairs for p in tiny_full.plans)
    reach = 700
    worst, count = 0.0, 0
    for mine, theirs in restricted_rows(table):
        got = engine_vector(table, mine, theirs, reach)
        want = engine_vector(tiny_full, mine, theirs, reach)
        worst = max(worst, float(np.abs(got - want).max()))
        count += 1
    assert count > 50 and worst < 1e-12
    assert table.start == pytest.approx(tiny_full.value(*start, 0), abs=1e-12)


def test_restricted_solve_matches_the_brute_force():
    """A start where the player to move is the second player and the upper totals differ:
    every kept pair of every layer against the brute force, all leads, to 1e-9."""
    rules = YAHTZEE_TINY
    start = ((mask(rules, ("twos", "threes", "kniffel")), 4, 0), (mask(rules, ("threes", "kniffel")), 5, 0))
    table = twoplayer.solve(rules, start=start, keep="all", dtype="float64")
    ref = reference_for(rules, "share")
    assert check_layers(table, ref) >= 10
    want = ref.value(("twos", "threes", "kniffel"), ("threes", "kniffel"), 7, mine_upper=4, theirs_upper=5, starter_moves=False)
    assert table.value(*start, 7) == pytest.approx(want, abs=1e-9)


def test_start_input_is_one_clear_error():
    rules = YAHTZEE_TINY
    m = mask(rules, TINY_OPEN)
    with pytest.raises(JaxsolveError, match="not a reachable sheet"):
        twoplayer.solve(rules, start=((m, 2, 0), (m, 0, 0)))  # fours, fives, sixes on two dice never make 2
    with pytest.raises(JaxsolveError, match="not the start's filled boxes"):
        twoplayer.solve(rules, mine=m | 1, start=((m, 0, 0), (m, 0, 0)))
    with pytest.raises(JaxsolveError, match="start is"):
        twoplayer.solve(rules, start=(m, 0, 0))


# ----------------------------------------------------------------------------- seats


SEAT_RULES = yacht.small().replace(dice=2)


SEAT_START = ((mask(SEAT_RULES, ("fives", "yacht", "choice")), 0, 0), (mask(SEAT_RULES, ("fives", "yacht")), 0, 0))
"""Two dice, the player to move second with three open boxes against two; he leads by 3."""


@pytest.fixture(scope="module")
def seat_table():
    return twoplayer.solve(SEAT_RULES, start=SEAT_START, keep="all", dtype="float64")


@pytest.fixture(scope="module")
def seat_models(seat_table):
    return twoplayer.SeatModels(SEAT_RULES, SEAT_START, 3, seat_table.tie)


def test_optimal_seats_match_the_table(seat_table):
    """Optimal against optimal from a real position 3 points up: the mean of 20,000 games within
    4 standard errors of the table's value there."""
    played = twoplayer.simulate(seat_table, 20_000, seed=3, lead=3)
    want = seat_table.value(*SEAT_START, 3)
    assert 0.5 < want < 1.0 and played.seats == ("optimal", "optimal")
    assert abs(played.mean - want) < 4 * played.standard_error


@pytest.mark.slow
@pytest.mark.parametrize("seats", [("score", "score"), ("table", "score"), ("score", "table")])
def test_seat_means_match_their_exact_values(seat_table, seat_models, seats):
    """The one-player players against ``score``, 20,000 games: the mean within 4 standard errors
    of the exact value (the two distributions' convolution, or the response's value)."""
    played = twoplayer.simulate(seat_table, 20_000, seed=3, seats=seats, lead=3, models=seat_models)
    want = seat_models.exact(seats)
    assert want is not None and 0.5 < want < 1.0
    assert abs(played.mean - want) < 4 * played.standard_error


@pytest.mark.slow
def test_the_response_beats_the_expected_score_player(seat_models):
    """Against an expected-score player the static response wins at least as often as the
    expected-score player does in his seat (exact values): it is the best response to that play."""
    score, response = seat_models.exact(("score", "score")), seat_models.exact(("table", "score"))
    assert response >= score - 1e-12
    assert seat_models.exact(("score", "table")) <= score + 1e-12
    assert seat_models.exact(("optimal", "score")) is None
    bare = twoplayer.unsolved(SEAT_RULES, start=SEAT_START)
    played = twoplayer.simulate(bare, 200, seed=1, seats=("score", "score"), lead=3, models=seat_models)
    assert played.seats == ("score", "score") and len(played.score) == 200
    with pytest.raises(JaxsolveError, match="built for another start"):
        twoplayer.simulate(bare, 10, seats=("score", "score"), lead=0, models=seat_models)


def test_seats_check_their_input(seat_table):
    with pytest.raises(JaxsolveError, match="seats are two of"):
        twoplayer.simulate(seat_table, 10, seats=("optimal", "greedy"))
    bare = twoplayer.unsolved(SEAT_RULES, start=SEAT_START)
    with pytest.raises(JaxsolveError, match="needs every layer"):
        twoplayer.simulate(bare, 10, seats=("optimal", "score"), lead=3)
