"""The one-channel simulator of the win-probability player (``winning_simulate.play_channel``):
its option values against the vectors ``play_table`` evaluates and against the plain brute force
of tests/references/winning_reference.py, and its games against ``play_table``'s and the
predicted win probability (reduced games, float64)."""

import numpy as np
import pytest

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.objectives import winning as W
from jaxsolve.games.category.objectives import winning_simulate as S
from jaxsolve.games.category.sheets.position import Position
from jaxsolve.games.category.sheets.rules import CategoryRules
from winning_reference import Response, opponent_final, win_utility

RULES = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)


def sheet(rules, open_boxes):
    """Every box but ``open_boxes`` scratched (upper total 0, the all-same box not holding)."""
    return Position(tuple(None if b in open_boxes else 0 for b in range(rules.num_boxes)), rules.boxes)


def response(open_boxes, score, opps):
    """The exact best response of ``open_boxes`` at ``score`` to ``opps`` ((open boxes, score) each)."""
    pos = sheet(RULES, open_boxes)
    finals = [W.final_distribution(RULES, W.Opponent(sheet(RULES, ob), s)) for ob, s in opps]
    w = W.utility_of_points(RULES, pos, score, W.win_utility(finals))
    return pos, finals, w, W.response_table(RULES, pos.filled, w)


LATE = ((0, 2, 8, 11, 12), 20, [((2, 8, 12), 25), ((0, 11), 33)])


def test_turn_values_match_the_vectors_of_play_table():
    """Every box after every throw and every keep at every re-throw level, at random channels of
    random states of two layers: the scalars equal the whole vectors' entries."""
    import jax.numpy as jnp

    from jaxsolve.games.category.objectives.distribution import max_turn_reward

    pos, _, w, table = response(*LATE)
    rng = np.random.default_rng(0)
    for layer in (9, 11):
        f, u, h = tables.layer_states(RULES, layer)
        flat = tables.state_index(f, u, h, RULES)
        ok = (np.bitwise_and(f, pos.filled) == pos.filled) & (table.rows[flat] >= 0)
        states = rng.choice(flat[ok], 6, replace=False)
        channels = rng.integers(0, len(w), len(states))
        got = S.turn_values(table, states, channels)
        width = table.layers[layer].shape[1]
        padded = jnp.asarray(W._padded(table.layers[layer + 1], max_turn_reward(RULES), width))
        fu, uu, hu = (jnp.asarray(a, jnp.int32) for a in S._decode(states, RULES))
        arr = S._state_arrays_fn(RULES, width)(jnp.asarray(table.rows), padded, fu, uu, hu)
        lane = np.arange(len(states))
        fill = np.asarray(arr["fill"])[:, :, lane, channels]  # [boxes, T, G]
        np.testing.assert_allclose(np.where(fill >= 0, fill, -np.inf), got.fill, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(np.asarray(arr["next"]), got.next_state)
        for r in range(RULES.throws - 1):
            np.testing.assert_allclose(got.keep[r], np.asarray(arr["keep"][r])[:, lane, channels], rtol=0, atol=1e-12)


def test_option_values_match_the_brute_force():
    """At the start of a late position: each box and keep of three situations, read at the
    player's channel, equals the brute force's E[u(final)] (written apart from the engine)."""
    open_boxes, score, opps = (0, 11, 12), 20, [((8, 12), 25)]
    pos, _, w, table = response(open_boxes, score, opps)
    closed = frozenset(range(13)) - set(open_boxes)
    finals = [opponent_final(RULES, frozenset(range(13)) - set(ob), s, 200) for ob, s in opps]
    ref = Response(RULES, win_utility(finals, 400)[score: score + 200])
    sp = tables.space(RULES.dice)
    state = tables.state_index(pos.filled, 0, 0, RULES)
    tv = S.turn_values(table, np.asarray([state]), np.asarray([len(w) - 1]))
    for dice, left in (((6, 6, 1), 2), ((3, 3, 3), 1), ((6, 5, 4), 0), ((2, 1, 1), 1)):
        x = sp.throw_index(sp.counts_of_faces(dice))
        want = ref.options(closed, dice, left)
        got = {("box", b): float(tv.fill[b, x, 0]) for b in range(RULES.num_boxes) if np.isfinite(tv.fill[b, x, 0])}
        if left:
            for k in set(int(k) for k in sp.subkeeps[x]):
                if sp.keeps[k].sum() < RULES.dice:
                    got[("keep", tuple(sp.faces_of(sp.keeps[k])))] = float(tv.keep[left - 1][k, 0])
        assert set(got) == set(want)
        for key, v in want.items():
            assert got[key] == pytest.approx(v, abs=1e-9), (dice, left, key)


@pytest.mark.slow
def test_games_agree_with_play_table_and_the_prediction():
    """10,000 games from a late position against two opponents, played by ``play_channel`` and by
    ``play_table`` (other dice): both win rates within 3 standard errors of the predicted win
    probability, and of each other within 3 standard errors of their difference."""
    open_boxes, score, _ = LATE
    pos, finals, w, table = response(*LATE)
    predicted = float(table.at(*pos.state(RULES))[len(w) - 1])
    games = 10_000
    drawn = S.draw_finals(finals, games, seed=2)
    fast = S.outcomes(score + S.play_channel(table, pos.state(RULES), len(w) - 1, games, seed=1).points, drawn)
    full = S.outcomes(score + S.play_table(table, pos.state(RULES), len(w) - 1, games, seed=3).points, drawn)
    se_fast, se_full = (x.std() / np.sqrt(games) for x in (fast, full))
    assert abs(fast.mean() - predicted) < 3 * se_fast
    assert abs(full.mean() - predicted) < 3 * se_full
    assert abs(fast.mean() - full.mean()) < 3 * np.hypot(se_fast, se_full)
    assert 0.5 < predicted < 0.9  # a real contest: neither certain nor hopeless


def test_play_channel_is_reproducible_and_checks_its_input():
    open_boxes, score, _ = LATE
    pos, _, w, table = response(*LATE)
    a = S.play_channel(table, pos.state(RULES), len(w) - 1, 500, seed=7, batch=128).points
    b = S.play_channel(table, pos.state(RULES), len(w) - 1, 500, seed=7, batch=128).points
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0 and a.mean() > 10
    with pytest.raises(JaxsolveError, match="channel"):
        S.play_channel(table, pos.state(RULES), len(w), 10, seed=1)
    with pytest.raises(JaxsolveError, match="positive"):
        S.play_channel(table, pos.state(RULES), 0, 0, seed=1)
    with pytest.raises(JaxsolveError, match="terminal"):
        S.play_channel(W.target_table(RULES, pos.filled), pos.state(RULES), 0, 10, seed=1)


def test_one_game_per_seed_is_play_tables_game():
    """One game per seed draws the dice in the same order in both simulators, so each game's
    points are equal: the same decisions, game by game."""
    open_boxes, score, _ = LATE
    pos, _, w, table = response(*LATE)
    for seed in range(12):
        fast = S.play_channel(table, pos.state(RULES), len(w) - 1, 1, seed=seed).points
        full = S.play_table(table, pos.state(RULES), len(w) - 1, 1, seed=seed).points
        assert fast[0] == full[0], seed
