"""Category games with saved throws: throws a turn leaves unused are kept for later turns.

The official Maxi Yatzy rule: each turn brings ``rules.rolls`` new throws, the first throw of
a turn is compulsory, and a box may be filled after any throw; the throws not used are saved
and added to a later turn. Here at most ``cap`` throws may be carried into a turn (throws
saved beyond the cap are lost; ``cap=0`` is the game without saving). The number of saved
throws becomes a state component:

* a state is ``(saved, filled, upper, holds50)``; its value table is ``[cap + 1, states]`` with
  the category engine's flat state layout (``tables.state_index``) in each row;
* a turn that starts with ``s`` saved throws has ``s + rolls - 1`` throws left after its first
  throw. With ``r`` throws left, the value of a throw is
  ``W_r = max(fill the best box now -> next state with min(r, cap) saved,
  keep some dice and throw the others -> W_{r-1})``, and ``W_0`` = fill now with 0 saved.
  Filling uses the same box options as the engine (``solver.final_throw_values``) with the
  next states read from row ``min(r, cap)``; a re-throw is the shared ``dice.reroll``;
* all ``cap + 1`` rows of one layer of (filled, upper, holds50) states come out of one pass over
  ``r = 0 .. cap + rolls - 1``, so a larger cap costs ``cap + rolls - 1`` re-throw levels and
  ``cap + 1`` box-option evaluations per state instead of ``rolls - 1`` and one.

The layers, chunking, class representatives and sharding are the layered core's, exactly as
for the game without saving (``solver.solve``); ``cap=0`` gives the same values.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve import dice, export
from jaxsolve.core.layered import make_mesh, run_layers
from jaxsolve.errors import JaxsolveError
from jaxsolve.kniffel import store, tables
from jaxsolve.kniffel.rules import OBJECTIVES, CategoryRules, check_objective
from jaxsolve.kniffel.solver import Solution, final_throw_values, representative_layers

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


def state_values(values, filled, upper, holds50, rules: CategoryRules, cap: int, objective: str = "score"):
    """``[cap + 1, B]`` value of each state with 0 .. cap saved throws, start of a turn.

    ``values`` is the ``[cap + 1, states]`` table with every later layer filled in.
    """
    sp = tables.space(rules.dice)
    fill = [final_throw_values(values[s], filled, upper, holds50, rules, objective) for s in range(cap + 1)]
    current = fill[0]
    out = []
    for left in range(cap + rules.rolls):
        if left:
            current = jnp.maximum(fill[min(left, cap)], dice.reroll(sp, current))
        if left >= rules.rolls - 1:
            out.append(dice.throw_mean(sp, current))
    return jnp.stack(out)


def value_step(rules: CategoryRules, cap: int, objective: str):
    """The per-chunk step: ``(values, (), rows, filled, upper, holds50) -> values``."""

    def step(values, operands, rows, filled, upper, holds50):
        del operands, rows
        v = state_values(values, filled, upper, holds50, rules, cap, objective)
        return values.at[:, tables.state_index(filled, upper, holds50, rules)].set(v)

    return step


@dataclass
class SavedSolution(Solution):
    """Values of every state of a category game with up to ``cap`` saved throws.

    ``values`` has shape ``[cap + 1 saved, 2**boxes filled, cap_upper + 1, 2 holds50]``; NaN at
    unreachable states (as ``solver.Solution``, one row per number of saved throws).
    """

    cap: int = 0

    @property
    def game_value(self) -> float:
        """Value of the start: empty sheet, nothing saved."""
        return float(self.values[0, 0, 0, 0])

    def value(self, filled: int = 0, upper: int = 0, holds50: int = 0, saved: int = 0) -> float:
        if not 0 <= int(saved) <= self.cap:
            raise JaxsolveError(f"saved throws must be between 0 and the cap {self.cap}, got {saved}")
        if not 0 <= int(filled) < 1 << self.rules.num_boxes or upper < 0 or holds50 not in (0, 1):
            raise JaxsolveError(f"not a state: filled={filled}, upper={upper}, holds50={holds50}")
        return float(self.values[int(saved), int(filled), min(int(upper), self.rules.upper_threshold), int(holds50)])


def table_bytes(rules: CategoryRules, cap: int, dtype="float32") -> int:
    """Bytes of the value table for ``cap``."""
    return (cap + 1) * rules.num_states * np.dtype(dtype).itemsize


def solve(
    rules: CategoryRules,
    cap: int,
    objective: str = "score",
    *,
    dtype=None,
    chunk: int = 1024,
    device=None,
    devices=None,
    on_layer: Callable[[int, int], None] | None = None,
) -> SavedSolution:
    """Solve ``rules`` with up to ``cap`` saved throws by backward induction.

    ``devices``: shard every chunk over a mesh of these devices (an int: the first n visible,
    a list of devices); ``device``: one device (JAX's default if both are None).
    """
    cap = check_cap(cap, rules)
    check_objective(objective)
    dtype = jnp.dtype(dtype or (jnp.float64 if jax.config.jax_enable_x64 else jnp.float32))
    full = tables.state_index(rules.full_mask, np.arange(rules.upper_threshold + 1)[:, None], np.arange(2)[None, :], rules).reshape(-1)
    mesh = make_mesh(devices) if devices is not None else None
    if mesh is None:
        device = device or jax.devices()[0]
    with jax.default_device(device if mesh is None else mesh.devices.flat[0]):
        table = jnp.full((cap + 1, rules.num_states), jnp.nan, dtype).at[:, full].set(0.0)
    run = run_layers(
        ("kniffel-saved", rules, cap, objective),
        value_step(rules, cap, objective),
        representative_layers(rules),
        table,
        chunk=chunk,
        mesh=mesh,
        device=device,
        on_layer=on_layer,
    )
    del table
    seconds, compile_seconds, timings = run.seconds, run.compile_seconds, run.timings
    table, run = run.carry, None
    targets, sources = (jnp.asarray(a) for a in tables.class_copies(rules))
    for row in range(cap + 1):  # one row at a time: the gather's temporary is one row's copies
        table = _copy_classes(table, jnp.int32(row), targets, sources)
    out = np.asarray(table)  # a view of the computed table on the CPU, no second copy
    where = ", ".join(str(d) for d in mesh.devices.flat) if mesh is not None else str(device)
    return SavedSolution(rules, objective, out.reshape((cap + 1,) + rules.state_shape), seconds, compile_seconds, where, timings, cap=cap)


@functools.partial(jax.jit, donate_argnums=0)
def _copy_classes(table, row, targets, sources):
    """Row ``row`` of the table with every non-representative state given its representative's value."""
    return table.at[row, targets].set(table[row, sources])


# ----------------------------------------------------------------------------- export


def metadata(sol: SavedSolution, game: str | None = None) -> dict:
    """The sidecar of a saved-throw table: the category metadata plus the saved axis and cap."""
    base = store.metadata(Solution(sol.rules, sol.objective, sol.values[0], sol.solve_seconds, sol.compile_seconds, sol.device), game)
    base["axes"] = [{"name": "saved", "size": sol.cap + 1, "meaning": f"throws saved from earlier turns (0 .. cap {sol.cap})"}] + base["axes"]
    base["saved_cap"] = sol.cap
    base["state_moment"] = "start of a turn, before the first throw, with the saved throws carried in"
    return base


def save_solution(path: str | os.PathLike, sol: SavedSolution, *, game: str | None = None) -> None:
    """Write ``sol`` atomically with its sidecar (``jaxsolve.export``)."""
    export.save(path, sol.values, metadata(sol, game))


def load_solution(path: str | os.PathLike, *, game: str | None = None) -> SavedSolution:
    """Read a saved-throw export back, with every check of ``store.load_solution`` plus the cap.

    The sidecar must carry ``saved_cap`` (an export without it is a table of the game without
    saving: load it with ``store.load_solution``), the array's shape must be
    ``[cap + 1] + rules' state shape`` and NaN exactly at the unreachable states of every row.
    """
    values, meta = export.load(path, game=game)
    if meta.get("game") not in store.category_games():
        raise JaxsolveError(f"{path} holds a {meta.get('game')!r} export, not a category game")
    cap = meta.get("saved_cap")
    if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= MAX_CAP:
        raise JaxsolveError(f"{export.sidecar_path(path)}: no valid 'saved_cap'; not a saved-throw table")
    rules = export.rules_from(path, meta, CategoryRules)
    objective = meta.get("objective")
    if objective not in OBJECTIVES:
        raise JaxsolveError(f"{export.sidecar_path(path)}: objective {objective!r} is not one of {', '.join(OBJECTIVES)}")
    defined = np.broadcast_to(store.reachable_mask(rules), (cap + 1,) + rules.state_shape)
    export.check_array(path, values, shape=(cap + 1,) + rules.state_shape, dtypes=("float32", "float64"), defined=defined, low=0.0, what=f"rules {rules.name}, cap {cap}")
    seconds = [meta.get(k, 0.0) for k in ("solve_seconds", "compile_seconds")]
    seconds = [float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0 for x in seconds]
    return SavedSolution(rules, objective, np.asarray(values), seconds[0], seconds[1], str(meta.get("device", "")), cap=cap)
