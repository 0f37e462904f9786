"""Value tensors of category games (Kniffel, Yatzy, ...) as ``.npy`` exports, read back with every check.

The sidecar names the registered game (``jaxsolve.games``); every game whose rules are
``CategoryRules`` shares this format.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from jaxsolve.io import cache, export
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category import tables
from jaxsolve.games.category.rules import OBJECTIVES, CategoryRules
from jaxsolve.games.category.solver import Solution
from jaxsolve.core.arrays import float_dtype


def metadata(sol: Solution, game: str) -> dict:
    cap = sol.rules.upper_threshold
    nb = sol.rules.num_boxes
    return {
        "game": game,
        "rules": sol.rules.to_dict(),
        "objective": sol.objective,
        "value_meaning": (
            "optimal expected final score still to come (bonuses included)"
            if sol.objective == "score"
            else "optimal expected number of boxes still to be filled with their condition met"
        ),
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


def load_solution(path: str | os.PathLike, *, game: str) -> Solution:
    """Read a category-game export back as a ``Solution`` (``.value(filled, upper, all_same_held)``).

    Checks (``jaxsolve.export``): the sidecar and the array agree (size, SHA-256, shape,
    dtype), the sidecar is a value table of the registered game ``game``
    with valid rules and objective, the array's shape is the rules' state shape, its dtype
    float32 or float64, NaN exactly at the unreachable states, finite and >= 0 everywhere else.
    Any failure is a ``JaxsolveError``.
    """
    values, meta = export.load(path, game=game)
    rules = export.rules_from(path, meta, CategoryRules)
    objective = meta.get("objective")
    if objective not in OBJECTIVES:
        raise JaxsolveError(f"{export.sidecar_path(path)}: objective {objective!r} is not one of {', '.join(OBJECTIVES)}")
    export.check_array(
        path, values, shape=tables.state_shape(rules), dtypes=("float32", "float64"), defined=reachable_mask(rules), low=0.0, what=f"rules {rules.name}"
    )
    seconds = [meta.get(k, 0.0) for k in ("solve_seconds", "compile_seconds")]
    seconds = [float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0 for x in seconds]
    device = meta.get("device", "")
    return Solution(rules, objective, np.asarray(values), seconds[0], seconds[1], device if isinstance(device, str) else "")


def cached(rules: CategoryRules, objective: str = "score", *, game: str | None, dtype="float64") -> Solution | None:
    """The solution cache's table of ``rules``/``objective`` in ``dtype`` for the registered
    ``game`` if it holds a valid one, else None (also when ``game`` is None): ``solved``
    without solving (and without importing JAX)."""
    from jaxsolve.games.category.rules import check_objective

    check_objective(objective)
    if game is None:
        return None
    return cache.cached(game, rules, objective=objective, dtype=np.dtype(dtype).name, load=lambda path: load_solution(path, game=game))


def solved(rules: CategoryRules, objective: str = "score", *, game: str | None, dtype=None, device=None) -> Solution:
    """The solved table of ``rules``/``objective`` in ``dtype`` (default: ``arrays.float_dtype``):
    from the solution cache of the registered ``game`` (``jaxsolve.io.cache``), or solved and
    stored there; with ``game`` None solved without the cache (the caller names no game)."""
    from jaxsolve.games.category import solver
    from jaxsolve.games.category.rules import check_objective

    check_objective(objective)
    name = float_dtype(dtype).name
    if game is None:
        return solver.solve(rules, objective, dtype=name, device=device)
    return cache.solved(
        game, rules, objective=objective, dtype=name,
        solve=lambda: solver.solve(rules, objective, dtype=name, device=device),
        save=lambda path, sol: save_solution(path, sol, game=game), load=lambda path: load_solution(path, game=game),
    )
