"""Rules of category dice games (Kniffel / Yahtzee, Yatzy, Maxi Yatzy, ...) as values, with presets.

A ``CategoryRules`` value holds the whole game: the score sheet (``boxes``, see
``jaxsolve.games.category.sheets.sheet``), the number of dice, the throws per turn, the upper
threshold and bonus, and the joker / extra-bonus semantics of a repeated all-same throw (all
dice showing one face: a Yahtzee, Kniffel or Yatzy). The Kniffel / Yahtzee presets are values
of this type with the 13-box ``KNIFFEL_SHEET``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, cast

from jaxsolve.core.rules import Rules, RulesError, option
from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET, Box, check_sheet

JokerMode = Literal["none", "forced", "free", "kniffel"]
Order = Literal["free", "forced"]

JOKER_MODES: tuple[str, ...] = ("none", "forced", "free", "kniffel")
ORDERS: tuple[str, ...] = ("free", "forced")

MAX_STATES = 1 << 31


@dataclasses.dataclass(frozen=True)
class CategoryRules(Rules):
    """One rule set of a category game (``n`` six-sided dice, a sheet of boxes).

    Attributes:
        name: preset name, or ``"custom"``.
        throws: throws per turn (first throw included): 3 standard, 2 in the APL article.
        joker: what an all-same throw may do once the all-same box is filled
            (``none``, ``forced``, ``free``, ``kniffel``; see docs/kniffel.md).
        extra_bonus: points for each further all-same throw while the all-same box holds its points.
        bonus_on_scratch: whether that extra bonus is paid when the throw scratches an upper
            box of another face.
        upper_bonus: points for reaching ``upper_threshold`` in the upper section.
        upper_threshold: upper total needed for the bonus (the state caps the total here).
        dice: number of dice (5 or 6; fewer for reduced games in tests).
        instant_all_same, instant_other: "Im-Hieb" bonuses for filling a box with points right
            after the first throw of a turn (all-same box / any other box); 0 = off.
        boxes: the score sheet.
        order: ``free`` (any open box may be filled) or ``forced`` (the boxes are filled in
            sheet order, one a turn: the only choice of a turn is which dice to keep).
    """

    throws: int = option(3, "Override throws per turn.", aliases=("--rolls",), min=1, max=6)
    joker: str = option("forced", "Override the joker mode.", choices=JOKER_MODES)
    extra_bonus: int = option(100, "Override the bonus for a further all-same throw (extra Yahtzee).", min=0)
    bonus_on_scratch: bool = True
    upper_bonus: int = 35
    upper_threshold: int = 63
    dice: int = 5
    instant_all_same: int = option(0, "Im-Hieb bonus for the all-same box filled right after the first throw (kniffel-imhieb: 30).", aliases=("--instant-kniffel",), min=0)
    instant_other: int = option(0, "Im-Hieb bonus for any other box scored right after the first throw (kniffel-imhieb: 5).", min=0)
    boxes: tuple = KNIFFEL_SHEET
    order: str = "free"

    def __post_init__(self):
        if not 1 <= self.dice <= 6:
            raise RulesError(f"dice must be between 1 and 6, got {self.dice}")
        if self.joker not in JOKER_MODES:
            raise RulesError(f"unknown joker mode {self.joker!r}; choose one of {', '.join(JOKER_MODES)}")
        if self.order not in ORDERS:
            raise RulesError(f"unknown box order {self.order!r}; choose one of {', '.join(ORDERS)}")
        if self.order == "forced" and self.joker == "forced":
            raise RulesError("the forced joker picks the box an all-same throw goes to, which a forced box order already fixes: use joker 'free', 'kniffel' or 'none'")
        if not 1 <= self.throws <= 6:
            raise RulesError(f"throws per turn must be between 1 and 6, got {self.throws}")
        if min(self.extra_bonus, self.upper_bonus, self.instant_all_same, self.instant_other) < 0:
            raise RulesError("bonuses must be >= 0")
        if not 1 <= self.upper_threshold <= 21 * self.dice:
            raise RulesError(f"upper threshold must be between 1 and {21 * self.dice}, got {self.upper_threshold}")
        if not all(isinstance(b, Box) for b in self.boxes):
            raise RulesError("boxes must be Box values")
        check_sheet(self.boxes)
        if self.all_same_box < 0 and (self.joker != "none" or self.extra_bonus or self.instant_all_same):
            raise RulesError("without an all-same box the joker must be 'none' and the extra and instant all-same bonuses 0")
        if self.num_states >= MAX_STATES:
            raise RulesError(f"{self.num_states:,} states do not fit a flat int32 index (limit {MAX_STATES:,})")

    @property
    def num_boxes(self) -> int:
        return len(self.boxes)

    @property
    def box_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.boxes)

    @property
    def all_same_box(self) -> int:
        """Index of the box the joker and extra-bonus rules refer to; -1 if the sheet has none."""
        return next((i for i, b in enumerate(self.boxes) if b.kind == "all_same"), -1)

    @property
    def has_all_same_rules(self) -> bool:
        """Whether an all-same throw after the all-same box is filled scores differently (joker/bonus)."""
        return self.all_same_box >= 0 and (self.joker != "none" or self.extra_bonus > 0)

    @property
    def full_mask(self) -> int:
        return (1 << self.num_boxes) - 1

    @property
    def state_shape(self) -> tuple[int, int, int]:
        return (1 << self.num_boxes, self.upper_threshold + 1, 2)

    @property
    def num_states(self) -> int:
        return (1 << self.num_boxes) * (self.upper_threshold + 1) * 2

    @property
    def has_instant_bonus(self) -> bool:
        return bool(self.instant_all_same or self.instant_other)

    def to_dict(self) -> dict:
        out = super().to_dict()
        out["boxes"] = [dataclasses.asdict(b) | {"param": list(b.param), "aliases": list(b.aliases)} for b in self.boxes]
        return out

    @classmethod
    def from_dict(cls, data) -> "CategoryRules":
        if isinstance(data, dict) and "boxes" in data:
            boxes = data["boxes"]
            if not isinstance(boxes, list) or not all(isinstance(b, dict) for b in boxes):
                raise RulesError("rules field 'boxes' must be a list of box objects")
            try:
                fields: list[dict[str, Any]] = [{k: tuple(v) if isinstance(v, list) else v for k, v in b.items()} for b in boxes]
                sheet = tuple(Box(**f) for f in fields)
            except TypeError as exc:
                raise RulesError(f"bad box in rules metadata: {exc}") from None
            data = {**data, "boxes": sheet}
        return cast(CategoryRules, super().from_dict(data))


def no_joker_rules(name: str, boxes: tuple[Box, ...], *, dice: int, upper_bonus: int, upper_threshold: int, throws: int = 3) -> CategoryRules:
    """The rules of a sheet without a joker and without a bonus for a further all-same throw
    (Maxi Yatzy, Yacht): ``dice`` dice, ``throws`` throws a turn, ``upper_bonus`` at ``upper_threshold``."""
    return CategoryRules(
        name=name,
        throws=throws,
        joker="none",
        extra_bonus=0,
        upper_bonus=upper_bonus,
        upper_threshold=upper_threshold,
        dice=dice,
        boxes=boxes,
    )


def check_objective(objective: str) -> str:
    """``objective`` if a score table can be solved for it (``engine.objective.scalar_names``:
    score, goals and any registered one), else one error line."""
    from jaxsolve.games.category.engine.objective import scalar_names

    if objective not in scalar_names():
        raise RulesError(f"unknown objective {objective!r}; choose one of {', '.join(scalar_names())}")
    return objective
