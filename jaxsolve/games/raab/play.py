"""A Schlag den Raab / Pig duel: you against an opponent, with the exact win probabilities.

You play one side. The other side (``opponent``) is the optimal bot (it decides by the
solved policy; its throws are typed or thrown like yours) or a person whose throws and
decisions you type (``opponent="human"``). ``first`` says who starts. A turn starts with a
throw; after a throw that did not bust, the player to move rolls again or stops and banks.
Where stopping is the only sensible move it happens by itself: a Pig player whose banked
score plus turn total reaches the goal banks and wins, and a total past the state bound
(last-turn rule) is banked as the solver assumes.

A value is the win probability of the player to move (for your decisions: yours); a regret
is the best option's win probability minus the chosen one's.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from jaxsolve.games.race_play import RaceGame, check_first, check_solution, other
from jaxsolve.games.raab import advisor, solver
from jaxsolve.games.raab.rules import PigRules
from jaxsolve.errors import JaxsolveError
from jaxsolve.io import cache
from jaxsolve.games.played import OneDieThrows, PlayError, PlayOption, Summary

OPPONENTS = ("bot", "human")


@dataclass(frozen=True)
class DuelState:
    """Banked scores, the turn total of the player to move, whose move, who started; ``rolled``:
    the mover has thrown this turn without busting (a decision is due); ``winner`` once over."""

    you: int
    them: int
    turn_total: int
    mover: str
    you_started: bool
    rolled: bool = False
    winner: str | None = None


_FULL: dict[int, tuple[Any, solver.FullSolution]] = {}  # id(table) -> (table, its mid-turn values), the newest last
FULL_KEPT = 8
_FULL_LOCK = threading.Lock()


def _full_of(sol) -> solver.FullSolution:
    """``solver.full(sol)``, computed once per table for every game on it (a server plays many
    games on one table; each copy is tens of MB), for the ``FULL_KEPT`` tables used last."""
    with _FULL_LOCK:
        kept = _FULL.pop(id(sol), None)
    if kept is None or kept[0] is not sol:
        kept = (sol, solver.full(sol))
    with _FULL_LOCK:
        _FULL[id(sol)] = kept
        while len(_FULL) > FULL_KEPT:
            _FULL.pop(next(iter(_FULL)))
    return kept[1]


def _forgotten(key, sol) -> None:
    with _FULL_LOCK:
        _FULL.pop(id(sol), None)  # the solution store let go of the table (a server's memory limit)


cache.on_forget(_forgotten)


class RaabGame(OneDieThrows, RaceGame):
    """One duel. ``full`` is ``solver.full`` of the solution cache's table of ``rules``
    (``Game.solution``; solved there when not given)."""

    rules_type = PigRules

    def __init__(self, game: str, rules: PigRules, full: solver.FullSolution | None = None, *, opponent="bot", first="you", seed=None, auto_roll=False):
        if opponent not in OPPONENTS:
            raise JaxsolveError(f"unknown opponent {opponent!r}; choose one of {', '.join(OPPONENTS)}")
        self.first = check_first(first)
        self.opponent = opponent
        if full is None:
            from jaxsolve.games import get_game

            full = _full_of(get_game(game).solution(rules))
        full = check_solution(full, rules)
        super().__init__(game, rules, full, seed=seed, auto_roll=auto_roll)

    def settings(self) -> dict:
        return {"opponent": self.opponent, "first": self.first}

    # ------------------------------------------------------------------ state

    def initial_state(self) -> DuelState:
        return DuelState(0, 0, 0, self.first, self.first == "you")

    def _forced_stop(self, s: DuelState) -> bool:
        mine, theirs, they_started = self.view(s)
        rules = self.rules
        if not rules.last_turn:
            return mine + s.turn_total >= rules.goal
        m, _ = (int(v) for v in solver.reduce_scores(rules, mine, theirs))
        return m + s.turn_total > rules.top

    def _advice(self, s: DuelState) -> advisor.RollOrStop:
        mine, theirs, they_started = self.view(s)
        return advisor.advise(self.solution, mine, s.turn_total, theirs, they_started)

    def _turn_start_value(self, s: DuelState) -> float:
        """Win probability of the player to move at the start of a turn (the roll is forced)."""
        mine, theirs, they_started = self.view(s)
        ts, m, i, t = advisor.check_state(self.rules, mine, 0, theirs, they_started)
        return float(self.solution.value[ts, m, i, t])

    # ------------------------------------------------------------------ options

    def ranked_options(self) -> list[PlayOption]:
        a = self._advice(self.state)
        roll = PlayOption("roll", a.win_if_roll, 0.0, {"action": "roll"}, a)
        if a.win_if_stop is None:  # the turn has not started: rolling is the only move
            return [roll]
        stop = PlayOption(f"stop (bank {self.state.turn_total})", a.win_if_stop, 0.0, {"action": "stop"}, a)
        ranked = [roll, stop] if a.decision == "roll" else [stop, roll]
        best = ranked[0].value
        return [PlayOption(o.label, o.value, best - o.value, o.move, a) for o in ranked]

    def advise_options(self) -> dict:
        mine, theirs, they_started = self.view(self.state)
        return {"mine": mine, "theirs": theirs, "turn": self.state.turn_total, "they_started": they_started}

    def help_choice(self) -> str:
        return "roll (1), stop, a number from the list, or b (Enter) for the best"

    def auto_move(self) -> dict | None:
        s = self.state
        if not s.rolled:
            return None
        if self._forced_stop(s):
            return {"action": "stop", "by": s.mover, "forced": True}
        if s.mover == "them" and self.opponent == "bot":
            return {"action": self._advice(s).decision, "by": "them"}
        return None

    # ------------------------------------------------------------------ moves

    def _banked(self, s: DuelState) -> int:
        """What stopping banks: the turn total, except that (last-turn rule) a total beyond the
        state bound banks the bound, as the solver assumes."""
        mine, theirs, _ = self.view(s)
        if not self.rules.last_turn:
            return s.turn_total
        m, _ = (int(v) for v in solver.reduce_scores(self.rules, mine + s.turn_total, theirs))
        return s.turn_total - max(0, m - self.rules.top)

    def _bank(self, s: DuelState) -> tuple[DuelState, str]:
        gain = self._banked(s)
        you, them = (s.you + gain, s.them) if s.mover == "you" else (s.you, s.them + gain)
        nxt = DuelState(you, them, 0, other(s.mover), s.you_started)
        mine, theirs, they_started = self.view(nxt)
        over, val = solver.terminal(self.rules, int(they_started), mine, theirs)
        if bool(over):
            winner = nxt.mover if float(val) == 1.0 else s.mover
            nxt = DuelState(you, them, 0, nxt.mover, s.you_started, False, winner)
        return nxt, ""

    def apply(self, s: DuelState, move: dict):
        who = "you" if s.mover == "you" else "they"
        action = move.get("action")
        if action == "throw":
            face = self.thrown_face(s, move)
            if face == self.rules.bust:
                nxt, _ = self._bank(DuelState(s.you, s.them, 0, s.mover, s.you_started))
                return nxt, f"{who} threw {face}: bust, the turn total {s.turn_total} is lost" + self.won_text(nxt)
            total = s.turn_total + self.rules.points[face - 1]
            return DuelState(s.you, s.them, total, s.mover, s.you_started, True), f"{who} threw {face}: turn total {total}"
        if not s.rolled:
            raise PlayError("a throw is due first")
        if action == "roll":
            return DuelState(s.you, s.them, s.turn_total, s.mover, s.you_started, False), f"{who} roll again"
        if action == "stop":
            nxt, _ = self._bank(s)
            gain = self._banked(s)
            forced = ""
            if move.get("forced"):
                forced = " (the goal is reached)" if not self.rules.last_turn else f" (beyond the state bound {self.rules.top}: {gain} banked)"
            return nxt, f"{who} bank {s.turn_total}{forced}" + self.won_text(nxt)
        raise PlayError(f"unknown move {action!r}")

    # ------------------------------------------------------------------ display

    def where(self) -> str:
        s = self.state
        return f"you {s.you}, them {s.them}, turn total {s.turn_total}"

    def value_now(self) -> float | None:
        s = self.state
        if s.winner is not None:
            return self.end_value()
        if s.rolled:
            return self.options()[0].value
        if s.turn_total == 0:
            return self._turn_start_value(s)
        return self._advice(DuelState(s.you, s.them, s.turn_total, s.mover, s.you_started, True)).win_if_roll

    def start_win(self) -> float:
        """Your win probability at the start of the game under optimal play by both."""
        return self.summary().expected

    def status(self) -> list[str]:
        s, rules = self.state, self.rules
        starter = "you started" if s.you_started else "they started"
        opp = "the optimal bot" if self.opponent == "bot" else "a person"
        mover = "your" if s.mover == "you" else "their"
        return self.race_status(f"{rules.name} (goal {rules.goal}) against {opp}: you {s.you}, them {s.them}; {starter}", f"{mover} turn, turn total {s.turn_total}")

    def summary(self) -> Summary:
        start = advisor.check_state(self.rules, 0, 0, 0, False)
        return self.race_summary(float(self.solution.value[start]), "your win probability at the start (both optimal)")

    def warm(self) -> None:
        self.start_win()
