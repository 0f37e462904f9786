"""Roll or stop: the Pig-family advisor over a solved duel (``solver.full``)."""

from __future__ import annotations

from dataclasses import dataclass

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab.rules import PigRules
from jaxsolve.games.raab.solver import ROLL, FullSolution, reduce_scores, terminal


def check_state(rules: PigRules, mine: int, turn: int, theirs: int, they_started: bool) -> tuple[int, int, int, int]:
    """Validate a position and return its array index ``(ts, msp, s, tsp)`` (after reduction)."""
    if min(mine, turn, theirs) < 0:
        raise JaxsolveError("scores and turn total must be >= 0")
    if they_started and not rules.last_turn:
        raise JaxsolveError(f"{rules.name} has no last-turn rule, so who started does not matter; drop --they-started")
    ts = int(they_started)
    over, val = terminal(rules, ts, mine, theirs)
    if bool(over):
        who = "you" if float(val) == 1.0 else "they"
        raise JaxsolveError(f"the game is already over at mine={mine}, theirs={theirs} ({who} won)")
    m, t = (int(v) for v in reduce_scores(rules, mine, theirs))
    if t > rules.top:
        raise JaxsolveError(f"their score {theirs} is beyond the state bound {rules.top} (use a larger --bound)")
    if not rules.last_turn and mine + turn >= rules.goal:
        raise JaxsolveError(f"banked plus turn total {mine + turn} reaches the goal {rules.goal}: stop and win")
    if m + turn > rules.top:
        raise JaxsolveError(f"banked plus turn total {mine + turn} is beyond the state bound {rules.top} (use a larger --bound)")
    return ts, m, m + turn, t


@dataclass(frozen=True)
class RollOrStop:
    decision: str
    win_if_roll: float
    win_if_stop: float | None

    @property
    def win(self) -> float:
        return self.win_if_roll if self.win_if_stop is None else max(self.win_if_roll, self.win_if_stop)


def advise(full_sol: FullSolution, mine: int, turn: int, theirs: int, they_started: bool = False) -> RollOrStop:
    """Roll or stop at a position, with the win probability of each choice."""
    rules = full_sol.rules
    ts, m, s, t = check_state(rules, mine, turn, theirs, they_started)
    roll = float(full_sol.roll[ts, m, s, t])
    stop = None if turn == 0 else float(full_sol.stop[ts, m, s, t])
    decision = "roll" if full_sol.policy[ts, m, s, t] == ROLL else "stop"
    return RollOrStop(decision, roll, stop)
