"""The batch query API (``jaxsolve.kniffel.query``) against single ``advisor.advise`` calls."""

import jax
import numpy as np
import pytest

from jaxsolve.games.category.answers import advisor, query
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets.position import Position
from jaxsolve.games.category.sheets.rules import CategoryRules

RULES = CategoryRules(name="reduced-3-dice", dice=3, upper_threshold=6, extra_bonus=10)


@pytest.fixture(scope="module")
def table():
    return query.Table(solver.solve(RULES, dtype="float64", chunk=256))


def random_situations(rules, n, seed=0):
    rng = np.random.default_rng(seed)
    f_all, u_all, h_all = [], [], []
    for layer in range(rules.num_boxes):
        f, u, h = tables.layer_states(rules, layer)
        f_all.append(f), u_all.append(u), h_all.append(h)
    f, u, h = (np.concatenate(x) for x in (f_all, u_all, h_all))
    pick = rng.integers(0, len(f), n)
    dice = rng.integers(1, 7, (n, rules.dice))
    left = rng.integers(0, rules.throws, n)
    return f[pick], u[pick], h[pick], dice, left


def _position(rules, f, u, h):
    """A score sheet with state (f, u, h): upper boxes summing to u, the Yahtzee box per h."""
    scores = [None] * rules.num_boxes
    rest = int(u)
    for b in range(6):
        if f >> b & 1:
            take = min(rest, (b + 1) * rules.dice) // (b + 1) * (b + 1)
            scores[b], rest = take, rest - take
    for b in range(6, rules.num_boxes):
        if f >> b & 1:
            scores[b] = rules.boxes[b].points if b == rules.all_same_box and h else 0
    pos = Position(tuple(scores), rules.boxes)
    return pos if pos.state(rules) == (f, min(u, rules.upper_threshold), h) else None


def test_batch_equals_single_advise(table):
    f, u, h, dice, left = random_situations(RULES, 300)
    ov = table.option_values(f, u, h, dice, left)
    checked = 0
    for i in range(len(f)):
        pos = _position(RULES, int(f[i]), int(u[i]), int(h[i]))
        if pos is None or pos.is_over:
            continue
        single = advisor.advise(RULES, pos, tuple(int(d) for d in dice[i]), int(left[i]), sol=table.solution)
        batch = table.ranked(ov, i)
        assert len(batch) == len(single.options)
        assert ov.value[i] == pytest.approx(single.value, abs=1e-12)
        for o, s in zip(batch, single.options):
            assert o["value"] == pytest.approx(s.value, abs=1e-12)
            assert o["option"] == s.label and o["regret"] == pytest.approx(s.regret, abs=1e-12)
        checked += 1
    assert checked > 100


def test_float64_table_answers_in_float64_with_x64_off(table):
    f, u, h, dice, left = random_situations(RULES, 20, seed=5)
    want = table.option_values(f, u, h, dice, left)
    jax.config.update("jax_enable_x64", False)
    fresh = query.Table(table.solution)
    got = fresh.option_values(f, u, h, dice, left)
    assert got.value.dtype == np.float64 and np.array_equal(got.value, want.value)
    assert np.array_equal(np.nan_to_num(got.keeps, nan=-1), np.nan_to_num(want.keeps, nan=-1))


def test_state_values_cap_the_upper_total(table):
    v = table.state_values([0, 63, 63], [0, 6, 50], [0, 0, 0])
    assert v.dtype == np.float64
    assert v[0] == table.solution.game_value
    assert np.isfinite(v[1]) and v[2] == v[1] == table.solution.values[63, RULES.upper_threshold, 0]


def test_best_options_are_ties_of_the_best(table):
    f, u, h, dice, left = random_situations(RULES, 50, seed=3)
    ov = table.option_values(f, u, h, dice, left)
    for i, best in enumerate(table.best_options(ov)):
        assert best and best[0]["value"] == pytest.approx(np.nanmax(np.concatenate([ov.boxes[i], ov.keeps[i]])), abs=1e-12)
        assert all(o["regret"] <= 1e-9 * max(1, abs(best[0]["value"])) for o in best)


@pytest.mark.parametrize(
    "args, message",
    [
        (([99999], [0], [0], [[1, 2, 3]], 0), "filled masks"),
        (([0], [-1], [0], [[1, 2, 3]], 0), "upper totals"),
        (([0], [0], [2], [[1, 2, 3]], 0), "all_same_held"),
        (([0], [0], [0], [[1, 2, 7]], 0), "faces 1..6"),
        (([0], [0], [0], [[1, 2]], 0), "dice must be an array"),
        (([0], [0], [0], [[1, 2, 3]], 5), "re-throws left"),
    ],
)
def test_bad_questions_are_clear_errors(table, args, message):
    with pytest.raises(Exception, match=message):
        table.option_values(*args)
