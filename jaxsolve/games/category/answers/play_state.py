"""The values a category game at the table is made of (``play.CategoryGame``): the state of a
game (your sheet, the dice, the opponents' sheets), the win probability shown at a decision,
and the small rules of the table (how many opponents, where the win probability is offered,
the heuristic's ratings beside an option)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.engine.objective import SCORE, TWOPLAYER
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.position import Position, parse_position
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET
from jaxsolve.games.played import PlayError, PlayOption


MAX_OPPONENTS = 4
WIN_KEEPS_OPEN = 64 * 462
"""The win probability is offered where the open boxes' sub-sheets times the keeps of the dice
are at most this: 6 open boxes of the 5-dice sheet (462 keeps), the size at which the exact
answer (``winning.advise_win(method="exact")``) is aimed to take seconds (docs/winning.md says
what it takes); earlier in the game it takes far longer, and the player is told so instead of
made to wait."""


@dataclass(frozen=True)
class Sheet:
    """An opponent's score sheet and the bonus points he has earned."""

    position: Position
    bonus: int = 0

    @property
    def score(self) -> int:
        return self.position.total + self.bonus


@dataclass(frozen=True)
class CategoryState:
    """``dice``: showing (None: a throw is due); ``kept``: dice kept for the due throw;
    ``throws_left``: re-throws left after the dice showing (or after the due throw);
    ``bonus``: bonus points earned so far (upper bonus, extra all-same bonuses, Im-Hieb).
    At a table: ``others`` the opponents' sheets, ``mover`` whose turn it is (0 you, i the
    opponent ``others[i - 1]``); the dice, keeps and throws are the mover's."""

    position: Position
    bonus: int
    dice: tuple[int, ...] | None
    kept: tuple[int, ...]
    throws_left: int
    keep_value: float | None = None
    others: tuple[Sheet, ...] = ()
    mover: int = 0


@dataclass(frozen=True)
class WinView:
    """Your probability to finish first at one decision: ``win[label]`` = (P(win), loss) of each
    option (by the label of ``ranked_options``), ``best`` the label of the best for winning,
    ``value`` P(win) with the best option; or ``note`` where it is not offered here."""

    available: bool
    note: str = ""
    win: dict | None = None
    best: str | None = None
    value: float | None = None
    method: str | None = None
    seconds: float = 0.0


def win_open_limit(rules: CategoryRules) -> int:
    """The most open boxes at which the win probability is offered under ``rules``: their
    sub-sheets times the keeps of the dice at most ``WIN_KEEPS_OPEN`` (Yahtzee: 6)."""
    keeps = len(tables.space(rules.dice).keeps)
    return max((k for k in range(rules.num_boxes + 1) if (1 << k) * keeps <= WIN_KEEPS_OPEN), default=0)


def opponent_name(i: int) -> str:
    return f"opponent {i}"


def read_start(rules: CategoryRules, *, against: str, start: str | None, they_start: bool, ties: str, opponents: int) -> tuple[Sheet, Sheet, int]:
    """The settings of a game against the optimal player checked: its two starting sheets (yours,
    his: ``start``'s, else empty), a bonus earned on them counted, and the number of opponents
    (one against the optimal player)."""
    if against not in ("expected", "optimal"):
        raise PlayError(f"against must be expected or optimal, got {against!r}")
    if ties not in ("share", "win", "lose"):
        raise PlayError(f"ties must be share, win or lose, got {ties!r}")
    asked = TWOPLAYER if against == "optimal" else SCORE
    try:
        asked.refuse({"start": start is not None, "they_start": they_start, "ties": ties != "share"})
    except JaxsolveError as e:
        raise PlayError(f"against {against}: {e}") from None
    if asked is SCORE:
        return Sheet(Position.empty(rules)), Sheet(Position.empty(rules)), opponents
    if opponents > 1:
        raise PlayError("against optimal is a game of two: one opponent (opponents 0 or 1)")
    sheets = []
    parts = (start or "/").split("/")
    if len(parts) != 2:
        raise PlayError('start is your sheet, a slash, then his, e.g. "ones=3 twos=6 / ones=2 twos=8"')
    for text in parts:
        pos = parse_position(text.strip() or "start", rules)
        if not isinstance(pos, Position):
            raise PlayError("start takes score sheets (box=score), not states")
        pos.state(rules)
        earned = rules.upper_bonus if pos.upper_total >= rules.upper_threshold and rules.upper_bonus else 0
        sheets.append(Sheet(pos, earned))
    mine, his = sheets
    if bin(mine.position.filled).count("1") != bin(his.position.filled).count("1"):
        raise PlayError("start: both sheets have as many boxes filled (the game starts at the starter's turn)")
    if mine.position.is_over:
        raise PlayError("start: the sheets are full; nothing is left to play")
    return mine, his, 1


def check_opponents(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= int(n) <= MAX_OPPONENTS:
        raise PlayError(f"opponents must be a whole number from 0 to {MAX_OPPONENTS}, got {n!r}")
    return int(n)


@functools.lru_cache(maxsize=8)
def _moves_fn(rules: CategoryRules):
    return jax.jit(lambda state: solver.moves(state, rules))


def moves_at(rules: CategoryRules, position: Position):
    """``solver.moves`` of one sheet (each field ``[boxes, T, 1]``), compiled once per rules."""
    return _moves_fn(rules)(EngineState._make(jnp.asarray([x], jnp.int32) for x in position.state(rules)))


def heuristic_available(rules: CategoryRules) -> bool:
    """Whether the rating heuristic is defined for these rules (the 5-dice Kniffel sheet)."""
    return rules.dice == 5 and tuple(rules.boxes) == tuple(KNIFFEL_SHEET)


def rating_of(option: PlayOption, ratings: list[dict]) -> str:
    """The heuristic's ratings (``heuristic.ratings``) that do what ``option`` does (fill that
    box / keep those dice), as shown beside it: ``0.83 large_straight``; "" where none does."""
    hits = []
    for r in ratings:
        fills = r["option"].startswith("fill")
        if option.move["action"] == "fill" and fills and r["box"] == option.move["box"]:
            hits.append(r)
        elif option.move["action"] == "keep" and not fills and list(r["keep"]) == option.move["keep"]:
            hits.append(r)
    return ", ".join(f"{r['value']:.2f} {r['box']}" for r in hits)
