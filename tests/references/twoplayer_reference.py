"""Independent two-player category game (both play to win) for tiny sheets: plain Python + NumPy.

Written from the game's description, not from the engine: a sheet is (open boxes, upper total
capped at the threshold, whether the Yahtzee box holds its 50), the players alternate turns,
and the value of a position for the player to move is the probability that he wins (a tie
counting ``tie`` for the player who started). A turn enumerates every ordered outcome of the
dice thrown and every subset of dice kept; filling a box after the last throw hands the game
to the other player with the lead negated. The recursion is memoised per pair of sheets and
whose turn it is, with the value held for every lead in ``[-R, R]`` at once (one NumPy vector
instead of one recursion per lead), R being more than both players can still score together:
a lead beyond it is decided (0 or 1) whatever happens.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations, product
from typing import Callable

import numpy as np

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def yahtzee_points(box: str, dice: tuple[int, ...]) -> int:
    """Points of a box of the Yahtzee sheet (normal scoring, no joker) for ``dice``."""
    c = Counter(dice)
    if box in UPPER:
        face = UPPER.index(box) + 1
        return face * c[face]
    if box == "three_kind":
        return sum(dice) if max(c.values()) >= 3 else 0
    if box == "four_kind":
        return sum(dice) if max(c.values()) >= 4 else 0
    if box == "full_house":
        return 25 if sorted(c.values()) == [2, 3] else 0
    if box == "kniffel":
        return 50 if len(c) == 1 else 0
    if box == "chance":
        return sum(dice)
    raise ValueError(box)


class TwoPlayer:
    """A two-player game of tiny sheets.

    ``points(box, dice)``: a box's points; ``dice``, ``throws``; ``tie``: what a tie is worth to
    the starter (the other gets ``1 - tie``); ``threshold`` / ``upper_bonus``: the upper bonus
    (paid once, when the upper boxes' total first reaches the threshold); ``all_same_box`` and
    ``extra_bonus``: while that box holds its points, every further throw of all dice alike pays
    the extra bonus, whichever box it fills (scored normally).
    """

    def __init__(self, points: Callable[[str, tuple], int], *, dice: int, throws: int = 3, tie: float = 0.5,
                 threshold: int = 1, upper_bonus: int = 0, all_same_box: str | None = None, extra_bonus: int = 0, reach: int = 0):
        self.points, self.dice, self.throws, self.tie = points, dice, throws, tie
        self.threshold, self.upper_bonus = threshold, upper_bonus
        self.all_same_box, self.extra_bonus = all_same_box, extra_bonus
        self.reach = reach  # R: leads kept are -R..R
        self.win = lru_cache(maxsize=None)(self._win)

    def lead_range(self) -> np.ndarray:
        return np.arange(-self.reach, self.reach + 1)

    def at(self, values: np.ndarray, leads: np.ndarray) -> np.ndarray:
        """``values`` (over -R..R) at any leads: 0 below, 1 above."""
        i = leads + self.reach
        inside = (i >= 0) & (i < len(values))
        return np.where(inside, values[np.clip(i, 0, len(values) - 1)], np.where(i < 0, 0.0, 1.0))

    def fill(self, sheet, box: str, dice: tuple[int, ...]):
        """``(points, next sheet)`` of filling ``box`` with ``dice``, bonuses included."""
        open_boxes, upper, holds = sheet
        got = self.points(box, dice)
        extra = self.extra_bonus if holds and len(set(dice)) == 1 else 0
        bonus = 0
        if box in UPPER:
            new_upper = min(self.threshold, upper + got)
            if upper < self.threshold <= new_upper:
                bonus = self.upper_bonus
            upper = new_upper
        if box == self.all_same_box and got > 0:
            holds = True
        return got + extra + bonus, (open_boxes - {box}, upper, holds)

    def _win(self, mine, theirs, starter_moves: bool) -> np.ndarray:
        """P(the player to move wins) for every lead -R..R (his points minus the other's)."""
        leads = self.lead_range()
        if not mine[0] and not theirs[0]:
            tie = self.tie if starter_moves else 1.0 - self.tie
            return np.where(leads > 0, 1.0, np.where(leads == 0, tie, 0.0))

        @lru_cache(maxsize=None)
        def write(throw: tuple[int, ...]) -> np.ndarray:
            best = None
            for box in sorted(mine[0]):
                r, after = self.fill(mine, box, throw)
                other = self.win(theirs, after, not starter_moves)
                v = 1.0 - self.at(other, -(leads + r))
                best = v if best is None else np.maximum(best, v)
            return best

        @lru_cache(maxsize=None)
        def best(throw: tuple[int, ...], left: int) -> np.ndarray:
            v = write(throw)
            if left:
                for size in range(self.dice + 1):
                    for kept in set(combinations(throw, size)):
                        v = np.maximum(v, rethrow(kept, left - 1))
            return v

        @lru_cache(maxsize=None)
        def rethrow(kept: tuple[int, ...], left: int) -> np.ndarray:
            outcomes = Counter(tuple(sorted(kept + o)) for o in product(range(1, 7), repeat=self.dice - len(kept)))
            total = sum(outcomes.values())
            return sum(n * best(t, left) for t, n in outcomes.items()) / total

        return rethrow((), self.throws - 1)

    def value(self, mine_open, theirs_open, lead: int = 0, *, mine_upper: int = 0, theirs_upper: int = 0, starter_moves: bool = True) -> float:
        """The value of one position (upper totals capped at the threshold, no box holding 50)."""
        mine = (frozenset(mine_open), min(mine_upper, self.threshold), False)
        theirs = (frozenset(theirs_open), min(theirs_upper, self.threshold), False)
        return float(self.at(self.win(mine, theirs, starter_moves), np.asarray([lead]))[0])

    def values(self, mine, theirs, starter_moves: bool = True) -> np.ndarray:
        """Over -R..R for full sheet states ``(open boxes, upper, holds)``."""
        return self.win((frozenset(mine[0]), mine[1], mine[2]), (frozenset(theirs[0]), theirs[1], theirs[2]), starter_moves)
