"""The heuristic's upper-bonus estimate: the last open upper box, and the two readings of the
start value's bonus term, against plain-Python computations (``kniffel_heuristic_reference``)."""

from fractions import Fraction

import numpy as np
import pytest

import kniffel_heuristic_reference as ref
from jaxsolve.kniffel import heuristic
from jaxsolve.kniffel.position import parse_position
from jaxsolve.kniffel.rules import BOX_NAMES, PRESETS

KNIFFEL = PRESETS["kniffel"]
LAST_SIXES = "aces=3 twos=6 threes=9 fours=12 fives=15"


def _expected_last_sixes_ratings(dice):
    """Gains and ratings for ``LAST_SIXES`` after the last throw, computed from scratch.

    Upper total 45, 18 more needed, only sixes open: the bonus is reached iff the sixes box
    gets 3 or more sixes. Start value of sixes = its expected points over a fresh turn plus
    35 x P(3+ sixes in a fresh turn) (both readings agree with one free upper box); filling
    it now with fewer than 3 sixes scores its points and ends the bonus chance.
    """
    scores = {b: ref.score(b, tuple(sorted(dice))) for b in range(5, 13)}
    p3 = float(sum(ref.upper_count_probs(3)[3:]))
    sixes_now = scores[5] + (35 if dice.count(6) >= 3 else 0)
    gains = {5: sixes_now - (ref.start_expectation(5) + 35 * p3)}
    for b in range(6, 13):
        gains[b] = scores[b] - ref.start_expectation(b)
    lo, hi = min(gains.values()), max(gains.values())
    return gains, {b: (g - lo) / (hi - lo) for b, g in gains.items()}


@pytest.mark.parametrize("reading", heuristic.READINGS)
def test_last_upper_box_bonus_is_not_certain(reading):
    """One six after the last throw, sixes the last open upper box: the small straight is best."""
    dice = (6, 2, 3, 4, 1)
    out = heuristic.ratings(KNIFFEL, parse_position(LAST_SIXES, KNIFFEL), dice, 0, reading=reading)
    gains, rated = _expected_last_sixes_ratings(dice)
    assert out[0]["option"] == "fill small_straight"
    assert {o["box"] for o in out} == {BOX_NAMES[b] for b in range(5, 13)}
    for o in out:
        b = BOX_NAMES.index(o["box"])
        assert o["gain"] == pytest.approx(gains[b], abs=2e-4), o["box"]
        assert o["value"] == pytest.approx(rated[b], abs=2e-5), o["box"]
    assert out[-1]["box"] == "sixes" and out[-1]["value"] == 0


def test_last_upper_box_three_sixes_reach_the_bonus():
    """Three sixes in the last open upper box reach 63: the bonus counts in full."""
    dice = (6, 6, 6, 2, 1)
    out = heuristic.ratings(KNIFFEL, parse_position(LAST_SIXES, KNIFFEL), dice, 0)
    gains, _ = _expected_last_sixes_ratings(dice)
    got = {o["box"]: o["gain"] for o in out}
    assert got["sixes"] == pytest.approx(gains[5], abs=2e-4)
    assert out[0]["option"] == "fill sixes"


def test_length_prob_no_free_box():
    v = heuristic.matrix_V()
    import jax.numpy as jnp

    p = heuristic._length_prob(jnp.asarray(v), jnp.asarray([0, 0, 1, 1]), jnp.asarray([5, 0, 18, 19]), jnp.asarray([0, 0, 6, 6]))
    s1 = [float(x) for x in ref.upper_count_probs(3)]
    assert np.allclose(np.asarray(p), [0.0, 1.0, sum(s1[3:]), sum(s1[4:])])
