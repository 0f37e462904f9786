"""Independent plain-Python Maxi Yatzy for reduced games (few dice, few open boxes), saved throws included.

Written from the rule text (MaxiYatzy rules, maxiyahtzee.com), not from the engine: its own
scoring by box name, ordered dice outcomes enumerated with itertools.product, keeps as subsets
of dice positions, and the saved-throw rule as plain recursion.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations, product

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def points(box: str, dice: tuple[int, ...]) -> int:
    c = Counter(dice)
    faces = set(dice)
    if box in UPPER:
        f = UPPER.index(box) + 1
        return f * c[f]
    if box == "chance":
        return sum(dice)
    if box == "maxi_yatzy":
        return 100 if len(faces) == 1 else 0
    if box in ("small_straight", "large_straight", "full_straight"):
        need, pts = {"small_straight": ({1, 2, 3, 4, 5}, 15), "large_straight": ({2, 3, 4, 5, 6}, 20), "full_straight": (set(range(1, 7)), 21)}[box]
        return pts if need <= faces else 0
    kinds = {"one_pair": (2,), "three_of_a_kind": (3,), "four_of_a_kind": (4,), "five_of_a_kind": (5,), "two_pairs": (2, 2),
             "three_pairs": (2, 2, 2), "full_house": (3, 2), "villa": (3, 3), "tower": (4, 2)}[box]
    best = 0
    for chosen in product(range(1, 7), repeat=len(kinds)):
        if len(set(chosen)) < len(chosen):
            continue  # every group of a box needs a face of its own
        if all(c[f] >= k for f, k in zip(chosen, kinds)):
            best = max(best, sum(f * k for f, k in zip(chosen, kinds)))
    return best


def game_value(open_boxes: tuple[str, ...], *, dice: int, threshold: int, bonus: int = 100, throws: int = 3, max_saved: int = 0, saved: int = 0) -> float:
    """Optimal expected score still to come with ``open_boxes`` open, upper total 0, ``saved`` throws saved.

    A turn brings ``throws`` throws, the first is compulsory; the throws a turn does not use are
    saved, at most ``max_saved`` of them carried into the next turn.
    """

    @lru_cache(maxsize=None)
    def state(open_: frozenset, upper: int, saved: int) -> float:
        if not open_:
            return 0.0
        left = saved + throws - 1
        outcomes = list(product(range(1, 7), repeat=dice))
        return sum(throw(tuple(sorted(d)), left, open_, upper) for d in outcomes) / len(outcomes)

    @lru_cache(maxsize=None)
    def fill(d: tuple, left: int, open_: frozenset, upper: int) -> float:
        best = float("-inf")
        for box in open_:
            pts = points(box, d)
            new_upper = upper
            extra = 0
            if box in UPPER:
                new_upper = min(threshold, upper + pts)
                extra = bonus if upper < threshold <= upper + pts else 0
            best = max(best, pts + extra + state(open_ - {box}, new_upper, min(left, max_saved)))
        return best

    @lru_cache(maxsize=None)
    def throw(d: tuple, left: int, open_: frozenset, upper: int) -> float:
        best = fill(d, left, open_, upper)
        if left == 0:
            return best
        seen = set()
        for k in range(len(d) + 1):
            for idx in combinations(range(len(d)), k):
                kept = tuple(sorted(d[i] for i in idx))
                if kept in seen:
                    continue
                seen.add(kept)
                outs = list(product(range(1, 7), repeat=len(d) - k))
                val = sum(throw(tuple(sorted(kept + o)), left - 1, open_, upper) for o in outs) / len(outs)
                best = max(best, val)
        return best

    return state(frozenset(open_boxes), 0, saved)
