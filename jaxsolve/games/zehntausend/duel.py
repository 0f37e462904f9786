"""The Zehntausend duel on the race-duel engine: the turn, the layers and the solve.

State of a turn (points in steps of 50, written as *levels* ``points / 50``)::

    ts  1 if the other player started (last-turn rule only; T = 1 without it)
    a   my banked level, 0..G-1 (G = goal / 50; 0 = not entered under an entry minimum)
    b   their banked level, 0..G-1
    p   my turn total level
    n   dice I am about to throw (1..6), or 0: all six were used, throw six again or write

``V(p, n)`` is my win probability there under optimal play by both. A throw of ``n`` dice
(the rows of ``jaxsolve.games.zehntausend.scoring``) either busts (no scoring die: the turn
passes, the value is ``1 - W(b, a)``, the opponent's turn-start value) or offers the write
(bank ``p + W(w)``: ``S(p + W(w))``) and every usable set-aside ``u`` (throw ``n - |u|`` on with
``p + W(u)``). ``V(p, 0) = max(S(p), V(p, 6))`` and the turn starts at ``W(a, b) = V(0, 6)``.

``S(p)``, the value of writing a turn total ``p``: with first-to-goal, 1 when ``a + p`` reaches
the goal, else ``1 - W(b, a + p)``; an entry minimum forbids it while ``a = 0`` and ``p`` is
below the minimum. With the last-turn rule the start player's write at or above the goal
leaves the other player one last turn, a one-turn problem: ``1 - L(a + p - b + 1)`` where
``L(d)`` is the most probable way to end a turn with at least ``d`` levels (solved first, by the
same turn function); the start player's final total is capped at ``bound``.

Throws are merged into classes with the same number of dice, the same ``W(w)`` and the same
set of options ``(W(u), |u|)`` (the turn depends on nothing else): 230 classes instead of 923
throws, grouped by their number of options so that each group is one padded gather.

The engine's layered driver walks the banked sum ``a + b`` from the top down: a write raises
it by at least one level, a bust keeps it; inside a layer only the bust pairs
``(ts, a, b) <-> (ts', b, a)`` are open. The per-layer turn scans ``p`` from the highest total
the layer can use down to 0; from there on (the state bound is reached) every write is worth
the same and ``V(p, n)`` is throwing on with its bust risk, so each option of a throw near the
goal has its own exact value (the position's value, the best option's, is the write's).
"""

from __future__ import annotations

import functools
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.race import Layers, make_layers, solve_layers
from jaxsolve.games.zehntausend.duel_rules import DuelRules
from jaxsolve.games.zehntausend.duel_numpy import NDIM, DuelSolution, Geometry, geometry, throw_classes
from jaxsolve.games.zehntausend.rules import DICE

CHUNK = 8  # turn-start states per turn evaluation: a layer's states in order of my banked level

# The throw classes (``throw_classes``), the sizes (``geometry``) and the solved duel
# (``DuelSolution``) live in ``duel_numpy``, which imports no JAX, with the same turn in NumPy for
# answers from a solved table.


class TurnOps(NamedTuple):
    """Device arrays of the turn: the class groups, the class probabilities, the last-turn table."""

    groups: tuple  # per group (write [Cg], index [Cg, Ug]): ``Classes.groups``, unused slots repeating the first option
    prob: jax.Array
    last: jax.Array  # [D] L(d): best probability to end a turn with >= d levels (last-turn rule)
    by_n: tuple = ()  # per n = 1..6: (classes [C_n], their probabilities [C_n]): the nonzeros of ``prob[:, n - 1]``


# ---------------------------------------------------------------------------------------------
# One turn for a batch, given the write values S [B, H] and the bust values x [B]


def scan_levels(S, x, top, ops: TurnOps, reach: int, busts: int):
    """``V, slope [H * 7, B]`` (row ``p * 7 + n``, the batch last): the turn tables of
    ``turn_tables`` for ``p < top``; the rows from ``top`` on hold ``S(p)`` and slope 0.

    The batch is the last axis, so each option a level reads is one contiguous row of ``B``
    values (a plain copy, where the batch-first layout gathers ``B`` scattered values), and the
    best option of each class is a running maximum over its options in their order, the write
    first: a later option replaces the best only when it is strictly larger, so ties go to the
    write, then to the earlier option, as ``argmax`` picks the first maximum.
    """
    B, H = S.shape
    dtype = S.dtype
    St = S.T  # [H, B]
    V = jnp.repeat(St, NDIM, axis=0)  # [H * 7, B]
    D = jnp.zeros((H * NDIM, B), dtype)
    bust_v = jnp.broadcast_to(x[None, :], (busts, B))
    bust_d = jnp.ones((busts, B), dtype)

    def level(i, carry):
        V, D = carry
        p = top - 1 - i
        win_v = jax.lax.dynamic_slice_in_dim(V, (p + 1) * NDIM, reach * NDIM, axis=0)
        win_d = jax.lax.dynamic_slice_in_dim(D, (p + 1) * NDIM, reach * NDIM, axis=0)
        s_win = jax.lax.dynamic_slice_in_dim(St, p, reach + 1, axis=0)
        vals, slopes = [], []
        for write, index in ops.groups:
            best_v = s_win[write]  # [Cg, B]: the write
            best_d = jnp.zeros_like(best_v)
            cand_v, cand_d = win_v[index], win_d[index]  # [Cg, Ug, B]
            for j in range(index.shape[1]):
                better = cand_v[:, j] > best_v
                best_v = jnp.where(better, cand_v[:, j], best_v)
                best_d = jnp.where(better, cand_d[:, j], best_d)
            vals.append(best_v)
            slopes.append(best_d)
        # [6, B]: n = 1..6, for each n the sum over its own classes in their order, for each state
        # alone (a matrix product over all classes would add the zeros of the other n and may
        # pick another kernel, another order of the sum, for a chunk split over devices)
        all_v, all_d = jnp.concatenate(vals + [bust_v], axis=0), jnp.concatenate(slopes + [bust_d], axis=0)
        e = jnp.stack([jnp.sum(pn[:, None] * all_v[rows], axis=0) for rows, pn in ops.by_n])
        d = jnp.stack([jnp.sum(pn[:, None] * all_d[rows], axis=0) for rows, pn in ops.by_n])
        s_p = s_win[0]
        write_now = s_p >= e[DICE - 1]
        row_v = jnp.concatenate([jnp.where(write_now, s_p, e[DICE - 1])[None], e], axis=0)
        row_d = jnp.concatenate([jnp.where(write_now, 0.0, d[DICE - 1])[None], d], axis=0)
        V = jax.lax.dynamic_update_slice_in_dim(V, row_v, p * NDIM, axis=0)
        D = jax.lax.dynamic_update_slice_in_dim(D, row_d, p * NDIM, axis=0)
        return V, D

    return jax.lax.fori_loop(0, top, level, (V, D))


def turn_tables(S, x, top, ops: TurnOps, reach: int, busts: int):
    """``V, slope [B, H, 7]``: the value of every turn total ``p`` and dice ``n`` (``n = 0``: all
    six used, write or throw six), scanned for ``p < top`` (``scan_levels``); from ``top`` on
    the write value ``S(top)`` is reached and throwing on is valued by ``_beyond``.

    ``slope`` is ``dV / dx`` under the decisions taken (the probability to bust before writing).
    Ties between writing and throwing on go to writing.
    """
    B, H = S.shape
    V, D = (t.reshape(H, NDIM, B).transpose(2, 0, 1) for t in scan_levels(S, x, top, ops, reach, busts))
    return _beyond(V, D, S, x, top, ops.prob[ops.prob.shape[0] - busts :].sum(axis=0))


def _beyond(V, D, S, x, top, bust):
    """The rows ``p >= top`` of ``V, D``: throwing ``n`` dice on from there.

    From ``top`` on the write value is the same for every ``p`` (the goal or the bound is
    reached: ``S(top)``), so after a throw that scores the write is the best option (throwing
    on again only adds a bust risk; the bust value ``x`` is never above ``S(top)``): ``V(p, n) =
    bust(n) x + (1 - bust(n)) S(top)`` for ``n = 1..6`` (``bust [6]``: the probability that ``n``
    dice score nothing), slope ``bust(n)``, and ``V(p, 0) = S(top)``. The scan below ``top``
    values a set-aside that reaches ``top`` by ``S(top)`` instead; that changes no maximum, since
    the same throw's write is worth ``S(top)`` too and wins ties.
    """
    B, H = S.shape
    s_top = jax.lax.dynamic_index_in_dim(S, top, axis=1, keepdims=False)  # [B]
    on = x[:, None] * bust[None, :] + s_top[:, None] * (1 - bust[None, :])  # [B, 6]
    row_v = jnp.concatenate([s_top[:, None], on], axis=1)[:, None, :]
    row_d = jnp.concatenate([jnp.zeros_like(s_top)[:, None], jnp.broadcast_to(bust[None, :], on.shape)], axis=1)[:, None, :]
    past = (jnp.arange(H) >= top)[None, :, None]
    return jnp.where(past, row_v, V), jnp.where(past, row_d, D)


# ---------------------------------------------------------------------------------------------
# The duel: write values from W, the batched turn, the layers


def decode(idx, geo: Geometry):
    """Flat index into ``W [T, G, G]`` -> ``(ts, a, b)``."""
    return idx // (geo.G * geo.G), (idx // geo.G) % geo.G, idx % geo.G


def write_values(W, ts, a, b, geo: Geometry, last, p=None):
    """``S [B, H]``: my win probability when I write a turn total ``p`` at ``(ts, a, b)``
    (``p [B, K]``: at those turn totals only)."""
    p = jnp.arange(geo.H)[None, :] if p is None else p
    f = jnp.minimum(a[:, None] + p, geo.Gb)
    other = 1 - ts if geo.last_turn else ts
    inside = (other[:, None] * geo.G + b[:, None]) * geo.G + jnp.minimum(f, geo.G - 1)
    before = 1.0 - W[inside]
    if geo.last_turn:
        need = jnp.clip(f - b[:, None] + 1, 0, last.shape[0] - 1)
        reached = jnp.where(ts[:, None] == 0, 1.0 - last[need], 1.0)
    else:
        reached = jnp.ones_like(before)
    S = jnp.where(f >= geo.G, reached, before)
    if geo.entry:
        S = jnp.where((a[:, None] == 0) & (p < geo.entry), -jnp.inf, S)
    return S


def partner_index(idx, geo: Geometry):
    ts, a, b = decode(idx, geo)
    other = 1 - ts if geo.last_turn else ts
    return (other * geo.G + b) * geo.G + a


def scan_top(ts, a, geo: Geometry):
    """The turn total from which every write of ``(ts, a, .)`` is worth the same: the bound
    ``Gb - a``, or the goal ``G - a`` for the player who did not start under the last-turn rule
    (reaching the goal wins her the game at once: every write there is worth 1)."""
    limit = jnp.where((ts == 1) & geo.last_turn, geo.G, geo.Gb) if isinstance(ts, jax.Array) else np.where((ts == 1) & geo.last_turn, geo.G, geo.Gb)
    return limit - a


def duel_turn(W, idx, ops: TurnOps, geo: Geometry):
    """The engine's ``turn``: turn-start values of the states ``idx`` and their bust slopes."""
    ts, a, b = decode(idx, geo)
    S = write_values(W, ts, a, b, geo, ops.last)
    x = 1.0 - W[partner_index(idx, geo)]
    top = jnp.max(scan_top(ts, a, geo))  # >= 1: the row p = 0 is always scanned
    V, D = scan_levels(S, x, top, ops, geo.reach, geo.busts)
    return V[DICE], D[DICE]  # p = 0, n = 6


def last_turn_table(ops: TurnOps, geo: Geometry, dtype):
    """``L(d)``, ``d = 0..Gb + 1``: the best probability that one turn ends with >= ``d`` levels."""
    d = jnp.arange(geo.Gb + 2)
    p = jnp.arange(geo.H)[None, :]
    S = (p >= d[:, None]).astype(dtype)
    V, _ = turn_tables(S, jnp.zeros(d.shape, dtype), jnp.asarray(geo.Gb + 1), ops, geo.reach, geo.busts)
    return V[:, 0, DICE].at[0].set(1.0)


def duel_layers(rules: DuelRules) -> Layers:
    T, G, _ = rules.shape
    ts, a, b = (x.ravel() for x in np.meshgrid(np.arange(T), np.arange(G), np.arange(G), indexing="ij"))
    flat = (ts * G + a) * G + b
    other = 1 - ts if rules.last_turn else ts
    # first guess from solved states of higher layers: inside the table the bilinear
    # extrapolation W(a + 1, b) + (W(a, b + 1) - W(a + 1, b + 1)) (exact for values affine in
    # each score); on the edges the linear one from one and two levels further, W(g) + (W(g) - W(f))
    def further(a, b):
        return np.where(b + 1 < G, a, np.minimum(a + 1, G - 1)), np.where(b + 1 < G, b + 1, b)

    def at(a, b):
        return (ts * G + a) * G + b

    ga, gb = further(a, b)
    fa, fb = further(ga, gb)
    inside = (a + 1 < G) & (b + 1 < G)
    a1, b1 = np.minimum(a + 1, G - 1), np.minimum(b + 1, G - 1)
    guess = np.where(inside[:, None], np.stack([at(a1, b), at(a, b1), at(a1, b1)], 1), np.stack([at(ga, gb), at(ga, gb), at(fa, fb)], 1))
    geo = geometry(rules)
    return make_layers(flat, a + b, (other * G + b) * G + a, guess, cost_of=-scan_top(ts, a, geo))


@functools.lru_cache(maxsize=8)
def _class_ops(turn_rules, dtype_name: str) -> TurnOps:
    cls = throw_classes(turn_rules)
    # a class's unused option slots repeat its first option (every scoring class has one): a
    # repeated option never wins the running maximum (``scan_levels``), so no mask is needed
    assert all(v[:, 0].all() for _, _, v in cls.groups)
    filled = tuple((np.asarray(w), np.where(v, i, i[:, :1]).astype(np.int32)) for w, i, v in cls.groups)
    assert np.all((cls.prob > 0).sum(axis=1) == 1)  # a class has one number of dice
    by_n = tuple((np.nonzero(cls.prob[:, n])[0].astype(np.int32), np.asarray(cls.prob[np.nonzero(cls.prob[:, n])[0], n], dtype_name)) for n in range(DICE))
    # explicit transfers: the tables are built on the host and moved once
    groups = jax.device_put(filled)
    return TurnOps(groups, jax.device_put(np.asarray(cls.prob, dtype_name)), jax.device_put(np.zeros(1, dtype_name)), jax.device_put(by_n))


def turn_ops(rules: DuelRules, dtype) -> TurnOps:
    ops = _class_ops(rules.turn_rules, jnp.dtype(dtype).name)
    geo = geometry(rules)
    if rules.last_turn:
        ops = ops._replace(last=jax.jit(last_turn_table, static_argnums=(1, 2))(ops, geo, jnp.dtype(dtype)))
    return ops


# ---------------------------------------------------------------------------------------------
# Public entry points


def default_tol(dtype) -> float:
    return 1e-13 if jnp.dtype(dtype) == jnp.float64 else 1e-6


def solve(
    rules: DuelRules,
    *,
    tol: float | None = None,
    dtype=None,
    device=None,
    max_rounds: int = 100,
    mesh=None,
    progress: Callable[[int, int], None] | None = None,
) -> DuelSolution:
    """Win probabilities of every turn-start state of the duel under optimal play by both.

    ``mesh``: a one-axis device mesh (``mesh_of``) over which each layer's states are split
    (under ``jax.distributed``, the devices of all processes); same values as one device.
    ``progress(done, total)``: called with the layers of the banked sum solved so far, as the
    solve goes (``race.solve_layers``)."""
    from jaxsolve.core.arrays import float_dtype

    dtype = jnp.dtype(float_dtype(dtype))
    tol = default_tol(dtype) if tol is None else tol
    device = device or jax.local_devices()[0]
    geo = geometry(rules)
    with jax.default_device(device):
        ops = jax.device_put(turn_ops(rules, dtype), device)
        W0 = jax.device_put(np.full(int(np.prod(rules.shape)), 0.5, dtype), device)
        turn = functools.partial(duel_turn, geo=geo)
        run = solve_layers(("zehntausend-duel", rules), turn, W0, duel_layers(rules), ops, tol=tol, max_rounds=max_rounds, mesh=mesh, progress=progress, chunk=CHUNK)
    if mesh is not None:
        device = f"mesh of {mesh.size} {mesh.devices.flat[0].platform} devices in {jax.process_count()} process(es)"
    start = np.asarray(run.values).reshape(rules.shape)
    sol = DuelSolution.of_run(run, rules=rules, start=start, tol=tol, dtype=dtype, device=device, last=np.asarray(ops.last), rounds=run.rounds)
    object.__setattr__(sol, "evaluations", run.evaluations)  # chunk turn evaluations per layer (profiles)
    return sol


def mesh_of(devices=None):
    """A one-axis mesh ``("states",)`` over ``devices`` (default: every device of every process)."""
    from jax.sharding import Mesh

    return Mesh(np.asarray(jax.devices() if devices is None else devices), ("states",))


def turn_values(sol: DuelSolution, ts: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """``V [H, 7]`` and ``S [H]`` of one turn-start state ``(ts, a, b)`` (levels): every turn
    total and dice, and the write values. One compiled program (kept in the compilation cache),
    so that an advisor answering from a cached table starts in a fraction of a second."""
    rules = sol.rules
    geo = geometry(rules)
    dtype = jnp.dtype(sol.start.dtype)
    ops = _class_ops(rules.turn_rules, dtype.name)._replace(last=jnp.asarray(sol.last, dtype))
    W = jnp.asarray(sol.start.reshape(-1), dtype)
    V, S = _one_state(W, jnp.asarray([(ts * geo.G + a) * geo.G + b]), ops, geo)
    return np.asarray(V[0]), np.asarray(S[0])


@functools.partial(jax.jit, static_argnums=(3,))
def _one_state(W, idx, ops: TurnOps, geo: Geometry):
    t, aa, bb = decode(idx, geo)
    S = write_values(W, t, aa, bb, geo, ops.last)
    x = 1.0 - W[partner_index(idx, geo)]
    V, _ = turn_tables(S, x, geo.Gb - aa[0], ops, geo.reach, geo.busts)
    return V, S


_turn_jit = jax.jit(turn_tables, static_argnums=(4, 5))


def row_turns(sol: DuelSolution, ts: int = 0):
    """For each my-score level ``a``: ``(a, V [G, H, 7], S [G, H])``, the turn tables and write
    values of the states ``(ts, a, b)`` for every ``b``, from one batched turn."""
    geo = geometry(sol.rules)
    dtype = jnp.dtype(sol.start.dtype)
    ops = _class_ops(sol.rules.turn_rules, dtype.name)._replace(last=jnp.asarray(sol.last, dtype))
    W = jnp.asarray(sol.start.reshape(-1), dtype)
    for a in range(geo.G):
        idx = jnp.asarray((ts * geo.G + a) * geo.G + np.arange(geo.G))
        t, aa, bb = decode(idx, geo)
        S = write_values(W, t, aa, bb, geo, ops.last)
        x = 1.0 - W[partner_index(idx, geo)]
        V, _ = _turn_jit(S, x, geo.Gb - a, ops, geo.reach, geo.busts)
        yield a, V, S


def decision_tables(sol: DuelSolution, levels, ts: int = 0, on_row=None):
    """``V [G, G, len(levels), 7]`` and ``S [G, G, len(levels)]`` at the turn totals ``levels``
    for every ``(a, b)`` (one batched turn per ``a``): throw on where ``V(p, n) > S(p)``."""
    geo = geometry(sol.rules)
    levels = np.asarray(levels)
    out_v = np.empty((geo.G, geo.G, len(levels), NDIM))
    out_s = np.empty((geo.G, geo.G, len(levels)))
    for a, V, S in row_turns(sol, ts):
        out_v[a] = np.asarray(V)[:, levels, :]
        out_s[a] = np.asarray(S)[:, levels]
        if on_row is not None:
            on_row(a)
    return out_v, out_s


def last_turn_values(sol: DuelSolution, need: int):
    """``V [H, 7]``, ``S [H]`` of a last turn that must end with at least ``need`` levels."""
    geo = geometry(sol.rules)
    dtype = jnp.dtype(sol.start.dtype)
    ops = _class_ops(sol.rules.turn_rules, dtype.name)._replace(last=jnp.asarray(sol.last, dtype))
    S = (jnp.arange(geo.H)[None, :] >= need).astype(dtype)
    V, _ = _turn_jit(S, jnp.zeros(1, dtype), geo.Gb + 1, ops, geo.reach, geo.busts)
    return np.asarray(V[0]), np.asarray(S[0])
