"""Positions of category games a person can type and read: filled boxes with their scores, dice, re-throws left.

A *position* is the score sheet: every filled box with its score, e.g. on the Kniffel sheet::

    aces=3 twos=- fours=12 three_kind=24 kniffel=50

* ``name=score`` (or ``name:score``), separated by spaces or commas, in any order.
* ``-`` (or ``x``) is a scratch, the same as ``0``.
* Boxes not named are open. An empty text, ``start`` or ``-`` is the empty sheet.
* Names: the sheet's box names (Kniffel: ``aces .. sixes, three_kind, four_kind, full_house,
  small_straight, large_straight, kniffel, chance``) or a short/German alias
  (``1s``/``1er``/``ones`` .. ``6s``, ``3k``/``dreierpasch``, ``4k``/``viererpasch``,
  ``fh``, ``ss``/``kleine_strasse``, ``ls``/``grosse_strasse``, ``yahtzee``/``kn``, ``ch``).

The upper total (capped at the bonus threshold in the state) and whether the all-same box
(all dice showing one face: Yahtzee, Kniffel, Yatzy) holds its points follow from the scores.
The dice showing and the re-throws left are separate (``parse_dice``, ``check_throws_left``):
a turn in progress is (position, dice, throws_left).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET

__all__ = [
    "Position",
    "PositionError",
    "parse_position",
    "format_position",
    "parse_dice",
    "format_dice",
    "check_throws_left",
    "possible_scores",
    "box_index",
]



@functools.lru_cache(maxsize=None)
def _name_table(sheet: tuple) -> dict[str, int]:
    """Every name and alias of a sheet's boxes -> box index."""
    out = {}
    for i, box in enumerate(sheet):
        for name in (box.name,) + tuple(box.aliases):
            out[_key(name)] = i
    return out


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def _sheet(rules) -> tuple:
    return rules.boxes if rules is not None else KNIFFEL_SHEET


_SCRATCH = ("-", "x", "scratch")
_HELD_WORDS = ("all_same_held", "holds50", "armed")  # holds50: the old notation, still read
_EMPTY = ("", "-", "start", "empty")


class PositionError(JaxsolveError):
    """A position, dice or throws-left value that cannot occur."""


@dataclass(frozen=True)
class Position:
    """A score sheet: ``scores[b]`` is the score in box ``b`` (sheet order), ``None`` if open.

    ``sheet`` is the rules' boxes (default: the 13-box Kniffel sheet).
    """

    scores: tuple[int | None, ...] = None  # type: ignore[assignment]  # None: every box open (set in __post_init__)
    sheet: tuple = KNIFFEL_SHEET

    def __post_init__(self):
        if self.scores is None:
            object.__setattr__(self, "scores", (None,) * len(self.sheet))
        if len(self.scores) != len(self.sheet):
            raise PositionError(f"a position has {len(self.sheet)} boxes, got {len(self.scores)}")

    @classmethod
    def empty(cls, rules: CategoryRules | None = None) -> "Position":
        sheet = _sheet(rules)
        return cls((None,) * len(sheet), sheet)

    @property
    def box_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.sheet)

    @property
    def filled(self) -> int:
        """Mask of filled boxes (bit b = box b), as the engine's state uses it."""
        return sum(1 << b for b, s in enumerate(self.scores) if s is not None)

    @property
    def open_boxes(self) -> tuple[int, ...]:
        return tuple(b for b, s in enumerate(self.scores) if s is None)

    def fillable_boxes(self, rules: CategoryRules) -> tuple[int, ...]:
        """The boxes the next turn may fill under ``rules`` (all open boxes, or the next one in order)."""
        from jaxsolve.games.category.engine import tables

        return tables.fillable_boxes(self.filled, rules)

    @property
    def upper_total(self) -> int:
        """Sum of the filled upper boxes (not capped)."""
        return sum(s for s in self.scores[:6] if s is not None)

    @property
    def all_same_held(self) -> int:
        """1 if the all-same box holds its points (never for a sheet without one)."""
        asb = next((i for i, b in enumerate(self.sheet) if b.kind == "all_same"), -1)
        return int(asb >= 0 and bool(self.scores[asb]))

    @property
    def total(self) -> int:
        """Points on the sheet so far (box scores only; bonuses are not recorded on it)."""
        return sum(s for s in self.scores if s is not None)

    @property
    def is_over(self) -> bool:
        return all(s is not None for s in self.scores)

    def state(self, rules: CategoryRules) -> EngineState:
        """The engine's state (``EngineState``: filled mask, upper total capped at the threshold,
        all-same held)."""
        if tuple(self.sheet) != tuple(rules.boxes):
            raise PositionError(f"this position is on another score sheet than the rules {rules.name}")
        filled = self.filled
        if rules.order == "forced" and filled & (filled + 1):
            raise PositionError(f"under {rules.name} the boxes are filled in sheet order ({', '.join(self.box_names)}): a position fills the first boxes of that order")
        return EngineState(self.filled, min(self.upper_total, rules.upper_threshold), self.all_same_held)

    def fill(self, box: int | str, score: int) -> "Position":
        """The position after filling ``box`` with ``score`` (no legality check)."""
        b = box_index(box, sheet=self.sheet)
        return Position(tuple(score if i == b else s for i, s in enumerate(self.scores)), self.sheet)

    def __str__(self) -> str:
        return format_position(self)


def box_index(name: int | str, rules: CategoryRules | None = None, *, sheet: tuple | None = None) -> int:
    """Box index (sheet order) of a name, an alias or an index (default sheet: Kniffel)."""
    sheet = sheet if sheet is not None else _sheet(rules)
    if isinstance(name, (int, np.integer)):
        if not 0 <= int(name) < len(sheet):
            raise PositionError(f"box index {name} out of range 0..{len(sheet) - 1}")
        return int(name)
    table = _name_table(sheet)
    key = _key(str(name))
    if key not in table:
        raise PositionError(f"unknown box {name!r}; boxes are {', '.join(b.name for b in sheet)}")
    return table[key]


def possible_scores(box: int | str, rules: CategoryRules | None = None) -> frozenset[int]:
    """Every score box ``box`` can hold under ``rules`` (0 included, joker points included)."""
    from jaxsolve.games.category.engine import tables

    rules = rules or CategoryRules()
    b = box_index(box, rules)
    scores = {0, *(int(x) for x in tables.throw_scores(rules)[b])}
    if rules.joker != "none" and tables.joker_points(rules)[b] > 0:
        scores.add(int(tables.joker_points(rules)[b]))
    return frozenset(scores)


def _ranges(values: Iterable[int]) -> str:
    """``0, 5..30`` style listing of a set of integers."""
    vals = sorted(values)
    parts, start = [], None
    for i, v in enumerate(vals):
        if start is None:
            start = v
        if i + 1 == len(vals) or vals[i + 1] != v + 1:
            parts.append(str(v) if v == start else (f"{start}, {v}" if v == start + 1 else f"{start}..{v}"))
            start = None
    return ", ".join(parts)


@dataclass(frozen=True)
class SheetState:
    """A position given as the engine's state instead of a score sheet: the filled boxes, the
    upper total so far and whether the all-same box holds its points (the box scores themselves
    are unknown, so ``total`` is None). Checked on construction by ``parse_state``."""

    filled: int
    upper_total: int
    all_same_held: int
    sheet: tuple = KNIFFEL_SHEET
    total = None

    @property
    def box_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.sheet)

    @property
    def open_boxes(self) -> tuple[int, ...]:
        return tuple(b for b in range(len(self.sheet)) if not self.filled >> b & 1)

    @property
    def is_over(self) -> bool:
        return self.filled == (1 << len(self.sheet)) - 1

    def state(self, rules: CategoryRules) -> EngineState:
        if tuple(self.sheet) != tuple(rules.boxes):
            raise PositionError(f"this state is on another score sheet than the rules {rules.name}")
        return EngineState(self.filled, min(self.upper_total, rules.upper_threshold), self.all_same_held)

    def __str__(self) -> str:
        names = [self.box_names[b] for b in range(len(self.sheet)) if self.filled >> b & 1]
        return f"filled={','.join(names) or '-'} upper={self.upper_total} all_same_held={self.all_same_held}"


def check_state(rules: CategoryRules, filled: int, upper: int, all_same_held: int) -> None:
    """Refuse a state no game reaches: an upper total the filled upper boxes cannot sum to
    (a total at the threshold stands for "the threshold or more", as in the engine's state),
    an all-same flag without a filled all-same box (or without one on the sheet)."""
    if not 0 <= filled <= rules.full_mask:
        raise PositionError(f"filled mask {filled} is not a set of the {rules.num_boxes} boxes")
    totals = {0}
    for b in range(6):
        if filled >> b & 1:
            totals = {t + (b + 1) * c for t in totals for c in range(rules.dice + 1)}
    capped = rules.upper_threshold <= upper <= max(totals)  # the state's "threshold or more"
    if upper not in totals and not capped:
        which = ", ".join(rules.box_names[b] for b in range(6) if filled >> b & 1)
        if totals == {0}:
            raise PositionError(f"upper total {upper} is impossible with no upper box filled: it must be 0")
        raise PositionError(f"upper total {upper} is impossible with {which} filled (at most {max(totals)}, and only sums of those boxes' scores)")
    if all_same_held not in (0, 1):
        raise PositionError(f"all_same_held must be 0 or 1, got {all_same_held}")
    if all_same_held and (rules.all_same_box < 0 or not filled >> rules.all_same_box & 1):
        if rules.all_same_box < 0:
            raise PositionError("all_same_held needs an all-same box, which this sheet does not have")
        raise PositionError(f"all_same_held needs the {rules.box_names[rules.all_same_box]} box among the filled boxes")


def parse_state(text: str, rules: CategoryRules | None = None) -> SheetState:
    """Read a state: ``"filled=ones,chance upper=12 all_same_held=1"`` or ``"upper 12 | filled ones,chance
    | all_same_held"`` (box names or aliases; ``filled`` may also be a mask number; ``all_same_held``, also
    written ``armed`` or in the old notation ``holds50``, alone means 1)."""
    rules = rules or CategoryRules()
    fields: dict[str, str] = {}
    for part in re.split(r"\s*\|\s*|\s+(?=(?:filled|upper|all_same_held|holds50|armed)\b)", text.strip()):
        if not part:
            continue
        m = re.fullmatch(r"(filled|upper|all_same_held|holds50|armed)\s*(?:[=:]\s*|\s+)?(.*)", part.strip(), re.I)
        if not m:
            raise PositionError(f"cannot read {part!r} in the state: write filled=<boxes> upper=<total> all_same_held=<0|1>")
        key = "all_same_held" if m.group(1).lower() in _HELD_WORDS else m.group(1).lower()
        if key in fields:
            raise PositionError(f"{key} is given twice in the state")
        fields[key] = m.group(2).strip()
    raw = fields.get("filled", "")
    if re.fullmatch(r"\d+", raw):
        filled = int(raw)
    else:
        filled = 0
        for name in (n for n in re.split(r"[\s,;]+", raw) if n and n != "-"):
            filled |= 1 << box_index(name, rules)
    upper_raw = fields.get("upper", "0") or "0"
    held_raw = fields.get("all_same_held", "0") or "1"
    if not re.fullmatch(r"\d+", upper_raw) or not re.fullmatch(r"[01]", held_raw):
        raise PositionError(f"upper must be a number and all_same_held 0 or 1, got upper={upper_raw!r} all_same_held={held_raw!r}")
    state = SheetState(filled, int(upper_raw), int(held_raw), rules.boxes)
    check_state(rules, state.filled, state.upper_total, state.all_same_held)
    return state


def parse_position(text: str | None, rules: CategoryRules | None = None) -> Position | SheetState:
    """Read a position: a score sheet such as ``"aces=3 twos=- fours=12 kniffel=50"`` (see module
    docs), or a state (``"filled=ones,chance upper=12 all_same_held=0"``, see ``parse_state``).

    Every score is checked against what the box can hold under ``rules`` (default: 5 dice,
    the Yahtzee rules); a malformed or impossible position raises ``PositionError``.
    """
    rules = rules or CategoryRules()
    text = (text or "").strip()
    names = rules.box_names
    if re.match(r"(filled|upper|all_same_held|holds50|armed)\b", text, re.I):
        return parse_state(text, rules)
    if text.lower() in _EMPTY:
        return Position.empty(rules)
    scores: list[int | None] = [None] * rules.num_boxes
    for token in re.split(r"[\s,;]+", text):
        if not token:
            continue
        m = re.fullmatch(r"([^=:]+)[=:](.*)", token)
        if not m:
            raise PositionError(f"cannot read {token!r} in the position: write box=score, e.g. aces=3 or twos=- (scratch)")
        name, raw = m.group(1), m.group(2).strip().lower()
        b = box_index(name, rules)
        if scores[b] is not None:
            raise PositionError(f"box {names[b]} is given twice in the position")
        if raw in _SCRATCH:
            score = 0
        elif re.fullmatch(r"\d+", raw):
            score = int(raw)
        else:
            raise PositionError(f"score {raw!r} for {names[b]} is not a number (use - for a scratch)")
        allowed = possible_scores(b, rules)
        if score not in allowed:
            raise PositionError(f"{names[b]}={score} is impossible; {names[b]} can hold {_ranges(allowed)}")
        scores[b] = score
    return Position(tuple(scores), rules.boxes)


def format_position(position: Position) -> str:
    """The canonical text of a position (sheet order, ``-`` for a scratch, ``start`` if empty)."""
    names = position.box_names
    parts = [f"{names[b]}={'-' if s == 0 else s}" for b, s in enumerate(position.scores) if s is not None]
    return " ".join(parts) if parts else "start"


def parse_dice(dice: str | Sequence[int | str] | None, rules: CategoryRules | None = None) -> tuple[int, ...] | None:
    """Dice showing as sorted faces: ``"1 1 2 2 5"``, ``"11225"``, ``"1,1,2,2,5"`` or ``[1, 1, 2, 2, 5]``.

    ``None`` or an empty text means no dice showing (start of a turn).
    """
    rules = rules or CategoryRules()
    if dice is None:
        return None
    if isinstance(dice, str):
        tokens = [t for t in re.split(r"[\s,;]+", dice.strip()) if t]
    else:
        tokens = [str(t).strip() for t in dice if str(t).strip()]
    if len(tokens) == 1 and re.fullmatch(r"\d{2,}", tokens[0]):
        tokens = list(tokens[0])
    if not tokens:
        return None
    faces = []
    for t in tokens:
        if not re.fullmatch(r"\d+", t) or not 1 <= int(t) <= 6:
            raise PositionError(f"die {t!r} is not a face 1..6")
        faces.append(int(t))
    if len(faces) != rules.dice:
        raise PositionError(f"{len(faces)} dice given; the game has {rules.dice} dice")
    return tuple(sorted(faces))


def format_dice(dice: Sequence[int] | None) -> str:
    return " ".join(str(d) for d in dice) if dice else "-"


def check_throws_left(throws_left: int | None, rules: CategoryRules, dice=None) -> int:
    """Re-throws still allowed in this turn, checked against the rules.

    With dice showing the default is ``rules.throws - 1`` (the first throw was just made);
    0 means a box must be filled now.
    """
    if dice is None:
        if throws_left not in (None, rules.throws - 1):
            raise PositionError("--rolls-left needs the dice showing (--dice)")
        return rules.throws - 1
    if throws_left is None:
        return rules.throws - 1
    if not 0 <= int(throws_left) <= rules.throws - 1:
        raise PositionError(f"re-throws left must be between 0 and {rules.throws - 1} under {rules.name} ({rules.throws} throws a turn), got {throws_left}")
    return int(throws_left)
