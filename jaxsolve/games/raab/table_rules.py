"""Rules of the Pig family for 2 to 4 players at one table, and their presets (JAX-free).

One die; the player to move rolls, the bust face loses the turn total and passes the move on,
any other face adds its points; after a roll that did not bust he may roll again or bank. The
first to bank the goal wins at once (Pig: Neller & Presser, "Optimal Play of the Dice Game Pig",
The UMAP Journal 25(1), 2004). Schlag den Raab's die (a 6 busts, 1..5 add, goal 50) is a preset;
its last-turn rule ("Nachzug") is the duel's (``jaxsolve.games.raab``): at this table the first
to bank the goal wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from jaxsolve.core.rules import Presets, Rules, RulesError, option
from jaxsolve.games.raab.rules import DieFaces

MAX_PLAYERS = 4
MAX_STATES = 120_000_000


@dataclass(frozen=True)
class PigTableRules(Rules, DieFaces):
    """One rule set of the Pig family at a table of ``players``.

    Attributes:
        players: players at the table (2..4), who move in turn.
        goal: banked score that wins (the first to bank it).
        sides: faces of the die, all equally likely; a face adds its number.
        bust: the face that loses the turn total.
    """

    players: int = option(3, "Players at the table (2..4).", min=2, max=MAX_PLAYERS)
    goal: int = option(100, "Banked score that wins.", min=2, max=1000)
    sides: int = option(6, "Faces of the die (each adds its number).", min=2, max=100)
    bust: int = option(1, "The face that loses the turn total.", min=1, max=100)

    def __post_init__(self):
        for name in ("players", "goal", "sides", "bust"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise RulesError(f"{name} must be a whole number, got {value!r}")
        if not 2 <= self.players <= MAX_PLAYERS:
            raise RulesError(f"players must be between 2 and {MAX_PLAYERS}, got {self.players}")
        if not 2 <= self.goal <= 1000:
            raise RulesError(f"goal must be between 2 and 1000, got {self.goal}")
        if not 2 <= self.sides <= 100:
            raise RulesError(f"the die needs 2 to 100 sides, got {self.sides}")
        if not 1 <= self.bust <= self.sides:
            raise RulesError(f"bust face must be between 1 and {self.sides}, got {self.bust}")
        if self.num_states > MAX_STATES:
            raise RulesError(f"{self.num_states:,} turn-start states is too many (limit {MAX_STATES:,}); lower the goal or the players")

    @property
    def levels(self) -> int:
        return self.goal

    @property
    def num_states(self) -> int:
        return self.goal**self.players

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(0 if f == self.bust else f for f in range(1, self.sides + 1))


PRESETS: Presets[PigTableRules] = Presets("Pig family at a table", {
    "pig-3": PigTableRules("pig-3", players=3),
    "pig-4": PigTableRules("pig-4", players=4, goal=50),
    "raab-3": PigTableRules("raab-3", players=3, goal=50, bust=6),
    "raab-4": PigTableRules("raab-4", players=4, goal=50, bust=6),
    "coin-3": PigTableRules("coin-3", players=3, goal=10, sides=2, bust=1),
    "small-3": PigTableRules("small-3", players=3, goal=20),
})
