"""Rules of Zehntausend for 2 to 4 players at one table, and their presets (JAX-free).

The turn is Zehntausend's (``jaxsolve.games.zehntausend``: D. Peter, "Optimale Strategie für das
Würfelspiel Zehntausend", 2013); the players write in turn and the first to write the goal wins
at once ("Wer zuerst mindestens 10.000 Punkte hat, hat gewonnen", familie-im-zentrum.de,
"Würfelspiel 10.000", 2020). The entry minimum applies to each player's first write (350:
spiele.rocks, "Zehntausend Regeln"; spiele.domain-root.de, "Zehntausend - Das Würfelspiel").
The duel's last-turn rule is not offered at the table: the first to the goal wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from jaxsolve.core.rules import Presets, Rules, RulesError, option
from jaxsolve.games.zehntausend.duel_rules import DuelRules
from jaxsolve.games.zehntausend.rules import PRESETS as TURN_PRESETS
from jaxsolve.games.zehntausend.rules import STEP

MAX_PLAYERS = 4
MAX_STATES = 40_000_000


@dataclass(frozen=True)
class TableRules(Rules):
    """One rule set of Zehntausend at a table.

    Attributes:
        players: players at the table (2..4), who write in turn.
        goal: banked score that wins (a multiple of 50).
        entry: entry minimum of a player's first write (0 = none); a banked 0 means not entered.
        scoring: the Zehntausend scoring preset of the turn.
    """

    players: int = option(3, "Players at the table (2..4).", min=2, max=MAX_PLAYERS)
    goal: int = option(2000, "Banked score that wins (a multiple of 50).", min=2 * STEP, max=20_000)
    entry: int = option(0, "Entry minimum of the first write (a multiple of 50 below the goal; 0 = none).", min=0, max=20_000)
    scoring: str = option("peter-2013", "Zehntausend scoring preset of the turn.", choices=tuple(TURN_PRESETS))

    def __post_init__(self):
        if isinstance(self.players, bool) or not isinstance(self.players, int) or not 2 <= self.players <= MAX_PLAYERS:
            raise RulesError(f"players must be between 2 and {MAX_PLAYERS}, got {self.players!r}")
        DuelRules(goal=self.goal, entry=self.entry, scoring=self.scoring)  # the same checks of goal, entry and scoring
        if self.num_states > MAX_STATES:
            raise RulesError(
                f"{self.num_states:,} turn-start states ({self.levels} levels ^ {self.players} players) is too many (limit {MAX_STATES:,}); lower the goal or the players"
            )

    @property
    def levels(self) -> int:
        return self.goal // STEP

    @property
    def num_states(self) -> int:
        return self.levels**self.players

    @property
    def duel(self) -> DuelRules:
        """The duel's rules with the same goal, entry and scoring (its turn tables and sizes)."""
        return DuelRules(goal=self.goal, entry=self.entry, scoring=self.scoring)


PRESETS: Presets[TableRules] = Presets("Zehntausend at a table", {
    "three-to-2000": TableRules("three-to-2000"),
    "three-to-2000-350": TableRules("three-to-2000-350", entry=350),
    "three-to-1000": TableRules("three-to-1000", goal=1000),
    "three-to-10000": TableRules("three-to-10000", goal=10_000),
    "four-to-1000": TableRules("four-to-1000", players=4, goal=1000),
    "small-3": TableRules("small-3", goal=500),
})
