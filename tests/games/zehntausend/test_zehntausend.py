"""Zehntausend: tables, the array solver against the figures of D. Peter (2013), its policy claims, the advisor."""

from __future__ import annotations

from fractions import Fraction

import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.core.compile import cache_size as compile_cache_size
from jaxsolve.games.zehntausend import advisor, scoring, solver
from jaxsolve.games.zehntausend.rules import PRESETS, ZehntausendRules, get_rules
from jaxsolve.errors import JaxsolveError

PETER = PRESETS["peter-2013"]


@pytest.fixture(scope="module")
def sol():
    return solver.solve(PETER)


def counts(*faces):
    return scoring.parse_throw(faces)


def subsets(*faces):
    v = scoring.usable_subsets(PETER, counts(*faces))
    return {(tuple(v.faces(i)), int(v.points[i]), int(v.dice[i])) for i in range(len(v.points))}


# ----------------------------------------------------------------------------- tables


def test_exact_delta6_and_bust_probability():
    t = scoring.build_tables(PETER)
    assert t.delta(6) == Fraction(237875, 648)
    assert t.bust_probability(6) == Fraction(5, 162)
    assert t.stop_point(6) == Fraction(47575, 4)
    assert t.top == t.stop_point(6)
    assert t.bust_probability(1) == Fraction(2, 3) and t.delta(1) == Fraction(150, 6)
    for n in range(1, 7):
        assert t.row_weight[t.rows(n)].sum() == 6**n
        assert t.row_prob[t.rows(n)].sum() == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(
    "faces, points",
    [
        ((1, 1, 1, 1, 5, 3), 2050),
        ((1, 2, 3, 4, 5, 6), 2000),
        ((2, 2, 3, 3, 4, 4), 0),
        ((2, 2, 3, 3, 5, 5), 100),
        ((6, 6, 6, 6, 6, 6), 10000),
        ((1, 1, 1, 1, 1, 1), 10000),
        ((5, 5, 5, 5, 5), 2000),
        ((2, 2, 2, 2, 2), 800),
        ((3, 3, 3, 1, 5), 450),
        ((1, 1, 5, 5), 300),
        ((2, 3, 4, 6), 0),
        ((6,), 0),
    ],
)
def test_write_points(faces, points):
    assert scoring.write_points(PETER, counts(*faces)) == points


def test_rule_variants_change_scores():
    assert scoring.write_points(PETER.replace(straight=1500), counts(1, 2, 3, 4, 5, 6)) == 1500
    assert scoring.write_points(PETER.replace(straight=0), counts(1, 2, 3, 4, 5, 6)) == 150
    assert scoring.write_points(PETER.replace(six_of_a_kind=0), counts(2, 2, 2, 2, 2, 2)) == 1600
    assert scoring.write_points(PETER.replace(six_of_a_kind=0), counts(1, 1, 1, 1, 1, 1)) == 8000
    assert scoring.write_points(PRESETS["three-pairs"], counts(2, 2, 3, 3, 4, 4)) == 1500
    assert scoring.write_points(PRESETS["three-pairs"], counts(1, 1, 5, 5, 6, 6)) == 1500


def test_v_of_seed_example_4():
    """V({2,2,2,5,5}) of Peter's eq. (4), with the points and dice each option uses."""
    assert subsets(2, 2, 2, 5, 5) == {
        (("2", "2", "2"), 200, 3),
        (("2", "2", "2", "5"), 250, 4),
        (("1*", "2", "2", "2"), 300, 4),
        (("2", "2", "2", "5", "5"), 300, 5),
        (("5",), 50, 1),
        (("1*",), 100, 1),
        (("5", "5"), 100, 2),
    }


def test_pseudo_one_never_joins_real_ones():
    assert all(points < 1000 for _, points, _ in subsets(1, 1, 5, 5))
    assert (("1", "1", "1*"), 300, 3) in subsets(1, 1, 5, 5)
    off = scoring.usable_subsets(PRESETS["no-two-fives"], counts(5, 5))
    assert off.pseudo.sum() == 0 and sorted(off.points.tolist()) == [50, 100]


def test_two_pseudo_ones_only_with_any():
    one = subsets(5, 5, 5, 5)
    v = scoring.usable_subsets(PETER.replace(two_fives="any"), counts(5, 5, 5, 5))
    assert not any(f.count("1*") > 1 for f, _, _ in one)
    assert ("1*", "1*") in {tuple(v.faces(i)) for i in range(len(v.points))}


def test_bad_rules_and_names():
    with pytest.raises(JaxsolveError, match="unknown Zehntausend rules 'nope'"):
        get_rules("nope")
    with pytest.raises(JaxsolveError, match="two-fives"):
        ZehntausendRules(two_fives="maybe")
    with pytest.raises(JaxsolveError, match="multiple of 50"):
        ZehntausendRules(straight=1234)


# ----------------------------------------------------------------------------- solver vs Peter (2013)


def test_turn_value_and_thresholds(sol):
    assert sol.E.dtype == np.float64
    assert sol.turn_value == pytest.approx(527.2004, abs=1e-4)
    assert sol.thresholds() == {1: 300, 2: 250, 3: 400, 4: 1050, 5: 3050, 6: 11900}


def test_p6_is_self_consistent(sol):
    """p6 is where E(p, 6) = p first fails on the grid, and the closed form begins exactly there."""
    p6 = sol.p6
    assert p6 == 50 * sol.top_level
    assert sol.value(p6 - 50, 6) > p6 - 50
    assert sol.value(p6, 6) <= p6
    assert Fraction(p6 - 50) < sol.tables.stop_point(6) <= Fraction(p6)


def test_moving_the_closed_form_up_changes_nothing(sol):
    """Solving the levels between p6 and p6 + 3000 by recursion reproduces the closed form there."""
    higher = solver.solve(PETER, top_level=sol.top_level + 60)
    common = min(higher.E.shape[0], sol.E.shape[0])
    np.testing.assert_allclose(higher.E[:common], sol.E[:common], rtol=1e-13, atol=1e-9)


def test_stopping_too_early_is_worse(sol):
    """Footnote 6: with the closed form (stop after one throw) from below p6, E(0, 6) drops."""
    lower = solver.solve(PETER, top_level=sol.top_level - 1)
    assert lower.turn_value < sol.turn_value - 1e-9


@pytest.mark.parametrize(
    "p, n, expected, tol",
    [
        (800, 4, 832.728, 1e-3),
        (200, 4, 344.044, 1e-3),
        (0, 1, 195.58, 5e-3),
        (0, 2, 168.03, 5e-3),
        (0, 3, 181.04, 5e-3),
        (0, 4, 227.10, 5e-3),
        (0, 5, 332.58, 5e-3),
        (0, 6, 527.2004, 1e-4),
    ],
)
def test_seed_values(sol, p, n, expected, tol):
    assert sol.value(p, n) == pytest.approx(expected, abs=tol)


def test_gain_is_decreasing_and_n0_is_throw_six_below_p6(sol):
    gain = sol.E - sol.points[:, None]
    assert (np.diff(gain, axis=0) <= 1e-9).all()
    below = sol.points < sol.p6
    np.testing.assert_array_equal(sol.E[below, 0], sol.E[below, 6])
    np.testing.assert_array_equal(sol.E[~below, 0], sol.points[~below])


def test_asymptote_above_p6(sol):
    t = sol.tables
    for n in range(1, 7):
        for p in (sol.p6, sol.p6 + 5000, 50 * (sol.E.shape[0] + 10)):
            exact = (1 - t.bust_probability(n)) * p + t.delta(n)
            assert sol.value(p, n) == pytest.approx(float(exact), rel=1e-14)


def test_one_die_beats_two_and_three_at_small_p_and_lines_cross(sol):
    gain = sol.E - sol.points[:, None]
    for other in (2, 3):
        diff = gain[: sol.p6 // 50, 1] - gain[: sol.p6 // 50, other]
        assert diff[0] > 0
        assert (diff < 0).any()


def test_two_fives_one_and_any_give_the_same_values(sol):
    np.testing.assert_array_equal(solver.solve(PETER.replace(two_fives="any")).E, sol.E)
    assert solver.solve(PRESETS["no-two-fives"]).turn_value < sol.turn_value - 1


def test_float32_is_close(sol):
    low = solver.solve(PETER, dtype=jnp.float32)
    assert low.E.dtype == np.float32
    assert low.turn_value == pytest.approx(sol.turn_value, abs=2e-3)


# ----------------------------------------------------------------------------- policy claims


def first_round_states(rules):
    """Reachable ``(p, n, history)`` before all six dice were used once.

    ``history`` is the tuple of set-asides so far (each a tuple of faces), sorted, so states with
    the same groups in another order merge; a state is reachable if some throw allows each step.
    """
    options = {}
    t = scoring.build_tables(rules)
    for n in range(1, 7):
        opts = set()
        for r in t.rows(n):
            v = scoring.usable_subsets(rules, t.row_counts[r])
            opts |= {(tuple(v.faces(i)), int(v.points[i]), int(v.dice[i])) for i in range(len(v.points))}
        options[n] = opts
    frontier = {(0, 6, ())}
    seen = set()
    while frontier:
        seen |= frontier
        nxt = set()
        for p, n, hist in frontier:
            for faces, pts, used in options[n]:
                if n - used > 0:
                    nxt.add((p + pts, n - used, tuple(sorted(hist + (faces,)))))
        frontier = nxt - seen
    return seen


@pytest.fixture(scope="module")
def first_round():
    return first_round_states(PETER)


@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_dice_only_after_single_fives(sol, first_round, n):
    """Peter (2013): with 1 or 2 dice going on pays only after five or four single 5s set aside."""
    states = [(p, hist) for p, m, hist in first_round if m == n]
    go_on = {(p, hist) for p, hist in states if sol.value(p, n) > p}
    only_fives = {(p, hist) for p, hist in states if all(set(group) == {"5"} and len(group) < 3 for group in hist)}
    assert go_on == only_fives
    assert {p for p, _ in only_fives} == {50 * (6 - n)}
    assert (50 * (6 - n), (("5",),) * (6 - n)) in go_on


def test_three_dice_always_unless_first_triple_is_111_444_555_666(sol, first_round):
    states = [(p, hist) for p, m, hist in first_round if m == 3]
    stop = {hist for p, hist in states if sol.value(p, 3) <= p}
    assert stop == {(("1", "1", "1"),), (("4", "4", "4"),), (("5", "5", "5"),), (("6", "6", "6"),)}
    assert len(states) > 20


def test_four_to_six_dice_always_in_the_first_round(sol, first_round):
    assert all(sol.value(p, n) > p for p, n, _ in first_round if n >= 4)


# ----------------------------------------------------------------------------- advisor


def test_advise_lists_every_choice_best_first(sol):
    choices = advisor.advise(sol, 300, [1, 5, 5, 2, 2, 2])
    assert len(choices) == 1 + len(scoring.usable_subsets(PETER, counts(1, 5, 5, 2, 2, 2)).points)
    values = [c.value for c in choices]
    assert values == sorted(values, reverse=True)
    write = [c for c in choices if c.action == "write"]
    assert len(write) == 1 and write[0].value == 300 + 400
    for c in choices:
        if c.action == "throw":
            assert c.value == pytest.approx(sol.value(c.points, c.dice))
    everything = next(c for c in choices if c.set_aside == ("1", "2", "2", "2", "5", "5"))
    assert everything.dice == 6 and everything.points == 700
    assert everything.value == pytest.approx(sol.value(700, 6))
    assert choices[0].value == max(700, max(sol.value(300 + pts, 6 - d if d < 6 else 6) for _, pts, d in subsets(1, 5, 5, 2, 2, 2)))


def test_advise_bust_and_bad_input(sol):
    assert [c.action for c in advisor.advise(sol, 200, [2, 3, 4, 6])] == ["bust"]
    for bad in ([7], [0, 1], [1, 1, 1, 1, 1, 1, 1], []):
        with pytest.raises(JaxsolveError):
            advisor.advise(sol, 0, bad)
    for points in (-50, 75, 12.5):
        with pytest.raises(JaxsolveError, match="multiple of 50"):
            advisor.advise(sol, points, [1])


@pytest.mark.parametrize(
    "points, faces, message",
    [
        (50, [1, 5, 5, 2, 2, 2], "turn points 50 with 6 dice thrown cannot occur: six dice thrown means nothing is set aside"),
        (250, [1, 5, 5, 2, 2, 2], "turn points 250 with 6 dice"),
        (0, [1, 5, 5], "turn points 0 with 3 dice thrown cannot occur: 3 dice were set aside, so the turn points are at least 150"),
        (350, [1, 5, 5], "turn points 350 with 3 dice"),
        (200, [1], "turn points 200 with 1 die"),
    ],
)
def test_advise_refuses_positions_no_turn_reaches(sol, points, faces, message):
    with pytest.raises(JaxsolveError, match=message):
        advisor.advise(sol, points, faces)


def test_reachable_pairs_follow_the_rules():
    """Six dice: 0 or at least one full round (300); n < 6 dice: 50 for each die set aside at least."""
    for rules in PRESETS.values():
        for n in range(1, 7):
            for p in range(0, 3000, 50):
                least = 0 if n == 6 else 50 * (6 - n)
                try:
                    scoring.check_reachable(rules, p, n)
                    ok = True
                except JaxsolveError:
                    ok = False
                if p < least or (n == 6 and 0 < p < 300):
                    assert not ok, (rules.name, p, n)
                if p >= least + 1500:
                    assert ok, (rules.name, p, n)
    for p, n in [(0, 6), (300, 6), (350, 6), (100, 5), (150, 3), (400, 3), (250, 1), (300, 1)]:
        scoring.check_reachable(PETER, p, n)


def test_advise_matches_the_recursion(sol):
    """E(p, n) is the probability-weighted best choice over all throws of n dice."""
    t = sol.tables
    for p, n in [(0, 6), (300, 3), (1000, 5), (250, 1)]:
        total = 0.0
        for r in t.rows(n):
            faces = [f + 1 for f in range(6) for _ in range(int(t.row_counts[r, f]))]
            total += t.row_prob[r] * advisor.advise(sol, p, faces)[0].value
        assert total == pytest.approx(sol.value(p, n), rel=1e-12)


def test_second_solve_reuses_the_compiled_scan(sol):
    before = compile_cache_size()
    again = solver.solve(PETER)
    assert compile_cache_size() == before and again.compile_seconds == 0.0
    np.testing.assert_array_equal(again.E, sol.E)


def test_tables_shapes_and_set_asides_agree():
    t = scoring.build_tables(PETER)
    assert t.row_n.shape == (923,) and t.v_real.shape[:2] == t.v_valid.shape
    np.testing.assert_array_equal(t.write, np.where(t.v_valid, t.v_points, 0).max(axis=1))
    assert ((t.v_real.sum(axis=2) + t.v_pseudo == t.v_dice) | ~t.v_valid).all()
    assert ((t.v_real[..., 4] + 2 * t.v_pseudo <= t.row_counts[:, None, 4]) | ~t.v_valid).all()
    with pytest.raises(JaxsolveError, match="not a throw"):
        t.row_index([7, 0, 0, 0, 0, 0])
