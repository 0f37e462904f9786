"""Exact distribution of the remaining score under the ``score``-optimal policy.

Every state carries a vector ``D[k] = P(k more points)`` instead of one value. A turn under the
optimal policy (box: argmax, ties to the earlier box; keep: argmax, ties to more dice -- the
policy of ``evaluate``) is a probability ``q[t]`` of ending on each final throw ``t``; that
throw's chosen box gives a reward ``r`` and a next state ``n``, so::

    D_s[k] = sum_t q_s[t] * D_n(t)[k - r(t)]

``q`` comes from a forward walk over the turn's throws: the first-throw distribution is pushed
through the chosen keep at each re-throw (a scatter onto keeps, then the keep -> throw matrix),
so the per-state work is ``T x support`` instead of ``keeps x support`` per re-throw.

Layers (filled boxes) are done 12 -> 0. A turn fills one box, so layer L reads only layer L+1:
only two layers are held. Each layer has its own support length, an upper bound of the points
its states can still score (``support_lengths``). Chunks of states are computed on one device
or sharded over a ``jax.sharding.Mesh`` along the state batch (the previous layer replicated).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import policy, solver, tables
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.core.arrays import float_dtype

AXIS = "states"


# ----------------------------------------------------------------------------- layout


box_max_points = tables.box_max_points


@functools.lru_cache(maxsize=32)
def support_lengths(rules: CategoryRules) -> tuple[int, ...]:
    """Per layer (0..boxes): 1 + an upper bound of the points any of its states can still score:
    the most of ``points_left`` over the layer's (filled, all-same flag) pairs, the upper bonus
    open wherever an upper box is."""
    out = []
    for layer in range(rules.num_boxes + 1):
        f, _, h = tables.layer_states(rules, layer)
        if len(f) == 0 or layer == rules.num_boxes:
            out.append(1)
            continue
        pairs = np.unique(f.astype(np.int64) * 2 + h)  # the (filled, all_same_held) pairs: the bound depends on nothing else
        out.append(int(points_left(EngineState(pairs >> 1, np.full(len(pairs), -1), pairs & 1), rules).max()) + 1)
    return tuple(out)


def points_left(state: EngineState, rules: CategoryRules) -> np.ndarray:
    """The most points each state can still score (an upper bound: the open boxes' maxima,
    the extra bonus on every turn that can earn it, the upper bonus while open and not yet
    reached, the larger instant bonus per turn): ``support_lengths`` per state (upper ``-1``:
    the upper bonus still open wherever an upper box is)."""
    f, u, h = (np.asarray(a, np.int64) for a in state)
    nb, asb = rules.num_boxes, rules.all_same_box
    is_open = ((f[:, None] >> np.arange(nb)[None, :]) & 1) == 0
    n_open = is_open.sum(1)
    out = (is_open * tables.box_max_points(rules)[None, :]).sum(1)
    if asb >= 0 and rules.extra_bonus:
        turns = np.where(is_open[:, asb], n_open - 1, np.where(h == 1, n_open, 0))
        out = out + rules.extra_bonus * turns
    out = out + rules.upper_bonus * (is_open[:, :6].any(1) & (u < rules.upper_threshold))
    return out + max(rules.instant_all_same, rules.instant_other) * n_open


@functools.lru_cache(maxsize=32)
def max_turn_reward(rules: CategoryRules) -> int:
    """Most points one turn can bring (box, extra bonus, upper bonus, Im-Hieb bonus)."""
    return int(box_max_points(rules).max()) + rules.extra_bonus + rules.upper_bonus + max(rules.instant_all_same, rules.instant_other)


@functools.lru_cache(maxsize=64)
def _uppers_from(upper_threshold: int, dice: int, upper: int) -> np.ndarray:
    """``[64, cap + 1]`` bool: the capped upper totals reachable from ``upper`` by filling each
    set of upper boxes (``tables.reachable_uppers`` shifted by ``upper``)."""
    from_zero = tables.reachable_uppers(upper_threshold, dice)
    out = np.zeros_like(from_zero)
    for total in range(upper_threshold + 1):
        out[:, min(upper_threshold, upper + total)] |= from_zero[:, total]
    return out


def sub_layer_states(rules: CategoryRules, layer: int, prefilled: int = 0, start: tuple[int, int, int] | None = None):
    """Reachable states of a layer whose filled boxes include ``prefilled`` (a mask); with
    ``start`` = (filled, upper, all_same_held), only the states a game reaches from that state:
    its filled boxes and more, the upper totals its further upper boxes can add to its own, its
    all-same flag while that box stays filled (a set closed under every move)."""
    f, u, h = tables.layer_states(rules, layer)
    if start is not None:
        f0, u0, h0 = (int(x) for x in start)
        extra = (f & ~f0) & 63  # the upper boxes filled since ``start``
        sel = ((f & f0) == f0) & _uppers_from(rules.upper_threshold, rules.dice, min(u0, rules.upper_threshold))[extra, u]
        if rules.all_same_box >= 0 and f0 >> rules.all_same_box & 1:
            sel &= h == h0
        return f[sel], u[sel], h[sel]
    if prefilled:
        sel = (f & prefilled) == prefilled
        f, u, h = f[sel], u[sel], h[sel]
    return f, u, h


def _rows(rules: CategoryRules, prefilled: int, start: tuple[int, int, int] | None) -> np.ndarray:
    rows = np.full(int(np.prod(tables.state_shape(rules))), -1, dtype=np.int32)
    for layer in range(rules.num_boxes + 1):
        f, u, h = sub_layer_states(rules, layer, prefilled, start)
        rows[np.asarray(tables.state_index(f.astype(np.int64), u, h, rules))] = np.arange(len(f), dtype=np.int32)
    return rows


@functools.lru_cache(maxsize=32)
def layer_rows(rules: CategoryRules, prefilled: int = 0) -> np.ndarray:
    """``[states]`` int32: row of each state within its layer's table (-1: unreachable or outside)."""
    return _rows(rules, prefilled, None)


@functools.lru_cache(maxsize=8)
def reach_rows(rules: CategoryRules, start: tuple[int, int, int]) -> np.ndarray:
    """``layer_rows`` of the states reached from ``start`` (``sub_layer_states(..., start=)``)."""
    f, u, h = start
    return _rows(rules, int(f), (int(f), int(u), int(h)))


@dataclass
class LayerTables:
    """A vector per reachable state, stored layer by layer.

    ``layers[L]`` is ``[states of layer L, support_lengths[L]]`` in the order of
    ``tables.layer_states`` (``None`` for layers not kept). ``rows`` maps a flat state index to
    its row.
    """

    rules: CategoryRules
    layers: list
    rows: np.ndarray
    kind: str
    seconds: float = 0.0
    compile_seconds: float = 0.0
    device: str = ""
    timings: dict = field(default_factory=dict)
    terminal: np.ndarray | None = None  # the target objective's terminal vector (None: the step)
    prefilled: int = 0  # the boxes every solved state has filled (a reduced game or a subgame)
    start: tuple[int, int, int] | None = None  # only the states reached from this one were solved

    def at(self, filled: int = 0, upper: int = 0, all_same_held: int = 0) -> np.ndarray:
        """The vector of one state (start of a turn)."""
        cap = self.rules.upper_threshold
        if not 0 <= int(filled) < 1 << self.rules.num_boxes or upper < 0 or all_same_held not in (0, 1):
            raise JaxsolveError(f"not a state: filled={filled}, upper={upper}, all_same_held={all_same_held}")
        flat = int(tables.state_index(int(filled), min(int(upper), cap), int(all_same_held), self.rules))
        row = int(self.rows[flat])
        layer = bin(int(filled)).count("1")
        if row < 0:
            raise JaxsolveError(f"unreachable state: filled={filled}, upper={upper}, all_same_held={all_same_held}")
        if self.layers[layer] is None:
            raise JaxsolveError(f"layer {layer} was not kept (solve with keep='all')")
        return np.asarray(self.layers[layer][row])


# ----------------------------------------------------------------------------- devices


# ----------------------------------------------------------------------------- one turn


def shifted(prev_padded, nrow, shift, width: int, lead: int):
    """``[B, width]``: ``prev[nrow[b], k - shift[b]]`` from a table padded by ``lead`` on the left."""
    import jax
    import jax.numpy as jnp

    start = jnp.clip(lead - shift, 0, lead)

    def one(n, s):
        return jax.lax.dynamic_slice(prev_padded[n], (s,), (width,))

    return jax.vmap(one)(nrow, start)


def turn_policy(values, state: EngineState, rules: CategoryRules, xp=None):
    """Where the ``score``-optimal turn ends: ``policy.end_of_turn`` of a fresh turn."""
    return policy.end_of_turn(values, state, rules, "score", xp=xp)


def turn_distribution(values, rows, prev_padded, state: EngineState, rules: CategoryRules, width: int):
    """``[B, width]`` distribution of the remaining points of a batch of states.

    ``prev_padded``: the next layer's distributions, ``max_turn_reward`` zeros on the left.
    """
    import jax
    import jax.numpy as jnp

    lead = max_turn_reward(rules)
    acc = jnp.zeros((state.filled.shape[0], width), prev_padded.dtype)
    for q, box, first in turn_policy(values, state, rules):
        mv = solver.chosen_moves(box, state, rules)
        reward = mv.score(first)
        nrow = rows[mv.next_state]

        def body(acc, xs):
            q_t, n_t, r_t = xs
            return acc + q_t[:, None] * shifted(prev_padded, n_t, r_t, width, lead), None

        acc, _ = jax.lax.scan(body, acc, (q, nrow, reward.astype(jnp.int32)))
    return acc


def turn_distribution_numpy(values, rows, prev_padded, state: EngineState, rules: CategoryRules, width: int) -> np.ndarray:
    """``turn_distribution`` in NumPy (float64, eagerly): the same policy (``turn_policy`` with
    ``xp=numpy``) and moves, for the whole batch at once; each throw's shifted next-state vector
    read from a sliding window over ``prev_padded`` instead of a scan of dynamic slices, in
    blocks of ``NUMPY_CHUNK_VALUES`` throw x support values."""
    lead = max_turn_reward(rules)
    window = np.lib.stride_tricks.sliding_window_view(prev_padded, width, axis=1)  # [rows, lead + 1, width]: row n from k
    acc = np.zeros((state.filled.shape[0], width), prev_padded.dtype)
    step = max(1, NUMPY_CHUNK_VALUES // (tables.space(rules.dice).num_throws * width))
    for q, box, first in turn_policy(values, state, rules, xp=np):
        mv = solver.chosen_moves(box, state, rules, xp=np)
        start = np.clip(lead - np.asarray(mv.score(first)).astype(np.int64), 0, lead)
        nrow = np.clip(rows[np.asarray(mv.next_state)], 0, len(prev_padded) - 1)
        for i in range(0, len(acc), step):
            part = slice(i, i + step)
            acc[part] += np.einsum("tb,tbk->bk", q[:, part], window[nrow[:, part], start[:, part]])
    return acc


NUMPY_CHUNK_VALUES = 1 << 19
"""Throw x support values per block of ``turn_distribution_numpy``: 4 MiB in float64
(results/winning/ has the measured effect of the block size)."""
NUMPY_BATCH_STATES = 4096
"""States per batch of ``distribution_numpy`` (the policy's ``[keeps, states]`` arrays of a batch held at once)."""


def distribution_numpy(rules: CategoryRules, solution: solver.Solution, start: tuple[int, int, int]) -> LayerTables:
    """``distribution(rules, solution, dtype='float64', keep='start', start=start)`` in NumPy,
    without JAX: the states a game reaches from ``start``, layer by layer in batches
    (``turn_distribution_numpy``), each layer its own support length. For the small subgames of
    an opponent late in the game (a win-probability answer, ``winning.remaining_distribution``):
    no compiling, so a new process answers at once."""
    from jaxsolve.games.category.engine import solutions

    if solution.objective != "score" or solution.rules != rules:
        raise JaxsolveError("the distribution needs a 'score' solution of the same rules")
    start = (int(start[0]), int(start[1]), int(start[2]))
    rows = reach_rows(rules, start)
    if start[1] < 0 or start[2] not in (0, 1) or rows[int(tables.state_index(start[0], min(start[1], rules.upper_threshold), start[2], rules))] < 0:
        raise JaxsolveError(f"unreachable state: filled={start[0]}, upper={start[1]}, all_same_held={start[2]}")
    values = solutions.host_values(solution, rules, np.float64)
    lengths, lead, nb = support_lengths(rules), max_turn_reward(rules), rules.num_boxes
    first = bin(start[0]).count("1")
    prev = np.zeros((len(sub_layer_states(rules, nb, start[0], start)[0]), lengths[nb]))
    prev[:, 0] = 1.0  # nothing more to score
    for layer in range(nb - 1, first - 1, -1):
        f, u, h = (np.asarray(x, np.int32) for x in sub_layer_states(rules, layer, start[0], start))
        width = lengths[layer]
        padded = _pad_distribution(prev, lead, width)
        step = NUMPY_BATCH_STATES
        prev = np.concatenate([
            turn_distribution_numpy(values, rows, padded, EngineState(f[i: i + step], u[i: i + step], h[i: i + step]), rules, width) for i in range(0, len(f), step)
        ])
    layers: list = [None] * (nb + 1)
    layers[first] = prev
    return LayerTables(rules, layers, rows, "distribution", prefilled=start[0], start=start, device="numpy")


def reach_size(rules: CategoryRules, start: tuple[int, int, int]) -> int:
    """How many states a game reaches from ``start`` (``start`` itself included)."""
    first = bin(int(start[0])).count("1")
    return sum(len(sub_layer_states(rules, k, int(start[0]), start)[0]) for k in range(first, rules.num_boxes + 1))


def distribution_bytes(rules: CategoryRules, width: int, itemsize: int) -> int:
    """Rough device working set of one state of a distribution chunk (for ``max_memory``)."""
    sp = tables.space(rules.dice)
    return itemsize * (4 * width + 4 * rules.num_boxes * sp.num_throws + 2 * sp.num_keeps)


SHAPES = ("auto", "layer", "uniform", "bucket")
ROWS_FLOOR = 64
WIDTH_FLOOR = 32


def bucket(n: int, floor: int, fine: bool = True) -> int:
    """``n`` (at least ``floor``) rounded up to a power of two, or with ``fine`` to the next of
    4, 5, 6, 7 x 2^k (at most 25 % more): the few shapes ``shapes='bucket'`` compiles (vector
    lengths fine, since the work grows with them; row counts to powers of two)."""
    n = max(int(n), int(floor))
    top = 1 << (n - 1).bit_length()  # the power of two >= n
    return min(m * top // 8 for m in ((4, 5, 6, 7, 8) if fine else (8,)) if m * top // 8 >= n)


def _subgame(rules: CategoryRules, prefilled: int, start: tuple[int, int, int] | None) -> tuple[int, tuple[int, int, int] | None, np.ndarray]:
    """``(prefilled, start, rows)`` of a solve's subgame, checked: the boxes closed from the start
    (a mask leaving a box open), or the state it starts from (reachable), and each state's row."""
    nb = rules.num_boxes
    if not 0 <= int(prefilled) < 1 << nb or int(prefilled) == (1 << nb) - 1:
        raise JaxsolveError(f"prefilled must be a mask of 0..{nb - 1} boxes leaving one open, got {prefilled}")
    if start is None:
        return int(prefilled), None, layer_rows(rules, int(prefilled))
    start = (int(start[0]), int(start[1]), int(start[2]))
    rows = reach_rows(rules, start)
    if start[1] < 0 or start[2] not in (0, 1) or rows[int(tables.state_index(start[0], min(start[1], rules.upper_threshold), start[2], rules))] < 0:
        raise JaxsolveError(f"unreachable state: filled={start[0]}, upper={start[1]}, all_same_held={start[2]}")
    return start[0], start, rows


def layer_tables(
    name: str,
    turn: Callable,
    per_state_bytes: Callable[[CategoryRules, int, int], int],
    rules: CategoryRules,
    values: np.ndarray,
    pad_prev: Callable[[np.ndarray, int, int], np.ndarray],
    *,
    dtype,
    chunk: int,
    devices,
    max_memory: int | None,
    keep: str,
    shapes: str = "auto",
    prefilled: int = 0,
    on_layer: Callable[[int, int], None] | None,
    lengths: tuple[int, ...] | None = None,
    last_row: np.ndarray | None = None,
    start: tuple[int, int, int] | None = None,
) -> LayerTables:
    """A vector per state, layer by layer, on the layered core (distribution and target objective).

    ``turn(values, rows, prev_padded, state, rules=, width=)`` (``state``: an ``EngineState``) gives the
    ``[B, width]`` vectors of a chunk from the next layer's (padded by ``pad_prev``); the core
    writes them into the layer's output rows. ``shapes``: ``layer`` compiles one step per layer
    (each layer's own support and row count: least work), ``uniform`` one step for all layers
    (largest support and row count: least compiling, for small games), ``bucket`` as
    ``uniform`` with the row count and the vector length rounded up to a few sizes (``bucket``):
    one compiled step serves many subgames, in this process and (JAX's persistent compilation
    cache) the next; ``auto`` picks ``uniform`` when its previous-layer table stays under 256 MiB.
    Padding is exact: a row past a layer's states is never read, and a vector entry past a
    layer's length (t or k larger) reads only entries past it. ``prefilled``: a mask of boxes
    closed from the start (a reduced game); only states with these boxes filled are solved.
    ``start``: only the states reached from this one (``sub_layer_states``). ``lengths``: each
    layer's vector length (default ``support_lengths``); ``last_row``: the vector of every
    finished game (default ``[1]``: nothing more to score).
    """
    import jax.numpy as jnp

    from jaxsolve.core.layered import VectorLayer, solve_vector_layers

    if keep not in ("all", "start"):
        raise JaxsolveError(f"keep must be 'all' or 'start', got {keep!r}")
    if shapes not in SHAPES:
        raise JaxsolveError(f"shapes must be one of {', '.join(SHAPES)}, got {shapes!r}")
    dtype = jnp.dtype(dtype)
    lengths = support_lengths(rules) if lengths is None else tuple(int(n) for n in lengths)
    nb = rules.num_boxes
    prefilled, start, rows = _subgame(rules, prefilled, start)
    lead = max_turn_reward(rules)
    states = [sub_layer_states(rules, k, prefilled, start) for k in range(nb + 1)]
    sizes = [len(s[0]) for s in states]
    first = bin(prefilled).count("1")
    widest = max(lengths[first:])
    height = max(sizes)
    if shapes == "bucket":
        # the target objective's work grows with its channel (keeps x channel per state): fine
        # steps; the distribution's hardly (throws x support): powers of two, fewer programs
        shapes, height, widest = "uniform", bucket(height, ROWS_FLOOR, fine=False), bucket(widest, WIDTH_FLOOR, fine=name == "target")
    elif shapes == "auto":
        shapes = "uniform" if max(sizes) * (widest + lead) * dtype.itemsize <= 256 << 20 else "layer"
    flat_values = jnp.asarray(np.nan_to_num(values.reshape(-1), nan=0.0), dtype)
    flat_rows = jnp.asarray(rows)
    last = np.zeros((sizes[nb], lengths[nb]), dtype)
    if last_row is None:
        last[:, 0] = 1.0  # nothing more to score: P(0 more) = P(at least 0 more) = 1
    else:
        last[:] = np.asarray(last_row, dtype)[None, : lengths[nb]]

    def prepare(prev: np.ndarray, layer, width: int, rows_out: int) -> tuple:
        """The next layer's vectors padded for the turn (``pad_prev``; one shape for every layer
        with ``uniform``)."""
        padded = pad_prev(prev, lead, width).astype(dtype)
        if shapes == "uniform":
            padded = np.pad(padded, ((0, height - padded.shape[0]), (0, widest + lead - padded.shape[1])))
        return (jnp.asarray(padded),)

    def fixed_bytes(layer, width: int, rows_out: int) -> int:
        """The layer's tables beside a chunk: the next layer padded, the values, the rows and the output."""
        padded_rows, columns = (sizes[layer.key + 1], lead + width) if shapes == "layer" else (height, widest + lead)
        return (padded_rows * columns + rows_out * width) * dtype.itemsize + flat_values.nbytes + flat_rows.nbytes

    def step(operands, *state, width):
        return turn(*operands, EngineState(*state), rules=rules, width=width)

    def layer_of(k: int):
        f, u, h = states[k]
        return VectorLayer(k, sizes[k], lengths[k], lambda at: (f[at], u[at], h[at]))

    run = solve_vector_layers(
        (name, rules, shapes), step, [layer_of(k) for k in range(nb - 1, first - 1, -1)], last, prepare,  # the step does not depend on the subgame: shapes alone tell programs apart
        dtype=dtype, per_state_bytes=lambda width: per_state_bytes(rules, width, dtype.itemsize), fixed_bytes=fixed_bytes, chunk=chunk,
        devices=devices, max_memory=max_memory, shared=(flat_values, flat_rows), uniform=None if shapes == "layer" else (height, widest),
        keep=lambda layer: keep == "all" or layer.key == first, on_layer=on_layer,
    )
    layers: list = [None] * (nb + 1)
    for k, v in run.layers.items():
        layers[k] = v
    if keep == "all":
        layers[nb] = last
    return LayerTables(rules, layers, rows, name, run.seconds, run.compile_seconds, run.device, run.timings, prefilled=prefilled, start=start)


# ----------------------------------------------------------------------------- public


def _pad_distribution(prev: np.ndarray, lead: int, width: int) -> np.ndarray:
    """``lead`` zeros left of the support, zeros right up to ``width`` past ``lead``."""
    return np.pad(prev, ((0, 0), (lead, max(0, width - prev.shape[1]))))


def distribution(
    rules: CategoryRules,
    solution: solver.Solution | None = None,
    *,
    dtype=None,
    chunk: int = 256,
    devices=1,
    max_memory: int | None = None,
    keep: str = "all",
    shapes: str = "auto",
    prefilled: int = 0,
    on_layer: Callable[[int, int], None] | None = None,
    start: tuple[int, int, int] | None = None,
) -> LayerTables:
    """Exact distribution of the remaining score of every state under the ``score`` policy.

    Args:
        rules: the rule set.
        solution: a ``score`` solution of these rules (solved here, in ``dtype``, if None).
        dtype: float dtype (default float64 if x64 is enabled, else float32).
        chunk: most states per compiled batch (rounded to a multiple of the device count).
        devices: 1 (default device), an int n (the first n visible devices), a list of
            devices, or None (all visible): the chunk's states are sharded over them.
        max_memory: bytes one device may use for the previous layer plus a chunk's working
            set; the chunk shrinks to fit (error if the previous layer alone does not).
        keep: ``all`` layers, or only the ``start`` layer (two layers held at any time).
        shapes: ``layer``, ``uniform`` or ``auto`` compiled shapes (see ``layer_tables``).
        prefilled: mask of boxes closed from the start (a reduced game; ``solver.filled_mask``).
        start: (filled, upper, all_same_held): only the states reached from this one (with
            ``shapes='bucket'``: one compiled step for many positions).
    Returns:
        ``LayerTables`` with ``layers[L][row, k] = P(k more points)``; ``.at(filled, upper,
        all_same_held)`` gives one state's vector.
    """
    import jax.numpy as jnp

    from jaxsolve.core.layered import make_mesh

    dtype = jnp.dtype(float_dtype(dtype))
    if solution is None:
        from jaxsolve.games.category.engine import table_io

        device = make_mesh(devices).devices.flat[0]
        solution = table_io.solved(rules, "score", game=None, dtype=dtype, device=device)
    if solution.objective != "score" or solution.rules != rules:
        raise JaxsolveError("the distribution needs a 'score' solution of the same rules")
    return layer_tables(
        "distribution", turn_distribution, distribution_bytes, rules, solution.values, _pad_distribution,
        dtype=dtype, chunk=chunk, devices=devices, max_memory=max_memory, keep=keep, shapes=shapes, prefilled=prefilled, on_layer=on_layer,
        start=start,
    )


@dataclass(frozen=True)
class ScoreSummary:
    """Mean, SD, percentiles and tail probabilities of one distribution ``p[k]``."""

    mean: float
    sd: float
    mass: float
    percentiles: dict
    at_least: dict
    mode: int

    def to_dict(self) -> dict:
        return {
            "mean": self.mean,
            "sd": self.sd,
            "mass": self.mass,
            "mode": self.mode,
            "percentiles": {str(k): v for k, v in self.percentiles.items()},
            "at_least": {str(k): v for k, v in self.at_least.items()},
        }


def summarize(p: np.ndarray, percentiles=(1, 5, 10, 25, 50, 75, 90, 95, 99), at_least=()) -> ScoreSummary:
    """Mean, SD, percentiles (smallest k with P(score <= k) >= q) and P(score >= T)."""
    p = np.asarray(p, dtype=np.float64)
    k = np.arange(len(p))
    mass = float(p.sum())
    mean = float((k * p).sum())
    sd = float(math.sqrt(max(float((k * k * p).sum()) - mean**2, 0.0)))
    cdf = np.cumsum(p)
    pct = {q: int(np.searchsorted(cdf, q / 100 * mass - 1e-12)) for q in percentiles}
    tail = {t: float(p[max(int(t), 0):].sum()) for t in at_least}
    return ScoreSummary(mean, sd, mass, pct, tail, int(np.argmax(p)))
