"""The target objective's ``terminal``: a general value of the finished game over the channel
t = points still needed, checked against the plain-Python reference on reduced games."""

import numpy as np
import pytest

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import distribution as D
from jaxsolve.games.category.engine import solver
from jaxsolve.games.category.objectives import target as TG
from jaxsolve.games.category.sheets.rules import CategoryRules
from kniffel_dist_reference import target_table

RULES = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)
OPEN = (0, 2, 11, 12)
MASK = solver.filled_mask(set(range(13)) - set(OPEN))
WIDTH = 210


@pytest.fixture(scope="module")
def terminal():
    rng = np.random.default_rng(3)
    return np.sort(rng.random(WIDTH))[::-1].copy() * 0.9  # a decreasing tail of some opponent


def test_general_terminal_matches_reference(terminal):
    got = TG.solve_target(RULES, prefilled=MASK, chunk=64, terminal=terminal).at(MASK)
    ref = target_table(RULES, frozenset(range(13)) - set(OPEN), WIDTH, terminal)
    assert got.shape == (WIDTH,)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    assert terminal.min() <= got.min() and got.max() <= terminal.max()


def test_step_terminal_equals_the_default():
    default = TG.solve_target(RULES, prefilled=MASK, chunk=64).at(MASK)
    step = TG.solve_target(RULES, prefilled=MASK, chunk=64, terminal=TG.step_terminal(WIDTH)).at(MASK)
    n = min(len(default), WIDTH)
    np.testing.assert_allclose(step[:n], default[:n], rtol=0, atol=1e-13)
    assert np.all(default[n:] == 0.0)


def test_utility_terminal_is_an_expected_utility():
    # u(k) = k with K past the most points: V[K] is the best expected score, the score
    # policy's mean (its exact distribution); u(k) = [k >= s] gives back P(at least s more)
    k = np.arange(WIDTH, dtype=float)
    got = TG.solve_target(RULES, prefilled=MASK, chunk=64, terminal=TG.utility_terminal(k)).at(MASK)
    p = D.distribution(RULES, prefilled=MASK, chunk=64).at(MASK)
    assert np.flatnonzero(p > 0).max() < WIDTH
    assert got[-1] == pytest.approx(float((np.arange(len(p)) * p).sum()), abs=1e-10)
    s = 25
    tail = TG.solve_target(RULES, prefilled=MASK, chunk=64, terminal=TG.utility_terminal(k >= s)).at(MASK)
    plain = TG.solve_target(RULES, prefilled=MASK, chunk=64).at(MASK)
    assert tail[-1] == pytest.approx(plain[s], abs=1e-12)


def test_bad_terminal_is_refused():
    with pytest.raises(JaxsolveError, match="terminal"):
        TG.solve_target(RULES, prefilled=MASK, terminal=np.ones((2, 2)))
