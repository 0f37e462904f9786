"""Zehntausend at a table as a registered game (``zehntausend-table``): its ``TableSpec`` for the
N-player race game's hooks and commands (``jaxsolve.games.race_table_game``). JAX-free to import:
the solve imports the engine when called; advise and the loader's check run the turn in NumPy
(``table_numpy``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Param
from jaxsolve.games.race_table_game import TableSpec
from jaxsolve.games.zehntausend.rules import DICE, STEP
from jaxsolve.games.zehntausend.table_rules import PRESETS, TableRules

GAME = "zehntausend-table"


def _presets():
    return PRESETS


def _solve(rules: TableRules, progress=None) -> Any:
    from jaxsolve.games.zehntausend import table

    return table.solve(rules, progress=progress)


def _options(rules: TableRules, values: np.ndarray, scores: tuple, turn: int = 0, dice_left: int = DICE) -> list:
    from jaxsolve.games.zehntausend.table_numpy import turn_options

    return turn_options(rules, values, scores, turn, dice_left)


def _turn_values(rules: TableRules, values: np.ndarray, states: np.ndarray) -> np.ndarray:
    from jaxsolve.games.zehntausend.table_numpy import turn_values

    return turn_values(rules, values, states)


def _check(rules: TableRules, scores: tuple, turn: int = 0, dice_left: int = DICE) -> None:
    if turn % STEP:
        raise JaxsolveError(f"--turn must be a multiple of {STEP}, got {turn}")
    if scores[0] * STEP + turn >= rules.goal:
        raise JaxsolveError(f"a turn total of {turn} already reaches the goal {rules.goal}: write it")


def _turn_text(turn: int = 0, dice_left: int = DICE) -> str:
    return f"{turn} set aside this turn, {dice_left} {'die' if dice_left == 1 else 'dice'} left to throw" + (" (all six used: throw six again)" if dice_left == 0 else "")


SPEC = TableSpec(
    GAME, TableRules, _presets, STEP, _solve, _options, _turn_values,
    (
        Param("turn", int, 0, "Points set aside this turn so far (a multiple of 50).", min=0, max=100_000),
        Param("dice_left", int, DICE, "Dice left to throw (0: all six used, throw six again).", min=0, max=DICE),
    ),
    _turn_text,
    _check,
)
