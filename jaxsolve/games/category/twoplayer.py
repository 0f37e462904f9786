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

import functools
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import numpy as np

from jaxsolve.core import dice
from jaxsolve.core.arrays import float_dtype
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category import solver, tables
from jaxsolve.games.category.distribution import max_turn_reward, shifted, sub_layer_states
from jaxsolve.games.category.rules import CategoryRules

TIES = {"share": 0.5, "win": 1.0, "lose": 0.0}
"""What a tie is worth to the player who started the game (the other gets the rest): ``share``
half each, ``win`` a tie goes to the starter, ``lose`` to the second player."""
DEFAULT_CHUNK = 8
DEFAULT_MAX_MEMORY = 2 << 30
DEFAULT_SLICE_BYTES = 1 << 30
MAX_ROWS = (1 << 31) - 1


# ----------------------------------------------------------------------------- sheets


def sheet_class(filled, upper, all_same_held, rules: CategoryRules):
    """``(upper, all_same_held)`` of the class representative of a one-player state:
    ``tables.canonical``, and upper 0 when the rules pay no upper bonus (the total then counts
    for nothing)."""
    u, h = tables.canonical(filled, upper, all_same_held, rules)
    return (u if rules.upper_bonus else u * 0), h


def points_left(filled, upper, all_same_held, rules: CategoryRules) -> np.ndarray:
    """The most points each state can still score (an upper bound: the open boxes' maxima,
    the extra bonus on every turn that can earn it, the upper bonus while open and not yet
    reached, the larger instant bonus per turn), as ``distribution.support_lengths`` per state."""
    f, u, h = (np.asarray(a, np.int64) for a in (filled, upper, all_same_held))
    nb, asb = rules.num_boxes, rules.all_same_box
    is_open = ((f[:, None] >> np.arange(nb)[None, :]) & 1) == 0
    n_open = is_open.sum(1)
    out = (is_open * tables.box_max_points(rules)[None, :]).sum(1)
    if asb >= 0 and rules.extra_bonus:
        turns = np.where(is_open[:, asb], n_open - 1, np.where(h == 1, n_open, 0))
        out = out + rules.extra_bonus * turns
    out = out + rules.upper_bonus * (is_open[:, :6].any(1) & (u < rules.upper_threshold))
    return out + max(rules.instant_all_same, rules.instant_other) * n_open


@dataclass(frozen=True, eq=False)
class Sheets:
    """One player's sheets: per number of filled boxes k the class representatives whose filled
    boxes include ``prefilled`` (with ``start``: of the sheets a game reaches from that sheet), as
    ``filled[k]``, ``upper[k]``, ``held[k]`` int32 and ``bound[k]`` (``points_left``); ``index``
    ``[flat states]`` int32 gives each state's position in its k's list (its class
    representative's; -1: not a sheet here)."""

    prefilled: int
    filled: tuple
    upper: tuple
    held: tuple
    bound: tuple
    index: np.ndarray
    start: tuple | None = None

    def count(self, k: int) -> int:
        return len(self.filled[k])

    def most(self, k: int) -> int:
        """The most points a sheet with k boxes filled can still score (0 if none)."""
        return int(self.bound[k].max(initial=0))

    @property
    def first(self) -> tuple[int, int, int]:
        """The player's sheet at the solve's start: ``start``, else the prefilled boxes (upper 0)."""
        return self.start if self.start is not None else (self.prefilled, 0, 0)

    def find(self, filled: int, upper: int, all_same_held: int, rules: CategoryRules) -> int:
        """Position of one sheet in its list; a clear error if it is not a sheet of this player."""
        cap = rules.upper_threshold
        if not 0 <= int(filled) < 1 << rules.num_boxes or int(upper) < 0 or int(all_same_held) not in (0, 1):
            raise JaxsolveError(f"not a sheet: filled={filled}, upper={upper}, all_same_held={all_same_held}")
        i = int(self.index[int(tables.state_index(int(filled), min(int(upper), cap), int(all_same_held), rules))])
        if i < 0:
            raise JaxsolveError(f"not a sheet of this solve: filled={filled}, upper={upper}, all_same_held={all_same_held} (unreachable, or a prefilled box open)")
        return i


def check_sheet(rules: CategoryRules, sheet) -> tuple[int, int, int]:
    """``(filled, upper capped at the threshold, all_same_held)`` of a reachable one-player
    sheet; a clear error otherwise."""
    try:
        f, u, h = (int(x) for x in sheet)
    except (TypeError, ValueError):
        raise JaxsolveError(f"a sheet is (filled, upper, all_same_held), got {sheet!r}") from None
    if not 0 <= f < 1 << rules.num_boxes or u < 0 or h not in (0, 1):
        raise JaxsolveError(f"not a sheet: filled={f}, upper={u}, all_same_held={h}")
    u = min(u, rules.upper_threshold)
    lf, lu, lh = tables.layer_states(rules, bin(f).count("1"))
    if not np.any((lf == f) & (lu == u) & (lh == h)):
        raise JaxsolveError(f"not a reachable sheet: filled={f}, upper={u}, all_same_held={h}")
    return f, u, h


@functools.lru_cache(maxsize=16)
def player_sheets(rules: CategoryRules, prefilled: int = 0, start: tuple[int, int, int] | None = None) -> Sheets:
    """The ``Sheets`` of a player whose filled boxes include ``prefilled`` (a mask); with ``start``
    = (filled, upper, all_same_held), only the classes of the sheets a game reaches from that
    sheet (``distribution.sub_layer_states(start=)``: its boxes and more, the upper totals its
    open upper boxes can add, its all-same flag while that box is filled). Every state of such a
    class is indexed, so the set is closed under moves (a class's states share their futures).
    The rows keep the order of the unrestricted lists."""
    nb = rules.num_boxes
    if start is not None:
        start = check_sheet(rules, start)
        prefilled = start[0]
    index = np.full(rules.num_states, -1, np.int32)
    fs, us, hs, bs = [], [], [], []
    for k in range(nb + 1):
        f, u, h = (a.astype(np.int64) for a in sub_layer_states(rules, k, prefilled))
        cu, ch = sheet_class(f, u, h, rules)
        rep = (cu == u) & (ch == h)
        if start is not None:
            rf, ru, rh = (a.astype(np.int64) for a in sub_layer_states(rules, k, prefilled, start))
            cru, crh = sheet_class(rf, ru, rh, rules)
            reached = tables.state_index(rf, cru, crh, rules)
            rep &= np.isin(tables.state_index(f, u, h, rules), reached)
        keys = tables.state_index(f[rep], u[rep], h[rep], rules)
        where = np.full(rules.num_states, -1, np.int64)
        where[keys] = np.arange(len(keys))
        index[tables.state_index(f, u, h, rules)] = where[tables.state_index(f, cu, ch, rules)]
        fs.append(f[rep].astype(np.int32))
        us.append(u[rep].astype(np.int32))
        hs.append(h[rep].astype(np.int32))
        bs.append(points_left(f[rep], u[rep], h[rep], rules))
    return Sheets(int(prefilled), tuple(fs), tuple(us), tuple(hs), tuple(bs), index, start)


# ----------------------------------------------------------------------------- layers


@dataclass(frozen=True)
class LayerPlan:
    """Layer ``n``: the player to move (0: the one to move at the solve's start), his filled
    boxes ``a`` and the other's ``b``, the sheet counts, the leads kept ``[-low, high]``."""

    n: int
    mover: int
    a: int
    b: int
    movers: int
    others: int
    low: int
    high: int

    @property
    def pairs(self) -> int:
        return self.movers * self.others

    @property
    def width(self) -> int:
        return self.low + self.high + 1


def plan_layers(rules: CategoryRules, sheets: tuple[Sheets, Sheets]) -> list[LayerPlan]:
    """Every layer from the start (player 0 to move) to both sheets full."""
    nb = rules.num_boxes
    a0, b0 = bin(sheets[0].prefilled).count("1"), bin(sheets[1].prefilled).count("1")
    out = []
    for n in range(a0 + b0, 2 * nb + 1):
        step = n - a0 - b0
        mover = step % 2
        a, b = (a0 + step // 2, b0 + step // 2) if mover == 0 else (b0 + step // 2, a0 + (step + 1) // 2)
        mine, theirs = sheets[mover], sheets[1 - mover]
        out.append(LayerPlan(n, mover, a, b, mine.count(a), theirs.count(b), mine.most(a), theirs.most(b)))
    return out


def end_plans(rules: CategoryRules, plans: list[LayerPlan], open_boxes: int) -> list[LayerPlan]:
    """The layers of ``plans`` where both players have at most ``open_boxes`` boxes open."""
    nb = rules.num_boxes
    if not 1 <= int(open_boxes) <= nb:
        raise JaxsolveError(f"open boxes must be between 1 and {nb}, got {open_boxes}")
    return [p for p in plans if p.n >= 2 * (nb - int(open_boxes))]


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


# ----------------------------------------------------------------------------- solve


def start_sheets(rules: CategoryRules, start, mine: int = 0, theirs: int = 0) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The two checked sheets of ``solve(start=)``; masks ``mine`` / ``theirs`` given beside it
    must be its filled boxes."""
    try:
        first, second = start
    except (TypeError, ValueError):
        raise JaxsolveError(f"start is (the sheet of the player to move, the other's sheet), got {start!r}") from None
    firsts = (check_sheet(rules, first), check_sheet(rules, second))
    for name, mask, sheet in (("mine", mine, firsts[0]), ("theirs", theirs, firsts[1])):
        if int(mask) and int(mask) != sheet[0]:
            raise JaxsolveError(f"{name}={mask} is not the start's filled boxes {sheet[0]}: give one or the other")
    return firsts



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


# ----------------------------------------------------------------------------- simulation


SEATS = ("optimal", "score", "table")
"""What a seat plays in ``simulate``: ``optimal`` the two-player table (both playing to win),
``score`` the one-player expected-score policy (the ``score`` solution, ``policy.optimal_turn``),
``table`` the one-player win-probability model (``winning``): a static best response to the
other player's final-score distribution under ``score`` play, from the simulation's start."""


@dataclass
class Played:
    """Games played from a solve's start, seat 0 the player to move there (the game's starter
    when both have as many boxes filled): ``lead`` seat 0's final lead, ``score`` what each game
    is worth to him under the tie rule (1 won, a tie what it is worth to him, 0 lost): its mean
    estimates the table's ``start``; ``seats`` what each seat played (``SEATS``)."""

    lead: np.ndarray
    score: np.ndarray
    tie: str
    seats: tuple = ("optimal", "optimal")
    differ: MovesDiffer | None = None

    @property
    def wins(self) -> float:
        return float(np.mean(self.lead > 0))

    @property
    def ties(self) -> float:
        return float(np.mean(self.lead == 0))

    @property
    def mean(self) -> float:
        return float(np.mean(self.score))

    @property
    def standard_error(self) -> float:
        return float(np.std(self.score) / np.sqrt(max(len(self.score) - 1, 1)))


DIFFER_TOLERANCE = 1e-6
"""How much less by the two-player table the expected-score choice must be worth than the best
for ``MovesDiffer`` to count it as a different move (below it, float ties of a float32 table)."""
DECISION_KINDS = ("keep", "box")
LOSS_LEVELS = (1e-5, 1e-4, 1e-3, 1e-2)
"""Losses ``MovesDiffer.over`` counts the differing choices above (how many are far beyond a
float32 table's rounding)."""


@dataclass
class MovesDiffer:
    """Where playing to win changes the move: at each decision of a simulation's ``optimal``
    seats, whether the expected-score policy's choice in the same situation (the same sheet,
    dice and re-throws left; its own ties, ``score_policy``) is worth less by the two-player
    table than the best choice by more than ``DIFFER_TOLERANCE``.

    Arrays ``[seat, turn - 1, kind]`` (turn: the mover's boxes filled + 1; kind
    ``DECISION_KINDS``: ``keep`` each throw with re-throws left while the turn goes on, keeping
    every die being writing now; ``box`` the box written, once per turn): ``decisions``,
    ``differ`` and ``loss`` (the win probability the expected-score choices lose where they
    differ, summed), ``over`` ``[seat, turn - 1, kind, level]`` the differing choices that lose
    more than each of ``LOSS_LEVELS``. ``records``: with ``simulate(record=True)``, every decision's situation
    (positions of the sheets in their lists, lead, throw, re-throws left, the expected-score
    choice) and both values, one dict of arrays per batch of decisions.
    """

    decisions: np.ndarray
    differ: np.ndarray
    loss: np.ndarray
    over: np.ndarray
    records: list | None = None

    @classmethod
    def empty(cls, boxes: int, record: bool = False) -> MovesDiffer:
        shape = (2, boxes, len(DECISION_KINDS))
        return cls(np.zeros(shape, np.int64), np.zeros(shape, np.int64), np.zeros(shape, np.float64), np.zeros(shape + (len(LOSS_LEVELS),), np.int64),
                   [] if record else None)

    def add(self, seat: int, turn: int, kind: int, best: np.ndarray, chosen: np.ndarray, situation: dict) -> None:
        """Decisions of ``seat`` on ``turn`` (0-based) of one ``kind``: their best values and
        the expected-score choices' values."""
        gap = np.asarray(best, np.float64) - np.asarray(chosen, np.float64)
        worse = gap > DIFFER_TOLERANCE
        self.decisions[seat, turn, kind] += len(gap)
        self.differ[seat, turn, kind] += int(worse.sum())
        self.loss[seat, turn, kind] += float(gap[worse].sum())
        self.over[seat, turn, kind] += (gap[:, None] > np.asarray(LOSS_LEVELS)[None, :]).sum(0)
        if self.records is not None:
            self.records.append({"seat": seat, "turn": turn, "kind": kind, "best": best, "chosen": chosen, **situation})

    def rate(self, kind: str | None = None) -> float:
        """The share of the decisions (of one kind, or all) where the moves differ."""
        k = slice(None) if kind is None else DECISION_KINDS.index(kind)
        return float(self.differ[..., k].sum() / max(self.decisions[..., k].sum(), 1))

    def mean_loss(self, kind: str | None = None) -> float:
        """The mean win probability lost by the expected-score choice where it differs."""
        k = slice(None) if kind is None else DECISION_KINDS.index(kind)
        return float(self.loss[..., k].sum() / max(self.differ[..., k].sum(), 1))

    def per_turn(self) -> list[dict]:
        """Both seats' counts per turn number and kind."""
        d, n, lost = (a.sum(0) for a in (self.decisions, self.differ, self.loss))
        out = []
        for t in range(d.shape[0]):
            row: dict = {"turn": t + 1}
            for k, name in enumerate(DECISION_KINDS):
                row[name] = {"decisions": int(d[t, k]), "differ": int(n[t, k]), "rate": float(n[t, k] / max(d[t, k], 1)),
                             "mean_loss": float(lost[t, k] / max(n[t, k], 1))}
            out.append(row)
        return out


class _Compare(NamedTuple):
    """The expected-score choices of a turn's mover sheets for ``_optimal_turn``: ``keep``
    ``[throws - 1, T, S]``, ``box`` ``[T, S]``, ``column`` each game's sheet among the S."""

    keep: np.ndarray
    box: np.ndarray
    column: np.ndarray
    differ: MovesDiffer


SIM_BLOCK = 1024
"""Distinct positions per NumPy block of a simulated turn (a block's box values are
``[boxes, throws, block]``: 12 MB for Yacht, cache-sized; 4,096 took twice the CPU seconds)."""


class _SheetMoves(NamedTuple):
    """``solver.Moves`` of a batch of positions computed once per distinct sheet of the player
    to move and spread over the positions (``[boxes, T, U]``): ``scored`` what a move adds to
    the sheet (``Moves.score``: box points and bonuses; no instant bonus), ``row`` the next
    sheet's position in its list."""

    scored: np.ndarray
    next_state: np.ndarray
    allowed: np.ndarray
    row: np.ndarray

    def score(self, first_throw: bool = False) -> np.ndarray:
        return self.scored


ALL_MOVES = 1 << 24
"""Most (box, throw, sheet) moves of one player's layer computed once and kept for the layer's
blocks (``_all_moves``; Yacht: at most 12 x 252 x 924); larger layers compute each block's."""


def _moves_of(mine: Sheets, a: int, sheets: np.ndarray, rules: CategoryRules) -> tuple:
    """``(points, next_state, allowed, row)`` ``[boxes, T, len(sheets)]`` of these sheets (positions
    in ``mine``'s list for ``a`` boxes filled): points int32 with every bonus, the next state,
    the next sheet's position in its list (0 where not allowed)."""
    mv = solver.moves(mine.filled[a][sheets], mine.upper[a][sheets], mine.held[a][sheets], rules, xp=np)
    nxt = np.asarray(mv.next_state)
    allowed = np.asarray(mv.allowed)
    row = np.where(allowed, np.maximum(mine.index[nxt], 0), 0).astype(np.int32)
    small = np.int32 if max(nxt.max(initial=0), len(mine.index)) < 1 << 31 else np.int64
    return np.asarray(mv.score(False), np.int32), nxt.astype(small), allowed, row


@functools.lru_cache(maxsize=2)
def _all_moves(mine: Sheets, a: int, rules: CategoryRules) -> tuple:
    """``_moves_of`` every sheet of ``mine`` with ``a`` boxes filled (kept for the layer's blocks)."""
    return _moves_of(mine, a, np.arange(mine.count(a)), rules)


def _sheet_moves(mine: Sheets, a: int, movers: np.ndarray, rules: CategoryRules) -> _SheetMoves:
    """The moves of the positions whose mover's sheets are ``movers`` (positions in
    ``mine``'s list for ``a`` boxes filled), taken per position from those of every sheet of
    the layer (``_all_moves``, for a block of at least as many positions as the layer has
    sheets) or of each distinct sheet of the block (fewer positions, or a layer of more than
    ``ALL_MOVES`` moves)."""
    n = mine.count(a)
    if len(movers) >= n and n * rules.num_boxes * tables.space(rules.dice).num_throws <= ALL_MOVES:
        arrays, at = _all_moves(mine, a, rules), np.asarray(movers)
    else:
        sheets, inverse = np.unique(movers, return_inverse=True)
        arrays, at = _moves_of(mine, a, sheets, rules), inverse.reshape(-1)
    return _SheetMoves(*(x[:, :, at] for x in arrays))


def _turn_arrays(table: TwoPlayerTables, p: LayerPlan, movers: np.ndarray, others: np.ndarray, leads: np.ndarray):
    """For positions (mover's sheet, other's sheet, lead) of layer ``p``: the moves, each box's
    value after each last throw (``[boxes, T, U]``, -1 where not allowed) and the keeps' values
    with r re-throws left (``keeps[r - 1]``: ``[K, U]``), from the layer below (NumPy)."""
    rules = table.rules
    sp = tables.space(rules.dice)
    mine = table.sheets[p.mover]
    q = table.plan(p.n + 1)
    below = np.asarray(table.layers[q.n]).reshape(-1)
    mv = _sheet_moves(mine, p.a, movers, rules)
    index = np.int32 if q.pairs * q.width < 1 << 31 else np.int64
    j = (q.low - leads[None, None, :]).astype(index) - mv.scored  # the other's lead after the move, as his column
    won, lost = j < 0, j >= q.width
    np.clip(j, 0, q.width - 1, out=j)
    at = np.multiply(mv.row, p.others * q.width, dtype=index)
    at += (others[None, None, :] * q.width).astype(index)
    at += j
    final = np.subtract(1.0, np.take(below, at), dtype=np.float64)
    final[won] = 1.0
    final[lost] = 0.0
    final[~mv.allowed] = -1.0
    stage = final.max(0)
    keeps = []
    for _ in range(rules.throws - 1):
        keeps.append(dice.expect_keeps(sp, stage, xp=np))
        stage = dice.reroll(sp, stage, xp=np)
    return mv, final, keeps


POLICY_CHUNK = 64
"""States per compiled call of the ``score`` seat's turn policy."""


def score_policy(rules: CategoryRules, sol=None):
    """The expected-score policy's turn as a jitted ``(filled, upper, all_same_held) -> (keep
    [throws - 1, T, B], box [T, B])`` (``strategies.ValueStrategy`` of the ``score`` solution
    ``sol``, float64 with JAX's x64 mode on, as the tests and benchmarks set it; solved when not
    given): the ``score`` seat's play and ``compare``'s expected-score choices."""
    import jax
    import jax.numpy as jnp

    from jaxsolve.games.category import solutions, strategies

    if sol is None:
        sol = solutions.solution(rules, "score", dtype="float64")
    strategy = strategies.make("optimal", rules, solution=sol, dtype=jnp.float64)

    def keep_and_box(f, u, h):
        turn = strategy.policy(f, u, h)
        return turn.keep, turn.box

    return jax.jit(keep_and_box)


def _score_choices(fn, filled, upper, all_same_held) -> tuple[np.ndarray, np.ndarray]:
    """``(keep [throws - 1, T, B], box [T, B])`` of ``score_policy``'s ``fn`` for B sheets, in
    calls of ``POLICY_CHUNK`` sheets (the last one padded with the first sheet: one compiled shape)."""
    import jax.numpy as jnp

    f, u, h = (np.asarray(a, np.int64) for a in (filled, upper, all_same_held))
    keeps, boxes = [], []
    for c0 in range(0, len(f), POLICY_CHUNK):
        part = [a[c0: c0 + POLICY_CHUNK] for a in (f, u, h)]
        n = len(part[0])
        padded = [np.concatenate([a, np.repeat(a[:1], POLICY_CHUNK - n)]) for a in part]
        keep, box = (np.asarray(a) for a in fn(*(jnp.asarray(a, jnp.int32) for a in padded)))
        keeps.append(keep[..., :n])
        boxes.append(box[..., :n])
    return np.concatenate(keeps, axis=-1), np.concatenate(boxes, axis=-1)


def _decode(flat: np.ndarray, rules: CategoryRules):
    cap = rules.upper_threshold + 1
    flat = np.asarray(flat, np.int64)
    return flat // (2 * cap), (flat // 2) % cap, flat % 2


class SeatModels:
    """The one-player models of a simulation's two seats from its start sheets and lead: each
    seat's remaining points under ``score`` play (``distribution.distribution``, float64), the
    ``score`` policy, and per seat the ``table`` response (``winning.response_table``: the best
    response to ``utility(seat)``, the other's distribution, every layer). ``exact(seats)``: the
    starter's value where the two one-player players' games are independent."""

    def __init__(self, rules: CategoryRules, firsts, lead: int = 0, tie: str = "share", sol=None):
        from jaxsolve.games.category import distribution as D
        from jaxsolve.games.category import solutions

        if tie not in TIES:
            raise JaxsolveError(f"tie must be one of {', '.join(TIES)}, got {tie!r}")
        self.rules, self.tie, self.lead = rules, tie, int(lead)
        self.firsts = tuple(check_sheet(rules, s) for s in firsts)
        self.level = bin(self.firsts[0][0]).count("1") == bin(self.firsts[1][0]).count("1")  # seat 0 started the game
        self.sol = sol if sol is not None else solutions.solution(rules, "score", dtype="float64")
        self.remaining = []
        for f, u, h in self.firsts:
            if f == rules.full_mask:
                self.remaining.append(np.ones(1))
                continue
            dist = D.distribution(rules, self.sol, dtype="float64", chunk=2, keep="start", start=(f, u, h), shapes="bucket")
            self.remaining.append(np.asarray(dist.at(f, u, h), np.float64))
        self._responses: dict = {}
        self._policy = None

    def seat_lead(self, seat: int) -> int:
        return self.lead if seat == 0 else -self.lead

    def seat_tie(self, seat: int) -> float:
        """What a tie is worth to ``seat`` (``TIES`` counts for the game's starter)."""
        return TIES[self.tie] if (seat == 0) == self.level else 1.0 - TIES[self.tie]

    def utility(self, seat: int) -> np.ndarray:
        """``w[k]`` = P(seat wins | he scores k more points), k = 0..K (``w[K]`` = 1 where K > 0):
        the other's remaining points ``Y`` below ``lead + k``, or equal for the tie's share."""
        y = self.remaining[1 - seat]
        lead = self.seat_lead(seat)
        top = max(1, len(y) - lead)
        at = lead + np.arange(top + 1)
        cum = np.concatenate([[0.0], np.cumsum(y)])
        below = cum[np.clip(at, 0, len(y))]
        equal = np.where((at >= 0) & (at < len(y)), y[np.clip(at, 0, len(y) - 1)], 0.0)
        return np.clip(below + self.seat_tie(seat) * equal, 0.0, 1.0)

    def response(self, seat: int):
        """The ``table`` seat's target table (a terminal, every layer) and its start channel."""
        from jaxsolve.games.category import winning

        if seat not in self._responses:
            w = self.utility(seat)
            f, u, h = self.firsts[seat]
            self._responses[seat] = (winning.response_table(self.rules, f, w, start=(f, u, h)), len(w) - 1)
        return self._responses[seat]

    def policy(self):
        """The ``score`` seat's jitted turn policy (``score_policy``)."""
        if self._policy is None:
            self._policy = score_policy(self.rules, self.sol)
        return self._policy

    def exact(self, seats) -> float | None:
        """The starter's exact value for ``score`` / ``table`` seats against ``score``: the seat's
        games are independent of each other (neither looks at the other's play), so ``score``
        against ``score`` is the two remaining-point distributions' convolution and ``table``
        against ``score`` the response's value at its start; None for other pairs."""
        seats = tuple(seats)
        if seats == ("score", "score"):
            x, y = self.remaining
            diff = np.convolve(x, y[::-1])  # P(X - Y = d), d = -(len(y) - 1)..
            d = np.arange(len(diff)) - (len(y) - 1) + self.lead
            return float(diff[d > 0].sum() + self.seat_tie(0) * diff[d == 0].sum())
        for seat in (0, 1):
            if seats[seat] == "table" and seats[1 - seat] == "score":
                table, k = self.response(seat)
                v = float(table.at(*self.firsts[seat])[k])
                return v if seat == 0 else 1.0 - v
        return None


def _optimal_turn(table, p, movers, others, lead, roll, compare: _Compare | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(points gained, next state)`` of the games' turns played by the two-player table from
    positions (mover's sheet, other's sheet: positions in their lists; lead); the next state is
    the one of the mover's class representative (the same class as his own). With ``compare``,
    each decision is also counted in ``compare.differ`` against the expected-score choice
    (``MovesDiffer``); the play is the same."""
    rules = table.rules
    sp = tables.space(rules.dice)
    subkeeps = np.asarray(sp.subkeeps)
    keep_counts = np.asarray(sp.keeps)
    games = len(lead)
    gained = np.zeros(games, np.int64)
    nxt = np.zeros(games, np.int64)
    keys, inverse = np.unique(np.stack([movers, others, lead]), axis=1, return_inverse=True)
    inverse = inverse.reshape(-1)
    for b0 in range(0, keys.shape[1], SIM_BLOCK):
        block = keys[:, b0: b0 + SIM_BLOCK]
        mv, final, keeps = _turn_arrays(table, p, block[0], block[1], block[2])
        g = np.flatnonzero((inverse >= b0) & (inverse < b0 + block.shape[1]))
        ug = inverse[g] - b0
        x = roll(np.zeros((len(g), 6), np.int64))
        rolling = np.ones(len(g), bool)
        for left in range(rules.throws - 1, 0, -1):
            subs = subkeeps[x]
            kv = keeps[left - 1][subs, ug[:, None]]
            now = final[:, x, ug].max(0)
            go = now < kv.max(1)
            if compare is not None:
                chosen = compare.keep[left - 1][x, compare.column[g]]
                on = np.flatnonzero(rolling)
                situation = {} if compare.differ.records is None else {
                    "mover": block[0][ug[on]], "other": block[1][ug[on]], "lead": block[2][ug[on]], "throw": x[on], "left": left, "choice": chosen[on]}
                compare.differ.add(p.mover, p.a, 0, np.maximum(now, kv.max(1))[on], keeps[left - 1][chosen, ug][on], situation)
                rolling &= go
            if go.any():
                pick = subs[np.arange(len(g)), kv.argmax(1)]
                x[go] = roll(keep_counts[pick[go]])
        box = final[:, x, ug].argmax(0)
        if compare is not None:
            fv = final[:, x, ug]
            chosen = compare.box[x, compare.column[g]]
            situation = {} if compare.differ.records is None else {
                "mover": block[0][ug], "other": block[1][ug], "lead": block[2][ug], "throw": x.copy(), "left": 0, "choice": chosen}
            compare.differ.add(p.mover, p.a, 1, fv.max(0), fv[chosen, np.arange(len(g))], situation)
        gained[g] = np.asarray(mv.score(False))[box, x, ug]
        nxt[g] = np.asarray(mv.next_state)[box, x, ug]
    return gained, nxt


def _score_turn(models: SeatModels, state, roll) -> tuple[np.ndarray, np.ndarray]:
    """The games' turns played by the expected-score policy (its keeps and boxes, its ties)."""
    rules = models.rules
    keep_counts = np.asarray(tables.space(rules.dice).keeps)
    fn = models.policy()
    uniq, inverse = np.unique(state, return_inverse=True)
    inverse = inverse.reshape(-1)
    gained = np.zeros(len(state), np.int64)
    nxt = np.zeros(len(state), np.int64)
    for c0 in range(0, len(uniq), POLICY_CHUNK):
        chunk = uniq[c0: c0 + POLICY_CHUNK]
        cf, cu, ch = _decode(chunk, rules)
        keep, box = _score_choices(fn, cf, cu, ch)
        mv = solver.moves(cf, cu, ch, rules, xp=np)
        g = np.flatnonzero((inverse >= c0) & (inverse < c0 + len(chunk)))
        loc = inverse[g] - c0
        x = roll(np.zeros((len(g), 6), np.int64))
        for left in range(rules.throws - 1, 0, -1):
            x = roll(keep_counts[keep[left - 1][x, loc]])
        b = box[x, loc]
        gained[g] = np.asarray(mv.score(False))[b, x, loc]
        nxt[g] = np.asarray(mv.next_state)[b, x, loc]
    return gained, nxt


def _table_turn(models: SeatModels, seat: int, state, scored, roll) -> tuple[np.ndarray, np.ndarray]:
    """The games' turns played by the static best response at each game's channel ``K - points
    scored`` (``winning_simulate.turn_values``; ties to filling, the earlier box, the first keep)."""
    from jaxsolve.games.category.winning_simulate import turn_values

    rules = models.rules
    sp = tables.space(rules.dice)
    subkeeps = np.asarray(sp.subkeeps).astype(np.int64)
    keep_counts = np.asarray(sp.keeps)
    table, top = models.response(seat)
    gained = np.zeros(len(state), np.int64)
    nxt = np.zeros(len(state), np.int64)
    for b0 in range(0, len(state), SIM_BLOCK):
        g = np.arange(b0, min(b0 + SIM_BLOCK, len(state)))
        lane = np.arange(len(g))
        tv = turn_values(table, state[g], np.maximum(top - scored[g], 0))
        x = roll(np.zeros((len(g), 6), np.int64))
        done = np.zeros(len(g), bool)
        box = np.zeros(len(g), np.int64)
        for left in range(rules.throws - 1, -1, -1):
            fv = tv.fill[:, x, lane]
            if left == 0:
                stop = ~done
            else:
                subs = subkeeps[x]
                kv = tv.keep[left - 1][subs, lane[:, None]]
                stop = ~done & (fv.max(0) >= kv.max(1) - 1e-12)
                go = ~done & ~stop
                if go.any():
                    x[go] = roll(keep_counts[subs[lane, kv.argmax(1)][go]])
            box[stop] = fv.argmax(0)[stop]
            done |= stop
        gained[g] = tv.reward[box, x, lane]
        nxt[g] = tv.next_state[box, x, lane]
    return gained, nxt


class Starts(NamedTuple):
    """Per game a start of a simulation: the two seats' one-player states (``tables.state_index``;
    seat 0 to move) and seat 0's lead."""

    seat0: np.ndarray
    seat1: np.ndarray
    lead: np.ndarray


class ScoreSeat:
    """The expected-score player alone (``score_policy`` of ``sol``, else of the float64 score
    solution): the ``score`` seat of games started from many positions (``simulate(starts=)``)."""

    def __init__(self, rules: CategoryRules, sol=None):
        from jaxsolve.games.category import solutions

        self.rules = rules
        self.sol = sol if sol is not None else solutions.solution(rules, "score", dtype="float64")
        self._policy = None

    def policy(self):
        if self._policy is None:
            self._policy = score_policy(self.rules, self.sol)
        return self._policy


def _roller(rng: np.random.Generator, n_dice: int) -> Callable[[np.ndarray], np.ndarray]:
    """``roll(kept)``: each game's throw after re-throwing the dice not in ``kept`` (face counts)."""
    from jaxsolve.games.category.simulate import throw_of

    def roll(kept):
        m = n_dice - kept.sum(1)
        faces = rng.integers(0, 6, (len(m), n_dice))
        return throw_of(faces, np.arange(n_dice)[None, :] < m[:, None], kept).astype(np.int64)
    return roll


def reach(rules: CategoryRules, games: int, filled: int, seed: int = 0, sol=None) -> Starts:
    """``games`` games from the start played by the expected-score player in both seats until
    both sheets have ``filled`` boxes filled (seat 0 started and is to move): the end-game
    positions such play reaches, as ``Starts`` for ``simulate(starts=)``."""
    if rules.has_instant_bonus:
        raise JaxsolveError("simulated two-player play does not take instant bonuses")
    if not 0 <= int(filled) < rules.num_boxes or games < 1:
        raise JaxsolveError(f"filled is 0..{rules.num_boxes - 1} and games >= 1, got {filled} and {games}")
    seat = ScoreSeat(rules, sol)
    roll = _roller(np.random.default_rng(seed), rules.dice)
    state = [np.zeros(games, np.int64), np.zeros(games, np.int64)]
    lead = np.zeros(games, np.int64)  # of the player to move
    for turn in range(2 * int(filled)):
        gained, state[turn % 2] = _score_turn(seat, state[turn % 2], roll)  # type: ignore[arg-type]
        lead = -(lead + gained)
    return Starts(state[0], state[1], lead)


def simulate(table: TwoPlayerTables, games: int, seed: int = 0, *, seats=("optimal", "optimal"), lead: int = 0, models: SeatModels | None = None,
             compare: str | None = None, score_solution=None, record: bool = False, starts: Starts | None = None) -> Played:
    """``games`` games from the solve's start (both sheets as ``start`` gave them, else as
    prefilled with upper 0; the player to move leads by ``lead``; ``starts``: from each game's
    own position, e.g. ``reach``'s, seats ``optimal`` and ``score`` only), each seat playing
    ``seats[k]`` (``SEATS``; seat 0 the player to move). ``optimal``: each keep and box the best
    for the player to move by the table (every layer kept; ties to writing, then to the first
    keep or box); ``score`` and ``table`` as ``SeatModels`` (built here unless given). A table
    of ``unsolved`` serves seats that are not ``optimal``. Vectorised over games; the positions
    of a turn are computed once each (``np.unique``); a ``score`` or ``table`` seat's sheet is
    followed as scored (the upper total as it is), the table read at its class; an ``optimal``
    seat's as its class representative.

    ``compare="score"``: at every decision of an ``optimal`` seat, also whether the
    expected-score policy (``score_policy`` of ``score_solution``, else of the models', else
    solved) would choose a move worth less by the table: ``Played.differ`` (``MovesDiffer``;
    ``record``: with every decision's situation). The games played are the same as without."""
    rules = table.rules
    seats = tuple(seats)
    if len(seats) != 2 or any(s not in SEATS for s in seats):
        raise JaxsolveError(f"seats are two of {', '.join(SEATS)}, got {seats!r}")
    if "optimal" in seats and any(layer is None for layer in table.layers[table.plans[0].n:]):
        raise JaxsolveError("simulated optimal play needs every layer (solve with keep='all')")
    if rules.has_instant_bonus:
        raise JaxsolveError("simulated two-player play does not take instant bonuses")
    if games < 1:
        raise JaxsolveError(f"games must be >= 1, got {games}")
    firsts = (table.sheets[0].first, table.sheets[1].first)
    if starts is not None:
        if "table" in seats or models is not None:
            raise JaxsolveError("games from many starts take the optimal and score seats only")
        if any(len(a) != games for a in starts):
            raise JaxsolveError(f"starts holds {len(starts.seat0)} games, not {games}")
        p0 = table.plans[0]
        for seat, filled in ((0, p0.a if p0.mover == 0 else p0.b), (1, p0.b if p0.mover == 0 else p0.a)):
            got = np.asarray(starts[seat], np.int64)
            ok = bool(got.min() >= 0 and got.max() < rules.num_states)
            counts = ((_decode(got, rules)[0][:, None] >> np.arange(rules.num_boxes)) & 1).sum(1) if ok else None
            if not ok or np.any(table.sheets[seat].index[got] < 0) or np.any(counts != filled):
                raise JaxsolveError(f"a start of seat {seat} is not a sheet with {filled} boxes filled of this table")
        if "score" in seats:
            models = ScoreSeat(rules, score_solution)  # type: ignore[assignment]
    elif seats != ("optimal", "optimal"):
        if models is None:
            models = SeatModels(rules, firsts, lead, table.tie)
        elif models.firsts != firsts or models.lead != int(lead) or models.tie != table.tie or models.rules != rules:
            raise JaxsolveError("the seat models were built for another start, lead, tie rule or game")
    differ, fn = None, None
    if compare is not None:
        if compare != "score":
            raise JaxsolveError(f"compare must be 'score' (the expected-score policy), got {compare!r}")
        if "optimal" not in seats:
            raise JaxsolveError("compare counts the decisions of an optimal seat: no seat plays optimal")
        if score_solution is not None:
            fn = score_policy(rules, score_solution)
        else:
            fn = models.policy() if models is not None else score_policy(rules)
        differ = MovesDiffer.empty(rules.num_boxes, record)
    roll = _roller(np.random.default_rng(seed), rules.dice)
    if starts is None:
        state = [np.full(games, int(tables.state_index(s[0], s[1], s[2], rules)), np.int64) for s in firsts]  # the seats' own sheets
        lead_now = np.full(games, int(lead), np.int64)  # of the player to move
    else:
        state = [np.asarray(starts.seat0, np.int64).copy(), np.asarray(starts.seat1, np.int64).copy()]
        lead_now = np.asarray(starts.lead, np.int64).copy()
    scored = [np.zeros(games, np.int64), np.zeros(games, np.int64)]
    for p in table.plans[:-1]:
        seat = p.mover
        kind = seats[seat]
        if kind == "optimal":
            movers = table.sheets[seat].index[state[seat]].astype(np.int64)
            others = table.sheets[1 - seat].index[state[1 - seat]].astype(np.int64)
            cmp = None
            if differ is not None:
                mine = table.sheets[seat]
                sheets, column = np.unique(movers, return_inverse=True)
                keep, box = _score_choices(fn, mine.filled[p.a][sheets], mine.upper[p.a][sheets], mine.held[p.a][sheets])
                cmp = _Compare(keep, box, column.reshape(-1), differ)
            gained, nxt = _optimal_turn(table, p, movers, others, lead_now, roll, cmp)
        elif kind == "score":
            assert models is not None
            gained, nxt = _score_turn(models, state[seat], roll)
        else:
            assert models is not None
            gained, nxt = _table_turn(models, seat, state[seat], scored[seat], roll)
        state[seat] = nxt
        scored[seat] = scored[seat] + gained
        lead_now = -(lead_now + gained)
    final = lead_now if table.plans[-1].mover == 0 else -lead_now
    tie = TIES[table.tie] if table.plans[-1].mover == 0 else 1.0 - TIES[table.tie]  # the last mover started the game
    score = np.where(final > 0, 1.0, np.where(final == 0, tie, 0.0))
    return Played(final, score, table.tie, seats, differ)


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
