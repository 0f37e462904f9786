"""The seats a two-player game is played by, besides the table's optimal move: the NumPy turn of
a batch of positions over the lead (``turn_arrays``, also the store's recomputation and the
advice's), the expected-score player (``score_policy``, ``ScoreSeat``) and a player who reads a
one-player table (``SeatModels``)."""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.objectives.twoplayer.sheets import (Sheets, check_sheet, LayerPlan)
from jaxsolve.games.category.objectives.distribution import max_turn_reward
from jaxsolve.games.category.objectives.twoplayer.engine import TIES, TwoPlayerTables, padded_complement
from jaxsolve.games.category.objectives.winning_simulate import decode

SIM_BLOCK = 1024
"""Distinct positions per NumPy block of a simulated turn (a block's box values are
``[boxes, throws, block]``: 12 MB for Yacht, near the size of a CPU cache)."""



class _SheetMoves(NamedTuple):
    """``solver.Moves`` of a batch of positions computed once per distinct sheet of the player
    to move and spread over the positions (``[boxes, T, U]``): ``scored`` what a move adds to
    the sheet (``Moves.score``: box points and bonuses; no instant bonus), ``row`` the next
    sheet's position in its list."""

    scored: np.ndarray
    next_state: np.ndarray
    allowed: np.ndarray
    row: np.ndarray

    def score(self, first_throw: bool = False) -> np.ndarray:
        return self.scored


ALL_MOVES = 1 << 24
"""Most (box, throw, sheet) moves of one player's layer computed once and kept for the layer's
blocks (``_all_moves``; Yacht: at most 12 x 252 x 924); larger layers compute each block's."""


def _moves_of(mine: Sheets, a: int, sheets: np.ndarray, rules: CategoryRules) -> tuple:
    """``(points, next_state, allowed, row)`` ``[boxes, T, len(sheets)]`` of these sheets (positions
    in ``mine``'s list for ``a`` boxes filled): points int32 with every bonus, the next state,
    the next sheet's position in its list (0 where not allowed)."""
    mv = solver.moves(tables.EngineState(mine.filled[a][sheets], mine.upper[a][sheets], mine.held[a][sheets]), rules, xp=np)
    nxt = np.asarray(mv.next_state)
    allowed = np.asarray(mv.allowed)
    row = np.where(allowed, np.maximum(mine.index[nxt], 0), 0).astype(np.int32)
    small = np.int32 if max(nxt.max(initial=0), len(mine.index)) < 1 << 31 else np.int64
    return np.asarray(mv.score(False), np.int32), nxt.astype(small), allowed, row


@functools.lru_cache(maxsize=2)
def _all_moves(mine: Sheets, a: int, rules: CategoryRules) -> tuple:
    """``_moves_of`` every sheet of ``mine`` with ``a`` boxes filled (kept for the layer's blocks)."""
    return _moves_of(mine, a, np.arange(mine.count(a)), rules)


def _sheet_moves(mine: Sheets, a: int, movers: np.ndarray, rules: CategoryRules) -> _SheetMoves:
    """The moves of the positions whose mover's sheets are ``movers`` (positions in
    ``mine``'s list for ``a`` boxes filled), taken per position from those of every sheet of
    the layer (``_all_moves``, for a block of at least as many positions as the layer has
    sheets) or of each distinct sheet of the block (fewer positions, or a layer of more than
    ``ALL_MOVES`` moves)."""
    n = mine.count(a)
    if len(movers) >= n and n * rules.num_boxes * tables.space(rules.dice).num_throws <= ALL_MOVES:
        arrays, at = _all_moves(mine, a, rules), np.asarray(movers)
    else:
        sheets, inverse = np.unique(movers, return_inverse=True)
        arrays, at = _moves_of(mine, a, sheets, rules), inverse.reshape(-1)
    return _SheetMoves(*(x[:, :, at] for x in arrays))


def turn_arrays(table: TwoPlayerTables, p: LayerPlan, movers: np.ndarray, others: np.ndarray, leads: np.ndarray):
    """For positions (mover's sheet, other's sheet, lead) of layer ``p``: the moves, each box's
    value after each last throw (``[boxes, T, U]``, -1 where not allowed) and the keeps' values
    with r re-throws left (``keeps[r - 1]``: ``[K, U]``), from the layer below (NumPy, float64):
    the target turn (``target.turn_options``, as ``engine.turn``) at each position's deficit,
    from the rows of the layer below the positions reach."""
    from jaxsolve.games.category.objectives import target as TG

    rules = table.rules
    q = table.plan(p.n + 1)
    pad = max_turn_reward(rules)
    mv = _sheet_moves(table.sheets[p.mover], p.a, movers, rules)
    reach, local = np.unique(mv.row.astype(np.int64) * p.others + np.asarray(others, np.int64)[None, None, :], return_inverse=True)
    below = padded_complement(np.asarray(table.layers[q.n][reach], np.float64), pad + 1, q.width + pad + 1, np.float64)
    # the other's lead after a move of r points is column k - r of his window, k = q.low - lead: one more
    # one on the left of the window (k = -1: won whatever r) and a turn's points of zeros right of it
    deficit = np.clip(q.low - np.asarray(leads, np.int64), -1, q.width + pad)[:, None] + 1
    got = TG.turn_options(lambda _: local.reshape(mv.row.shape), below, None, rules, q.width, xp=np, columns=deficit, moves=mv)
    return mv, got.fill[..., 0], [k[..., 0] for k in got.keep]


POLICY_CHUNK = 64
"""States per compiled call of the ``score`` seat's turn policy."""


def score_policy(rules: CategoryRules, sol=None):
    """The expected-score policy's turn as a jitted ``(filled, upper, all_same_held) -> (keep
    [throws - 1, T, B], box [T, B])`` (``strategies.ValueStrategy`` of the ``score`` solution
    ``sol``, float64 with JAX's x64 mode on, as the tests and benchmarks set it; solved when not
    given): the ``score`` seat's play and ``compare``'s expected-score choices."""
    import jax
    import jax.numpy as jnp

    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.simulation import strategies

    if sol is None:
        sol = solutions.solution(rules, "score", dtype="float64")
    strategy = strategies.make("optimal", rules, solution=sol, dtype=jnp.float64)

    def keep_and_box(f, u, h):
        turn = strategy.policy(tables.EngineState(f, u, h))
        return turn.keep, turn.box

    return jax.jit(keep_and_box)


def _score_choices(fn, filled, upper, all_same_held) -> tuple[np.ndarray, np.ndarray]:
    """``(keep [throws - 1, T, B], box [T, B])`` of ``score_policy``'s ``fn`` for B sheets, in
    calls of ``POLICY_CHUNK`` sheets (the last one padded with the first sheet: one compiled shape)."""
    import jax.numpy as jnp

    f, u, h = (np.asarray(a, np.int64) for a in (filled, upper, all_same_held))
    keeps, boxes = [], []
    for c0 in range(0, len(f), POLICY_CHUNK):
        part = [a[c0: c0 + POLICY_CHUNK] for a in (f, u, h)]
        n = len(part[0])
        padded = [np.concatenate([a, np.repeat(a[:1], POLICY_CHUNK - n)]) for a in part]
        keep, box = (np.asarray(a) for a in fn(*(jnp.asarray(a, jnp.int32) for a in padded)))
        keeps.append(keep[..., :n])
        boxes.append(box[..., :n])
    return np.concatenate(keeps, axis=-1), np.concatenate(boxes, axis=-1)


class ScoreSeat:
    """The expected-score player alone (``score_policy`` of ``sol``, else of the float64 score
    solution): the ``score`` seat of games started from many positions (``simulate(starts=)``)."""

    def __init__(self, rules: CategoryRules, sol=None):
        from jaxsolve.games.category.engine import solutions

        self.rules = rules
        self.sol = sol if sol is not None else solutions.solution(rules, "score", dtype="float64")
        self._policy = None

    def policy(self):
        """The ``score`` seat's jitted turn policy (``score_policy``)."""
        if self._policy is None:
            self._policy = score_policy(self.rules, self.sol)
        return self._policy


class SeatModels(ScoreSeat):
    """The one-player models of a simulation's two seats from its start sheets and lead: each
    seat's remaining points under ``score`` play (``distribution.distribution``, float64), the
    ``score`` policy, and per seat the ``table`` response (``winning.response_table``: the best
    response to ``utility(seat)``, the other's distribution, every layer). ``exact(seats)``: the
    starter's value where the two one-player players' games are independent."""

    def __init__(self, rules: CategoryRules, firsts, lead: int = 0, tie: str = "share", sol=None):
        from jaxsolve.games.category.objectives import distribution as D

        if tie not in TIES:
            raise JaxsolveError(f"tie must be one of {', '.join(TIES)}, got {tie!r}")
        self.tie, self.lead = tie, int(lead)
        self.firsts = tuple(check_sheet(rules, s) for s in firsts)
        self.level = bin(self.firsts[0][0]).count("1") == bin(self.firsts[1][0]).count("1")  # seat 0 started the game
        super().__init__(rules, sol)
        self.remaining = []
        for f, u, h in self.firsts:
            if f == rules.full_mask:
                self.remaining.append(np.ones(1))
                continue
            dist = D.distribution(rules, self.sol, dtype="float64", chunk=2, keep="start", start=(f, u, h), shapes="bucket")
            self.remaining.append(np.asarray(dist.at(f, u, h), np.float64))
        self._responses: dict = {}

    def seat_lead(self, seat: int) -> int:
        return self.lead if seat == 0 else -self.lead

    def seat_tie(self, seat: int) -> float:
        """What a tie is worth to ``seat`` (``TIES`` counts for the game's starter)."""
        return TIES[self.tie] if (seat == 0) == self.level else 1.0 - TIES[self.tie]

    def utility(self, seat: int) -> np.ndarray:
        """``w[k]`` = P(seat wins | he scores k more points), k = 0..K (``w[K]`` = 1 where K > 0):
        the other's remaining points ``Y`` below ``lead + k``, or equal for the tie's share."""
        y = self.remaining[1 - seat]
        lead = self.seat_lead(seat)
        top = max(1, len(y) - lead)
        at = lead + np.arange(top + 1)
        cum = np.concatenate([[0.0], np.cumsum(y)])
        below = cum[np.clip(at, 0, len(y))]
        equal = np.where((at >= 0) & (at < len(y)), y[np.clip(at, 0, len(y) - 1)], 0.0)
        return np.clip(below + self.seat_tie(seat) * equal, 0.0, 1.0)

    def response(self, seat: int):
        """The ``table`` seat's target table (a terminal, every layer) and its start channel."""
        from jaxsolve.games.category.objectives import winning

        if seat not in self._responses:
            w = self.utility(seat)
            f, u, h = self.firsts[seat]
            self._responses[seat] = (winning.response_table(self.rules, f, w, start=(f, u, h)), len(w) - 1)
        return self._responses[seat]

    def exact(self, seats) -> float | None:
        """The starter's exact value for ``score`` / ``table`` seats against ``score``: the seat's
        games are independent of each other (neither looks at the other's play), so ``score``
        against ``score`` is the two remaining-point distributions' convolution and ``table``
        against ``score`` the response's value at its start; None for other pairs."""
        seats = tuple(seats)
        if seats == ("score", "score"):
            x, y = self.remaining
            diff = np.convolve(x, y[::-1])  # P(X - Y = d), d = -(len(y) - 1)..
            d = np.arange(len(diff)) - (len(y) - 1) + self.lead
            return float(diff[d > 0].sum() + self.seat_tie(0) * diff[d == 0].sum())
        for seat in (0, 1):
            if seats[seat] == "table" and seats[1 - seat] == "score":
                table, k = self.response(seat)
                v = float(table.at(*self.firsts[seat])[k])
                return v if seat == 0 else 1.0 - v
        return None


def _score_turn(models: ScoreSeat, state, roll) -> tuple[np.ndarray, np.ndarray]:
    """The games' turns played by the expected-score policy (its keeps and boxes, its ties)."""
    rules = models.rules
    keep_counts = np.asarray(tables.space(rules.dice).keeps)
    fn = models.policy()
    uniq, inverse = np.unique(state, return_inverse=True)
    inverse = inverse.reshape(-1)
    gained = np.zeros(len(state), np.int64)
    nxt = np.zeros(len(state), np.int64)
    for c0 in range(0, len(uniq), POLICY_CHUNK):
        chunk = uniq[c0: c0 + POLICY_CHUNK]
        cf, cu, ch = decode(chunk, rules)
        keep, box = _score_choices(fn, cf, cu, ch)
        mv = solver.moves(tables.EngineState(cf, cu, ch), rules, xp=np)
        g = np.flatnonzero((inverse >= c0) & (inverse < c0 + len(chunk)))
        loc = inverse[g] - c0
        x = roll(np.zeros((len(g), 6), np.int64))
        for left in range(rules.throws - 1, 0, -1):
            x = roll(keep_counts[keep[left - 1][x, loc]])
        b = box[x, loc]
        gained[g] = np.asarray(mv.score(False))[b, x, loc]
        nxt[g] = np.asarray(mv.next_state)[b, x, loc]
    return gained, nxt


def _table_turn(models: SeatModels, seat: int, state, scored, roll) -> tuple[np.ndarray, np.ndarray]:
    """The games' turns played by the static best response at each game's channel ``K - points
    scored`` (``winning_simulate.turn_values``; ties to filling, the earlier box, the first keep)."""
    from jaxsolve.games.category.objectives.winning_simulate import _play_turn, turn_values

    table, top = models.response(seat)
    gained = np.zeros(len(state), np.int64)
    nxt = np.zeros(len(state), np.int64)
    for b0 in range(0, len(state), SIM_BLOCK):
        g = np.arange(b0, min(b0 + SIM_BLOCK, len(state)))
        gained[g], nxt[g] = _play_turn(models.rules, turn_values(table, state[g], np.maximum(top - scored[g], 0)), roll)
    return gained, nxt
