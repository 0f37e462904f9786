"""A win-probability answer without JAX: the NumPy best response (``winning.response_numpy``), the
NumPy score policy's turn (``policy.end_of_turn(..., xp=numpy)``) and the opponents' NumPy
distributions (``distribution.distribution_numpy``) against the compiled ones and the brute force
of tests/references/winning_reference.py, float64; and ``advise --opponent`` in a new process
(exact and table) that imports no JAX."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from jaxsolve import games
from jaxsolve.games.category.objectives import distribution as D
from jaxsolve.games.category.engine import policy, solutions, solver, table_io, tables
from jaxsolve.games.category.objectives import target as TG
from jaxsolve.games.category.objectives import winning as W
from jaxsolve.games.category.sheets.position import parse_position
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.io import cache
from winning_reference import Response, opponent_final, win_utility

RULES3 = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


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
    """Every channel (``channels='all'``) to 1e-12; with ``channels='reached'`` the channels a
    game from the start can ask for, the rest NaN."""
    rules, mine, upper, score, opps = CASES[case]
    start = state_of(rules, mine, upper)
    w = W.utility_of_points(rules, _Sheet(start), score, utility(rules, mine, score, opps))
    got = W.response_numpy(rules, w, start)
    reached = W.response_numpy(rules, w, start, channels="reached")
    ref = W.response_table(rules, start[0], w, start=start, engine="jax")
    K = len(w) - 1
    for layer, (a, r, b) in enumerate(zip(got.layers, reached.layers, ref.layers)):
        assert (a is None) == (b is None) == (r is None)
        if a is None:
            continue
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
        if layer < rules.num_boxes:
            f, u, h = D.sub_layer_states(rules, layer, start[0], start)
            need = np.minimum(W.most_points(rules, start, tables.EngineState(f, u, h)) + 1, K + 1)
            inside = np.arange(K + 1)[None, :] >= K + 1 - need[:, None]
            np.testing.assert_allclose(r[inside], b[inside], rtol=0, atol=1e-12)
            assert np.isnan(r[~inside]).all()
    assert W.response_work(rules, start, K) == sum(int(np.isfinite(r).sum()) for r in reached.layers[:-1] if r is not None)


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
    with pytest.raises(W.JaxsolveError, match="channels must be"):
        W.response_numpy(RULES3, np.ones(3), state_of(RULES3, (0, 1)), channels="some")
    with pytest.raises(W.JaxsolveError, match="engine must be"):
        W.remaining_distribution(RULES3, parse_position("start", RULES3), engine="torch")


# ----------------------------------------------------------------------------- the score policy in NumPy


def random_table(rules, seed=0) -> solver.Solution:
    """A score table that passes the store's checks: random values at every reachable state (NaN
    elsewhere, 0 for the full sheet), the last two layers the rules' own (the loader's spot check)."""
    rng = np.random.default_rng(seed)
    mask = table_io.reachable_mask(rules)
    values = np.where(mask, rng.uniform(0.0, 300.0, mask.shape), np.nan)
    values[rules.full_mask] = 0.0
    for layer in (rules.num_boxes - 1, rules.num_boxes - 2):
        f, u, h = (x.astype(np.int64) for x in tables.layer_states(rules, layer))
        values[f, u, h] = solver.state_values(np.nan_to_num(values.reshape(-1), nan=0.0), tables.EngineState(f, u, h), rules, "score", xp=np)
    return solver.Solution(rules, "score", values)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["yahtzee", "kniffel-imhieb"])
def test_the_numpy_end_of_turn_equals_the_jax_one(preset):
    """The score policy's turn of random states of a random table (joker and extra-bonus throws,
    the Im-Hieb fill after the first throw), every re-throw count: the same boxes and keeps, the
    same stop probabilities to 1e-12, and the chosen moves the same (JAX op by op: about a
    minute; the default run compares the whole distribution, ``distribution_numpy``)."""
    import jax.numpy as jnp

    rules = games.get_game("kniffel").get_rules(preset)
    values = np.nan_to_num(random_table(rules, seed=3).values.reshape(-1), nan=0.0)
    rng = np.random.default_rng(5)
    f, u, h = tables.layer_states(rules, 9)
    pick = rng.choice(len(f), 24, replace=False)
    state = tables.EngineState(f[pick], u[pick], h[pick])
    state_j = tables.EngineState._make(jnp.asarray(a) for a in state)
    for left in range(rules.throws):
        got = policy.end_of_turn(values, state, rules, throws_left=left, xp=np)
        ref = policy.end_of_turn(jnp.asarray(values), state_j, rules, throws_left=left)
        assert len(got) == len(ref)
        for (q, box, first), (q_ref, box_ref, first_ref) in zip(got, ref):
            assert first == first_ref
            np.testing.assert_array_equal(box, np.asarray(box_ref))
            np.testing.assert_allclose(q, np.asarray(q_ref), rtol=0, atol=1e-12)
            mv, mv_ref = solver.chosen_moves(box, state, rules, xp=np), solver.chosen_moves(jnp.asarray(box), state_j, rules)
            for a, b in zip(mv, mv_ref):
                np.testing.assert_array_equal(a, np.asarray(b))


@pytest.fixture(scope="module")
def rules3_solution():
    return solutions.solution(RULES3, "score", dtype="float64")


@pytest.mark.parametrize("open_boxes, upper", [((2, 8, 12), 0), ((0, 1, 5, 11, 12), 3), ((3, 6, 9, 10), 6)])
def test_numpy_distribution_equals_the_compiled_one_and_the_brute_force(rules3_solution, open_boxes, upper):
    start = state_of(RULES3, open_boxes, upper)
    got = D.distribution_numpy(RULES3, rules3_solution, start).at(*start)
    ref = D.distribution(RULES3, rules3_solution, dtype="float64", chunk=2, keep="start", start=start, shapes="bucket").at(*start)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    if upper == 0:  # the reference's sheets hold upper total 0
        brute = opponent_final(RULES3, frozenset(range(13)) - set(open_boxes), 0, len(got))
        np.testing.assert_allclose(got, brute, rtol=0, atol=1e-12)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)


# ----------------------------------------------------------------------------- a new process


ME = "aces=3 twos=6 threes=12 fours=12 fives=15 sixes=18 three_kind=24 four_kind=20 full_house=25 small_straight=30"
OPPS = ("aces=3 twos=4 threes=9 fours=16 fives=10 sixes=24 chance=23 three_kind=20 four_kind=0 small_straight=30 174",
        "aces=1 twos=6 threes=6 fours=12 three_kind=15 four_kind=20 full_house=25 small_straight=30 large_straight=40 160")
@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """A solution store holding a random Yahtzee score table and the step target table of the
    subgame of my sheet (the whole game's table is 1.7 GB; the store's reader takes a subgame's
    the same way), both noted as checked."""
    folder = tmp_path_factory.mktemp("store")
    rules = games.get_game("kniffel").get_rules("yahtzee")
    sol = random_table(rules, seed=7)
    try:
        cache.configure(folder)
        path = cache.entry_path("kniffel", rules, "score", "float64")
        path.parent.mkdir(parents=True)
        table_io.save_solution(path, sol, game="kniffel")
        filled = parse_position(ME, rules).filled
        table = TG.solve_target(rules, dtype="float32", prefilled=filled)  # solved: the loader recomputes a sample of its rows
        TG.save_table(TG.store_path("kniffel", rules), table, game="kniffel")
        TG.seal_table(TG.store_path("kniffel", rules))
    finally:
        cache.configure(None)
    return folder, rules, sol


@pytest.mark.parametrize("method", ["exact", "table"])
def test_advise_in_a_new_process_imports_no_jax(store, method):
    """``advise --opponent`` (three open boxes each, the score table and, for ``table``, the target
    table in the store): no JAX module imported, and the answer of ``advise_win`` in this process."""
    folder, rules, sol = store
    args = ["advise", "kniffel", "--position", ME, "--dice", "6", "6", "5", "2", "1", "--throws-left", "1", "--json", "--win-method", method]
    args += [x for o in OPPS for x in ("--opponent", o)]
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    run = subprocess.run([sys.executable, "-m", "jaxsolve.cli.jax_probe", *args, "--cache-dir", str(folder)], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stderr.splitlines()[-1] == "no jax", run.stderr
    got = json.loads(run.stdout)
    try:
        cache.configure(folder)
        table = TG.load_table(TG.store_path("kniffel", rules), game="kniffel", rules=rules) if method == "table" else None
        ref = W.advise_win(rules, parse_position(ME, rules), (6, 6, 5, 2, 1), 1, [W.parse_opponent(o, rules) for o in OPPS], method=method, sol=sol, table=table)
    finally:
        cache.configure(None)
    assert got["method"] == method
    assert [o["option"] for o in got["options"]] == [o.label for o in ref.options]
    assert [o["value"] for o in got["options"]] == pytest.approx([o.value for o in ref.options], abs=1e-12)


@pytest.mark.parametrize("n", [pytest.param(3, marks=pytest.mark.slow), 5])
def test_the_numpy_dice_operators_equal_the_jax_ones(n):
    """``dice.best_subkeep_arg`` (integer values: many exact ties, decided by the number of dice
    kept) and ``dice.rethrow_mass`` with ``xp=numpy`` against JAX, float64."""
    import jax

    from jaxsolve.core import dice

    sp = dice.dice_space(n)
    rng = np.random.default_rng(n)
    keep_values = rng.integers(0, 4, (sp.num_keeps, 7)).astype(np.float64)
    best, arg = dice.best_subkeep_arg(sp, keep_values, 1e-9, xp=np)
    best_ref, arg_ref = jax.jit(lambda v: dice.best_subkeep_arg(sp, v, 1e-9))(keep_values)
    np.testing.assert_array_equal(arg, np.asarray(arg_ref))
    np.testing.assert_array_equal(best, np.asarray(best_ref))
    mass = rng.dirichlet(np.ones(sp.num_keeps), 3).T
    got = dice.rethrow_mass(sp, mass, xp=np)
    np.testing.assert_allclose(got, np.asarray(jax.jit(lambda m: dice.rethrow_mass(sp, m))(mass)), rtol=0, atol=1e-15)
    np.testing.assert_allclose(got, sp.dense.T @ mass, rtol=0, atol=1e-15)  # the transpose of the keep -> throw operator
