"""What a solve of a category game maximises, as one value per objective.

An ``Objective`` says what a state's value is (``value``), what the turn runs over (its
``channel``: nothing for the scalar objectives, a vector over the points still needed, the
points scored or the lead), its unit, its tie rule and which of the advisor's options it takes
(``options``). The command line, ``play`` and the page read a request into one objective once
(``for_advice``) and refuse the options it does not take from what it declares (``refuse``),
so a new objective brings its own words and checks with it.

The six objectives:

- ``score``: the expected final score (the score table; one value per state);
- ``goals``: the expected number of boxes met (the same turn, a box worth 1 when it scores);
- ``distribution``: the distribution of the remaining score under the score-optimal policy
  (a vector over points scored);
- ``target``: the best probability to score at least t more points, for every t (a vector
  over points still needed); a utility over final points is the same turn with its terminal;
- ``win``: the probability to finish first against opponents who play for the expected score
  (the utility "beat their final scores" over my final points);
- ``twoplayer``: the probability to win against one player who also plays to win (a vector
  over the lead).

Ties are decided by ``engine.policy``'s one rule in every objective (ending the turn before
re-throwing, more dice kept, the earlier box), within its ``tolerance``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from jaxsolve.errors import JaxsolveError

TIE_RULE = "fill before re-throwing, then more dice kept, then the earlier box"
"""The one tie rule (``engine.policy``), in words."""


@dataclass(frozen=True)
class Objective:
    """One objective of a category game (hashable: a key for caches and stores).

    Attributes:
        name: the name the command line and the stores use.
        value: what a state's value is, in words.
        channel: what the turn runs over besides the state ("" for a scalar value).
        unit: the unit of the values an answer ranks by.
        tolerance: how near two option values count as tied (then the tie rule decides).
        options: the advisor's options (by name, without dashes) this objective takes
            beyond the position and dice.
        asked_by: the option that asks for it, in words (for messages).
        reward: a scalar objective's value of a box filled with ``points``,
            ``reward(points, dtype, xp)`` (``xp``: NumPy or jax.numpy; traced in the solve).
        bonus: a scalar objective's value of bonus points (upper bonus, extra all-same
            bonus, Im-Hieb bonus), ``bonus(points, dtype, xp)``.
        meaning: what a stored table's values are (its sidecar's ``value_meaning``).
    """

    name: str
    value: str
    channel: str
    unit: str
    tolerance: str
    options: frozenset[str]
    asked_by: str
    reward: Callable[[Any, Any, Any], Any] | None = None
    bonus: Callable[[Any, Any, Any], Any] | None = None
    meaning: str = ""

    @property
    def scalar(self) -> bool:
        """Whether a state's value is one number (the score table's objectives)."""
        return not self.channel

    @property
    def ties(self) -> str:
        return TIE_RULE

    def refuse(self, given: Mapping[str, bool]) -> None:
        """Refuse every option in ``given`` (name -> whether it was given) this objective does
        not take, in one line saying which objectives take it."""
        wrong = [name for name, on in given.items() if on and name not in self.options]
        if not wrong:
            return
        parts = []
        for name in wrong:
            flag = _flag(name)
            other = [o.value for o in OBJECTIVES.values() if o.asked_by == flag]
            takers = [o.asked_by for o in OBJECTIVES.values() if name in o.options and o is not self]
            if other:
                where = f" (that ranks by {other[0]})"
            elif takers:
                where = f" (it goes with {' or '.join(takers)})"
            else:
                where = ""
            parts.append(f"{flag}{where}")
        raise JaxsolveError(f"{self.asked_by} ranks by {self.value}: it takes no {'; no '.join(parts)}")


_SPELLED = {"heuristic": "--strategy heuristic", "turn_scope": "--scope turn"}


def _flag(name: str) -> str:
    return _SPELLED.get(name, "--" + name.replace("_", "-"))


_SOLUTION_OPTIONS = frozenset({"batch", "heuristic", "turn_scope", "table", "objective"})

def points(points: Any, dtype: Any, xp: Any) -> Any:
    """The points themselves (the score objective's box and bonus values)."""
    return xp.asarray(points, dtype)


def met(points: Any, dtype: Any, xp: Any) -> Any:
    """1 for a box filled with points, 0 for a box crossed out (the goals objective)."""
    return (xp.asarray(points) > 0).astype(dtype)


def nothing(points: Any, dtype: Any, xp: Any) -> Any:
    """0 whatever the points (the goals objective's bonuses)."""
    return xp.zeros(xp.shape(points), dtype)


SCORE = Objective(
    "score", "the expected final score", "", "points", "1e-9 relative (float64)", _SOLUTION_OPTIONS, "the score objective",
    reward=points, bonus=points, meaning="optimal expected final score still to come (bonuses included)",
)
GOALS = Objective(
    "goals", "the expected number of boxes met", "", "boxes met", "1e-9 relative (float64)", _SOLUTION_OPTIONS,
    "the goals objective", reward=met, bonus=nothing,
    meaning="optimal expected number of boxes still to be filled with their condition met",
)
DISTRIBUTION = Objective(
    "distribution", "the distribution of the remaining score under the score-optimal policy", "points scored",
    "probability", "1e-9 relative (float64)", frozenset(), "`distribution`",
)
TARGET = Objective(
    "target", "the probability of scoring at least the target", "points still needed", "probability",
    "1e-12 absolute", frozenset({"table"}), "`advise-target`",
)
WIN = Objective(
    "win", "the probability to finish first", "points still needed to beat each final score", "P(finish first)",
    "1e-12 absolute", frozenset({"opponent", "score", "ties", "win_method"}), "--opponent",
)
TWOPLAYER = Objective(
    "twoplayer", "the probability to win against a player who plays to win", "the lead", "P(win)",
    "1e-12 absolute", frozenset({"against", "score", "ties", "they_started", "they_start", "start"}), "--against",
)

BUILT_IN = (SCORE, GOALS, DISTRIBUTION, TARGET, WIN, TWOPLAYER)
OBJECTIVES: dict[str, Objective] = {o.name: o for o in BUILT_IN}
"""Every objective by name: the built-in ones and those registered (``register``)."""


def register(new: Objective) -> Objective:
    """Add a scalar objective: its ``reward`` and ``bonus`` are all the solve, the advisor and
    the stored tables need (a box's value replaces its points in the one turn), so ``solve
    --objective NAME``, ``advise --objective NAME`` and their tables work for it unchanged."""
    if new.reward is None or new.bonus is None or not new.scalar:
        raise JaxsolveError(f"objective {new.name!r}: only a scalar objective with a reward and a bonus can be registered")
    if new.name in OBJECTIVES:
        raise JaxsolveError(f"objective {new.name!r} is already registered")
    OBJECTIVES[new.name] = new
    return new


def unregister(name: str) -> None:
    """Remove a registered objective (the built-in ones stay)."""
    if any(o.name == name for o in BUILT_IN):
        raise JaxsolveError(f"objective {name!r} is built in")
    OBJECTIVES.pop(name, None)


def scalar_names() -> tuple[str, ...]:
    """The objectives a score table can be solved for (one value per state)."""
    return tuple(name for name, o in OBJECTIVES.items() if o.scalar)


def scalar_objective(name: str | Objective) -> Objective:
    """The scalar objective named ``name``, or one error line naming those there are."""
    if isinstance(name, Objective):
        name = name.name
    found = OBJECTIVES.get(name)
    if found is None or not found.scalar:
        raise JaxsolveError(f"unknown objective {name!r}; choose one of {', '.join(scalar_names())}")
    return found


def objective(name: str | Objective) -> Objective:
    """The objective named ``name`` (an ``Objective`` is returned as it is)."""
    if isinstance(name, Objective):
        return name
    try:
        return OBJECTIVES[name]
    except KeyError:
        raise JaxsolveError(f"unknown objective {name!r}; choose one of {', '.join(OBJECTIVES)}") from None


def for_advice(scalar: str | None, *, opponent: bool, against: bool) -> Objective:
    """The one objective a request for advice asks for: ``--against`` the two-player game,
    ``--opponent`` the win against the opponents' sheets, else the scalar ``--objective``
    (``score`` by default)."""
    if against:
        return TWOPLAYER
    if opponent:
        return WIN
    chosen = objective(scalar or "score")
    if not chosen.scalar:
        raise JaxsolveError(f"--objective takes score or goals, not {chosen.name}")
    return chosen
