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
``jax.distributed`` dealt to the processes in contiguous runs, each layer gathered to every
process when done (the layered core's vector driver, ``core.layered.solve_vector_layers``).

References: J. Glenn, "An Optimal Strategy for Yahtzee", CS-TR-0002, Loyola College in
Maryland (2006), section 8 (the size of two-player Yahtzee); J. Pawlewicz, "A Nearly Optimal
Computer Player in Multi-player Yahtzee", Computers and Games 2010.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from jaxsolve.core.arrays import float_dtype
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives.distribution import max_turn_reward
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.objectives.target import target_bytes
from jaxsolve.games.category.objectives.twoplayer.sheets import LayerPlan, Sheets, end_plans, pair_sheets, plan_layers, start_sheets

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


def turn(prev_padded, next_index, others, state: EngineState, other, *, rules: CategoryRules, width: int):
    """``[B, width]``: P(the player to move wins) of a chunk of pairs over his deficit
    ``d = column - others' most``: the target objective's turn (``target.turn_target``, the one
    vector turn) whose next row is the pair (the other's sheet, my next sheet)."""
    import jax.numpy as jnp

    from jaxsolve.games.category.objectives.target import turn_target

    def pair_rows(mv):
        return jnp.where(mv.allowed, jnp.maximum(next_index[mv.next_state], 0) * others + other[None, None, :], 0)

    return turn_target((0.0, 1.0), pair_rows, prev_padded, state, rules, width)


pair_bytes = target_bytes
"""Rough working set of one pair of a chunk: the target turn's (``target.target_bytes``)."""


def padded_complement(values: np.ndarray, pad: int, width: int, dtype, rows: int | None = None) -> np.ndarray:
    """``[rows, pad + width]``: ``1 - values`` after ``pad`` ones, zeros after (the layer below
    as the mover's "previous layer": the other's loss, certain below his window, impossible above)."""
    rows = len(values) if rows is None else rows
    out = np.zeros((rows, pad + max(width, values.shape[1])), dtype)
    out[: len(values), :pad] = 1.0
    np.subtract(1.0, values, out=out[: len(values), pad: pad + values.shape[1]], casting="unsafe")
    return out


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
    (``core.layered.process_share``): every process ends with every layer, the values bit for bit those of
    one process (the same chunks, computed by the same program).
    ``on_values(n, values)``: each layer's ``[pairs, width]`` values (as ``layers[n]``) as soon
    as they are known, both sheets full first, e.g. to write them to disk
    (``twoplayer_store.save``) while only two layers stay in memory (``keep="start"``).
    ``sink(plan)``: where each layer is assembled instead of in memory (a ``[pairs, width]``
    array, e.g. a memory-mapped file: ``twoplayer_store.Writer.sink``); a layer of more than
    ``slice_bytes`` is then solved in slices of rows, each written into it as it is done, so a
    layer larger than memory is solved (the rows the same: each chunk the same program).
    """
    import jax.numpy as jnp

    from jaxsolve.core.layered import VectorLayer, solve_vector_layers

    for what, value, allowed in (("tie", tie, tuple(TIES)), ("keep", keep, ("all", "start")), ("shapes", shapes, ("auto", "layer", "uniform"))):
        if value not in allowed:
            raise JaxsolveError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")
    sheets = _solve_sheets(rules, mine, theirs, start)
    plans = plan_layers(rules, sheets)
    if open_boxes is not None:
        plans = end_plans(rules, plans, open_boxes)
    if max(p.pairs for p in plans) > MAX_ROWS:
        raise JaxsolveError(f"{max(p.pairs for p in plans):,} pairs in a layer do not fit an int32 row")
    dtype = jnp.dtype(float_dtype(dtype))
    pad = max_turn_reward(rules)
    widest, tallest = max(p.width for p in plans), max(p.pairs for p in plans)
    if shapes == "auto":
        shapes = "uniform" if tallest * (widest + pad) * dtype.itemsize <= 256 << 20 else "layer"
    by_key = {p.n: p for p in plans}

    def states(p: LayerPlan):
        s = sheets[p.mover]

        def of(rows: np.ndarray) -> tuple:
            return s.filled[p.a][rows % p.movers], s.upper[p.a][rows % p.movers], s.held[p.a][rows % p.movers], (rows // p.movers).astype(np.int32)
        return of

    def prepare(prev: np.ndarray, layer: VectorLayer, width: int, height: int) -> tuple:
        """The layer below as the mover's "previous layer" (``padded_complement``), the row of
        each of his next sheets and the other's sheet of each row."""
        p = by_key[layer.key]
        table = padded_complement(prev, pad, width, dtype, rows=None if shapes == "layer" else tallest)
        if shapes == "uniform":
            table = np.pad(table, ((0, 0), (0, widest + pad - table.shape[1])))
        return jnp.asarray(table), jnp.asarray(sheets[p.mover].index), jnp.asarray(p.others, jnp.int32)

    def fixed_bytes(layer: VectorLayer, width: int, height: int) -> int:
        """The layer's tables beside a chunk: the layer below (the whole of it, also where a
        process holds a share of this one), the output rows and the next sheets' rows."""
        p = by_key[layer.key]
        q = by_key[p.n + 1]
        columns = pad + max(width, q.width) if shapes == "layer" else widest + pad
        return ((q.pairs if shapes == "layer" else tallest) * columns + height * width) * dtype.itemsize + sheets[p.mover].index.nbytes

    def step(operands, filled, upper, held, other, width):
        return turn(*operands, EngineState(filled, upper, held), other, rules=rules, width=width)

    last = plans[-1]
    end = np.zeros((last.pairs, last.width), dtype)
    end[:, last.low] = TIES[tie]  # both sheets full: the mover is the starter, lead 0 is the tie
    if on_values is not None:
        on_values(last.n, end)
    run = solve_vector_layers(
        ("twoplayer", rules, shapes), step, [VectorLayer(p.n, p.pairs, p.width, states(p)) for p in reversed(plans[:-1])], end, prepare,
        dtype=dtype, per_state_bytes=lambda width: pair_bytes(rules, width, dtype.itemsize), fixed_bytes=fixed_bytes, chunk=chunk,
        devices=devices, max_memory=max_memory, uniform=None if shapes == "layer" else (tallest, widest),
        keep=lambda layer: keep == "all" or layer.key == plans[0].n, finish=lambda rows: rows[:, ::-1],  # over the deficit -> over the lead
        on_layer=on_layer, on_values=on_values, sink=None if sink is None else (lambda layer: sink(by_key[layer.key])),
        slice_bytes=slice_bytes, progress="layer" if progress else None,
    )
    layers: list = [None] * (2 * rules.num_boxes + 1)
    for n, values in run.layers.items():
        layers[n] = values
    if keep == "all":
        layers[last.n] = end
    return TwoPlayerTables(rules, tie, sheets, plans, layers, run.seconds, run.compile_seconds, run.device, run.timings)


def _solve_sheets(rules: CategoryRules, mine: int, theirs: int, start) -> tuple[Sheets, Sheets]:
    """The two players' sheets a solve starts from (``solve``'s ``mine``, ``theirs`` and
    ``start``), checked: the other has as many boxes filled as the player to move or one more."""
    nb = rules.num_boxes
    if start is not None:
        mine, theirs = (sheet[0] for sheet in start_sheets(rules, start, mine, theirs))
    for name, mask in (("mine", mine), ("theirs", theirs)):
        if not 0 <= int(mask) < 1 << nb:
            raise JaxsolveError(f"{name} must be a mask of the {nb} boxes, got {mask}")
    a0, b0 = bin(int(mine)).count("1"), bin(int(theirs)).count("1")
    if b0 not in (a0, a0 + 1) or a0 + b0 >= 2 * nb:
        raise JaxsolveError(f"the other player has as many boxes filled as the player to move or one more, and a box is open: got {a0} and {b0}")
    return pair_sheets(rules, mine, theirs, start)


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
    sheets = pair_sheets(rules, mine, theirs, start)
    return TwoPlayerTables(rules, tie, sheets, plan_layers(rules, sheets), [None] * (2 * rules.num_boxes + 1))
