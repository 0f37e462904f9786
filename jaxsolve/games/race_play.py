"""The table of a two-player race: you against the other side, one move at a time.

What the race duels share at the table (whatever their dice): the state says both banked
scores (``you``, ``them``), who moves (``mover``), who started (``you_started``) and, once the
game is over, the ``winner``; a value is the win probability of the player to move. A game's
play class derives from ``RaceGame`` and gives its turn (``PlayedGame``'s hooks); the view of
the player to move, the end of the game and the lines around it are here. It names no game.
"""

from __future__ import annotations

from typing import Any

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.played import PlayedGame, PlayError, Summary

FIRST = ("you", "them")


def other(who: str) -> str:
    """The other side: ``them`` for ``you`` and back."""
    return "them" if who == "you" else "you"


def check_first(first: str) -> str:
    if first not in FIRST:
        raise JaxsolveError(f"who starts must be one of {', '.join(FIRST)}, got {first!r}")
    return first


def check_solution(solution: Any, rules: Any) -> Any:
    """``solution`` if it is a solution of ``rules``, else a ``PlayError``."""
    if solution.rules != rules:
        raise PlayError(f"the solution is for {solution.rules.name}, not {rules.name}")
    return solution


class RaceGame(PlayedGame):
    """A race duel in play. The state has ``you``, ``them``, ``mover``, ``you_started`` and
    ``winner``; the rules have ``last_turn`` (who started matters only under it); ``first``
    says who started this game."""

    unit = "win probability"
    first: str = "you"

    def mover(self) -> str:
        return self.state.mover

    def view(self, s: Any) -> tuple[int, int, bool]:
        """``(mine, theirs, they_started)`` from the view of the player to move."""
        mine, theirs = (s.you, s.them) if s.mover == "you" else (s.them, s.you)
        mover_started = s.you_started == (s.mover == "you")
        return mine, theirs, (not mover_started) and self.rules.last_turn

    def end_value(self) -> float:
        """Your win probability once the game is over: 1 or 0."""
        return float(self.state.winner == "you")

    def your_win(self) -> float:
        """Your win probability now (both playing optimally from here)."""
        v = self.value_now()
        assert v is not None
        return v if self.state.mover == "you" or self.over else 1.0 - v

    @staticmethod
    def won_text(s: Any) -> str:
        """``; you win`` or ``; they win`` once ``s`` has a winner, else nothing."""
        if s.winner is None:
            return ""
        return "; you win" if s.winner == "you" else "; they win"

    def race_status(self, heading: str, turn: str) -> list[str]:
        """The status lines: ``heading``, then who won, or ``turn`` (the mover's turn) and your
        win probability."""
        lines = [heading]
        if self.over:
            lines.append("you won" if self.state.winner == "you" else "they won")
            return lines
        return lines + [turn, f"your win probability now: {self.your_win():.4f}"]

    def race_summary(self, start_value: float, expected_label: str | None = None) -> Summary:
        """The summary: 1 if you won, else 0, against your win probability at the start, where
        ``start_value`` is the start player's."""
        s = self.state
        result = "won" if s.winner == "you" else ("lost" if s.winner == "them" else "not finished")
        start = start_value if self.first == "you" else 1.0 - start_value
        lines = (f"you {result}: you {s.you}, them {s.them}",)
        return Summary(float(s.winner == "you"), start, self.regret, self.decisions(), self.unit, lines, expected_label)
