"""Exact score distribution: independent enumeration on reduced games, mean = value, SD = evaluate."""

import numpy as np
import pytest

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import distribution as D
from jaxsolve.games.category.engine import evaluate, solver
from jaxsolve.games.category.sheets.rules import CategoryRules
from kniffel_dist_reference import score_distribution

CASES = [
    # (rules, open boxes)
    (CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10), (0, 2, 8, 11, 12)),
    (CategoryRules(dice=3, throws=2, joker="kniffel", bonus_on_scratch=False, upper_threshold=6, extra_bonus=10), (1, 3, 8, 11, 12)),
    (CategoryRules(dice=2, throws=1, joker="free", upper_threshold=4, extra_bonus=20), (0, 1, 9, 11, 12)),
]
# Im-Hieb bonuses make "fill now" and "throw again" tie with different distributions (the
# enumeration cannot say which one the engine's float comparison takes): moments only.
IMHIEB = CategoryRules(dice=3, throws=2, joker="kniffel", bonus_on_scratch=False, upper_threshold=6, extra_bonus=10, instant_all_same=30, instant_other=5)


@pytest.fixture(scope="module")
def solved():
    cache = {}

    def get(rules):
        if rules not in cache:
            sol = solver.solve(rules, chunk=256)
            cache[rules] = (sol, D.distribution(rules, sol, chunk=128))
        return cache[rules]

    return get


@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_independent_enumeration(solved, case):
    rules, open_boxes = CASES[case]
    prefilled = frozenset(range(13)) - set(open_boxes)
    sol, dist = solved(rules)
    got = dist.at(solver.filled_mask(prefilled))
    ref = score_distribution(rules, prefilled, len(got))
    assert ref.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-13)


@pytest.mark.parametrize("case", [0] + [pytest.param(c, marks=pytest.mark.slow) for c in (1, 2, len(CASES))])
def test_mean_is_value_and_sd_is_evaluate(solved, case):
    rules = CASES[case][0] if case < len(CASES) else IMHIEB
    sol, dist = solved(rules)
    ev = evaluate.evaluate(sol, chunk=256)
    rng = np.random.default_rng(case)
    for layer in (0, 3, 7, 11):
        states = list(zip(*D.tables.layer_states(rules, layer)))
        for i in rng.choice(len(states), size=min(5, len(states)), replace=False):
            f, u, h = (int(x) for x in states[i])
            s = D.summarize(dist.at(f, u, h))
            assert s.mass == pytest.approx(1.0, abs=1e-12)
            assert s.mean == pytest.approx(sol.value(f, u, h), abs=1e-9)
            assert s.sd == pytest.approx(ev.sd(f, u, h), abs=1e-8)


def test_every_layer_is_a_distribution_within_its_support(solved):
    rules, _ = CASES[0]
    sol, dist = solved(rules)
    lengths = D.support_lengths(rules)
    for layer, table in enumerate(dist.layers):
        assert table.shape[1] == lengths[layer]
        assert table.min() >= -1e-15
        np.testing.assert_allclose(table.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.slow
def test_float32_and_layer_shapes_agree(solved):
    rules, _ = CASES[2]
    sol, dist = solved(rules)
    per_layer = D.distribution(rules, sol, chunk=64, shapes="layer", keep="start")
    np.testing.assert_allclose(per_layer.at(0), dist.at(0), atol=1e-11)
    assert per_layer.layers[5] is None
    with pytest.raises(JaxsolveError, match="not kept"):
        per_layer.at(1)
    d32 = D.distribution(rules, dtype=np.float32, chunk=64, keep="start")
    assert d32.layers[0].dtype == np.float32
    # float32 values can order near-tied choices differently (another optimal-in-float32
    # policy), which moves some mass: compare the mean and the CDF, not every entry
    assert D.summarize(d32.at(0)).mean == pytest.approx(sol.game_value, abs=1e-3)
    assert np.abs(np.cumsum(d32.at(0)) - np.cumsum(dist.at(0))).max() < 1e-3


def test_summary_figures():
    p = np.zeros(11)
    p[[2, 4, 10]] = [0.25, 0.5, 0.25]
    s = D.summarize(p, percentiles=(25, 50, 90), at_least=(4, 5, 0, 11))
    assert s.mean == pytest.approx(5.0)
    assert s.sd == pytest.approx(np.sqrt(0.25 * 9 + 0.5 * 1 + 0.25 * 25))
    assert s.percentiles == {25: 2, 50: 4, 90: 10}
    assert s.at_least == {4: 0.75, 5: 0.25, 0: 1.0, 11: 0.0}
    assert s.mode == 4


def test_bad_input(solved):
    rules, _ = CASES[2]
    sol, dist = solved(rules)
    with pytest.raises(JaxsolveError, match="unreachable"):
        dist.at(0, 3, 0)
    with pytest.raises(JaxsolveError, match="score"):
        D.distribution(CategoryRules(dice=2, upper_threshold=3), sol)
    with pytest.raises(JaxsolveError, match="max_memory"):
        D.distribution(rules, sol, max_memory=1000)
    with pytest.raises(JaxsolveError, match="keep"):
        D.distribution(rules, sol, keep="some")
