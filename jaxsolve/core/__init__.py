"""The game-independent cores: rules values, layered backward induction, fixpoint iteration."""

from jaxsolve.core.fixpoint import FixpointResult, NotConvergedError, fixpoint, solve_fixpoint
from jaxsolve.core.layered import Layer, LayeredRun, run_layers
from jaxsolve.core.rules import Presets, Rules, RulesError

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
