"""Zehntausend's scoring rules as values, and their presets.

Kept apart from the solver (``jaxsolve.games.zehntausend.solver``) so that the rules, the presets and the
command line's help can be read without importing JAX.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from jaxsolve.core.rules import Presets, Rules, RulesError, option

DICE = 6
SIDES = 6
STEP = 50
MAX_POINTS = 10_000  # the most a straight, six of a kind or three pairs may score (six of a kind's 10,000)
TwoFives = Literal["off", "one", "any"]
TWO_FIVES_MODES: tuple[str, ...] = ("off", "one", "any")


@dataclass(frozen=True)
class ZehntausendRules(Rules):
    """One Zehntausend scoring rule set (six six-sided dice).

    Attributes:
        name: preset name, or ``"custom"``.
        straight: points for 1-2-3-4-5-6 set aside together; 0 = no straight (then only
            its 1 and 5 score). This and the next two score at most ``MAX_POINTS`` (10,000).
        six_of_a_kind: points for six dice of one face; 0 = keep doubling
            (six 1s = 8000, six 2s = 1600, ...).
        three_pairs: points for three pairs set aside together; 0 = three pairs score nothing.
        two_fives: the "two 5s as one pseudo-1" rule: a pair of 5s from one throw may be set
            aside as one die ``1*`` worth 100 (the other 5 goes back into the cup).
            ``off``: no; ``one``: at most one ``1*`` per set-aside (Peter 2013);
            ``any``: every pair of 5s may become a ``1*``.
    """

    straight: int = option(2000, "Points for 1-2-3-4-5-6 (a multiple of 50; 0: no straight).", min=0, max=MAX_POINTS)
    six_of_a_kind: int = option(10000, "Points for six of a kind (a multiple of 50; 0: keep doubling).", min=0, max=MAX_POINTS)
    three_pairs: int = option(0, "Points for three pairs (a multiple of 50; 0: nothing).", min=0, max=MAX_POINTS)
    two_fives: TwoFives = option("one", "Two 5s as one pseudo-1 worth 100: off, one per set-aside, any.", type=str, choices=("off", "one", "any"))

    def __post_init__(self):
        for field in ("straight", "six_of_a_kind", "three_pairs"):
            value = getattr(self, field)
            if not isinstance(value, (int, np.integer)) or value < 0 or value % STEP:
                raise RulesError(f"{field.replace('_', ' ')} must be a non-negative multiple of {STEP}, got {value}")
            if value > MAX_POINTS:
                raise RulesError(f"{field.replace('_', ' ')} must be at most {MAX_POINTS:,}, got {value:,}")
        if self.two_fives not in TWO_FIVES_MODES:
            raise RulesError(f"unknown two-fives mode {self.two_fives!r}; choose one of {', '.join(TWO_FIVES_MODES)}")

    @property
    def max_pseudo_ones(self) -> int:
        return {"off": 0, "one": 1, "any": DICE // 2}[self.two_fives]


PRESETS: Presets[ZehntausendRules] = Presets("Zehntausend", {
    "peter-2013": ZehntausendRules("peter-2013"),
    "no-two-fives": ZehntausendRules("no-two-fives", two_fives="off"),
    "three-pairs": ZehntausendRules("three-pairs", three_pairs=1500),
    "doubling": ZehntausendRules("doubling", six_of_a_kind=0, two_fives="off"),
})


def get_rules(name: str) -> ZehntausendRules:
    """The preset called ``name``; a clear error listing the presets otherwise."""
    return PRESETS.get_rules(name)
