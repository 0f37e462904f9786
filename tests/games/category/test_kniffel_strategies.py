"""Rating heuristic ("Berechnung der Bewertungen") and strategy building blocks: the source's
matrices, brute-force keep-rule expectations, ratings, and the fast decision folds against the
solver's own functions."""

import math
from fractions import Fraction as F

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kniffel_heuristic_reference as ref
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.simulation import heuristic, strategies
from jaxsolve.games.category.engine import policy, solver, tables
from jaxsolve.games.category.sheets.position import parse_position
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.kniffel import BOX_NAMES, PRESETS

PRINTED_A = [
    [F(3125, 7776), F(3125, 7776), F(625, 3888), F(125, 3888), F(25, 7776), F(1, 7776)],
    [F(32, 243), F(40, 81), F(295, 972), F(125, 1944), F(25, 3888), F(1, 3888)],
    [F(1, 32), F(125, 288), F(185, 432), F(125, 1296), F(25, 2592), F(1, 2592)],
    [F(1, 243), F(155, 486), F(130, 243), F(125, 972), F(25, 1944), F(1, 1944)],
    [F(1, 7776), F(515, 2592), F(2425, 3888), F(625, 3888), F(125, 7776), F(5, 7776)],
    [F(0), F(5, 54), F(25, 36), F(125, 648), F(25, 1296), F(1, 1296)],
]
PRINTED_S = np.array([
    [0.06491, 0.23626, 0.34399, 0.25042, 0.09115, 0.01327],
    [0.00228, 0.11133, 0.37655, 0.34600, 0.14157, 0.02228],
    [0.00003, 0.04705, 0.35425, 0.39342, 0.17590, 0.02935],
    [0.00000, 0.01786, 0.32180, 0.42204, 0.20283, 0.03547],
    [0.00000, 0.00517, 0.28781, 0.44064, 0.22543, 0.04099],
    [0, 0.00079, 0.25601, 0.45240, 0.24476, 0.04603],
])
KNIFFEL = PRESETS["kniffel"]


def test_matrix_A_is_the_printed_one():
    assert [list(row) for row in heuristic.matrix_A()] == PRINTED_A


def test_matrix_S_rounds_to_the_printed_one():
    s = np.asarray(heuristic.matrix_S(), dtype=float)
    assert np.allclose(s.sum(1), 1.0)
    diff = np.abs(np.round(s, 5) - PRINTED_S)
    # One printed entry (f=5, k=3) reads 0.44064 where the exact value is 0.4405986: the source's
    # own row then sums to 1.00004, so it is a misprint. S[2][5] = 0.0222748 is printed 0.02228
    # (rounded twice); every other entry is the exact value rounded to 5 digits.
    assert diff[4, 3] == pytest.approx(4e-5, abs=1e-9)
    assert PRINTED_S[4].sum() == pytest.approx(1.00004, abs=1e-9)
    assert s[1, 5] == pytest.approx(0.0222748, abs=1e-7) and PRINTED_S[1, 5] == 0.02228
    diff[4, 3] = diff[1, 5] = 0
    assert diff.max() < 1e-9


def test_first_row_of_S_is_binomial():
    p = 1 - (5 / 6) ** 3
    s = np.asarray(heuristic.matrix_S()[0], dtype=float)
    assert np.allclose(s, [math.comb(5, k) * p**k * (1 - p) ** (5 - k) for k in range(6)])


def test_length_matrices():
    u, v = heuristic.matrix_U(), heuristic.matrix_V()
    assert np.allclose(u.sum(1), 1.0)
    assert np.allclose(u[0, :6], np.asarray(heuristic.matrix_S()[0], dtype=float))
    assert np.all(u[5 * np.arange(1, 7)[:, None] < np.arange(31)[None, :]] == 0)
    assert np.allclose(v[1:, 0], 1.0) and np.all(np.diff(v, axis=1) <= 1e-15)
    assert v[0, 0] == 1 and v[0, 1:].max() == 0 and np.all(v[:, -1] == 0)
    assert np.allclose(v[1:, :31], np.cumsum(u[:, ::-1], axis=1)[:, ::-1])


def test_chance_thresholds():
    assert [heuristic.chance_threshold(r) for r in (1, 2, 3)] == pytest.approx([3.5, 4.25, 14 / 3])


def test_upper_expectations_closed_form():
    th = heuristic.heuristic_tables(KNIFFEL)
    counts = tables.throw_counts()
    for r in range(3):
        for face in range(6):
            expect = (face + 1) * (counts[face] + (5 - counts[face]) * (1 - (5 / 6) ** r))
            assert np.allclose(th.points[face, r], expect)


def test_keep_rule_expectations_brute_force():
    """Every box, every throw, 1 and 2 re-throws: chains == plain-Python recursion on face lists."""
    th = heuristic.heuristic_tables(KNIFFEL)
    sp = tables.space()
    for t, counts in enumerate(sp.throws):
        faces = tuple(sp.faces_of(counts))
        for box in range(13):
            for r in (1, 2):
                assert th.points[box, r, t] == pytest.approx(ref.expectation(box, faces, r), abs=1e-12), (BOX_NAMES[box], faces, r)
            kept = {tuple(sorted(k)) for k in ref.keeps(box, faces, 2)}
            ours = {tuple(sp.faces_of(sp.keeps[th.keeps[a, box, 2, t]])) for a in (0, 1)}
            assert ours == kept, (BOX_NAMES[box], faces)


def test_start_expectations_and_im_hieb():
    th = heuristic.heuristic_tables(KNIFFEL)
    assert th.start[12] == pytest.approx(70 / 3)
    assert th.start[0] == pytest.approx(5 * (1 - (5 / 6) ** 3))
    imhieb = heuristic.heuristic_tables(PRESETS["kniffel-imhieb"])
    bonus = np.full(13, 5.0)
    bonus[11] = 30
    assert np.allclose(imhieb.start - th.start, th.first_scores * bonus)
    assert th.first_scores[11] == pytest.approx(6 / 7776) and th.first_scores[12] == pytest.approx(1)


def test_rate_linear_ties_and_all_equal():
    g = jnp.asarray([[1.0], [3.0], [2.0], [5.0]])
    ok = jnp.asarray([[True], [True], [False], [True]])
    r = np.asarray(heuristic.rate(g, ok))[:, 0]
    assert r[0] == 0 and r[1] == 0.5 and np.isnan(r[2]) and r[3] == 1
    same = np.asarray(heuristic.rate(jnp.full((4, 1), 2.5), jnp.ones((4, 1), bool)))
    assert np.all(same == 1)
    best, arg = heuristic.best_boxes([jnp.asarray([[1.0]]), jnp.asarray([[4.0]]), jnp.asarray([[4.0]])], [True, True, True])
    assert int(arg[0, 0]) == 1


@pytest.mark.parametrize(
    "pos, faces, left, best",
    [
        ("", (1, 2, 3, 4, 6), 2, "small_straight: keep 1 2 3 4"),
        ("", (6, 6, 6, 2, 1), 0, "fill sixes"),
        ("", (1, 1, 2, 2, 5), 2, "full_house: keep 1 1 2 2"),
        ("aces=3 twos=6 threes=9 fours=12 fives=15 sixes=18 three_kind=20 four_kind=0 full_house=25 small_straight=30 large_straight=40 chance=22", (1, 1, 1, 2, 3), 2, "kniffel: keep 1 1 1"),
    ],
)
def test_ratings(pos, faces, left, best):
    out = heuristic.ratings(KNIFFEL, parse_position(pos, KNIFFEL), faces, left)
    values = [o["value"] for o in out]
    assert out[0]["option"] == best
    assert all(0 <= v <= 1 for v in values) and values[0] == 1
    assert len(out) == 1 or min(values) == 0
    assert {o["box"] for o in out} == {BOX_NAMES[b] for b in parse_position(pos, KNIFFEL).open_boxes}


def test_ratings_three_sixes_at_the_start_by_reading():
    """Three sixes after the last throw of the first turn: the fresh-turn reading fills sixes (as
    the optimal strategy does, 3.5 points ahead of three of a kind); the chain reading, whose
    start value of sixes carries the chain's bonus estimate, fills three of a kind."""
    pos = parse_position("", KNIFFEL)
    assert heuristic.ratings(KNIFFEL, pos, (6, 6, 6, 2, 1), 0)[0]["option"] == "fill sixes"
    assert heuristic.ratings(KNIFFEL, pos, (6, 6, 6, 2, 1), 0, reading="chain")[0]["option"] == "fill three_kind"


def test_ratings_im_hieb_fills_at_once():
    rules = PRESETS["kniffel-imhieb"]
    out = heuristic.ratings(rules, parse_position("", rules), (4, 4, 4, 4, 4), 2)
    assert out[0]["option"] == "fill kniffel now"
    classic = heuristic.ratings(KNIFFEL, parse_position("", KNIFFEL), (4, 4, 4, 4, 4), 2)
    assert classic[0]["option"].startswith("kniffel: keep 4 4 4 4 4")


def test_ratings_bad_input():
    with pytest.raises(JaxsolveError):
        heuristic.ratings(KNIFFEL, parse_position("", KNIFFEL), (1, 2, 3, 4, 5), 3)
    with pytest.raises(JaxsolveError):
        heuristic.heuristic_tables(CategoryRules(dice=4))


def _random_states(rules, n, seed):
    rng = np.random.default_rng(seed)
    f, u, h = [], [], []
    for layer in rng.integers(1, 13, size=4):
        lf, lu, lh = tables.layer_states(rules, int(layer))
        pick = rng.integers(0, len(lf), size=n // 4)
        f.append(lf[pick]), u.append(lu[pick]), h.append(lh[pick])
    return [jnp.asarray(np.concatenate(a)) for a in (f, u, h)]


@pytest.mark.parametrize("first", [False, True])
def test_policy_best_box_matches_option_values(first):
    rules = PRESETS["kniffel-imhieb"]
    f, u, h = _random_states(rules, 32, 2)
    values = jnp.asarray(np.random.default_rng(3).integers(0, 3, size=int(np.prod(tables.state_shape(rules)))).astype(np.float32))
    state = tables.EngineState(f, u, h)
    opt = jax.jit(lambda *a: solver.option_values(*a, rules, first_throw=first))(values, state)
    best, arg = jax.jit(lambda *a: policy.best_box(*a, rules, first_throw=first))(values, state)
    assert np.array_equal(best, opt.max(0)) and np.array_equal(arg, opt.argmax(0))


def test_unknown_strategy():
    with pytest.raises(JaxsolveError, match="unknown strategy"):
        strategies.make("clever", KNIFFEL)
