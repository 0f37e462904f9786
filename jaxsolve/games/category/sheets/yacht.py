"""Yacht: the 12-box game as rules values of the category engine.

The game of C. Wood and G. Goddard, "The Complete Book of Games" (1938), as the article
"Yacht (dice game)" (Wikipedia) retells it, with the scoring of the Exercism exercise "yacht"
(exercism/problem-specifications, 2017), which fixes what the article leaves open (the
straights' points vary; 30 each is the article's typical value). The sheet, in score-card
order: ones .. sixes (the sum of the dice showing that face; no upper bonus); full house (three
of one face and two of another: the sum of all dice; five of a kind is not a full house); four
of a kind (at least four dice of one face: the sum of those four); little straight 1-2-3-4-5 =
30; big straight 2-3-4-5-6 = 30; choice (the sum of all dice); yacht (five of a kind) = 50. No
joker, no bonus for a second yacht. Five dice, three throws a turn, twelve turns. The boxes'
scoring is data (``sheet.Box``); nothing of the engine is Yacht's.

The engine tracks the upper total up to the bonus threshold; with no bonus that axis carries
nothing, so the presets set the threshold to 1 (the smallest the engine takes): two upper
states, neither worth a point.
"""

from __future__ import annotations

from jaxsolve.core.rules import Presets
from jaxsolve.games.category.registration import category_game
from jaxsolve.games.category.sheets.rules import CategoryRules, no_joker_rules
from jaxsolve.games.category.sheets.sheet import UPPER_ALIASES, UPPER_NAMES, Box, face_boxes

YACHT_SHEET: tuple[Box, ...] = face_boxes(UPPER_NAMES, UPPER_ALIASES) + (
    Box("full_house", "groups", (3, 2), total=True, aliases=("fh",)),
    Box("four_of_a_kind", "groups", (4,), aliases=("4k", "four")),
    Box("little_straight", "straight", (12345,), points=30, aliases=("ls", "small_straight")),
    Box("big_straight", "straight", (23456,), points=30, aliases=("bs", "large_straight")),
    Box("choice", "chance", aliases=("ch", "chance")),
    Box("yacht", "all_same", points=50, aliases=("y", "five_of_a_kind")),
)
"""The Yacht sheet (12 boxes, score-card order)."""


def yacht(name: str = "yacht", throws: int = 3) -> CategoryRules:
    """Yacht: five dice, ``throws`` throws a turn, the 12-box sheet, no bonus, no joker."""
    return no_joker_rules(name, YACHT_SHEET, dice=5, throws=throws, upper_bonus=0, upper_threshold=1)


PRESETS: Presets[CategoryRules] = Presets("Yacht", {"yacht": yacht()})


def get_rules(name: str) -> CategoryRules:
    """The preset called ``name``; a clear error otherwise."""
    return PRESETS.get_rules(name)


def reduced(dice: int, boxes: tuple[str, ...], name: str | None = None) -> CategoryRules:
    """Yacht's scoring on fewer dice and a sub-sheet (the six upper boxes plus ``boxes``)."""
    by_name = {b.name: b for b in YACHT_SHEET}
    return yacht(name or f"yacht-reduced-{dice}-dice").replace(dice=dice, boxes=YACHT_SHEET[:6] + tuple(by_name[n] for n in boxes))


def small() -> CategoryRules:
    """A reduced Yacht that solves in seconds: 3 dice, nine boxes."""
    return reduced(3, ("full_house", "choice", "yacht"), name="yacht-reduced-3-dice")


GAME = category_game("yacht", "Yacht (12 boxes, no bonus), on the category engine", lambda: PRESETS, "yacht", small, bench_presets=("yacht",), display_name="Yacht")
