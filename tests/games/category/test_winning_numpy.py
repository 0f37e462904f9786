"""The NumPy best response (``winning.response_numpy``) against the compiled one
(``winning.response_table``) and the brute force of tests/references/winning_reference.py, float64."""

import numpy as np
import pytest

from jaxsolve.games.category import winning as W
from jaxsolve.games.category.rules import CategoryRules
from winning_reference import Response, opponent_final, win_utility

RULES3 = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)


def state_of(rules, open_boxes, upper=0):
    return (rules.full_mask & ~sum(1 << b for b in open_boxes), upper, 0)


def utility(rules, mine, score, opps):
    """``w[k]`` for my score plus k, against opponents (open boxes, score) of the reference."""
    finals = [opponent_final(rules, frozenset(range(13)) - set(ob), s, 200) for ob, s in opps]
    u = win_utility(finals, 400, "share")
    return u[score: score + 200]


CASES = [
    (RULES3, (0, 2, 8, 11, 12), 0, 20, [((2, 8, 12), 25), ((0, 11), 33)]),
    (RULES3, (1, 5, 9, 12), 4, 18, [((8, 12), 25)]),
    (CategoryRules(), (3, 4, 6, 10, 12), 40, 150, [((2, 8, 12), 140)]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_numpy_response_equals_the_compiled_one(case):
    rules, mine, upper, score, opps = CASES[case]
    start = state_of(rules, mine, upper)
    w = W.utility_of_points(rules, _Sheet(start), score, utility(rules, mine, score, opps))
    got = W.response_numpy(rules, w, start)
    ref = W.response_table(rules, start[0], w, start=start, engine="jax")
    for a, b in zip(got.layers, ref.layers):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


class _Sheet:
    """A position given as its state (what ``utility_of_points`` reads)."""

    def __init__(self, state):
        self._state = state

    def state(self, rules):
        return self._state


def test_numpy_response_matches_brute_force():
    rules, mine, upper, score, opps = CASES[0]
    start = state_of(rules, mine, upper)
    w = utility(rules, mine, score, opps)[:60]
    tab = W.response_table(rules, start[0], w, start=start, engine="numpy")
    closed = frozenset(range(13)) - set(mine)
    ref = Response(rules, w).options(closed, (6, 6, 1), 2)
    ov = W.option_vectors(tab, start[0], upper, 0, (1, 6, 6), 2)
    got = {("box", o.box) if o.kind == "box" else ("keep", tuple(o.keep)): v for o, v in zip(ov.options, ov.vectors[:, len(w) - 1])}
    names = {(("box", rules.box_names[k]) if kind == "box" else ("keep", k)): v for (kind, k), v in ref.items()}
    assert set(got) == set(names)
    for key, v in names.items():
        assert got[key] == pytest.approx(v, abs=1e-12), key


def test_bad_engine_is_one_clear_error():
    with pytest.raises(W.JaxsolveError, match="engine must be"):
        W.response_table(RULES3, 0, np.ones(3), engine="torch")
