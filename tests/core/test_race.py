"""The race core's layered driver: blocks of layers run from Python with progress, chunks of a
layer (only those holding real states), the extrapolated first guess and the padding of
``make_layers``; each setting gives the values of the plain walk (the Zehntausend duel's turn
at small goals, whose values the duel tests check against plain value iteration)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.core import race
from jaxsolve.games.zehntausend import duel
from jaxsolve.games.zehntausend.duel_rules import DuelRules

RULES = (DuelRules("t-400", goal=400), DuelRules("t-300-last", goal=300, end="last-turn", bound=400))


def run(rules, layers=None, **kwargs):
    geo = duel.geometry(rules)
    ops = duel.turn_ops(rules, jnp.float64)
    W0 = jax.device_put(np.full(int(np.prod(rules.shape)), 0.5))
    turn = functools.partial(duel.duel_turn, geo=geo)
    layers = duel.duel_layers(rules) if layers is None else layers
    return race.solve_layers(("test-race", rules), turn, W0, layers, ops, tol=1e-13, **kwargs)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_progress_reports_every_block_and_the_values_do_not_depend_on_the_blocks(rules):
    calls = []
    one = run(rules, block=1, progress=lambda done, total: calls.append((done, total)))
    n = len(one.rounds)
    assert calls[0] == (0, n) and calls[-1] == (n, n)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls) and {d for d, _ in calls} == set(range(n + 1))
    whole = run(rules, block=n)
    assert np.array_equal(np.asarray(one.values), np.asarray(whole.values)) and np.array_equal(one.rounds, whole.rounds)
    assert race.layer_blocks(10, 3) == [(0, 3), (3, 6), (6, 9), (9, 10)] and race.layer_blocks(5, None) == [(i, i + 1) for i in range(5)]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_chunks_and_the_first_guess_do_not_change_the_values(rules):
    """Chunks of 3 states (some layers narrower, some not a multiple) against the whole layer at
    once; the plain first guess (the solved neighbour itself) against the extrapolated one: the
    same fixed point to 1e-14."""
    base = np.asarray(run(rules).values)
    assert np.max(np.abs(np.asarray(run(rules, chunk=3).values) - base)) < 1e-14
    layers = duel.duel_layers(rules)
    plain = race.Layers(layers.index, layers.partner, layers.size, layers.guess[:, :, :1].repeat(3, axis=2))  # the first state's value alone
    assert np.max(np.abs(np.asarray(run(rules, plain).values) - base)) < 1e-14


def test_make_layers_orders_by_cost_and_pads_with_the_last_state():
    # layer 1: states 0, 1, 2 (partners 2, 1, 0); layer 0: state 3 alone; cost reverses layer 1
    states, layer, partner = np.arange(4), np.array([1, 1, 1, 0]), np.array([2, 1, 0, 3])
    plain = race.make_layers(states, layer, partner)
    assert plain.index.tolist() == [[0, 1, 2], [3, 3, 3]] and plain.partner.tolist() == [[2, 1, 0], [0, 0, 0]]
    costly = race.make_layers(states, layer, partner, cost_of=np.array([5, 4, 3, 0]))
    assert costly.index.tolist() == [[2, 1, 0], [3, 3, 3]] and costly.partner.tolist() == [[2, 1, 0], [0, 0, 0]]
    padded = race.pad_layers(plain, 2)
    assert padded.index.tolist() == [[0, 1, 2, 2], [3, 3, 3, 3]] and padded.guess[..., 0].tolist() == [[0, 1, 2, 2], [3, 3, 3, 3]]


def test_the_first_guess_extrapolates_from_solved_states():
    """A duel layer's first guess W[g] + (W[h] - W[k]): the bilinear extrapolation inside the
    table, the linear one on its edges (h = g)."""
    G = 6
    layers = duel.duel_layers(DuelRules("t", goal=G * 50))
    ts, a, b = duel.decode(layers.index, duel.geometry(DuelRules("t", goal=G * 50)))
    ga, gb = layers.guess // G, layers.guess % G
    inside = (a + 1 < G) & (b + 1 < G)
    assert np.array_equal(ga[inside], np.stack([a + 1, a, a + 1], -1)[inside]) and np.array_equal(gb[inside], np.stack([b, b + 1, b + 1], -1)[inside])
    edge = ~inside & (a + b < 2 * G - 2)
    assert np.array_equal(layers.guess[edge][:, 0], layers.guess[edge][:, 1])
    assert np.all((ga + gb)[~inside & (a + b < 2 * G - 2)] > (a + b)[~inside & (a + b < 2 * G - 2)][:, None])  # edges: higher layers
