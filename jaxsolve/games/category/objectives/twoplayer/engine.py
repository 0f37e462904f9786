"""Two players on the score-sheet engine, both playing to win (docs/twoplayer.md).

A state is (the sheet of the player to move, the other's sheet, the lead of the player to move
= his points minus the other's); its value is the probability that the player to move wins
(a tie counts ``TIES[tie]`` for the player who started the game), both playing to win. The
player to move has filled ``a`` boxes and the other ``b = a`` (he started) or ``a + 1``; layer
``n = a + b`` counts the filled boxes of both sheets, and a turn leads from layer ``n`` to
``n + 1`` with the roles swapped::

    V(A, B)[lead] = turn of A over the vector channel, filling a box worth r worth
                    1 - V(B, A')[-(lead + r)]

At the end (both sheets full) the value is 1 for a lead > 0, the tie's value at 0, 0 below. A
sheet can still score at most ``points_left`` points, so a lead above what the other can still
score is won and one below minus what I can still score is lost: layer ``n`` stores the leads
``[-M_a, M_b]`` only (``M_k``: the most any sheet of the layer's players can still score),
``[pairs, M_a + M_b + 1]`` per layer, column ``lead + M_a``.

The turn is the target objective's turn (``target.stage_targets``) with the channel the
mover's deficit ``d = -lead`` (a box worth r takes d to d - r, as the target's t): for the
layer below stored as values over the other's lead, ``1 - V`` (padded with ones below its
window, zeros above) is exactly the target's "previous layer" table, and the mover's values
over his deficit, reversed, are his values over his lead. Box, throws and keeps are those of
``target`` (the same ``dice`` operators); only the next state's row differs: the pair
(other's sheet, my next sheet).

Sheets are one-player states of ``tables.layer_states``, one per class of states that score the
same from here on (``tables.canonical``; without an upper bonus the upper total is dropped
too). Pairs of a layer are the product of the two players' sheet lists, row ``i_other *
n_mover + i_mover``, so a chunk of consecutive rows shares the other's sheet and the chunks are
independent: they are spread over a device mesh like the one-player layers, and under
``jax.distributed`` dealt to the processes in contiguous runs (``process_share``), each layer
gathered to every process when done (``gather_shares``).

References: J. Glenn, "An Optimal Strategy for Yahtzee", CS-TR-0002, Loyola College in
Maryland (2006), section 8 (the size of two-player Yahtzee); J. Pawlewicz, "A Nearly Optimal
Computer Player in Multi-player Yahtzee", Computers and Games 2010.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from jaxsolve.core import dice
from jaxsolve.core.arrays import float_dtype
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.objectives.distribution import max_turn_reward, shifted
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.objectives.twoplayer.sheets import (player_sheets, LayerPlan, plan_layers, end_plans, start_sheets)

TIES = {"share": 0.5, "win": 1.0, "lose": 0.0}
"""What a tie is worth to the player who started the game (the other gets the rest): ``share``
half each, ``win`` a tie goes to the starter, ``lose`` to the second player."""
DEFAULT_CHUNK = 8
DEFAULT_MAX_MEMORY = 2 << 30
DEFAULT_SLICE_BYTES = 1 << 30
MAX_ROWS = (1 << 31) - 1


@dataclass
class TwoPlayerTables:
    """The values of a two-player solve.

    ``layers[n]``: ``[pairs, width]`` (``None`` where not kept), row ``i_other * movers +
    i_mover`` (positions in ``sheets[mover]`` / ``sheets[1 - mover]``), column ``lead + low``:
    the probability that the player to move wins (ties as ``tie``) from that lead.
    """

    rules: CategoryRules
    tie: str
    sheets: tuple
    plans: list
    layers: list
    seconds: float = 0.0
    compile_seconds: float = 0.0
    device: str = ""
    timings: dict = field(default_factory=dict)

    def plan(self, n: int) -> LayerPlan:
        first = self.plans[0].n
        if not first <= n < first + len(self.plans):
            raise JaxsolveError(f"layer {n} is not in this solve (layers {first}..{first + len(self.plans) - 1})")
        return self.plans[n - first]

    def values(self, mine, theirs) -> tuple[np.ndarray, np.ndarray]:
        """``(leads, probabilities)`` of the player to move with sheet ``mine`` against
        ``theirs`` (each ``(filled, upper, all_same_held)``), over the leads stored; below them
        the value is 0, above them 1."""
        rules = self.rules
        a, b = bin(int(mine[0])).count("1"), bin(int(theirs[0])).count("1")
        p = self.plan(a + b)
        if (p.a, p.b) != (a, b):
            raise JaxsolveError(f"in layer {a + b} the player to move has {p.a} boxes filled and the other {p.b}, not {a} and {b}")
        if self.layers[p.n] is None:
            raise JaxsolveError(f"layer {p.n} was not kept (solve with keep='all')")
        i = self.sheets[p.mover].find(*mine, rules)
        j = self.sheets[1 - p.mover].find(*theirs, rules)
        return np.arange(-p.low, p.high + 1), np.asarray(self.layers[p.n][j * p.movers + i], np.float64)

    def value(self, mine, theirs, lead: int = 0) -> float:
        """The probability that the player to move wins from ``lead`` (see ``values``)."""
        leads, v = self.values(mine, theirs)
        if lead < leads[0]:
            return 0.0
        if lead > leads[-1]:
            return 1.0
        return float(v[int(lead) - int(leads[0])])

    @property
    def start(self) -> float:
        """The value of the solve's first state at lead 0: both sheets as ``start`` gave them,
        else as prefilled (upper 0)."""
        return self.value(self.sheets[0].first, self.sheets[1].first, 0)


# ----------------------------------------------------------------------------- one turn


def _best_final(prev_padded, next_index, others, filled, upper, all_same_held, other, rules, width, first_throw):
    """``[T, B, width]``: the best box per deficit after each last throw (as ``target``'s, the
    next row the pair (other's sheet, my next sheet))."""
    import jax.numpy as jnp

    pad = max_turn_reward(rules)
    mv = solver.moves(filled, upper, all_same_held, rules)
    reward = mv.score(first_throw).astype(jnp.int32)
    nrow = jnp.where(mv.allowed, jnp.maximum(next_index[mv.next_state], 0) * others + other[None, None, :], 0)
    shape = nrow.shape[1:]
    best = None
    for b in range(rules.num_boxes):
        got = shifted(prev_padded, nrow[b].reshape(-1), reward[b].reshape(-1), width, pad).reshape(shape + (width,))
        got = jnp.where(mv.allowed[b][..., None], got, -1.0)
        best = got if best is None else jnp.maximum(best, got)
    return best


def turn(prev_padded, next_index, others, filled, upper, all_same_held, other, *, rules: CategoryRules, width: int):
    """``[B, width]``: P(the player to move wins) of a chunk of pairs over his deficit
    ``d = column - others' most`` (``target.stage_targets`` / ``turn_target`` with pair rows)."""
    import jax.numpy as jnp

    sp = tables.space(rules.dice)

    def final(p, first_throw):
        return _best_final(p, next_index, others, filled, upper, all_same_held, other, rules, width, first_throw)

    current = dice.computed(lambda p: final(p, rules.throws == 1), prev_padded)
    for _ in range(rules.throws - 1):
        current = dice.computed(lambda c: dice.reroll(sp, c), current)
    if rules.throws > 1 and rules.has_instant_bonus:
        current = jnp.maximum(current, dice.computed(lambda p: final(p, True), prev_padded))
    return jnp.clip(dice.throw_mean(sp, current), 0.0, 1.0)


def pair_bytes(rules: CategoryRules, width: int, itemsize: int) -> int:
    """Rough working set of one pair of a chunk (``target.target_bytes``)."""
    sp = tables.space(rules.dice)
    return itemsize * (4 * sp.num_throws + 2 * sp.num_keeps) * width


def padded_complement(values: np.ndarray, pad: int, width: int, dtype, rows: int | None = None) -> np.ndarray:
    """``[rows, pad + width]``: ``1 - values`` after ``pad`` ones, zeros after (the layer below
    as the mover's "previous layer": the other's loss, certain below his window, impossible above)."""
    rows = len(values) if rows is None else rows
    out = np.zeros((rows, pad + max(width, values.shape[1])), dtype)
    out[: len(values), :pad] = 1.0
    np.subtract(1.0, values, out=out[: len(values), pad: pad + values.shape[1]], casting="unsafe")
    return out


# ----------------------------------------------------------------------------- processes


def local_devices(devices) -> list:
    """This process's devices a solve under ``jax.distributed`` uses: ``devices`` (a list of
    this process's devices, as given; a count of the first local ones; None: all local ones)."""
    import jax

    if isinstance(devices, (list, tuple)):
        return list(devices)
    local = jax.local_devices()
    n = len(local) if devices is None else int(devices)
    if not 1 <= n <= len(local):
        raise JaxsolveError(f"asked for {n} devices in this process, {len(local)} visible")
    return local[:n]


def process_share(pairs: int, chunk: int, processes: int, rank: int) -> tuple[int, int, int]:
    """``(first, stop, rows)``: the pairs ``first:stop`` of a layer that process ``rank`` of
    ``processes`` solves, and the rows every process's share is sized for. The layer's chunks
    (``chunk`` pairs each, as one process cuts them) are dealt in contiguous runs of
    ``ceil(chunks / processes)``, so a process computes exactly one process's chunks; a
    process past the layer's end has an empty share (``first == stop``)."""
    chunks = -(-pairs // chunk)
    run = -(-chunks // processes) * chunk
    first = min(pairs, rank * run)
    return first, min(pairs, first + run), run


def gather_shares(share: np.ndarray, where: tuple[int, int, int], pairs: int, width: int) -> np.ndarray:
    """``[pairs, width]``: every process's rows of a layer (``process_share``), this process's
    given as ``share`` (its first rows, columns from the first), gathered across the processes
    (``multihost_utils.process_allgather``: each process sends its share, ``rows x width``
    values, and receives the others')."""
    from jax.experimental import multihost_utils

    first, stop, rows = where
    mine = np.zeros((rows, width), share.dtype)
    mine[: stop - first] = share[: stop - first, :width]
    return np.asarray(multihost_utils.process_allgather(mine)).reshape(-1, width)[:pairs]



def solve(
    rules: CategoryRules,
    *,
    tie: str = "share",
    mine: int = 0,
    theirs: int = 0,
    start=None,
    open_boxes: int | None = None,
    dtype=None,
    keep: str = "start",
    chunk: int = DEFAULT_CHUNK,
    devices=1,
    max_memory: int | None = DEFAULT_MAX_MEMORY,
    shapes: str = "auto",
    on_layer: Callable[[int, int], None] | None = None,
    progress: bool = False,
    on_values: Callable[[int, np.ndarray], None] | None = None,
    sink: Callable[[LayerPlan], np.ndarray] | None = None,
    slice_bytes: int = DEFAULT_SLICE_BYTES,
) -> TwoPlayerTables:
    """Both players' win probabilities of every state, layer by layer from both sheets full.

    ``mine`` / ``theirs``: the boxes filled at the start by the player to move and by the other
    (masks; ``theirs`` has as many boxes or one more: then the player to move is the second
    player); every state whose sheets include them is solved, so the start is any position with
    those boxes filled (``TwoPlayerTables.values``). ``start``: the two players' actual sheets
    instead, ``((filled, upper, all_same_held) of the player to move, the other's)``: only the
    sheets a game reaches from them are solved (``player_sheets(start=)``), a real end-game
    position's subgame; the masks are then theirs. ``open_boxes``: only the layers where both
    players have at most this many boxes open (every end-game position of the solve's sheets:
    layers ``n >= 2 (boxes - open_boxes)``). ``tie``: ``share``, ``win`` or ``lose``
    (``TIES``). ``keep``: ``start`` (only the first layer kept; two layers held while solving)
    or ``all`` (for advice and simulation). ``shapes``: ``layer`` (one compiled program per
    layer shape), ``uniform`` (one for all layers: the widest, for small games), ``auto``
    (``uniform`` while its tables stay under 256 MiB). ``on_layer(n, pairs)`` when a layer is
    done; ``progress`` shows bars on stderr (``core.progress``). ``max_memory``: the chunk
    shrinks so a chunk's working set and the layer's tables fit.

    ``devices``: how many devices (or which) the chunks of a layer are spread over (the layered
    core's mesh). Under ``jax.distributed`` with several processes (every process calls
    ``solve`` alike), each process solves its own contiguous share of every layer's chunks on
    ``devices`` of its own devices, and the shares are gathered after each layer
    (``process_share``): every process ends with every layer, the values bit for bit those of
    one process (the same chunks, computed by the same program).
    ``on_values(n, values)``: each layer's ``[pairs, width]`` values (as ``layers[n]``) as soon
    as they are known, both sheets full first, e.g. to write them to disk
    (``twoplayer_store.save``) while only two layers stay in memory (``keep="start"``).
    ``sink(plan)``: where each layer is assembled instead of in memory (a ``[pairs, width]``
    array, e.g. a memory-mapped file: ``twoplayer_store.Writer.sink``); a layer of more than
    ``slice_bytes`` is then solved in slices of rows, each written into it as it is done, so a
    layer larger than memory is solved (the rows the same: each chunk the same program).
    """
    import jax
    import jax.numpy as jnp

    from jaxsolve.core.layered import Layer, LayerSetup, SplitStep, make_mesh, plan_chunk, run_layers

    if tie not in TIES:
        raise JaxsolveError(f"tie must be one of {', '.join(TIES)}, got {tie!r}")
    if keep not in ("all", "start"):
        raise JaxsolveError(f"keep must be 'all' or 'start', got {keep!r}")
    if shapes not in ("auto", "layer", "uniform"):
        raise JaxsolveError(f"shapes must be 'auto', 'layer' or 'uniform', got {shapes!r}")
    nb = rules.num_boxes
    if start is not None:
        firsts = start_sheets(rules, start, mine, theirs)
        mine, theirs = firsts[0][0], firsts[1][0]
    for name, mask in (("mine", mine), ("theirs", theirs)):
        if not 0 <= int(mask) < 1 << nb:
            raise JaxsolveError(f"{name} must be a mask of the {nb} boxes, got {mask}")
    a0, b0 = bin(int(mine)).count("1"), bin(int(theirs)).count("1")
    if b0 not in (a0, a0 + 1) or a0 + b0 >= 2 * nb:
        raise JaxsolveError(f"the other player has as many boxes filled as the player to move or one more, and a box is open: got {a0} and {b0}")
    dtype = jnp.dtype(float_dtype(dtype))
    if start is None:
        sheets = (player_sheets(rules, int(mine)), player_sheets(rules, int(theirs)))
    else:
        sheets = (player_sheets(rules, start=firsts[0]), player_sheets(rules, start=firsts[1]))
    plans = plan_layers(rules, sheets)
    if open_boxes is not None:
        plans = end_plans(rules, plans, open_boxes)
    if max(p.pairs for p in plans) > MAX_ROWS:
        raise JaxsolveError(f"{max(p.pairs for p in plans):,} pairs in a layer do not fit an int32 row")
    pad = max_turn_reward(rules)
    processes, rank = jax.process_count(), jax.process_index()
    mesh = make_mesh(local_devices(devices) if processes > 1 else devices)
    ndev = mesh.devices.size
    solved = plans[:-1]
    widest = max(p.width for p in plans)
    tallest = max(p.pairs for p in plans)
    if shapes == "auto":
        shapes = "uniform" if tallest * (widest + pad) * dtype.itemsize <= 256 << 20 else "layer"
    if sink is not None and (processes > 1 or shapes != "layer"):
        raise JaxsolveError("a sink assembles the layers of one process solving one layer shape at a time (shapes='layer')")

    def chunk_of(p: LayerPlan) -> int:
        """The layer's chunk size: a chunk's working set beside the layer's tables (the whole
        layer's, also where a process holds a share of it) within ``max_memory``."""
        q = plans[p.n + 1 - plans[0].n]
        width, height = (p.width, p.pairs) if shapes == "layer" else (widest, tallest)
        if sink is not None:  # the layer held a slice at a time
            height = min(height, max(1, int(slice_bytes) // (width * dtype.itemsize)))
        columns = pad + max(width, q.width) if shapes == "layer" else widest + pad
        fixed = ((q.pairs if shapes == "layer" else tallest) * columns + height * width) * dtype.itemsize + sheets[p.mover].index.nbytes
        size = plan_chunk(pair_bytes(rules, width, dtype.itemsize), fixed, max_memory, chunk, ndev)
        return min(size, -(-height // ndev) * ndev) if shapes == "layer" else size

    sizes = {p.n: chunk_of(p) for p in solved}
    shares = {p.n: process_share(p.pairs, sizes[p.n], processes, rank) for p in solved}
    share_height = max(rows for _, _, rows in shares.values())

    last = plans[-1]
    end = np.zeros((last.pairs, last.width), dtype)
    end[:, last.low] = TIES[tie]  # both sheets full: the mover is the starter, lead 0 is the tie
    layers: list = [None] * (2 * nb + 1)
    if keep == "all":
        layers[last.n] = end
    if on_values is not None:
        on_values(last.n, end)
    held: dict = {"prev": end, "operand": None}

    def compute(out, operands, rows_in_layer, filled, upper, all_same_held, other):
        padded, next_index, others = operands
        return turn(padded, next_index, others, filled, upper, all_same_held, other, rules=rules, width=out.shape[1])

    def write(out, operands, rows_in_layer, states, got):
        return out.at[rows_in_layer].set(got)

    def layer_states(p: LayerPlan, first: int, stop: int) -> tuple:
        s = sheets[p.mover]
        rows = np.arange(first, max(stop, first + 1)) % p.pairs  # this process's share (an empty one computes a row for nothing)
        return s.filled[p.a][rows % p.movers], s.upper[p.a][rows % p.movers], s.held[p.a][rows % p.movers], (rows // p.movers).astype(np.int32)

    def slices(p: LayerPlan) -> list[tuple[int, int]]:
        """The rows ``first:stop`` of each piece the layer is solved in: this process's share,
        or with a sink slices of at most ``slice_bytes`` (whole chunks)."""
        first, stop, _ = shares[p.n]
        if sink is None:
            return [(first, stop)]
        rows = max(sizes[p.n], int(slice_bytes) // max(1, p.width * dtype.itemsize) // sizes[p.n] * sizes[p.n])
        return [(r, min(stop, r + rows)) for r in range(first, max(stop, first + 1), rows)]

    pieces: list[tuple[LayerPlan, int, int]] = [(p, r0, r1) for p in reversed(solved) for r0, r1 in slices(p)]

    def begin_layer(layer: Layer, carry) -> LayerSetup:
        del carry
        p, first, stop = pieces[layer.index]
        width = p.width if shapes == "layer" else widest
        height = p.pairs if shapes == "layer" else tallest
        if processes > 1:
            height = shares[p.n][2] if shapes == "layer" else share_height
        if sink is not None:
            height = stop - first
        if held.get("n") != p.n:  # the layer's first piece: the layer below as its operand
            if held["operand"] is not None:
                held["operand"].delete()  # the layer below's table: its layer is done, free it now
            prev = padded_complement(held.pop("prev"), pad, width, dtype, rows=None if shapes == "layer" else tallest)
            if shapes == "uniform":
                prev = np.pad(prev, ((0, 0), (0, widest + pad - prev.shape[1])))
            held["operand"], held["n"] = jnp.asarray(prev), p.n
            del prev
        next_index = jnp.asarray(sheets[p.mover].index)
        out = jnp.zeros((height, width), dtype)
        return LayerSetup(out, (held["operand"], next_index, jnp.asarray(p.others, jnp.int32)), sizes[p.n])

    def end_layer(layer: Layer, carry):
        p, first, stop = pieces[layer.index]
        if sink is not None:
            if first == 0:
                held["sunk"] = sink(p)
            held["sunk"][first:stop] = np.asarray(carry)[: stop - first, : p.width][:, ::-1]  # over the deficit -> over the lead
            if stop < p.pairs:
                return jnp.zeros((1, 1), dtype)
            v = held.pop("sunk")
        else:
            if processes > 1:
                carry = gather_shares(np.asarray(carry), shares[p.n], p.pairs, p.width)
            v = np.ascontiguousarray(np.asarray(carry)[: p.pairs, : p.width][:, ::-1])  # over the deficit -> over the lead
        held["prev"] = v
        if keep == "all" or p is plans[0]:
            layers[p.n] = v
        if on_values is not None:
            on_values(p.n, v)
        return jnp.zeros((1, 1), dtype)

    def piece_done(told: Callable[[int, int], None] | None) -> Callable[[int, int], None] | None:
        """``told(n, pairs)`` once a layer is done (every piece of it; a process's share done means
        the whole layer gathered)."""
        if told is None:
            return None

        def done(index: int, count: int) -> None:
            p, _, stop = pieces[index]
            if stop >= shares[p.n][1]:
                told(p.n, p.pairs)
        return done

    step = SplitStep(compute, write)
    work = [Layer(k, layer_states(p, r0, r1)) for k, (p, r0, r1) in enumerate(pieces)]
    if progress:
        from jaxsolve.core.progress import layer_bars

        with layer_bars({p.n: p.pairs for p in solved}, label="layer") as advance:

            def told(n: int, pairs: int) -> None:
                if on_layer is not None:
                    on_layer(n, pairs)

            def advanced(index: int, count: int) -> None:
                p, r0, r1 = pieces[index]
                advance(p.n, p.pairs if sink is None else r1 - r0)

            done = piece_done(told)

            def both(index: int, count: int) -> None:
                advanced(index, count)
                if done is not None:
                    done(index, count)

            run = run_layers(("twoplayer", rules, shapes), step, work, jnp.zeros((1, 1), dtype), (), chunk=chunk, mesh=mesh,
                             begin_layer=begin_layer, end_layer=end_layer, on_layer=both)
    else:
        run = run_layers(("twoplayer", rules, shapes), step, work, jnp.zeros((1, 1), dtype), (), chunk=chunk, mesh=mesh,
                         begin_layer=begin_layer, end_layer=end_layer, on_layer=piece_done(on_layer))
    if held["operand"] is not None:
        held["operand"].delete()
    timings: dict = {}
    for k, t in run.timings.items():  # per layer: its pieces summed
        p = pieces[k][0]
        got = timings.setdefault(p.n, {"states": 0, "chunk": t["chunk"], "seconds": 0.0})
        got["states"] += t["states"]
        got["seconds"] = round(got["seconds"] + t["seconds"], 4)
    device = ", ".join(str(d) for d in mesh.devices.flat) + (f" (process {rank} of {processes})" if processes > 1 else "")
    return TwoPlayerTables(rules, tie, sheets, plans, layers, run.seconds, run.compile_seconds, device, timings)


@dataclass(frozen=True)
class Outcome:
    """The start of a game under the three tie rules, both playing to win.

    ``share``: the starter's P(win) + P(tie) / 2. ``win`` (``lose``): the starter's P(win or tie)
    (P(win)) when the tie goes to him (to the other). ``win - lose`` is what the tie rule moves
    the starter's chances by; it is not the probability of a tie under one pair of strategies
    (each tie rule has its own optimal play) -- see docs/twoplayer.md.
    """

    share: float
    win: float
    lose: float

    @property
    def tie_worth(self) -> float:
        return self.win - self.lose


def outcome(rules: CategoryRules, **options) -> Outcome:
    """The start values under the tie rules ``share``, ``win`` and ``lose`` (three solves;
    ``options`` as ``solve``)."""
    got = {t: solve(rules, tie=t, **options).start for t in TIES}
    return Outcome(got["share"], got["win"], got["lose"])


@dataclass(frozen=True)
class Compensation:
    """The player to move at the solve's start (the starter) when the other is given ``c``
    points before the game (the starter's lead is ``-c``): ``points`` the c of the start row's
    window, ascending (negative: points given to the starter), ``values`` his P(win) + the tie's
    worth (``TIES``) at each. ``fairest``: the c whose value is closest to 1/2 (the smaller
    ``|c|`` between two as close)."""

    points: np.ndarray
    values: np.ndarray
    tie: str

    def value(self, c: int) -> float:
        """The starter's value with c points given to the other (0 / 1 beyond the window)."""
        if c < self.points[0]:
            return 1.0
        if c > self.points[-1]:
            return 0.0
        return float(self.values[int(c) - int(self.points[0])])

    @property
    def fairest(self) -> int:
        gap = np.abs(self.values - 0.5)
        return int(self.points[np.lexsort((np.abs(self.points), gap))[0]])


def compensation(table: TwoPlayerTables) -> Compensation:
    """The start row's values as compensation points (``Compensation``): from the layer of the
    solve's start (``keep="start"`` suffices), both sheets as ``start`` gave them, else as
    prefilled (upper 0)."""
    leads, v = table.values(table.sheets[0].first, table.sheets[1].first)
    return Compensation(-leads[::-1], v[::-1].copy(), table.tie)


def unsolved(rules: CategoryRules, *, tie: str = "share", mine: int = 0, theirs: int = 0, start=None) -> TwoPlayerTables:
    """The sheets and layer plan of ``solve``'s arguments with no layer solved: what
    ``simulate`` needs for seats that do not play ``optimal``."""
    if tie not in TIES:
        raise JaxsolveError(f"tie must be one of {', '.join(TIES)}, got {tie!r}")
    if start is not None:
        firsts = start_sheets(rules, start, mine, theirs)
        sheets = (player_sheets(rules, start=firsts[0]), player_sheets(rules, start=firsts[1]))
    else:
        sheets = (player_sheets(rules, int(mine)), player_sheets(rules, int(theirs)))
    return TwoPlayerTables(rules, tie, sheets, plan_layers(rules, sheets), [None] * (2 * rules.num_boxes + 1))
