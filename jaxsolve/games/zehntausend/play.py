"""A game of Zehntausend: a number of turns (``turns``), each played against ``E(p, n)``.

A turn: throw six dice; a throw without a scoring die is a bust (the turn ends with 0);
otherwise write (bank the points set aside plus the best the throw can score) or set aside a
usable part and throw the other dice (all six used: throw six again). The running total
adds up the turns. The solver maximises the expected score of a turn, so the optimal
expectation of a game of ``turns`` turns is ``turns * E(0, 6)``.

A value is ``E``: the expected final score of this turn from this moment (the points set
aside this turn included, because a bust still loses them; the running total excluded); a
regret is the best option's value minus the chosen one's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from jaxsolve.games.zehntausend import scoring
from jaxsolve.games.zehntausend.rules import DICE, ZehntausendRules
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.played import PlayError, PlayOption, PlayedGame, Summary, fmt_faces, split_tokens

if TYPE_CHECKING:
    from jaxsolve.games.zehntausend import solver


def _advise(*args):
    """``advisor.advise``, imported on first use (the advisor's solver loads JAX; the duel's
    play class, built on ``AsideChoices``, answers without it)."""
    from jaxsolve.games.zehntausend import advisor

    return advisor.advise(*args)


MAX_TURNS = 1000


def aside_options(choices, label) -> list[PlayOption]:
    """Play options from an advisor's ranked choices (each ``action`` "write" or "throw" with
    its ``set_aside``), labelled by ``label(choice)``; regrets against the first."""
    best = choices[0].value
    out = []
    for c in choices:
        move = {"action": "write"} if c.action == "write" else {"action": "aside", "set_aside": list(c.set_aside)}
        out.append(PlayOption(label(c), c.value, best - c.value, move, c))
    return out


class AsideChoices(PlayedGame):
    """What a Zehntausend turn is at the table, alone and in the duel: the state's ``dice`` to
    throw and ``throw`` showing (None: a throw is due), a throw checked against the scoring,
    and the typed choices ``write`` or ``aside <dice>``. A game says when it is ``finished``
    and which ``scoring_rules`` its turn has."""

    def __init__(self, game: str, rules, solution, solve: Callable, *, seed=None, auto_roll=False):
        """``solution`` (``solve(rules)`` when None) must be a solution of ``rules``."""
        if solution is None:
            solution = solve(rules)
        if solution.rules != rules:
            raise PlayError(f"the solution is for {solution.rules.name}, not {rules.name}")
        super().__init__(game, rules, solution, seed=seed, auto_roll=auto_roll)

    @property
    def scoring_rules(self) -> ZehntausendRules:
        return self.rules

    def finished(self) -> bool:
        raise NotImplementedError

    def awaiting(self) -> str:
        if self.finished():
            return "over"
        return "dice" if self.state.throw is None else "choice"

    def throw_size(self) -> int:
        return self.state.dice

    def value_now(self) -> float | None:
        """The best option's value while a choice is due, else ``end_value`` or ``throw_value``."""
        if self.over:
            return self.end_value()
        if self.state.throw is not None:
            return self.options()[0].value
        return self.throw_value()

    def end_value(self) -> float:
        """The value once the game is over (no more points)."""
        return 0.0

    def throw_value(self) -> float:
        """The value of the throw that is due."""
        raise NotImplementedError

    def thrown(self, s, move: dict) -> tuple[tuple[int, ...], bool]:
        """The dice of a throw ``move`` at ``s``, sorted, and whether they bust (score nothing)."""
        if s.throw is not None:
            raise PlayError("the dice are showing already")
        dice = tuple(sorted(int(d) for d in move.get("dice", [])))
        if len(dice) != s.dice or any(not 1 <= d <= 6 for d in dice):
            raise PlayError(f"this throw has {s.dice} dice 1..6, got {list(dice)}")
        return dice, scoring.write_points(self.scoring_rules, scoring.parse_throw(dice)) == 0

    def no_write(self) -> str:
        """Why writing is not among the options (only where a rule can forbid it)."""
        return "writing is not allowed here"

    def help_choice(self) -> str:
        return "a number from the list, write, aside <dice> (e.g. aside 1 5; 1* is two 5s as a 1), or b (Enter) for the best"

    def named_option(self, text: str, options: list[PlayOption]) -> PlayOption:
        tokens = split_tokens(text.lower())
        if tokens in (["write"], ["w"], ["stop"], ["bank"]):
            found = [o for o in options if o.move["action"] == "write"]
            if not found:
                raise PlayError(self.no_write())
            return found[0]
        if tokens[:2] == ["set", "aside"]:
            tokens = ["aside"] + tokens[2:]
        if not tokens or tokens[0] not in ("aside", "keep", "a", "k"):
            raise PlayError(f"unknown choice {text.strip()!r}: type {self.help_choice()}")
        faces = []
        for t in tokens[1:]:
            for part in [t] if t == "1*" else (list(t) if t.isdigit() else [t]):
                if part != "1*" and part not in "123456":
                    raise PlayError(f"{part!r} is not a die to set aside (faces 1..6, or 1* for two 5s)")
                faces.append(part)
        if not faces:
            raise PlayError("set aside which dice? e.g. aside 1 5")
        faces = sorted(faces)
        for o in options:
            if o.move.get("set_aside") == faces:
                return o
        raise PlayError(
            f"{' '.join(faces)} is not a usable set-aside of {fmt_faces(self.state.throw)} (1s and 5s score alone, 2 3 4 6 only three or more of a kind)"
        )


@dataclass(frozen=True)
class TurnState:
    """``turn`` (1-based), ``total`` banked, ``points`` set aside this turn, ``dice`` to throw
    next, ``throw`` the dice showing (None: a throw is due)."""

    turn: int
    total: int
    points: int
    dice: int
    throw: tuple[int, ...] | None = None


def _solution_of(game: str) -> Callable:
    """``solve(rules)``: the solution cache's table of the registered ``game``."""
    from jaxsolve.games import get_game

    return lambda rules: get_game(game).solution(rules)


class ZehntausendGame(AsideChoices):
    """A game of ``turns`` turns. ``solution`` defaults to the solution cache's table of
    ``rules`` (``Game.solution``)."""

    unit = "points"
    rules_type = ZehntausendRules

    def __init__(self, game: str, rules: ZehntausendRules, solution: solver.Solution | None = None, *, turns: int = 10, seed=None, auto_roll=False):
        if isinstance(turns, bool) or not isinstance(turns, int) or not 1 <= turns <= MAX_TURNS:
            raise JaxsolveError(f"turns must be between 1 and {MAX_TURNS}, got {turns!r}")
        self.turns = turns
        super().__init__(game, rules, solution, _solution_of(game), seed=seed, auto_roll=auto_roll)

    def settings(self) -> dict:
        return {"turns": self.turns}

    # ------------------------------------------------------------------ state

    def initial_state(self) -> TurnState:
        return TurnState(1, 0, 0, DICE)

    def finished(self) -> bool:
        return self.state.turn > self.turns

    # ------------------------------------------------------------------ options

    def ranked_options(self) -> list[PlayOption]:
        s = self.state
        return aside_options(_advise(self.solution, s.points, list(s.throw)), lambda c: c.describe())

    def advise_options(self) -> dict:
        return {"points": self.state.points, "dice": " ".join(map(str, self.state.throw))}

    # ------------------------------------------------------------------ moves

    def apply(self, s: TurnState, move: dict):
        action = move.get("action")
        if action == "throw":
            dice, bust = self.thrown(s, move)
            if bust:
                lost = f"; the {s.points} set aside are lost" if s.points else ""
                return TurnState(s.turn + 1, s.total, 0, DICE), f"threw {fmt_faces(dice)}: bust, turn {s.turn} ends with 0{lost}"
            return TurnState(s.turn, s.total, s.points, s.dice, dice), f"threw {fmt_faces(dice)}"
        if s.throw is None:
            raise PlayError("a throw is due first")
        if action == "write":
            points = s.points + scoring.write_points(self.rules, scoring.parse_throw(s.throw))
            return TurnState(s.turn + 1, s.total + points, 0, DICE), f"wrote {points}: turn {s.turn} ends, total {s.total + points}"
        if action == "aside":
            want = sorted(str(f) for f in move.get("set_aside", []))
            choices = _advise(self.solution, s.points, list(s.throw))
            match = next((c for c in choices if c.action == "throw" and list(c.set_aside) == want), None)
            if match is None:
                raise PlayError(f"{' '.join(want) or 'nothing'} is not a usable set-aside of {fmt_faces(s.throw)}")
            again = " (all six used)" if match.dice == DICE and len(want) else ""
            return TurnState(s.turn, s.total, match.points, match.dice), f"set aside {' '.join(want)}: {match.points} this turn, throw {match.dice}{again}"
        raise PlayError(f"unknown move {action!r}")

    # ------------------------------------------------------------------ display

    def where(self) -> str:
        s = self.state
        return f"turn {s.turn}: {s.points} aside, threw {fmt_faces(s.throw)}"

    def throw_value(self) -> float:
        return self.solution.value(self.state.points, self.state.dice)

    def status(self) -> list[str]:
        s = self.state
        lines = [f"zehntausend {self.rules.name}: turn {min(s.turn, self.turns)} of {self.turns}, total {s.total}"]
        if self.over:
            return lines
        if s.throw is None:
            lines.append(f"{s.points} set aside this turn; throw {s.dice} {'die' if s.dice == 1 else 'dice'}")
        else:
            lines.append(f"{s.points} set aside this turn; the dice show {fmt_faces(s.throw)}")
        lines.append(f"value now: {self.value_now():.2f} points expected from this turn")
        return lines

    def summary(self) -> Summary:
        lines = (f"total {self.state.total} after {min(self.state.turn - 1, self.turns)} of {self.turns} turns",)
        expected = self.turns * self.solution.turn_value
        return Summary(float(self.state.total), expected, self.regret, self.decisions(), self.unit, lines)

    def warm(self) -> None:
        _advise(self.solution, 0, [1, 5, 5, 2, 3, 4])
        scoring.write_points(self.rules, scoring.parse_throw([1, 5, 5, 2, 3, 4]))
