"""The game-independent cores: rules values, layered backward induction, fixpoint iteration.

The rules are imported here; the two JAX cores (``layered``, ``fixpoint``) on first use of one
of their names, so that reading rules values does not load JAX.
"""

import importlib

from jaxsolve.core.rules import Presets, Rules, RulesError

_LAZY = {
    "FixpointResult": "fixpoint",
    "NotConvergedError": "fixpoint",
    "fixpoint": "fixpoint",
    "solve_fixpoint": "fixpoint",
    "Layer": "layered",
    "LayeredRun": "layered",
    "run_layers": "layered",
}

__all__ = [
    "FixpointResult",
    "Layer",
    "LayeredRun",
    "NotConvergedError",
    "Presets",
    "Rules",
    "RulesError",
    "fixpoint",
    "run_layers",
    "solve_fixpoint",
]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(f"jaxsolve.core.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
