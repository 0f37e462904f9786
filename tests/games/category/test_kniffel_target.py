"""Target objective: independent enumeration on reduced games, dominance over the score policy, advice."""

import numpy as np
import pytest

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import distribution as D
from jaxsolve.games.category.engine import solver
from jaxsolve.games.category.objectives import target as TG
from jaxsolve.games.category.objectives import target_situation
from jaxsolve.games.category.sheets.rules import CategoryRules
from kniffel_dist_reference import target_table

CASES = [
    (CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10), (0, 2, 8, 11, 12)),
    (CategoryRules(dice=3, throws=2, joker="kniffel", bonus_on_scratch=False, upper_threshold=6, instant_all_same=30, instant_other=5), (1, 6, 11, 12)),
    (CategoryRules(dice=2, throws=1, joker="free", upper_threshold=4, extra_bonus=20), (0, 1, 9, 11, 12)),
]


def prefilled_mask(open_boxes):
    return solver.filled_mask(set(range(13)) - set(open_boxes))


@pytest.fixture(scope="module")
def tables_():
    return {i: TG.solve_target(rules, prefilled=prefilled_mask(ob), chunk=64) for i, (rules, ob) in enumerate(CASES)}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_independent_enumeration(tables_, case):
    rules, open_boxes = CASES[case]
    mask = prefilled_mask(open_boxes)
    got = tables_[case].at(mask)
    ref = target_table(rules, frozenset(range(13)) - set(open_boxes), len(got))
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-13)
    assert got[0] == pytest.approx(1.0)
    assert np.all(np.diff(got) <= 1e-15)


@pytest.mark.parametrize("case", [0, 2])
def test_dominates_the_score_policy_tail(tables_, case):
    rules, open_boxes = CASES[case]
    mask = prefilled_mask(open_boxes)
    p = D.distribution(rules, prefilled=mask, chunk=64).at(mask)
    tail = np.cumsum(p[::-1])[::-1]
    v = tables_[case].at(mask)
    assert np.all(v >= tail - 1e-12)
    assert np.any(v > tail + 1e-3)  # for some target the score policy is not the best


def test_advice_ranks_choices(tables_):
    rules, open_boxes = CASES[0]
    mask = prefilled_mask(open_boxes)
    table = tables_[0]
    keeps = target_situation.target_options(table, mask, 0, 0, [6, 6, 1], 2, 40)
    boxes = target_situation.target_options(table, mask, 0, 0, [6, 6, 1], 0, 40)
    assert {c.kind for c in keeps} == {"keep"} and {c.kind for c in boxes} == {"box"}
    assert {c.what for c in boxes} == {"aces", "threes", "full_house", "kniffel", "chance"}
    assert keeps[0].probability >= keeps[-1].probability
    assert 0 < keeps[0].probability <= 1
    # keeping all dice with no re-throw after it is the best box of that throw
    last = target_situation.target_options(table, mask, 0, 0, [6, 6, 1], 1, 40)
    assert next(c for c in last if c.what == "1 6 6").probability == pytest.approx(boxes[0].probability, abs=1e-12)
    with pytest.raises(JaxsolveError, match="dice"):
        target_situation.target_options(table, mask, 0, 0, [6, 6], 0, 40)
    with pytest.raises(JaxsolveError, match="re-throws"):
        target_situation.target_options(table, mask, 0, 0, [6, 6, 1], 3, 40)
