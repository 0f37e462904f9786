"""The race engine for N players: win-probability vectors of "bank or throw on" games at a table.

A state is every player's banked score seen from the player to move (mover, next, ..., last),
plus the turn; its value is the vector of the N players' win probabilities, in that order, which
sums to 1. Each player maximises his own (max-n, Luckhardt & Irani, "An algorithmic solution of
N-person games", AAAI 1986). A bust or a bank passes the move on, which rotates the vector; the
first to bank the goal wins. A game brings its turn; the engine brings the cycles, the fixpoint
inside each and the equilibria where the fixpoint does not settle:

* scores only grow, so the states are walked in layers of the banked sum from the top down
  (``jaxsolve.core.race_cycles.make_cycles``); a bank lands in a higher layer, whose values are
  final, and a bust rotates the state within its layer: the N rotations of a state are its
  *cycle*, a small game of its own, independent of the layer's other cycles;
* inside a cycle, *best-response iteration*: every member's turn is evaluated at his current
  bust payoff (the first round at bust payoff 0 for every mover, the declared start), giving
  each a policy and its line ``A + beta X``; the N linear equations of the cycle are solved in
  closed form (``solve_cycle``, the N-player form of the duel's bust pair); repeated until no
  value moves by more than ``tol``. A settled cycle is a pure stationary equilibrium;
* a cycle that has not settled after ``max_rounds`` rounds (best responses going round, as in
  matching pennies) is analysed exactly (``race_cycles.cycle_equilibria``): each member's
  envelope of policy lines in his own bust payoff, every pure equilibrium and, where there is
  none, the equilibria in which the fewest movers mix between the two policies adjacent at a
  breakpoint; ``race_cycles.select`` picks one (declared there).

Several processes (``jax.distributed``, ``jax.process_count() > 1``; every process calls
``solve_multi`` alike): each layer's chunks of cycles, as one process cuts them, are dealt round
the processes (``deal_chunks``); each process runs the same compiled layer program on its own
chunks, then the layer's new value vectors are gathered (``multihost_utils.process_allgather``,
each process's states once) and written into every process's ``W`` before the next layer. A
chunk's values depend on its cycles and on the higher layers only, so they are bit for bit one
process's; the cycles that did not settle are settled on every process alike (they are few).
Per layer every process sends the vectors of its share of the layer's states, ``N`` float64
each, padded to the largest share.

Tie rule of the turn (the game implements it, ``race_cycles.TIE``): where options are within
``1e-12`` for the mover, banking wins over throwing on; among set-asides, the most points, then
the most dice left.

``turn(W, states [B], X [B, N], operands) -> (V [B, N], beta [B])``: the value vector of each
state's turn under the tie rule's best policy when a bust is worth ``X`` (vector, from the
mover's view), and the probability to bust before banking under that policy. ``W [S, N]``: all
turn-start value vectors (bank outcomes are read from higher layers).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Hashable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.compile import abstract, compiled
from jaxsolve.core import race_cycles
from jaxsolve.core.race_cycles import TIE, Cycles, Piece, bust_vectors, cycle_equilibria, envelope, select
from jaxsolve.errors import JaxsolveError


MAX_ROUNDS = 60
"""Best-response rounds after which a cycle counts as not settling (part of the declared selection)."""


class NoEquilibriumError(JaxsolveError):
    """A cycle whose best responses do not settle and for which no equilibrium was found."""


def decode_scores(idx: Any, G: int, N: int) -> jax.Array:
    """Score tuples ``[..., N]`` of flat state indices (mover first, mixed radix ``G``)."""
    cols = []
    for _ in range(N):
        cols.append(idx % G)
        idx = idx // G
    return jnp.stack(cols[::-1], axis=-1)


def flat_scores(scores: Any, G: int) -> jax.Array:
    """Flat state indices of score tuples ``[..., N]`` (``decode_scores``' inverse)."""
    idx = jnp.zeros(scores.shape[:-1], jnp.int32)
    for k in range(scores.shape[-1]):
        idx = idx * G + scores[..., k]
    return idx


def solve_cycle(A: jax.Array, beta: jax.Array) -> jax.Array:
    """JAX form of ``race_cycles.solve_cycle``: ``W [..., N, N]`` of the cycle equations."""
    return race_cycles.solve_cycle(A, beta, xp=jnp)


def start_vectors(shape: tuple, n: int, dtype: Any) -> jax.Array:
    """The declared start of best-response iteration: every mover's bust payoff 0 (the others
    share the rest equally; only the mover's entry steers his policy)."""
    x = jnp.full(shape + (n,), 1.0 / max(n - 1, 1), dtype)
    return x.at[..., 0].set(0.0)


def member_turns(turn: Callable, W: jax.Array, members: jax.Array, X: jax.Array, operands: Any) -> tuple[jax.Array, jax.Array]:
    """The turns of a chunk of cycles ``members [C, N]`` at bust vectors ``X [C, N, N]``:
    ``V [C, N, N]``, ``beta [C, N]``. One batch per member position, one after the other: the
    members at one position share their place in the cycles' order (the representative's
    first score is the cycle's lowest), so a turn whose length depends on the mover's score
    (Zehntausend's scan over the turn totals his score leaves) scans each batch only as far
    as its own movers need."""

    def one(args: tuple) -> tuple:
        states, Xj = args
        return turn(W, states, Xj, operands)

    V, beta = jax.lax.map(one, (members.T, jnp.swapaxes(X, 0, 1)))  # [N, C, N], [N, C]
    return jnp.swapaxes(V, 0, 1), beta.T


def cycle_rounds(turn: Callable, W: jax.Array, members: jax.Array, operands: Any, tol: Any, max_rounds: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Best-response iteration for a chunk of cycles ``members [C, N]``; returns the updated
    ``W``, each cycle's last change ``[C]`` and the rounds run."""
    C, n = members.shape

    def cond(c: tuple) -> jax.Array:
        _, _, r, change = c
        return (jnp.max(change) > tol) & (r < max_rounds)

    def body(c: tuple) -> tuple:
        Wc, X, r, _ = c
        V, beta = member_turns(turn, W, members, X, operands)
        A = V - beta[..., None] * X
        new = solve_cycle(A, beta)
        change = jnp.max(jnp.abs(new - Wc), axis=(1, 2))
        return new, jnp.roll(jnp.roll(new, -1, axis=1), 1, axis=2), r + 1, change

    inf = jnp.full((C, n, n), jnp.inf, W.dtype)
    start = (inf, start_vectors((C, n), n, W.dtype), jnp.asarray(0, jnp.int32), jnp.full(C, jnp.inf, W.dtype))
    Wc, _, r, change = jax.lax.while_loop(cond, body, start)
    return W.at[members].set(Wc), change, r


def layer_rounds(turn: Callable, W: jax.Array, members: jax.Array, lo: jax.Array, count: jax.Array, operands: Any, tol: Any, *, chunk: int, width: int, max_rounds: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Best-response iteration for the cycles ``members[lo : lo + count]`` (one layer), chunk
    by chunk inside one program; the last chunk repeats the layer's last cycle. Returns the
    updated ``W``, each cycle's last change ``[width]`` (the first ``count`` are the layer's)
    and the most rounds a chunk ran."""

    def one(k: jax.Array, c: tuple) -> tuple:
        W, change, r = c
        rows = members[lo + jnp.minimum(k * chunk + jnp.arange(chunk), count - 1)]
        W, ch, rk = cycle_rounds(turn, W, rows, operands, tol, max_rounds)
        return W, jax.lax.dynamic_update_slice_in_dim(change, ch, k * chunk, axis=0), jnp.maximum(r, rk)

    start = (W, jnp.zeros(width, W.dtype), jnp.asarray(0, jnp.int32))
    return jax.lax.fori_loop(0, (count + chunk - 1) // chunk, one, start)


@dataclass
class MultiRun:
    """A walk's result: ``values [S, N]`` and its facts."""

    values: np.ndarray
    residual: float
    rounds: int
    unsettled: list  # per unsettled cycle: (members, kind, pure count, mixed count, selected)
    several: int | None  # settled cycles with more than one pure equilibrium (analyse=True only)
    analysed: int
    compile_seconds: float
    solve_seconds: float
    processes: int = 1


def _pad(rows: np.ndarray, width: int) -> np.ndarray:
    if len(rows) == width:
        return rows
    return np.concatenate([rows, np.repeat(rows[-1:], width - len(rows), axis=0)])


def solve_multi(
    key: Hashable,
    turn: Callable,
    cycles: Cycles,
    operands: Any,
    *,
    dtype: Any = None,
    tol: float = 1e-13,
    chunk: int = 64,
    max_rounds: int = MAX_ROUNDS,
    analyse: bool = False,
    progress: Callable[[int, int], None] | None = None,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: float = 300.0,
) -> MultiRun:
    """Walk the layers of ``cycles`` from the top down; every cycle by best-response iteration,
    the unsettled ones by their exact equilibria.

    ``analyse``: also enumerate the equilibria of every settled cycle (slow; small goals) and
    count those with more than one pure equilibrium; the values do not change (the selection
    keeps the one best-response iteration reached).

    ``checkpoint``: a file where the walk keeps its values and facts after a layer, at most every
    ``checkpoint_every`` seconds (process 0 writes it, atomically); a walk started with the file
    present goes on after the layer it holds, and the values are those of a walk without a stop
    (``test_a_stopped_walk_goes_on_from_its_checkpoint``). A file of another solve (another game,
    rules, size or engine setting) is refused. The file is removed when the walk ends."""
    from jaxsolve.core.arrays import float_dtype

    dtype = float_dtype("float64" if dtype is None else dtype)  # a clear error while x64 mode is off
    if dtype != np.float64:
        raise JaxsolveError(f"the N-player race engine computes in float64 (its tie rule is {TIE:g}), not {dtype.name}")
    n = cycles.players
    S = cycles.levels**n
    W = jax.device_put(np.zeros((S, n), dtype))
    chunk = max(1, min(chunk, len(cycles.members)))

    sizes = np.diff(cycles.starts)
    width = int(-(-int(sizes.max(initial=1)) // chunk) * chunk)

    def step(W: jax.Array, members: jax.Array, lo: jax.Array, count: jax.Array, operands: Any, tol: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
        return layer_rounds(turn, W, members, lo, count, operands, tol, chunk=chunk, width=width, max_rounds=max_rounds)

    tol_arr = jax.device_put(np.asarray(tol, dtype))
    shares = Shares(cycles, chunk) if jax.process_count() > 1 else None
    members_all = jax.device_put(np.asarray(cycles.members if shares is None else shares.members, np.int32))
    scalar = jax.device_put(np.asarray(0, np.int32))
    # one program per game, rules and chunk (the compile cache: a second solve compiles nothing);
    # a call solves a whole layer, its chunks in a loop inside the program
    exe_c, compile_seconds = compiled(("race-multi", key, max_rounds, chunk), step, *(abstract(x) for x in (W, members_all, scalar, scalar, operands, tol_arr)), donate_argnums=0)
    if shares is not None:
        compile_seconds += shares.compile(W)
    t0 = time.perf_counter()
    query = _query(turn, operands, n, dtype)
    wide = _query(turn, operands, n, dtype, width=512) if analyse else query
    unsettled: list = []
    several = 0 if analyse else None
    analysed = 0
    residual = 0.0
    rounds = 0
    L = len(cycles.starts) - 1
    tag = repr((key, cycles.levels, n, len(cycles.members), chunk, max_rounds, tol, analyse))
    first = 0
    if checkpoint is not None and Path(checkpoint).exists():
        W, first, residual, rounds, unsettled, several, analysed = _resume(Path(checkpoint), tag, W)
    saved_at = time.monotonic()
    if progress is not None:
        progress(first, L)
    for li in range(first, L):
        lo, hi = int(cycles.starts[li]), int(cycles.starts[li + 1])
        rows = cycles.members[lo:hi]
        if shares is None:
            W, change, r = exe_c(W, members_all, jax.device_put(np.asarray(lo, np.int32)), jax.device_put(np.asarray(hi - lo, np.int32)), operands, tol_arr)
            ch, r = jax.device_get((change, r))
            ch = np.asarray(ch)[: hi - lo]
        else:
            W, ch, r = shares.layer(li, exe_c, W, members_all, operands, tol_arr)
        rounds = max(rounds, int(r))
        bad = ch > tol
        residual = max(residual, float(np.max(ch[~bad], initial=0.0)))
        if np.any(bad):  # the layer's cycles are independent: all unsettled ones at once
            W = _settle(W, rows[bad], query, n, unsettled)
        if analyse and np.any(~bad):
            counts = _analyse(W, rows[~bad], wide, n)
            analysed += int(np.sum(~bad))
            several += int(np.sum(counts > 1))  # type: ignore[operator]
        if progress is not None:
            progress(li + 1, L)
        if checkpoint is not None and li + 1 < L and time.monotonic() - saved_at >= checkpoint_every:
            _keep(Path(checkpoint), tag, W, li + 1, residual, rounds, unsettled, several, analysed)
            saved_at = time.monotonic()
    values = np.asarray(jax.device_get(W))
    if checkpoint is not None and jax.process_index() == 0:
        Path(checkpoint).unlink(missing_ok=True)
    return MultiRun(values, residual, rounds, unsettled, several, analysed, compile_seconds, time.perf_counter() - t0, 1 if shares is None else shares.processes)


def _plain(o: Any) -> Any:
    return o.item() if hasattr(o, "item") else str(o)


def _keep(path: Path, tag: str, W: jax.Array, first: int, residual: float, rounds: int, unsettled: list, several: int | None, analysed: int) -> None:
    """Write the walk's checkpoint (process 0; atomically: a temporary file, then renamed)."""
    values = np.asarray(jax.device_get(W))
    if jax.process_index() != 0:
        return
    facts = json.dumps({"tag": tag, "first": first, "residual": residual, "rounds": rounds, "unsettled": unsettled, "several": several, "analysed": analysed}, default=_plain)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, values=values, facts=np.frombuffer(facts.encode(), np.uint8))
    os.replace(tmp, path)


def _resume(path: Path, tag: str, W: jax.Array) -> tuple:
    """The walk's state from its checkpoint: ``W``, the first layer to solve and the facts so far."""
    try:
        with np.load(path, allow_pickle=False) as z:
            values, facts = z["values"], json.loads(z["facts"].tobytes().decode())
    except (OSError, ValueError, KeyError) as exc:
        raise JaxsolveError(f"{path} is not a checkpoint of this solve: {exc}") from None
    if facts.get("tag") != tag or values.shape != W.shape or values.dtype != W.dtype:
        raise JaxsolveError(f"{path} is the checkpoint of another solve (another game, rules, size or setting); remove it or name another file")
    W = jax.device_put(values, W.sharding)
    return W, int(facts["first"]), float(facts["residual"]), int(facts["rounds"]), facts["unsettled"], facts["several"], int(facts["analysed"])


def deal_chunks(size: int, chunk: int, processes: int) -> list[np.ndarray]:
    """Each process's cycles (positions ``0..size-1`` in their layer) of a layer of ``size``
    cycles: the layer's chunks as one process cuts them (``chunk`` cycles, the last one short)
    dealt round the processes, chunk ``k`` to process ``k % processes``. Laid one after the
    other, a process's chunks are chunks of the one-process walk, and the short last chunk
    (which ``layer_rounds`` pads by repeating the layer's last cycle) is the last of its
    process's, so its padding is the same."""
    starts = np.arange(0, size, chunk)
    parts = []
    for p in range(processes):
        mine = [np.arange(s, min(s + chunk, size)) for s in starts[p::processes]]
        parts.append(np.concatenate(mine) if mine else np.zeros(0, np.int64))
    return parts


class Shares:
    """The layers of ``cycles`` dealt to the processes of ``jax.distributed`` (``deal_chunks``).

    ``members``: the cycles reordered within each layer so that each process's cycles lie
    together, process after process (the layer program's ``members``); ``bounds [L, P + 1]``:
    where each process's cycles begin in ``members``; ``height``: the most cycles a process
    holds in one layer (each process's gathered share is padded to ``height * N`` states)."""

    def __init__(self, cycles: Cycles, chunk: int) -> None:
        self.processes, self.rank = jax.process_count(), jax.process_index()
        self.players, self.size = cycles.players, cycles.levels**cycles.players
        L = len(cycles.starts) - 1
        self.order = np.arange(len(cycles.members))
        self.bounds = np.zeros((L, self.processes + 1), np.int64)
        for li in range(L):
            lo, hi = int(cycles.starts[li]), int(cycles.starts[li + 1])
            parts = deal_chunks(hi - lo, chunk, self.processes)
            self.order[lo:hi] = lo + np.concatenate(parts)
            self.bounds[li] = lo + np.cumsum([0] + [len(p) for p in parts])
        self.members = np.asarray(cycles.members)[self.order]
        self.height = max(1, int(np.max(np.diff(self.bounds, axis=1), initial=0)))
        self.starts = np.asarray(cycles.starts)

    def compile(self, W: jax.Array) -> float:
        """Compile the gather of a share's values and the write of a layer's; the seconds."""
        n, k = self.players, self.height * self.players
        idx = jax.ShapeDtypeStruct((k,), np.int32, sharding=W.sharding)
        every = jax.ShapeDtypeStruct((self.processes * k,), np.int32, sharding=W.sharding)
        vals = jax.ShapeDtypeStruct((self.processes * k, n), W.dtype, sharding=W.sharding)
        self.take, t1 = compiled(("race-multi-take",), _take, abstract(W), idx)
        self.put, t2 = compiled(("race-multi-put",), _put, abstract(W), every, vals, donate_argnums=0)
        return t1 + t2

    def states(self, li: int, p: int) -> np.ndarray:
        """The flat states of process ``p``'s cycles of layer ``li`` (each once, sorted)."""
        return np.unique(self.members[self.bounds[li, p] : self.bounds[li, p + 1]])

    def layer(self, li: int, exe: Any, W: jax.Array, members: jax.Array, operands: Any, tol: jax.Array) -> tuple[jax.Array, np.ndarray, int]:
        """Layer ``li``: this process's chunks by the layer program ``exe``, then every
        process's new values gathered into ``W``. Returns ``W``, each cycle's last change (in
        the layer's order, every process's) and the most rounds a chunk ran."""
        from jax.experimental import multihost_utils

        n, k, h = self.players, self.height * self.players, self.height
        a, b = int(self.bounds[li, self.rank]), int(self.bounds[li, self.rank + 1])
        ch, r = np.zeros(h, W.dtype), 0
        if b > a:
            W, change, rk = exe(W, members, jax.device_put(np.asarray(a, np.int32)), jax.device_put(np.asarray(b - a, np.int32)), operands, tol)
            change, rk = jax.device_get((change, rk))
            ch[: b - a], r = np.asarray(change)[: b - a], int(rk)
        mine = self.states(li, self.rank)
        vals = np.asarray(jax.device_get(self.take(W, _pad_to(mine, k, 0).astype(np.int32))))
        payload = np.concatenate([vals.reshape(-1), ch, [float(r)]])
        every = np.asarray(multihost_utils.process_allgather(payload))  # [P, k * n + h + 1]
        idx, new, changes = [], [], []
        for p in range(self.processes):
            st = self.states(li, p)
            idx.append(st)
            new.append(every[p, : len(st) * n].reshape(-1, n))
            changes.append(every[p, k * n : k * n + int(self.bounds[li, p + 1] - self.bounds[li, p])])
        flat_idx = _pad_to(np.concatenate(idx), self.processes * k, self.size).astype(np.int32)  # padding: past the end, dropped
        flat_new = _pad_to(np.concatenate(new), self.processes * k, 0.0).astype(W.dtype)
        W = self.put(W, flat_idx, flat_new)
        lo, hi = int(self.starts[li]), int(self.starts[li + 1])
        out = np.empty(hi - lo, W.dtype)
        out[self.order[lo:hi] - lo] = np.concatenate(changes)
        return W, out, int(np.max(every[:, -1]))


def _pad_to(x: np.ndarray, rows: int, fill: Any) -> np.ndarray:
    """``x`` padded with ``fill`` to ``rows`` rows."""
    pad = np.full((rows - len(x),) + x.shape[1:], fill, x.dtype)
    return np.concatenate([x, pad])


def _take(W: jax.Array, idx: jax.Array) -> jax.Array:
    return W[idx]


def _put(W: jax.Array, idx: jax.Array, vals: jax.Array) -> jax.Array:
    return W.at[idx].set(vals, mode="drop")


def _query(turn: Callable, operands: Any, n: int, dtype: Any, width: int = 64) -> Callable:
    """``query(states, X) -> (V, beta)`` on the host: the turn at given bust vectors, in padded
    batches (one compile per batch size)."""
    holder: dict = {}

    def call(W: jax.Array, states: jax.Array, X: jax.Array) -> tuple[jax.Array, jax.Array]:
        return turn(W, states, X, operands)

    jitted = jax.jit(call)

    # one compiled batch size (``width``): queries are split or padded to it

    def query(states: Any, X: Any, W: Any = None) -> tuple[np.ndarray, np.ndarray]:
        W = holder["W"] if W is None else W
        states, X = np.asarray(states, np.int64), np.asarray(X, np.float64)
        vs, bs = [], []
        for i in range(0, len(states), width):
            st, Xp = _pad(states[i : i + width], width), _pad(X[i : i + width], width)
            V, beta = jax.device_get(jitted(W, jax.device_put(np.asarray(st, np.int32)), jax.device_put(np.asarray(Xp, dtype))))
            k = min(width, len(states) - i)
            vs.append(np.asarray(V)[:k])
            bs.append(np.asarray(beta)[:k])
        return np.concatenate(vs), np.concatenate(bs)

    query.holder = holder  # type: ignore[attr-defined]
    return query


def _pieces(W: jax.Array, rows: np.ndarray, query: Callable, n: int) -> list[list[list[Piece]]]:
    query.holder["W"] = W  # type: ignore[attr-defined]
    flat = rows.reshape(-1)
    env = envelope(query, flat, n)
    return [env[i * n : (i + 1) * n] for i in range(len(rows))]


def _settle(W: jax.Array, rows: np.ndarray, query: Callable, n: int, unsettled: list) -> jax.Array:
    """Exact equilibria of the cycles ``rows`` that did not settle; the selected one's values
    are written into ``W``."""
    for members, pieces in zip(rows, _pieces(W, rows, query, n)):
        _, label = np.unique(members, return_inverse=True)
        pure, mixed = cycle_equilibria(pieces, label)
        chosen = select(pure, mixed)
        if chosen is None:
            raise NoEquilibriumError(f"no stationary equilibrium found for the cycle of states {members.tolist()}")
        unsettled.append({"members": members.tolist(), "pure": len(pure), "mixed": len(mixed), "selected": "pure" if chosen.mixer is None else "mixed",
                          "mixer": chosen.mixer, "q": chosen.q, "values": chosen.W.tolist()})
        W = W.at[jax.device_put(np.asarray(members))].set(jax.device_put(np.asarray(chosen.W, W.dtype)))
    return W


def _analyse(W: jax.Array, rows: np.ndarray, query: Callable, n: int) -> np.ndarray:
    """Pure equilibria per settled cycle (the values in ``W`` must be one of them)."""
    counts = np.zeros(len(rows), np.int64)
    Wh = np.asarray(jax.device_get(W))
    for i, (members, pieces) in enumerate(zip(rows, _pieces(W, rows, query, n))):
        _, label = np.unique(members, return_inverse=True)
        pure, _ = cycle_equilibria(pieces, label)
        here = Wh[members]
        if not any(np.max(np.abs(e.W - here)) <= 1e-9 for e in pure):
            raise JaxsolveError(f"the settled cycle {members.tolist()} is not among its enumerated equilibria")
        counts[i] = len(pure)
    return counts


def check_sums(values: np.ndarray, tol: float = 1e-12) -> float:
    """Largest ``|sum - 1|`` of the value vectors (they are probability vectors)."""
    return float(np.max(np.abs(values.sum(axis=-1) - 1.0)))


__all__ = ["MultiRun", "Shares", "deal_chunks", "decode_scores", "flat_scores", "NoEquilibriumError", "bust_vectors", "check_sums", "cycle_rounds", "layer_rounds", "member_turns", "solve_cycle", "solve_multi", "start_vectors"]
