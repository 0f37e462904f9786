"""Category games with saved throws: throws a turn leaves unused are kept for later turns.

The official Maxi Yatzy rule: each turn brings ``rules.throws`` new throws, the first throw of
a turn is compulsory, and a box may be filled after any throw; the throws not used are saved
and added to a later turn. Here at most ``max_saved`` throws may be carried into a turn (throws
saved beyond that are lost; ``max_saved=0`` is the game without saving). The number of saved
throws becomes a state component:

* a state is ``(saved, filled, upper, all_same_held)``. A turn saves at most ``throws - 1`` throws,
  so a state with ``k`` boxes filled is reachable with at most ``min((throws - 1) x k, max_saved)``
  saved throws (``rows_in_layer``); only those rows are computed, the others are NaN;
* a turn that starts with ``s`` saved throws has ``s + throws - 1`` throws left after its first
  throw. With ``r`` throws left, the value of a throw is
  ``W_r = max(fill the best box now -> next state with min(r, max_saved) saved,
  keep some dice and throw the others -> W_{r-1})``, and ``W_0`` = fill now with 0 saved.
  Filling uses the same box options as the engine (``solver.final_throw_values``) with the
  next states read from row ``min(r, max_saved)``; a re-throw is the shared ``dice.reroll``. One
  ``lax.scan`` over ``r`` gives every row of a chunk of states, so the compiled program does
  not grow with ``max_saved``;
* every move fills one box, so a layer of states (``k`` boxes filled) reads only the next
  layer. The solve keeps two layer tables, each ``[rows, masks of the layer x upper totals
  (x 2 flags with all-same rules)]`` (``LayerTable``: masks by their colex rank), not the
  whole ``[max_saved + 1, states]`` table: for Maxi Yatzy's unlimited game a small part of it
  (``working_bytes`` and ``table_bytes`` give the sizes). ``table=True`` gathers the layers into
  the full table on the host.

The layers, chunking, class representatives and sharding are the layered core's, as for the
game without saving (``solver.solve``); ``max_saved=0`` gives the same values.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Callable, cast

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core import dice
from jaxsolve.io import export
from jaxsolve.core.layered import LayerSetup, SplitStep, chunk_for, make_mesh, run_layers
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import table_io, tables
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.rules import CategoryRules, check_objective
from jaxsolve.games.category.engine.solver import Solution, _next_values, final_throw_values, representative_layers
from jaxsolve.core.arrays import float_dtype

MAX_SAVED_LIMIT = 60


def check_max_saved(max_saved: int, rules: CategoryRules) -> int:
    """``max_saved`` (the most throws that may be carried into a turn) as an int, with a clear
    error when it is not one ``rules`` can take."""
    if isinstance(max_saved, bool) or not isinstance(max_saved, (int, np.integer)) or not 0 <= int(max_saved) <= MAX_SAVED_LIMIT:
        raise JaxsolveError(f"the most saved throws must be an integer between 0 and {MAX_SAVED_LIMIT}, got {max_saved!r}")
    if rules.has_instant_bonus:
        raise JaxsolveError("saved throws are not combined with the Im-Hieb first-throw bonus")
    return int(max_saved)


def useful_max_saved(rules: CategoryRules) -> int:
    """The largest number of throws a turn can bring in: (turns - 1) x (throws - 1).

    A ``max_saved`` at least this large never loses a throw: it is the unlimited game.
    """
    return (rules.num_boxes - 1) * (rules.throws - 1)


def rows_in_layer(rules: CategoryRules, max_saved: int, layer: int) -> int:
    """Saved-throw rows a layer can reach: ``min((throws - 1) x layer, max_saved) + 1``.

    A turn saves at most ``throws - 1`` throws, so after ``layer`` turns no more than
    ``(throws - 1) x layer`` are carried; the other rows of a layer are unreachable (NaN).
    """
    return min((rules.throws - 1) * layer, max_saved) + 1


@functools.lru_cache(maxsize=4)
def mask_ranks(num_boxes: int) -> np.ndarray:
    """``[2**boxes]`` int32: each filled mask's position among the masks of its layer.

    Masks of one popcount in increasing order (``tables.layer_states``'s order) are the
    combinations in colexicographic order, so this is their colex rank.
    """
    rank = np.zeros(1 << num_boxes, np.int32)
    for masks in tables._masks_by_layer(num_boxes):
        rank[masks] = np.arange(len(masks), dtype=np.int32)
    return rank


def layer_masks(rules: CategoryRules) -> list[int]:
    """Filled masks in each layer's table (one per layer in forced order)."""
    return [1 if rules.order == "forced" else len(m) for m in tables._masks_by_layer(rules.num_boxes)]


def layer_width(rules: CategoryRules) -> int:
    """Entries per filled mask in a layer table: upper totals x (2 flags with all-same rules, else 1).

    Without all-same rules every state is read at ``all_same_held = 0`` (``tables.canonical``), so
    the flag axis is dropped.
    """
    return (rules.upper_threshold + 1) * (2 if rules.has_all_same_rules else 1)


@jax.tree_util.register_pytree_node_class
class LayerTable:
    """One saved-throw row of a layer's values, read by flat state index (``tables.state_index``).

    ``final_throw_values`` reads every next state by its flat index at its class representative;
    this maps that index to the layer's compact position ``(rank(filled), upper, all_same_held)``,
    so the solve keeps two layers in memory instead of the whole table. ``data`` is the whole
    layer ``[rows, entries]`` and ``row`` the saved-throw row read (an int or a traced scalar):
    the look-up is one gather of ``(row, position)`` pairs. Slicing the row out first would copy
    all of it (tens of MiB for Maxi Yatzy's middle layers) on every fill of every chunk. A
    pytree (data, ranks, row), so it passes into ``jax.lax`` control flow like the flat table.
    """

    def __init__(self, data, ranks, rules: CategoryRules, row=0):
        self.data, self.ranks, self.rules, self.row = data, ranks, rules, row
        self.dtype = data.dtype

    def tree_flatten(self):
        return (self.data, self.ranks, self.row), self.rules

    @classmethod
    def tree_unflatten(cls, rules, children):
        return cls(*children[:2], rules, children[2])

    def __getitem__(self, index):
        width = self.rules.upper_threshold + 1
        all_same_held, rest = index % 2, index // 2
        return self.data[self.row, layer_position(self.ranks, EngineState(rest // width, rest % width, all_same_held), self.rules)]


def layer_position(ranks, state: EngineState, rules: CategoryRules):
    """Position of states in their layer's table (``ranks``: ``mask_ranks``; NumPy or JAX ints)."""
    flags = 2 if rules.has_all_same_rules else 1
    return (ranks[state.filled] * (rules.upper_threshold + 1) + state.upper) * flags + state.all_same_held * (flags - 1)


def state_values(next_rows, ranks, state: EngineState, rules: CategoryRules, rows: int, objective: str = "score"):
    """``[rows, B]`` value of each state with 0 .. rows - 1 saved throws, start of a turn.

    ``next_rows`` ``[rows of the next layer, entries]`` holds the next layer's values
    (``LayerTable`` layout) for 0, 1, ... saved throws; its last row is ``max_saved``'s.
    """
    sp = tables.space(rules.dice)
    top = next_rows.shape[0] - 1

    def table(saved):
        return LayerTable(next_rows, ranks, rules, saved)

    # The next-state look-ups of every row at once, before the loop over the throws left: inside
    # it, a look-up computed apart (``dice.computed``: a conditional on a CPU) would copy the
    # whole next layer, its operand, on every pass.
    nexts = jax.vmap(lambda saved: _next_values(table(saved), state, rules, objective))(jnp.arange(top + 1))

    def fill(saved):
        row = jax.tree_util.tree_map(lambda a: jax.lax.dynamic_index_in_dim(a, saved, keepdims=False), nexts)
        return final_throw_values(table(saved), state, rules, objective, nexts=row)

    def more(fill_now, current, left):  # one more throw left: fill now (saving them) or throw again
        # the re-throw computed apart: fused with the box pick, XLA recomputes parts of its max
        # lattice per gathered element (much slower)
        current = jnp.maximum(fill_now(left), dice.computed(functools.partial(dice.reroll, sp), current))
        return current, dice.throw_mean(sp, current)

    start = fill(0)
    last_left = rows + rules.throws - 2
    if last_left == 0:
        return dice.throw_mean(sp, start)[None]
    # throws left 1 .. top read their own row of the next layer; more throws left than max_saved
    # all fill into max_saved's row, computed once
    own = min(last_left, top)
    current, means = jax.lax.scan(functools.partial(more, fill), start, jnp.arange(1, own + 1))
    if last_left > own:
        at_max = fill(top) if top else start
        current, rest = jax.lax.scan(functools.partial(more, lambda _: at_max), current, jnp.arange(own + 1, last_left + 1))
        means = jnp.concatenate([means, rest])
    return means[rules.throws - 2 :]


def value_step(rules: CategoryRules, objective: str):
    """The per-chunk step: ``(layer rows, (next rows, ranks), rows, *state) -> layer rows`` with
    ``state`` the chunk's ``EngineState`` components (a ``SplitStep``: on several devices, one
    chunk stream each)."""

    def compute(carry, operands, rows, *state):
        del rows
        next_rows, ranks = operands
        return state_values(next_rows, ranks, EngineState(*state), rules, carry.shape[0], objective).T

    def write(carry, operands, rows, states, v):
        del rows
        return carry.at[:, layer_position(operands[1], EngineState(*states), rules)].set(v.T)

    return SplitStep(compute, write)


@dataclass
class SavedSolution(Solution):
    """Values of a category game with up to ``max_saved`` saved throws.

    ``values`` has shape ``[max_saved + 1 saved, 2**boxes filled, upper_threshold + 1, 2 all_same_held]``, NaN at
    unreachable states (as ``solver.Solution``, one row per number of saved throws; a state with
    ``k`` boxes filled is reachable with at most ``(throws - 1) x k`` saved throws). A solve
    with ``table=False`` keeps only the game value: ``values`` is None.
    """

    max_saved: int = 0
    start_value: float = float("nan")

    @property
    def game_value(self) -> float:
        """Value of the start: empty sheet, nothing saved."""
        return float(self.values[0, 0, 0, 0]) if self.values is not None else self.start_value

    def value(self, filled: int = 0, upper: int = 0, all_same_held: int = 0, saved: int = 0) -> float:
        if self.values is None:
            raise JaxsolveError("this saved-throw solve kept the game value only (solved with table=False)")
        if not 0 <= int(saved) <= self.max_saved:
            raise JaxsolveError(f"saved throws must be between 0 and max_saved {self.max_saved}, got {saved}")
        if not 0 <= int(filled) < 1 << self.rules.num_boxes or upper < 0 or all_same_held not in (0, 1):
            raise JaxsolveError(f"not a state: filled={filled}, upper={upper}, all_same_held={all_same_held}")
        return float(self.values[int(saved), int(filled), min(int(upper), self.rules.upper_threshold), int(all_same_held)])


def defined_mask(rules: CategoryRules, max_saved: int) -> np.ndarray:
    """``[max_saved + 1] + state shape`` bool: where a saved-throw table holds a value (NaN elsewhere)."""
    layers = tables.popcount(np.arange(1 << rules.num_boxes))
    reach = np.arange(max_saved + 1)[:, None] <= (rules.throws - 1) * layers[None, :]
    return table_io.reachable_mask(rules)[None] & reach[:, :, None, None]


def layer_bytes(rules: CategoryRules, max_saved: int, dtype="float32") -> dict[int, int]:
    """Bytes of each layer's table in the solve (``rows_in_layer`` x masks x ``layer_width``)."""
    masks = layer_masks(rules)
    item = np.dtype(dtype).itemsize
    return {k: rows_in_layer(rules, max_saved, k) * masks[k] * layer_width(rules) * item for k in range(rules.num_boxes + 1)}


def working_bytes(rules: CategoryRules, max_saved: int, dtype="float32") -> int:
    """The solve's largest pair of adjacent layer tables: what it holds besides one chunk's work."""
    sizes = layer_bytes(rules, max_saved, dtype)
    return max(sizes[k] + sizes[k + 1] for k in range(rules.num_boxes))


def table_bytes(rules: CategoryRules, max_saved: int, dtype="float32") -> int:
    """Bytes of the whole value table for ``max_saved`` (what ``table=True`` returns and an export holds)."""
    return (max_saved + 1) * rules.num_states * np.dtype(dtype).itemsize


def available_memory() -> int | None:
    """Bytes of memory available to new allocations (Linux ``MemAvailable``; None elsewhere)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def check_table_fits(rules: CategoryRules, max_saved: int, dtype="float32", copies: int = 1) -> None:
    """A clear error, before any work, when ``copies`` full tables do not fit the host's memory."""
    need, free = copies * table_bytes(rules, max_saved, dtype), available_memory()
    if free is not None and need > free:
        raise JaxsolveError(
            f"the whole table with up to {max_saved} saved throws needs {need / 2**30:.1f} GiB of host memory, {free / 2**30:.1f} GiB available; "
            "solve without an export for the game value (two layers at a time), or with fewer saved throws"
        )


def solve(
    rules: CategoryRules,
    max_saved: int,
    objective: str = "score",
    *,
    dtype=None,
    chunk: int = 1024,
    device=None,
    devices=None,
    table: bool = True,
    on_layer: Callable[[int, int], None] | None = None,
) -> SavedSolution:
    """Solve ``rules`` with up to ``max_saved`` saved throws by backward induction.

    Layer by layer from the full sheet back: the solve holds only the layer it computes and the
    one after it (``working_bytes``), each with its reachable saved-throw rows. ``table``: also
    gather every layer into the full value table on the host (``table_bytes``; needed for
    ``value`` and an export), else keep only the game value.

    ``devices``: shard every chunk over a mesh of these devices (an int: the first n visible,
    a list of devices); ``device``: one device (JAX's default if both are None).
    """
    max_saved = check_max_saved(max_saved, rules)
    check_objective(objective)
    dtype = jnp.dtype(float_dtype(dtype))
    nb, width = rules.num_boxes, layer_width(rules)
    masks = layer_masks(rules)
    mesh = make_mesh(devices) if devices is not None else None
    if mesh is None:
        device = device or jax.devices()[0]
    home = device if mesh is None else mesh.devices.flat[0]
    chunk = chunk_for(home, chunk)
    ranks_np = mask_ranks(nb)
    if table:
        check_table_fits(rules, max_saved, dtype)
    out = np.full((max_saved + 1, rules.num_states), np.nan, dtype) if table else None
    if out is not None:
        full = tables.state_index(rules.full_mask, np.arange(rules.upper_threshold + 1)[:, None], np.arange(2)[None, :], rules).reshape(-1)
        out[: rows_in_layer(rules, max_saved, nb), full] = 0.0
    with jax.default_device(home):
        ranks = jnp.asarray(ranks_np)
        last = jnp.zeros((rows_in_layer(rules, max_saved, nb), masks[nb] * width), dtype)

    def begin_layer(layer, carry):
        with jax.default_device(home):
            rows = jnp.full((rows_in_layer(rules, max_saved, layer.index), masks[layer.index] * width), jnp.nan, dtype)
        return LayerSetup(rows, (carry, ranks), chunk)

    def end_layer(layer, carry):
        if out is not None:
            f, u, h = (a.astype(np.int64) for a in tables.layer_states(rules, layer.index))
            rep = tables.canonical(EngineState(f, u, h), rules)
            pos = layer_position(ranks_np, rep, rules)
            out[: carry.shape[0], tables.state_index(f, u, h, rules)] = np.asarray(carry)[:, pos]
        return carry

    run = run_layers(
        ("category-saved", rules, max_saved, objective), value_step(rules, objective), representative_layers(rules), last, (),
        chunk=chunk, mesh=mesh, device=device, begin_layer=begin_layer, end_layer=end_layer, on_layer=on_layer,
    )
    start = float(run.carry[0, 0])
    where = ", ".join(str(d) for d in mesh.devices.flat) if mesh is not None else str(device)
    values = out.reshape((max_saved + 1,) + rules.state_shape) if out is not None else None
    # values None (table=False: the game value alone) as the class documents
    return SavedSolution(rules, objective, cast(np.ndarray, values), run.seconds, run.compile_seconds, where, run.timings, max_saved=max_saved, start_value=start)


# ----------------------------------------------------------------------------- export


def metadata(sol: SavedSolution, game: str) -> dict:
    """The sidecar of a saved-throw table: the category metadata plus the saved axis and ``max_saved``."""
    base = table_io.metadata(Solution(sol.rules, sol.objective, sol.values[0], sol.solve_seconds, sol.compile_seconds, sol.device), game)
    base["axes"] = [{"name": "saved", "size": sol.max_saved + 1, "meaning": f"throws saved from earlier turns (0 .. max_saved {sol.max_saved})"}] + base["axes"]
    base["max_saved"] = sol.max_saved
    base["state_moment"] = "start of a turn, before the first throw, with the saved throws carried in"
    return base


def save_solution(path: str | os.PathLike, sol: SavedSolution, *, game: str) -> None:
    """Write ``sol`` atomically with its sidecar (``jaxsolve.io.export``)."""
    if sol.values is None:
        raise JaxsolveError("this saved-throw solve kept the game value only: solve with table=True to export it")
    export.save(path, sol.values, metadata(sol, game))


def load_solution(path: str | os.PathLike, *, game: str) -> SavedSolution:
    """Read a saved-throw export back, with every check of ``table_io.load_solution`` plus ``max_saved``.

    The sidecar must carry ``max_saved`` (an export without it is a table of the game without
    saving: load it with ``table_io.load_solution``), the array's shape must be
    ``[max_saved + 1] + rules' state shape`` and NaN exactly at the unreachable states of every row.
    """
    values, meta = export.load(path, game=game)
    max_saved = meta.get("max_saved")
    if isinstance(max_saved, bool) or not isinstance(max_saved, int) or not 0 <= max_saved <= MAX_SAVED_LIMIT:
        raise JaxsolveError(f"{export.sidecar_path(path)}: no valid 'max_saved'; not a saved-throw table")
    rules = export.rules_from(path, meta, CategoryRules)
    objective = table_io.stored_objective(path, meta)
    defined = defined_mask(rules, max_saved)
    export.check_array(path, values, shape=(max_saved + 1,) + rules.state_shape, dtypes=("float32", "float64"), defined=defined, low=0.0, what=f"rules {rules.name}, max_saved {max_saved}")
    return SavedSolution(rules, objective, np.asarray(values), *table_io.run_facts(meta), max_saved=max_saved)
