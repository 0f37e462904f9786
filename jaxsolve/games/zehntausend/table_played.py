"""Zehntausend at a table in play (``jaxsolve play zehntausend-table``): you in one seat against
N-1 computer players who play the solved equilibrium, and games of N such players
(``simulate``).

The player to move throws the dice; a throw without a scoring die is a bust (the turn's points
are lost, the move passes on); otherwise he writes (the points set aside plus the most the
throw scores; not below the entry minimum while his banked score is 0) or sets a usable part
aside and throws the other dice (all six used: six again). A write that reaches the goal wins
at once, and where it can it is the only option. The computer players throw the seeded virtual
dice by themselves and choose by the solved table (``table_numpy.throw_options``, the tie
rule); a computer player who mixes at a cycle without a pure equilibrium draws at the start of
his turn which of his two policies he plays (the one optimal just below his breakpoint with the
probability the solve found), from the game's seed, so a saved game replays alike. A value is
your win probability; the status shows every seat's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from jaxsolve.core.race_cycles import flat_index
from jaxsolve.core.race_table import cycle_note
from jaxsolve.games.played import PlayError, PlayOption, Summary, fmt_faces
from jaxsolve.games.zehntausend import scoring
from jaxsolve.games.zehntausend.play import AsideChoices
from jaxsolve.games.zehntausend.rules import DICE, STEP, ZehntausendRules
from jaxsolve.games.zehntausend.table_numpy import NDIM, ThrowOption, best_option, throw_options, turn_scan
from jaxsolve.games.zehntausend.table_rules import TableRules

NUDGE = 1e-9
"""A mixer's policy either side of his breakpoint: his bust payoff moved by this."""
SHIFT = {0: 0.0, 1: -NUDGE, 2: NUDGE}  # plan: the table's policy, the one below, the one above the breakpoint


@dataclass(frozen=True)
class TableState:
    """Every seat's banked score (seat 0 moves first), whose move (a seat), the points set aside
    this turn, the dice to throw, the dice showing (None: a throw is due), the policy a mixing
    computer player drew this turn (``plan``), ``winner`` once over."""

    scores: tuple[int, ...]
    mover: int
    points: int = 0
    dice: int = DICE
    throw: tuple[int, ...] | None = None
    plan: int = 0
    winner: int | None = None


class Table:
    """The solved table and what a turn needs from it: one scan per state and plan, kept."""

    def __init__(self, rules: TableRules, values: np.ndarray, unsettled: list):
        self.rules = rules
        self.values = np.asarray(values, np.float64)
        self.mixed = {int(u["members"][i]): float(q) for u in unsettled if u["selected"] == "mixed" for i, q in zip(u["mixer"], u["q"])}
        self._scans: dict[tuple[tuple[int, ...], int], Any] = {}

    def seen(self, scores: tuple[int, ...], mover: int) -> tuple[int, ...]:
        """The banked levels from the mover's view (mover first)."""
        n = self.rules.players
        return tuple(scores[(mover + k) % n] // STEP for k in range(n))

    def scan(self, seen: tuple[int, ...], plan: int = 0):
        key = (seen, plan)
        if key not in self._scans:
            self._scans[key] = turn_scan(self.rules, self.values, seen, SHIFT[plan])
        return self._scans[key]

    def options(self, s: TableState, plan: int = 0) -> list[ThrowOption]:
        seen = self.seen(s.scores, s.mover)
        assert s.throw is not None
        return throw_options(self.rules, self.values, seen, s.points, list(s.throw), SHIFT[plan], self.scan(seen, plan))

    def mixer_q(self, s: TableState) -> float | None:
        """The probability of the lower policy where the mover mixes at this state, else None."""
        return self.mixed.get(int(flat_index(np.array(self.seen(s.scores, s.mover)), self.rules.levels)))

    def throw_vector(self, s: TableState) -> np.ndarray:
        """The mover's vector of throwing the due dice (mover first)."""
        seen = self.seen(s.scores, s.mover)
        V, _ = self.scan(seen, s.plan)
        return V[(s.points // STEP) * NDIM + s.dice]


def _solve(rules: TableRules) -> Any:
    from jaxsolve.games import get_game
    from jaxsolve.io import cache

    game, dtype = get_game("zehntausend-table"), cache.asked_dtype() or "float64"
    held = cache.stored(game, rules, dtype=dtype)
    return held if held is not None else game.solution(rules, dtype=dtype)


class TableZehntausendGame(AsideChoices):
    """One game at a table. ``solution``: the solved table (``race_table_game.SolvedTable``; the
    solution cache's when not given); ``seat``: yours, 1 moves first."""

    unit = "win probability"
    rules_type = TableRules
    numpy_answers = True  # answers from a solved table need no JAX (JAX only to solve)

    def __init__(self, game: str, rules: TableRules, solution: Any = None, *, seat: int = 1, seed=None, auto_roll=False):
        from jaxsolve.games.race_table_game import check_seat

        self.seat = check_seat(seat, rules.players)
        solution = _solve(rules) if solution is None else solution
        self.table = Table(rules, solution.values, solution.unsettled)  # before the computer players' first moves
        super().__init__(game, rules, solution, _solve, seed=seed, auto_roll=auto_roll)

    def settings(self) -> dict:
        return {"seat": self.seat + 1}

    @property
    def scoring_rules(self) -> ZehntausendRules:
        return self.rules.duel.turn_rules

    def name(self, k: int) -> str:
        return "you" if k == self.seat else f"player {k + 1}"

    # ------------------------------------------------------------------ state

    def initial_state(self) -> TableState:
        return TableState((0,) * self.rules.players, 0)

    def finished(self) -> bool:
        return self.state.winner is not None

    def mover(self) -> str:
        return "you" if self.state.mover == self.seat else "them"

    def _plan(self, s: TableState) -> int:
        if s.mover == self.seat:
            return 0
        q = self.table.mixer_q(s)
        if q is None:
            return 0
        k = sum(1 for m in self.moves if m["action"] == "throw")
        return 1 if np.random.default_rng([self.seed, k, 1]).random() < q else 2

    # ------------------------------------------------------------------ options

    def ranked_options(self) -> list[PlayOption]:
        from jaxsolve.games.race_table_game import rank

        found = {o.label: o for o in self.table.options(self.state)}
        ranked = rank([(o.label, o.vector) for o in found.values()])
        out = []
        for label, v, regret in ranked:
            o = found[label]
            move = {"action": "write"} if o.action == "write" else {"action": "aside", "set_aside": sorted(o.set_aside)}
            out.append(PlayOption(label, float(v[0]), regret, move, o))
        return out

    def advise_options(self) -> dict:
        s = self.state
        seen = self.table.seen(s.scores, s.mover)
        return {"scores": ",".join(str(v * STEP) for v in seen), "turn": s.points, "dice": " ".join(map(str, s.throw or ()))}

    def no_write(self) -> str:
        return f"writing is not allowed here: the entry minimum is {self.rules.entry}"

    def auto_move(self) -> dict | None:
        s = self.state
        if s.winner is not None or s.mover == self.seat:
            return None
        if s.throw is None:
            return self._throw_move(self.virtual_throw(), True)
        o = best_option(self.table.options(s, s.plan))
        move = {"action": "write"} if o.action == "write" else {"action": "aside", "set_aside": sorted(o.set_aside)}
        return dict(move, by="them")

    # ------------------------------------------------------------------ moves

    def apply(self, s: TableState, move: dict):
        who = self.name(s.mover)
        n = self.rules.players
        action = move.get("action")
        if action == "throw":
            dice, bust = self.thrown(s, move)
            plan = self._plan(s) if s.points == 0 and s.dice == DICE and s.plan == 0 else s.plan
            if bust:
                return TableState(s.scores, (s.mover + 1) % n), f"{who} threw {fmt_faces(dice)}: bust, {s.points} lost"
            return replace(s, throw=dice, plan=plan), f"{who} threw {fmt_faces(dice)}"
        if s.throw is None:
            raise PlayError("a throw is due first")
        options = self.table.options(s, s.plan)
        if action == "write":
            match = next((o for o in options if o.action == "write"), None)
            if match is None:
                raise PlayError(self.no_write())
            scores = tuple(v + match.points if k == s.mover else v for k, v in enumerate(s.scores))
            if scores[s.mover] >= self.rules.goal:
                return TableState(scores, s.mover, winner=s.mover), f"{who} wrote {match.points}: {scores[s.mover]} reaches the goal; {who} {'win' if who == 'you' else 'wins'}"
            return TableState(scores, (s.mover + 1) % n), f"{who} wrote {match.points}: {scores[s.mover]}"
        if action == "aside":
            want = sorted(str(f) for f in move.get("set_aside", []))
            match = next((o for o in options if o.action == "aside" and sorted(o.set_aside) == want), None)
            if match is None:
                raise PlayError(f"{' '.join(want) or 'nothing'} is not a usable set-aside of {fmt_faces(s.throw)} here")
            return replace(s, points=match.points, dice=match.dice, throw=None), f"{who} set aside {' '.join(want)}: {match.points} this turn, throw {match.dice}"
        raise PlayError(f"unknown move {action!r}")

    # ------------------------------------------------------------------ display

    def seat_wins(self) -> np.ndarray:
        """Every seat's win probability now (seat order)."""
        s, n = self.state, self.rules.players
        if s.winner is not None:
            return np.eye(n)[s.winner]
        if s.throw is None:
            vec = self.table.throw_vector(s)
        elif s.mover == self.seat:
            vec = best_option(self.table.options(s)).vector
        else:
            vec = best_option(self.table.options(s, s.plan)).vector
        return np.array([vec[(k - s.mover) % n] for k in range(n)])

    def throw_value(self) -> float:
        return float(self.seat_wins()[self.seat])

    def value_now(self) -> float | None:
        if self.over:
            return float(self.state.winner == self.seat)
        return float(self.seat_wins()[self.seat])

    def where(self) -> str:
        s = self.state
        return "banked " + ", ".join(f"{self.name(k)} {v}" for k, v in enumerate(s.scores)) + f"; {s.points} aside, threw {fmt_faces(s.throw) if s.throw else '-'}"

    def status(self) -> list[str]:
        s, rules = self.state, self.rules
        lines = [f"{rules.name} ({rules.players} players, goal {rules.goal}), you in seat {self.seat + 1}: banked " + ", ".join(f"{self.name(k)} {v}" for k, v in enumerate(s.scores))]
        if s.winner is not None:
            return lines + ["you won" if s.winner == self.seat else f"{self.name(s.winner)} won"]
        shown = f"the dice show {fmt_faces(s.throw)}" if s.throw else f"throw {s.dice} {'die' if s.dice == 1 else 'dice'}"
        lines.append(f"{'your' if s.mover == self.seat else self.name(s.mover) + chr(39) + 's'} turn: {s.points} set aside; {shown}")
        lines.append("win probability now: " + ", ".join(f"{self.name(k)} {w:.4f}" for k, w in enumerate(self.seat_wins())))
        if s.mover == self.seat:
            note = cycle_note(self.table.seen(s.scores, s.mover), self.solution.unsettled, STEP)
            if note:
                lines.append(note)
        return lines

    def summary(self) -> Summary:
        s = self.state
        start = float(self.table.values[(0,) * self.rules.players][self.seat])
        result = "not finished" if s.winner is None else ("you won" if s.winner == self.seat else f"{self.name(s.winner)} won")
        lines = (f"{result}: " + ", ".join(f"{self.name(k)} {v}" for k, v in enumerate(s.scores)),)
        return Summary(float(s.winner == self.seat), start, self.regret, self.decisions(), self.unit, lines, "your win probability at the start (all playing the equilibrium)")


def simulate(rules: TableRules, values: np.ndarray, unsettled: list, games: int, seed: int = 0) -> np.ndarray:
    """Win counts per seat (seat 0 moves first) of ``games`` games of N players who all follow
    the solved equilibrium, with random dice (a mixing mover draws his policy at the start of
    each turn). Plain Python, one game at a time (about a thousand games a second for three players to
    500 here): the reference the games played at once (``table_simulate.simulate``, the
    ``simulate`` command's) are tested against."""
    table = Table(rules, values, unsettled)
    rng = np.random.default_rng(seed)
    n = rules.players
    wins = np.zeros(n, np.int64)
    turn_rules = rules.duel.turn_rules
    for _ in range(games):
        s = TableState((0,) * n, 0)
        while s.winner is None:
            if s.throw is None:
                plan = s.plan
                if s.points == 0 and s.dice == DICE:
                    q = table.mixer_q(s)
                    plan = 0 if q is None else (1 if rng.random() < q else 2)
                dice = tuple(sorted(int(d) for d in rng.integers(1, 7, s.dice)))
                if scoring.write_points(turn_rules, scoring.parse_throw(dice)) == 0:
                    s = TableState(s.scores, (s.mover + 1) % n)
                else:
                    s = replace(s, throw=dice, plan=plan)
                continue
            o = best_option(table.options(s, s.plan))
            if o.action == "aside":
                s = replace(s, points=o.points, dice=o.dice, throw=None)
                continue
            scores = tuple(v + o.points if k == s.mover else v for k, v in enumerate(s.scores))
            s = TableState(scores, s.mover, winner=s.mover) if scores[s.mover] >= rules.goal else TableState(scores, (s.mover + 1) % n)
        wins[s.winner] += 1
    return wins
