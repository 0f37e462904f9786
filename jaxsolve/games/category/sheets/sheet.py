"""Score sheets as data: the boxes of a category game and the points of every throw.

A sheet is a tuple of ``Box`` values. Each box has a name (plus aliases a person may type), a
section and a scoring rule applied to the dice counts of a throw:

* ``face``: the sum of the dice showing face ``param[0]`` (the upper section);
* ``groups``: distinct faces with at least ``param[i]`` dice each (one pair = ``(2,)``, two
  pairs = ``(2, 2)``, full house = ``(3, 2)``, four of a kind = ``(4,)`` ...); it scores the
  sum of the dice used (the best choice of faces), all dice with ``total``, or ``points``.
  With ``distinct=False`` the groups may share a face (two pairs from four of a kind, a full
  house from five of a kind: the dice of one face are split between the groups). With
  ``min_groups=k`` the first ``k`` groups suffice and each further group found adds its dice
  (a "two pairs" box that also takes a single pair: ``(2, 2)``, ``min_groups=1``);
* ``straight``: one die each of every face of any set in ``param`` (faces 1..6 written as a
  number: ``(1234, 2345, 3456)`` is any four in a row); it scores ``points`` (or the sum);
* ``all_same``: all dice show one face (a Yahtzee, Kniffel or Yatzy); it scores ``points``;
* ``chance``: the sum of all dice.

``joker_points`` is what a lower box pays when an all-same throw is placed there as a joker (the
American rule pays fixed 25 / 30 / 40 for the full house and the straights); ``None`` means
the box is scored normally.

The engine requires the first six boxes to be the upper section, faces 1..6 in order, and at
most one ``all_same`` box (the one the joker and extra-bonus rules refer to).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from typing import Literal

import numpy as np

from jaxsolve.core.rules import RulesError

Kind = Literal["face", "groups", "straight", "all_same", "chance"]
KINDS = ("face", "groups", "straight", "all_same", "chance")
FACES = np.arange(1, 7)


@dataclasses.dataclass(frozen=True)
class Box:
    """One box of a score sheet (see the module docstring for the scoring rules)."""

    name: str
    kind: str
    param: tuple = ()
    points: int | None = None
    total: bool = False
    joker_points: int | None = None
    aliases: tuple = ()
    distinct: bool = True
    min_groups: int | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise RulesError(f"box {self.name!r}: unknown scoring kind {self.kind!r}; choose one of {', '.join(KINDS)}")
        if self.min_groups is not None and (self.kind != "groups" or not 1 <= self.min_groups <= len(self.param)):
            raise RulesError(f"box {self.name!r}: min_groups must be between 1 and the number of groups of a 'groups' box")

    @property
    def section(self) -> str:
        return "upper" if self.kind == "face" else "lower"

    def score(self, counts) -> np.ndarray:
        """Points of this box for dice ``counts`` ``[..., 6]`` (normal scoring, no joker)."""
        counts = np.asarray(counts, dtype=np.int64)
        flat = counts.reshape(-1, 6)
        out = np.array([_score_one(self, tuple(int(x) for x in c)) for c in flat], dtype=np.int64)
        return out.reshape(counts.shape[:-1])

    def max_points(self, dice: int) -> int:
        """Most points the box can take with ``dice`` dice (joker points included)."""
        best = max(_score_one(self, c) for c in _all_counts(dice))
        return max(best, self.joker_points or 0)


@functools.lru_cache(maxsize=None)
def _all_counts(dice: int) -> tuple:
    out = []
    for combo in itertools.combinations_with_replacement(range(6), dice):
        c = [0] * 6
        for f in combo:
            c[f] += 1
        out.append(tuple(c))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _score_one(box: Box, c: tuple) -> int:
    total = sum(n * f for n, f in zip(c, FACES.tolist()))
    if box.kind == "face":
        f = box.param[0]
        return c[f - 1] * f
    if box.kind == "chance":
        return total
    if box.kind == "all_same":
        dice = sum(c)
        return int(box.points if box.points is not None else total) if dice and max(c) == dice else 0
    if box.kind == "straight":
        for faces in box.param:
            need = [int(d) for d in str(faces)]
            if all(c[f - 1] >= 1 for f in need):
                return int(box.points) if box.points is not None else sum(need)
        return 0
    best = -1
    for k in range(box.min_groups or len(box.param), len(box.param) + 1):
        groups = box.param[:k]
        choices = itertools.permutations(range(6), k) if box.distinct else itertools.product(range(6), repeat=k)
        for faces in choices:
            need = [0] * 6
            for f, size in zip(faces, groups):
                need[f] += size
            if all(c[f] >= n for f, n in enumerate(need)):
                best = max(best, sum((f + 1) * size for f, size in zip(faces, groups)))
    if best < 0:
        return 0
    if box.points is not None:
        return int(box.points)
    return total if box.total else best


def face_boxes(names=("aces", "twos", "threes", "fours", "fives", "sixes"), aliases=None) -> tuple[Box, ...]:
    """The upper section: six ``face`` boxes."""
    aliases = aliases or [()] * 6
    return tuple(Box(n, "face", (f,), aliases=tuple(a)) for f, (n, a) in enumerate(zip(names, aliases), start=1))


def check_sheet(boxes: tuple[Box, ...]) -> None:
    """The layout the engine needs: faces 1..6 first, at most one ``all_same`` box, unique names."""
    if not 7 <= len(boxes) <= 24:
        raise RulesError(f"a score sheet needs 7 to 24 boxes, got {len(boxes)}")
    for f, box in enumerate(boxes[:6], start=1):
        if box.kind != "face" or box.param != (f,):
            raise RulesError(f"box {f} must be the upper box of face {f}, got {box.name!r}")
    if any(box.kind == "face" for box in boxes[6:]):
        raise RulesError("only the first six boxes may be upper (face) boxes")
    if sum(box.kind == "all_same" for box in boxes) > 1:
        raise RulesError("a sheet has at most one all_same box")
    names = [n for box in boxes for n in (box.name,) + tuple(box.aliases)]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise RulesError(f"box names must be unique, repeated: {', '.join(dup)}")


# The English names of the upper boxes on the Scandinavian sheets (Yatzy, Maxi Yatzy).
UPPER_NAMES = ("ones", "twos", "threes", "fours", "fives", "sixes")
UPPER_ALIASES = (
    ("1", "1s", "aces", "ettor", "enere"),
    ("2", "2s", "tvaor", "tvåor", "toere"),
    ("3", "3s", "treor", "treere"),
    ("4", "4s", "fyror", "firere"),
    ("5", "5s", "femmor", "femmere"),
    ("6", "6s", "sexor", "seksere"),
)

_UPPER_ALIASES = (
    ("ones", "1", "1s", "1er", "einser"),
    ("2", "2s", "2er", "zweier"),
    ("3", "3s", "3er", "dreier"),
    ("4", "4s", "4er", "vierer"),
    ("5", "5s", "5er", "fuenfer", "fünfer"),
    ("6", "6s", "6er", "sechser"),
)

KNIFFEL_SHEET: tuple[Box, ...] = face_boxes(aliases=_UPPER_ALIASES) + (
    Box("three_kind", "groups", (3,), total=True, aliases=("3k", "3x", "three_of_a_kind", "threekind", "dreierpasch")),
    Box("four_kind", "groups", (4,), total=True, aliases=("4k", "4x", "four_of_a_kind", "fourkind", "viererpasch")),
    Box("full_house", "groups", (3, 2), points=25, joker_points=25, aliases=("fh", "fullhouse")),
    Box("small_straight", "straight", (1234, 2345, 3456), points=30, joker_points=30,
        aliases=("ss", "sm", "smallstraight", "kleine_strasse", "kleine_straße", "ks")),
    Box("large_straight", "straight", (12345, 23456), points=40, joker_points=40,
        aliases=("ls", "lg", "largestraight", "grosse_strasse", "große_straße", "gs")),
    Box("kniffel", "all_same", points=50, aliases=("kn", "yahtzee", "yz", "five_of_a_kind")),
    Box("chance", "chance", aliases=("ch",)),
)
"""The Kniffel / Yahtzee sheet (13 boxes)."""

# The standard 13-box sheet, for code that is specific to it (the rating heuristic, the APL tables).
BOX_NAMES: tuple[str, ...] = tuple(b.name for b in KNIFFEL_SHEET)
NUM_BOXES = len(BOX_NAMES)
KNIFFEL_BOX = BOX_NAMES.index("kniffel")
