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
envelope pieces whose solved bust payoffs lie in the pieces' intervals, and, where no pure one
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


def _narrow(pieces: list[list[Piece]], rounds: int = 60) -> list[list[int]]:
    """Pieces each member can play in some equilibrium (interval bounds on ``W``, iterated)."""
    n = len(pieces)
    lo = np.zeros((n, n))
    hi = np.ones((n, n))
    allowed = [list(range(len(p))) for p in pieces]
    for _ in range(rounds):
        before = (lo.copy(), hi.copy(), [len(a) for a in allowed])
        for j in range(n):
            lx, hx = rotate(lo[(j + 1) % n]), rotate(hi[(j + 1) % n])
            keep = [k for k in allowed[j] if pieces[j][k].hi >= lx[0] - 1e-9 and pieces[j][k].lo <= hx[0] + 1e-9]
            allowed[j] = keep or allowed[j]
            A = np.array([pieces[j][k].A for k in allowed[j]])
            b = np.array([pieces[j][k].beta for k in allowed[j]])[:, None]
            lo[j] = np.maximum(lo[j], (A + b * lx).min(axis=0) - 1e-12)
            hi[j] = np.minimum(hi[j], (A + b * hx).max(axis=0) + 1e-12)
        if np.array_equal(before[0], lo) and np.array_equal(before[1], hi) and before[2] == [len(a) for a in allowed]:
            break
    return allowed


def _arrays(pieces: list[list[Piece]], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A [R, N, N]`` and ``beta [R, N]`` of the pieces ``rows [R, N]`` (one per member)."""
    n = len(pieces)
    A = np.empty((len(rows), n, n))
    beta = np.empty((len(rows), n))
    for j in range(n):
        A[:, j] = np.array([pieces[j][k].A for k in rows[:, j]]).reshape(-1, n)
        beta[:, j] = np.array([pieces[j][k].beta for k in rows[:, j]])
    return A, beta


def _fits(pieces: list[list[Piece]], W: np.ndarray, rows: np.ndarray, skip: tuple = (), slack: float = 1e-10) -> np.ndarray:
    """Whether each member's solved bust payoff lies in his piece's interval (``skip``: mixers)."""
    x = bust_vectors(W)[..., 0]
    good = np.ones(len(rows), bool)
    for j in range(len(pieces)):
        if j in skip:
            continue
        lo = np.array([pieces[j][k].lo for k in rows[:, j]])
        hi = np.array([pieces[j][k].hi for k in rows[:, j]])
        good &= (x[:, j] >= lo - slack) & (x[:, j] <= hi + slack)
    return good


def cycle_equilibria(pieces: list[list[Piece]], same: np.ndarray | None = None, *, max_combos: int = 4_000_000) -> tuple[list[Equilibrium], list[Equilibrium]]:
    """The pure equilibria of a cycle whose members' envelopes are ``pieces`` and, where there is
    none, its mixed ones with the fewest mixing movers (``same [N]``: a label per member; members with the same label are
    the same state and play the same)."""
    n = len(pieces)
    same = np.arange(n) if same is None else np.asarray(same)
    allowed = _narrow(pieces)
    size = int(np.prod([len(a) for a in allowed]))
    if size > max_combos:
        raise CycleTooLargeError(
            f"a cycle whose best responses do not settle has {size:,} combinations of its movers' policies "
            f"(pieces per mover: {', '.join(str(len(a)) for a in allowed)}), more than the {max_combos:,} its exact analysis enumerates"
        )
    combos = np.array(list(itertools.product(*allowed)), np.int64).reshape(-1, n)
    ok = np.ones(len(combos), bool)
    for j in range(n):
        for i in range(j):
            if same[i] == same[j]:
                ok &= combos[:, i] == combos[:, j]
    combos = combos[ok]

    def arrays(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _arrays(pieces, rows)

    def fits(W: np.ndarray, rows: np.ndarray, skip: tuple = ()) -> np.ndarray:
        return _fits(pieces, W, rows, skip)

    pure: list[Equilibrium] = []
    if len(combos):
        A, beta = arrays(combos)
        W = solve_cycle(A, beta)
        for r in np.flatnonzero(fits(W, combos)):
            pure.append(Equilibrium(W[r], tuple(int(c) for c in combos[r])))
    mixed: list[Equilibrium] = []
    if pure:
        return _distinct(pure), mixed
    # a state that recurs in its cycle (scores repeating under a shorter rotation) is one
    # situation: its members mix together, with one probability
    groups = [tuple(int(i) for i in np.flatnonzero(same == label)) for label in dict.fromkeys(same.tolist())]
    for size in range(1, len(groups) + 1):
        for mixers in itertools.combinations(groups, size):
            mixed += _mixed(pieces, allowed, mixers, arrays, fits, same)
        if mixed:
            break
    return pure, _distinct(mixed)


def _mixed(
    pieces: list[list[Piece]], allowed: list[list[int]], groups: tuple, arrays: Callable, fits: Callable, same: np.ndarray,
    starts: int = 3, steps: int = 60,
) -> list[Equilibrium]:
    """Equilibria in which each group of ``groups`` (the members of one state: one member, or
    several where the state recurs in its cycle) mixes between the two pieces adjacent at one
    of its breakpoints, with the probability that makes its mover indifferent there, and the
    others play pure pieces (members of one state alike, ``same``).

    Each mixer's condition ``(x_i - b_i)(1 - prod beta)`` is a polynomial in the mixing
    probabilities ``q``. With one member per group it is multilinear (a member's line appears
    at most once in each term of the cycle's closed form), so its derivative in ``q_j`` is the
    difference of its values at ``q_j = 1`` and ``q_j = 0``, exactly, and Newton's method
    finds a lone mixer's root at the first step. A group of several members enters a term once
    per member, so there the derivative is taken by central differences. Newton's method from
    a few starts finds the roots in ``[0, 1]^m``."""
    n, m = len(pieces), len(groups)
    mixers = tuple(g[0] for g in groups)  # one member speaks for its group
    members = [i for g in groups for i in g]
    found: list[Equilibrium] = []
    near = [[k for k in range(len(pieces[i]) - 1) if k in allowed[i] or k + 1 in allowed[i]] for i in mixers]
    others = [allowed[j] if j not in members else [0] for j in range(n)]
    base = np.array(list(itertools.product(*others)), np.int64).reshape(-1, n)
    for j in range(n):
        for i in range(j):
            if same[i] == same[j]:
                base = base[base[:, i] == base[:, j]]
    ks = np.array(list(itertools.product(*near)), np.int64).reshape(-1, m)
    linear = all(len(g) == 1 for g in groups)
    grid = [0.5] if m == 1 and linear else np.linspace(0.2, 0.8, starts)
    q0 = np.array(list(itertools.product(grid, repeat=m)), np.float64).reshape(-1, m)
    # every (breakpoints, others' pieces, start) at once
    kk, bb, ss = (a.ravel() for a in np.meshgrid(np.arange(len(ks)), np.arange(len(base)), np.arange(len(q0)), indexing="ij"))
    if not len(kk):
        return found
    rows0 = base[bb].copy()
    for t, g in enumerate(groups):
        rows0[:, list(g)] = ks[kk][:, t : t + 1]
    R = len(rows0)
    bps = np.array([[pieces[i][k].hi for i, k in zip(mixers, row)] for row in ks])[kk]
    corners = []
    for corner in itertools.product((0, 1), repeat=m):
        rows = rows0.copy()
        for g, c in zip(groups, corner):
            rows[:, list(g)] += c
        corners.append((corner, arrays(rows)))

    def solved(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cycle values with mixer ``t`` playing his breakpoint's left piece with probability ``q[:, t]``."""
        A = np.zeros((R, n, n))
        beta = np.zeros((R, n))
        for corner, (Ac, bc) in corners:
            w = np.ones(R)
            for t, c in enumerate(corner):
                w = w * (q[:, t] if c == 0 else 1 - q[:, t])
            A += w[:, None, None] * Ac
            beta += w[:, None] * bc
        return solve_cycle(A, beta), 1.0 - np.prod(beta, axis=-1)

    def excess(q: np.ndarray) -> np.ndarray:
        W, den = solved(q)
        x = bust_vectors(W)[:, :, 0]
        return np.stack([(x[:, i] - bps[:, t]) * den for t, i in enumerate(mixers)], axis=1)

    q = _newton(excess, q0[ss].copy(), linear, steps)
    good = np.all(np.isfinite(q) & (q >= -1e-9) & (q <= 1 + 1e-9), axis=1)
    if not good.any():
        return found
    q = np.clip(np.where(good[:, None], q, 0.5), 0.0, 1.0)
    W, _ = solved(q)
    x = bust_vectors(W)[:, :, 0]
    good &= fits(W, rows0, skip=tuple(members)) & np.all(np.abs(x[:, list(mixers)] - bps) <= 1e-9, axis=1)
    for r in np.flatnonzero(good):
        qs = tuple(float(q[r, t]) for t, g in enumerate(groups) for _ in g)
        found.append(Equilibrium(W[r], tuple(int(c) for c in rows0[r]), mixer=tuple(members), q=qs))
    return found


def _newton(excess: Callable, q: np.ndarray, linear: bool, steps: int) -> np.ndarray:
    """Roots of ``excess`` (``[R, m] -> [R, m]``) from the starts ``q``, by Newton's method with
    the exact derivative of a multilinear ``excess`` (``linear``) or central differences; a row
    that leaves the reals or the solvable becomes NaN."""
    m = q.shape[1]
    with np.errstate(all="ignore"):
        for _ in range(steps):
            f = excess(q)
            J = np.empty(q.shape + (m,))
            for t in range(m):
                hi, lo = q.copy(), q.copy()
                if linear:
                    hi[:, t], lo[:, t] = 1.0, 0.0
                    J[:, :, t] = excess(hi) - excess(lo)
                else:
                    hi[:, t] += 1e-6
                    lo[:, t] -= 1e-6
                    J[:, :, t] = (excess(hi) - excess(lo)) / 2e-6
            ok = np.isfinite(q).all(axis=1) & (np.abs(np.linalg.det(J)) > 0) & (np.abs(q) < 1e6).all(axis=1)
            step = np.zeros_like(q)
            if ok.any():
                step[ok] = np.linalg.solve(J[ok], f[ok][..., None])[..., 0]
            q = np.where(ok[:, None], q - step, np.nan)
            if not np.any(np.abs(step[ok]) > (1e-15 if linear else 1e-13)):
                break
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
