"""The race engine for N players (``jaxsolve.core.race_multi``) on the Pig family and Zehntausend:
two players give the duels' values, three and four players the brute force's
(``tests/references/race_n_reference.py``), the vectors sum to 1, the tie rule, the cycles'
equilibria."""

from __future__ import annotations

import functools

import jax.numpy as jnp
import itertools

import numpy as np
import pytest
import race_n_reference as ref

from jaxsolve.core.race_cycles import Piece, bust_vectors, cycle_equilibria, make_cycles, select, solve_cycle
from jaxsolve.core.race_multi import solve_cycle as solve_cycle_jax
from jaxsolve.games.raab import solver as pig_duel
from jaxsolve.games.raab import table as pig_table
from jaxsolve.games.raab.rules import PigRules
from jaxsolve.games.raab.table_rules import PigTableRules
from jaxsolve.games.zehntausend import duel as zt_duel
from jaxsolve.games.zehntausend import table as zt_table
from jaxsolve.games.zehntausend import table_numpy as zt_numpy
from jaxsolve.games.zehntausend.duel_numpy import NDIM
from jaxsolve.games.zehntausend.duel_rules import DuelRules
from jaxsolve.games.zehntausend.table_rules import TableRules


@pytest.mark.parametrize("goal,bust", [(30, 1), pytest.param(25, 6, marks=pytest.mark.slow)])
def test_two_players_give_the_pig_duel(goal, bust):
    sol = pig_table.solve(PigTableRules(players=2, goal=goal, bust=bust))
    duel = pig_duel.solve(PigRules(goal=goal, sides=6, bust=bust, last_turn=False))
    assert np.max(np.abs(sol.values[..., 0] - duel.start[0])) <= 1e-12
    assert not sol.run.unsettled


@pytest.mark.parametrize("entry", [pytest.param(0, marks=pytest.mark.slow), 200])
def test_two_players_give_the_zehntausend_duel(entry):
    sol = zt_table.solve(TableRules(players=2, goal=500, entry=entry))
    duel = zt_duel.solve(DuelRules(goal=500, entry=entry))
    assert np.max(np.abs(sol.values[..., 0] - duel.start[0])) <= 1e-12


@pytest.mark.parametrize("players,goal,sides,bust", [(3, 6, 6, 1), (3, 7, 3, 3), (4, 5, 3, 1), (4, 5, 4, 1)])
def test_brute_force_three_and_four_players(players, goal, sides, bust):
    table = ref.solve(players, goal, sides, bust)
    sol = pig_table.solve(PigTableRules(players=players, goal=goal, sides=sides, bust=bust))
    assert len(table.values) == goal**players
    worst = max(float(np.max(np.abs(sol.values[s] - v))) for s, v in table.values.items())
    assert worst <= 1e-12
    assert np.max(np.abs(sol.values.sum(axis=-1) - 1.0)) <= 1e-12
    # every cycle here has one pure equilibrium: the values do not depend on the selection
    assert set(table.pure_counts.values()) == {1}
    assert all(table.settled.values()) and not sol.run.unsettled


def test_analysis_counts_equilibria_like_the_brute_force():
    rules = PigTableRules(players=3, goal=6, sides=6, bust=1)
    sol = pig_table.solve(rules, analyse=True)
    table = ref.solve(3, 6, 6, 1)
    assert sol.run.analysed == len(table.pure_counts)
    assert sol.run.several == sum(c > 1 for c in table.pure_counts.values())


@functools.lru_cache(maxsize=4)
def _zt_solve(rules):
    return zt_table.solve(rules)


def test_zehntausend_vectors_sum_to_one_for_four_players():
    sol = _zt_solve(TableRules(players=4, goal=250, entry=150))
    assert sol.values.shape == (5, 5, 5, 5, 4)
    assert np.max(np.abs(sol.values.sum(axis=-1) - 1.0)) <= 1e-12
    assert np.all(sol.values >= -1e-15)
    start = sol.start
    assert start[0] > start[1] > start[2] > start[3]  # moving first is an edge


def test_pig_goal_50_has_one_cycle_with_two_pure_equilibria():
    """Three-player Pig to 50: the cycle of the players at 7, 7 and 0 has two pure stationary
    equilibria (best responses do not settle there); the players at 7 trade about 0.001."""
    sol = pig_table.solve(PigTableRules(players=3, goal=50))
    assert len(sol.run.unsettled) == 1
    cyc = sol.run.unsettled[0]
    assert sorted(np.unravel_index(cyc["members"][0], (50,) * 3)) == [0, 7, 7]
    assert cyc["pure"] == 2 and cyc["selected"] == "pure"
    assert np.max(np.abs(sol.values.sum(axis=-1) - 1.0)) <= 1e-12


def _pig_rules_for_turn():
    return PigTableRules(players=3, goal=4, sides=2, bust=1)  # a coin: heads adds 2


@pytest.mark.parametrize("shift,banks", [(0.0, True), (0.5e-12, True), (-0.5e-12, True), (-2e-12, False)])
def test_tie_rule_banks_within_1e_12(shift, banks):
    """At (1, 0, 0) with 2 on the turn, banking is worth W(0, 0, 3)'s last entry to the mover and
    rolling 0.5 x + 0.5 (heads wins): equal within 1e-12, he banks."""
    rules = _pig_rules_for_turn()
    G = rules.goal
    W = np.full((G**3, 3), 1 / 3)
    bank_vec = np.array([0.1, 0.3, 0.6 + shift])
    bank_vec[0] -= shift
    W[(0 * G + 0) * G + 3] = bank_vec
    X = np.array([[0.2, 0.5, 0.3]])
    state = np.array([(1 * G + 0) * G + 0])
    V, beta = pig_table.pig_turn(jnp.asarray(W), jnp.asarray(state), jnp.asarray(X), pig_table.operands(rules), G=G, F=rules.max_points)
    V, beta = np.asarray(V)[0], float(np.asarray(beta)[0])
    seen = np.roll(bank_vec, 1)
    at2 = seen if banks else 0.5 * X[0] + 0.5 * np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(V, 0.5 * X[0] + 0.5 * at2, rtol=0, atol=1e-15)
    assert beta == (0.5 if banks else 0.75)


def test_set_aside_tie_order():
    """Most points first, then most dice left, all six used counting as six."""
    index = np.array([[(1 - 1) * NDIM + 5, (3 - 1) * NDIM + 2, (3 - 1) * NDIM + 0, (3 - 1) * NDIM + 4, 0]])
    valid = np.array([[True, True, True, True, False]])
    order = zt_numpy._tie_order(index, valid)[0]
    assert order.tolist() == [(3 - 1) * NDIM + 0, (3 - 1) * NDIM + 4, (3 - 1) * NDIM + 2, 5, (3 - 1) * NDIM + 0]


def test_cycle_solve_closed_form_matches_linear_system():
    rng = np.random.default_rng(1)
    for n in (2, 3, 4):
        A = rng.random((n, n)) * 0.3
        beta = rng.random(n) * 0.9
        table = ref.Table(n, 5, 6, 1)
        W = table.solve_lines([(A[j], beta[j]) for j in range(n)])
        np.testing.assert_allclose(solve_cycle(A, beta), W, rtol=0, atol=1e-14)
        np.testing.assert_allclose(np.asarray(solve_cycle_jax(jnp.asarray(A), jnp.asarray(beta))), W, rtol=0, atol=1e-14)


def _random_pieces(rng, most, n=3, betas=(0.1, 0.8), first=(0.05, 0.2)):
    """Random envelopes for a cycle of ``n``: up to ``most`` pieces per member, lines that meet at
    random cuts with rising bust probabilities; ``None`` where a line is not a probability."""
    pieces = []
    for _j in range(n):
        k = rng.integers(1, most + 1)
        cuts = np.sort(rng.uniform(0.05, 0.6, k - 1))
        lo = np.concatenate([[0.0], cuts])
        hi = np.concatenate([cuts, [1.0]])
        beta = np.sort(rng.uniform(*betas, k))
        # lines that meet at the cuts: a_k + beta_k c = a_{k+1} + beta_{k+1} c
        a = [rng.uniform(*first)]
        for i, c in enumerate(cuts):
            a.append(a[-1] + (beta[i] - beta[i + 1]) * c)
        seat = []
        for i in range(k):
            rest = rng.dirichlet(np.ones(n - 1)) * (1 - beta[i] - a[i])
            seat.append(Piece(np.array([a[i], *rest]), float(beta[i]), float(lo[i]), float(hi[i])))
        pieces.append(seat)
    if any(p.A.sum() + p.beta > 1 + 1e-12 or p.A[0] < 0 for seat in pieces for p in seat):
        return None
    return pieces


def test_cycle_equilibria_are_equilibria():
    """Pure ones: every member's solved bust payoff lies in his piece; mixed ones: each mixer's
    bust payoff is his breakpoint and the values solve the cycle with the mixed lines."""
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(40):
        pieces = _random_pieces(rng, 3)
        if pieces is None:
            continue
        pure, mixed = cycle_equilibria(pieces)
        for eq in pure + mixed:
            lines = [pieces[j][k] for j, k in enumerate(eq.choice)]
            x = bust_vectors(eq.W)[:, 0]
            if eq.mixer is None:
                for j, p in enumerate(lines):
                    assert p.lo - 1e-9 <= x[j] <= p.hi + 1e-9
                np.testing.assert_allclose(eq.W, solve_cycle(np.array([p.A for p in lines]), np.array([p.beta for p in lines])), atol=1e-14)
            else:
                A = np.array([p.A for p in lines])
                beta = np.array([p.beta for p in lines])
                for i, q in zip(eq.mixer, eq.q):
                    left, right = pieces[i][eq.choice[i]], pieces[i][eq.choice[i] + 1]
                    assert abs(x[i] - left.hi) <= 1e-9
                    A[i] = q * left.A + (1 - q) * right.A
                    beta[i] = q * left.beta + (1 - q) * right.beta
                np.testing.assert_allclose(eq.W, solve_cycle(A, beta), atol=1e-12)
            checked += 1
        if pure or mixed:
            assert select(pure, mixed) is not None
    assert checked > 10


def test_the_search_finds_what_the_full_enumeration_finds():
    """The branch and bound over the members' pieces gives the same equilibria, in the same
    order, as solving every combination at once (``leaf`` above the product), split as far as
    it goes (``leaf=1``); and its pure ones are exactly those of a plain check of every
    combination, written here."""
    rng = np.random.default_rng(11)
    seen = {"pure": 0, "mixed": 0, "split": 0}
    for _ in range(30):
        pieces = _random_pieces(rng, 10, betas=(0.2, 0.45), first=(0.15, 0.3))
        if pieces is None:
            continue
        whole = cycle_equilibria(pieces, leaf=10**9)
        split = cycle_equilibria(pieces, leaf=1)
        for a, b in zip(whole, split):
            assert [e.choice for e in a] == [e.choice for e in b]
            assert [e.mixer for e in a] == [e.mixer for e in b]
            for e, f in zip(a, b):
                np.testing.assert_allclose(e.W, f.W, rtol=0, atol=1e-14)
                np.testing.assert_allclose(e.q or (), f.q or (), rtol=0, atol=1e-14)
        combos = np.array(list(itertools.product(*(range(len(p)) for p in pieces))))
        A = np.array([[pieces[j][k].A for j, k in enumerate(c)] for c in combos])
        beta = np.array([[pieces[j][k].beta for j, k in enumerate(c)] for c in combos])
        W = solve_cycle(A, beta)
        x = bust_vectors(W)[..., 0]
        inside = np.all([[pieces[j][k].lo - 1e-10 <= x[r, j] <= pieces[j][k].hi + 1e-10 for j, k in enumerate(c)] for r, c in enumerate(combos)], axis=1)
        plain = [tuple(int(k) for k in c) for c in combos[inside]]
        assert [e.choice for e in whole[0]] == [c for c in plain if c in {e.choice for e in whole[0]}]
        for r in np.flatnonzero(inside):  # each one found, or one with the same values within 1e-9
            assert any(np.max(np.abs(W[r] - e.W)) <= 1e-9 for e in whole[0])
        assert bool(plain) == bool(whole[0])
        seen["pure" if whole[0] else "mixed"] += bool(whole[0] or whole[1])
        seen["split"] += len(combos) > 100
    assert seen["pure"] > 5 and seen["mixed"] > 2 and seen["split"] > 10, seen


def test_cycles_cover_every_state_once():
    cyc = make_cycles(5, 3)
    members = cyc.members
    assert set(np.unique(members)) == set(range(125))
    assert np.all(np.diff(cyc.layer) <= 0)


@pytest.mark.slow
def test_pig_goal_100_cycles_without_pure_equilibrium_are_mixed_equilibria():
    """Three-player Pig to 100: the first cycles without a pure stationary equilibrium are those
    of (34, 57, 64) (both orders); at the selected mixed equilibrium every mixing mover is
    indifferent (the tie rule's best turn at his bust payoff is worth exactly his value) and no
    mover can gain (the best turn at his bust payoff is worth no more than his value)."""
    from jaxsolve.core.race_multi import _query

    rules = PigTableRules(players=3, goal=100)
    sol = pig_table.solve(rules)
    flat = sol.values.reshape(-1, 3)
    none = [u for u in sol.run.unsettled if u["pure"] == 0]
    first = sorted(np.unravel_index(none[0]["members"][0], (100,) * 3))
    assert first == [34, 57, 64]
    query = _query(pig_table.turn_function(rules), pig_table.operands(rules), 3, jnp.float64)
    for u in none:
        members = np.array(u["members"])
        W = flat[members]
        X = bust_vectors(W)
        V, _ = query(members, X, W=jnp.asarray(flat))
        # the best turn at each mover's bust payoff is worth exactly his value: nobody gains by
        # another policy, and a mixer is indifferent between his two
        assert np.max(np.abs(V[:, 0] - W[:, 0])) <= 1e-12
        assert abs(W.sum(axis=1) - 1).max() <= 1e-12


@pytest.mark.slow
def test_a_state_that_recurs_in_its_cycle_mixes_as_one():
    """Four-player Pig with a three-sided die where a 3 busts, to 12: the cycle of (0, 5, 0, 5)
    repeats after two moves, so its members 0 and 2 (and 1 and 3) are one state and play alike.
    It has no pure stationary equilibrium; the selected one has the state (5, 0, 5, 0) mix with
    one probability at both of its members, and there every mover's best turn at his bust payoff
    is worth exactly his value."""
    from jaxsolve.core.race_multi import _query

    rules = PigTableRules(players=4, goal=12, sides=3, bust=3)
    sol = pig_table.solve(rules)
    flat = sol.values.reshape(-1, 4)
    [u] = [u for u in sol.run.unsettled if u["pure"] == 0]
    members = np.array(u["members"])
    assert [list(np.unravel_index(m, (12,) * 4)) for m in members[:2]] == [[0, 5, 0, 5], [5, 0, 5, 0]]
    assert members[0] == members[2] and members[1] == members[3]
    assert u["selected"] == "mixed" and list(u["mixer"]) == [1, 3] and u["q"][0] == u["q"][1] and 0 < u["q"][0] < 1
    query = _query(pig_table.turn_function(rules), pig_table.operands(rules), 4, jnp.float64)
    W = flat[members]
    V, _ = query(members, bust_vectors(W), W=jnp.asarray(flat))
    assert np.max(np.abs(V[:, 0] - W[:, 0])) <= 1e-12
    assert abs(W.sum(axis=1) - 1).max() <= 1e-12


def _within_three_standard_errors(rules, games, seed):
    from jaxsolve.games.raab.table_simulate import simulate

    sol = pig_table.solve(rules)
    wins = simulate(rules, sol.values, sol.run.unsettled, games, seed=seed)
    rate = wins / wins.sum()
    se = np.sqrt(sol.start * (1 - sol.start) / games)
    assert wins.sum() == games
    assert np.all(np.abs(rate - sol.start) <= 3 * se), (rate, sol.start, se)


def test_simulated_games_match_the_values():
    _within_three_standard_errors(PigTableRules(players=3, goal=30), 100_000, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["pig-3", "raab-3"])
def test_a_million_simulated_three_player_games(preset):
    """Every seat's win rate in 1,000,000 games within 3 standard errors of its value (Pig to
    100 plays its mixed cycles by drawing each mixer's policy at the start of his turn)."""
    from jaxsolve.games.raab.table_rules import PRESETS

    _within_three_standard_errors(PRESETS[preset], 1_000_000, seed=11)


@pytest.mark.parametrize("players,goal,entry", [pytest.param(3, 500, 0, marks=pytest.mark.slow), pytest.param(3, 500, 200, marks=pytest.mark.slow), (4, 250, 150)])
def test_zehntausend_movers_value_by_the_duels_numpy_turn(players, goal, entry):
    """Each mover's own win probability is the best turn against his write and bust payoffs,
    computed by the duel's NumPy turn (``duel_numpy.turn_tables``, apart from the table's JAX
    scan): the rotation, the write and bust indices and the mover's optimisation."""
    from jaxsolve.games.zehntausend.duel_numpy import geometry, host_ops, turn_tables

    rules = TableRules(players=players, goal=goal, entry=entry)
    sol = _zt_solve(rules)
    geo = geometry(rules.duel)
    G, n = geo.G, players
    flat = sol.values.reshape(-1, n)
    states = np.array(list(np.ndindex(*(G,) * n)))
    idx = np.zeros(len(states), np.int64)
    for k in range(n):
        idx = idx * G + states[:, k]

    def at(s):
        out = np.zeros(len(s), np.int64)
        for k in range(n):
            out = out * G + s[:, k]
        return out

    p = np.arange(geo.H)
    a = states[:, 0]
    new = np.minimum(a[:, None] + p[None, :], G - 1)
    nxt = np.concatenate([np.repeat(states[:, None, 1:], geo.H, axis=1), new[..., None]], axis=-1)
    S = np.where(a[:, None] + p[None, :] >= G, 1.0, flat[at(nxt.reshape(-1, n)).reshape(len(states), geo.H), n - 1])
    if entry:
        S = np.where((a[:, None] == 0) & (p[None, :] < geo.entry), -np.inf, S)
    x = flat[at(np.roll(states, -1, axis=1)), n - 1]
    worst = 0.0
    for top in np.unique(G - a):
        rows = np.flatnonzero(G - a == top)
        V = turn_tables(S[rows], x[rows], int(top), host_ops(rules.duel.turn_rules), geo.reach)
        worst = max(worst, float(np.max(np.abs(V[:, 0, 6] - flat[idx[rows], 0]))))
    assert worst <= 1e-12


def test_numpy_turn_gives_each_movers_value():
    """The NumPy turn that advise, play and the loader use (``table_numpy``), at turn total 0,
    gives each mover's value of the engine's table."""
    rules = TableRules(players=4, goal=250, entry=150)
    sol = _zt_solve(rules)
    states = np.arange(rules.levels**4)
    np.testing.assert_allclose(zt_numpy.turn_values(rules, sol.values, states), sol.values.reshape(-1, 4)[:, 0], rtol=0, atol=1e-12)


@pytest.mark.slow
def test_numpy_turn_equals_the_jax_turn():
    """The NumPy turn's value vectors of every turn total and dice (``table_numpy.turn_scan``)
    equal the engine's JAX scan (``table.scan_vectors``) at a few states."""
    from jaxsolve.core.race_cycles import flat_index

    rules = TableRules(players=4, goal=250, entry=150)
    sol = _zt_solve(rules)
    z = zt_table.sizes(rules)
    W = jnp.asarray(sol.values.reshape(-1, 4))
    for scores in ((0, 0, 0, 0), (0, 2, 1, 4), (3, 0, 2, 1), (1, 4, 4, 0)):
        S = zt_table.write_vectors(W, jnp.asarray([scores]), z)
        X = jnp.roll(W[jnp.asarray([flat_index(np.array(scores[1:] + scores[:1]), z.G)])], 1, axis=-1)
        V, _ = zt_table.scan_vectors(S, X, z.G - scores[0], zt_table.table_ops(rules), z)
        V_np, S_np = zt_numpy.turn_scan(rules, sol.values, scores)
        rows = slice(0, (z.G - scores[0]) * NDIM)  # the rows the scan computes (above them: the writes)
        np.testing.assert_allclose(V_np[rows], np.asarray(V)[rows, 0], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(S_np, np.asarray(S)[0])


def test_float32_is_refused():
    import jax

    from jaxsolve.errors import JaxsolveError

    jax.config.update("jax_enable_x64", False)  # the suite's fixture switches it back on
    with pytest.raises(JaxsolveError, match="x64 mode is off"):
        pig_table.solve(PigTableRules(players=3, goal=5))


def _fake_mixers(G: int, players: int, states: list[int], q: float = 0.3) -> list[dict]:
    """An unsettled list that makes ``states`` mixing members (each his own cycle's only mixer)."""
    return [{"members": [s], "mixer": [0], "q": [q], "selected": "mixed", "scores": [int(v) * 50 for v in np.unravel_index(s, (G,) * players)]} for s in states]


@pytest.mark.parametrize("players,goal,entry", [(3, 500, 0), (4, 250, 150)])
def test_zehntausend_simulator_decides_as_the_played_table(players, goal, entry):
    """Every choice of the games played at once (``table_simulate.decide`` on its tables) is the
    played table's (``table_played``: ``throw_options`` and ``best_option``, the tie rule) at
    random positions (state, turn total, dice showing), under each state's own policy and a
    mixer's two either side of his breakpoint; its tables are the NumPy turn's, bit for bit."""
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.zehntausend import table_played, table_simulate
    from jaxsolve.games.zehntausend.scoring import check_reachable, parse_throw, write_points

    rules = TableRules(players=players, goal=goal, entry=entry)
    sol = _zt_solve(rules)
    G, S = rules.levels, rules.num_states
    rng = np.random.default_rng(5)
    mixers = sorted({int(s) for s in rng.integers(0, S, 25)} | {0})
    unsettled = _fake_mixers(G, players, mixers)
    t = table_simulate.sim_tables(rules, sol.values, unsettled)
    played = table_played.Table(rules, sol.values, unsettled)
    for s in (0, mixers[3], S - 1):  # the tables are the turn scan's
        scores = tuple(int(v) for v in np.unravel_index(s, (G,) * players))
        V, Sv = zt_numpy.turn_scan(rules, sol.values, scores)
        np.testing.assert_array_equal(t.throw_on[s][:, 1:], V[: (G + 1) * NDIM, 0].reshape(G + 1, NDIM)[:, 1:])
        np.testing.assert_array_equal(t.write[s], Sv[: G + 1, 0])
    turn_rules = rules.duel.turn_rules
    checked = {"write": 0, "aside": 0, "mixed": 0}
    while sum(checked.values()) < 1500:
        s = int(mixers[rng.integers(len(mixers))] if rng.random() < 0.3 else rng.integers(S))
        seen = tuple(int(v) for v in np.unravel_index(s, (G,) * players))
        p = int(rng.integers(0, G - seen[0]))
        n = int(rng.integers(1, 7))
        faces = tuple(sorted(int(f) for f in rng.integers(1, 7, n)))
        try:
            check_reachable(turn_rules, p * 50, n)
        except JaxsolveError:  # no turn has this total with these dice left
            continue
        if write_points(turn_rules, parse_throw(faces)) == 0:
            continue
        plan = 0 if s not in mixers else int(rng.integers(1, 3))
        state = table_played.TableState(tuple(v * 50 for v in seen), 0, p * 50, n, faces, plan)
        o = zt_numpy.best_option(played.options(state, plan))
        vrow = s if plan == 0 else S + 2 * mixers.index(s) + plan - 1
        code = int(parse_throw(faces) @ table_simulate.POW7)
        row = np.array([t.row_of[code]])
        choice, _ = table_simulate.decide(t, np.array([vrow]), np.array([s]), np.array([seen[0]]), np.array([p]), row)
        c = int(choice[0])
        if c == 0:
            got = ("write", 50 * (p + int(t.points[row[0]])), 0)
        else:
            got = ("aside", 50 * (p + int(t.aside[row[0], c - 1])), int(t.left[row[0], c - 1]))
        assert got == (o.action, o.points, o.dice if o.action == "aside" else 0), (seen, p, faces, plan)
        checked["mixed" if plan else o.action] += 1
    assert min(checked.values()) > 50, checked


def test_zehntausend_simulator_tie_rule_is_best_option():
    """The tie rule of the games played at once (``table_simulate.tie_rule``, the first largest
    or, within 1e-12 of another, option by option) takes the option ``best_option`` takes, on
    rows whose values lie 0 to 2e-12 apart (chains of near ties) and rows with unused options."""
    from jaxsolve.games.zehntausend.table_simulate import tie_rule

    rng = np.random.default_rng(2)
    vals = 0.5 + rng.integers(0, 5, (4000, 6)) * rng.choice([0.4e-12, 0.7e-12, 1.0e-12, 1.3e-12], (4000, 1))
    vals[rng.random(vals.shape) < 0.2] = -np.inf
    vals[:, 1] = np.where(np.isinf(vals[:, 1]), 0.5, vals[:, 1])  # an option in every row
    got = tie_rule(vals.copy())
    want = [int(zt_numpy.best_option([zt_numpy.ThrowOption(str(j), np.array([v]), "aside") for j, v in enumerate(row)]).label) for row in vals]
    assert got.tolist() == want
    assert sum(w != int(np.argmax(r)) for w, r in zip(want, vals)) > 100  # rows where the first largest is not the choice


def test_zehntausend_simulated_games_match_the_values_and_the_plain_games():
    """Three players to 500: each seat's win rate in 300,000 games played at once within 3
    standard errors of its value; with mixers drawing their policy each turn (the start and
    three states made mixing members), the games played at once and the plain games of
    ``table_played.simulate`` agree within 4 standard errors of their difference."""
    from jaxsolve.games.zehntausend import table_played, table_simulate

    rules = TableRules(players=3, goal=500)
    sol = _zt_solve(rules)
    games = 300_000
    wins = table_simulate.simulate(rules, sol.values, sol.run.unsettled, games, seed=3)
    se = np.sqrt(sol.start * (1 - sol.start) / games)
    assert wins.sum() == games
    assert np.all(np.abs(wins / games - sol.start) <= 3 * se), (wins / games, sol.start, se)
    mixed = _fake_mixers(rules.levels, 3, [0, 1, 10, 100], q=0.4)
    fast = table_simulate.simulate(rules, sol.values, mixed, games, seed=4)
    plain_games = 4_000
    plain = table_played.simulate(rules, sol.values, mixed, plain_games, seed=4)
    assert fast.sum() == games and plain.sum() == plain_games
    se_diff = np.sqrt(sol.start * (1 - sol.start) * (1 / games + 1 / plain_games))
    assert np.all(np.abs(fast / games - plain / plain_games) <= 4 * se_diff), (fast / games, plain / plain_games, se_diff)
    assert np.all(np.abs(fast / games - sol.start) <= 3 * se), (fast / games, sol.start, se)


def test_zehntausend_simulator_refuses_tables_too_large():
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.zehntausend.table_simulate import sim_tables

    with pytest.raises(JaxsolveError, match="GB of decision tables"):
        sim_tables(TableRules(players=4, goal=2000), np.zeros(1), [])


def _zt_stored(rules):
    """The table of ``rules`` from the solution cache, else solved there."""
    from jaxsolve.games import get_game

    return get_game("zehntausend-table").solution(rules, dtype="float64")


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["three-to-1000", "three-to-2000", "three-to-2000-350"])
def test_a_million_simulated_three_player_zehntausend_games(preset):
    """Every seat's win rate in 1,000,000 games within 3 standard errors of its value (three
    players to 2,000 plays its mixed cycle by drawing each mixer's policy at the start of his
    turn). Three players to 10,000 is not solved here (hours)."""
    from jaxsolve.games.zehntausend.table_rules import PRESETS
    from jaxsolve.games.zehntausend.table_simulate import simulate

    rules = PRESETS[preset]
    sol = _zt_stored(rules)
    games = 1_000_000
    wins = simulate(rules, np.asarray(sol.values), sol.unsettled, games, seed=11)
    rate = wins / games
    se = np.sqrt(sol.start * (1 - sol.start) / games)
    assert wins.sum() == games
    assert np.all(np.abs(rate - sol.start) <= 3 * se), (rate, sol.start, se)


def test_a_cycle_too_large_to_analyse_is_one_error_line():
    """More combinations of the movers' policies than the exact analysis enumerates: a
    ``JaxsolveError`` naming the count and the pieces per mover (one line on the command line)."""
    from jaxsolve.core.race_cycles import CycleTooLargeError, Piece, cycle_equilibria
    from jaxsolve.errors import JaxsolveError

    halves = [Piece(np.array([0.1, 0.1, 0.2]), 0.3, 0.0, 0.5), Piece(np.array([0.1, 0.1, 0.6]), 0.3, 0.5, 1.0)]
    with pytest.raises(CycleTooLargeError, match=r"needs more than 2 steps of its exact search \(pieces per mover: 2, 2, 2\)") as err:
        cycle_equilibria([halves, halves, halves], leaf=1, max_steps=2)
    assert isinstance(err.value, JaxsolveError) and "\n" not in str(err.value)


def test_a_stopped_walk_goes_on_from_its_checkpoint(tmp_path):
    """A walk stopped after a layer (here by its progress callback) and started again with the
    same checkpoint file gives the values of a walk without a stop, bit for bit; the file of
    another solve is refused, and the file is gone once the walk ends."""
    from jaxsolve.core.race_multi import solve_multi
    from jaxsolve.errors import JaxsolveError

    rules = PigTableRules(players=3, goal=12, sides=3, bust=3)

    def walk(rules, **kw):
        return solve_multi(("pig-table", rules), pig_table.turn_function(rules), make_cycles(rules.goal, rules.players), pig_table.operands(rules), chunk=8, **kw)

    whole = walk(rules)
    path = tmp_path / "walk.ckpt"

    class Stop(Exception):
        pass

    def stop_at(done, total):
        if done == total // 2:
            raise Stop

    with pytest.raises(Stop):
        walk(rules, checkpoint=path, checkpoint_every=0.0, progress=stop_at)
    assert path.exists()
    with pytest.raises(JaxsolveError, match="checkpoint of another solve"):
        walk(PigTableRules(players=3, goal=12, sides=3, bust=2), checkpoint=path)
    seen = []
    again = walk(rules, checkpoint=path, progress=lambda done, total: seen.append(done))
    assert seen[0] > 0  # it went on from the checkpoint, not from the top
    assert np.array_equal(again.values, whole.values) and again.unsettled == whole.unsettled
    assert not path.exists()
