"""Forward walk (``evaluate.forward``) against the backward evaluation of every state.

``evaluate.evaluate`` (channels of all states, backward over the layers) is the previous
implementation of ``analysis.breakdown``; the forward walk must give the same per-box split,
bonuses and second moment of one position to 1e-9 in float64, on reduced games with the
standard sheet, an Im-Hieb bonus and a custom sheet without a Yahtzee box.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.answers import analysis
from jaxsolve.games.category.engine import evaluate, solver, tables
from jaxsolve.games.category.sheets.position import Position
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import Box, face_boxes

REDUCED = CategoryRules(name="reduced-3-dice", dice=3, upper_threshold=6, extra_bonus=10)
IMHIEB = CategoryRules(name="reduced-3-dice-imhieb", dice=3, upper_threshold=6, extra_bonus=10, joker="kniffel", instant_all_same=30, instant_other=5)
PAIRS = CategoryRules(
    name="reduced-pairs",
    dice=3,
    throws=2,
    joker="none",
    extra_bonus=0,
    upper_threshold=9,
    boxes=face_boxes() + (Box("pair", "groups", (2,), total=True), Box("chance", "chance")),
)
TOL = 1e-9


@pytest.fixture(scope="module")
def evaluated():
    """``(solution, evaluation)`` per (rules, objective), solved and evaluated once."""
    cache = {}

    def get(rules, objective="score"):
        if (rules, objective) not in cache:
            sol = solver.solve(rules, objective, chunk=256)
            cache[rules, objective] = (sol, evaluate.evaluate(sol, chunk=256))
        return cache[rules, objective]

    return get


def _close(forward_channels, backward_channels):
    """Split and bonuses to ``TOL``; the second moment (hundreds to ~1e5) to ``TOL`` relative."""
    forward_channels, backward_channels = np.asarray(forward_channels), np.asarray(backward_channels)
    np.testing.assert_allclose(forward_channels[:-1], backward_channels[:-1], rtol=0, atol=TOL)
    np.testing.assert_allclose(forward_channels[-1], backward_channels[-1], rtol=TOL, atol=TOL)


@pytest.mark.parametrize("rules,objective", [(REDUCED, "score"), (REDUCED, "goals"), (IMHIEB, "score"), (PAIRS, "score")], ids=lambda x: getattr(x, "name", x))
def test_start_matches_backward_evaluation(evaluated, rules, objective):
    sol, ev = evaluated(rules, objective)
    walk = evaluate.forward(sol, chunk=128)
    _close(walk.channels, ev.channels[0, 0, 0])
    assert walk.mean() == pytest.approx(sol.game_value, abs=TOL)
    assert walk.sd() == pytest.approx(ev.sd(), abs=TOL)
    assert 0 < walk.states <= tables.num_reachable(rules)


def test_breakdown_split_sums_to_the_game_value(evaluated):
    sol, ev = evaluated(REDUCED)
    brk = analysis.breakdown(REDUCED, Position(), sol=sol)
    assert sum(brk.split.values()) == pytest.approx(sol.game_value, abs=TOL)
    assert brk.mean == pytest.approx(brk.value, abs=TOL)
    assert brk.sd == pytest.approx(ev.sd(), abs=TOL)
    for name, value in ev.at().items():
        if name != "second_moment":
            assert brk.split[name] == pytest.approx(value, abs=TOL), name


def test_positions_within_the_game_match(evaluated):
    sol, ev = evaluated(REDUCED)
    rng = np.random.default_rng(7)
    for layer in (3, 7, 11):
        f, u, h = tables.layer_states(REDUCED, layer)
        for i in rng.choice(len(f), 3, replace=False):
            walk = evaluate.forward(sol, int(f[i]), int(u[i]), int(h[i]), chunk=128)
            _close(walk.channels, ev.channels[f[i], u[i], h[i]])


@pytest.mark.parametrize("rules", [REDUCED, IMHIEB], ids=lambda r: r.name)
def test_mid_turn_matches_backward_throw_channels(evaluated, rules):
    sol, ev = evaluated(rules)
    values = jnp.asarray(np.nan_to_num(sol.values.reshape(-1)))
    aux = jnp.asarray(np.nan_to_num(ev.channels.reshape(-1, ev.channels.shape[-1])))
    sp = tables.space(rules.dice)
    position = Position(tuple(None if b in (0, 4, 7, 9, 11, 12) else 0 for b in range(rules.num_boxes)))
    state = position.state(rules)
    arrays = tables.EngineState._make(jnp.asarray([x], jnp.int32) for x in state)
    for throws_left in range(rules.throws):
        _, chan = jax.jit(evaluate.throw_channels, static_argnames=("rules", "objective", "throws_left"))(values, aux, arrays, rules=rules, throws_left=throws_left)
        for throw in (0, 17, sp.num_throws - 1):
            walk = evaluate.forward(sol, *state, throw=throw, throws_left=throws_left, chunk=128)
            _close(walk.channels, chan[throw, 0])


def test_forward_refuses_what_is_not_a_position(evaluated):
    sol, _ = evaluated(REDUCED)
    with pytest.raises(JaxsolveError, match="not a reachable state"):
        evaluate.forward(sol, REDUCED.full_mask)
    with pytest.raises(JaxsolveError, match="throw must be"):
        evaluate.forward(sol, throw=tables.space(REDUCED.dice).num_throws)
