"""Rules of the Pig-family dice duels (Schlag den Raab, Pig, Piglet) and their presets.

Kept apart from the solver (``jaxsolve.games.raab.solver``) so that the rules, the presets and the command
line's help can be read without importing JAX.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from jaxsolve.core.rules import Presets, Rules, RulesError, option

MAX_STATES = 60_000_000


class DieFaces:
    """What one throw of a Pig-family die adds (``points[f - 1]`` for face ``f``, the bust
    face's 0; every other face at least 1), for the rules of the duel and of the table."""

    sides: int
    if TYPE_CHECKING:

        @property
        def points(self) -> tuple[int, ...]: ...

    @property
    def max_points(self) -> int:
        return max(self.points)

    @property
    def bust_prob(self) -> float:
        return 1.0 / self.sides

    @property
    def weights(self) -> np.ndarray:
        """``weights[k]``: probability that a roll adds ``k + 1`` points."""
        w = np.zeros(self.max_points)
        for p in self.points:
            if p:
                w[p - 1] += 1.0 / self.sides
        return w


@dataclass(frozen=True)
class PigRules(Rules, DieFaces):
    """One Pig-family rule set.

    Attributes:
        name: preset name, or ``custom``.
        goal: banked score that ends the game.
        sides: faces of the die, all equally likely.
        bust: the face that loses the turn total.
        points: points added by each face (``points[f - 1]`` for face ``f``; the bust face's
            entry is 0). Empty means "the face number".
        last_turn: Schlag den Raab's rule: the start player's reaching the goal gives the other
            player one last turn; ties at >= goal go on. Without it, first to the goal wins.
        bound: largest banked score kept in the state (last-turn rule only; default goal + 80).
            A start player whose total passes it banks the bound.
    """

    goal: int = option(50, "Override the goal score.", min=1, max=1000)
    sides: int = option(6, "Override the die's sides (faces add their number).", min=2, max=100)
    bust: int = option(6, "Override the face that loses the turn total (at most the sides).", min=1, max=100)
    points: tuple[int, ...] = ()
    last_turn: bool = option(True, "Override the last-turn rule (the other player answers a start player's goal).", flags=("--last-turn/--no-last-turn",))
    bound: int | None = option(None, "Largest banked score kept (last-turn rule; default goal + 80; at least the goal).", min=1)

    def __post_init__(self):
        if not 2 <= self.sides <= 100:
            raise RulesError(f"the die needs 2 to 100 sides, got {self.sides}")
        if not 1 <= self.bust <= self.sides:
            raise RulesError(f"bust face must be between 1 and {self.sides}, got {self.bust}")
        if not 1 <= self.goal <= 1000:
            raise RulesError(f"goal must be between 1 and 1000, got {self.goal}")
        points = tuple(int(p) for p in self.points) or tuple(range(1, self.sides + 1))
        if len(points) != self.sides:
            raise RulesError(f"need one points value per face ({self.sides}), got {len(points)}")
        points = tuple(0 if f == self.bust else p for f, p in enumerate(points, start=1))
        if min(p for f, p in enumerate(points, start=1) if f != self.bust) < 1:
            raise RulesError("every face except the bust face must add at least 1 point")
        object.__setattr__(self, "points", points)
        if self.last_turn:
            bound = self.goal + 80 if self.bound is None else int(self.bound)
            if bound < self.goal:
                raise RulesError(f"bound must be >= goal ({self.goal}), got {bound}")
        else:
            if self.bound is not None and self.bound != self.goal - 1:
                raise RulesError("a bound applies only to the last-turn rule (without it scores stop below the goal)")
            bound = self.goal - 1
        object.__setattr__(self, "bound", bound)
        if self.num_states > MAX_STATES:
            raise RulesError(f"state array of {self.num_states:,} entries is too large (limit {MAX_STATES:,}); lower goal or bound")

    def replace(self, **changes) -> "PigRules":
        """A copy with some fields changed (``None`` = keep); derived fields are recomputed."""
        changes = {k: v for k, v in changes.items() if v is not None}
        if not changes:
            return self
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if "points" not in changes and ({"sides", "bust"} & changes.keys()):
            fields["points"] = ()
        if "bound" not in changes and ({"goal", "last_turn"} & changes.keys()):
            fields["bound"] = None
        if "name" not in changes and any(fields.get(k) != v for k, v in changes.items()):
            changes["name"] = f"{self.name}+custom"
        fields.update(changes)
        return PigRules(**fields)

    @property
    def top(self) -> int:
        """Largest banked score in the state array (the bound the constructor set)."""
        return cast(int, self.bound)

    @property
    def shape(self) -> tuple[int, int, int, int]:
        """``(T, M, S, N)``: start-player flag, my banked, my total, their banked."""
        t = 2 if self.last_turn else 1
        m = self.goal + 1 if self.last_turn else self.goal
        return t, m, self.top + self.max_points + 1, self.top + 1

    @property
    def num_states(self) -> int:
        return int(np.prod(self.shape))



PRESETS: Presets[PigRules] = Presets("Pig-family", {
    "raab": PigRules("raab", goal=50, sides=6, bust=6, last_turn=True, bound=130),
    "pig": PigRules("pig", goal=100, sides=6, bust=1, last_turn=False),
    "piglet": PigRules("piglet", goal=2, sides=2, bust=1, points=(0, 1), last_turn=False),
})


def get_rules(name: str = "raab", **overrides) -> PigRules:
    """The preset ``name`` with ``overrides`` applied (``None`` values are ignored)."""
    return PRESETS.get_rules(name).replace(**overrides)
