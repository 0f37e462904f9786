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
independent (they could be sharded over devices like the one-player layers).

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
    boxes include ``prefilled``, as ``filled[k]``, ``upper[k]``, ``held[k]`` int32 and
    ``bound[k]`` (``points_left``); ``index`` ``[flat states]`` int32 gives each reachable
    state's position in its k's list (its class representative's; -1: not a sheet here)."""

    prefilled: int
    filled: tuple
    upper: tuple
    held: tuple
    bound: tuple
    index: np.ndarray

    def count(self, k: int) -> int:
        return len(self.filled[k])

    def most(self, k: int) -> int:
        """The most points a sheet with k boxes filled can still score (0 if none)."""
        return int(self.bound[k].max(initial=0))

    def find(self, filled: int, upper: int, all_same_held: int, rules: CategoryRules) -> int:
        """Position of one sheet in its list; a clear error if it is not a sheet of this player."""
        cap = rules.upper_threshold
        if not 0 <= int(filled) < 1 << rules.num_boxes or int(upper) < 0 or int(all_same_held) not in (0, 1):
            raise JaxsolveError(f"not a sheet: filled={filled}, upper={upper}, all_same_held={all_same_held}")
        i = int(self.index[int(tables.state_index(int(filled), min(int(upper), cap), int(all_same_held), rules))])
        if i < 0:
            raise JaxsolveError(f"not a sheet of this solve: filled={filled}, upper={upper}, all_same_held={all_same_held} (unreachable, or a prefilled box open)")
        return i


@functools.lru_cache(maxsize=16)
def player_sheets(rules: CategoryRules, prefilled: int = 0) -> Sheets:
    """The ``Sheets`` of a player whose filled boxes include ``prefilled`` (a mask)."""
    nb = rules.num_boxes
    index = np.full(rules.num_states, -1, np.int32)
    fs, us, hs, bs = [], [], [], []
    for k in range(nb + 1):
        f, u, h = (a.astype(np.int64) for a in sub_layer_states(rules, k, prefilled))
        cu, ch = sheet_class(f, u, h, rules)
        rep = (cu == u) & (ch == h)
        keys = tables.state_index(f[rep], u[rep], h[rep], rules)
        where = np.full(rules.num_states, -1, np.int64)
        where[keys] = np.arange(len(keys))
        index[tables.state_index(f, u, h, rules)] = where[tables.state_index(f, cu, ch, rules)]
        fs.append(f[rep].astype(np.int32))
        us.append(u[rep].astype(np.int32))
        hs.append(h[rep].astype(np.int32))
        bs.append(points_left(f[rep], u[rep], h[rep], rules))
    return Sheets(int(prefilled), tuple(fs), tuple(us), tuple(hs), tuple(bs), index)


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
        """The value of the solve's first state: both sheets as prefilled (upper 0), lead 0."""
        return self.value((self.sheets[0].prefilled, 0, 0), (self.sheets[1].prefilled, 0, 0), 0)


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


# ----------------------------------------------------------------------------- solve


def solve(
    rules: CategoryRules,
    *,
    tie: str = "share",
    mine: int = 0,
    theirs: int = 0,
    dtype=None,
    keep: str = "start",
    chunk: int = DEFAULT_CHUNK,
    devices=1,
    max_memory: int | None = DEFAULT_MAX_MEMORY,
    shapes: str = "auto",
    on_layer: Callable[[int, int], None] | None = None,
    progress: bool = False,
    on_values: Callable[[int, np.ndarray], None] | None = None,
) -> TwoPlayerTables:
    """Both players' win probabilities of every state, layer by layer from both sheets full.

    ``mine`` / ``theirs``: the boxes filled at the start by the player to move and by the other
    (masks; ``theirs`` has as many boxes or one more: then the player to move is the second
    player); every state whose sheets include them is solved, so the start is any position with
    those boxes filled (``TwoPlayerTables.values``). ``tie``: ``share``, ``win`` or ``lose``
    (``TIES``). ``keep``: ``start`` (only the first layer kept; two layers held while solving)
    or ``all`` (for advice and simulation). ``shapes``: ``layer`` (one compiled program per
    layer shape), ``uniform`` (one for all layers: the widest, for small games), ``auto``
    (``uniform`` while its tables stay under 256 MiB). ``on_layer(n, pairs)`` when a layer is
    done; ``progress`` shows bars on stderr (``core.progress``). ``max_memory``: the chunk
    shrinks so a chunk's working set and the layer's tables fit.

    ``on_values(n, values)``: each layer's ``[pairs, width]`` values (as ``layers[n]``) as soon
    as they are known, both sheets full first, e.g. to write them to disk
    (``twoplayer_store.save``) while only two layers stay in memory (``keep="start"``).
    """
    import jax.numpy as jnp

    from jaxsolve.core.layered import Layer, LayerSetup, SplitStep, make_mesh, plan_chunk, run_layers

    if tie not in TIES:
        raise JaxsolveError(f"tie must be one of {', '.join(TIES)}, got {tie!r}")
    if keep not in ("all", "start"):
        raise JaxsolveError(f"keep must be 'all' or 'start', got {keep!r}")
    if shapes not in ("auto", "layer", "uniform"):
        raise JaxsolveError(f"shapes must be 'auto', 'layer' or 'uniform', got {shapes!r}")
    nb = rules.num_boxes
    for name, mask in (("mine", mine), ("theirs", theirs)):
        if not 0 <= int(mask) < 1 << nb:
            raise JaxsolveError(f"{name} must be a mask of the {nb} boxes, got {mask}")
    a0, b0 = bin(int(mine)).count("1"), bin(int(theirs)).count("1")
    if b0 not in (a0, a0 + 1) or a0 + b0 >= 2 * nb:
        raise JaxsolveError(f"the other player has as many boxes filled as the player to move or one more, and a box is open: got {a0} and {b0}")
    dtype = jnp.dtype(float_dtype(dtype))
    sheets = (player_sheets(rules, int(mine)), player_sheets(rules, int(theirs)))
    plans = plan_layers(rules, sheets)
    if max(p.pairs for p in plans) > MAX_ROWS:
        raise JaxsolveError(f"{max(p.pairs for p in plans):,} pairs in a layer do not fit an int32 row")
    pad = max_turn_reward(rules)
    mesh = make_mesh(devices)
    ndev = mesh.devices.size
    solved = plans[:-1]
    widest = max(p.width for p in plans)
    tallest = max(p.pairs for p in plans)
    if shapes == "auto":
        shapes = "uniform" if tallest * (widest + pad) * dtype.itemsize <= 256 << 20 else "layer"
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

    def layer_states(p: LayerPlan) -> tuple:
        s = sheets[p.mover]
        return (
            np.tile(s.filled[p.a], p.others), np.tile(s.upper[p.a], p.others), np.tile(s.held[p.a], p.others),
            np.repeat(np.arange(p.others, dtype=np.int32), p.movers),
        )

    def begin_layer(layer: Layer, carry) -> LayerSetup:
        del carry
        p = plans[layer.index - plans[0].n]
        if held["operand"] is not None:
            held["operand"].delete()  # the layer below's table: its layer is done, free it now
        width = p.width if shapes == "layer" else widest
        height = p.pairs if shapes == "layer" else tallest
        prev = padded_complement(held.pop("prev"), pad, width, dtype, rows=None if shapes == "layer" else tallest)
        if shapes == "uniform":
            prev = np.pad(prev, ((0, 0), (0, widest + pad - prev.shape[1])))
        operand = jnp.asarray(prev)
        del prev
        held["operand"] = operand
        next_index = jnp.asarray(sheets[p.mover].index)
        out = jnp.zeros((height, width), dtype)
        fixed = operand.nbytes + next_index.nbytes + out.nbytes
        size = plan_chunk(pair_bytes(rules, width, dtype.itemsize), fixed, max_memory, chunk, ndev)
        if shapes == "layer":
            size = min(size, -(-height // ndev) * ndev)
        return LayerSetup(out, (operand, next_index, jnp.asarray(p.others, jnp.int32)), size)

    def end_layer(layer: Layer, carry):
        p = plans[layer.index - plans[0].n]
        v = np.ascontiguousarray(np.asarray(carry)[: p.pairs, : p.width][:, ::-1])  # over the deficit -> over the lead
        held["prev"] = v
        if keep == "all" or p is plans[0]:
            layers[p.n] = v
        if on_values is not None:
            on_values(p.n, v)
        return jnp.zeros((1, 1), dtype)

    step = SplitStep(compute, write)
    work = [Layer(p.n, layer_states(p)) for p in reversed(solved)]
    if progress:
        from jaxsolve.core.progress import layer_bars

        with layer_bars({p.n: p.pairs for p in solved}, label="layer") as advance:

            def told(n: int, pairs: int) -> None:
                advance(n, pairs)
                if on_layer is not None:
                    on_layer(n, pairs)

            run = run_layers(("twoplayer", rules, shapes), step, work, jnp.zeros((1, 1), dtype), (), chunk=chunk, mesh=mesh,
                             begin_layer=begin_layer, end_layer=end_layer, on_layer=told)
    else:
        run = run_layers(("twoplayer", rules, shapes), step, work, jnp.zeros((1, 1), dtype), (), chunk=chunk, mesh=mesh,
                         begin_layer=begin_layer, end_layer=end_layer, on_layer=on_layer)
    if held["operand"] is not None:
        held["operand"].delete()
    device = ", ".join(str(d) for d in mesh.devices.flat)
    return TwoPlayerTables(rules, tie, sheets, plans, layers, run.seconds, run.compile_seconds, device, run.timings)


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


# ----------------------------------------------------------------------------- simulation


@dataclass
class Played:
    """Games played by both players' optimal strategies from a solve's start: ``lead`` the
    starter's final lead, ``score`` what each game is worth to the starter under the tie rule
    (1 won, the tie's value, 0 lost)."""

    lead: np.ndarray
    score: np.ndarray
    tie: str

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


def simulate(table: TwoPlayerTables, games: int, seed: int = 0) -> Played:
    """``games`` games from the solve's start (both sheets as prefilled, upper 0, lead 0), both
    players choosing by the table (every layer kept): each keep and box the best for the
    player to move (ties to writing, then to the first keep or box). Vectorised over games; the
    positions of a turn are computed once each (``np.unique``)."""
    from jaxsolve.games.category.simulate import throw_of

    rules = table.rules
    if any(layer is None for layer in table.layers[table.plans[0].n:]):
        raise JaxsolveError("simulated play needs every layer (solve with keep='all')")
    if rules.has_instant_bonus:
        raise JaxsolveError("simulated two-player play does not take instant bonuses")
    if games < 1:
        raise JaxsolveError(f"games must be >= 1, got {games}")
    sp = tables.space(rules.dice)
    n_dice = rules.dice
    rng = np.random.default_rng(seed)
    subkeeps = np.asarray(sp.subkeeps)
    keep_counts = np.asarray(sp.keeps)

    def roll(kept):
        m = n_dice - kept.sum(1)
        faces = rng.integers(0, 6, (len(m), n_dice))
        return throw_of(faces, np.arange(n_dice)[None, :] < m[:, None], kept).astype(np.int64)

    start = [table.sheets[k].find(table.sheets[k].prefilled, 0, 0, rules) for k in (0, 1)]
    mover = np.full(games, start[0], np.int64)  # positions in the sheet lists of the layer's players
    other = np.full(games, start[1], np.int64)
    lead = np.zeros(games, np.int64)
    for p in table.plans[:-1]:
        mine = table.sheets[p.mover]
        nxt = np.zeros(games, np.int64)
        gained = np.zeros(games, np.int64)
        keys, inverse = np.unique(np.stack([mover, other, lead]), axis=1, return_inverse=True)
        inverse = inverse.reshape(-1)
        for b0 in range(0, keys.shape[1], SIM_BLOCK):
            block = keys[:, b0: b0 + SIM_BLOCK]
            mv, final, keeps = _turn_arrays(table, p, block[0], block[1], block[2])
            g = np.flatnonzero((inverse >= b0) & (inverse < b0 + block.shape[1]))
            ug = inverse[g] - b0
            x = roll(np.zeros((len(g), 6), np.int64))
            for left in range(rules.throws - 1, 0, -1):
                subs = subkeeps[x]
                kv = keeps[left - 1][subs, ug[:, None]]
                go = final[:, x, ug].max(0) < kv.max(1)
                if go.any():
                    pick = subs[np.arange(len(g)), kv.argmax(1)]
                    x[go] = roll(keep_counts[pick[go]])
            box = final[:, x, ug].argmax(0)
            gained[g] = np.asarray(mv.score(False))[box, x, ug]
            nxt[g] = mine.index[np.asarray(mv.next_state)[box, x, ug]]
        mover, other, lead = other, nxt, -(lead + gained)
    score = np.where(lead > 0, 1.0, np.where(lead == 0, TIES[table.tie], 0.0))
    return Played(lead, score, table.tie)
