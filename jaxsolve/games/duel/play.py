"""A Zehntausend duel: you against the optimal computer, race to the goal.

The player to move throws six dice; a throw without a scoring die is a bust (the turn points
are lost, the turn passes); otherwise she writes (banks the points set aside plus the most the
throw scores; not below the entry minimum while her banked score is 0) or sets a usable part
aside and throws the other dice (all six used: six again). With first-to-goal the first to
bank the goal wins. With the last-turn rule a start player's write at or above the goal gives
the other player one last turn, won only by ending with more points.

The other side is the optimal computer (it decides by the solved duel; its throws are thrown
or typed like yours). A value is the win probability of the player to move; a regret is the
best option's win probability minus the chosen one's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.duel import advisor
from jaxsolve.games.duel.rules import DuelRules
from jaxsolve.games.zehntausend import scoring
from jaxsolve.games.zehntausend.play import AsideChoices, aside_options
from jaxsolve.games.zehntausend.rules import DICE
from jaxsolve.play.base import PlayError, PlayOption, PlayedGame, Summary, fmt_faces

FIRST = ("you", "them")


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


def _other(who: str) -> str:
    return "them" if who == "you" else "you"


class DuelGame(AsideChoices, PlayedGame):
    """One duel. ``solution`` defaults to ``zehntausend.solve(rules)``."""

    unit = "win probability"
    rules_type = DuelRules

    def __init__(self, game: str, rules: DuelRules, solution=None, *, first: str = "you", seed=None, auto_roll=False):
        if first not in FIRST:
            raise JaxsolveError(f"who starts must be one of {', '.join(FIRST)}, got {first!r}")
        if solution is None:
            from jaxsolve.games.duel import zehntausend

            solution = zehntausend.solve(rules)
        if solution.rules != rules:
            raise PlayError(f"the solution is for {solution.rules.name}, not {rules.name}")
        self.first = first
        super().__init__(game, rules, solution, seed=seed, auto_roll=auto_roll)

    def settings(self) -> dict:
        return {"first": self.first}

    # ------------------------------------------------------------------ state

    def initial_state(self) -> DuelState:
        return DuelState(0, 0, self.first, self.first == "you")

    def awaiting(self) -> str:
        s = self.state
        if s.winner is not None:
            return "over"
        return "dice" if s.throw is None else "choice"

    def mover(self) -> str:
        return self.state.mover

    def throw_size(self) -> int:
        return self.state.dice

    def _view(self, s: DuelState):
        """``(mine, theirs, they_started)`` from the view of the player to move."""
        mine, theirs = (s.you, s.them) if s.mover == "you" else (s.them, s.you)
        mover_started = s.you_started == (s.mover == "you")
        return mine, theirs, (not mover_started) and self.rules.last_turn

    def _choices(self, s: DuelState):
        mine, theirs, they_started = self._view(s)
        return advisor.advise(self.solution, mine, theirs, s.points, list(s.throw), they_started)

    # ------------------------------------------------------------------ options

    def ranked_options(self) -> list[PlayOption]:
        return aside_options(self._choices(self.state), lambda c: c.label)

    def advise_options(self) -> dict:
        mine, theirs, they_started = self._view(self.state)
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
        nxt = _other(s.mover)
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
            if s.throw is not None:
                raise PlayError("the dice are showing already")
            dice = tuple(sorted(int(d) for d in move.get("dice", [])))
            if len(dice) != s.dice or any(not 1 <= d <= 6 for d in dice):
                raise PlayError(f"this throw has {s.dice} dice 1..6, got {list(dice)}")
            if scoring.write_points(self.rules.turn_rules, scoring.parse_throw(dice)) == 0:
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
            mine, _, _ = self._view(s)
            cap = self.rules.bound - mine if not s.last else gain
            nxt = self._pass(s, min(gain, cap))
            return nxt, f"{who} wrote {gain}" + self._over_text(nxt)
        if action == "aside":
            want = sorted(str(f) for f in move.get("set_aside", []))
            match = next((o for o in options if o.move.get("set_aside") == want), None)
            if match is None:
                raise PlayError(f"{' '.join(want) or 'nothing'} is not a usable set-aside of {fmt_faces(s.throw)}")
            c = match.detail
            mine, theirs, _ = self._view(s)
            if theirs < self.rules.goal and mine + c.points >= self.rules.bound:  # the solver's state bound: written there
                nxt = self._pass(s, self.rules.bound - mine)
                return nxt, f"{who} set aside {' '.join(want)}: {c.points} this turn reaches {self.rules.bound}, written" + self._over_text(nxt)
            return replace(s, points=c.points, dice=c.dice, throw=None), f"{who} set aside {' '.join(want)}: {c.points} this turn, throw {c.dice}"
        raise PlayError(f"unknown move {action!r}")

    @staticmethod
    def _over_text(s: DuelState) -> str:
        if s.last:
            return "; the goal is reached: one last turn for the other player"
        if s.winner is None:
            return ""
        return "; you win" if s.winner == "you" else "; they win"

    # ------------------------------------------------------------------ display

    def where(self) -> str:
        s = self.state
        return f"you {s.you}, them {s.them}, {s.points} aside, threw {fmt_faces(s.throw) if s.throw else '-'}"

    def value_now(self) -> float | None:
        s = self.state
        if s.winner is not None:
            return 1.0 if s.winner == "you" else 0.0
        if s.throw is not None:
            return self.options()[0].value
        mine, theirs, they_started = self._view(s)
        V, _ = advisor.tables_at(self.solution, mine, theirs, they_started)
        return float(V[s.points // 50, s.dice])

    def your_win(self) -> float:
        v = self.value_now()
        return v if self.state.mover == "you" or self.over else 1.0 - v

    def status(self) -> list[str]:
        s, rules = self.state, self.rules
        lines = [f"zehntausend duel {rules.name} (goal {rules.goal}): you {s.you}, them {s.them}; {'you' if s.you_started else 'they'} started"]
        if self.over:
            lines.append("you won" if s.winner == "you" else "they won")
            return lines
        mover = "your" if s.mover == "you" else "their"
        last = " (last turn)" if s.last else ""
        shown = f"the dice show {fmt_faces(s.throw)}" if s.throw else f"throw {s.dice} {'die' if s.dice == 1 else 'dice'}"
        lines.append(f"{mover} turn{last}: {s.points} set aside; {shown}")
        lines.append(f"your win probability now: {self.your_win():.4f}")
        return lines

    def summary(self) -> Summary:
        won = self.state.winner == "you"
        start = self.solution.game_value if self.first == "you" else 1.0 - self.solution.game_value
        return Summary(1.0 if won else 0.0, start, self.regret, self.decisions(), self.unit, (f"you {'won' if won else 'lost'}: you {self.state.you}, them {self.state.them}",))

    def warm(self) -> None:
        advisor.advise(self.solution, 0, 0, 0, [1, 5, 5, 2, 3, 4])
