"""Zehntausend at a table as a registered game (``zehntausend-table``): its ``TableSpec`` for the
N-player race game's hooks and commands (``jaxsolve.games.race_table_game``). JAX-free to import:
the solve imports the engine when called; advise and the loader's check run the turn in NumPy
(``table_numpy``), simulate plays its games in NumPy (``table_simulate``)."""

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


def _solve(rules: TableRules, progress=None, checkpoint=None) -> Any:
    from jaxsolve.games.zehntausend import table

    return table.solve(rules, progress=progress, checkpoint=checkpoint)


def _faces(dice: str | None) -> list[int] | None:
    from jaxsolve.games.played import typed_faces

    return None if dice is None else typed_faces(dice)


def _options(rules: TableRules, values: np.ndarray, scores: tuple, turn: int = 0, dice_left: int = DICE, dice: str | None = None) -> list:
    from jaxsolve.games.zehntausend.table_numpy import throw_options, turn_options

    faces = _faces(dice)
    if faces is None:
        return turn_options(rules, values, scores, turn, dice_left)
    return [(o.label, o.vector) for o in throw_options(rules, values, scores, turn, faces)]


def _turn_values(rules: TableRules, values: np.ndarray, states: np.ndarray) -> np.ndarray:
    from jaxsolve.games.zehntausend.table_numpy import turn_values

    return turn_values(rules, values, states)


def _check(rules: TableRules, scores: tuple, turn: int = 0, dice_left: int = DICE, dice: str | None = None) -> None:
    from jaxsolve.games.zehntausend.scoring import check_reachable, parse_throw, write_points

    low = [v * STEP for v in scores if 0 < v * STEP < rules.entry]
    if low:
        raise JaxsolveError(f"a banked score of {low[0]} is below the entry minimum {rules.entry} (a first write reaches it): no such position")
    if turn % STEP:
        raise JaxsolveError(f"--turn must be a multiple of {STEP}, got {turn}")
    if scores[0] * STEP + turn >= rules.goal:
        raise JaxsolveError(f"a turn total of {turn} already reaches the goal {rules.goal}: write it")
    faces = _faces(dice)
    if faces is not None:
        counts = parse_throw(faces)
        check_reachable(rules.duel.turn_rules, turn, int(counts.sum()), "a turn total of")
        if write_points(rules.duel.turn_rules, counts) == 0:
            raise JaxsolveError(f"the throw {' '.join(map(str, sorted(faces)))} scores nothing: a bust, the turn is over")


def _simulate(rules: TableRules, values: np.ndarray, unsettled: list, games: int, seed: int) -> np.ndarray:
    from jaxsolve.games.zehntausend.table_simulate import simulate

    return simulate(rules, values, unsettled, games, seed)


def _turn_text(turn: int = 0, dice_left: int = DICE, dice: str | None = None) -> str:
    faces = _faces(dice)
    if faces is not None:
        return f"{turn} set aside this turn, the dice show {' '.join(map(str, sorted(faces)))}"
    return f"{turn} set aside this turn, {dice_left} {'die' if dice_left == 1 else 'dice'} left to throw" + (" (all six used: throw six again)" if dice_left == 0 else "")


SPEC = TableSpec(
    GAME, TableRules, _presets, STEP, _solve, _options, _turn_values,
    (
        Param("turn", int, 0, "Points set aside this turn so far (a multiple of 50).", min=0, max=100_000),
        Param("dice_left", int, DICE, "Dice left to throw (0: all six used, throw six again): write or throw them on? (without --dice)", min=0, max=DICE),
        Param("dice", str, None, "The dice showing after a throw, e.g. 155234 or '1 5 5 2 3 4': write or which dice to set aside?"),
    ),
    _turn_text,
    _check,
    _simulate,  # all games at once in NumPy (``table_simulate``): the default 100,000 in seconds
)
