"""Independent plain-Python Scandinavian Yatzy for reduced games (few dice, few open boxes).

Written from the rule text, not from the engine: its own scoring by box name, ordered dice
outcomes enumerated with itertools.product, free or forced (score-card) order.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations, product

BOXES = (
    "ones", "twos", "threes", "fours", "fives", "sixes", "one_pair", "two_pairs", "three_of_a_kind",
    "four_of_a_kind", "small_straight", "large_straight", "full_house", "chance", "yatzy",
)  # fmt: skip


def points(box: str, dice: tuple[int, ...], *, fh5: bool = False, tp4: bool = False, tp1: bool = False) -> int:
    """Points of ``box`` for ``dice`` under the Scandinavian rules (``fh5``, ``tp4``: the variants;
    ``tp1``: a single pair also scores in two pairs)."""
    c = Counter(dice)
    if box in BOXES[:6]:
        face = BOXES.index(box) + 1
        return face * c[face]
    if box == "one_pair":
        return max((2 * f for f in c if c[f] >= 2), default=0)
    if box == "two_pairs":
        pairs = sorted((f for f in c if c[f] >= 2), reverse=True)
        best = 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 2 * pairs[0] if (tp1 and pairs) else 0
        if tp4:
            best = max([best] + [4 * f for f in c if c[f] >= 4])
        return best
    if box == "three_of_a_kind":
        return max((3 * f for f in c if c[f] >= 3), default=0)
    if box == "four_of_a_kind":
        return max((4 * f for f in c if c[f] >= 4), default=0)
    if box == "small_straight":
        return 15 if {1, 2, 3, 4, 5} <= set(dice) else 0
    if box == "large_straight":
        return 20 if {2, 3, 4, 5, 6} <= set(dice) else 0
    if box == "full_house":
        shape = sorted(c.values())
        return sum(dice) if shape == [2, 3] or (fh5 and shape == [5]) else 0
    if box == "chance":
        return sum(dice)
    if box == "yatzy":
        return 50 if len(c) == 1 else 0
    raise ValueError(box)


def game_value(prefilled, *, dice: int, threshold: int, bonus: int = 50, throws: int = 3, forced: bool = False, fh5: bool = False, tp4: bool = False) -> float:
    """Optimal expected score from the start with the boxes in ``prefilled`` (names) closed."""

    @lru_cache(maxsize=None)
    def state(filled: frozenset, upper: int) -> float:
        open_boxes = [b for b in BOXES if b not in filled]
        if not open_boxes:
            return 0.0
        choices = open_boxes[:1] if forced else open_boxes

        @lru_cache(maxsize=None)
        def final(throw):
            best = float("-inf")
            for b in choices:
                p = points(b, throw, fh5=fh5, tp4=tp4)
                new_upper = upper + p if b in BOXES[:6] else upper
                extra = bonus if upper < threshold <= new_upper else 0
                best = max(best, p + extra + state(filled | {b}, min(new_upper, threshold)))
            return best

        @lru_cache(maxsize=None)
        def keep_value(kept, throws_left):
            outcomes = list(product(range(1, 7), repeat=dice - len(kept)))
            return sum(value(tuple(sorted(kept + o)), throws_left) for o in outcomes) / len(outcomes)

        @lru_cache(maxsize=None)
        def value(throw, throws_left):
            best = final(throw)
            if throws_left:
                for size in range(dice):
                    for pos in combinations(range(dice), size):
                        best = max(best, keep_value(tuple(throw[i] for i in pos), throws_left - 1))
            return best

        first_throws = list(product(range(1, 7), repeat=dice))
        return sum(value(tuple(sorted(t)), throws - 1) for t in first_throws) / len(first_throws)

    return state(frozenset(prefilled), 0)
