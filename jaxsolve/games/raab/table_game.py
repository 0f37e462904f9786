"""The Pig family at a table as a registered game (``pig-table``): its ``TableSpec`` for the
N-player race game's hooks and commands (``jaxsolve.games.race_table_game``). JAX-free to import:
the solve imports the engine when called; advise, simulate, play and the loader's check run in
NumPy (``table_simulate``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Param
from jaxsolve.games.race_table_game import TableSpec
from jaxsolve.games.raab.table_rules import PRESETS, PigTableRules

GAME = "pig-table"


def _presets():
    return PRESETS


def _solve(rules: PigTableRules, progress=None, checkpoint=None) -> Any:
    from jaxsolve.games.raab import table

    return table.solve(rules, progress=progress, checkpoint=checkpoint)


def _options(rules: PigTableRules, values: np.ndarray, scores: tuple, turn: int = 0) -> list:
    from jaxsolve.games.raab.table_simulate import turn_options

    return turn_options(rules, values, scores, turn)[::-1]  # the tie rule's order: banking first


def _turn_values(rules: PigTableRules, values: np.ndarray, states: np.ndarray) -> np.ndarray:
    from jaxsolve.games.raab.table_simulate import turn_values

    return turn_values(rules, values, states)


def _simulate(rules: PigTableRules, values: np.ndarray, unsettled: list, games: int, seed: int) -> np.ndarray:
    from jaxsolve.games.raab.table_simulate import simulate

    return simulate(rules, values, unsettled, games, seed)


def _check(rules: PigTableRules, scores: tuple, turn: int = 0) -> None:
    if scores[0] + turn >= rules.goal:
        raise JaxsolveError(f"a turn total of {turn} already reaches the goal {rules.goal}: bank it")


def _turn_text(turn: int = 0) -> str:
    return f"turn total {turn}"


SPEC = TableSpec(
    GAME, PigTableRules, _presets, 1, _solve, _options, _turn_values,
    (Param("turn", int, 0, "Points rolled this turn so far (not yet banked).", min=0, max=100_000),), _turn_text, _check, _simulate,
)
