from fractions import Fraction
from itertools import product

import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.core import dice


@pytest.mark.parametrize(("n", "sides", "throws", "keeps"), [(5, 6, 252, 462), (6, 6, 462, 924), (3, 4, 20, 35), (1, 2, 2, 3)])
def test_counts(n, sides, throws, keeps):
    sp = dice.dice_space(n, sides)
    assert sp.num_throws == throws
    assert sp.num_keeps == keeps
    assert np.all(sp.throws.sum(1) == n)
    assert sp.throw_prob.sum() == pytest.approx(1.0, abs=1e-15)


def test_sparse_nonzeros_5d6():
    sp = dice.dice_space(5, 6)
    assert len(sp.nz_prob) == 4368
    rows = np.zeros(sp.num_keeps)
    np.add.at(rows, sp.nz_keep, sp.nz_prob)
    np.testing.assert_allclose(rows, 1.0, atol=1e-14)


def _ordered_distribution(kept, n, sides):
    """Exact P(final multiset | kept) by enumerating ordered outcomes."""
    out = {}
    rest = n - sum(kept)
    for roll in product(range(sides), repeat=rest):
        counts = list(kept)
        for f in roll:
            counts[f] += 1
        key = tuple(counts)
        out[key] = out.get(key, 0) + Fraction(1, sides**rest)
    return out


@pytest.mark.parametrize(("n", "sides"), [(3, 4), (4, 3), (2, 6)])
def test_transition_matches_enumeration(n, sides):
    sp = dice.dice_space(n, sides)
    for k in range(sp.num_keeps):
        expected = _ordered_distribution(sp.keeps[k], n, sides)
        got = {tuple(sp.throws[t]): sp.dense[k, t] for t in range(sp.num_throws) if sp.dense[k, t] > 0}
        assert got.keys() == expected.keys()
        for key, p in expected.items():
            assert got[key] == pytest.approx(float(p), abs=1e-15)


@pytest.mark.parametrize("method", ["dense", "sparse", "levels"])
def test_expectation_methods_agree(method):
    sp = dice.dice_space(5, 6)
    values = jnp.asarray(np.random.default_rng(0).random((252, 7)))
    ref = sp.dense @ np.asarray(values)
    np.testing.assert_allclose(dice.expect_keeps(sp, values, method), ref, rtol=1e-12)


@pytest.mark.parametrize("method", ["levels", "gather"])
def test_best_subkeep_brute_force(method):
    sp = dice.dice_space(4, 6)
    keep_values = np.random.default_rng(1).random((sp.num_keeps, 3))
    got = np.asarray(dice.best_subkeep(sp, jnp.asarray(keep_values), method))
    for t, throw in enumerate(sp.throws):
        subs = [k for k in range(sp.num_keeps) if np.all(sp.keeps[k] <= throw)]
        np.testing.assert_allclose(got[t], keep_values[subs].max(axis=0))


def test_unknown_methods_raise():
    sp = dice.dice_space(2, 6)
    with pytest.raises(ValueError, match="unknown expectation"):
        dice.expect_keeps(sp, jnp.zeros(sp.num_throws), "magic")
    with pytest.raises(ValueError, match="unknown sub-keep"):
        dice.best_subkeep(sp, jnp.zeros(sp.num_keeps), "magic")


def test_bad_space():
    with pytest.raises(ValueError):
        dice.dice_space(0, 6)


def test_best_subkeep_arg_brute_force_with_ties():
    sp = dice.dice_space(5, 6)
    keep_values = np.random.default_rng(2).integers(0, 4, size=(sp.num_keeps, 20)).astype(np.float64)
    best, arg = (np.asarray(a) for a in dice.best_subkeep_arg(sp, jnp.asarray(keep_values)))
    for t, throw in enumerate(sp.throws):
        subs = [k for k in range(sp.num_keeps) if np.all(sp.keeps[k] <= throw)]
        for b in range(keep_values.shape[1]):
            top = keep_values[subs, b].max()
            assert best[t, b] == top
            chosen = arg[t, b]
            assert chosen in subs and keep_values[chosen, b] == top
            most_dice = max(sp.keep_size[k] for k in subs if keep_values[k, b] == top)
            assert sp.keep_size[chosen] == most_dice


def test_best_subkeep_carry_is_the_arg_choice():
    """The carried arrays are those of the keep ``best_subkeep_arg`` chooses (ties and a wide
    tolerance included), for six dice, whose lattice groups keeps by distinct faces."""
    sp = dice.dice_space(6, 6)
    rng = np.random.default_rng(3)
    keep_values = jnp.asarray(rng.integers(0, 4, size=(sp.num_keeps, 16)).astype(np.float64))
    extra = tuple(jnp.asarray(rng.normal(size=(sp.num_keeps, 16))) for _ in range(2))
    best, arg = dice.best_subkeep_arg(sp, keep_values, 0.3)
    got_best, got_extra = dice.best_subkeep_carry(sp, keep_values, extra, 0.3)
    np.testing.assert_array_equal(np.asarray(got_best), np.asarray(best))
    for x, y in zip(got_extra, extra):
        np.testing.assert_array_equal(np.asarray(x), np.take_along_axis(np.asarray(y), np.asarray(arg), axis=0))
