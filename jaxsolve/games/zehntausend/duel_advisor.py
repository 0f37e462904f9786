"""Write or throw on: the Zehntausend duel's advisor over a solved duel.

A position is both banked scores, the points set aside this turn and the dice showing. The
options are writing (bank the points set aside plus the most the throw scores; not before the
entry minimum is reached) and every usable set-aside of the throw followed by throwing the
other dice (all six used: six again), each with the win probability under optimal play by both.

Every option is valued as what it is, also where the turn total reaches the goal (the bound
under the last-turn rule): writing there wins (or ends the turn with the goal reached), while
a set-aside followed by throwing on risks a bust first (``duel.turn_tables``). A turn total
may already be at or past the goal when the dice show: the player set aside and threw on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.duel_rules import DuelRules
from jaxsolve.games.zehntausend.rules import DICE, STEP
from jaxsolve.games.zehntausend.scoring import build_tables, check_reachable, parse_throw


def check_position(rules: DuelRules, mine: int, theirs: int, turn: int, they_started: bool) -> None:
    for name, value in (("my score", mine), ("their score", theirs), ("turn total", turn)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0 or value % STEP:
            raise JaxsolveError(f"{name} must be a non-negative multiple of {STEP}, got {value}")
    if mine >= rules.goal or (theirs >= rules.goal and not (rules.last_turn and they_started)):
        raise JaxsolveError(f"the game is over: a banked score of {max(mine, theirs)} reaches the goal {rules.goal}")
    if theirs > rules.top:
        raise JaxsolveError(f"their score {theirs} is beyond the bound {rules.top} of {rules.name}")
    if they_started and not rules.last_turn:
        raise JaxsolveError(f"{rules.name} has no last-turn rule, so who started does not matter; drop --they-started")
    if 0 < mine < rules.entry:
        raise JaxsolveError(f"a banked score of {mine} is below the entry minimum {rules.entry}: no such position")


def tables_at(sol, mine: int, theirs: int, they_started: bool):
    """``V [H, 7]``, ``S [H]`` of the turn at the banked scores (the last turn when they reached
    the goal), in NumPy (``duel_numpy``: JAX is not imported)."""
    from jaxsolve.games.zehntausend.duel_numpy import last_turn_values, turn_values

    if theirs >= sol.rules.goal:
        return last_turn_values(sol, (theirs - mine) // STEP + 1)
    return turn_values(sol, int(they_started and sol.rules.last_turn), mine // STEP, theirs // STEP)


@dataclass(frozen=True)
class Choice:
    label: str
    value: float
    action: str  # "write" or "aside"
    set_aside: tuple[str, ...] = ()
    points: int = 0  # turn total after the choice
    dice: int = 0  # dice to throw next (aside)
    detail: dict = field(default_factory=dict)


def advise(sol, mine: int, theirs: int, turn: int, faces, they_started: bool = False) -> list[Choice]:
    """Every option of a throw with its win probability, best first (ties: write first).

    A turn total and dice showing that no turn brings together are refused
    (``scoring.check_reachable``), as in the Zehntausend advisor.
    """
    rules = sol.rules
    check_position(rules, mine, theirs, turn, they_started)
    counts = parse_throw(faces)
    check_reachable(rules.turn_rules, turn, int(counts.sum()), "a turn total of")
    tables = build_tables(rules.turn_rules)
    V, S = tables_at(sol, mine, theirs, they_started)
    top = V.shape[0] - 1
    p = turn // STEP
    write = int(tables.write[tables.row_index(counts)])
    if write == 0:
        raise JaxsolveError(f"the throw {' '.join(map(str, sorted(faces)))} scores nothing: a bust, the turn is over")
    out = []
    w = float(S[min(p + write // STEP, top)])
    if np.isfinite(w):
        out.append(Choice(f"write {turn + write}", w, "write", (), turn + write, 0, {"action": "write", "banked": turn + write}))
    subsets = tables.set_asides(counts)
    n = int(counts.sum())
    for i in range(len(subsets.points)):
        pts, used = int(subsets.points[i]), int(subsets.dice[i])
        left = n - used if used < n else DICE
        level = min(p + pts // STEP, top)
        value = float(V[level, left]) if used < n else float(V[level, DICE])
        keep = tuple(subsets.faces(i))
        out.append(
            Choice(
                f"aside {' '.join(keep)}, throw {left}",
                value,
                "aside",
                keep,
                turn + pts,
                left,
                {"action": "aside", "set_aside": list(keep), "turn_total": turn + pts, "throw": left},
            )
        )
    out.sort(key=lambda c: (-c.value, c.action != "write"))
    return out
