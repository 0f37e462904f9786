"""Kniffel / Yahtzee: the standard 13-box sheet (``sheet.KNIFFEL_SHEET``), its rule presets and
its registration. The presets' float64 values are the published ones (tests)."""

from __future__ import annotations

import functools

from jaxsolve.core.rules import Presets
from jaxsolve.games.category.answers import commands
from jaxsolve.games.category.registration import category_game
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import BOX_NAMES, KNIFFEL_BOX, NUM_BOXES  # noqa: F401 (the sheet's names, for users of this module)
from jaxsolve.games.game import Command


PRESETS: Presets[CategoryRules] = Presets(
    "Kniffel",
    {
        "yahtzee": CategoryRules("yahtzee", throws=3, joker="forced", extra_bonus=100),
        "yahtzee-free": CategoryRules("yahtzee-free", throws=3, joker="free", extra_bonus=100),
        "yahtzee-nojoker": CategoryRules("yahtzee-nojoker", throws=3, joker="none", extra_bonus=100),
        "yahtzee-nobonus": CategoryRules("yahtzee-nobonus", throws=3, joker="none", extra_bonus=0),
        "kniffel": CategoryRules("kniffel", throws=3, joker="kniffel", extra_bonus=100, bonus_on_scratch=False),
        "kniffel-apl": CategoryRules("kniffel-apl", throws=2, joker="kniffel", extra_bonus=100, bonus_on_scratch=False),
        "kniffel-imhieb": CategoryRules(
            "kniffel-imhieb", throws=3, joker="kniffel", extra_bonus=100, bonus_on_scratch=False, instant_all_same=30, instant_other=5
        ),
    },
)


def get_rules(name: str) -> CategoryRules:
    """The preset called ``name``; a clear error listing the presets otherwise."""
    return PRESETS.get_rules(name)


def small() -> CategoryRules:
    """Three dice on the 13-box sheet: solves in seconds (tests, ``bench --quick``)."""
    return CategoryRules(name="reduced-3-dice", dice=3, upper_threshold=6, extra_bonus=10)


GAME = category_game(
    "kniffel", "Kniffel / Yahtzee and other category games (score sheets as data)", lambda: PRESETS, "yahtzee", small, display_name="Yahtzee / Kniffel",
    tables=Command(
        functools.partial(commands.apl_tables_command, apl_rules=PRESETS["kniffel-apl"]), commands.TABLES_PARAMS,
        "Regenerate the APL article's tables 1, 10, 21, 22 (kniffel-apl, float64) next to the printed figures.",
        precision="fixed64", rules=False, json=False, quiet_help="Do not print the tables.",
    ),
)
