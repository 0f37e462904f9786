"""A solved race duel (``jaxsolve.core.race``'s solution type), apart from the drivers: it imports
no JAX, so that a solved table is read from the solution cache and answered from with NumPy
alone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Self

import numpy as np


@dataclass(frozen=True, eq=False)
class RaceSolution:
    """A solved race duel: turn-start win probabilities ``start [T, mine, theirs]`` (``T``: who
    started, where the rules tell the players apart) and the run's facts. A game's solution adds
    its own fields and facts (``run_facts``)."""

    rules: Any
    start: np.ndarray
    residual: float
    tol: float
    dtype: str
    device: str
    compile_seconds: float
    solve_seconds: float

    @property
    def game_value(self) -> float:
        """The start player's win probability under optimal play by both."""
        return float(self.start[0, 0, 0])

    def run_facts(self) -> dict:
        return {}

    def facts(self) -> dict:
        """The run's facts as plain JSON values (export sidecars, ``solve --json``)."""
        keys = ("residual", "tol", "dtype", "device")
        return {"game_value": self.game_value, **self.run_facts(), **{k: getattr(self, k) for k in keys}}

    @classmethod
    def of_run(cls, run: Any, *, rules: Any, start: np.ndarray, tol: float, dtype: Any, device: Any, **fields: Any) -> Self:
        """The solution of a driver's run (``solve_sweeps`` or ``solve_layers``: its residual
        and timings), with the game's own ``fields``."""
        return cls(
            rules=rules,
            start=start,
            residual=run.residual,
            tol=float(tol),
            dtype=str(dtype),
            device=str(device),
            compile_seconds=run.compile_seconds,
            solve_seconds=run.solve_seconds,
            **fields,
        )
