"""The Pig family at a table in play (``jaxsolve play pig-table``): you in one seat against N-1
computer players who play the solved equilibrium.

The computer players throw the seeded virtual dice by themselves and bank or roll by the solved
decisions (``table_simulate.decisions``, the tie rule: bank within ``1e-12``); a computer player
who mixes at a cycle without a pure equilibrium draws, at the start of his turn, which of his
two policies he plays (the one optimal just below his breakpoint with the probability the solve
found), from the game's seed, so a saved game replays alike. Your throws are typed or thrown by
the virtual dice; after each throw that did not bust you roll on or bank. A turn total that
reaches the goal is banked at once and wins. A value is your win probability; the status shows
every seat's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from jaxsolve.core.race_cycles import flat_index
from jaxsolve.core.race_table import cycle_note
from jaxsolve.games.played import OneDieThrows, PlayedGame, PlayError, PlayOption, Summary
from jaxsolve.games.raab.table_rules import PigTableRules
from jaxsolve.games.raab.table_simulate import NUDGE, decisions, turn_options

PLAN_TABLE, PLAN_LEFT, PLAN_RIGHT = 0, 1, 2


@dataclass(frozen=True)
class TableState:
    """Every seat's banked score (seat 0 moves first), whose move (``mover``, a seat), the turn
    total; ``rolled``: the mover has thrown this turn without busting (a decision is due);
    ``plan``: the policy a mixing computer player drew this turn; ``winner`` once over."""

    scores: tuple[int, ...]
    mover: int
    turn_total: int = 0
    rolled: bool = False
    plan: int = PLAN_TABLE
    winner: int | None = None


class TablePigGame(OneDieThrows, PlayedGame):
    """One game at a table. ``solution``: the solved table (``race_table_game.SolvedTable``;
    from the solution cache when not given); ``seat``: yours, 1 moves first."""

    unit = "win probability"
    rules_type = PigTableRules
    numpy_answers = True  # answers from a solved table need no JAX (JAX only to solve)
    stop_action = "bank"

    def __init__(self, game: str, rules: PigTableRules, solution: Any = None, *, seat: int = 1, seed=None, auto_roll=False):
        from jaxsolve.games.race_table_game import check_seat

        self.seat = check_seat(seat, rules.players)
        if solution is None:
            from jaxsolve.games import get_game

            solution = get_game(game).solution(rules, dtype="float64")
        if solution.rules != rules:
            raise PlayError(f"the solution is for {solution.rules.name}, not {rules.name}")
        self.values = np.asarray(solution.values, np.float64)
        self._mixed = {}
        for u in solution.unsettled:
            if u["selected"] == "mixed":
                for i, q in zip(u["mixer"], u["q"]):
                    self._mixed[int(u["members"][i])] = float(q)
        self._rows: dict[tuple[int, int], np.ndarray] = {}
        super().__init__(game, rules, solution, seed=seed, auto_roll=auto_roll)

    def settings(self) -> dict:
        return {"seat": self.seat + 1}

    # ------------------------------------------------------------------ the table's view

    def seen(self, s: TableState) -> tuple[int, ...]:
        """The banked scores from the mover's view (mover first)."""
        n = self.rules.players
        return tuple(s.scores[(s.mover + k) % n] for k in range(n))

    def _state_index(self, s: TableState) -> int:
        return int(flat_index(np.array(self.seen(s)), self.rules.goal))

    def _bank_row(self, state: int, plan: int) -> np.ndarray:
        """The solved decisions of a state (bank at turn total p), or a mixer's policy below
        (left) or above (right) his breakpoint."""
        key = (state, plan)
        if key not in self._rows:
            shift = None if plan == PLAN_TABLE else np.array([-NUDGE if plan == PLAN_LEFT else NUDGE])
            self._rows[key] = decisions(self.rules, self.values, shift, np.array([state]))[0]
        return self._rows[key]

    def seat_wins(self, s: TableState | None = None) -> np.ndarray:
        """Every seat's win probability now (seat order), the turn total counted."""
        s = self.state if s is None else s
        n = self.rules.players
        if s.winner is not None:
            out = np.zeros(n)
            out[s.winner] = 1.0
            return out
        if s.turn_total == 0:
            vec = self.values[self.seen(s)]
        else:
            opts = dict(turn_options(self.rules, self.values, self.seen(s), s.turn_total))
            if s.mover == self.seat:
                vec = max(opts.values(), key=lambda v: float(v[0]))
            else:
                row = self._bank_row(self._state_index(s), s.plan)
                vec = opts[f"bank {s.turn_total}"] if row[s.turn_total] else opts["roll"]
        return np.array([vec[(k - s.mover) % n] for k in range(n)])

    def name(self, k: int) -> str:
        return "you" if k == self.seat else f"player {k + 1}"

    # ------------------------------------------------------------------ state

    def initial_state(self) -> TableState:
        return TableState((0,) * self.rules.players, 0)

    def mover(self) -> str:
        return "you" if self.state.mover == self.seat else "them"

    def _plan(self, s: TableState) -> int:
        """The policy a computer mover plays this turn: the table's, or (a mixer) one of his two,
        drawn from the seed and the number of throws so far."""
        if s.mover == self.seat:
            return PLAN_TABLE
        q = self._mixed.get(self._state_index(s))
        if q is None:
            return PLAN_TABLE
        k = sum(1 for m in self.moves if m["action"] == "throw")
        return PLAN_LEFT if np.random.default_rng([self.seed, k, 1]).random() < q else PLAN_RIGHT

    def apply(self, s: TableState, move: dict):
        who = self.name(s.mover)
        n = self.rules.players
        action = move.get("action")
        if action == "throw":
            face = self.thrown_face(s, move)
            plan = self._plan(s) if s.turn_total == 0 else s.plan
            if face == self.rules.bust:
                return TableState(s.scores, (s.mover + 1) % n), f"{who} threw {face}: bust, the turn total {s.turn_total} is lost"
            total = s.turn_total + self.rules.points[face - 1]
            if s.scores[s.mover] + total >= self.rules.goal:
                scores = tuple(v + total if k == s.mover else v for k, v in enumerate(s.scores))
                return TableState(scores, s.mover, winner=s.mover), f"{who} threw {face}: {scores[s.mover]} reaches the goal; {who} {'win' if who == 'you' else 'wins'}"
            return TableState(s.scores, s.mover, total, True, plan), f"{who} threw {face}: turn total {total}"
        if not s.rolled:
            raise PlayError("a throw is due first")
        if action == "roll":
            return replace(s, rolled=False), f"{who} {'roll' if who == 'you' else 'rolls'} again"
        if action == "bank":
            scores = tuple(v + s.turn_total if k == s.mover else v for k, v in enumerate(s.scores))
            return TableState(scores, (s.mover + 1) % n), f"{who} {'bank' if who == 'you' else 'banks'} {s.turn_total}: {scores[s.mover]}"
        raise PlayError(f"unknown move {action!r}")

    def auto_move(self) -> dict | None:
        s = self.state
        if s.winner is not None or s.mover == self.seat:
            return None
        if not s.rolled:
            return self._throw_move(self.virtual_throw(), True)
        row = self._bank_row(self._state_index(s), s.plan)
        return {"action": "bank" if row[s.turn_total] else "roll", "by": "them"}

    # ------------------------------------------------------------------ options

    def ranked_options(self) -> list[PlayOption]:
        from jaxsolve.games.race_table_game import rank

        s = self.state
        ranked = rank(turn_options(self.rules, self.values, self.seen(s), s.turn_total)[::-1])  # the tie rule's order: banking first
        return [PlayOption(label, float(v[0]), regret, {"action": "bank" if label.startswith("bank") else "roll"}, v) for label, v, regret in ranked]

    def advise_options(self) -> dict:
        return {"scores": ",".join(str(v) for v in self.seen(self.state)), "turn": self.state.turn_total}

    def help_choice(self) -> str:
        return "roll, bank, a number from the list, or b (Enter) for the best"

    # ------------------------------------------------------------------ display

    def where(self) -> str:
        s = self.state
        return "banked " + ", ".join(f"{self.name(k)} {v}" for k, v in enumerate(s.scores)) + f"; turn total {s.turn_total}"

    def value_now(self) -> float | None:
        return float(self.seat_wins()[self.seat])

    def status(self) -> list[str]:
        s, rules = self.state, self.rules
        lines = [f"{rules.name} ({rules.players} players, goal {rules.goal}), you in seat {self.seat + 1}: banked " + ", ".join(f"{self.name(k)} {v}" for k, v in enumerate(s.scores))]
        if s.winner is not None:
            return lines + ["you won" if s.winner == self.seat else f"{self.name(s.winner)} won"]
        wins = self.seat_wins()
        lines.append(f"{'your' if s.mover == self.seat else self.name(s.mover) + chr(39) + 's'} turn, turn total {s.turn_total}")
        lines.append("win probability now: " + ", ".join(f"{self.name(k)} {w:.4f}" for k, w in enumerate(wins)))
        if s.mover == self.seat:
            note = cycle_note(self.seen(s), self.solution.unsettled, 1)
            if note:
                lines.append(note)
        return lines

    def summary(self) -> Summary:
        s = self.state
        start = float(self.values[(0,) * self.rules.players][self.seat])
        if s.winner is None:
            result = "not finished"
        else:
            result = "you won" if s.winner == self.seat else f"{self.name(s.winner)} won"
        lines = (f"{result}: " + ", ".join(f"{self.name(k)} {v}" for k, v in enumerate(s.scores)),)
        return Summary(float(s.winner == self.seat), start, self.regret, self.decisions(), self.unit, lines, "your win probability at the start (all playing the equilibrium)")
