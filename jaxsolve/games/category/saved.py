"""Category games with saved throws: throws a turn leaves unused are kept for later turns.

The official Maxi Yatzy rule: each turn brings ``rules.rolls`` new throws, the first throw of
a turn is compulsory, and a box may be filled after any throw; the throws not used are saved
and added to a later turn. Here at most ``cap`` throws may be carried into a turn (throws
saved beyond the cap are lost; ``cap=0`` is the game without saving). The number of saved
throws becomes a state component:

* a state is ``(saved, filled, upper, holds50)``. A turn saves at most ``rolls - 1`` throws,
  so a state with ``k`` boxes filled is reachable with at most ``min((rolls - 1) x k, cap)``
  saved throws (``rows_in_layer``); only those rows are computed, the others are NaN;
* a turn that starts with ``s`` saved throws has ``s + rolls - 1`` throws left after its first
  throw. With ``r`` throws left, the value of a throw is
  ``W_r = max(fill the best box now -> next state with min(r, cap) saved,
  keep some dice and throw the others -> W_{r-1})``, and ``W_0`` = fill now with 0 saved.
  Filling uses the same box options as the engine (``solver.final_throw_values``) with the
  next states read from row ``min(r, cap)``; a re-throw is the shared ``dice.reroll``. One
  ``lax.scan`` over ``r`` gives every row of a chunk of states, so the compiled program does
  not grow with the cap;
* every move fills one box, so a layer of states (``k`` boxes filled) reads only the next
  layer. The solve keeps two layer tables, each ``[rows, masks of the layer x upper totals
  (x 2 flags with Yahtzee rules)]`` (``LayerTable``: masks by their colex rank), not the
  whole ``[cap + 1, states]`` table: for Maxi Yatzy's uncapped game (cap 38) two layer tables
  take at most 2.45 GiB where the whole table takes 25.9 GiB. ``table=True`` gathers the layers into the full table on the host.

The layers, chunking, class representatives and sharding are the layered core's, as for the
game without saving (``solver.solve``); ``cap=0`` gives the same values.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core import dice
from jaxsolve.io import export
from jaxsolve.core.layered import LayerSetup, make_mesh, run_layers
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category import table_io, tables
from jaxsolve.games.category.rules import OBJECTIVES, CategoryRules, check_objective
from jaxsolve.games.category.solver import Solution, final_throw_values, representative_layers

MAX_CAP = 60


def check_cap(cap: int, rules: CategoryRules) -> int:
    """``cap`` as an int, with a clear error when it is not a saved-throw cap of ``rules``."""
    if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or not 0 <= int(cap) <= MAX_CAP:
        raise JaxsolveError(f"saved-throw cap must be an integer between 0 and {MAX_CAP}, got {cap!r}")
    if rules.has_instant_bonus:
        raise JaxsolveError("saved throws are not combined with the Im-Hieb first-throw bonus")
    return int(cap)


def useful_cap(rules: CategoryRules) -> int:
    """The largest number of throws a turn can bring in: (turns - 1) x (rolls - 1).

    A cap at least this large never loses a throw: it is the uncapped game.
    """
    return (rules.num_boxes - 1) * (rules.rolls - 1)


def rows_in_layer(rules: CategoryRules, cap: int, layer: int) -> int:
    """Saved-throw rows a layer can reach: ``min((rolls - 1) x layer, cap) + 1``.

    A turn saves at most ``rolls - 1`` throws, so after ``layer`` turns no more than
    ``(rolls - 1) x layer`` are carried; the other rows of a layer are unreachable (NaN).
    """
    return min((rules.rolls - 1) * layer, cap) + 1


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
    """Entries per filled mask in a layer table: upper totals x (2 flags with Yahtzee rules, else 1).

    Without Yahtzee rules every state is read at ``holds50 = 0`` (``tables.canonical``), so
    the flag axis is dropped.
    """
    return (rules.upper_threshold + 1) * (2 if rules.has_yahtzee_rules else 1)


class LayerTable:
    """One layer's values ``[states of the layer]`` read by flat state index (``tables.state_index``).

    ``final_throw_values`` reads every next state by its flat index at its class representative;
    this maps that index to the layer's compact position ``(rank(filled), upper, holds50)``,
    so the solve keeps two layers in memory instead of the whole table.
    """

    def __init__(self, data, ranks, rules: CategoryRules):
        self.data, self.ranks, self.rules = data, ranks, rules
        self.dtype = data.dtype

    def __getitem__(self, index):
        width = self.rules.upper_threshold + 1
        holds50, rest = index % 2, index // 2
        return self.data[layer_position(self.ranks, rest // width, rest % width, holds50, self.rules)]


def layer_position(ranks, filled, upper, holds50, rules: CategoryRules):
    """Position of states in their layer's table (``ranks``: ``mask_ranks``; NumPy or JAX ints)."""
    flags = 2 if rules.has_yahtzee_rules else 1
    return (ranks[filled] * (rules.upper_threshold + 1) + upper) * flags + holds50 * (flags - 1)


def state_values(next_rows, ranks, filled, upper, holds50, rules: CategoryRules, rows: int, objective: str = "score"):
    """``[rows, B]`` value of each state with 0 .. rows - 1 saved throws, start of a turn.

    ``next_rows`` ``[rows of the next layer, entries]`` holds the next layer's values
    (``LayerTable`` layout) for 0, 1, ... saved throws; its last row is the cap's.
    """
    sp = tables.space(rules.dice)
    top = next_rows.shape[0] - 1

    def fill(saved):
        row = jax.lax.dynamic_index_in_dim(next_rows, saved, keepdims=False)
        return final_throw_values(LayerTable(row, ranks, rules), filled, upper, holds50, rules, objective)

    def more(fill_now, current, left):  # one more throw left: fill now (saving them) or throw again
        current = jnp.maximum(fill_now(left), dice.reroll(sp, current))
        return current, dice.throw_mean(sp, current)

    start = fill(0)
    last_left = rows + rules.rolls - 2
    if last_left == 0:
        return dice.throw_mean(sp, start)[None]
    # throws left 1 .. top read their own row of the next layer; more throws left than the cap
    # all fill into the cap's row, computed once
    own = min(last_left, top)
    current, means = jax.lax.scan(functools.partial(more, fill), start, jnp.arange(1, own + 1))
    if last_left > own:
        capped = fill(top) if top else start
        current, rest = jax.lax.scan(functools.partial(more, lambda _: capped), current, jnp.arange(own + 1, last_left + 1))
        means = jnp.concatenate([means, rest])
    return means[rules.rolls - 2 :]


def value_step(rules: CategoryRules, objective: str):
    """The per-chunk step: ``(layer rows, (next rows, ranks), rows, filled, upper, holds50) -> layer rows``."""

    def step(carry, operands, rows, filled, upper, holds50):
        del rows
        next_rows, ranks = operands
        v = state_values(next_rows, ranks, filled, upper, holds50, rules, carry.shape[0], objective)
        return carry.at[:, layer_position(ranks, filled, upper, holds50, rules)].set(v)

    return step


@dataclass
class SavedSolution(Solution):
    """Values of a category game with up to ``cap`` saved throws.

    ``values`` has shape ``[cap + 1 saved, 2**boxes filled, cap_upper + 1, 2 holds50]``, NaN at
    unreachable states (as ``solver.Solution``, one row per number of saved throws; a state with
    ``k`` boxes filled is reachable with at most ``(rolls - 1) x k`` saved throws). A solve
    with ``table=False`` keeps only the game value: ``values`` is None.
    """

    cap: int = 0
    start_value: float = float("nan")

    @property
    def game_value(self) -> float:
        """Value of the start: empty sheet, nothing saved."""
        return float(self.values[0, 0, 0, 0]) if self.values is not None else self.start_value

    def value(self, filled: int = 0, upper: int = 0, holds50: int = 0, saved: int = 0) -> float:
        if self.values is None:
            raise JaxsolveError("this saved-throw solve kept the game value only (solved with table=False)")
        if not 0 <= int(saved) <= self.cap:
            raise JaxsolveError(f"saved throws must be between 0 and the cap {self.cap}, got {saved}")
        if not 0 <= int(filled) < 1 << self.rules.num_boxes or upper < 0 or holds50 not in (0, 1):
            raise JaxsolveError(f"not a state: filled={filled}, upper={upper}, holds50={holds50}")
        return float(self.values[int(saved), int(filled), min(int(upper), self.rules.upper_threshold), int(holds50)])


def defined_mask(rules: CategoryRules, cap: int) -> np.ndarray:
    """``[cap + 1] + state shape`` bool: where a saved-throw table holds a value (NaN elsewhere)."""
    layers = tables.popcount(np.arange(1 << rules.num_boxes))
    reach = np.arange(cap + 1)[:, None] <= (rules.rolls - 1) * layers[None, :]
    return table_io.reachable_mask(rules)[None] & reach[:, :, None, None]


def layer_bytes(rules: CategoryRules, cap: int, dtype="float32") -> dict[int, int]:
    """Bytes of each layer's table in the solve (``rows_in_layer`` x masks x ``layer_width``)."""
    masks = layer_masks(rules)
    item = np.dtype(dtype).itemsize
    return {k: rows_in_layer(rules, cap, k) * masks[k] * layer_width(rules) * item for k in range(rules.num_boxes + 1)}


def working_bytes(rules: CategoryRules, cap: int, dtype="float32") -> int:
    """The solve's largest pair of adjacent layer tables: what it holds besides one chunk's work."""
    sizes = layer_bytes(rules, cap, dtype)
    return max(sizes[k] + sizes[k + 1] for k in range(rules.num_boxes))


def table_bytes(rules: CategoryRules, cap: int, dtype="float32") -> int:
    """Bytes of the whole value table for ``cap`` (what ``table=True`` returns and an export holds)."""
    return (cap + 1) * rules.num_states * np.dtype(dtype).itemsize


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


def check_table_fits(rules: CategoryRules, cap: int, dtype="float32", copies: int = 1) -> None:
    """A clear error, before any work, when ``copies`` full tables do not fit the host's memory."""
    need, free = copies * table_bytes(rules, cap, dtype), available_memory()
    if free is not None and need > free:
        raise JaxsolveError(
            f"the whole table of cap {cap} needs {need / 2**30:.1f} GiB of host memory, {free / 2**30:.1f} GiB available; "
            "solve without an export for the game value (two layers at a time), or with a smaller cap"
        )


def solve(
    rules: CategoryRules,
    cap: int,
    objective: str = "score",
    *,
    dtype=None,
    chunk: int = 1024,
    device=None,
    devices=None,
    table: bool = True,
    on_layer: Callable[[int, int], None] | None = None,
) -> SavedSolution:
    """Solve ``rules`` with up to ``cap`` saved throws by backward induction.

    Layer by layer from the full sheet back: the solve holds only the layer it computes and the
    one after it (``working_bytes``), each with its reachable saved-throw rows. ``table``: also
    gather every layer into the full value table on the host (``table_bytes``; needed for
    ``value`` and an export), else keep only the game value.

    ``devices``: shard every chunk over a mesh of these devices (an int: the first n visible,
    a list of devices); ``device``: one device (JAX's default if both are None).
    """
    cap = check_cap(cap, rules)
    check_objective(objective)
    dtype = jnp.dtype(dtype or (jnp.float64 if jax.config.jax_enable_x64 else jnp.float32))
    nb, width = rules.num_boxes, layer_width(rules)
    masks = layer_masks(rules)
    mesh = make_mesh(devices) if devices is not None else None
    if mesh is None:
        device = device or jax.devices()[0]
    home = device if mesh is None else mesh.devices.flat[0]
    ranks_np = mask_ranks(nb)
    if table:
        check_table_fits(rules, cap, dtype)
    out = np.full((cap + 1, rules.num_states), np.nan, dtype) if table else None
    if out is not None:
        full = tables.state_index(rules.full_mask, np.arange(rules.upper_threshold + 1)[:, None], np.arange(2)[None, :], rules).reshape(-1)
        out[: rows_in_layer(rules, cap, nb), full] = 0.0
    with jax.default_device(home):
        ranks = jnp.asarray(ranks_np)
        last = jnp.zeros((rows_in_layer(rules, cap, nb), masks[nb] * width), dtype)

    def begin_layer(layer, carry):
        with jax.default_device(home):
            rows = jnp.full((rows_in_layer(rules, cap, layer.index), masks[layer.index] * width), jnp.nan, dtype)
        return LayerSetup(rows, (carry, ranks), chunk)

    def end_layer(layer, carry):
        if out is not None:
            f, u, h = (a.astype(np.int64) for a in tables.layer_states(rules, layer.index))
            cu, ch = tables.canonical(f, u, h, rules)
            pos = layer_position(ranks_np, f, cu, ch, rules)
            out[: carry.shape[0], tables.state_index(f, u, h, rules)] = np.asarray(carry)[:, pos]
        return carry

    run = run_layers(
        ("kniffel-saved", rules, cap, objective),
        value_step(rules, objective),
        representative_layers(rules),
        last,
        (),
        chunk=chunk,
        mesh=mesh,
        device=device,
        begin_layer=begin_layer,
        end_layer=end_layer,
        on_layer=on_layer,
    )
    start = float(run.carry[0, 0])
    where = ", ".join(str(d) for d in mesh.devices.flat) if mesh is not None else str(device)
    values = out.reshape((cap + 1,) + rules.state_shape) if out is not None else None
    return SavedSolution(rules, objective, values, run.seconds, run.compile_seconds, where, run.timings, cap=cap, start_value=start)


# ----------------------------------------------------------------------------- export


def metadata(sol: SavedSolution, game: str | None = None) -> dict:
    """The sidecar of a saved-throw table: the category metadata plus the saved axis and cap."""
    base = table_io.metadata(Solution(sol.rules, sol.objective, sol.values[0], sol.solve_seconds, sol.compile_seconds, sol.device), game)
    base["axes"] = [{"name": "saved", "size": sol.cap + 1, "meaning": f"throws saved from earlier turns (0 .. cap {sol.cap})"}] + base["axes"]
    base["saved_cap"] = sol.cap
    base["state_moment"] = "start of a turn, before the first throw, with the saved throws carried in"
    return base


def save_solution(path: str | os.PathLike, sol: SavedSolution, *, game: str | None = None) -> None:
    """Write ``sol`` atomically with its sidecar (``jaxsolve.export``)."""
    if sol.values is None:
        raise JaxsolveError("this saved-throw solve kept the game value only: solve with table=True to export it")
    export.save(path, sol.values, metadata(sol, game))


def load_solution(path: str | os.PathLike, *, game: str | None = None) -> SavedSolution:
    """Read a saved-throw export back, with every check of ``table_io.load_solution`` plus the cap.

    The sidecar must carry ``saved_cap`` (an export without it is a table of the game without
    saving: load it with ``table_io.load_solution``), the array's shape must be
    ``[cap + 1] + rules' state shape`` and NaN exactly at the unreachable states of every row.
    """
    values, meta = export.load(path, game=game)
    if meta.get("game") not in table_io.category_games():
        raise JaxsolveError(f"{path} holds a {meta.get('game')!r} export, not a category game")
    cap = meta.get("saved_cap")
    if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= MAX_CAP:
        raise JaxsolveError(f"{export.sidecar_path(path)}: no valid 'saved_cap'; not a saved-throw table")
    rules = export.rules_from(path, meta, CategoryRules)
    objective = meta.get("objective")
    if objective not in OBJECTIVES:
        raise JaxsolveError(f"{export.sidecar_path(path)}: objective {objective!r} is not one of {', '.join(OBJECTIVES)}")
    defined = defined_mask(rules, cap)
    export.check_array(path, values, shape=(cap + 1,) + rules.state_shape, dtypes=("float32", "float64"), defined=defined, low=0.0, what=f"rules {rules.name}, cap {cap}")
    seconds = [meta.get(k, 0.0) for k in ("solve_seconds", "compile_seconds")]
    seconds = [float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0 for x in seconds]
    return SavedSolution(rules, objective, np.asarray(values), seconds[0], seconds[1], str(meta.get("device", "")), cap=cap)
