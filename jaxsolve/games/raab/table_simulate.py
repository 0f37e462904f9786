"""The Pig family at a table from a solved table, in NumPy: one turn's options (``turn_options``,
for advise and play) and games played with random dice by N players who all follow the
solved equilibrium: each seat's win rate against its solved value.

The decisions are computed once from the solved values, for every state and turn total at once
(NumPy, a pass over the turn total from the goal down): bank where banking is within ``1e-12``
of rolling for the mover (the tie rule). At a state of a cycle whose selected equilibrium is
mixed, a mixing mover draws at the start of each turn which of his two policies he plays: the
one optimal just below his bust payoff (the breakpoint) with the probability the solve found,
else the one just above.
"""

from __future__ import annotations

import numpy as np

from jaxsolve.core.race_cycles import TIE, decode, flat_index
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab.table_rules import PigTableRules

NUDGE = 1e-9


def turn_options(rules: PigTableRules, values: np.ndarray, scores: tuple, turn: int) -> list[tuple[str, np.ndarray]]:
    """The value vectors of rolling and (with a turn total) banking at ``scores`` with ``turn``
    points this turn, the later rolls decided by the tie rule (``table.pig_turn`` in NumPy)."""
    G, n = rules.goal, rules.players
    a = scores[0]
    if a + turn >= G:
        raise JaxsolveError(f"a turn total of {turn} already reaches the goal {G}: bank it")
    win = np.zeros(n)
    win[0] = 1.0
    X = np.roll(values[tuple(scores[1:]) + (a,)], 1)

    def bank(p):
        return win if a + p >= G else np.roll(values[tuple(scores[1:]) + (a + p,)], 1)

    V = {p: win for p in range(G - a, G - a + rules.max_points + 1)}
    w = rules.weights
    roll = {}
    for p in range(G - a - 1, turn - 1, -1):
        r = rules.bust_prob * X + sum(w[k] * V[p + k + 1] for k in range(len(w)))
        roll[p] = r
        V[p] = bank(p) if p > 0 and bank(p)[0] >= r[0] - TIE else r
    options = [("roll", roll[turn])]
    if turn > 0:
        options.append((f"bank {turn}", bank(turn)))
    return options


def decisions(rules: PigTableRules, values: np.ndarray, x_shift: np.ndarray | None = None, states: np.ndarray | None = None) -> np.ndarray:
    """``bank [S, G]`` (``S``: ``states``, default every state): bank at turn total ``p``.

    ``x_shift [S]``: added to each mover's bust payoff (to find the policies either side of a
    breakpoint)."""
    return _turn(rules, values, x_shift, states)[0]


def turn_values(rules: PigTableRules, values: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The mover's value of his best turn (a turn starts with a roll) at each flat state of
    ``states``, his bust payoff read from ``values``: equal to ``values[state][0]`` in a solution
    (also at a mixed cycle, where each mixer is indifferent)."""
    return _turn(rules, values, None, states)[1]


def _turn(rules: PigTableRules, values: np.ndarray, x_shift: np.ndarray | None, states: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``(bank [S, G], the mover's turn-start value [S])`` by a pass over the turn total from the
    goal down (the tie rule: bank within ``1e-12``)."""
    G, n = rules.goal, rules.players
    flat = values.reshape(-1, n)
    states = np.arange(G**n) if states is None else np.asarray(states)
    s = decode(states, G, n)
    X = np.roll(flat[flat_index(np.roll(s, -1, axis=1), G)], 1, axis=1)[:, 0]
    if x_shift is not None:
        X = X + x_shift
    a = s[:, 0]
    w = rules.weights
    F = len(w)
    V = np.ones((G + F + 1, len(states)))  # the mover's value at turn total p (1 from the goal on)
    bank = np.zeros((len(states), G), bool)
    rest = s[:, 1:]
    for p in range(G - 1, 0, -1):
        nxt = np.concatenate([rest, np.minimum(a + p, G - 1)[:, None]], axis=1)
        b = np.where(a + p >= G, 1.0, flat[flat_index(nxt, G), n - 1])
        roll = rules.bust_prob * X + sum(w[k] * V[p + k + 1] for k in range(F))
        take = (b >= roll - TIE) | (a + p >= G)
        bank[:, p] = take
        V[p] = np.where(take, b, roll)
    start = rules.bust_prob * X + sum(w[k] * V[k + 1] for k in range(F))
    return bank, start


def simulate(rules: PigTableRules, values: np.ndarray, unsettled: list, games: int, seed: int = 0) -> np.ndarray:
    """Win counts per seat (seat 0 moves first) of ``games`` games."""
    G, n = rules.goal, rules.players
    rng = np.random.default_rng(seed)
    bank = decisions(rules, values)
    # mixed cycles: each mixing member's two policies and his probability of the left one
    mix_row = np.full(G**n, -1, np.int64)
    left_rows, right_rows, q_left = [], [], []
    for u in unsettled:
        if u["selected"] != "mixed":
            continue
        for i, q in zip(u["mixer"], u["q"]):
            state = np.array([u["members"][i]])
            left_rows.append(decisions(rules, values, np.array([-NUDGE]), state)[0])
            right_rows.append(decisions(rules, values, np.array([NUDGE]), state)[0])
            q_left.append(q)
            mix_row[state[0]] = len(q_left) - 1
    left = np.array(left_rows).reshape(-1, G)
    right = np.array(right_rows).reshape(-1, G)
    qs = np.array(q_left)
    scores = np.zeros((games, n), np.int64)
    mover = np.zeros(games, np.int64)
    p = np.zeros(games, np.int64)
    choice = np.zeros(games, np.int64)  # 0: the table's decisions, 1: left policy, 2: right policy
    winner = np.full(games, -1, np.int64)
    live = np.arange(games)
    points = np.array(rules.points)
    seats = np.arange(n)
    while len(live):
        g = live
        order = (mover[g][:, None] + seats[None, :]) % n
        seen = scores[g[:, None], order]
        state = flat_index(seen, G)
        start = p[g] == 0
        row = mix_row[state]
        draw = start & (row >= 0)
        if draw.any():
            pick = rng.random(int(draw.sum())) < qs[row[draw]]
            choice[g[draw]] = np.where(pick, 1, 2)
        choice[g[start & (row < 0)]] = 0
        pp = p[g]
        table_bank = bank[state, np.minimum(pp, G - 1)]
        mixed_bank = np.where(choice[g] == 1, left[np.maximum(row, 0), np.minimum(pp, G - 1)], right[np.maximum(row, 0), np.minimum(pp, G - 1)]) if len(qs) else table_bank
        banks = (pp > 0) & np.where(choice[g] == 0, table_bank, mixed_bank)
        # bank
        b = g[banks]
        total = scores[b, mover[b]] + p[b]
        scores[b, mover[b]] = np.minimum(total, G)
        winner[b[total >= G]] = mover[b[total >= G]]
        p[b] = 0
        mover[b] = (mover[b] + 1) % n
        # roll
        r = g[~banks]
        face = points[rng.integers(0, rules.sides, len(r))]
        bust = face == 0
        p[r[bust]] = 0
        mover[r[bust]] = (mover[r[bust]] + 1) % n
        grow = r[~bust]
        p[grow] += face[~bust]
        reach = grow[scores[grow, mover[grow]] + p[grow] >= G]  # the goal reached: bank it at once
        winner[reach] = mover[reach]
        live = live[winner[live] < 0]
    return np.bincount(winner, minlength=n)
