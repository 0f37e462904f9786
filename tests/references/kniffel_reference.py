"""Independent plain-Python Kniffel rules and recursion for reduced games (few dice, few boxes).

Written from the rule text, not from the engine: its own scoring, its own joker rules, ordered
dice outcomes enumerated with itertools.product (no multiset probabilities).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations, product

UPPER = range(6)
FH, SS, LS, KN, CH = 8, 9, 10, 11, 12


def normal_points(box: int, dice: tuple[int, ...]) -> int:
    c = Counter(dice)
    total = sum(dice)
    faces = set(dice)
    if box < 6:
        return (box + 1) * c[box + 1]
    if box == 6:
        return total if max(c.values()) >= 3 else 0
    if box == 7:
        return total if max(c.values()) >= 4 else 0
    if box == FH:
        return 25 if sorted(c.values()) == [2, 3] else 0
    if box == SS:
        return 30 if any({a, a + 1, a + 2, a + 3} <= faces for a in (1, 2, 3)) else 0
    if box == LS:
        return 40 if any({a, a + 1, a + 2, a + 3, a + 4} <= faces for a in (1, 2)) else 0
    if box == KN:
        return 50 if len(faces) == 1 else 0
    return total


def options(rules, dice, filled: frozenset, all_same_held: bool):
    """Legal (box, points, extra_bonus) for the final dice, per the rule text."""
    open_boxes = [b for b in range(13) if b not in filled]
    all_same = len(set(dice)) == 1
    face = dice[0]
    if not all_same or KN not in filled:
        return [(b, normal_points(b, dice), 0) for b in open_boxes]
    mode = rules.joker
    bonus = rules.extra_bonus if all_same_held else 0
    out = []
    if mode == "none":
        return [(b, normal_points(b, dice), bonus) for b in open_boxes]
    if mode == "forced":
        joker_pts = {FH: 25, SS: 30, LS: 40}
        if (face - 1) not in filled:
            candidates = [face - 1]
        elif any(b >= 6 for b in open_boxes):
            candidates = [b for b in open_boxes if b >= 6]
        else:
            candidates = open_boxes
        for b in candidates:
            out.append((b, joker_pts.get(b, normal_points(b, dice)), bonus))
        return out
    if mode == "free":
        jok = (face - 1) in filled
        for b in open_boxes:
            pts = {FH: 25, SS: 30, LS: 40}.get(b, 0) if (jok and b in (FH, SS, LS)) else normal_points(b, dice)
            out.append((b, pts, bonus))
        return out
    # "kniffel": joker only while the Kniffel box holds 50
    if not all_same_held:
        return [(b, normal_points(b, dice), 0) for b in open_boxes]
    for b in open_boxes:
        pts = {FH: 25, SS: 30, LS: 40}[b] if b in (FH, SS, LS) else normal_points(b, dice)
        paid = bonus if (rules.bonus_on_scratch or pts > 0) else 0
        out.append((b, pts, paid))
    return out


def game_value(rules, prefilled: frozenset, objective: str = "score") -> float:
    """Optimal value from the start of the reduced game (boxes in ``prefilled`` are closed)."""
    n = rules.dice
    cap = rules.upper_threshold

    @lru_cache(maxsize=None)
    def state(filled: frozenset, upper: int, all_same_held: bool) -> float:
        if len(filled) == 13:
            return 0.0

        @lru_cache(maxsize=None)
        def final(dice, first_throw=False):
            best = float("-inf")
            for b, pts, extra in options(rules, dice, filled, all_same_held):
                new_upper = min(cap, upper + pts) if b < 6 else upper
                bonus = rules.upper_bonus if (b < 6 and upper < cap <= new_upper) else 0
                if first_throw and pts > 0:  # "Im-Hieb": filled with points right after the first throw
                    bonus += rules.instant_all_same if b == KN else rules.instant_other
                new_holds = all_same_held or (b == KN and pts == 50)
                reward = pts + extra + bonus if objective == "score" else float(pts > 0)
                best = max(best, reward + state(filled | {b}, new_upper, new_holds))
            return best

        @lru_cache(maxsize=None)
        def keep_value(kept, throws_left):
            outcomes = list(product(range(1, 7), repeat=n - len(kept)))
            return sum(value(tuple(sorted(kept + o)), throws_left) for o in outcomes) / len(outcomes)

        @lru_cache(maxsize=None)
        def value(dice, throws_left):
            if throws_left == 0:
                return final(dice)
            best = final(dice)
            for size in range(n + 1):
                for pos in combinations(range(n), size):
                    kept = tuple(dice[i] for i in pos)
                    best = max(best, keep_value(kept, throws_left - 1))
            return best

        def first(dice):
            return max(value(dice, rules.throws - 1), final(dice, True))

        throws = list(product(range(1, 7), repeat=n))
        return sum(first(tuple(sorted(t))) for t in throws) / len(throws)

    return state(frozenset(prefilled), 0, False)
