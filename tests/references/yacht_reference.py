"""Independent plain-Python Yacht for reduced games (few dice, few open boxes).

Written from the rule text (the Exercism exercise "yacht", exercism/problem-specifications,
2017; C. Wood and G. Goddard, "The Complete Book of Games", 1938, as the Wikipedia article
"Yacht (dice game)" retells it), not from the engine: its own scoring by box name, every
ordered outcome of the dice thrown enumerated, every subset of dice kept tried.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations, product

BOXES = (
    "ones", "twos", "threes", "fours", "fives", "sixes",
    "full_house", "four_of_a_kind", "little_straight", "big_straight", "choice", "yacht",
)  # fmt: skip


def points(box: str, dice: tuple[int, ...]) -> int:
    """Points of ``box`` for the faces ``dice`` (0 where the dice do not fit the box; with fewer
    than five dice, as in reduced games, no straight and no full house can be made)."""
    counts = Counter(dice)
    if box in BOXES[:6]:
        face = BOXES.index(box) + 1
        return face * counts[face]
    if box == "full_house":  # three of one face and two of another: five of a kind is not one
        return sum(dice) if sorted(counts.values()) == [2, 3] else 0
    if box == "four_of_a_kind":  # the four dice of that face only
        return next((4 * face for face, n in counts.items() if n >= 4), 0)
    if box == "little_straight":
        return 30 if sorted(dice) == [1, 2, 3, 4, 5] else 0
    if box == "big_straight":
        return 30 if sorted(dice) == [2, 3, 4, 5, 6] else 0
    if box == "choice":
        return sum(dice)
    if box == "yacht":  # every die showing one face (with fewer dice in reduced games too)
        return 50 if len(counts) == 1 else 0
    raise ValueError(box)


def game_value(open_boxes: tuple[str, ...], *, dice: int, throws: int = 3) -> float:
    """Optimal expected score of filling ``open_boxes`` with ``dice`` dice, ``throws`` a turn."""

    @lru_cache(maxsize=None)
    def rest(left: frozenset) -> float:
        if not left:
            return 0.0

        @lru_cache(maxsize=None)
        def write(throw: tuple[int, ...]) -> float:
            return max(points(b, throw) + rest(left - {b}) for b in left)

        @lru_cache(maxsize=None)
        def best(throw: tuple[int, ...], throws_left: int) -> float:
            value = write(throw)
            if throws_left:
                for size in range(dice):
                    for kept in set(combinations(throw, size)):
                        value = max(value, rethrow(kept, throws_left - 1))
            return value

        @lru_cache(maxsize=None)
        def rethrow(kept: tuple[int, ...], throws_left: int) -> float:
            outcomes = list(product(range(1, 7), repeat=dice - len(kept)))
            return sum(best(tuple(sorted(kept + o)), throws_left) for o in outcomes) / len(outcomes)

        return rethrow((), throws - 1)

    return rest(frozenset(open_boxes))
