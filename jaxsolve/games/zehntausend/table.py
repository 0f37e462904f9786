"""Zehntausend for N players on the N-player race engine (``jaxsolve.core.race_multi``).

State of a turn: every banked level seen from the writer to move, ``(s_0, ..., s_{N-1})``
(levels are points / 50), the turn total ``p`` and the dice ``n`` about to be thrown (``n = 0``:
all six used, write or throw six again). ``V(p, n)`` is the vector of win probabilities under
the mover's best policy (max-n). A throw of ``n`` dice either busts (the bust vector ``X``: the
next player's turn at the same scores, rotated) or offers the write ``S(p + W(w))`` and every
usable set-aside. ``S(p)``: the win ``e_0`` when ``s_0 + p`` reaches the goal, else the next
player's turn-start vector at ``(s_1, ..., s_{N-1}, s_0 + p)`` rotated; forbidden below the entry
minimum while ``s_0 = 0``.

The scan is the duel's (``jaxsolve.games.zehntausend.duel.scan_levels``: throw classes, turn
totals from the top down, the batch last) with a vector per entry and the table's tie rule:
every class compares its write first, then its set-asides by most points, then most dice left
(all six used counts as six), and an option replaces the best so far only when it is better for
the mover by more than ``1e-12``; writing on ``n = 0`` wins a tie with throwing six. Only the mover's
entry decides, so the running maximum reads his channel alone and remembers the row it chose;
the other players' channels and the bust probability are gathered from the chosen rows only
(``scan_channels``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.arrays import float_dtype
from jaxsolve.core.race_cycles import TIE, make_cycles
from jaxsolve.core.race_multi import MultiRun, solve_multi
from jaxsolve.core.race_multi import decode_scores as decode
from jaxsolve.core.race_multi import flat_scores as flat
from jaxsolve.games.zehntausend.duel_numpy import NDIM
from jaxsolve.games.zehntausend.rules import DICE
from jaxsolve.games.zehntausend.table_numpy import Sizes, host_ops, sizes
from jaxsolve.games.zehntausend.table_rules import TableRules


CHUNK = 4
"""Cycles per batch of the engine's layer program. Small batches scan no further and iterate no
longer than their own cycles need (best-response rounds run until the batch's last cycle
settles, and a batch scans the turn totals its lowest mover needs); the times per batch size
are in ``results/race-n/README.md``."""

ROWS = NDIM + 1
"""Rows per turn total in the scan's table: the entries ``n = 0..6``, then the write ``S(p)``."""


class TableOps(NamedTuple):
    groups: tuple  # per group (write [Cg], options [Cg, Ug]): rows after a level's first, in the tie rule's order
    by_n: tuple  # per n = 1..6: (classes [C_n], their probabilities [C_n]); a class past the last group is a bust


def table_ops(rules: TableRules, dtype=jnp.float64) -> TableOps:
    groups, by_n = host_ops(rules.duel.turn_rules, jnp.dtype(dtype).name)
    # ``host_ops`` counts a write ``w`` levels up and an entry ``i`` of the levels above (``7`` per
    # level); the scan's table holds ``ROWS`` rows per level, the write last
    rows = tuple((w * ROWS + NDIM, ROWS + (i // NDIM) * ROWS + i % NDIM) for w, i in groups)
    return TableOps(jax.device_put(tuple((w.astype(np.int32), i.astype(np.int32)) for w, i in rows)), jax.device_put(by_n))


def write_vectors(W, s, z: Sizes):
    """``S [B, H, N]``: the value vector of writing each turn total at scores ``s [B, N]``."""
    B, N = s.shape
    p = jnp.arange(z.H)
    new = s[:, :1] + p[None, :]
    rest = jnp.broadcast_to(s[:, None, 1:], (B, z.H, N - 1))
    nxt = flat(jnp.concatenate([rest, jnp.minimum(new, z.G - 1)[..., None]], axis=-1), z.G)
    win = jnp.zeros(N, W.dtype).at[0].set(1.0)
    S = jnp.where((new >= z.G)[..., None], win, jnp.roll(W[nxt], 1, axis=-1))
    if z.entry:
        barred = (s[:, :1] == 0) & (p[None, :] < z.entry)
        S = S.at[..., 0].set(jnp.where(barred, -jnp.inf, S[..., 0]))
    return S


def scan_channels(Sc, Xc, top, ops: TableOps, z: Sizes):
    """``V [H * 7, N + 1, B]``: every turn total and dice's value vector (channels ``0..N-1``)
    and bust probability (channel ``N``) for ``p < top``; the rows from ``top`` on hold the
    write (slope 0).

    ``Sc [H, N + 1, B]``: the writes with slope 0; ``Xc [N + 1, B]``: the bust vectors with
    slope 1. The channels and the batch are the last two axes (the duel's batch-last layout).
    The scan's table holds, per turn total, the seven entries and the write (``ROWS``), and a
    last row the bust vector, so that every option of a throw is a row of one array. Only the
    mover's entry decides: the running maximum over a class's options (write first, then its
    set-asides in the tie rule's order) compares the mover's channel alone, kept apart as
    ``M [rows, B]``, and remembers the row; then each class's chosen row is gathered with all
    its channels, in the order of the sums over the throws of ``n`` dice."""
    H, K, B = Sc.shape
    T = jnp.concatenate([jnp.repeat(Sc[:, None], NDIM, axis=1), Sc[:, None]], axis=1).reshape(H * ROWS, K, B)
    T = jnp.concatenate([T, Xc[None]], axis=0)
    M = T[:, 0]
    bust = jnp.full((z.busts, B), H * ROWS, jnp.int32)  # the bust vector's row
    ids = jnp.concatenate([c for c, _ in ops.by_n])
    bounds = np.cumsum([0] + [c.shape[0] for c, _ in ops.by_n])

    def level(i, carry):
        T, M = carry
        p = top - 1 - i
        base = p * ROWS
        picks = []
        for write, options in ops.groups:
            pick = jnp.broadcast_to(base + write[:, None], (write.shape[0], B))
            best = M[base + write]  # [Cg, B]: the write
            rows = base + options  # [Cg, Ug]
            cand = M[rows]  # [Cg, Ug, B]
            for j in range(options.shape[1]):
                better = cand[:, j] > best + TIE
                best = jnp.where(better, cand[:, j], best)
                pick = jnp.where(better, rows[:, j, None], pick)
            picks.append(pick)
        pick = jnp.concatenate(picks + [bust], axis=0)[ids]  # [230, B]: each class's row, by n
        chosen = jnp.take_along_axis(T, pick[:, None, :], axis=0, mode="clip")  # [230, K, B]
        e = jnp.stack([jnp.sum(pn[:, None, None] * chosen[bounds[k] : bounds[k + 1]], axis=0) for k, (_, pn) in enumerate(ops.by_n)])  # [6, K, B]
        s_p = T[base + NDIM]
        write_now = s_p[0] >= e[DICE - 1][0] - TIE
        row = jnp.concatenate([jnp.where(write_now[None], s_p, e[DICE - 1])[None], e], axis=0)
        return jax.lax.dynamic_update_slice_in_dim(T, row, base, axis=0), jax.lax.dynamic_update_slice_in_dim(M, row[:, 0], base, axis=0)

    T, _ = jax.lax.fori_loop(0, top, level, (T, M))
    return T[: H * ROWS].reshape(H, ROWS, K, B)[:, :NDIM].reshape(H * NDIM, K, B)


def channels(S, X):
    """``Sc [H, N + 1, B]``, ``Xc [N + 1, B]`` of ``S [B, H, N]``, ``X [B, N]`` (``scan_channels``)."""
    B, H, N = S.shape
    Sc = jnp.concatenate([jnp.transpose(S, (1, 2, 0)), jnp.zeros((H, 1, B), S.dtype)], axis=1)
    Xc = jnp.concatenate([X.T, jnp.ones((1, B), X.dtype)], axis=0)
    return Sc, Xc


def scan_vectors(S, X, top, ops: TableOps, z: Sizes):
    """``V [H * 7, B, N]``, ``D [H * 7, B]``: value vectors and bust probabilities of every turn
    total and dice for ``p < top`` (rows from ``top`` on hold the write and slope 0), in the
    batch-first layout (``scan_channels``)."""
    N = S.shape[-1]
    Sc, Xc = channels(S, X)
    V = scan_channels(Sc, Xc, top, ops, z)
    return jnp.swapaxes(V[:, :N], 1, 2), V[:, N]


def table_turn(W, states, X, ops: TableOps, *, z: Sizes):
    """The engine's turn: ``V [B, N]`` and ``beta [B]`` at turn total 0 with six dice."""
    B, N = X.shape
    s = decode(states, z.G, N)
    top = z.G - jnp.min(s[:, 0])
    Sc, Xc = channels(write_vectors(W, s, z), X)
    V = scan_channels(Sc, Xc, top, ops, z)[DICE]  # [N + 1, B]
    return V[:N].T, V[N]


@dataclass(frozen=True, eq=False)
class TableSolution:
    """Turn-start win-probability vectors ``values [G] * N + [N]`` (levels, mover first)."""

    rules: TableRules
    values: np.ndarray
    run: MultiRun

    @property
    def start(self) -> np.ndarray:
        return self.values[(0,) * self.rules.players]


def turn_function(rules: TableRules):
    return functools.partial(table_turn, z=sizes(rules))


def solve(rules: TableRules, *, tol: float = 1e-13, analyse: bool = False, progress=None, chunk: int = CHUNK, checkpoint=None) -> TableSolution:
    """Win-probability vectors of every turn-start state of Zehntausend at a table."""
    float_dtype("float64")  # float64 or a clear error (x64 mode off), before any table is built
    cycles = make_cycles(rules.levels, rules.players)
    run = solve_multi(("zehntausend-table", rules), turn_function(rules), cycles, table_ops(rules), tol=tol, chunk=chunk, analyse=analyse, progress=progress, checkpoint=checkpoint)
    return TableSolution(rules, run.values.reshape((rules.levels,) * rules.players + (rules.players,)), run)
