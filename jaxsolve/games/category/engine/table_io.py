"""Value tensors of category games (Kniffel, Yatzy, ...) as ``.npy`` exports, read back with every check.

The sidecar names the registered game (``jaxsolve.games``); every game whose rules are
``CategoryRules`` shares this format.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from jaxsolve.io import cache, export
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.engine.objective import scalar_names, scalar_objective
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.engine.solver import Solution
from jaxsolve.core.arrays import float_dtype, precision


def _meaning(objective: str) -> str:
    chosen = scalar_objective(objective)
    return chosen.meaning or f"optimal {chosen.value} still to come"


def metadata(sol: Solution, game: str) -> dict:
    cap = sol.rules.upper_threshold
    nb = sol.rules.num_boxes
    return {
        "game": game,
        "rules": sol.rules.to_dict(),
        "objective": sol.objective,
        "value_meaning": _meaning(sol.objective),
        "axes": [
            {
                "name": "filled",
                "size": 1 << nb,
                "meaning": f"{nb}-bit mask of filled boxes; bit b = box b in table order",
                "boxes": list(sol.rules.box_names),
            },
            {"name": "upper", "size": cap + 1, "meaning": f"upper-section total, capped at {cap}"},
            {"name": "all_same_held", "size": 2, "meaning": "1 if the all-same box (all dice showing one face: Yahtzee, Kniffel, Yatzy) holds its points"},
        ],
        "state_moment": "start of a turn, before the first throw",
        "unreachable": "NaN",
        "game_value": sol.game_value,
        "device": sol.device,
        "solve_seconds": round(sol.solve_seconds, 4),
        "compile_seconds": round(sol.compile_seconds, 4),
    }


def save_solution(path: str | os.PathLike, sol: Solution, *, game: str) -> None:
    """Write ``sol``; ``game`` is the registered game it belongs to (the sidecar names it)."""
    export.save(path, sol.values, metadata(sol, game))


@functools.lru_cache(maxsize=8)
def reachable_mask(rules: CategoryRules) -> np.ndarray:
    """``[2**boxes, cap + 1, 2]`` bool: the states a solve gives a value (reachable ones, and
    every slot of the full sheet, which is worth 0); all others are NaN in a solution."""
    mask = np.zeros(tables.state_shape(rules), bool)
    for layer in range(rules.num_boxes):
        f, u, h = tables.layer_states(rules, layer)
        mask[f, u, h] = True
    mask[rules.full_mask] = True
    mask.setflags(write=False)
    return mask


SPOT_STATES = 768
"""States of each of the last two layers recomputed by ``spot_check`` (a fixed sample where a
layer has more; every box is the open one in many of them)."""


def spot_check(path, values: np.ndarray, rules: CategoryRules, objective: str) -> None:
    """Recompute the last two layers (up to ``SPOT_STATES`` states with one open box and as many
    with two, a fixed sample) from ``rules`` with the engine's own turn arithmetic in
    NumPy, each from the table's values of the layer after it, and compare with the table.

    A sidecar rewritten whole (its rules edited, its hashes recomputed) names rules the values
    were not solved for; in the last layers almost every box's points, the bonuses and the
    joker rule show, so such a table is refused. The sample is fixed, so the check's cost does
    not grow with the table."""
    from jaxsolve.games.category.engine import solver

    flat = np.nan_to_num(values.reshape(-1), nan=0.0)
    tol = 1e-9 if values.dtype == np.float64 else 2e-5
    for open_boxes in (1, 2):
        layer = rules.num_boxes - open_boxes
        if layer < 0:
            break
        f, u, h = tables.layer_states(rules, layer)
        if len(f) > SPOT_STATES:
            pick = np.random.default_rng(layer).choice(len(f), SPOT_STATES, replace=False)
            f, u, h = f[pick], u[pick], h[pick]
        f, u, h = f.astype(np.int64), u.astype(np.int64), h.astype(np.int64)
        got = np.concatenate([  # in parts of 512 states: a few tens of MiB at most
            np.asarray(solver.state_values(flat, tables.EngineState(f[i : i + 512], u[i : i + 512], h[i : i + 512]), rules, objective, xp=np), np.float64)
            for i in range(0, len(f), 512)
        ])
        want = values[f, u, h].astype(np.float64)
        bad = ~(np.abs(got - want) <= tol * np.maximum(1.0, np.abs(want)))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise JaxsolveError(
                f"{path}: the values are not a solution of the rules {rules.name} its sidecar names "
                f"(with {open_boxes} open box{'es' * (open_boxes > 1)}: state filled={int(f[i])} upper={int(u[i])} "
                f"all_same_held={int(h[i])} holds {want[i]:.6f}, the rules give {got[i]:.6f})"
            )


def _presets(game: str):
    """The presets of the registered ``game`` (None for a name the registry does not know)."""
    from jaxsolve import games

    try:
        return games.get_game(game).presets()
    except JaxsolveError:
        return None


def load_solution(path: str | os.PathLike, *, game: str, rules: CategoryRules | None = None, objective: str | None = None, dtype: str | None = None, verify: bool = True) -> Solution:
    """Read a category-game export back as a ``Solution`` (``.value(filled, upper, all_same_held)``).

    Checks (``jaxsolve.io.export``): the sidecar's own hash, the sidecar and the array agree (size,
    SHA-256, shape, dtype), the sidecar is a value table of the registered game ``game`` (and,
    where given, of exactly these ``rules``, ``objective`` and ``dtype``: ``check_binding``)
    with valid rules and objective, the array's shape is the rules' state shape, its dtype
    float32 or float64, NaN exactly at the unreachable states, finite and >= 0 everywhere else,
    and (``verify``) the last two layers recomputed from the rules (``spot_check``).
    Any failure is a ``JaxsolveError``.
    """
    meta = export.read_metadata(path) if Path(path).is_file() else None
    if meta is not None:
        export.check_binding(path, meta, game=game, rules=rules, objective=objective, dtype=dtype)
    values, meta = export.load(path, game=game)
    rules = export.rules_from(path, meta, CategoryRules)
    export.check_preset_name(path, game, rules, _presets(game))
    objective = stored_objective(path, meta)
    export.check_array(
        path, values, shape=tables.state_shape(rules), dtypes=("float32", "float64"), defined=reachable_mask(rules), low=0.0, what=f"rules {rules.name}"
    )
    if verify:
        spot_check(path, values, rules, objective)
    return Solution(rules, objective, np.asarray(values), *run_facts(meta))


def stored_objective(path: str | os.PathLike, meta: dict) -> str:
    """The sidecar's objective, if a score table can be solved for it (a registered scalar one)."""
    objective = meta.get("objective")
    if objective not in scalar_names():
        raise JaxsolveError(f"{export.sidecar_path(path)}: objective {objective!r} is not one of {', '.join(scalar_names())}")
    return objective


def run_facts(meta: dict) -> tuple[float, float, str]:
    """``(solve seconds, compile seconds, device)`` as a sidecar records them (0 and "" where
    it does not, or not as numbers and text)."""
    seconds = [meta.get(k, 0.0) for k in ("solve_seconds", "compile_seconds")]
    solve, compile_ = (float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0 for x in seconds)
    device = meta.get("device", "")
    return solve, compile_, device if isinstance(device, str) else ""


def cached(rules: CategoryRules, objective: str = "score", *, game: str | None, dtype="float64") -> Solution | None:
    """The solution cache's table of ``rules``/``objective`` in ``dtype`` for the registered
    ``game`` if it holds a valid one, else None (also when ``game`` is None): ``solved``
    without solving (and without importing JAX)."""
    from jaxsolve.games.category.sheets.rules import check_objective

    check_objective(objective)
    if game is None:
        return None
    name = np.dtype(dtype).name
    return cache.cached(game, rules, objective=objective, dtype=name, load=lambda path: load_solution(path, game=game, rules=rules, objective=objective, dtype=name))


def layer_progress(rules: CategoryRules, progress):
    """``on_layer(layer, n)`` for ``solver.solve`` that calls ``progress(layers done, layers)``
    (None for None)."""
    if progress is None:
        return None
    sizes = {k: len(tables.representative_states(rules, k)[0]) for k in range(rules.num_boxes)}
    done: dict = {}

    def on_layer(layer, n):
        done[layer] = done.get(layer, 0) + n
        progress(sum(done.get(k, 0) >= size for k, size in sizes.items()), len(sizes))

    return on_layer


def _solve(rules, objective, name, device):
    """The solve of a table the cache lacks, with a bar of layers on stderr (none where the
    cache says nothing: ``--quiet``)."""
    from jaxsolve.core.progress import steps_bar
    from jaxsolve.games.category.engine import solver

    with precision(name), steps_bar(rules.num_boxes, f"solving {rules.name}, layers", quiet=not cache.talks()) as steps:
        sol = solver.solve(rules, objective, dtype=name, device=device, on_layer=layer_progress(rules, steps))
    if sol.values.dtype != np.dtype(name):
        raise JaxsolveError(f"the solve returned a {sol.values.dtype} table where {name} was asked for")
    return sol


def solved(rules: CategoryRules, objective: str = "score", *, game: str | None, dtype=None, device=None) -> Solution:
    """The solved table of ``rules``/``objective`` in ``dtype`` (default: ``arrays.float_dtype``):
    from the solution cache of the registered ``game`` (``jaxsolve.io.cache``), or solved and
    stored there; with ``game`` None solved without the cache (the caller names no game)."""
    from jaxsolve.games.category.sheets.rules import check_objective

    check_objective(objective)
    name = np.dtype(dtype).name if dtype is not None else float_dtype().name
    if game is None:
        return _solve(rules, objective, name, device)
    return cache.solved(
        game, rules, objective=objective, dtype=name,
        solve=lambda: _solve(rules, objective, name, device),
        save=lambda path, sol: save_solution(path, sol, game=game),
        load=lambda path: load_solution(path, game=game, rules=rules, objective=objective, dtype=name),
        values=lambda sol: sol.values,
    )


def _forget_masks(key=None, sol=None) -> None:
    """Drop the kept ``reachable_mask`` arrays when the solution store lets go of a table."""
    reachable_mask.cache_clear()


cache.on_forget(_forget_masks)
