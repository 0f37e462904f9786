"""The heuristic's upper-bonus estimate: the last open upper box, and the two readings of the
start value's bonus term, against plain-Python computations (``kniffel_heuristic_reference``)."""

import numpy as np
import pytest

import kniffel_heuristic_reference as ref
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.simulation import heuristic, strategies
from jaxsolve.games.category.sheets.position import parse_position
from jaxsolve.games.category.sheets.kniffel import BOX_NAMES, PRESETS

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


# Two free upper boxes: fives and sixes; upper total 30, 33 more needed.
TWO_FREE = "aces=3 twos=6 threes=9 fours=12 three_kind=20"


def _tail(k):
    """P(a fixed face shows at least k times after a fresh turn) (k <= 0: 1)."""
    probs = ref.upper_count_probs(3)
    return float(sum(probs[max(k, 0) :])) if k <= 5 else 0.0


def _ceil_div(a, b):
    return -((-a) // b)


def test_fresh_turn_start_bonus_two_free_boxes():
    """Fresh-turn reading: start bonus of sixes = 35 x sum_k P(k sixes) P(fives reach 33 - 6k)."""
    dice = (6, 6, 5, 2, 1)
    out = heuristic.ratings(KNIFFEL, parse_position(TWO_FREE, KNIFFEL), dice, 0, reading="fresh-turn")
    got = {o["box"]: o["gain"] for o in out}
    probs = [float(p) for p in ref.upper_count_probs(3)]
    for box, face, other, shown in ((5, 6, 5, 2), (4, 5, 6, 1)):
        # after filling this box, the other free box alone must make the rest: ceil(rest / other) dice
        start_bonus = 35 * sum(probs[k] * _tail(_ceil_div(33 - face * k, other)) for k in range(6))
        now_bonus = 35 * _tail(_ceil_div(33 - face * shown, other))
        expect = face * shown + now_bonus - (ref.start_expectation(box) + start_bonus)
        assert got[BOX_NAMES[box]] == pytest.approx(expect, abs=2e-4), BOX_NAMES[box]


def test_chain_start_bonus_two_free_boxes():
    """Chain reading: start bonus = 35 x V[2, ceil(33 x 2 / 11)] for both free upper boxes."""
    dice = (6, 6, 5, 2, 1)
    fresh = {o["box"]: o["gain"] for o in heuristic.ratings(KNIFFEL, parse_position(TWO_FREE, KNIFFEL), dice, 0, reading="fresh-turn")}
    chain = {o["box"]: o["gain"] for o in heuristic.ratings(KNIFFEL, parse_position(TWO_FREE, KNIFFEL), dice, 0, reading="chain")}
    v = heuristic.matrix_V()
    probs = [float(p) for p in ref.upper_count_probs(3)]
    for box, face, other in ((5, 6, 5), (4, 5, 6)):
        fresh_bonus = 35 * sum(probs[k] * _tail(_ceil_div(33 - face * k, other)) for k in range(6))
        assert chain[BOX_NAMES[box]] - fresh[BOX_NAMES[box]] == pytest.approx(fresh_bonus - 35 * v[2, 6], abs=2e-4)
    for b in range(7, 13):
        assert chain[BOX_NAMES[b]] == pytest.approx(fresh[BOX_NAMES[b]], abs=1e-9)


def test_unknown_reading():
    with pytest.raises(JaxsolveError, match="unknown heuristic reading"):
        heuristic.ratings(KNIFFEL, parse_position("", KNIFFEL), (1, 2, 3, 4, 5), 0, reading="both")
    with pytest.raises(JaxsolveError, match="unknown heuristic reading"):
        strategies.make("heuristic", KNIFFEL, reading="both")


@pytest.mark.parametrize("rules_name", ["kniffel", "yahtzee"])
def test_fresh_turn_gains_average_zero_over_the_first_throw(rules_name):
    """Fresh-turn reading: every open box's gain after the first throw averages 0 over the
    252 throws (start value = the same estimator over a fresh turn). The chain reading keeps
    the lower boxes at 0 and leaves the upper boxes mostly below 0 (the penalty)."""
    import jax.numpy as jnp

    from jaxsolve.games.category.engine import tables

    rules = PRESETS[rules_name]
    rng = np.random.default_rng(1)
    f, u, h = [], [], []
    for layer in (0, 3, 7, 11):
        lf, lu, lh = tables.layer_states(rules, layer)
        pick = rng.integers(0, len(lf), size=8)
        f.append(lf[pick]), u.append(lu[pick]), h.append(lh[pick])
    f, u, h = (jnp.asarray(np.concatenate(a)) for a in (f, u, h))
    prob = tables.space(5).throw_prob
    first = rules.throws - 1
    upper_chain = []
    for reading in heuristic.READINGS:
        gains, allowed, _ = heuristic.level_gains(tables.EngineState(f, u, h), rules, jnp.float64, reading)
        for b in range(13):
            ok = np.broadcast_to(np.asarray(allowed[first][b]), (252, len(f)))[0]
            mean = prob @ np.asarray(gains[first][b])
            if reading == "fresh-turn" or b >= 6:
                assert np.allclose(mean[ok], 0, atol=1e-9), (reading, BOX_NAMES[b])
            else:
                upper_chain.append(mean[ok])
    upper_chain = np.concatenate(upper_chain)
    assert np.mean(upper_chain < -1e-9) > 0.5 and upper_chain.mean() < -1
