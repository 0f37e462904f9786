"""Two-player games played out: the optimal seat (the table's move), the expected-score seat and
a seat that reads a one-player table, over many games at once; where the two-player move and
the expected-score move differ (``MovesDiffer``), and the end-game positions expected-score play
reaches (``reach``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.objectives.twoplayer.engine import (TIES, TwoPlayerTables)
from jaxsolve.games.category.objectives.twoplayer.seats import (SIM_BLOCK, ScoreSeat, SeatModels, _score_choices, _score_turn, _table_turn, decode,
                                                                score_policy, turn_arrays)
from jaxsolve.games.category.objectives.winning_simulate import roller


# ----------------------------------------------------------------------------- simulation


SEATS = ("optimal", "score", "table")
"""What a seat plays in ``simulate``: ``optimal`` the two-player table (both playing to win),
``score`` the one-player expected-score policy (the ``score`` solution, ``policy.optimal_turn``),
``table`` the one-player win-probability model (``winning``): a static best response to the
other player's final-score distribution under ``score`` play, from the simulation's start."""


@dataclass
class Played:
    """Games played from a solve's start, seat 0 the player to move there (the game's starter
    when both have as many boxes filled): ``lead`` seat 0's final lead, ``score`` what each game
    is worth to him under the tie rule (1 won, a tie what it is worth to him, 0 lost): its mean
    estimates the table's ``start``; ``seats`` what each seat played (``SEATS``)."""

    lead: np.ndarray
    score: np.ndarray
    tie: str
    seats: tuple = ("optimal", "optimal")
    differ: MovesDiffer | None = None

    @property
    def wins(self) -> float:
        return float(np.mean(self.lead > 0))

    @property
    def ties(self) -> float:
        return float(np.mean(self.lead == 0))

    @property
    def mean(self) -> float:
        return float(np.mean(self.score))

    @property
    def standard_error(self) -> float:
        return float(np.std(self.score) / np.sqrt(max(len(self.score) - 1, 1)))


DIFFER_TOLERANCE = 1e-6
"""How much less by the two-player table the expected-score choice must be worth than the best
for ``MovesDiffer`` to count it as a different move (below it, float ties of a float32 table)."""
DECISION_KINDS = ("keep", "box")
LOSS_LEVELS = (1e-5, 1e-4, 1e-3, 1e-2)
"""Losses ``MovesDiffer.over`` counts the differing choices above (how many are far beyond a
float32 table's rounding)."""


@dataclass
class MovesDiffer:
    """Where playing to win changes the move: at each decision of a simulation's ``optimal``
    seats, whether the expected-score policy's choice in the same situation (the same sheet,
    dice and re-throws left; its own ties, ``score_policy``) is worth less by the two-player
    table than the best choice by more than ``DIFFER_TOLERANCE``.

    Arrays ``[seat, turn - 1, kind]`` (turn: the mover's boxes filled + 1; kind
    ``DECISION_KINDS``: ``keep`` each throw with re-throws left while the turn goes on, keeping
    every die being writing now; ``box`` the box written, once per turn): ``decisions``,
    ``differ`` and ``loss`` (the win probability the expected-score choices lose where they
    differ, summed), ``over`` ``[seat, turn - 1, kind, level]`` the differing choices that lose
    more than each of ``LOSS_LEVELS``. ``records``: with ``simulate(record=True)``, every decision's situation
    (positions of the sheets in their lists, lead, throw, re-throws left, the expected-score
    choice) and both values, one dict of arrays per batch of decisions.
    """

    decisions: np.ndarray
    differ: np.ndarray
    loss: np.ndarray
    over: np.ndarray
    records: list | None = None

    @classmethod
    def empty(cls, boxes: int, record: bool = False) -> MovesDiffer:
        shape = (2, boxes, len(DECISION_KINDS))
        return cls(np.zeros(shape, np.int64), np.zeros(shape, np.int64), np.zeros(shape, np.float64), np.zeros(shape + (len(LOSS_LEVELS),), np.int64),
                   [] if record else None)

    def add(self, seat: int, turn: int, kind: int, best: np.ndarray, chosen: np.ndarray, situation: dict) -> None:
        """Decisions of ``seat`` on ``turn`` (0-based) of one ``kind``: their best values and
        the expected-score choices' values."""
        gap = np.asarray(best, np.float64) - np.asarray(chosen, np.float64)
        worse = gap > DIFFER_TOLERANCE
        self.decisions[seat, turn, kind] += len(gap)
        self.differ[seat, turn, kind] += int(worse.sum())
        self.loss[seat, turn, kind] += float(gap[worse].sum())
        self.over[seat, turn, kind] += (gap[:, None] > np.asarray(LOSS_LEVELS)[None, :]).sum(0)
        if self.records is not None:
            self.records.append({"seat": seat, "turn": turn, "kind": kind, "best": best, "chosen": chosen, **situation})

    def rate(self, kind: str | None = None) -> float:
        """The share of the decisions (of one kind, or all) where the moves differ."""
        k = slice(None) if kind is None else DECISION_KINDS.index(kind)
        return float(self.differ[..., k].sum() / max(self.decisions[..., k].sum(), 1))

    def mean_loss(self, kind: str | None = None) -> float:
        """The mean win probability lost by the expected-score choice where it differs."""
        k = slice(None) if kind is None else DECISION_KINDS.index(kind)
        return float(self.loss[..., k].sum() / max(self.differ[..., k].sum(), 1))

    def per_turn(self) -> list[dict]:
        """Both seats' counts per turn number and kind."""
        d, n, lost = (a.sum(0) for a in (self.decisions, self.differ, self.loss))
        out = []
        for t in range(d.shape[0]):
            row: dict = {"turn": t + 1}
            for k, name in enumerate(DECISION_KINDS):
                row[name] = {"decisions": int(d[t, k]), "differ": int(n[t, k]), "rate": float(n[t, k] / max(d[t, k], 1)),
                             "mean_loss": float(lost[t, k] / max(n[t, k], 1))}
            out.append(row)
        return out


class _Compare(NamedTuple):
    """The expected-score choices of a turn's mover sheets for ``_optimal_turn``: ``keep``
    ``[throws - 1, T, S]``, ``box`` ``[T, S]``, ``column`` each game's sheet among the S."""

    keep: np.ndarray
    box: np.ndarray
    column: np.ndarray
    differ: MovesDiffer




def _optimal_turn(table, p, movers, others, lead, roll, compare: _Compare | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(points gained, next state)`` of the games' turns played by the two-player table from
    positions (mover's sheet, other's sheet: positions in their lists; lead); the next state is
    the one of the mover's class representative (the same class as his own). With ``compare``,
    each decision is also counted in ``compare.differ`` against the expected-score choice
    (``MovesDiffer``); the play is the same."""
    rules = table.rules
    sp = tables.space(rules.dice)
    subkeeps = np.asarray(sp.subkeeps)
    keep_counts = np.asarray(sp.keeps)
    games = len(lead)
    gained = np.zeros(games, np.int64)
    nxt = np.zeros(games, np.int64)
    keys, inverse = np.unique(np.stack([movers, others, lead]), axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    for b0 in range(0, keys.shape[1], SIM_BLOCK):
        block = keys[:, b0: b0 + SIM_BLOCK]
        mv, final, keeps = turn_arrays(table, p, block[0], block[1], block[2])
        g = np.flatnonzero((inverse >= b0) & (inverse < b0 + block.shape[1]))
        ug = inverse[g] - b0
        x = roll(np.zeros((len(g), 6), np.int64))
        rolling = np.ones(len(g), bool)
        for left in range(rules.throws - 1, 0, -1):
            subs = subkeeps[x]
            kv = keeps[left - 1][subs, ug[:, None]]
            now = final[:, x, ug].max(0)
            go = now < kv.max(1)
            if compare is not None:
                chosen = compare.keep[left - 1][x, compare.column[g]]
                on = np.flatnonzero(rolling)
                situation = {} if compare.differ.records is None else {
                    "mover": block[0][ug[on]], "other": block[1][ug[on]], "lead": block[2][ug[on]], "throw": x[on], "left": left, "choice": chosen[on]}
                compare.differ.add(p.mover, p.a, 0, np.maximum(now, kv.max(1))[on], keeps[left - 1][chosen, ug][on], situation)
                rolling &= go
            if go.any():
                pick = subs[np.arange(len(g)), kv.argmax(1)]
                x[go] = roll(keep_counts[pick[go]])
        box = final[:, x, ug].argmax(0)
        if compare is not None:
            fv = final[:, x, ug]
            chosen = compare.box[x, compare.column[g]]
            situation = {} if compare.differ.records is None else {
                "mover": block[0][ug], "other": block[1][ug], "lead": block[2][ug], "throw": x.copy(), "left": 0, "choice": chosen}
            compare.differ.add(p.mover, p.a, 1, fv.max(0), fv[chosen, np.arange(len(g))], situation)
        gained[g] = np.asarray(mv.score(False))[box, x, ug]
        nxt[g] = np.asarray(mv.next_state)[box, x, ug]
    return gained, nxt


class Starts(NamedTuple):
    """Per game a start of a simulation: the two seats' one-player states (``tables.state_index``;
    seat 0 to move) and seat 0's lead."""

    seat0: np.ndarray
    seat1: np.ndarray
    lead: np.ndarray


def reach(rules: CategoryRules, games: int, filled: int, seed: int = 0, sol=None) -> Starts:
    """``games`` games from the start played by the expected-score player in both seats until
    both sheets have ``filled`` boxes filled (seat 0 started and is to move): the end-game
    positions such play reaches, as ``Starts`` for ``simulate(starts=)``."""
    if rules.has_instant_bonus:
        raise JaxsolveError("simulated two-player play does not take instant bonuses")
    if not 0 <= int(filled) < rules.num_boxes or games < 1:
        raise JaxsolveError(f"filled is 0..{rules.num_boxes - 1} and games >= 1, got {filled} and {games}")
    seat = ScoreSeat(rules, sol)
    roll = roller(np.random.default_rng(seed), rules.dice)
    state = [np.zeros(games, np.int64), np.zeros(games, np.int64)]
    lead = np.zeros(games, np.int64)  # of the player to move
    for turn in range(2 * int(filled)):
        gained, state[turn % 2] = _score_turn(seat, state[turn % 2], roll)  # type: ignore[arg-type]
        lead = -(lead + gained)
    return Starts(state[0], state[1], lead)


def _check_seats(table: TwoPlayerTables, seats: tuple, games: int) -> None:
    """The seats are two of ``SEATS``, an optimal seat has every layer, no instant bonus, a game at least."""
    if len(seats) != 2 or any(s not in SEATS for s in seats):
        raise JaxsolveError(f"seats are two of {', '.join(SEATS)}, got {seats!r}")
    if "optimal" in seats and any(layer is None for layer in table.layers[table.plans[0].n:]):
        raise JaxsolveError("simulated optimal play needs every layer (solve with keep='all')")
    if table.rules.has_instant_bonus:
        raise JaxsolveError("simulated two-player play does not take instant bonuses")
    if games < 1:
        raise JaxsolveError(f"games must be >= 1, got {games}")


def _seat_models(table: TwoPlayerTables, seats: tuple, games: int, firsts: tuple, lead: int, models: SeatModels | None, starts: Starts | None,
                 score_solution) -> Any:
    """The models of the seats that do not play ``optimal``: ``models`` checked against the start,
    else built; from many ``starts`` (checked: each a sheet of the table), an expected-score seat."""
    rules = table.rules
    if starts is not None:
        if "table" in seats or models is not None:
            raise JaxsolveError("games from many starts take the optimal and score seats only")
        if any(len(a) != games for a in starts):
            raise JaxsolveError(f"starts holds {len(starts.seat0)} games, not {games}")
        p0 = table.plans[0]
        for seat, filled in ((0, p0.a if p0.mover == 0 else p0.b), (1, p0.b if p0.mover == 0 else p0.a)):
            got = np.asarray(starts[seat], np.int64)
            ok = bool(got.min() >= 0 and got.max() < rules.num_states)
            counts = ((decode(got, rules)[0][:, None] >> np.arange(rules.num_boxes)) & 1).sum(1) if ok else None
            if not ok or np.any(table.sheets[seat].index[got] < 0) or np.any(counts != filled):
                raise JaxsolveError(f"a start of seat {seat} is not a sheet with {filled} boxes filled of this table")
        return ScoreSeat(rules, score_solution) if "score" in seats else None
    if seats == ("optimal", "optimal"):
        return models
    if models is None:
        return SeatModels(rules, firsts, lead, table.tie)
    if models.firsts != firsts or models.lead != int(lead) or models.tie != table.tie or models.rules != rules:
        raise JaxsolveError("the seat models were built for another start, lead, tie rule or game")
    return models


def _comparison(rules: CategoryRules, seats: tuple, compare: str | None, models: Any, score_solution, record: bool) -> tuple:
    """``(MovesDiffer, the expected-score policy)`` where ``compare="score"``, else ``(None, None)``."""
    if compare is None:
        return None, None
    if compare != "score":
        raise JaxsolveError(f"compare must be 'score' (the expected-score policy), got {compare!r}")
    if "optimal" not in seats:
        raise JaxsolveError("compare counts the decisions of an optimal seat: no seat plays optimal")
    if score_solution is not None:
        fn = score_policy(rules, score_solution)
    else:
        fn = models.policy() if models is not None else score_policy(rules)
    return MovesDiffer.empty(rules.num_boxes, record), fn


def simulate(table: TwoPlayerTables, games: int, seed: int = 0, *, seats=("optimal", "optimal"), lead: int = 0, models: SeatModels | None = None,
             compare: str | None = None, score_solution=None, record: bool = False, starts: Starts | None = None) -> Played:
    """``games`` games from the solve's start (both sheets as ``start`` gave them, else as
    prefilled with upper 0; the player to move leads by ``lead``; ``starts``: from each game's
    own position, e.g. ``reach``'s, seats ``optimal`` and ``score`` only), each seat playing
    ``seats[k]`` (``SEATS``; seat 0 the player to move). ``optimal``: each keep and box the best
    for the player to move by the table (every layer kept; ties to writing, then to the first
    keep or box); ``score`` and ``table`` as ``SeatModels`` (built here unless given). A table
    of ``unsolved`` serves seats that are not ``optimal``. Vectorised over games; the positions
    of a turn are computed once each (``np.unique``); a ``score`` or ``table`` seat's sheet is
    followed as scored (the upper total as it is), the table read at its class; an ``optimal``
    seat's as its class representative.

    ``compare="score"``: at every decision of an ``optimal`` seat, also whether the
    expected-score policy (``score_policy`` of ``score_solution``, else of the models', else
    solved) would choose a move worth less by the table: ``Played.differ`` (``MovesDiffer``;
    ``record``: with every decision's situation). The games played are the same as without."""
    rules = table.rules
    seats = tuple(seats)
    _check_seats(table, seats, games)
    firsts = (table.sheets[0].first, table.sheets[1].first)
    models = _seat_models(table, seats, games, firsts, lead, models, starts, score_solution)
    differ, fn = _comparison(rules, seats, compare, models, score_solution, record)
    roll = roller(np.random.default_rng(seed), rules.dice)
    if starts is None:
        state = [np.full(games, int(tables.state_index(s[0], s[1], s[2], rules)), np.int64) for s in firsts]  # the seats' own sheets
        lead_now = np.full(games, int(lead), np.int64)  # of the player to move
    else:
        state = [np.asarray(starts.seat0, np.int64).copy(), np.asarray(starts.seat1, np.int64).copy()]
        lead_now = np.asarray(starts.lead, np.int64).copy()
    scored = [np.zeros(games, np.int64), np.zeros(games, np.int64)]
    for p in table.plans[:-1]:
        seat = p.mover
        kind = seats[seat]
        if kind == "optimal":
            movers = table.sheets[seat].index[state[seat]].astype(np.int64)
            others = table.sheets[1 - seat].index[state[1 - seat]].astype(np.int64)
            cmp = None
            if differ is not None:
                mine = table.sheets[seat]
                sheets, column = np.unique(movers, return_inverse=True)
                keep, box = _score_choices(fn, mine.filled[p.a][sheets], mine.upper[p.a][sheets], mine.held[p.a][sheets])
                cmp = _Compare(keep, box, column.reshape(-1), differ)
            gained, nxt = _optimal_turn(table, p, movers, others, lead_now, roll, cmp)
        elif kind == "score":
            assert models is not None
            gained, nxt = _score_turn(models, state[seat], roll)
        else:
            assert models is not None
            gained, nxt = _table_turn(models, seat, state[seat], scored[seat], roll)
        state[seat] = nxt
        scored[seat] = scored[seat] + gained
        lead_now = -(lead_now + gained)
    final = lead_now if table.plans[-1].mover == 0 else -lead_now
    tie = TIES[table.tie] if table.plans[-1].mover == 0 else 1.0 - TIES[table.tie]  # the last mover started the game
    score = np.where(final > 0, 1.0, np.where(final == 0, tie, 0.0))
    return Played(final, score, table.tie, seats, differ)
