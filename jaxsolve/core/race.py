"""The race-duel core: win probabilities of two-player "bank or keep throwing" games.

A race duel is played in turns. The player to move throws; a *bust* loses the turn total and
passes the turn with both banked scores unchanged; otherwise she may bank the turn total (her
banked score rises, the turn passes) or throw on. The value of a state is the win probability
of the player to move under optimal play by both. A game brings its turn (one die thrown again
and again, or several dice with set-asides); the engine brings the cyclic part:

* the *bust pair*: a bust at ``(mine, theirs)`` leads to the opponent's ``(theirs, mine)`` and a
  bust there leads back: the only cycle that does not raise a banked score. With the decisions
  of the turn fixed, each turn-start value is affine in its partner's, ``W = A + K W[partner]``,
  and ``pair_solve`` solves each pair in closed form;
* two drivers over the turn-start values ``W``:

  ``solve_sweeps``: every sweep evaluates a whole turn for every state at once (bank outcomes
  from the previous iterate), then solves the bust pairs; the fixpoint core repeats the sweep
  until no value moves by more than ``tol``. It needs no order of the states, so it serves games
  whose banked scores can go *down* (e.g. a tie at or above the goal that lowers both scores by
  the same amount).

  ``solve_layers``: banking raises the banked sum and a bust keeps it, so the states are walked
  in layers of the banked sum from the top down; a layer's bank outcomes are final values of
  higher layers, and only its bust pairs are open. Inside each layer a small fixpoint (turn,
  then pair solve, until the values move by at most ``tol``) settles the decisions; it ends in
  two or three turn evaluations where the sweep driver needs one sweep of *every* state per
  round of the bust cycle. The whole walk is one compiled program (a ``fori_loop`` over layers
  holding a ``while_loop``).

The engine names no game: a game's solver brings its turn, its tables and its solution type (a
``RaceSolution`` with the game's own fields) and picks the driver.

``turn(W, batch, operands) -> (value, slope)`` evaluates the turns of a batch of turn-start
states given all turn-start values ``W`` (bust outcomes from ``W[partner]``), and returns each
value and its derivative with respect to the bust outcome ``1 - W[partner]`` under the decisions
it took (the probability to bust before banking).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.arrays import Array
from jaxsolve.core.compile import abstract, compiled
from jaxsolve.core.fixpoint import FixpointRun, NotConvergedError, check_tolerance, solve_fixpoint
from jaxsolve.core.race_solution import RaceSolution as RaceSolution
from jaxsolve.errors import JaxsolveError


def pair_solve(value: Array, k: Array, partner_value: Array, partner_pos: Array) -> Array:
    """Solve each bust pair ``W_i = A_i + k_i W_j`` (``j = partner_pos[i]``) in closed form.

    ``value``: the turn values computed with the current partner values ``partner_value``;
    ``k``: ``dW_i / dW_j`` under the turn's decisions. ``A = value - k partner_value``, and
    ``W_i = (A_i + k_i A_j) / (1 - k_i k_j)`` (a state that is its own partner gets
    ``A / (1 - k)``, the same formula).
    """
    a = value - k * partner_value
    a_p = a[partner_pos]
    k_p = k[partner_pos]
    return (a + k * a_p) / (1.0 - k * k_p)


# ---------------------------------------------------------------------------------------------
# A solved duel: ``RaceSolution`` (``jaxsolve.core.race_solution``, JAX-free, so that a solved table
# is read and answered from without importing JAX)


# ---------------------------------------------------------------------------------------------
# The sweep driver


def solve_sweeps(key: Hashable, sweep: Callable, init: Array, operands: Array, *, tol: float, max_iter: int) -> FixpointRun:
    """Repeat ``sweep(W, operands)`` (a whole turn for every state, then ``pair_solve``) to ``tol``.

    The fixpoint core (``jaxsolve.core.fixpoint``) runs it: one compile per ``key`` and shapes,
    ``NotConvergedError`` when ``max_iter`` sweeps leave a change above ``tol``.
    """
    return solve_fixpoint(("race-sweeps", key), sweep, init, operands, tol=tol, max_iter=max_iter)


# ---------------------------------------------------------------------------------------------
# The layered driver


@dataclass(frozen=True)
class Layers:
    """The turn-start states in layers of the banked sum, highest layer first.

    ``index [L, B]``: flat index into ``W`` (short layers padded by repeating their last
    state, whose result is then written twice, identically); ``partner [L, B]``: position of
    each state's bust partner within its layer; ``size [L]``: real states per layer.
    """

    index: np.ndarray
    partner: np.ndarray
    size: np.ndarray
    guess: np.ndarray | None = None  # [L, B, 3] flat indices (g, h, k) of solved states: the start is W[g] + (W[h] - W[k])


def make_layers(
    states: np.ndarray,
    layer_of: np.ndarray,
    partner_of: np.ndarray,
    guess_of: np.ndarray | None = None,
    cost_of: np.ndarray | None = None,
) -> Layers:
    """Group flat states into layers (highest ``layer_of`` first) with their partners' positions.

    ``states``: flat indices of the turn-start states to solve; ``layer_of``: their layer (the
    banked sum); ``partner_of``: the flat index of each one's bust partner (same layer);
    ``guess_of [N]`` or ``[N, 3]``: states ``g`` or ``(g, h, k)`` of higher layers (or the state
    itself) whose solved values give the first guess ``W[g] + (W[h] - W[k])``, an extrapolation
    by a difference of solved values (``[N]``: ``h = k = g``, the value of ``g`` exactly);
    ``cost_of``: the order of the states within a layer (default: their flat index), so that
    states whose turns cost alike (e.g. that scan the same turn totals) share a chunk.
    Short layers are padded by repeating their last state.
    """
    states, layer_of, partner_of = (np.asarray(a, np.int64) for a in (states, layer_of, partner_of))
    guess_of = states if guess_of is None else np.asarray(guess_of, np.int64)
    guess_of = np.repeat(guess_of[:, None], 3, axis=1) if guess_of.ndim == 1 else guess_of
    order = np.lexsort((states, -layer_of) if cost_of is None else (states, np.asarray(cost_of, np.int64), -layer_of))
    states, layer_of, partner_of, guess_of = states[order], layer_of[order], partner_of[order], guess_of[order]
    keys, starts, counts = np.unique(-layer_of, return_index=True, return_counts=True)
    width = int(counts.max())
    index = np.zeros((len(keys), width), np.int32)
    partner = np.zeros((len(keys), width), np.int32)
    guess = np.zeros((len(keys), width, 3), np.int32)
    for row, (start, count) in enumerate(zip(starts, counts)):
        members = states[start : start + count]
        pos = {int(s): i for i, s in enumerate(members)}
        try:
            part = np.array([pos[int(p)] for p in partner_of[start : start + count]])
        except KeyError:
            raise JaxsolveError("a bust partner lies outside its layer: the game is not layered by the banked sum") from None
        index[row, :count], partner[row, :count], guess[row, :count] = members, part, guess_of[start : start + count]
        last = start + count - 1
        index[row, count:], partner[row, count:], guess[row, count:] = members[-1], part[-1], guess_of[last]
    return Layers(index, partner, counts.astype(np.int32), guess)


class LayeredResult(NamedTuple):
    values: jax.Array
    rounds: jax.Array  # [L] inner rounds per layer
    residual: jax.Array  # [L] last change per layer
    evaluations: jax.Array  # [L] chunk turn evaluations per layer


def layered(
    turn: Callable,
    W: Array,
    rounds: Array,
    residual: Array,
    evaluations: Array,
    index: Array,
    partner: Array,
    guess: Array,
    size: Array,
    operands: Array,
    tol: Array,
    first: Array,
    stop: Array,
    max_rounds: int,
    chunk: int,
    batch_sharding: jax.sharding.Sharding | None = None,
) -> LayeredResult:
    """Walk the layers ``first .. stop - 1`` (rows of ``index``) in order; inside each, turn +
    pair solve to ``tol``. ``rounds`` and ``residual`` [L] get those layers' entries.

    A layer's turns are evaluated in chunks of ``chunk`` states (``index``'s width is a
    multiple of it), only the chunks that hold real states (``size``): a narrow layer costs
    what its states cost, not the widest layer's width, and a game whose turn cost depends on
    the state (the turn totals it scans) pays each chunk's own cost. After the first round a
    chunk is evaluated again only when the partner of one of its states moved by more than
    ``tol`` in the last round (its bust outcome changed); the others keep their value and slope
    with the partner value they were taken at, so the pair solve is the same Newton step as
    if they had been evaluated again at that partner value.

    A layer starts from ``W[g] + (W[h] - W[k])`` (``guess [L, B, 3]``; clipped to the win
    probabilities' range ``[0, 1]``), an extrapolation from solved states (``h = k``: the value
    of ``g`` exactly). Sums and differences only: no product the compiler could fuse into a
    multiply-add in one program and not in another, so a mesh's walk starts from the same bits. ``batch_sharding``: a sharding of the layer's states over a device mesh
    (``W`` and the operands replicated); each device then evaluates the turns of its part of the
    layer and the compiler gathers the new values into every copy of ``W``."""

    def constrain(x: Array) -> Array:
        return x if batch_sharding is None else jax.lax.with_sharding_constraint(x, batch_sharding)

    width = index.shape[1]
    n_chunks = -(-size // chunk)  # [L] chunks holding real states

    def one_layer(i: Array, state: tuple[Array, Array, Array, Array]) -> tuple[Array, Array, Array, Array]:
        W, rounds, residual, evaluations = state
        idx, part = index[i], partner[i]
        g = W[guess[i]]
        W = W.at[idx].set(jnp.clip(g[:, 0] + (g[:, 1] - g[:, 2]), 0.0, 1.0))
        live = jnp.arange(width) < n_chunks[i] * chunk  # positions of the chunks evaluated
        put_at = jnp.where(live, idx, W.shape[0])  # the others are dropped from the update

        def cond(c: tuple) -> Array:
            _, r, change, *_ = c
            return (change > tol) & (r < max_rounds)

        def body(c: tuple) -> tuple:
            W, r, _, value, slope, used, moved, count = c
            old = W[idx]
            stale = moved[part]  # the partner moved: the turn's bust outcome changed

            def one_chunk(j: Array, vsu: tuple) -> tuple:
                def evaluate(vsu: tuple) -> tuple:
                    vsu, count = vsu[:3], vsu[3]
                    at = constrain(jax.lax.dynamic_slice_in_dim(idx, j * chunk, chunk))
                    v, d = (constrain(t) for t in turn(W, at, operands))
                    u = jax.lax.dynamic_slice_in_dim(old[part], j * chunk, chunk)
                    return tuple(jax.lax.dynamic_update_slice_in_dim(a, b, j * chunk, 0) for a, b in zip(vsu, (v, d, u))) + (count + 1,)

                need = jnp.any(jax.lax.dynamic_slice_in_dim(stale, j * chunk, chunk))
                return jax.lax.cond(need, evaluate, lambda vsu: vsu, vsu)

            value, slope, used, count = jax.lax.fori_loop(0, n_chunks[i], one_chunk, (value, slope, used, count))
            new = pair_solve(value, -slope, used, part)
            change = jnp.where(live, jnp.abs(new - old), 0.0)
            return W.at[put_at].set(new, mode="drop"), r + 1, jnp.max(change), value, slope, used, change > tol, count

        inf = jnp.asarray(jnp.inf, W.dtype)
        zero = jnp.zeros(width, W.dtype)
        none = jnp.asarray(0, jnp.int32)
        start = (W, none, inf, zero, zero, zero, jnp.ones(width, bool), none)
        W, r, change, *_, count = jax.lax.while_loop(cond, body, start)
        return W, rounds.at[i].set(r), residual.at[i].set(change), evaluations.at[i].set(count)

    return LayeredResult(*jax.lax.fori_loop(first, stop, one_layer, (W, rounds, residual, evaluations)))


class LayeredRun(NamedTuple):
    values: jax.Array
    rounds: np.ndarray
    residual: float
    compile_seconds: float
    solve_seconds: float
    evaluations: np.ndarray  # [L] chunk turn evaluations per layer


def pad_layers(layers: Layers, multiple: int) -> Layers:
    """The layers with their width padded to a multiple of ``multiple`` (each row repeats its
    last state, as ``make_layers`` pads short layers)."""
    width = layers.index.shape[1]
    extra = -width % multiple
    if not extra:
        return layers

    def pad(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else np.concatenate([a, np.repeat(a[:, -1:], extra, axis=1)], axis=1)

    return Layers(pad(layers.index), pad(layers.partner), layers.size, pad(layers.guess))  # type: ignore[arg-type]


def replicate(tree: Array, sharding: jax.sharding.Sharding) -> Array:
    """Host copies of a pytree of arrays as global arrays with ``sharding`` (every process
    passes the same values; works across processes under ``jax.distributed``)."""

    def one(x: Array) -> jax.Array:
        host = np.asarray(x)
        return jax.make_array_from_callback(host.shape, sharding, lambda i: host[i])

    return jax.tree_util.tree_map(one, tree)


def layer_blocks(n_layers: int, block: int | None) -> list[tuple[int, int]]:
    """``(first, stop)`` of the blocks of layers run one call each (``block``: layers per call;
    default about 1/64 of them)."""
    block = max(1, -(-n_layers // 64)) if block is None else max(1, int(block))
    return [(i, min(i + block, n_layers)) for i in range(0, n_layers, block)]


def solve_layers(
    key: Hashable,
    turn: Callable,
    init: Array,
    layers: Layers,
    operands: Array,
    *,
    tol: float,
    max_rounds: int = 100,
    mesh: jax.sharding.Mesh | None = None,
    progress: Callable[[int, int], None] | None = None,
    block: int | None = None,
    chunk: int | None = None,
) -> LayeredRun:
    """Run ``layered`` compiled once per ``key`` (naming ``turn``) and shapes. Raises
    ``NotConvergedError`` when a layer's inner fixpoint leaves a change above ``tol`` after
    ``max_rounds`` rounds.

    The walk runs in blocks of ``block`` layers (``layer_blocks``), one call of the same compiled
    program each (the first and last layer are arguments); ``progress(done, total)`` is called
    with the layers done after each block (and ``(0, total)`` first). The next block is queued
    before the last one is waited for, so the device does not idle between blocks.

    ``chunk``: states per turn evaluation (``layered``; default the whole width of a layer),
    rounded up to a multiple of the mesh's devices.

    ``mesh``: a one-axis ``jax.sharding.Mesh`` (of one process's devices or, under
    ``jax.distributed``, of all processes'): each layer's states are split over its devices and
    ``W`` is replicated; the values are the same as on one device. ``values`` is then a host
    array (the replicated result, read from this process's copy).
    """
    tol = check_tolerance(tol)
    guess = np.repeat(np.asarray(layers.index)[:, :, None], 3, axis=2) if layers.guess is None else layers.guess
    host = Layers(np.asarray(layers.index), np.asarray(layers.partner), np.asarray(layers.size), np.asarray(guess))
    n_layers, width = host.index.shape
    devices = 1 if mesh is None else mesh.size
    chunk = -(-min(width if chunk is None else int(chunk), width) // devices) * devices  # a multiple of the devices
    host = pad_layers(host, chunk)
    jit_options = {}
    batch_sharding = None
    rounds0, residual0 = np.zeros(n_layers, np.int32), np.zeros(n_layers, init.dtype)
    bounds = [np.asarray(i, np.int32) for i in range(n_layers + 1)]
    put: Callable[[Any], Any]
    if mesh is None:
        tol_arr = jax.device_put(np.asarray(tol, init.dtype))
        index, partner, guess, size, rounds, residual = jax.device_put((host.index, host.partner, host.guess, host.size, rounds0, residual0))
        put = jax.device_put
    else:
        from jax.sharding import NamedSharding, PartitionSpec

        rep = NamedSharding(mesh, PartitionSpec())
        batch_sharding = NamedSharding(mesh, PartitionSpec(mesh.axis_names[0]))
        index, partner, guess, size, init, operands, tol_arr, rounds, residual = replicate(
            (host.index, host.partner, host.guess, host.size, init, operands, np.asarray(tol, init.dtype), rounds0, residual0), rep
        )
        jit_options["out_shardings"] = rep

        def put(x: Any) -> Any:
            return replicate(x, rep)

    def run(
        W: Array, rounds: Array, residual: Array, evaluations: Array, idx: Array, part: Array, start: Array, sizes: Array, ops: Array, tolerance: Array, first: Array, stop: Array
    ) -> LayeredResult:
        return layered(turn, W, rounds, residual, evaluations, idx, part, start, sizes, ops, tolerance, first, stop, max_rounds, chunk, batch_sharding)

    W = init
    specs = [abstract(x) for x in (W, rounds, residual, rounds, index, partner, guess, size, operands, tol_arr)]
    bound_spec = abstract(put(bounds[0]))
    exe, compile_seconds = compiled(("race-layers", key, max_rounds, chunk), run, *specs, bound_spec, bound_spec, **jit_options)
    blocks = layer_blocks(n_layers, block)
    at = {i: put(bounds[i]) for i in sorted({i for b in blocks for i in b})}
    t0 = time.perf_counter()
    if progress is not None:
        progress(0, n_layers)
    out = LayeredResult(W, rounds, residual, rounds)
    queued: list = []
    for first, stop in blocks:
        out = LayeredResult(*exe(*out, index, partner, guess, size, operands, tol_arr, at[first], at[stop]))
        queued.append((stop, out.values))
        if len(queued) > 1:  # the block before this one
            done, values = queued.pop(0)
            jax.block_until_ready(values)
            if progress is not None:
                progress(done, n_layers)
    out = jax.block_until_ready(out)
    seconds = time.perf_counter() - t0
    if progress is not None:
        progress(n_layers, n_layers)
    if mesh is not None:  # replicated: this process's copy
        out = jax.tree_util.tree_map(lambda x: np.asarray(x.addressable_data(0)), out)
    residual = float(np.max(np.asarray(out.residual)))
    if not residual <= tol:
        raise NotConvergedError(f"no convergence: a layer's inner fixpoint left a change of {residual:.3g} > tolerance {tol:.3g} after {max_rounds} rounds")
    return LayeredRun(out.values, np.asarray(out.rounds), residual, compile_seconds, seconds, np.asarray(out.evaluations))
