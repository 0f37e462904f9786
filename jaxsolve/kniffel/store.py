"""Kniffel value tensors as ``.npy`` exports, and reading them back."""

from __future__ import annotations

import os

import numpy as np

from jaxsolve import export
from jaxsolve.errors import JaxsolveError
from jaxsolve.kniffel.rules import KniffelRules
from jaxsolve.kniffel.solver import Solution


def metadata(sol: Solution) -> dict:
    cap = sol.rules.upper_threshold
    return {
        "game": "kniffel",
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
                "size": 8192,
                "meaning": "13-bit mask of filled boxes; bit b = box b in table order",
                "boxes": list(sol.rules.box_names),
            },
            {"name": "upper", "size": cap + 1, "meaning": f"upper-section total, capped at {cap}"},
            {"name": "holds50", "size": 2, "meaning": "1 if the Kniffel/Yahtzee box holds 50"},
        ],
        "state_moment": "start of a turn, before the first throw",
        "unreachable": "NaN",
        "game_value": sol.game_value,
        "device": sol.device,
        "solve_seconds": round(sol.solve_seconds, 4),
        "compile_seconds": round(sol.compile_seconds, 4),
    }


def save_solution(path: str | os.PathLike, sol: Solution) -> None:
    export.save(path, sol.values, metadata(sol))


def load_solution(path: str | os.PathLike) -> Solution:
    """Read a Kniffel export back as a ``Solution`` (``.value(filled, upper, holds50)``)."""
    values, meta = export.load(path)
    if meta.get("game") != "kniffel":
        raise JaxsolveError(f"{path} holds a {meta.get('game')!r} export, not kniffel")
    rules = KniffelRules.from_dict(meta["rules"])
    sol = Solution(rules, meta["objective"], np.asarray(values), meta.get("solve_seconds", 0.0), meta.get("compile_seconds", 0.0), meta.get("device", ""))
    return sol
