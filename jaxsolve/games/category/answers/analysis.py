"""Analysis of any position of a category game: single-turn and in-game values, per-box split.

Two *scopes*, as in the APL article:

* ``turn``: only this turn counts (the article's E, E_OS and W, W_OS): the turn is played to
  maximise what it puts on the sheet now (box points plus any bonus earned now for ``score``;
  1 for a box met for ``goals``). Computed with an all-zero table of later states.
* ``game``: this turn and the rest of the game played optimally (the article's E^SP, W^SP).

A turn in progress is ``(position, dice, throws_left)``; without dice the position is at the
start of a turn (before its first throw). ``throws`` overrides the throws of this turn only
(``throws=1``: no re-throw, the article's E(HABE)).

The solved tables come from the process cache in ``solutions``; evaluations (``evaluation``)
are computed on demand and cached per process here. The advisor (ranked options of a turn) is
``advisor``, the APL article's tables are ``apl_article``. Everything here traces with JAX
(imported on first use); ``check_turn`` and ``state_arrays`` are shared with the advisor and
import no JAX.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from jaxsolve.core.arrays import lazy_jit, namespace
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solutions, solver, tables
from jaxsolve.games.category.sheets.position import Position, PositionError, check_throws_left, parse_dice
from jaxsolve.games.category.sheets.rules import CategoryRules, check_objective

if TYPE_CHECKING:
    from jaxsolve.games.category.engine import evaluate as evaluation_lib


def split_names(rules: CategoryRules) -> tuple[str, ...]:
    """Names of the split channels: the sheet's boxes and the three bonuses."""
    from jaxsolve.games.category.engine import evaluate as evaluation_lib

    return evaluation_lib.channels(rules)[:-1]


_EVALUATIONS: dict[int, tuple] = {}


def evaluation(sol: solver.Solution) -> evaluation_lib.Evaluation:
    """Per-box channels and second moment of every state under ``sol``'s policy (cached)."""
    return _evaluated(sol)[0]


def _evaluated(sol: solver.Solution):
    """``(Evaluation, flat channel table)`` of ``sol``, computed once per solution object."""
    import jax.numpy as jnp

    from jaxsolve.games.category.engine import evaluate as evaluation_lib

    key = id(sol)
    if key not in _EVALUATIONS or _EVALUATIONS[key][0].solution is not sol:
        ev = evaluation_lib.evaluate(sol)
        aux = jnp.asarray(np.nan_to_num(ev.channels.reshape(-1, len(evaluation_lib.channels(sol.rules))), nan=0.0), sol.values.dtype)
        _EVALUATIONS[key] = (ev, aux)
    return _EVALUATIONS[key]


def state_arrays(position: Position, rules: CategoryRules, xp=None) -> tables.EngineState:
    """The position's state as an ``EngineState`` of arrays ``[1]`` (``xp``: see ``jaxsolve.core.arrays``)."""
    state = position.state(rules)
    if position.is_over:
        raise PositionError("the game is over: every box is filled")
    xp = namespace(xp)
    return tables.EngineState._make(xp.asarray([x], xp.int32) for x in state)


def _throw(rules: CategoryRules, dice) -> int:
    sp = tables.space(rules.dice)
    return sp.throw_index(sp.counts_of_faces(dice))


@lazy_jit(static_argnames=("rules", "objective", "throws"))
def _turn_channels(values, aux, state, rules, objective, throws):
    from jaxsolve.games.category.engine import evaluate as evaluation_lib

    return evaluation_lib.turn_channels(values, aux, state, rules=rules, objective=objective, throws=throws)


@lazy_jit(static_argnames=("rules", "objective", "throws_left", "first_throw"))
def _throw_channels(values, aux, state, rules, objective, throws_left, first_throw=None):
    from jaxsolve.games.category.engine import evaluate as evaluation_lib

    return evaluation_lib.throw_channels(values, aux, state, rules=rules, objective=objective, throws_left=throws_left, first_throw=first_throw)


def _channels(sol, aux, position, rules, objective, dice, throws_left, throws):
    """Value and channels ``[C]`` of a position (start of a turn or mid-turn)."""
    values = solutions.flat_values(sol, rules)
    state = state_arrays(position, rules)
    if dice is None:
        v, c = _turn_channels(values, aux, state, rules=rules, objective=objective, throws=throws)
        return float(v[0]), np.asarray(c[0])
    best, chan = _throw_channels(values, aux, state, rules=rules, objective=objective, throws_left=throws_left)
    t = _throw(rules, dice)
    return float(best[t, 0]), np.asarray(chan[t, 0])


@dataclass
class TurnAnalysis:
    """One position analysed as a single turn and within the game.

    ``turn_value``: best expected outcome of this turn alone (E / W, E_OS / W_OS).
    ``turn_split``: that outcome split over the boxes and bonuses (policy optimal for the turn).
    ``game_value``: optimal expected outcome of the rest of the game, this turn included (E^SP).
    ``game_turn_split``: what this turn puts in each box under the game-optimal policy;
    its sum is ``this_turn``, and ``rest = game_value - this_turn`` (the article's Restwert).
    ``goals`` values are expected boxes met (x 100 = the article's percent).
    """

    rules: CategoryRules
    objective: str
    position: Position
    dice: tuple[int, ...] | None
    throws_left: int
    throws: int
    turn_value: float
    turn_split: dict[str, float]
    game_value: float
    game_turn_split: dict[str, float]

    @property
    def this_turn(self) -> float:
        return float(sum(self.game_turn_split.values()))

    @property
    def rest(self) -> float:
        return self.game_value - self.this_turn

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": self.objective,
            "position": str(self.position),
            "dice": list(self.dice) if self.dice else None,
            "throws_left": self.throws_left if self.dice else None,
            "throws_this_turn": self.throws,
            "turn": {"value": self.turn_value, "split": self.turn_split},
            "game": {"value": self.game_value, "this_turn": self.this_turn, "rest": self.rest, "this_turn_split": self.game_turn_split},
        }


def check_turn(rules, position, dice, throws_left, throws):
    """``(dice, throws_left, throws)`` of a turn in progress, parsed and checked against ``rules``."""
    dice = parse_dice(dice, rules) if dice is not None else None
    throws_left = check_throws_left(throws_left, rules, dice)
    throws = rules.throws if throws is None else int(throws)
    if not 1 <= throws <= rules.throws:
        raise PositionError(f"throws this turn must be between 1 and {rules.throws}, got {throws}")
    if dice is not None and throws != rules.throws:
        raise PositionError("give either the dice showing or a throw count for the turn, not both")
    if position.is_over:
        raise PositionError("the game is over: every box is filled")
    return dice, throws_left, throws


def analyze_turn(
    rules: CategoryRules,
    position: Position,
    dice=None,
    throws_left: int | None = None,
    objective: str = "score",
    *,
    throws: int | None = None,
    sol: solver.Solution | None = None,
) -> TurnAnalysis:
    """Single-turn and in-game value of a position, with this turn's split over the boxes.

    ``throws`` (start of a turn only) overrides the throws of this turn, e.g. 1 = no re-throw.
    ``sol`` defaults to the cached solution of ``rules``/``objective``.
    """
    check_objective(objective)
    dice, throws_left, throws = check_turn(rules, position, dice, throws_left, throws)
    sol = sol or solutions.solution(rules, objective)
    if sol.objective != objective or sol.rules != rules:
        raise JaxsolveError(f"the value table is for {sol.rules.name}/{sol.objective}, not {rules.name}/{objective}")
    aux = None  # this turn's own channels; nothing carried in from later states
    tv, tc = _channels(None, aux, position, rules, objective, dice, throws_left, throws)
    gv, gc = _channels(sol, aux, position, rules, objective, dice, throws_left, throws)
    split = lambda c: {k: float(x) for k, x in zip(split_names(rules), c[:-1])}  # noqa: E731
    return TurnAnalysis(rules, objective, position, dice, throws_left, throws, tv, split(tc), gv, split(gc))


@dataclass
class Breakdown:
    """Expected final outcome still to come from a position, split over boxes and bonuses.

    ``split`` sums to ``mean`` (the position's value); ``sd`` is the standard deviation of
    what is still to come (``score``: points; ``goals``: boxes met) under the optimal policy.
    """

    rules: CategoryRules
    objective: str
    position: Position
    dice: tuple[int, ...] | None
    throws_left: int
    split: dict[str, float]
    mean: float
    sd: float
    value: float

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": self.objective,
            "position": str(self.position),
            "sheet_total": self.position.total,
            "dice": list(self.dice) if self.dice else None,
            "throws_left": self.throws_left if self.dice else None,
            "value": self.value,
            "mean": self.mean,
            "sd": self.sd,
            "split": self.split,
        }


def breakdown(
    rules: CategoryRules,
    position: Position,
    dice=None,
    throws_left: int | None = None,
    objective: str = "score",
    *,
    sol: solver.Solution | None = None,
) -> Breakdown:
    """Per-box split and standard deviation of the rest of the game from a position.

    The channels come from a forward walk over the states the optimal policy reaches from the
    position (``evaluate.forward``), not from evaluating every state (``evaluation``).
    """
    from jaxsolve.games.category.engine import evaluate as evaluation_lib

    check_objective(objective)
    dice, throws_left, _ = check_turn(rules, position, dice, throws_left, None)
    sol = sol or solutions.solution(rules, objective)
    value, _ = _channels(sol, None, position, rules, objective, dice, throws_left, rules.throws)
    throw = None if dice is None else _throw(rules, dice)
    walk = evaluation_lib.forward(sol, *position.state(rules), throw=throw, throws_left=throws_left if dice is not None else None)
    chan = walk.channels
    split = {k: float(x) for k, x in zip(split_names(rules), chan[:-1])}
    mean = float(chan[:-1].sum())
    var = float(chan[-1]) - mean**2
    return Breakdown(rules, objective, position, dice, throws_left, split, mean, float(np.sqrt(max(var, 0.0))), value)


def single_box_table(rules: CategoryRules, throws: int | None = None, *, sol_free: bool = True) -> dict[str, tuple[float, float]]:
    """Article tables 1 (``throws=1``) and 10 (``throws=rules.throws``): one box open, one turn.

    Returns ``box -> (success probability in %, expected points)`` for a sheet where only that
    box is open (upper total 0, the all-same box not holding its points), this turn alone.
    """
    throws = rules.throws if throws is None else throws
    aux = None
    out = {}
    for b, name in enumerate(rules.box_names):
        pos = Position(tuple(None if i == b else 0 for i in range(rules.num_boxes)), rules.boxes)
        w, _ = _channels(None, aux, pos, rules, "goals", None, 0, throws)
        e, _ = _channels(None, aux, pos, rules, "score", None, 0, throws)
        out[name] = (100.0 * w, e)
    return out
