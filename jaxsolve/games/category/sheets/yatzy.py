"""Scandinavian Yatzy: the 15-box sheet and its variants as rules values of the category engine.

The sheet (score-card order): ones .. sixes (50 bonus at an upper total of 63 or more), one
pair, two pairs (two different faces), three of a kind, four of a kind (each the sum of the
matching dice only), small straight 1-2-3-4-5 = 15, large straight 2-3-4-5-6 = 20, full house
(a triple and a pair of different faces: the sum of the dice), chance (the sum of the dice),
Yatzy (five of a kind) = 50. No joker, no bonus for a second Yatzy. Five dice, three throws a
turn. See docs/yatzy.md for the variants and the sources.

Every preset is a ``CategoryRules`` value (``jaxsolve.games.category.sheets.rules``); ``scandinavian()``
builds the base game and each variant:

* ``fh5``: the full house may be five of a kind (triple and pair of the same face);
* ``tp4``: the two pairs may be four of a kind (two pairs of the same face, 4 x face);
* ``order="forced"``: the boxes are filled in score-card order (the engine's ``order`` field).

The preset names follow yatzy-solver's variant ids (``yatzy-scandinavian+fh5+tp4+forced`` is
an alias of ``yatzy+fh5+tp4+forced``).
"""

from __future__ import annotations

from jaxsolve.core.rules import Presets, RulesError
from jaxsolve.games.category.registration import category_game
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import UPPER_ALIASES, UPPER_NAMES, Box, face_boxes



def sheet(*, fh5: bool = False, tp4: bool = False, tp1: bool = False) -> tuple[Box, ...]:
    """The 15-box Scandinavian sheet (``fh5``/``tp4``: the variants' full house and two pairs;
    ``tp1``: two pairs that also take a single pair, the scoring behind the 248.63 of 2012)."""
    return face_boxes(UPPER_NAMES, UPPER_ALIASES) + (
        Box("one_pair", "groups", (2,), aliases=("pair", "1p", "par", "ett_par", "et_par")),
        Box("two_pairs", "groups", (2, 2), distinct=not tp4, min_groups=1 if tp1 else None, aliases=("2p", "tva_par", "två_par", "to_par")),
        Box("three_of_a_kind", "groups", (3,), aliases=("3k", "tretal", "triss", "tre_ens", "tre_like")),
        Box("four_of_a_kind", "groups", (4,), aliases=("4k", "fyrtal", "fire_ens", "fire_like")),
        Box("small_straight", "straight", (12345,), points=15, aliases=("ss", "liten_stege", "lille_straight", "liten_straight")),
        Box("large_straight", "straight", (23456,), points=20, aliases=("ls", "stor_stege", "store_straight", "stor_straight")),
        Box("full_house", "groups", (3, 2), total=True, distinct=not fh5, aliases=("fh", "kak", "kåk", "hus", "fuldt_hus")),
        Box("chance", "chance", aliases=("ch", "chans", "sjanse")),
        Box("yatzy", "all_same", points=50, aliases=("yz", "yahtzee")),
    )


YATZY_SHEET: tuple[Box, ...] = sheet()
"""The Scandinavian Yatzy sheet (15 boxes, score-card order)."""

VARIANTS: tuple[str, ...] = ("fh5", "tp4", "forced")


def scandinavian(*, fh5: bool = False, tp4: bool = False, tp1: bool = False, order: str = "free", name: str | None = None) -> CategoryRules:
    """Scandinavian Yatzy with the chosen variant rules (see the module docstring).

    ``tp1`` (not a preset: no rule book has it) scores a single pair in two pairs (2 x v), as
    the program behind Larsson and Sjöberg's 248.63 did (docs/yatzy.md).
    """
    suffix = "".join(f"+{v}" for v, on in (("fh5", fh5), ("tp4", tp4), ("tp1", tp1), ("forced", order == "forced")) if on)
    return CategoryRules(
        name=name or f"yatzy{suffix}",
        throws=3,
        joker="none",
        extra_bonus=0,
        upper_bonus=50,
        upper_threshold=63,
        dice=5,
        boxes=sheet(fh5=fh5, tp4=tp4, tp1=tp1),
        order=order,
    )


def variant(modifiers: str) -> CategoryRules:
    """Rules from a variant text such as ``"+fh5+forced"`` (any order of ``fh5``, ``tp4``, ``forced``)."""
    parts = [p for p in modifiers.split("+") if p]
    unknown = sorted(set(parts) - set(VARIANTS))
    if unknown:
        raise RulesError(f"unknown Yatzy variant rule(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}")
    return scandinavian(fh5="fh5" in parts, tp4="tp4" in parts, order="forced" if "forced" in parts else "free")


_MODIFIERS = ("", "+fh5", "+tp4", "+fh5+tp4", "+forced", "+fh5+forced", "+tp4+forced", "+fh5+tp4+forced")

PRESETS: Presets[CategoryRules] = Presets(
    "Yatzy",
    {f"yatzy{m}": variant(m) for m in _MODIFIERS},
    aliases={f"yatzy-scandinavian{m}": f"yatzy{m}" for m in _MODIFIERS} | {"scandinavian": "yatzy"},
)


def get_rules(name: str) -> CategoryRules:
    """The preset called ``name`` (or a yatzy-solver variant id); a clear error otherwise."""
    return PRESETS.get_rules(name)


def small() -> CategoryRules:
    """A reduced Yatzy that solves in seconds: 3 dice, upper bonus at 6, ten boxes."""
    boxes = {b.name: b for b in YATZY_SHEET}
    return CategoryRules(
        name="yatzy-reduced-3-dice",
        joker="none",
        extra_bonus=0,
        upper_bonus=50,
        upper_threshold=6,
        dice=3,
        boxes=YATZY_SHEET[:6] + tuple(boxes[n] for n in ("one_pair", "three_of_a_kind", "chance", "yatzy")),
    )


GAME = category_game(
    "yatzy", "Scandinavian Yatzy (15 boxes) and its variants, on the category engine", lambda: PRESETS, "yatzy", small,
    bench_presets=("yatzy", "yatzy+forced"), display_name="Yatzy",
)
