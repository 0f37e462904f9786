"""The Pig family for N players on the N-player race engine (``jaxsolve.core.race_multi``).

State of a turn: every banked score seen from the mover, ``(s_0, ..., s_{N-1})``, and the turn
total ``p``. ``V(p)`` is the vector of win probabilities under the mover's best policy (max-n):
rolling is worth ``b X + sum_k w_k V(p + k)`` (``b`` the bust probability, ``X`` the value
vector after a bust: the next player's turn at the same scores, rotated), banking is worth
``S(p)``: the win ``e_0`` when ``s_0 + p`` reaches the goal, else the next player's turn-start
vector at ``(s_1, ..., s_{N-1}, s_0 + p)``, rotated. A turn starts with a roll; the mover banks
where banking is within ``1e-12`` of rolling (the tie rule). The scan runs over ``p`` from the
goal down, all states of a batch at once.
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
from jaxsolve.games.raab.table_rules import PigTableRules


class PigOps(NamedTuple):
    weights: jax.Array  # [F] probability that a roll adds k + 1
    bust: jax.Array  # scalar bust probability


def bank_vectors(W, s, H: int, G: int):
    """``S [B, H, N]``: the value vector of banking each turn total ``p < H`` at scores ``s``."""
    B, N = s.shape
    p = jnp.arange(H)
    new = s[:, :1] + p[None, :]  # [B, H]
    rest = jnp.broadcast_to(s[:, None, 1:], (B, H, N - 1))
    nxt = flat(jnp.concatenate([rest, jnp.minimum(new, G - 1)[..., None]], axis=-1), G)
    seen = jnp.roll(W[nxt], 1, axis=-1)
    win = jnp.zeros(N, W.dtype).at[0].set(1.0)
    return jnp.where((new >= G)[..., None], win, seen)


def pig_turn(W, states, X, ops: PigOps, *, G: int, F: int):
    """The engine's turn: ``V [B, N]`` and ``beta [B]`` at turn total 0."""
    B, N = X.shape
    s = decode(states, G, N)
    H = G + F
    St = jnp.swapaxes(bank_vectors(W, s, H, G), 0, 1)  # [H, B, N]
    V = St
    D = jnp.zeros((H, B), W.dtype)

    def level(i, VD):
        V, D = VD
        p = G - 1 - i
        ahead = jax.lax.dynamic_slice_in_dim(V, p + 1, F, axis=0)
        dahead = jax.lax.dynamic_slice_in_dim(D, p + 1, F, axis=0)
        roll_v = ops.bust * X
        roll_d = jnp.full((B,), ops.bust, W.dtype)
        for k in range(F):
            roll_v = roll_v + ops.weights[k] * ahead[k]
            roll_d = roll_d + ops.weights[k] * dahead[k]
        bank = St[p]
        keep = (p > 0) & (bank[:, 0] >= roll_v[:, 0] - TIE)
        v = jnp.where(keep[:, None], bank, roll_v)
        d = jnp.where(keep, 0.0, roll_d)
        return V.at[p].set(v), D.at[p].set(d)

    V, D = jax.lax.fori_loop(0, G, level, (V, D))
    return V[0], D[0]


@dataclass(frozen=True, eq=False)
class PigTableSolution:
    """Turn-start win-probability vectors ``values [G] * N + [N]`` (``values[s_0, ..., s_{N-1}]``:
    mover first) and the run's facts."""

    rules: PigTableRules
    values: np.ndarray
    run: MultiRun

    @property
    def start(self) -> np.ndarray:
        """Each seat's win probability at the start (seat 0 moves first)."""
        return self.values[(0,) * self.rules.players]


def turn_function(rules: PigTableRules):
    return functools.partial(pig_turn, G=rules.goal, F=rules.max_points)


def operands(rules: PigTableRules, dtype=jnp.float64) -> PigOps:
    return PigOps(jax.device_put(np.asarray(rules.weights, dtype)), jax.device_put(np.asarray(rules.bust_prob, dtype)))


def solve(rules: PigTableRules, *, tol: float = 1e-13, analyse: bool = False, progress=None, chunk: int = 256, checkpoint=None) -> PigTableSolution:
    """Win-probability vectors of every turn-start state of the Pig-family table game."""
    float_dtype("float64")  # float64 or a clear error (x64 mode off), before any table is built
    cycles = make_cycles(rules.goal, rules.players)
    run = solve_multi(("pig-table", rules), turn_function(rules), cycles, operands(rules), tol=tol, chunk=chunk, analyse=analyse, progress=progress, checkpoint=checkpoint)
    return PigTableSolution(rules, run.values.reshape((rules.goal,) * rules.players + (rules.players,)), run)
