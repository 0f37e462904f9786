"""Advice against one opponent who plays to win: every option with my probability to win.

The model is the two-player engine's (``twoplayer``, docs/twoplayer.md): both players play to
win, each knowing the other's sheet and the score. A position is my sheet and score, the other's
sheet and score, who started the game (the player who started has as many boxes filled as the
other at his turn, the second player one fewer), my dice and the re-throws left. Each option (a
keep, a box) is worth my probability to win after it (a tie counting as the tie rule says), read
from the layer below in the engine's table (``twoplayer.turn_arrays``: the box values after
the last throw, the keeps' values per re-throws left). Beside it stands the expected-score move
(the one-player ``score`` solution's best option, ``advisor.advise``) with what it is worth here.

The table comes from one of two places (``table_for``): the whole game's table in the solution
store (``stored_table``: built once by ``jaxsolve twoplayer-table GAME``, or for a position near
the end an end-game set, ``jaxsolve twoplayer-table GAME --open K``), or a solve of the
subgame from the two sheets (``twoplayer.solve`` with both players' filled boxes, float64, every
layer kept) where that is small enough to wait for (``MAX_SUBGAME_VALUES``); else one line says
how to build the table.

``ties`` here is what a tie is worth to *me* (``share``, ``win``, ``lose``, as ``advise
--opponent``); the engine's ``tie`` is what it is worth to the player who started the game, so
the two differ when the other player started (``starter_tie``).

References: J. Pawlewicz, "A Nearly Optimal Computer Player in Multi-player Yahtzee",
Computers and Games 2010; J. Glenn, "An Optimal Strategy for Yahtzee", CS-TR-0002, Loyola
College in Maryland (2006), section 8.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.answers.advisor import Option, describe_turn
from jaxsolve.games.category.sheets.position import Position, PositionError, SheetState, check_throws_left, parse_dice, parse_position
from jaxsolve.games.category.sheets.rules import CategoryRules

TIES = ("share", "win", "lose")
MAX_SUBGAME_VALUES = 8_000_000
"""The largest subgame (state-lead values over its layers, ``subgame_values``) solved on demand:
Yacht with 8 boxes open on each sheet is 6.8 M values, within it; 9 open on each sheet (28.6 M)
is not. The times these take: results/twoplayer/advice.md."""
_TABLES: dict[tuple, object] = {}


# ----------------------------------------------------------------------------- positions


@dataclass(frozen=True)
class Sides:
    """A two-player position at my turn: my sheet and score, the other's, who started."""

    mine: Position | SheetState
    my_score: int
    theirs: Position | SheetState
    their_score: int
    i_started: bool

    @property
    def lead(self) -> int:
        return self.my_score - self.their_score

    def __str__(self) -> str:
        who = "I started" if self.i_started else "they started"
        return f"me {self.mine} ({self.my_score}) against {self.theirs} ({self.their_score}), {who}"


def starter_tie(ties: str, i_started: bool) -> str:
    """The engine's tie rule (what a tie is worth to the starter) of ``ties`` (worth to me)."""
    if ties not in TIES:
        raise JaxsolveError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    return ties if i_started or ties == "share" else {"win": "lose", "lose": "win"}[ties]


def _filled(position) -> int:
    return int(position.filled)


def check_sides(rules: CategoryRules, sides: Sides) -> None:
    """Refuse a position that is no turn start of mine: my sheet full, filled counts that do not
    fit who started (at my turn the other has as many boxes filled as I if I started, one more
    if he did), scores below the sheets' totals."""
    if rules.has_instant_bonus:
        raise JaxsolveError(f"the two-player model does not take the instant bonus of {rules.name}")
    if sides.mine.is_over:
        raise PositionError("your sheet is full: the game is over for you")
    a, b = bin(_filled(sides.mine)).count("1"), bin(_filled(sides.theirs)).count("1")
    want = a if sides.i_started else a + 1
    if b != want:
        other = "you started" if b == a else ("they started" if b == a + 1 else None)
        hint = f" (these counts fit a game where {other})" if other else ""
        who = "you started" if sides.i_started else "they started"
        raise PositionError(
            f"not your turn: {who}, so at your turn the other sheet has {want} boxes filled, not {b} (yours has {a}){hint}"
        )
    for name, pos, score in (("your", sides.mine, sides.my_score), ("their", sides.theirs, sides.their_score)):
        if pos.total is not None and score < pos.total:
            raise PositionError(f"{name} score {score} is below the {pos.total} points on {name} sheet")
    for pos in (sides.mine, sides.theirs):
        pos.state(rules)


def parse_sides(rules: CategoryRules, position: str, score: int | None, against: str, i_started: bool) -> Sides:
    """My sheet (``--position`` notation) and score (default: the sheet's total plus an upper
    bonus earned), the other's ``"SHEET SCORE"`` (``winning.parse_opponent``), who started;
    checked (``check_sides``)."""
    from jaxsolve.games.category.objectives import winning

    mine = parse_position(position, rules)
    other = winning.parse_opponent(against, rules)
    sides = Sides(mine, winning.my_score(rules, mine, score), other.position, other.score, bool(i_started))
    check_sides(rules, sides)
    return sides


# ----------------------------------------------------------------------------- the table


def stored_table(rules: CategoryRules, tie: str, game: str | None, mover_mask: int | None = None, other_mask: int | None = None):
    """``(table, source)`` from the solution store (``twoplayer_store.load``): the whole game's
    two-player table, else (given the two sets of filled boxes) the smallest stored end-game
    set holding the position (every position with at most k open boxes each, ``jaxsolve
    twoplayer-table GAME --open K``); ``(None, "")`` where none is stored."""
    if not game:
        return None, ""
    from jaxsolve.games.category.objectives.twoplayer import store

    for dtype in store.DTYPES[::-1]:  # float64 where both are stored
        whole = store.load(rules, tie, game, dtype=dtype)
        if whole is not None:
            return whole, "stored"
    if mover_mask is None or other_mask is None:
        return None, ""
    nb = rules.num_boxes
    needed = max(nb - bin(int(mover_mask)).count("1"), nb - bin(int(other_mask)).count("1"))
    for k in range(max(needed, 1), nb + 1):
        for dtype in store.DTYPES[::-1]:
            found = store.load(rules, tie, game, dtype=dtype, open_boxes=k)
            if found is not None:
                return found, f"stored, every position with at most {k} open boxes each"
    return None, ""


def subgame_values(rules: CategoryRules, mover_mask: int, other_mask: int, start: tuple | None = None) -> int:
    """State-lead values of the two-player subgame from two sets of filled boxes (the player to
    move's first; with ``start``, from the two actual sheets): the work and the memory of
    solving it, without solving."""
    from jaxsolve.games.category.objectives import twoplayer

    sheets = twoplayer.pair_sheets(rules, int(mover_mask), int(other_mask), start)
    return int(sum(p.pairs * p.width for p in twoplayer.plan_layers(rules, sheets)))


def table_for(
    rules: CategoryRules, tie: str, mover_mask: int, other_mask: int, *, game: str | None = None, max_values: int | None = None, hint: str = "",
    sheets: tuple | None = None,
):
    """``(table, source)``: a two-player table (every layer kept) holding every state whose
    sheets include ``mover_mask`` (the player to move's filled boxes) and ``other_mask``, tie
    rule ``tie`` (the starter's, ``twoplayer.TIES``). ``source``: ``stored`` (the whole game's
    table of the solution store) or ``solved`` (the subgame solved now, float64, kept per
    process); a clear error where the subgame is larger than ``max_values`` (default
    ``MAX_SUBGAME_VALUES``) and no table is stored (``hint`` added to it). ``sheets``: the two
    players' actual sheets ``((filled, upper, all_same_held) of the player to move, the
    other's)``: then only the sheets a game reaches from them are solved (``twoplayer.solve(start=)``:
    an upper total already past the bonus, or boxes that cannot matter, cut the subgame)."""
    from jaxsolve.games.category.objectives import twoplayer

    stored, where = stored_table(rules, tie, game, mover_mask, other_mask)
    if stored is not None:
        return stored, where
    start = None if sheets is None else tuple(tuple(int(x) for x in sheet) for sheet in sheets)
    key = (rules, tie, int(mover_mask), int(other_mask), start)
    if key in _TABLES:
        return _TABLES[key], "solved"
    limit = MAX_SUBGAME_VALUES if max_values is None else int(max_values)
    size = subgame_values(rules, mover_mask, other_mask, start)
    if size > limit:
        open_boxes = 2 * rules.num_boxes - bin(int(mover_mask)).count("1") - bin(int(other_mask)).count("1")
        name = game or "GAME"
        raise JaxsolveError(
            f"the two-player game from these sheets ({open_boxes} open boxes on both, {size:,} state-lead values) is too large to solve "
            f"while you wait (at most {limit:,}); build the whole game's table once with `jaxsolve twoplayer-table {name}`{hint}"
        )
    from jaxsolve.core.arrays import precision

    with precision("float64"):
        table = twoplayer.solve(rules, tie=tie, mine=int(mover_mask), theirs=int(other_mask), start=start, keep="all", dtype="float64")
    while len(_TABLES) >= 4:
        _TABLES.pop(next(iter(_TABLES)))
    _TABLES[key] = table
    return table, "solved"


# ----------------------------------------------------------------------------- one turn


def option_values(table, mine: tuple[int, int, int], theirs: tuple[int, int, int], lead: int, dice, throws_left: int) -> tuple[float, list[Option]]:
    """``(value, options)``: P(the player to move wins) of each option of his turn (sheet
    ``mine`` against ``theirs``, each ``(filled, upper, all_same_held)``, his ``lead``, the
    ``dice`` showing with ``throws_left`` re-throws left), best first (ties ordered as
    ``advisor.advise`` orders them), and the best option's value."""
    from jaxsolve.games.category.objectives import twoplayer, winning
    from jaxsolve.games.category.objectives.target_situation import Situation

    rules = table.rules
    a, b = bin(int(mine[0])).count("1"), bin(int(theirs[0])).count("1")
    p = table.plan(a + b)
    if (p.a, p.b) != (a, b):
        raise JaxsolveError(f"in layer {a + b} the player to move has {p.a} boxes filled and the other {p.b}, not {a} and {b}")
    if table.layers[p.n + 1] is None:
        raise JaxsolveError(f"layer {p.n + 1} was not kept (solve with keep='all')")
    i = table.sheets[p.mover].find(*mine, rules)
    j = table.sheets[1 - p.mover].find(*theirs, rules)
    _, final, keeps = twoplayer.turn_arrays(table, p, np.asarray([i]), np.asarray([j]), np.asarray([int(lead)], np.int64))
    sp = tables.space(rules.dice)
    t = sp.throw_index(sp.counts_of_faces(dice))
    one = solver.moves(tables.EngineState._make(np.asarray([int(x)], np.int64) for x in mine), rules, xp=np)  # the boxes' own points (bonuses apart)
    got = Situation(t, final[:, t, :], np.asarray(one.points)[:, t, 0], keeps[throws_left - 1] if throws_left > 0 else None)
    ov = winning.situation_options(rules, got)
    options = ov.ranked(ov.vectors[:, 0])
    return options[0].value, options


@dataclass
class TwoPlayerAdvice:
    """Every option of my turn with my probability to win (both playing to win), best first;
    ``expected``: the expected-score move (the one-player ``score`` solution's best) as one of
    them, with its win probability and loss; ``source``: where the table came from."""

    rules: CategoryRules
    sides: Sides
    ties: str
    dice: tuple[int, ...]
    throws_left: int
    value: float
    options: list[Option]
    expected: Option | None
    source: str
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def best(self) -> Option:
        return self.options[0]

    def to_dict(self) -> dict:
        s = self.sides
        return {
            "rules": self.rules.name,
            "model": "two-player, both playing to win",
            "position": str(s.mine),
            "score": s.my_score,
            "against": f"{s.theirs} {s.their_score}",
            "i_started": s.i_started,
            "lead": s.lead,
            "ties": self.ties,
            "dice": list(self.dice),
            "throws_left": self.throws_left,
            "value": self.value,
            "best": self.best.label,
            "expected_move": None if self.expected is None else self.expected.label,
            "expected_move_win": None if self.expected is None else self.expected.value,
            "expected_move_loss": None if self.expected is None else self.expected.regret,
            "table": self.source,
            "seconds": round(self.seconds, 3),
            "options": [o.to_dict() for o in self.options],
        }


def advise(
    rules: CategoryRules,
    sides: Sides,
    dice,
    throws_left: int | None = None,
    *,
    ties: str = "share",
    sol=None,
    game: str | None = None,
    table=None,
    max_values: int | None = None,
) -> TwoPlayerAdvice:
    """Every option of my turn ranked by my probability to win against an opponent who plays to
    win (``ties``: what a tie is worth to me), with the expected-score move marked (``sol``: the
    ``score`` solution; read from the cache or solved when not given). ``table``: a two-player table holding this position (default ``table_for`` from
    the two sheets)."""
    from jaxsolve.games.category.answers import advisor
    from jaxsolve.games.category.engine import solutions

    t0 = time.perf_counter()
    check_sides(rules, sides)
    faces = parse_dice(dice, rules)
    if faces is None:
        raise PositionError("the advisor needs the dice showing (--dice)")
    left = check_throws_left(throws_left, rules, faces)
    tie = starter_tie(ties, sides.i_started)
    mine, theirs = sides.mine.state(rules), sides.theirs.state(rules)
    source = "given"
    if table is None:
        table, source = table_for(rules, tie, mine[0], theirs[0], game=game, max_values=max_values, sheets=(mine, theirs))
    elif table.tie != tie:
        raise JaxsolveError(f"the table counts a tie for the starter as {table.tie}, not {tie}")
    value, options = option_values(table, mine, theirs, sides.lead, faces, left)
    if sol is None:
        sol = solutions.cached_solution(rules, "score", "float64", game=game) or solutions.solution(rules, "score", game=game, dtype="float64")
    plain = advisor.advise(rules, cast(Position, sides.mine), faces, left, "score", sol=sol)  # a state reads as a sheet there
    label = plain.best.label
    expected = next((o for o in options if o.label == label), None)
    return TwoPlayerAdvice(rules, sides, ties, faces, left, value, options, expected, source, time.perf_counter() - t0)


def describe(advice: TwoPlayerAdvice) -> tuple[str, ...]:
    """The heading of an answer: the model, the position, the two moves."""
    s = advice.sides
    lines = [
        f"{advice.rules.name}, two players both playing to win (ties {advice.ties}; not the --opponent model, where opponents play for points)",
        f"you: {s.mine} ({s.my_score}); them: {s.theirs} ({s.their_score}); {'you' if s.i_started else 'they'} started; lead {s.lead:+d}",
        f"{describe_turn(advice.dice, advice.throws_left)}; your P(win) {advice.value:.6f} (table {advice.source})",
        f"best to win: {advice.best.label} (P(win) {advice.best.value:.6f})",
    ]
    if advice.expected is not None:
        e = advice.expected
        lines.append(f"expected-score move: {e.label} (P(win) {e.value:.6f}, loss {e.regret:.6f})")
    return tuple(lines)
