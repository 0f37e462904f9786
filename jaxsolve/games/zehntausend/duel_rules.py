"""Rules of the Zehntausend duel (two players, race to the goal) and their presets.

The turn is Zehntausend's (``jaxsolve.games.zehntausend``: D. Peter, "Optimale Strategie für
das Würfelspiel Zehntausend", 2013, and its variants); the duel adds the goal, the entry minimum
and the end rule. JAX-free, so the rules, the presets and the command line's help read fast.

Sources of the variants (a rule set is a combination of them):

* first to the goal wins: "Wer zuerst mindestens 10.000 Punkte hat, hat gewonnen"
  (familie-im-zentrum.de, "Würfelspiel 10.000", 2020);
* the other players finish the round and may beat the score with one last turn: spiele.rocks,
  "Zehntausend Regeln" and spiele.domain-root.de, "Zehntausend - Das Würfelspiel" ("Andere
  Spieler, die in dieser Runde noch an der Reihe wären, haben eine letzte Chance, den
  Punktestand zu überbieten"): to *beat* means more points, a tie keeps the first one's win;
* an entry minimum for the first write, 350 (spiele.rocks; spiele.domain-root.de) or 500
  ("Es darf erst ab 500 Punkte geschrieben werden", zehntausend.damm-media.de, Spielregeln).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, cast

from jaxsolve.core.rules import Presets, Rules, RulesError, option
from jaxsolve.games.zehntausend.rules import PRESETS as TURN_PRESETS
from jaxsolve.games.zehntausend.rules import STEP, ZehntausendRules

END_RULES = ("first", "last-turn")
MAX_GOAL = 20_000
MAX_REACH = 10_000 // STEP  # levels one set-aside can add: six of a kind at most 10,000 in every preset
MAX_TURN_BYTES = 4 * 2**30  # the largest turn tables a solve may build


def _max_bound() -> int:
    """The largest bound whose last-turn tables (``DuelRules.turn_table_size``: ``top + 2``
    turns x ``top + MAX_REACH + 1`` totals x 7 dice x 16 bytes, ``top = bound / 50``) fit in
    ``MAX_TURN_BYTES``; above a few hundred levels these tables are the largest a solve builds,
    whatever the goal, so this is the bound's real limit."""
    cap = MAX_TURN_BYTES // (7 * 16)
    top = (math.isqrt((MAX_REACH + 3) ** 2 + 4 * cap) - (MAX_REACH + 3)) // 2 + 2
    while (top + 2) * (top + MAX_REACH + 1) > cap:
        top -= 1
    return top * STEP


MAX_BOUND = _max_bound()
"""The largest bound the memory check lets through (304,550 with 4 GiB of turn tables), for any
goal: what the option's help states."""


def _size(nbytes: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if nbytes < 1024 or unit == "TiB":
            return f"{nbytes:,.0f} {unit}" if unit == "bytes" else f"{nbytes:,.1f} {unit}"
        nbytes /= 1024
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class DuelRules(Rules):
    """One Zehntausend duel rule set.

    Attributes:
        goal: banked score that ends the game (a multiple of 50).
        entry: the entry minimum: a player's first write must be at least this (0 = none).
            A player with a banked score of 0 has not entered yet.
        end: ``first``: the first to bank the goal wins at once; ``last-turn``: when the start
            player banks the goal, the other player has one last turn and wins only by ending
            with more points (a tie is the start player's win); when the second player banks
            the goal the round is complete and she wins.
        bound: last-turn rule only: the largest final score kept; a start player whose total
            reaches it writes (default goal + 2000). Without the last-turn rule there is no
            reason to go on past the goal.
        scoring: the Zehntausend scoring preset of the turn (``jaxsolve.games.zehntausend``).
    """

    goal: int = option(10_000, "Banked score that ends the game (a multiple of 50).", min=2 * STEP, max=MAX_GOAL)
    entry: int = option(0, "Entry minimum: the first write must reach it (a multiple of 50 below the goal; 0 = none).", min=0, max=MAX_GOAL)
    end: str = option("first", "End rule: first (first to the goal wins) or last-turn (the other player answers).", choices=END_RULES)
    bound: int | None = option(
        None,
        "Largest final score kept under the last-turn rule (a multiple of 50 at or above the goal; default goal + 2000). "
        f"Checked against memory: a bound above {MAX_BOUND:,} is refused, its solve's turn tables would pass {MAX_TURN_BYTES // 2**30} GiB.",
        min=2 * STEP,
    )
    scoring: str = option("peter-2013", "Zehntausend scoring preset of the turn.", choices=tuple(TURN_PRESETS))

    derived: ClassVar[tuple[str, ...]] = ("bound",)

    def __post_init__(self):
        for field in ("goal", "entry"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value % STEP:
                raise RulesError(f"{field} must be a non-negative multiple of {STEP}, got {value}")
        if not 2 * STEP <= self.goal <= MAX_GOAL:
            raise RulesError(f"goal must be between {2 * STEP} and {MAX_GOAL}, got {self.goal}")
        if self.entry >= self.goal:
            raise RulesError(f"the entry minimum must be below the goal ({self.goal}), got {self.entry}")
        if self.end not in END_RULES:
            raise RulesError(f"unknown end rule {self.end!r}; choose one of {', '.join(END_RULES)}")
        if self.scoring not in TURN_PRESETS:
            raise RulesError(f"unknown scoring rules {self.scoring!r}; choose one of {', '.join(TURN_PRESETS)}")
        if self.end == "last-turn":
            bound = self.goal + 2000 if self.bound is None else self.bound
            if isinstance(bound, bool) or not isinstance(bound, int) or bound < self.goal or bound % STEP:
                raise RulesError(f"bound must be a multiple of {STEP} at or above the goal ({self.goal}), got {bound}")
        else:
            if self.bound is not None and self.bound != self.goal:
                raise RulesError("a bound applies only to the last-turn rule")
            bound = self.goal
        object.__setattr__(self, "bound", bound)
        rows, totals = self.turn_table_size
        need = rows * totals * 7 * 16
        if need > MAX_TURN_BYTES:
            raise RulesError(
                f"bound {bound} is too large: a solve would need about {_size(need)} for its turn tables "
                f"({rows:,} turns x {totals:,} turn totals x 7 dice x 16 bytes; at most {_size(MAX_TURN_BYTES)}); lower the bound or the goal"
            )

    @property
    def turn_table_size(self) -> tuple[int, int]:
        """``(rows, totals)`` of the largest batch of turn tables a solve builds (an upper bound):
        the turns of the last-turn table (or of one layer of states) times the turn totals
        ``H`` each holds; each entry is a value and a slope for ``n = 0..6`` in float64."""
        top = cast(int, self.bound) // STEP
        totals = top + MAX_REACH + 1
        layer = (2 if self.last_turn else 1) * self.levels
        return max(top + 2 if self.last_turn else 0, layer), totals

    @property
    def top(self) -> int:
        """Largest final score kept (the bound the constructor set)."""
        return cast(int, self.bound)

    @property
    def turn_rules(self) -> ZehntausendRules:
        return TURN_PRESETS[self.scoring]

    @property
    def levels(self) -> int:
        """Banked scores below the goal, ``G = goal / 50``: a score is ``50 * level``."""
        return self.goal // STEP

    @property
    def last_turn(self) -> bool:
        return self.end == "last-turn"

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(T, G, G)`` of the turn-start values: start-player flag, my level, their level."""
        return (2 if self.last_turn else 1, self.levels, self.levels)


PRESETS: Presets[DuelRules] = Presets("Zehntausend duel", {
    "first-to-10000": DuelRules("first-to-10000"),
    "entry-350": DuelRules("entry-350", entry=350),
    "entry-500": DuelRules("entry-500", entry=500),
    "last-turn": DuelRules("last-turn", end="last-turn"),
    "last-turn-350": DuelRules("last-turn-350", end="last-turn", entry=350),
    "small": DuelRules("small", goal=500),
    "small-entry": DuelRules("small-entry", goal=500, entry=200),
})
