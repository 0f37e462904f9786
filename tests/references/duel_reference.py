"""Plain value iteration for the Zehntausend duel, written apart from the race-duel engine.

No layers, no bust-pair solve, no merged throw classes: every sweep evaluates one whole turn
for every turn-start state ``(ts, a, b)`` from the previous sweep's turn-start values (each
throw of ``n`` dice from the scoring tables' rows, every usable set-aside), and sweeps repeat
until no value moves by more than ``tol``. The last turn of the last-turn rule is its own small
recursion. Scores are in levels of 50.
"""

from __future__ import annotations

import numpy as np

from jaxsolve.games.zehntausend.scoring import build_tables

STEP = 50


def _rows(turn_rules):
    t = build_tables(turn_rules)
    out = {}
    for n in range(1, 7):
        r = t.rows(n)
        out[n] = (t.row_prob[r], t.write[r] // STEP, t.opt_points[r] // STEP, n - t.opt_dice[r], t.opt_valid[r])
    return out


def last_turn_probability(turn_rules, d: int, rows=None) -> float:
    """Best probability that one turn ends with at least ``d`` levels (write as soon as it does)."""
    rows = rows or _rows(turn_rules)
    memo = {}

    def R(p, n):
        if p >= d:
            return 1.0
        if n == 0:
            return R(p, 6)
        if (p, n) in memo:
            return memo[(p, n)]
        prob, write, pts, nxt, valid = rows[n]
        total = 0.0
        for i in range(len(prob)):
            if write[i] == 0:
                continue
            best = 1.0 if p + write[i] >= d else 0.0
            for j in np.flatnonzero(valid[i]):
                best = max(best, R(p + int(pts[i, j]), int(nxt[i, j])))
            total += prob[i] * best
        memo[(p, n)] = total
        return total

    return R(0, 6)


def solve_reference(goal: int, entry: int = 0, end: str = "first", bound: int | None = None, turn_rules=None, tol: float = 1e-14, max_sweeps: int = 2000):
    """Turn-start win probabilities ``W [T, G, G]`` of the duel, by plain value iteration."""
    from jaxsolve.games.zehntausend.rules import PRESETS

    turn_rules = turn_rules or PRESETS["peter-2013"]
    rows = _rows(turn_rules)
    G = goal // STEP
    last = end == "last-turn"
    Gb = (bound if bound is not None else goal + 2000) // STEP if last else G
    T = 2 if last else 1
    E = entry // STEP
    L = {}

    def write_value(W, ts, a, b, p):
        if a == 0 and p < E:
            return None  # not allowed: below the entry minimum
        final = min(a + p, Gb)
        if final >= G:
            if last and ts == 0:
                d = final - b + 1
                if d not in L:
                    L[d] = last_turn_probability(turn_rules, d, rows)
                return 1.0 - L[d]
            return 1.0
        other = 1 - ts if last else ts
        return 1.0 - W[other, b, final]

    reach = max(int(max(r[1].max(), r[2].max())) for r in rows.values())

    def turn(W, ts, a, b):
        other = 1 - ts if last else ts
        bust = 1.0 - W[other, b, a]
        top = Gb - a  # from here on: write
        size = top + reach + 1
        wv = np.array([-np.inf if (w := write_value(W, ts, a, b, p)) is None else w for p in range(size)])
        V = np.empty((size, 7))
        V[top:] = wv[top:, None]
        for p in range(top - 1, -1, -1):
            for n in range(1, 7):
                prob, write, pts, nxt, valid = rows[n]
                go_on = np.where(valid, V[p + pts, nxt], -np.inf).max(axis=1)
                best = np.maximum(wv[p + write], go_on)
                V[p, n] = prob @ np.where(write == 0, bust, best)
            V[p, 0] = max(wv[p], V[p, 6])
        return V[0, 6]

    W = np.full((T, G, G), 0.5)
    for sweep in range(max_sweeps):
        new = np.array([[[turn(W, ts, a, b) for b in range(G)] for a in range(G)] for ts in range(T)])
        change = np.max(np.abs(new - W))
        W = new
        if change <= tol:
            return W, sweep + 1
    raise RuntimeError(f"no convergence after {max_sweeps} sweeps")
