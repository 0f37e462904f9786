"""A Zehntausend duel: you against the optimal computer, race to the goal.

The player to move throws six dice; a throw without a scoring die is a bust (the turn points
are lost, the turn passes); otherwise she writes (banks the points set aside plus the most the
throw scores; not below the entry minimum while her banked score is 0) or sets a usable part
aside and throws the other dice (all six used: six again; also when the turn total already
reaches the goal: the throw can still bust). With first-to-goal the first to
bank the goal wins. With the last-turn rule a start player's write at or above the goal gives
the other player one last turn, won only by ending with more points.

The other side is the optimal computer (it decides by the solved duel; its throws are thrown
or typed like yours). A value is the win probability of the player to move; a regret is the
best option's win probability minus the chosen one's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from jaxsolve.games.race_play import RaceGame, check_first, other
from jaxsolve.games.zehntausend import duel_advisor
from jaxsolve.games.zehntausend.duel_rules import DuelRules
from jaxsolve.games.zehntausend.play import AsideChoices, aside_options
from jaxsolve.games.zehntausend.rules import DICE, ZehntausendRules
from jaxsolve.games.played import PlayError, PlayOption, Summary, fmt_faces


@dataclass(frozen=True)
class DuelState:
    """Banked scores, whose move, who started, the mover's points set aside, dice to throw, the
    dice showing (None: a throw is due), ``last``: the mover plays the last turn; ``winner``."""

    you: int
    them: int
    mover: str
    you_started: bool
    points: int = 0
    dice: int = DICE
    throw: tuple[int, ...] | None = None
    last: bool = False
    winner: str | None = None


def _solve(rules: DuelRules):
    """The solution cache's table of ``rules``; where the command line has not set JAX up (it
    asked for a precision: ``cache.asked_dtype``), a table the cache holds is read without JAX
    (the answers are NumPy's, ``duel_numpy``) and JAX is set up only to solve."""
    from jaxsolve.games import get_game
    from jaxsolve.io import cache

    game, dtype = get_game("zehntausend-duel"), cache.asked_dtype()
    held = cache.stored(game, rules, dtype=dtype) if dtype is not None else None
    return held if held is not None else game.solution(rules, dtype=dtype)


class DuelGame(RaceGame, AsideChoices):
    """One duel. ``solution`` defaults to the solution cache's table of ``rules`` (``Game.solution``)."""

    rules_type = DuelRules
    numpy_answers = True  # answers from a solved table need no JAX (``cli.play`` sets it up only to solve)

    def __init__(self, game: str, rules: DuelRules, solution=None, *, first: str = "you", seed=None, auto_roll=False):
        self.first = check_first(first)
        super().__init__(game, rules, solution, _solve, seed=seed, auto_roll=auto_roll)

    def settings(self) -> dict:
        return {"first": self.first}

    @property
    def scoring_rules(self) -> ZehntausendRules:
        return self.rules.turn_rules

    # ------------------------------------------------------------------ state

    def initial_state(self) -> DuelState:
        return DuelState(0, 0, self.first, self.first == "you")

    def finished(self) -> bool:
        return self.state.winner is not None

    def _choices(self, s: DuelState):
        mine, theirs, they_started = self.view(s)
        return duel_advisor.advise(self.solution, mine, theirs, s.points, list(s.throw or ()), they_started)

    # ------------------------------------------------------------------ options

    def ranked_options(self) -> list[PlayOption]:
        return aside_options(self._choices(self.state), lambda c: c.label)

    def advise_options(self) -> dict:
        mine, theirs, they_started = self.view(self.state)
        return {"mine": mine, "theirs": theirs, "turn": self.state.points, "dice": " ".join(map(str, self.state.throw)), "they_started": they_started}

    def no_write(self) -> str:
        return f"writing is not allowed here: the entry minimum is {self.rules.entry}"

    def auto_move(self) -> dict | None:
        s = self.state
        if s.throw is not None and s.mover == "them":
            return dict(self.ranked_options()[0].move, by="them")
        return None

    # ------------------------------------------------------------------ moves

    def _pass(self, s: DuelState, gain: int) -> DuelState:
        """The mover's turn ends with ``gain`` banked: who moves next, or who won."""
        you, them = (s.you + gain, s.them) if s.mover == "you" else (s.you, s.them + gain)
        mine = you if s.mover == "you" else them
        theirs = them if s.mover == "you" else you
        nxt = other(s.mover)
        goal = self.rules.goal
        if s.last:  # the last turn: more than the start player's score wins
            return DuelState(you, them, nxt, s.you_started, winner=s.mover if mine > theirs else nxt)
        if mine >= goal:
            mover_started = s.you_started == (s.mover == "you")
            if self.rules.last_turn and mover_started:
                return DuelState(you, them, nxt, s.you_started, last=True)
            return DuelState(you, them, nxt, s.you_started, winner=s.mover)
        return DuelState(you, them, nxt, s.you_started)

    def apply(self, s: DuelState, move: dict):
        who = "you" if s.mover == "you" else "they"
        action = move.get("action")
        if action == "throw":
            dice, bust = self.thrown(s, move)
            if bust:
                nxt = self._pass(s, 0)
                return nxt, f"{who} threw {fmt_faces(dice)}: bust, {s.points} lost" + self._over_text(nxt)
            return replace(s, throw=dice), f"{who} threw {fmt_faces(dice)}"
        if s.throw is None:
            raise PlayError("a throw is due first")
        options = self.ranked_options()
        if action == "write":
            match = next((o for o in options if o.move["action"] == "write"), None)
            if match is None:
                raise PlayError(self.no_write())
            gain = match.detail.points
            mine, _, _ = self.view(s)
            cap = self.rules.bound - mine if not s.last else gain
            nxt = self._pass(s, min(gain, cap))
            return nxt, f"{who} wrote {gain}" + self._over_text(nxt)
        if action == "aside":
            want = sorted(str(f) for f in move.get("set_aside", []))
            match = next((o for o in options if o.move.get("set_aside") == want), None)
            if match is None:
                raise PlayError(f"{' '.join(want) or 'nothing'} is not a usable set-aside of {fmt_faces(s.throw)}")
            c = match.detail
            return replace(s, points=c.points, dice=c.dice, throw=None), f"{who} set aside {' '.join(want)}: {c.points} this turn, throw {c.dice}"
        raise PlayError(f"unknown move {action!r}")

    @classmethod
    def _over_text(cls, s: DuelState) -> str:
        if s.last:
            return "; the goal is reached: one last turn for the other player"
        return cls.won_text(s)

    # ------------------------------------------------------------------ display

    def where(self) -> str:
        s = self.state
        return f"you {s.you}, them {s.them}, {s.points} aside, threw {fmt_faces(s.throw) if s.throw else '-'}"

    def throw_value(self) -> float:
        s = self.state
        mine, theirs, they_started = self.view(s)
        V, _ = duel_advisor.tables_at(self.solution, mine, theirs, they_started)
        return float(V[min(s.points // 50, V.shape[0] - 1), s.dice])  # from the goal (bound) on, every total alike

    def status(self) -> list[str]:
        s, rules = self.state, self.rules
        heading = f"zehntausend duel {rules.name} (goal {rules.goal}): you {s.you}, them {s.them}; {'you' if s.you_started else 'they'} started"
        mover = "your" if s.mover == "you" else "their"
        last = " (last turn)" if s.last else ""
        shown = f"the dice show {fmt_faces(s.throw)}" if s.throw else f"throw {s.dice} {'die' if s.dice == 1 else 'dice'}"
        return self.race_status(heading, f"{mover} turn{last}: {s.points} set aside; {shown}")

    def summary(self) -> Summary:
        return self.race_summary(self.solution.game_value)

    def warm(self) -> None:
        duel_advisor.advise(self.solution, 0, 0, 0, [1, 5, 5, 2, 3, 4])
