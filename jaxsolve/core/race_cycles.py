"""The cycles of a race game for N players, and their equilibria, in NumPy (no JAX).

A state of the race is every player's banked score seen from the player to move, ``(s_0, s_1,
..., s_{N-1})`` (mover, next, ..., last; each a *level*, points over the game's step). A bust
passes the move on with the scores unchanged: the next state is the rotation ``(s_1, ...,
s_{N-1}, s_0)``. The N rotations of a state form its *cycle* (``make_cycles``): the only way
the game returns to a state. Banking raises the banked sum, so the cycles are solved layer by
layer of the banked sum from the top down (``jaxsolve.core.race_multi``), and a cycle needs
only the values of higher layers.

Inside a cycle, member ``j`` (the rotation by ``j``) has, under a fixed turn policy, the value
vector ``W_j = A_j + beta_j R(W_{j+1})``: ``A_j`` the win probabilities of the turn's banking
outcomes (weighted by their probability), ``beta_j`` the probability to bust before banking,
``R`` the rotation of a value vector from the next mover's view to this one's
(``R(w)[k] = w[k - 1]``). ``solve_cycle`` solves the N equations in closed form.

A mover's turn value is a maximum of lines in his own bust payoff ``x_j = W_{j+1}[N - 1]`` (the
first entry of ``R(W_{j+1})``): each policy ``pi`` gives ``a_pi + beta_pi x``. The upper
envelope of these lines (``envelope``) is what his best responses can be; the cycle's
stationary equilibria are then found exactly (``cycle_equilibria``): every pure combination of
envelope pieces whose solved bust payoffs lie in the pieces' intervals (searched by branch and
bound over the members' pieces, ``_search``, not enumerated whole), and, where no pure one
exists, those in which the fewest movers (one, two, ...) each mix between the two pieces
adjacent at a breakpoint with the probability that makes him indifferent there (a stationary
mixed equilibrium; the others play pure).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from jaxsolve.errors import JaxsolveError


class CycleTooLargeError(JaxsolveError):
    """A cycle that does not settle whose exact analysis is too large to run (one line, no
    traceback, like every ``JaxsolveError``)."""

TIE = 1e-12
"""Options within this of each other are ties for the mover (the declared tie rule decides)."""


# ---------------------------------------------------------------------------------------------
# States and cycles


def flat_index(scores: Any, levels: int) -> np.ndarray:
    """Flat index of score tuples ``[..., N]`` (mixed radix ``levels``, mover first)."""
    scores = np.asarray(scores)
    idx = np.zeros(scores.shape[:-1], np.int64)
    for k in range(scores.shape[-1]):
        idx = idx * levels + scores[..., k]
    return idx


def decode(idx: Any, levels: int, players: int) -> np.ndarray:
    """Score tuples ``[..., N]`` of flat indices."""
    idx = np.asarray(idx, np.int64)
    out = np.empty(idx.shape + (players,), np.int64)
    for k in range(players - 1, -1, -1):
        out[..., k] = idx % levels
        idx = idx // levels
    return out


@dataclass(frozen=True, eq=False)
class Cycles:
    """The rotation cycles of all score tuples below ``levels``, highest banked sum first.

    ``members [C, N]``: flat index of rotation ``j`` of each cycle's representative (the
    rotation with the smallest flat index; a tuple that repeats under a shorter rotation
    repeats in its row); ``layer [C]``: the banked sum; ``starts``: where each layer's cycles
    begin (``len = layers + 1``)."""

    levels: int
    players: int
    members: np.ndarray
    layer: np.ndarray
    starts: np.ndarray = field(repr=False)


def make_cycles(levels: int, players: int) -> Cycles:
    grid = np.indices((levels,) * players).reshape(players, -1).T
    rot = np.stack([flat_index(np.roll(grid, -j, axis=1), levels) for j in range(players)], axis=1)
    rep = rot.min(axis=1) == np.arange(len(grid))
    members, total = rot[rep], grid[rep].sum(axis=1)
    low = grid[rep].min(axis=1)
    order = np.lexsort((members[:, 0], low, -total))  # within a layer, alike scan lengths together
    members, total = members[order], total[order]
    change = np.flatnonzero(np.diff(total)) + 1
    starts = np.concatenate([[0], change, [len(total)]]).astype(np.int64)
    return Cycles(levels, players, members, total, starts)


# ---------------------------------------------------------------------------------------------
# One cycle under fixed policies


def rotate(w: Any, m: int = 1) -> np.ndarray:
    """``R^m`` of value vectors ``[..., N]``: from the view of the player ``m`` seats on back to
    this one's (``R(w)[k] = w[k - 1]``)."""
    return np.roll(w, m, axis=-1)


def solve_cycle(A: Any, beta: Any, xp: Any = np) -> Any:
    """``W [..., N, N]`` solving ``W_j = A_j + beta_j R(W_{j+1})`` (members on axis -2), in
    NumPy (float64) or, with ``xp=jax.numpy``, inside a JAX program.

    ``W_j = (sum_m (prod_{k<m} beta_{j+k}) R^m A_{j+m}) / (1 - prod_k beta_k)``."""
    if xp is np:
        A, beta = np.asarray(A, np.float64), np.asarray(beta, np.float64)
    n = A.shape[-1]
    total = xp.zeros_like(A)
    weight = xp.ones_like(beta)
    for m in range(n):
        total = total + weight[..., None] * xp.roll(xp.roll(A, -m, axis=-2), m, axis=-1)
        weight = weight * xp.roll(beta, -m, axis=-1)
    return total / (1.0 - weight[..., None])


def bust_vectors(W: Any) -> Any:
    """``X_j = R(W_{j+1})``: each member's value vector after his bust."""
    return np.roll(np.roll(W, -1, axis=-2), 1, axis=-1)


# ---------------------------------------------------------------------------------------------
# Envelopes and equilibria


@dataclass(frozen=True)
class Piece:
    """One piece of a mover's envelope: the policy's line ``A + beta X`` (``A [N]``), optimal
    for bust payoffs ``x`` in ``[lo, hi]``."""

    A: np.ndarray
    beta: float
    lo: float
    hi: float

    def mover(self, x: Any) -> Any:
        return self.A[0] + self.beta * x


def _same(a: tuple, b: tuple) -> bool:
    return abs(a[0][0] - b[0][0]) <= TIE and abs(a[1] - b[1]) <= TIE


def envelope(query: Callable, states: np.ndarray, players: int, max_rounds: int = 400) -> list[list[Piece]]:
    """The upper envelope on ``x in [0, 1]`` of each state's turn lines.

    ``query(states [Q], X [Q, N]) -> (V [Q, N], beta [Q])``: the turn under the tie rule's best
    policy at bust vectors ``X``; the policy's line is ``A = V - beta X``. Each round queries,
    for every open interval of every state at once, the point where its two end lines meet: a
    line above both there is a new piece (the interval splits), else the point is a breakpoint.
    """
    states = np.asarray(states, np.int64)
    U = len(states)

    def at(x: Any) -> np.ndarray:
        x = np.asarray(x, np.float64)
        return np.concatenate([x[:, None], np.repeat(((1 - x) / max(players - 1, 1))[:, None], players - 1, axis=1)], axis=1)

    def lines(units: np.ndarray, xs: Any) -> list[tuple[np.ndarray, float]]:
        X = at(xs)
        V, beta = query(states[units], X)
        V, beta = np.asarray(V, np.float64), np.asarray(beta, np.float64)
        A = V - beta[:, None] * X
        return [(A[i], float(beta[i])) for i in range(len(units))]

    ends0 = lines(np.arange(U), np.zeros(U))
    ends1 = lines(np.arange(U), np.ones(U))
    found: list[dict[float, tuple]] = [{0.0: ends0[u]} for u in range(U)]  # left end x -> line
    open_ = [(u, 0.0, ends0[u], 1.0, ends1[u]) for u in range(U)]
    breaks: list[list[tuple[float, tuple, tuple]]] = [[] for _ in range(U)]
    for _ in range(max_rounds):
        todo = []
        for u, xl, L, xr, R in open_:
            if _same(L, R):
                continue
            slope = L[1] - R[1]
            x = (R[0][0] - L[0][0]) / slope if slope != 0 else 0.5 * (xl + xr)
            x = min(max(x, xl), xr)
            todo.append((u, xl, L, xr, R, x))
        if not todo:
            break
        got = lines(np.array([t[0] for t in todo]), np.array([t[5] for t in todo]))
        open_ = []
        for (u, xl, L, xr, R, x), M in zip(todo, got):
            above = M[0][0] + M[1] * x > L[0][0] + L[1] * x + TIE
            if not above or _same(M, L) or _same(M, R) or not (xl < x < xr):
                breaks[u].append((x, L, R))
            else:
                found[u][x] = M
                open_ += [(u, xl, L, x, M), (u, x, M, xr, R)]
    else:
        raise CycleTooLargeError(f"the envelope of a cycle's turn lines has not closed after {max_rounds} rounds of queries")
    out = []
    for u in range(U):
        cuts = sorted(breaks[u], key=lambda t: t[0])
        pieces: list[Piece] = []
        lo = 0.0
        line = ends0[u]
        for x, L, R in cuts:
            pieces.append(Piece(L[0], L[1], lo, x))
            lo, line = x, R
        pieces.append(Piece(line[0], line[1], lo, 1.0))
        out.append(pieces)
    return out


@dataclass(frozen=True)
class Equilibrium:
    """A stationary equilibrium of one cycle: ``W [N, N]`` (member, seat), the pieces played
    (``choice [N]``) and, for a mixed one, the mixing members (``mixer``) and each one's
    probability ``q`` of the left (lower-slope) piece of his breakpoint."""

    W: np.ndarray
    choice: tuple
    mixer: tuple | None = None
    q: tuple | None = None

    @property
    def score(self) -> float:
        """The selection criterion: the sum over the cycle's members of the mover's own value."""
        return float(np.trace(self.W))


SLACK = 2e-9
"""How far outside a piece's interval (or off a breakpoint) the search still looks for a bust
payoff: twenty times the tolerance an equilibrium is checked with."""


class _Seat:
    """One member's envelope as arrays, pieces in order of ``x``: ``lo, hi [P]``, ``A [P, N]``,
    ``beta [P]``; the envelope's value at each breakpoint; and a sparse table of the lines'
    entries (``A`` and ``beta``) for their least and greatest over any range of pieces."""

    def __init__(self, pieces: list[Piece]):
        self.lo = np.array([p.lo for p in pieces])
        self.hi = np.array([p.hi for p in pieces])
        self.A = np.array([p.A for p in pieces]).reshape(len(pieces), -1)
        self.beta = np.array([p.beta for p in pieces])
        self.bp = self.hi[:-1]
        self.env = self.A[:-1, 0] + self.beta[:-1] * self.bp
        self._table: tuple[np.ndarray, np.ndarray] | None = None

    def _tables(self) -> tuple[np.ndarray, np.ndarray]:
        if self._table is None:
            lines = np.concatenate([self.A, self.beta[:, None]], axis=1)
            low, high = [lines], [lines]
            width = 1
            while 2 * width <= len(lines):
                pad = np.repeat(lines[-1:], width, axis=0)  # never read: a query stays inside the range
                low.append(np.concatenate([np.minimum(low[-1][:-width], low[-1][width:]), pad]))
                high.append(np.concatenate([np.maximum(high[-1][:-width], high[-1][width:]), pad]))
                width *= 2
            self._table = np.stack(low), np.stack(high)
        return self._table

    def bounds(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Least and greatest ``[A, beta]`` (``[B, N + 1]``) over the pieces ``a <= k < b``."""
        low, high = self._tables()
        level = np.floor(np.log2(b - a)).astype(np.int64)
        end = b - (1 << level)
        return np.minimum(low[level, a], low[level, end]), np.maximum(high[level, a], high[level, end])

    def fixed_point(self, c: np.ndarray, d: np.ndarray) -> np.ndarray:
        """The root of ``x = c + d env(x)`` (``env``: the upper envelope, rising with slope
        ``beta < 1``, so ``x - c - d env(x)`` rises and the root is unique); rises with ``c``
        and ``d``."""
        count = np.zeros(len(c), np.int64)  # breakpoints where c + d env - x >= 0: a prefix
        top = np.full(len(c), len(self.bp), np.int64)
        while np.any(count < top):
            open_ = count < top
            mid = (count + top + 1) // 2
            k = np.maximum(mid - 1, 0)
            up = c + d * self.env[k] - self.bp[k] >= 0
            count = np.where(open_ & up, mid, count)
            top = np.where(open_ & ~up, mid - 1, top)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = (c + d * self.A[count, 0]) / (1 - d * self.beta[count])
        return np.clip(np.nan_to_num(x, nan=1.0), self.lo[count], self.hi[count])


def _narrow(seats: list[_Seat], a: np.ndarray, b: np.ndarray, mix: np.ndarray, same: np.ndarray, rounds: int = 30) -> np.ndarray:
    """Narrow boxes of candidates (``a, b [B, N]``: member ``j`` plays a piece ``a <= k < b``;
    a mixer (``mix``) mixes at a breakpoint ``a <= k < b - 1``, the one after piece ``k``) in
    place; returns which boxes can still hold an equilibrium.

    Member ``m``'s bust payoff is ``x_m = c_m + d_m V_m`` with ``V_m`` his own turn value and
    ``c_m, d_m`` made of the others' lines alone: ``d_m`` the product of their bust
    probabilities, ``c_m`` the sum over ``t = 1 .. N-1`` of ``A_{m+t}[N-t]`` times the bust
    probabilities of the members before it. Playing a best response (pure or mixed),
    ``V_m = env_m(x_m)``, so ``x_m`` is the unique fixed point of ``c_m + d_m env_m``, which
    rises with ``c_m`` and ``d_m``: the least and greatest of the others' lines over their
    candidates bound it, and only his pieces (or breakpoints) in those bounds remain. Sound:
    every equilibrium inside a box stays inside it."""
    n = len(seats)
    alive = np.ones(len(a), bool)
    groups = [np.flatnonzero(same == label) for label in np.unique(same)]
    for _ in range(rounds):
        before = (a.copy(), b.copy())
        lines = [seats[j].bounds(a[:, j], b[:, j]) for j in range(n)]
        for m in range(n):
            c = [np.zeros(len(a)), np.zeros(len(a))]
            d = [np.ones(len(a)), np.ones(len(a))]
            for t in range(1, n):
                j = (m + t) % n
                for side in (0, 1):
                    c[side] = c[side] + d[side] * lines[j][side][:, n - t]
                    d[side] = d[side] * lines[j][side][:, n]
            s = seats[m]
            xl = s.fixed_point(c[0], d[0]) - SLACK
            xh = s.fixed_point(c[1], d[1]) + SLACK
            if mix[m]:
                first = np.maximum(a[:, m], np.searchsorted(s.bp, xl, "left"))
                last = np.minimum(b[:, m] - 2, np.searchsorted(s.bp, xh, "right") - 1)
                alive &= first <= last
                a[:, m], b[:, m] = np.where(alive, first, a[:, m]), np.where(alive, last + 2, b[:, m])
            else:
                first = np.maximum(a[:, m], np.searchsorted(s.hi, xl, "left"))
                last = np.minimum(b[:, m] - 1, np.searchsorted(s.lo, xh, "right") - 1)
                alive &= first <= last
                a[:, m], b[:, m] = np.where(alive, first, a[:, m]), np.where(alive, last + 1, b[:, m])
        for g in groups:  # members of one state play alike
            if len(g) > 1:
                lo, hi = a[:, g].max(axis=1), b[:, g].min(axis=1)
                alive &= hi - lo >= 1 + mix[g[0]]
                a[:, g], b[:, g] = np.where(alive, lo, a[:, g[0]])[:, None], np.where(alive, hi, b[:, g[0]])[:, None]
        if np.array_equal(before[0], a) and np.array_equal(before[1], b):
            break
    return alive


def _search(seats: list[_Seat], mix: np.ndarray, same: np.ndarray, leaf: int, max_steps: int, batch: int = 1 << 14) -> list[np.ndarray]:
    """Branch and bound over the members' candidate ranges: narrow a batch of boxes, split each
    one with more than ``leaf`` combinations at the middle of its widest range, until every box
    is a leaf; the leaves' ranges (``[N, 2]`` each), every equilibrium lying in one of them.
    ``CycleTooLargeError`` after ``max_steps`` boxes."""
    n = len(seats)
    reps = np.unique(same, return_index=True)[1]
    stack = [np.array([[[0, len(s.lo)] for s in seats]], np.int64)]
    if np.prod((stack[0][0, :, 1] - mix)[reps].astype(np.float64)) <= leaf:
        return [stack[0][0]]  # small enough to solve whole
    leaves: list[np.ndarray] = []
    steps = 0
    while stack:
        boxes = stack.pop()
        if len(boxes) > batch:
            stack.append(boxes[batch:])
            boxes = boxes[:batch]
        steps += len(boxes)
        if steps > max_steps:
            raise CycleTooLargeError(
                f"a cycle whose best responses do not settle needs more than {max_steps:,} steps of its exact search "
                f"(pieces per mover: {', '.join(str(len(s.lo)) for s in seats)})"
            )
        a, b = boxes[:, :, 0].copy(), boxes[:, :, 1].copy()
        alive = _narrow(seats, a, b, mix, same)
        boxes = np.stack([a, b], axis=-1)[alive]
        counts = boxes[:, :, 1] - boxes[:, :, 0] - mix
        small = np.prod(counts[:, reps].astype(np.float64), axis=1) <= leaf
        leaves += list(boxes[small])
        boxes, counts = boxes[~small], counts[~small]
        if not len(boxes):
            continue
        j = reps[np.argmax(counts[:, reps], axis=1)]
        rows = np.arange(len(boxes))
        mid = boxes[rows, j, 0] + counts[rows, j] // 2
        left, right = boxes.copy(), boxes.copy()
        for m in range(n):
            on = same[j] == same[m]
            left[on, m, 1] = mid[on] + mix[m]
            right[on, m, 0] = mid[on]
        stack.append(np.concatenate([right, left]))
    return leaves


def _lines(seats: list[_Seat], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A [R, N, N]`` and ``beta [R, N]`` of the pieces ``rows [R, N]`` (one per member)."""
    return np.stack([s.A[rows[:, j]] for j, s in enumerate(seats)], axis=1), np.stack([s.beta[rows[:, j]] for j, s in enumerate(seats)], axis=1)


def _fits(seats: list[_Seat], W: np.ndarray, rows: np.ndarray, skip: tuple = (), slack: float = 1e-10) -> np.ndarray:
    """Whether each member's solved bust payoff lies in his piece's interval (``skip``: mixers)."""
    x = bust_vectors(W)[..., 0]
    good = np.ones(len(rows), bool)
    for j, s in enumerate(seats):
        if j not in skip:
            good &= (x[:, j] >= s.lo[rows[:, j]] - slack) & (x[:, j] <= s.hi[rows[:, j]] + slack)
    return good


def _rows(spans: list[np.ndarray], free: list[int], last: np.ndarray, copies: list[tuple[int, int]], same: np.ndarray) -> np.ndarray:
    """Every row of pieces (or breakpoints) in the leaves ``spans``: members ``free`` range over
    ``a <= k < b - last``, each pair ``(i, j)`` of ``copies`` sets member ``i`` to member
    ``j``'s entry, the others are 0; rows where members of one state differ are dropped."""
    n = len(same)
    out = []
    for span in spans:
        grid = np.stack(np.meshgrid(*(np.arange(span[j, 0], span[j, 1] - last[j]) for j in free), indexing="ij"), axis=-1).reshape(-1, len(free))
        rows = np.zeros((len(grid), n), np.int64)
        rows[:, free] = grid
        for i, j in copies:
            rows[:, i] = rows[:, j]
        out.append(rows)
    rows = np.concatenate(out) if out else np.zeros((0, n), np.int64)
    rows = rows[np.lexsort(rows.T[::-1])] if len(rows) else rows
    for j in range(n):
        for i in range(j):
            if same[i] == same[j] and i in free and j in free:
                rows = rows[rows[:, i] == rows[:, j]]
    return rows


def cycle_equilibria(pieces: list[list[Piece]], same: np.ndarray | None = None, *, leaf: int = 64,
                     max_steps: int = 4_000_000, batch: int = 1 << 16) -> tuple[list[Equilibrium], list[Equilibrium]]:
    """The pure equilibria of a cycle whose members' envelopes are ``pieces`` and, where there is
    none, its mixed ones with the fewest mixing movers (``same [N]``: a label per member; members
    with the same label are the same state and play the same).

    The combinations of the members' pieces are not enumerated whole (a member can have
    thousands of pieces): a branch and bound (``_search``) narrows the candidates and splits
    them until at most ``leaf`` combinations remain in a branch, and only those are solved, in
    batches of ``batch`` rows. The equilibria come in the order of the full enumeration (by the
    pieces played), so the selection does not depend on the search; ``CycleTooLargeError``
    after ``max_steps`` boxes of the search."""
    n = len(pieces)
    same = np.arange(n) if same is None else np.asarray(same)
    seats = [_Seat(p) for p in pieces]
    pure: list[Equilibrium] = []
    combos = _rows(_search(seats, np.zeros(n, np.int64), same, leaf, max_steps), list(range(n)), np.zeros(n, np.int64), [], same)
    for lo in range(0, len(combos), batch):
        rows = combos[lo : lo + batch]
        W = solve_cycle(*_lines(seats, rows))
        pure += [Equilibrium(W[r], tuple(int(c) for c in rows[r])) for r in np.flatnonzero(_fits(seats, W, rows))]
    if pure:
        return _distinct(pure), []
    # a state that recurs in its cycle (scores repeating under a shorter rotation) is one
    # situation: its members mix together, with one probability
    groups = [tuple(int(i) for i in np.flatnonzero(same == label)) for label in dict.fromkeys(same.tolist())]
    for size in range(1, len(groups) + 1):
        mixed: list[Equilibrium] = []
        for mixers in itertools.combinations(groups, size):
            mixed += _mixed(seats, mixers, same, leaf, max_steps, batch)
        if mixed:
            return pure, _distinct(mixed)
    return pure, []


def _corner(rows: np.ndarray, groups: tuple, corner: tuple) -> np.ndarray:
    """The pure rows at a corner of the mixing: group ``t`` plays the left piece of its
    breakpoint (``corner[t] = 0``) or the right one (``1``)."""
    rows = rows.copy()
    for g, c in zip(groups, corner):
        rows[:, list(g)] += c
    return rows


def _mixed(seats: list[_Seat], groups: tuple, same: np.ndarray, leaf: int, max_steps: int, batch: int, starts: int = 3, steps: int = 60) -> list[Equilibrium]:
    """Equilibria in which each group of ``groups`` (the members of one state: one member, or
    several where the state recurs in its cycle) mixes between the two pieces adjacent at one
    of its breakpoints, with the probability that makes its mover indifferent there, and the
    others play pure pieces (members of one state alike, ``same``), in the order of the full
    enumeration (breakpoints, the others' pieces, the start).

    Each mixer's condition ``(x_i - b_i)(1 - prod beta)`` is a polynomial in the mixing
    probabilities ``q``. With one member per group it is multilinear (a member's line appears
    at most once in each term of the cycle's closed form), so its derivative in ``q_j`` is the
    difference of its values at ``q_j = 1`` and ``q_j = 0``, exactly, and Newton's method
    finds a lone mixer's root at the first step. A group of several members enters a term once
    per member, so there the derivative is taken by central differences. Newton's method from
    a few starts finds the roots in ``[0, 1]^m``."""
    n, m = len(seats), len(groups)
    mixers = [g[0] for g in groups]  # one member speaks for its group
    members = [i for g in groups for i in g]
    mix = np.zeros(n, np.int64)
    mix[members] = 1
    spans = _search(seats, mix, same, leaf, max_steps)
    # rows ordered as the full enumeration: the mixers' breakpoints, then the others' pieces
    free = mixers + [j for j in range(n) if j not in members]
    copies = [(i, g[0]) for g in groups for i in g[1:]]
    cand = _rows(spans, free, mix, copies, same)
    order = np.lexsort(np.concatenate([np.where(np.isin(np.arange(n), members), 0, cand).T[::-1], cand[:, mixers].T[::-1]]))
    cand = cand[order]
    linear = all(len(g) == 1 for g in groups)
    grid = [0.5] if m == 1 and linear else np.linspace(0.2, 0.8, starts)
    q0 = np.array(list(itertools.product(grid, repeat=m)), np.float64).reshape(-1, m)
    found: list[Equilibrium] = []
    if linear:  # a multilinear condition is extreme at the corners of [0, 1]^m: no sign change there, no root
        keep = np.ones(len(cand), bool)
        for lo in range(0, len(cand), batch):
            rows0 = cand[lo : lo + batch]
            corner_signs = []
            for corner in itertools.product((0, 1), repeat=m):
                W = solve_cycle(*_lines(seats, _corner(rows0, groups, corner)))
                x = bust_vectors(W)[:, :, 0]
                corner_signs.append(np.stack([np.sign(np.where(np.abs(d) <= 1e-12, 0.0, d)) for d in (x[:, i] - seats[i].bp[rows0[:, i]] for i in mixers)], axis=1))
            signs = np.stack(corner_signs)
            keep[lo : lo + batch] = np.all(signs.min(axis=0) <= 0, axis=1) & np.all(signs.max(axis=0) >= 0, axis=1)
        cand = cand[keep]
    total = len(cand) * len(q0)
    for lo in range(0, total, batch):
        at = np.arange(lo, min(lo + batch, total))
        rows0, q = cand[at // len(q0)], q0[at % len(q0)]
        bps = np.stack([seats[i].bp[rows0[:, i]] for i in mixers], axis=1)
        corners = []
        for corner in itertools.product((0, 1), repeat=m):
            corners.append((corner, _lines(seats, _corner(rows0, groups, corner))))

        def solved(q: np.ndarray, rows: Any = slice(None), corners: list = corners) -> tuple[np.ndarray, np.ndarray]:
            """Cycle values of the candidates ``rows`` with mixer ``t`` playing his breakpoint's
            left piece with probability ``q[:, t]``."""
            A = np.zeros((len(q), n, n))
            beta = np.zeros((len(q), n))
            for corner, (Ac, bc) in corners:
                w = np.ones(len(q))
                for t, c in enumerate(corner):
                    w = w * (q[:, t] if c == 0 else 1 - q[:, t])
                A += w[:, None, None] * Ac[rows]
                beta += w[:, None] * bc[rows]
            return solve_cycle(A, beta), 1.0 - np.prod(beta, axis=-1)

        def excess(q: np.ndarray, rows: Any, solved: Callable = solved, bps: np.ndarray = bps) -> np.ndarray:
            W, den = solved(q, rows)
            x = bust_vectors(W)[:, :, 0]
            return np.stack([(x[:, i] - bps[rows, t]) * den for t, i in enumerate(mixers)], axis=1)

        q = _newton(excess, q, linear, steps)
        good = np.all(np.isfinite(q) & (q >= -1e-9) & (q <= 1 + 1e-9), axis=1)
        if not good.any():
            continue
        q = np.clip(np.where(good[:, None], q, 0.5), 0.0, 1.0)
        W, _ = solved(q)
        x = bust_vectors(W)[:, :, 0]
        good &= _fits(seats, W, rows0, skip=tuple(members)) & np.all(np.abs(x[:, mixers] - bps) <= 1e-9, axis=1)
        for r in np.flatnonzero(good):
            qs = tuple(float(q[r, t]) for t, g in enumerate(groups) for _ in g)
            found.append(Equilibrium(W[r], tuple(int(c) for c in rows0[r]), mixer=tuple(members), q=qs))
    return found


def _newton(excess: Callable, q: np.ndarray, linear: bool, steps: int) -> np.ndarray:
    """Roots of ``excess`` (``(q [R', m], rows [R']) -> [R', m]``, for the candidates ``rows``)
    from the starts ``q [R, m]``, by Newton's method with the exact derivative of a multilinear
    ``excess`` (``linear``) or central differences. A row stops once its step is below the
    rounding; a row that leaves the reals or the solvable becomes NaN."""
    m = q.shape[1]
    q = q.copy()
    active = np.arange(len(q))
    with np.errstate(all="ignore"):
        for _ in range(steps):
            if not len(active):
                break
            qa = q[active]
            f = excess(qa, active)
            J = np.empty(qa.shape + (m,))
            for t in range(m):
                hi, lo = qa.copy(), qa.copy()
                if linear:
                    hi[:, t], lo[:, t] = 1.0, 0.0
                    J[:, :, t] = excess(hi, active) - excess(lo, active)
                else:
                    hi[:, t] += 1e-6
                    lo[:, t] -= 1e-6
                    J[:, :, t] = (excess(hi, active) - excess(lo, active)) / 2e-6
            ok = np.isfinite(qa).all(axis=1) & (np.abs(np.linalg.det(J)) > 0) & (np.abs(qa) < 1e6).all(axis=1)
            step = np.zeros_like(qa)
            if ok.any():
                step[ok] = np.linalg.solve(J[ok], f[ok][..., None])[..., 0]
            q[active] = np.where(ok[:, None], qa - step, np.nan)
            moving = ok & np.any(np.abs(step) > (1e-15 if linear else 1e-13), axis=1)
            active = active[moving]
    return q


def _distinct(eqs: list[Equilibrium], tol: float = 1e-9) -> list[Equilibrium]:
    out: list[Equilibrium] = []
    for e in eqs:
        if all(np.max(np.abs(e.W - o.W)) > tol for o in out):
            out.append(e)
    return out


def select(pure: list[Equilibrium], mixed: list[Equilibrium]) -> Equilibrium | None:
    """The declared selection among a cycle's equilibria where best-response iteration does not
    settle: a pure one if any exists, else a mixed one; among those, the largest sum of the
    movers' own win probabilities (``Equilibrium.score``), the first found on a tie."""
    pool = pure or mixed
    if not pool:
        return None
    return max(pool, key=lambda e: e.score)
