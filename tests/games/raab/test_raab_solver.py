"""The Pig-family fixpoint: exact small games, published values, fixpoint, bound growth, policy."""

from fractions import Fraction

import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.games.raab import solver, source_tables, table_io
from jaxsolve.games.raab.rules import PRESETS, PigRules, get_rules
from jaxsolve.core.fixpoint import NotConvergedError
from jaxsolve.errors import JaxsolveError
from raab_reference import solve_reference

# Regression pin: this program's float64 value of the Schlag den Raab duel (no published figure).
RAAB_PIN = 0.450923222624


@pytest.fixture(scope="module")
def raab_sol():
    sol = solver.solve(PRESETS["raab"])
    return sol, solver.full(sol)


def test_piglet_exact():
    sol = solver.solve(PRESETS["piglet"], tol=1e-15)
    f = solver.full(sol)
    assert sol.start[0, 0, 0] == pytest.approx(float(Fraction(4, 7)), abs=1e-14)
    assert f.value[0, 0, 1, 0] == pytest.approx(float(Fraction(5, 7)), abs=1e-14)  # P_{0,0,1}
    assert sol.start[0, 0, 1] == pytest.approx(0.4, abs=1e-14)  # P_{0,1,0} = 2/5
    assert sol.start[0, 1, 0] == pytest.approx(0.8, abs=1e-14)  # P_{1,0,0} = 4/5
    assert sol.start[0, 1, 1] == pytest.approx(float(Fraction(2, 3)), abs=1e-14)  # P_{1,1,0}


def test_pig_neller_presser():
    # T. W. Neller and C. G. M. Presser, "Optimal Play of the Dice Game Pig", The UMAP Journal
    # 25(1), 2004: the first player wins with probability 0.5306 (printed to four digits)
    sol = solver.solve(PRESETS["pig"])
    assert sol.residual <= 1e-12
    assert round(sol.game_value, 4) == 0.5306
    tighter = solver.solve(PRESETS["pig"], tol=1e-14)
    assert abs(tighter.game_value - sol.game_value) < 1e-11
    assert PRESETS["pig"].shape[1] * (PRESETS["pig"].goal * (PRESETS["pig"].goal + 1) // 2) == 505_000


@pytest.mark.parametrize(
    "rules",
    [
        PigRules("tiny-raab", goal=6, sides=3, bust=3, last_turn=True, bound=10),
        PigRules("tiny-raab-tight", goal=5, sides=4, bust=1, last_turn=True, bound=6),
        PigRules("tiny-pig", goal=9, sides=4, bust=1, last_turn=False),
    ],
    ids=lambda r: r.name,
)
def test_against_plain_python_reference(rules):
    sol = solver.solve(rules, tol=1e-14)
    ref_start, ref_all = solve_reference(rules.goal, rules.points, rules.bust, rules.last_turn, rules.bound)
    for (ts, m, t), p in ref_start.items():
        assert sol.start[ts, m, t] == pytest.approx(p, abs=1e-12), (ts, m, t)
    f = solver.full(sol)
    for (ts, m, a, t), p in ref_all.items():
        assert f.value[ts, m, m + a, t] == pytest.approx(p, abs=1e-12), (ts, m, a, t)


def test_raab_fixpoint_holds_for_one_roll_bellman(raab_sol):
    sol, f = raab_sol
    assert sol.residual <= 1e-12 and sol.dtype == "float64"
    rules = sol.rules
    tab = solver.build_tables(rules)
    V = jnp.asarray(np.nan_to_num(f.value, nan=0.0))
    new = np.asarray(solver.bellman(V, tab, rules))
    assert np.max(np.abs(new - np.asarray(V))) < 1e-11
    # And it is not trivially so: a perturbed array is moved by the same operator.
    assert np.max(np.abs(np.asarray(solver.bellman(V * 0.9, tab, rules)) - np.asarray(V) * 0.9)) > 1e-3


def test_raab_start_value_and_symmetry_facts(raab_sol):
    sol, _ = raab_sol
    assert 0.0 < sol.game_value < 1.0
    # The source page's forced decision (its PX check): the other player started, banked 52, we have 49:
    # we must make >= 4 more, rolling on at ties, P_SUM(4).
    assert sol.start[1, 49, 52] == pytest.approx(0.73533950617284, abs=1e-11)


def test_raab_last_turn_equals_p_sum(raab_sol):
    sol, _ = raab_sol
    rules = sol.rules
    _, p_sum = source_tables.reach_table(rules, 400)
    for t in range(rules.goal, rules.top + 1):
        for m in range(rules.goal):
            assert sol.start[1, m, t] == pytest.approx(p_sum[t - m + 1], abs=1e-11)


def test_raab_bound_growth_changes_nothing(raab_sol):
    sol, _ = raab_sol
    bigger = solver.solve(get_rules("raab", bound=160))
    assert abs(bigger.game_value - sol.game_value) < 1e-12
    n = sol.rules.top + 1
    assert np.max(np.abs(bigger.start[:, :, :n] - sol.start)) < 1e-10


def test_raab_policy_consistent_with_values(raab_sol):
    _, f = raab_sol
    rules = f.rules
    decide = f.policy >= 0
    chosen = np.where(f.policy == solver.ROLL, f.roll, f.stop)
    assert np.allclose(chosen[decide], f.value[decide], atol=1e-15, rtol=0)
    other = np.where(f.policy == solver.ROLL, f.stop, f.roll)
    has_other = decide & ~np.isnan(other)
    assert np.all(chosen[has_other] >= other[has_other] - 1e-15)
    n_m = rules.shape[1]
    for m in range(n_m):
        assert np.all(f.policy[:, m, m][~np.isnan(f.value[:, m, m])] != solver.STOP)  # a turn starts with a roll
    assert np.all(f.policy[:, :, rules.top + 1 :] == solver.NONE)


def test_tie_in_last_turn_roll_beats_stop(raab_sol):
    _, f = raab_sol
    g, top = f.rules.goal, f.rules.top
    for t in range(g, top + 1):
        for m in range(min(t, g + 1)):
            if f.policy[1, m, t, t] >= 0:
                assert f.roll[1, m, t, t] > f.stop[1, m, t, t]
                assert f.policy[1, m, t, t] == solver.ROLL


def test_turn_total_layout(raab_sol):
    _, f = raab_sol
    lay = table_io.turn_total_layout(f.rules, f.value, np.nan)
    assert lay.shape == (2, 51, 131, 131)
    assert lay[1, 30, 12, 41] == f.value[1, 30, 42, 41]
    assert np.isnan(lay[0, 50, 81, 0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(bust=7), "bust face"),
        (dict(sides=1), "sides"),
        (dict(goal=0), "goal"),
        (dict(bound=40), "bound must be >= goal"),
        (dict(last_turn=False, bound=99), "applies only to the last-turn rule"),
        (dict(points=(1, 2)), "one points value per face"),
        (dict(points=(1, 2, 0, 4, 5, 6)), "at least 1 point"),
        (dict(goal=900, bound=1000), "too large"),
    ],
)
def test_invalid_rules(kwargs, message):
    with pytest.raises(JaxsolveError, match=message):
        get_rules("raab", **kwargs)


def test_unknown_preset_and_bad_tolerance():
    with pytest.raises(JaxsolveError, match="unknown Pig-family rules"):
        get_rules("yahtzee")
    with pytest.raises(JaxsolveError, match="tolerance"):
        solver.solve(PRESETS["piglet"], tol=0.0)


def test_second_solve_does_not_recompile(raab_sol):
    again = solver.solve(PRESETS["raab"])
    assert again.compile_seconds < 0.01
    assert again.game_value == raab_sol[0].game_value and again.iterations == raab_sol[0].iterations


def test_float32_runs_to_its_own_tolerance():
    sol = solver.solve(PRESETS["raab"], dtype=jnp.float32)
    assert sol.dtype == "float32" and sol.tol == 1e-6
    assert abs(sol.game_value - RAAB_PIN) < 1e-5


def test_not_converged_is_an_error():
    with pytest.raises(NotConvergedError, match="3 sweeps"):
        solver.solve(PRESETS["raab"], max_iter=3)


@pytest.mark.parametrize("tol", [float("inf"), float("nan"), 0.0, -1e-9, "x"])
def test_tolerance_must_be_positive_finite(tol):
    with pytest.raises(JaxsolveError, match="positive finite"):
        solver.solve(PRESETS["raab"], tol=tol)


def test_a_float64_export_loads_with_x64_off(tmp_path):
    """The loader's Bellman check runs in the export's own precision, whatever JAX's mode."""
    import jax

    path = tmp_path / "pig.npy"
    sol = solver.solve(PigRules(name="custom", goal=12, sides=4, bust=1, last_turn=False))
    table_io.save_export(path, sol)
    jax.config.update("jax_enable_x64", False)
    loaded = table_io.load_export(path)
    assert loaded.values.dtype == np.float64 and loaded.rules == sol.rules
    assert not jax.config.jax_enable_x64  # the mode is as it was
