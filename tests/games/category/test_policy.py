"""The one tie rule of the turn policy: options within the tolerance are ties, decided by preference."""

import jax.numpy as jnp
import numpy as np

from jaxsolve.core import dice
from jaxsolve.games.category.engine import policy


def test_keep_ties_within_tolerance_go_to_more_dice():
    sp = dice.dice_space(2, 6)
    throw = sp.throw_index(sp.counts_of_faces([3, 5]))
    both, three = sp.keep_index(sp.counts_of_faces([3, 5])), sp.keep_index(sp.counts_of_faces([3]))
    values = np.zeros(sp.num_keeps)
    values[both] = 10.0
    values[three] = 10.0 + 7e-15  # float rounding, not a better option
    _, arg = policy.best_keep(sp, jnp.asarray(values, jnp.float64)[:, None])
    assert int(arg[throw, 0]) == both
    values[three] = 10.0 + 1e-6  # a real difference wins over the preference
    _, arg = policy.best_keep(sp, jnp.asarray(values, jnp.float64)[:, None])
    assert int(arg[throw, 0]) == three
    _, exact = dice.best_subkeep_arg(sp, jnp.asarray(values, jnp.float64)[:, None])
    assert int(exact[throw, 0]) == three


def test_fill_now_wins_ties_only():
    rethrow = jnp.asarray([100.0, 100.0, 100.0], jnp.float64)
    now = jnp.asarray([100.0 - 5e-14, 100.0, 100.0 - 1e-3], jnp.float64)
    assert policy.fill_now_wins(now, rethrow).tolist() == [True, True, False]


def test_ranking_groups_ties_by_preference():
    items = [(5.0 + 1e-13, (2,), "c"), (5.0, (0,), "a"), (4.0, (1,), "d"), (5.0 - 1e-13, (1,), "b")]
    assert policy.rank_with_ties(items, np.float64) == ["a", "b", "c", "d"]
    assert policy.rank_with_ties([(5.0, (0,), "a"), (5.1, (1,), "b")], np.float64) == ["b", "a"]
