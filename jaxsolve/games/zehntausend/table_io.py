"""The export of Zehntausend's ``E(p, n)``: ``.npy`` with a JSON sidecar, and reading it back."""

from __future__ import annotations

import math

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.rules import DICE, PRESETS, STEP, ZehntausendRules
from jaxsolve.games.zehntausend.scoring import build_tables
from jaxsolve.games.zehntausend.solver import Solution


def e_metadata(solution: Solution) -> dict:
    """Metadata for the ``.npy`` export of ``E``."""
    t = solution.tables
    return {
        "game": "zehntausend",
        "rules": solution.rules.to_dict(),
        "value_meaning": "E(p, n): optimal expected final turn score holding p turn points, having decided to throw n dice",
        "axes": [
            {"name": "p", "size": int(solution.E.shape[0]), "meaning": f"turn points p = {STEP} * index"},
            {"name": "n", "size": DICE + 1, "meaning": "dice to throw; 0 = all six used (throw six again or write p)"},
        ],
        "turn_value": solution.turn_value,
        "thresholds": {str(k): v for k, v in solution.thresholds().items()},
        "top_level": solution.top_level,
        "closed_form_from": STEP * solution.top_level,
        "delta": {str(n): str(t.delta(n)) for n in range(1, DICE + 1)},
        "bust_probability": {str(n): str(t.bust_probability(n)) for n in range(1, DICE + 1)},
        "p6_exact": str(t.stop_point(DICE)),
        "dtype": str(solution.E.dtype),
        "device": solution.device,
        "solve_seconds": round(solution.solve_seconds, 5),
        "compile_seconds": round(solution.compile_seconds, 4),
    }


def save_solution(path, solution: Solution):
    """Export ``E`` as ``.npy`` with a JSON sidecar (rules, axes, thresholds, provenance)."""
    from jaxsolve.io import export

    return export.save(path, solution.E, e_metadata(solution))


def load_solution(path) -> Solution:
    """Read an ``E`` export back as a ``Solution`` (for the advisor without re-solving).

    Checks (``jaxsolve.io.export``): the sidecar and the array agree (size, SHA-256, shape,
    dtype), valid rules, a ``top_level`` at or above the self-consistent bound of those rules,
    a float ``[levels, 7]`` array covering every level a set-aside from below the bound can
    reach, finite everywhere, ``E(p, 0) >= p``, and the closed form above the bound.
    """
    from jaxsolve.io import export

    E, meta = export.load(path, game="zehntausend")
    rules = export.rules_from(path, meta, ZehntausendRules)
    export.check_preset_name(path, "zehntausend", rules, PRESETS)
    side = export.sidecar_path(path)
    top_level = meta.get("top_level")
    if not isinstance(top_level, int) or isinstance(top_level, bool) or top_level < 0:
        raise JaxsolveError(f"{side} has no valid top_level (the first level solved in closed form)")
    tables = build_tables(rules)
    bound = math.ceil(tables.top / STEP)
    if top_level < bound:
        raise JaxsolveError(f"{side}: top_level {top_level} is below the self-consistent bound {bound} of rules {rules.name}")
    if not 1 <= top_level <= 1_000_000:
        raise JaxsolveError(f"{side}: top_level {top_level} is out of range")
    levels = E.shape[0] if E.ndim == 2 else -1
    need = top_level + int(tables.opt_points.max()) // STEP + 1
    export.check_array(path, E, shape=(max(levels, need), DICE + 1), dtypes=("float32", "float64"), low=0.0, what=f"rules {rules.name}")
    p = STEP * np.arange(levels, dtype=np.float64)
    tol = 1e-9 if E.dtype == np.float64 else 1e-4
    if (E[:, 0] < p * (1 - tol) - tol).any():
        raise JaxsolveError(f"{path}: E(p, 0) < p somewhere; not a solution")
    closed = np.stack([(1 - float(tables.bust_probability(n))) * p[top_level:] + float(tables.delta(n)) for n in range(1, DICE + 1)], axis=1)
    if not np.allclose(E[top_level:, 1:], closed, rtol=tol, atol=tol * 10):
        raise JaxsolveError(f"{path}: values above the bound differ from the closed form of rules {rules.name}; not a solution of these rules")
    level_check(path, E, rules, tables, top_level, tol)
    seconds = [meta.get(k, 0.0) for k in ("compile_seconds", "solve_seconds")]
    seconds = [float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0 for x in seconds]
    device = meta.get("device", "")
    return Solution(rules, E, top_level, tables, seconds[0], seconds[1], device if isinstance(device, str) else "")


def level_check(path, E: np.ndarray, rules: ZehntausendRules, tables, top_level: int, tol: float) -> None:
    """Refuse a table that is not a solution of ``rules`` (those its sidecar names) below the
    bound: every level ``p < top_level`` is computed again, in float64 NumPy, from the table's
    own values at the levels above it, with the solver's level step (the throws of ``rules``,
    their write and set-aside options), and must match within ``tol`` relative (of
    ``max(1, |E|)``). A sidecar rewritten whole with other scoring rules (e.g. the two-fives
    rule changed, which leaves the closed form as it is) fails here."""
    if top_level == 0:
        return
    from jaxsolve.games.zehntausend.solver import kernel_inputs

    (prob, row_n, write, gather, valid, _, _), _ = kernel_inputs(tables, top_level, E.shape[0], np.float64)
    table = np.asarray(E, np.float64)
    flat = table.reshape(-1)
    levels = np.arange(top_level)
    p = STEP * levels.astype(np.float64)
    window = flat[(levels[:, None, None] + 1) * (DICE + 1) + gather[None]]
    go_on = np.max(np.where(valid[None], window, -np.inf), axis=2)
    turn = np.where(write[None] > 0, np.maximum(p[:, None] + write[None], go_on), 0.0)
    by_n = (row_n[None, :] == np.arange(1, DICE + 1)[:, None]) * prob[None, :]
    e = turn @ by_n.T
    again = np.concatenate([np.maximum(p, e[:, DICE - 1])[:, None], e], axis=1)
    diff = np.abs(again - table[:top_level]) / np.maximum(1.0, np.abs(table[:top_level]))
    if diff.max() > tol:
        level, n = np.unravel_index(int(diff.argmax()), diff.shape)
        raise JaxsolveError(
            f"{path}: the values are not a solution of the rules {rules.name} its sidecar names "
            f"(E({STEP * int(level)}, {int(n)}): {table[level, n]:.4f} held, one level step gives {again[level, n]:.4f})"
        )
