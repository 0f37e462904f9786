"""Independent plain-Python score distributions and beat-a-score probabilities for reduced games.

Uses the rule text of ``kniffel_reference`` (its own scoring and joker rules) and ordered dice
outcomes (itertools.product). A state's distribution is a NumPy vector over remaining points.

* ``score_distribution``: the score-optimal policy (values recomputed here), walked with
  distributions. Ties: the earlier box, the keep with more dice; a tie between choices whose
  distributions differ raises ``Ambiguous`` (the engine's float argmax may then pick either).
* ``target_table``: max over choices of P(at least t more points), per t (no policy ties matter).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product

import numpy as np

from kniffel_reference import KN, options

TOL = 1e-11


class Ambiguous(Exception):
    """Two optimal choices lead to different distributions."""


def _moves(rules, dice, filled, upper, all_same_held, first_throw):
    """(box, reward, next state) of every legal final choice."""
    cap = rules.upper_threshold
    out = []
    for b, pts, extra in options(rules, dice, filled, all_same_held):
        new_upper = min(cap, upper + pts) if b < 6 else upper
        bonus = rules.upper_bonus if (b < 6 and upper < cap <= new_upper) else 0
        if first_throw and pts > 0:
            bonus += rules.instant_all_same if b == KN else rules.instant_other
        out.append((b, pts + extra + bonus, (filled | {b}, new_upper, all_same_held or (b == KN and pts == 50))))
    return out


def _shift(vec, r):
    out = np.zeros_like(vec)
    out[r:] = vec[: len(vec) - r]
    return out


def _pick(cands, what):
    """``cands``: list of (value, distribution) in preference order; the first best, tie-checked."""
    best = max(v for v, _ in cands)
    tied = [d for v, d in cands if v >= best - TOL]
    for d in tied[1:]:
        if not np.allclose(d, tied[0], atol=1e-12):
            raise Ambiguous(what)
    return best, tied[0]


def score_distribution(rules, prefilled: frozenset, length: int) -> np.ndarray:
    """Distribution of the final score from the start (boxes in ``prefilled`` closed)."""
    n = rules.dice

    @lru_cache(maxsize=None)
    def state(filled, upper, all_same_held):
        """(value, distribution) of a state at the start of a turn."""
        if len(filled) == 13:
            d = np.zeros(length)
            d[0] = 1.0
            return 0.0, d

        @lru_cache(maxsize=None)
        def final(dice, first_throw=False):
            cands = []
            for _box, r, nxt in _moves(rules, dice, filled, upper, all_same_held, first_throw):
                v, d = state(*nxt)
                cands.append((r + v, _shift(d, r)))
            return _pick(cands, f"box {filled} {dice}")

        @lru_cache(maxsize=None)
        def keep(kept, left):
            outs = list(product(range(1, 7), repeat=n - len(kept)))
            parts = [value(tuple(sorted(kept + o)), left) for o in outs]
            return sum(v for v, _ in parts) / len(outs), sum(d for _, d in parts) / len(outs)

        @lru_cache(maxsize=None)
        def value(dice, left):
            if left == 0:
                return final(dice)
            kept = {tuple(sorted(dice[i] for i in pos)) for size in range(n + 1) for pos in combinations(range(n), size)}
            order = sorted(kept, key=len, reverse=True)
            return _pick([keep(k, left - 1) for k in order], f"keep {filled} {dice}")

        def first(dice):
            go = value(dice, rules.throws - 1) if rules.throws > 1 else final(dice, True)
            if rules.throws > 1 and (rules.instant_all_same or rules.instant_other):
                now = final(dice, True)
                if now[0] > go[0] + TOL:
                    return now
                if now[0] >= go[0] - TOL and not np.allclose(now[1], go[1], atol=1e-12):
                    raise Ambiguous("instant stop")
            return go

        throws = [first(tuple(sorted(t))) for t in product(range(1, 7), repeat=n)]
        return sum(v for v, _ in throws) / len(throws), sum(d for _, d in throws) / len(throws)

    return state(frozenset(prefilled), 0, False)[1]


def target_table(rules, prefilled: frozenset, length: int, terminal=None) -> np.ndarray:
    """``[length]``: max probability of scoring at least t points from the start, t = 0..length-1;
    with ``terminal`` (a vector over t), the best expected ``terminal[max(t - points, 0)]``."""
    return target_states(rules, length, terminal)(frozenset(prefilled), 0, False)


def target_states(rules, length: int, terminal=None):
    """``state(filled, upper, all_same_held) -> [length]``: ``target_table``'s vector of any
    state (``filled`` a frozenset of boxes, ``upper`` capped at the threshold), memoised."""
    n = rules.dice
    ts = np.arange(length)
    end = (ts <= 0).astype(float) if terminal is None else np.asarray(terminal, float)

    @lru_cache(maxsize=None)
    def state(filled, upper, all_same_held):
        if len(filled) == 13:
            return end

        def after(r, nxt):
            v = state(*nxt)
            out = np.full(length, v[0])
            out[r:] = v[: length - r]
            return out

        @lru_cache(maxsize=None)
        def final(dice, first_throw=False):
            return np.max([after(r, nxt) for _, r, nxt in _moves(rules, dice, filled, upper, all_same_held, first_throw)], axis=0)

        @lru_cache(maxsize=None)
        def keep(kept, left):
            outs = list(product(range(1, 7), repeat=n - len(kept)))
            return sum(value(tuple(sorted(kept + o)), left) for o in outs) / len(outs)

        @lru_cache(maxsize=None)
        def value(dice, left):
            if left == 0:
                return final(dice)
            kept = {tuple(sorted(dice[i] for i in pos)) for size in range(n + 1) for pos in combinations(range(n), size)}
            return np.max([keep(k, left - 1) for k in kept], axis=0)

        def first(dice):
            if rules.throws == 1:
                return final(dice, True)
            go = value(dice, rules.throws - 1)
            if rules.instant_all_same or rules.instant_other:
                go = np.maximum(go, final(dice, True))
            return go

        throws = list(product(range(1, 7), repeat=n))
        return sum(first(tuple(sorted(t))) for t in throws) / len(throws)

    return state
