"""The ``target`` objective: maximal probability of scoring at least t more points, for every t.

A state's value is a vector ``V[t] = max P(at least t more points)`` over t = 0..support-1
(``V[t] = 1`` for t <= 0, 0 past the support). A turn is the score turn with the max taken
per target: filling box b after throw x is worth ``V_next[t - reward]``; a keep is worth the
mean over the re-thrown dice of the best throw values (``dice.reroll`` works per trailing
channel, so the per-target max over contained keeps is ``dice.best_subkeep`` unchanged).
A general ``terminal`` (the finished game's vector over t) gives best expected utilities
(docs/target.md).

The work per state is ``keeps x support`` per re-throw (versus ``keeps`` for the score): the
whole Yahtzee table is 4.3 x 10^8 state-target values, computed with each stage of the turn
apart (``stage_targets``) in chunks of 8 states (the measured cost: results/target/).
Layers, chunking, ``max_memory`` and sharding are those of ``distribution.layer_tables`` (the
layered core); ``save_table`` / ``load_table`` export and read every layer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np

from jaxsolve.core import dice
from jaxsolve.core.arrays import namespace
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.objectives.distribution import LayerTables, layer_rows, layer_tables, max_turn_reward, shifted, sub_layer_states, support_lengths
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.core.arrays import float_dtype

DEFAULT_MAX_MEMORY = 2 << 30
DEFAULT_CHUNK = 8
"""States per compiled batch: small enough that a chunk's throws x targets stay in a CPU's
caches (a few MiB); results/target/ has the measured effect of the chunk size."""


def next_rows(rows, mv, xp=None):
    """``[boxes, T, B]``: the row, in the next layer's table, of the state each move leads to:
    ``rows[next_state]`` (a state's row in its layer; -1, a state not held, read as row 0: its
    move is not allowed), or ``rows(mv)`` where the row is computed from the move (the
    two-player game: the pair of the other's sheet and my next sheet)."""
    xp = namespace(xp)
    return rows(mv) if callable(rows) else xp.maximum(rows[mv.next_state], 0)


def _shifted(prev_padded, nrow, shift, width: int, lead: int, xp, columns=None):
    """``[..., width]``: ``prev[nrow, k - shift]`` for k = 0..width-1, ``nrow`` and ``shift`` of
    any one shape, from a table padded by ``lead`` on the left (``distribution.shifted`` under
    JAX; a sliding window in NumPy). ``columns`` (NumPy, ``[B, c]``, ``nrow`` ``[..., B]``):
    only those channels k of each state."""
    if xp is np:
        nrow = np.minimum(nrow, len(prev_padded) - 1)  # a row of another layer: its move is not allowed, not read
        start = np.clip(lead - shift, 0, lead)
        if columns is not None:
            return prev_padded[nrow[..., None], start[..., None] + columns]
        return np.lib.stride_tricks.sliding_window_view(prev_padded, width, axis=1)[nrow, start]
    return shifted(prev_padded, nrow.reshape(-1), shift.reshape(-1), width, lead).reshape(nrow.shape + (width,))


def _box_values(rows, prev_padded, state: EngineState | None, rules: CategoryRules, width: int, first_throw: bool, xp=None, columns=None,
                moves=None, every: bool = False):
    """Each open box's ``[T, B, width]`` after each throw (-1: not allowed), one box at a time:
    the next state's vector shifted by the box's points. ``moves``: the batch's moves where the
    caller has them (``solver.moves`` of ``state`` otherwise); ``every``: also the boxes closed
    in every state of the batch (NumPy skips them)."""
    xp = namespace(xp)
    lead = max_turn_reward(rules)
    if moves is None:
        assert state is not None  # without the moves, the states
        moves = solver.moves(state, rules, xp=xp)
    mv = moves
    reward = mv.score(first_throw).astype(xp.int32)
    nrow = next_rows(rows, mv, xp)
    for b in range(rules.num_boxes):
        if xp is np and not every and not mv.allowed[b].any():
            continue  # NumPy runs eagerly: a box closed in every state of the batch costs nothing
        got = _shifted(prev_padded, nrow[b], reward[b], width, lead, xp, columns)
        if xp is np:
            got[~mv.allowed[b]] = -1.0  # a gathered copy: changed in place
            yield got
        else:
            yield xp.where(mv.allowed[b][..., None], got, -1.0)


class TurnOptions(NamedTuple):
    """Every option of a turn of a batch of states over the channel (``turn_options``):
    ``fill`` ``[boxes, T, B, width]`` filling each box after each throw (-1: not allowed),
    ``fill_first`` the same on the first throw with its instant bonus (None without one),
    ``keep[r - 1]`` ``[K, B, width]`` each keep with r re-throws left, ``moves`` the moves."""

    moves: Any
    fill: Any
    fill_first: Any
    keep: list


def turn_options(rows, prev_padded, state: EngineState | None, rules: CategoryRules, width: int, xp=None, columns=None, moves=None) -> TurnOptions:
    """The options of ``stage_targets``' turn, each apart: every box after every throw and every
    keep at every re-throw level (the advice, the situations and the simulated games of the
    target, win-probability and two-player objectives). Arguments as ``stage_targets`` and
    ``_box_values`` take them."""
    xp = namespace(xp)
    sp = tables.space(rules.dice)
    if moves is None:
        assert state is not None  # without the moves, the states
        moves = solver.moves(state, rules, xp=xp)
    mv = moves

    def fills(first_throw: bool):
        return xp.stack(list(_box_values(rows, prev_padded, state, rules, width, first_throw, xp, columns, mv, every=True)))

    fill = fills(False)
    stage, keep = fill.max(0), []
    for r in range(1, rules.throws):
        keep.append(dice.expect_keeps(sp, stage, xp=xp))
        if r < rules.throws - 1:
            stage = dice.best_subkeep(sp, keep[-1], xp=xp)  # ``dice.reroll``
    return TurnOptions(mv, fill, fills(True) if rules.has_instant_bonus else None, keep)


def _best_final(rows, prev_padded, state, rules, width, first_throw, xp=None, columns=None):
    """``[T, B, width]``: the best box per target, folded box by box (nothing ``[boxes, ...]`` held)."""
    xp = namespace(xp)
    best = None
    for got in _box_values(rows, prev_padded, state, rules, width, first_throw, xp, columns):
        best = got if best is None else xp.maximum(best, got, out=best) if xp is np else xp.maximum(best, got)
    return best


def stage_targets(rows, prev_padded, state: EngineState, rules: CategoryRules, width: int, xp=None, columns=None):
    """``[throws, T, B, width]``: value of each throw with r re-throws left (r = 0..throws-1).

    The one vector turn of the score sheet, over any channel: ``rows`` says where each move
    leads in the next layer's table (``next_rows``), ``prev_padded`` is that table as the
    channel needs it (P(at least t more), a utility, the other player's loss over the lead).
    Traced with JAX, or run eagerly with NumPy (``xp=numpy``, float64: the loaders' check, the
    opponents' response); ``columns`` as ``_shifted`` takes it (NumPy)."""
    sp = tables.space(rules.dice)

    def final(prev_padded, first_throw):
        return _best_final(rows, prev_padded, state, rules, width, first_throw, xp, columns)

    # each stage apart (``dice.computed``): a stage's consumers gather its rows, and XLA would
    # otherwise fuse the stage into each of them and recompute it per gathered row (the 13-box
    # choice six times per re-throw level)
    current = dice.computed(lambda p: final(p, rules.throws == 1), prev_padded, xp=xp)
    out = [current]
    for _ in range(rules.throws - 1):
        current = dice.computed(lambda c: dice.reroll(sp, c, xp=xp), current, xp=xp)
        out.append(current)
    if rules.throws > 1 and rules.has_instant_bonus:
        out[-1] = namespace(xp).maximum(out[-1], dice.computed(lambda p: final(p, True), prev_padded, xp=xp))
    return out


def turn_target(values, rows, prev_padded, state: EngineState, rules: CategoryRules, width: int, xp=None, columns=None):
    """``[B, width]`` target values of a batch of states, clipped to ``values = [lowest, highest]``
    (the terminal's range, which every value lies in: a turn's values are means and maxima of
    the next layer's; clipping takes off the rounding, no 1.0000014 in float32). ``rows``: as
    ``next_rows`` takes it; ``xp`` and ``columns`` as ``stage_targets`` takes them."""
    sp = tables.space(rules.dice)
    got = dice.throw_mean(sp, stage_targets(rows, prev_padded, state, rules, width, xp, columns)[-1], xp=xp)
    return namespace(xp).clip(got, values[0], values[1])


def target_bytes(rules: CategoryRules, width: int, itemsize: int) -> int:
    """Rough device working set of one state of a target chunk (for ``max_memory``)."""
    sp = tables.space(rules.dice)
    return itemsize * (4 * sp.num_throws + 2 * sp.num_keeps) * width


def _pad_target(prev: np.ndarray, lead: int, width: int) -> np.ndarray:
    """``lead`` ones left of the vector (targets already reached), zeros right of it."""
    out = np.pad(prev, ((0, 0), (lead, max(0, width - prev.shape[1]))))
    out[:, :lead] = 1.0
    return out


def _pad_terminal(prev: np.ndarray, lead: int, width: int) -> np.ndarray:
    """``lead`` copies of the vector's first entry left of it: a box worth r takes t to
    ``max(t - r, 0)`` (a general terminal; every layer as wide as the terminal)."""
    return np.concatenate([np.repeat(prev[:, :1], lead, axis=1), prev, np.zeros((len(prev), max(0, width - prev.shape[1])), prev.dtype)], axis=1)


def step_terminal(width: int) -> np.ndarray:
    """The default terminal over ``width`` targets: ``V_end[t] = 1`` for t <= 0, else 0."""
    out = np.zeros(int(width))
    out[0] = 1.0
    return out


def utility_terminal(utility) -> np.ndarray:
    """The terminal of a utility ``u[k]`` over the points k = 0..K scored from here on:
    ``V_end[t] = u[K - t]`` (channel t = K - k), so a state's ``V[K]`` is the best expected
    utility and ``V[K - s]`` that of a player who already has s of those points."""
    return np.asarray(utility, np.float64)[::-1].copy()


def solve_target(
    rules: CategoryRules,
    *,
    dtype=None,
    chunk: int = DEFAULT_CHUNK,
    devices=1,
    max_memory: int | None = DEFAULT_MAX_MEMORY,
    keep: str = "all",
    shapes: str = "auto",
    prefilled: int = 0,
    on_layer: Callable[[int, int], None] | None = None,
    terminal: np.ndarray | None = None,
    start: tuple[int, int, int] | None = None,
) -> LayerTables:
    """``V[t]`` = max P(at least t more points) of every state; options as ``distribution.distribution``.

    ``layers[L][row, t]``; ``.at(filled, upper, all_same_held)[t]``. The chunk shrinks to fit
    ``max_memory`` (default 2 GiB: a state's working set is ~(4 throws + 2 keeps) x support).

    ``terminal``: the value vector of a finished game over the channel t = 0..K (default: the
    step, ``V_end[t] = 1`` for t <= 0 else 0, and each layer cut to the points it can still
    score). A box worth r takes t to ``max(t - r, 0)``, so ``V[t]`` is the best expected
    ``terminal[max(t - points scored from here on, 0)]``; with ``utility_terminal(u)`` that is
    the best expected ``u(points)``. Every layer is then ``K + 1`` wide, and values are clipped
    to the terminal's range.

    A subgame from a position: ``prefilled`` (the boxes already filled) solves every state whose
    filled boxes include them, every upper total and all-same flag, so the position's own state
    is ``.at(prefilled, upper, all_same_held)`` and each ``layers[L]`` holds the layer's
    reachable states of the subgame (``keep='all'``; the current score is not needed: fold it
    into the terminal). ``start`` = (filled, upper, all_same_held) solves only the states a game
    reaches from that state (its upper total and flag carried: a fraction of the subgame, the
    same values); with ``shapes='bucket'`` one compiled step serves many positions.
    """
    import jax.numpy as jnp

    dtype = jnp.dtype(float_dtype(dtype))
    if terminal is None:
        return layer_tables(
            "target", turn_target, target_bytes, rules, np.asarray([0.0, 1.0]), _pad_target,
            dtype=dtype, chunk=chunk, devices=devices, max_memory=max_memory, keep=keep, shapes=shapes, prefilled=prefilled, on_layer=on_layer,
            start=start,
        )
    terminal = np.asarray(terminal, np.float64)
    if terminal.ndim != 1 or len(terminal) < 1 or not np.all(np.isfinite(terminal)):
        raise JaxsolveError(f"terminal must be a finite vector over t = 0..K, got shape {terminal.shape}")
    bounds = np.asarray([terminal.min(), terminal.max()])
    out = layer_tables(
        "target", turn_target, target_bytes, rules, bounds, _pad_terminal,
        dtype=dtype, chunk=chunk, devices=devices, max_memory=max_memory, keep=keep, shapes=shapes, prefilled=prefilled, on_layer=on_layer,
        lengths=(len(terminal),) * (rules.num_boxes + 1), last_row=terminal, start=start,
    )
    out.terminal = terminal
    return out


def _layer_width(table: LayerTables, layer: int) -> int:
    """The vector length of ``layer`` (its support, or the terminal's length)."""
    return support_lengths(table.rules)[layer] if table.terminal is None else len(table.terminal)


# ----------------------------------------------------------------------------- export


KINDS = ("target", "distribution")
"""What a stored table holds: ``target`` (``solve_target``: max P(at least t more points)) or
``distribution`` (``distribution.distribution``: P(k more points) under the score-optimal policy)."""


def store_path(game: str, rules: CategoryRules, kind: str = "target") -> Path:
    """Where ``jaxsolve target-table GAME`` (``kind='target'``) or ``jaxsolve distribution-table
    GAME`` (``kind='distribution'``), without ``--out``, keep the whole game's table in the
    solution store (``<cache>/tables/<game>/<rules>-<hash>-<kind>-float32.npy``, its layers
    beside it); ``advise --opponent`` answers ``table`` questions (target) and reads the
    opponents' remaining-score distributions (distribution) from there."""
    from jaxsolve.io import cache

    if kind not in KINDS:
        raise JaxsolveError(f"a stored table is one of {', '.join(KINDS)}, got {kind!r}")
    return cache.entry_path(game, rules, kind, "float32")


_MEANINGS = {
    "target": "max over policies of P(at least t more points) at the start of a turn, t = column",
    "terminal": "max over policies of E[terminal[max(t - points still to come, 0)]], t = column",
    "distribution": "P(exactly k more points) at the start of a turn under the score-optimal policy (ties to the earlier box and to more dice kept), k = column",
}

STORES = ("float32", "uint16")
"""How an export stores the probabilities: ``float32``, or ``uint16`` = round(65535 p) (half
the bytes; error at most 0.5 / 65535 = 7.6e-6 plus float32 rounding, for the step terminal's [0, 1] only)."""
U16 = 65535.0


def save_table(path, table: LayerTables, *, game: str, store: str = "float32") -> list:
    """Write a target or distribution table (``table.kind``, the sidecar's ``objective``), every
    layer: the first (start) layer to ``path``, each later layer ``L`` as the member ``layer_L``
    (``export.save_members``: atomic, one sidecar hashing all), so a reader loads only the
    layers it needs. Returns the paths written. A distribution table is stored in float32 only
    (its P(k more points) are mostly small: float32 keeps 7 significant digits of each, where
    uint16's absolute 7.6e-6 would be a large part of a tail's)."""
    from jaxsolve.io import export

    if store not in STORES:
        raise JaxsolveError(f"store must be one of {', '.join(STORES)}, got {store!r}")
    if table.kind not in KINDS:
        raise JaxsolveError("save_table needs a target table (solve_target) or a distribution table (distribution.distribution)")
    if table.kind == "distribution" and store != "float32":
        raise JaxsolveError("a distribution table is stored in float32")
    if table.start is not None:
        raise JaxsolveError("save_table needs every state of a subgame, not only those reached from one state (solve without start)")
    kept = [k for k, layer in enumerate(table.layers) if layer is not None]
    first = kept[0]
    if kept != list(range(first, table.rules.num_boxes + 1)):
        raise JaxsolveError(f"a {table.kind} table export needs every layer (solve with keep='all')")
    if store == "uint16" and table.terminal is not None and (table.terminal.min() < 0 or table.terminal.max() > 1):
        raise JaxsolveError("uint16 stores probabilities in [0, 1]; this terminal's values are not")

    def stored(a):
        a = np.asarray(a)
        return np.rint(np.clip(a, 0.0, 1.0) * U16).astype(np.uint16) if store == "uint16" else a.astype(np.float32, copy=False)

    rules = table.rules
    prefilled = int(table.prefilled)
    meta = {
        "game": game,
        "rules": rules.to_dict(),
        "objective": table.kind,
        "value_meaning": _MEANINGS["distribution"] if table.kind == "distribution" else _MEANINGS["target"] if table.terminal is None else _MEANINGS["terminal"],
        "store": store,
        "scale": U16 if store == "uint16" else 1.0,
        "solve_dtype": str(np.asarray(table.layers[first]).dtype),
        "prefilled": prefilled,
        "first_layer": first,
        "layer_states": [int(len(table.layers[k])) for k in kept],
        "layer_widths": [int(table.layers[k].shape[1]) for k in kept],
        "terminal": None if table.terminal is None else [float(x) for x in table.terminal],
        "rows": "row r of layer L is the r-th state of tables.layer_states(rules, L) whose filled boxes include prefilled",
        "solve_seconds": float(table.seconds),
        "compile_seconds": float(table.compile_seconds),
        "device": table.device,
    }
    members = {f"layer_{k}": stored(table.layers[k]) for k in kept[1:]}
    return export.save_members(path, stored(table.layers[first]), meta, members)


def store_export(path, *, game: str, rules: CategoryRules | None = None) -> Path:
    """Keep the whole-game export at ``path`` (``target-table --out``) in the solution store as
    well (``store_path``): read and checked in full, written there, noted as checked. Returns
    the stored path."""
    from jaxsolve.io import export

    tab = load_table(path, game=game, rules=rules)
    if tab.prefilled:
        raise JaxsolveError(f"{path} holds a subgame's table; the solution store keeps the whole game's")
    out = store_path(game, tab.rules)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_table(out, tab, game=game, store=str(export.read_metadata(path)["store"]))
    seal_table(out)
    return out


def seal_table(path) -> None:
    """Note every file of the export at ``path`` (in the solution store) as checked, as a full
    check would (``verify.map_array``): for a table this process has just written from its solve."""
    from jaxsolve.io import verify

    verify.seal_export(path)


def load_table(path, *, game: str, rules: CategoryRules | None = None, layers=None, mmap: bool = False, kind: str = "target", recompute: bool = True) -> LayerTables:
    """Read a ``save_table`` export of ``kind`` (``target`` or ``distribution``; the other kind
    is refused), checked: the sidecar's own hash, each layer read against its recorded size and
    SHA-256, the game and (where given) these ``rules``, the layer sizes and widths the rules
    imply, values finite, in the terminal's range and (step terminal) non-increasing in t with
    ``V[0] = 1``; a distribution's rows each summing to 1 (within ``MASS_TOLERANCE``). ``layers``: the layer indices to read (default all);
    the others are ``None``. Probabilities come back as float32 (uint16 stores divided by 65535).

    ``mmap``: each layer memory-mapped read-only (``verify.map_array``), so a question reads only
    the rows it needs; a large file is hashed in full once, then trusted by the note of that
    check where it lies in the solution store (its hash, size and modification time).

    ``recompute`` (the default): every layer read proves itself on every load, note or not
    (``check_sample``): a random sample of its rows (``verify.SAMPLE_ROWS``) is recomputed
    from the rules and the next layer (read for the purpose where not asked for) and compared.
    Off only for tables that no solver wrote (tests of the format)."""
    from jaxsolve.io import export, verify

    if kind not in KINDS:
        raise JaxsolveError(f"a stored table is one of {', '.join(KINDS)}, got {kind!r}")
    p, meta, rules = export.open_table(path, what=f"{kind} table", objective=kind, cls=CategoryRules, game=game, rules=rules)
    side = export.sidecar_path(p)
    export.check_preset_name(p, game, rules, None)
    try:
        store, prefilled, first = str(meta["store"]), int(meta["prefilled"]), int(meta["first_layer"])
        sizes, widths = [int(x) for x in meta["layer_states"]], [int(x) for x in meta["layer_widths"]]
        terminal = None if meta["terminal"] is None else np.asarray(meta["terminal"], np.float64)
    except (KeyError, TypeError, ValueError):
        raise JaxsolveError(f"{side}: not a valid {kind} table sidecar (layers, store or terminal missing)") from None
    nb = rules.num_boxes
    if store not in STORES or not 0 <= first < nb or len(sizes) != nb + 1 - first or len(widths) != len(sizes) or (kind == "distribution" and (store != "float32" or terminal is not None)):
        raise JaxsolveError(f"{side}: not a valid {kind} table sidecar (store, layers or terminal)")
    want_w = support_lengths(rules) if terminal is None else (len(terminal),) * (nb + 1)
    for k, (n, w) in zip(range(first, nb + 1), zip(sizes, widths)):
        if n != len(sub_layer_states(rules, k, prefilled)[0]) or w != want_w[k]:
            raise JaxsolveError(f"{side}: layer {k} is {n} x {w}, the rules give {len(sub_layer_states(rules, k, prefilled)[0])} x {want_w[k]}")
    wanted = range(first, nb + 1) if layers is None else sorted({int(k) for k in layers})
    if any(not first <= k <= nb for k in wanted):
        raise JaxsolveError(f"{p} holds layers {first}..{nb}")
    lo, hi = (0.0, 1.0) if terminal is None else (float(terminal.min()), float(terminal.max()))
    shape = "step" if terminal is None and kind == "target" else "mass" if kind == "distribution" else None
    members: dict = meta["members"] if isinstance(meta.get("members"), dict) else {}

    def read(k: int):
        """Layer ``k``, checked against its record (memory-mapped or read whole) and its range."""
        if mmap:
            record = meta if k == first else members.get(f"layer_{k}")
            if not isinstance(record, dict):
                raise JaxsolveError(f"{side} does not name the member array layer_{k} of this export")
            file = p if k == first else export.member_path(p, f"layer_{k}")

            def check(v: np.ndarray) -> None:
                _check_layer(p, k, _Scaled(v) if store == "uint16" else v, lo, hi, shape)

            a = verify.map_array(file, record, (sizes[k - first], widths[k - first]), store, check, name=export.written_as(p, meta, None if k == first else f"layer_{k}"))
            return _Scaled(a) if store == "uint16" else a
        a = export.load(p, game=game)[0] if k == first else export.load_members(p, meta, (f"layer_{k}",), some=True)[f"layer_{k}"]
        if a.shape != (sizes[k - first], widths[k - first]) or str(a.dtype) != store:
            raise JaxsolveError(f"{p}: layer {k} is {a.dtype} {a.shape}, its sidecar says {store} {(sizes[k - first], widths[k - first])}")
        v = a.astype(np.float32) / np.float32(U16) if store == "uint16" else a
        _check_layer(p, k, v, lo, hi, shape)
        return v

    out: list = [None] * (nb + 1)
    for k in wanted:
        out[k] = read(k)
    table = LayerTables(rules, out, layer_rows(rules, prefilled), kind, float(meta.get("solve_seconds", 0.0)), terminal=terminal, prefilled=prefilled)
    if recompute:
        extra = {k + 1: read(k + 1) for k in wanted if k < nb and out[k + 1] is None}  # the layer a read layer is recomputed from
        check_sample(p, LayerTables(rules, [extra.get(k, v) for k, v in enumerate(out)], table.rows, kind, terminal=terminal, prefilled=prefilled),
                     wanted, store, game=game)
    return table


RECOMPUTE_TOLERANCE = {"float64": 1e-9, "float32": 2e-5, "uint16": 4e-5}
"""How far a stored row may lie from the row recomputed from the next stored layer (in units of
the terminal's largest magnitude, at least 1): the store's rounding of the row and of the next
layer (uint16: 1/131070 each) plus float32 arithmetic in the solve."""


def end_row(table: LayerTables, width: int) -> np.ndarray:
    """The row of every finished game: the terminal, else 1 at t = 0 (P(at least 0 more) and
    P(0 more points)), 0 beyond."""
    return np.asarray(table.terminal, np.float64) if table.terminal is not None else step_terminal(width)


def check_sample(path, table: LayerTables, layers, store: str, *, game: str | None) -> None:
    """The load check of ``jaxsolve.io.verify``: a random sample of rows of every layer in
    ``layers`` recomputed from the rules (the last layer: the end row; every other from the
    next layer of ``table``, ``recompute_rows``; a target table's rows at a random sample of
    their channels, ``verify.sample_columns``) and compared with the stored rows. Deepest first,
    so that a wrong layer is named, not the one above it."""
    from jaxsolve.io import verify

    nb = table.rules.num_boxes
    scale = 1.0 if table.terminal is None else max(1.0, float(np.abs(table.terminal).max()))
    values = _policy_values(table, game) if table.kind == "distribution" and any(k < nb for k in layers) else None
    for k in sorted(layers, reverse=True):
        layer = table.layers[k]
        rows = verify.sample_rows(len(layer))
        stored = np.asarray(layer[rows], np.float64)
        if k == nb:
            got = np.broadcast_to(end_row(table, stored.shape[1]), stored.shape)
        elif table.kind == "target":  # each channel its own max and mean: a sample of channels of each row
            cols = verify.sample_columns(len(rows), stored.shape[1], verify.SAMPLE_COLUMNS)
            stored, got = np.take_along_axis(stored, cols, axis=1), recompute_rows(table, k, rows, columns=cols)
        else:
            got = recompute_rows(table, k, rows, values)
        verify.compare_rows(path, f"layer {k}", stored, got, RECOMPUTE_TOLERANCE[store] * scale)


def _policy_values(table: LayerTables, game: str | None) -> np.ndarray:
    """The expected-score values whose policy a distribution table follows (the float64 table
    of the solution store, solved there if missing)."""
    from jaxsolve.games.category.engine import solutions, table_io

    return solutions.host_values(table_io.solved(table.rules, game=game, dtype="float64"), table.rules, np.float64)


def recompute_rows(table: LayerTables, k: int, rows, values: np.ndarray | None = None, columns: np.ndarray | None = None) -> np.ndarray:
    """``[len(rows), width]`` float64: rows of layer ``k`` computed again in NumPy from the rows of
    layer ``k + 1`` they reach (one turn each: ``turn_target_numpy``, or for a distribution
    table ``distribution.turn_distribution_numpy`` under the policy of ``values``). A target
    table's ``columns`` (``[len(rows), c]``): only those channels of each row, ``[len(rows), c]``."""
    from jaxsolve.games.category.objectives.distribution import _pad_distribution, turn_distribution_numpy

    rules = table.rules
    f, u, h = (np.asarray(x)[np.asarray(rows, np.int64)] for x in sub_layer_states(rules, k, table.prefilled))
    state = EngineState(f.astype(np.int32), u.astype(np.int32), h.astype(np.int32))
    mv = solver.moves(state, rules, xp=np)
    reach = np.unique(np.asarray(mv.next_state)[np.asarray(mv.allowed)])
    local = np.zeros(len(table.rows), np.int64)
    local[reach] = np.arange(len(reach))  # the reached states' rows in ``prev``, gathered from the stored layer
    prev = np.asarray(table.layers[k + 1][table.rows[reach]], np.float64)
    width = _layer_width(table, k)
    lead = max_turn_reward(rules)
    if table.kind == "distribution":
        assert values is not None
        return turn_distribution_numpy(values, local, _pad_distribution(prev, lead, width), state, rules, width)
    lo, hi = (0.0, 1.0) if table.terminal is None else (float(table.terminal.min()), float(table.terminal.max()))
    padded = (_pad_target if table.terminal is None else _pad_terminal)(prev, lead, width)
    return turn_target_numpy(rules, local, padded, state, lo, hi, columns=columns)


def turn_target_numpy(rules: CategoryRules, rows: np.ndarray, padded: np.ndarray, state: EngineState, lo: float, hi: float, c0: int = 0, columns: np.ndarray | None = None) -> np.ndarray:
    """``turn_target`` run in NumPy (float64, eagerly) for a batch of states: ``[B, width - c0]``,
    the channels ``c0..`` of the turn from the next layer's vectors (``padded``: ``_pad_target``
    or ``_pad_terminal``; ``rows``: a state's row there), clipped to ``[lo, hi]``. The channels
    are independent (a max and a mean per target), so ``columns`` (``[B, c]``: channels
    ``c0 + columns`` of each state) computes only those: ``[B, c]``."""
    lead = max_turn_reward(rules)
    width = padded.shape[1] - lead - c0
    return turn_target((lo, hi), rows, np.asarray(padded, np.float64)[:, c0:], state, rules, width, xp=np, columns=columns)


MASS_TOLERANCE = 1e-4
"""How far a stored distribution's row sum may lie from 1 (float32 rounding of up to ~1,600
entries: about 1e-6 at most)."""


def _check_layer(path, k: int, v, lo: float, hi: float, shape: str | None, block: int = 1 << 14) -> None:
    """A layer's values (rows of ``v``, a block at a time) finite and in [lo, hi]; ``shape``
    ``step`` (the step terminal): 1 at t = 0 and non-increasing in t; ``mass`` (a distribution):
    each row summing to 1."""
    for r0 in range(0, len(v), block):
        b = np.asarray(v[r0: r0 + block], np.float32)
        if not np.all(np.isfinite(b)) or b.min(initial=lo) < lo or b.max(initial=hi) > hi:
            raise JaxsolveError(f"{path}: layer {k} holds values outside [{lo}, {hi}]")
        if shape == "step" and b.size and (np.any(np.abs(b[:, 0] - 1.0) > 1e-4) or np.any(np.diff(b, axis=1) > 1e-4)):
            raise JaxsolveError(f"{path}: layer {k} is not a table of P(at least t more points) (not 1 at t = 0 or increasing in t)")
        if shape == "mass" and b.size and np.any(np.abs(b.sum(axis=1, dtype=np.float64) - 1.0) > MASS_TOLERANCE):
            raise JaxsolveError(f"{path}: layer {k} is not a table of P(k more points) (a row does not sum to 1)")


class _Scaled:
    """A memory-mapped uint16 layer read as probabilities: what it gives is float32, / 65535."""

    dtype = np.dtype(np.float32)

    def __init__(self, raw: np.ndarray):
        self.raw = raw
        self.shape = raw.shape

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, index) -> np.ndarray:
        return np.asarray(self.raw[index], np.float32) / np.float32(U16)
