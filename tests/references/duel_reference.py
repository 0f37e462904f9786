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


class _Duel:
    """The rules in levels, the raw throws and the last-turn probabilities met so far."""

    def __init__(self, goal: int, entry: int = 0, end: str = "first", bound: int | None = None, turn_rules=None):
        from jaxsolve.games.zehntausend.rules import PRESETS

        self.turn_rules = turn_rules or PRESETS["peter-2013"]
        self.rows = _rows(self.turn_rules)
        self.G = goal // STEP
        self.last = end == "last-turn"
        self.Gb = (bound if bound is not None else goal + 2000) // STEP if self.last else self.G
        self.T = 2 if self.last else 1
        self.E = entry // STEP
        self.L: dict = {}
        self.reach = max(int(max(r[1].max(), r[2].max())) for r in self.rows.values())

    def write_value(self, W, ts, a, b, p):
        if a == 0 and p < self.E:
            return None  # not allowed: below the entry minimum
        final = min(a + p, self.Gb)
        if final >= self.G:
            if self.last and ts == 0:
                d = final - b + 1
                if d not in self.L:
                    self.L[d] = last_turn_probability(self.turn_rules, d, self.rows)
                return 1.0 - self.L[d]
            return 1.0
        other = 1 - ts if self.last else ts
        return 1.0 - W[other, b, final]

    def throw_on(self, W, ts, a, b, tol=1e-15):
        """``U [7]``: throwing ``n`` dice on with a turn total at or past the state bound (where
        every write is worth the same), by value iteration over the raw throws; ``U[0]``: all six
        used, write or throw six."""
        other = 1 - ts if self.last else ts
        bust = 1.0 - W[other, b, a]
        s = self.write_value(W, ts, a, b, self.Gb - a)
        U = np.full(7, s)
        for _ in range(1000):
            new = np.empty(7)
            for n in range(1, 7):
                prob, write, _pts, nxt, valid = self.rows[n]
                go_on = np.where(valid, U[nxt], -np.inf).max(axis=1)
                new[n] = prob @ np.where(write == 0, bust, np.maximum(s, go_on))
            new[0] = max(s, new[6])
            if np.max(np.abs(new - U)) <= tol:
                return new
            U = new
        raise RuntimeError("throwing on past the bound: no convergence")

    def turn(self, W, ts, a, b):
        """``V [size, 7]`` and the write values ``wv [size]`` of the turn at ``(ts, a, b)``, for
        turn totals ``p`` up to the bound plus one throw's most."""
        other = 1 - ts if self.last else ts
        bust = 1.0 - W[other, b, a]
        top = self.Gb - a  # from here on every write is worth the same
        size = top + self.reach + 1
        wv = np.array([-np.inf if (w := self.write_value(W, ts, a, b, p)) is None else w for p in range(size)])
        V = np.empty((size, 7))
        V[top:] = self.throw_on(W, ts, a, b)
        for p in range(top - 1, -1, -1):
            for n in range(1, 7):
                prob, write, pts, nxt, valid = self.rows[n]
                go_on = np.where(valid, V[p + pts, nxt], -np.inf).max(axis=1)
                best = np.maximum(wv[p + write], go_on)
                V[p, n] = prob @ np.where(write == 0, bust, best)
            V[p, 0] = max(wv[p], V[p, 6])
        return V, wv


_DUELS: dict = {}


def _duel(*key) -> _Duel:
    if key not in _DUELS:
        _DUELS[key] = _Duel(*key)
    return _DUELS[key]


def solve_reference(goal: int, entry: int = 0, end: str = "first", bound: int | None = None, turn_rules=None, tol: float = 1e-14, max_sweeps: int = 2000):
    """Turn-start win probabilities ``W [T, G, G]`` of the duel, by plain value iteration."""
    duel = _Duel(goal, entry, end, bound, turn_rules)
    W = np.full((duel.T, duel.G, duel.G), 0.5)
    for sweep in range(max_sweeps):
        new = np.array([[[duel.turn(W, ts, a, b)[0][0, 6] for b in range(duel.G)] for a in range(duel.G)] for ts in range(duel.T)])
        change = np.max(np.abs(new - W))
        W = new
        if change <= tol:
            return W, sweep + 1
    raise RuntimeError(f"no convergence after {max_sweeps} sweeps")


def option_values(W, counts, mine: int, theirs: int, turn: int, they_started: bool = False, *, goal: int, entry: int = 0, end: str = "first", bound: int | None = None, turn_rules=None) -> dict:
    """Every option of the throw ``counts`` (dice per face 1..6) at a position, from the
    reference's solved ``W``: ``{("write", total): value, ("aside", total, dice to throw): value}``
    (points, not levels). Their score at or past the goal: the last turn, which must end with
    more than their score."""
    duel = _duel(goal, entry, end, bound, turn_rules)
    t = build_tables(duel.turn_rules)
    n = int(np.sum(counts))
    prob, write, pts, nxt, valid = duel.rows[n]
    row = int(np.flatnonzero(t.rows(n) == t.row_index(np.asarray(counts)))[0])
    p = turn // STEP
    if theirs >= goal:
        need = (theirs - mine) // STEP + 1
        won = lambda q: 1.0 if q >= need else 0.0  # noqa: E731
        values = {("write", turn + STEP * int(write[row])): won(p + int(write[row]))}
        for j in np.flatnonzero(valid[row]):
            q, m = p + int(pts[row, j]), int(nxt[row, j])
            values[("aside", STEP * q, m or 6)] = last_turn_throw(duel, need, q, m or 6)
        return values
    ts = int(they_started and duel.last)
    a, b = mine // STEP, theirs // STEP
    V, wv = duel.turn(W, ts, a, b)
    top = len(wv) - 1
    values = {}
    w = wv[min(p + int(write[row]), top)]
    if np.isfinite(w):
        values[("write", turn + STEP * int(write[row]))] = float(w)
    for j in np.flatnonzero(valid[row]):
        q, m = p + int(pts[row, j]), int(nxt[row, j])
        values[("aside", STEP * q, m or 6)] = float(V[min(q, top), m or 6])
    return values


def last_turn_throw(duel: _Duel, need: int, p: int, n: int) -> float:
    """The last turn: the probability to end with at least ``need`` levels when throwing ``n``
    dice on from ``p`` (past ``need`` only a bust loses: the write then wins)."""
    prob, write, pts, nxt, valid = duel.rows[n]
    total = 0.0
    for i in range(len(prob)):
        if write[i] == 0:
            continue
        best = 1.0 if p + write[i] >= need else 0.0
        if best < 1.0:
            for j in np.flatnonzero(valid[i]):
                best = max(best, last_turn_throw(duel, need, p + int(pts[i, j]), int(nxt[i, j]) or 6))
        total += prob[i] * best
    return total
