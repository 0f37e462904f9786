"""Kniffel / Yahtzee rule sets as values, with a registry of presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from jaxsolve.errors import JaxsolveError

JokerMode = Literal["none", "forced", "free", "kniffel"]
Objective = Literal["score", "goals"]

JOKER_MODES: tuple[str, ...] = ("none", "forced", "free", "kniffel")
OBJECTIVES: tuple[str, ...] = ("score", "goals")

BOX_NAMES: tuple[str, ...] = (
    "aces",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "three_kind",
    "four_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "kniffel",
    "chance",
)
NUM_BOXES = len(BOX_NAMES)
KNIFFEL_BOX = 11


class RulesError(JaxsolveError):
    """A rule set or rule name that does not make sense."""


@dataclass(frozen=True)
class KniffelRules:
    """One Kniffel / Yahtzee rule set (5 six-sided dice, 13 boxes).

    Attributes:
        name: preset name, or ``"custom"``.
        rolls: throws per turn (first throw included): 3 standard, 2 in the APL article.
        joker: what a 5-of-a-kind may do once the Kniffel box is filled
            (``none``, ``forced``, ``free``, ``kniffel``; see docs of ``kniffel.md``).
        extra_bonus: points for each further 5-of-a-kind while the Kniffel box holds 50.
        bonus_on_scratch: whether that extra bonus is paid when the roll scratches an upper
            box of another face (``False`` for the APL article's figures).
        upper_bonus: points for reaching ``upper_threshold`` in the upper section.
        upper_threshold: upper total needed for the bonus (the state caps the total here).
        dice: number of dice (5; fewer only for reduced games in tests). The Kniffel box then
            takes all dice of one face.
        instant_kniffel, instant_other: "Im-Hieb" bonuses for filling a box with points right
            after the first throw of a turn (Kniffel box with 50 / any other box); 0 = off.
    """

    name: str = "custom"
    rolls: int = 3
    joker: JokerMode = "forced"
    extra_bonus: int = 100
    bonus_on_scratch: bool = True
    upper_bonus: int = 35
    upper_threshold: int = 63
    dice: int = 5
    instant_kniffel: int = 0
    instant_other: int = 0

    def __post_init__(self):
        if not 1 <= self.dice <= 6:
            raise RulesError(f"dice must be between 1 and 6, got {self.dice}")
        if self.joker not in JOKER_MODES:
            raise RulesError(f"unknown joker mode {self.joker!r}; choose one of {', '.join(JOKER_MODES)}")
        if not 1 <= self.rolls <= 6:
            raise RulesError(f"rolls per turn must be between 1 and 6, got {self.rolls}")
        if min(self.extra_bonus, self.upper_bonus, self.instant_kniffel, self.instant_other) < 0:
            raise RulesError("bonuses must be >= 0")
        if not 1 <= self.upper_threshold <= 105:
            raise RulesError(f"upper threshold must be between 1 and 105, got {self.upper_threshold}")

    def replace(self, **changes) -> "KniffelRules":
        """A copy with some fields changed; the name becomes ``custom`` unless given."""
        changes = {k: v for k, v in changes.items() if v is not None}
        if changes and "name" not in changes:
            if any(getattr(self, k) != v for k, v in changes.items()):
                changes["name"] = f"{self.name}+custom"
        return dataclasses.replace(self, **changes)

    @property
    def has_instant_bonus(self) -> bool:
        return bool(self.instant_kniffel or self.instant_other)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


PRESETS: dict[str, KniffelRules] = {
    "yahtzee": KniffelRules("yahtzee", rolls=3, joker="forced", extra_bonus=100),
    "yahtzee-free": KniffelRules("yahtzee-free", rolls=3, joker="free", extra_bonus=100),
    "yahtzee-nojoker": KniffelRules("yahtzee-nojoker", rolls=3, joker="none", extra_bonus=100),
    "yahtzee-nobonus": KniffelRules("yahtzee-nobonus", rolls=3, joker="none", extra_bonus=0),
    "kniffel": KniffelRules("kniffel", rolls=3, joker="kniffel", extra_bonus=100, bonus_on_scratch=False),
    "kniffel-apl": KniffelRules("kniffel-apl", rolls=2, joker="kniffel", extra_bonus=100, bonus_on_scratch=False),
    "kniffel-imhieb": KniffelRules(
        "kniffel-imhieb", rolls=3, joker="kniffel", extra_bonus=100, bonus_on_scratch=False, instant_kniffel=30, instant_other=5
    ),
}


def get_rules(name: str) -> KniffelRules:
    """The preset called ``name``; a clear error listing the presets otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(f"unknown Kniffel rules {name!r}; choose one of {', '.join(PRESETS)}") from None


def check_objective(objective: str) -> str:
    if objective not in OBJECTIVES:
        raise RulesError(f"unknown objective {objective!r}; choose one of {', '.join(OBJECTIVES)}")
    return objective
