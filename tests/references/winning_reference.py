"""Independent plain-Python win probabilities at a table of players, for reduced games.

Written apart from the engine: the rule text of ``kniffel_reference`` (its own scoring and joker
rules), ordered dice outcomes (itertools.product), the opponents' final scores from
``kniffel_dist_reference.score_distribution`` (the score-optimal policy recomputed there).

* ``win_utility``: P(I finish first | my final score f) by enumerating every joint outcome of
  the opponents' final scores (ties: shared equally, counted as a win, or as a loss).
* ``Response``: the best response to a utility ``w[k]`` of the points ``k`` I score from here
  on. A state's value is a vector over the points scored so far ``p``:
  ``V[p] = max E[w(p + points still to come)]`` (terminal ``V = w``), so no target channel and
  no padding convention is shared with the engine.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product

import numpy as np

from kniffel_dist_reference import _moves, score_distribution


def opponent_final(rules, prefilled: frozenset, score: int, length: int) -> np.ndarray:
    """P(final score = s): ``score`` on the sheet, the open boxes played for expected points
    (filled boxes scratched, upper total 0, the all-same box not holding its points)."""
    rest = score_distribution(rules, prefilled, length)
    out = np.zeros(length + score)
    out[score:] = rest
    return out


def win_utility(finals: list[np.ndarray], length: int, ties: str = "share") -> np.ndarray:
    """``[length]``: P(I finish first | my final score f), every joint outcome enumerated."""
    supports = [[(s, float(p[s])) for s in np.flatnonzero(p)] for p in finals]
    out = np.zeros(length)
    for combo in product(*supports):
        prob = float(np.prod([p for _, p in combo]))
        scores = [s for s, _ in combo]
        top = max(scores)
        for f in range(length):
            if f > top:
                out[f] += prob
            elif f == top:
                tied = scores.count(f)
                out[f] += prob * {"share": 1.0 / (1 + tied), "win": 1.0, "lose": 0.0}[ties]
    return out


class Response:
    """Best response to ``w[k]`` (utility of k more points; past the end: ``w[-1]``)."""

    def __init__(self, rules, w: np.ndarray):
        self.rules = rules
        self.w = np.asarray(w, dtype=float)
        self.n = len(self.w)
        # one cache per instance (each utility its own values)
        self.state = lru_cache(maxsize=None)(self._state)
        self.final = lru_cache(maxsize=None)(self._final)
        self.keep = lru_cache(maxsize=None)(self._keep)
        self.value = lru_cache(maxsize=None)(self._value)

    def _after(self, r, nxt):
        v = self.state(*nxt)
        idx = np.minimum(np.arange(self.n) + r, self.n - 1)
        return v[idx]

    def _state(self, filled: frozenset, upper: int, all_same_held: bool) -> np.ndarray:
        """``V[p]`` at the start of a turn."""
        if len(filled) == 13:
            return self.w.copy()
        n = self.rules.dice
        throws = list(product(range(1, 7), repeat=n))
        return sum(self.first(filled, upper, all_same_held, tuple(sorted(t))) for t in throws) / len(throws)

    def _final(self, filled, upper, all_same_held, dice, first_throw=False) -> dict:
        """{box: V[p]} of filling each legal box with ``dice``."""
        return {b: self._after(r, nxt) for b, r, nxt in _moves(self.rules, dice, filled, upper, all_same_held, first_throw)}

    def _keep(self, filled, upper, all_same_held, kept, left) -> np.ndarray:
        outs = list(product(range(1, 7), repeat=self.rules.dice - len(kept)))
        return sum(self.value(filled, upper, all_same_held, tuple(sorted(kept + o)), left) for o in outs) / len(outs)

    def keeps(self, filled, upper, all_same_held, dice, left) -> dict:
        """{kept faces: V[p]} of every keep (re-throw the rest, ``left - 1`` re-throws after it)."""
        n = self.rules.dice
        kept = {tuple(sorted(dice[i] for i in pos)) for size in range(n + 1) for pos in combinations(range(n), size)}
        return {k: self.keep(filled, upper, all_same_held, k, left - 1) for k in kept}

    def _value(self, filled, upper, all_same_held, dice, left) -> np.ndarray:
        if left == 0:
            return np.max(list(self.final(filled, upper, all_same_held, dice).values()), axis=0)
        return np.max(list(self.keeps(filled, upper, all_same_held, dice, left).values()), axis=0)

    def first(self, filled, upper, all_same_held, dice) -> np.ndarray:
        rules = self.rules
        if rules.throws == 1:
            return np.max(list(self.final(filled, upper, all_same_held, dice, True).values()), axis=0)
        go = self.value(filled, upper, all_same_held, dice, rules.throws - 1)
        if rules.instant_all_same or rules.instant_other:
            go = np.maximum(go, np.max(list(self.final(filled, upper, all_same_held, dice, True).values()), axis=0))
        return go

    def options(self, filled: frozenset, dice: tuple, left: int, upper: int = 0, all_same_held: bool = False) -> dict:
        """{("box", b) or ("keep", faces): E[w(points from here)]} of one situation (p = 0): every
        legal box (filled now) and, with a re-throw left, every keep of fewer than all dice."""
        dice = tuple(sorted(dice))
        out: dict = {}
        first = left == self.rules.throws - 1 and bool(self.rules.instant_all_same or self.rules.instant_other)
        out.update({("box", b): float(v[0]) for b, v in self.final(filled, upper, all_same_held, dice, first).items()})
        if left > 0:
            kept = self.keeps(filled, upper, all_same_held, dice, left)
            out.update({("keep", k): float(v[0]) for k, v in kept.items() if len(k) < len(dice)})
        return out
