"""Maxi Yatzy: the six-dice, 20-box game as rules values of the category engine.

The sheet (score-card order), as published with the game (MaxiYatzy rules, maxiyahtzee.com):
ones .. sixes (100 bonus at an upper total of 84 or more); one pair, two pairs, three pairs
(pairs of different faces); three, four and five of a kind (the sum of the matching dice
only); small straight 1-2-3-4-5 = 15; large straight 2-3-4-5-6 = 20; full straight 1-6 = 21;
full house (a triple and a pair of different faces), villa (two triples of different faces),
tower (four of a kind and a pair of different faces), each the sum of the dice used; chance
(the sum of all six dice); Maxi Yatzy (six of a kind) = 100. No joker, no bonus for a second
Maxi Yatzy. Three throws a turn.

The official game also saves unused throws for later turns (one throw is compulsory each
turn). That is not a sheet rule but a larger state space: ``jaxsolve.games.category.engine.saved``
solves any category game with saved throws (at most ``max_saved`` carried into a turn); the
presets here are the three-throw game.
See docs/maxi.md.
"""

from __future__ import annotations

from jaxsolve.core.rules import Presets
from jaxsolve.games.category.registration import category_game
from jaxsolve.games.category.sheets.rules import CategoryRules, no_joker_rules
from jaxsolve.games.category.sheets.sheet import UPPER_ALIASES, UPPER_NAMES, Box, face_boxes

MAXI_SHEET: tuple[Box, ...] = face_boxes(UPPER_NAMES, UPPER_ALIASES) + (
    Box("one_pair", "groups", (2,), aliases=("pair", "1p", "par", "ett_par")),
    Box("two_pairs", "groups", (2, 2), aliases=("2p", "tva_par", "två_par")),
    Box("three_pairs", "groups", (2, 2, 2), aliases=("3p", "tre_par")),
    Box("three_of_a_kind", "groups", (3,), aliases=("3k", "tretal", "triss")),
    Box("four_of_a_kind", "groups", (4,), aliases=("4k", "fyrtal")),
    Box("five_of_a_kind", "groups", (5,), aliases=("5k", "femtal")),
    Box("small_straight", "straight", (12345,), points=15, aliases=("ss", "liten_stege")),
    Box("large_straight", "straight", (23456,), points=20, aliases=("ls", "stor_stege")),
    Box("full_straight", "straight", (123456,), points=21, aliases=("fs", "full_stege", "royal")),
    Box("full_house", "groups", (3, 2), aliases=("fh", "kak", "kåk")),
    Box("villa", "groups", (3, 3), aliases=("castle", "hus")),
    Box("tower", "groups", (4, 2), aliases=("torn",)),
    Box("chance", "chance", aliases=("ch", "chans")),
    Box("maxi_yatzy", "all_same", points=100, aliases=("yatzy", "maxi", "yz", "six_of_a_kind")),
)
"""The Maxi Yatzy sheet (20 boxes, score-card order)."""


def maxi(name: str = "maxi", throws: int = 3) -> CategoryRules:
    """Maxi Yatzy without saved throws: six dice, ``throws`` throws a turn, the 20-box sheet."""
    return no_joker_rules(name, MAXI_SHEET, dice=6, throws=throws, upper_bonus=100, upper_threshold=84)


def reduced(dice: int, boxes: tuple[str, ...], upper_threshold: int, name: str | None = None) -> CategoryRules:
    """Maxi Yatzy's scoring on fewer dice and a sub-sheet (the six upper boxes plus ``boxes``)."""
    by_name = {b.name: b for b in MAXI_SHEET}
    return no_joker_rules(name or f"maxi-reduced-{dice}-dice", MAXI_SHEET[:6] + tuple(by_name[n] for n in boxes), dice=dice, upper_bonus=100, upper_threshold=upper_threshold)


def small() -> CategoryRules:
    """A reduced Maxi Yatzy that solves in seconds: 4 dice, upper bonus at 12, eleven boxes."""
    return reduced(4, ("two_pairs", "three_of_a_kind", "villa", "chance", "maxi_yatzy"), 12, name="maxi-reduced-4-dice")


PRESETS: Presets[CategoryRules] = Presets(
    "Maxi Yatzy", {"maxi": maxi(), "maxi-reduced-4-dice": small()}, aliases={"maxi-yatzy": "maxi", "maxiyatzy": "maxi"}
)
"""Maxi Yatzy, and the reduced game (4 dice, 11 boxes) that solves in seconds, to try the sheet quickly."""


def get_rules(name: str) -> CategoryRules:
    """The preset called ``name``; a clear error otherwise."""
    return PRESETS.get_rules(name)


GAME = category_game(
    "maxi", "Maxi Yatzy (six dice, 20 boxes; saved throws with solve --saved-throws)", lambda: PRESETS, "maxi", small,
    bench_presets=("maxi",), bench_saved=True, display_name="Maxi Yatzy",
)
