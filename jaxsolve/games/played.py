"""The game-independent part of a game in play: moves, undo, virtual dice, the save file.

A game is one game in progress against the exact solution. Its state changes only by
*moves*: a throw (dice typed or thrown by the game's seeded virtual dice) or a decision
(an option of ``options()``). Each move is a small dict (``{"action": "throw", "dice": [..]}``,
``{"action": "fill", "box": "chance"}``, ...); a move the game makes by itself (a virtual
throw under ``auto_roll``, a bot's decision, a forced stop) is flagged ``"auto": true``.
``undo()`` takes back the last move typed, with the automatic moves that followed it. The
save file (``to_json``) holds the rules, the settings and the moves; ``from_json`` replays
the moves, so a loaded game is checked move by move.

A subclass (one per game; the registry's ``Game.play_game`` returns it) gives the states and
the rules of a move: ``initial_state``, ``awaiting``, ``apply``, ``ranked_options``,
``auto_move`` and the texts a person types. What the terminal shows besides the options comes
from the game too, with defaults a game may keep: ``status`` (required), ``board`` (further
lines, e.g. a score sheet; none by default), ``ratings`` (a second opinion beside the options;
none by default), ``summary`` (its ``Summary.expected_label`` names what ``expected`` is), ``warm`` (compile
what an answer needs; nothing by default) and ``advise_options`` (the decision as a question
to the game's ``advise`` command; none by default).
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np

from jaxsolve.core.dice import parse_faces
from jaxsolve.errors import JaxsolveError

SAVE_FORMAT = "jaxsolve-play"
SAVE_VERSION = 2
OLD_SAVE_VERSIONS = (1,)  # 1: the category rules fields before the renames (rolls, instant_kniffel, box kind yahtzee)
BEST_WORDS = ("", "b", "best")


class PlayError(JaxsolveError):
    """Input typed during a game that cannot be played (the game goes on unchanged)."""


@dataclass(frozen=True)
class PlayOption:
    """One option of the player to move, ranked: ``value`` and ``regret`` (best value - value) in
    the game's unit; ``move`` is what choosing it records; ``detail`` the library's own
    option (``category.advisor.Option``, ``zehntausend.Choice``, the raab decision)."""

    label: str
    value: float
    regret: float
    move: dict
    detail: Any = None


@dataclass(frozen=True)
class Decision:
    """One decision of yours, as the final table lists it."""

    number: int
    where: str
    chosen: str
    best: str
    value: float
    regret: float

    def to_dict(self) -> dict:
        return {"move": self.number, "where": self.where, "chosen": self.chosen, "best": self.best, "value": self.value, "regret": self.regret}


@dataclass(frozen=True)
class Summary:
    """The end (or the state so far) of a game: ``score`` (points, or 1/0 for a duel won/lost),
    ``expected`` (the optimal expectation from the start), ``regret`` (sum over your decisions),
    ``lines`` (the game's own lines: the score, the result). ``expected_label`` says what
    ``expected`` is where "optimal expectation from the start" (in ``unit``) does not fit, e.g.
    ``your win probability at the start (both optimal)``; it is then shown without the unit."""

    score: float
    expected: float
    regret: float
    decisions: tuple[Decision, ...]
    unit: str
    lines: tuple[str, ...] = field(default=())
    expected_label: str | None = None

    def to_dict(self) -> dict:
        return {
            "score": self.score,
            "expected": self.expected,
            "regret": self.regret,
            "unit": self.unit,
            "decisions": [d.to_dict() for d in self.decisions],
        }


@dataclass(frozen=True)
class Ratings:
    """A second opinion on the options of a moment (e.g. a rating heuristic), shown beside them.

    ``name``: what rates (``heuristic``: the column's word, ``<name> ratings on/off``);
    ``beside``: one text per option of ``options()``, in its order ("" where nothing rates
    that option); ``every``: every rating in one line (shown as ``<name> ratings: <every>``).
    While no decision is due, ``beside`` is empty."""

    name: str
    beside: tuple[str, ...] = ()
    every: str = ""


def split_tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,;]+", text.strip()) if t]


def typed_faces(text: str | Sequence[int], sides: int = 6, *, packed: bool = True) -> list[int]:
    """``jaxsolve.core.dice.parse_faces`` (the one grammar of typed dice), its error a ``PlayError``."""
    try:
        return parse_faces(text, sides, packed=packed)
    except PlayError:
        raise
    except JaxsolveError as exc:
        raise PlayError(str(exc)) from None


def fmt_faces(faces: Sequence[int | str]) -> str:
    return " ".join(map(str, faces)) if len(faces) else "nothing"


class PlayedGame:
    """One game in progress. Subclasses set ``unit``, ``rules_type`` and the game's rules of a move."""

    unit: ClassVar[str] = "points"
    rules_type: ClassVar[type] = object

    def __init__(self, game: str, rules, solution, *, seed: int | None = None, auto_roll: bool = False):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**63):
            raise JaxsolveError(f"seed must be an integer 0..2^63-1, got {seed!r}")
        self.game = game
        self.rules = rules
        self.solution = solution
        self.seed = secrets.randbits(32) if seed is None else int(seed)
        self.auto_roll = bool(auto_roll)
        self.moves: list[dict] = []
        self.news: list[str] = []
        self._before: list[Any] = []
        self.state = self.initial_state()
        self._options: tuple[Any, list[PlayOption]] | None = None
        self._auto()

    # ------------------------------------------------------------------ the game's part

    def initial_state(self):
        raise NotImplementedError

    def awaiting(self) -> str:
        """``dice`` (a throw is due), ``choice`` (a decision) or ``over``."""
        raise NotImplementedError

    def mover(self) -> str:
        """Who throws or decides now: ``you`` or ``them`` (a duel's opponent)."""
        return "you"

    def throw_size(self) -> int:
        """How many dice the due throw has."""
        raise NotImplementedError

    def sides(self) -> int:
        return 6

    def read_throw(self, text) -> list[int]:
        """The faces of a typed throw (the dice thrown), checked (``PlayError`` otherwise)."""
        faces = typed_faces(text, self.sides())
        n = self.throw_size()
        if len(faces) != n:
            raise PlayError(f"{len(faces)} dice typed; this throw has {n} {'die' if n == 1 else 'dice'}")
        return sorted(faces)

    def apply(self, state, move: dict):
        """``(next state, what happened)`` after ``move``; ``PlayError`` for an illegal move."""
        raise NotImplementedError

    def ranked_options(self) -> list[PlayOption]:
        """Every option of the player to move, best first (only while ``awaiting() == 'choice'``)."""
        raise NotImplementedError

    def named_option(self, text: str, options: list[PlayOption]) -> PlayOption:
        """The option a typed name (``keep 6 6``, ``fill chance``, ``stop``) means."""
        raise NotImplementedError

    def auto_move(self) -> dict | None:
        """A move the game makes by itself here (a bot's decision, a forced stop), or None."""
        return None

    def where(self) -> str:
        """The moment of a decision, for the final table (e.g. ``turn 3, dice 1 2 3 4 6``)."""
        raise NotImplementedError

    def value_now(self) -> float | None:
        """The value of this moment for the player to move (None where it is not defined)."""
        raise NotImplementedError

    def status(self) -> list[str]:
        """Lines that show the game as it stands."""
        raise NotImplementedError

    def summary(self) -> Summary:
        raise NotImplementedError

    def settings(self) -> dict:
        return {}

    def help_choice(self) -> str:
        return "a number from the list, or b (Enter) for the best"

    def board(self) -> list:
        """Lines shown after ``status()`` (a score sheet, say); none by default. A line is a
        ``str`` or a sequence of ``(text, style)`` pieces (``style``: a rich style such as
        ``bold`` or ``dim``, or None), shown styled on a terminal and as plain text otherwise."""
        return []

    def ratings(self) -> Ratings | None:
        """A second opinion on the options of this moment (``Ratings``), or None: the game has
        none (the default). A game that has ratings, but not under these rules, raises a
        ``PlayError`` that says why."""
        return None

    def warm(self) -> None:
        """Compile and run once what an answer needs, so that the first answer is as fast as
        the others (called once before the game is shown); nothing by default."""

    def advise_options(self) -> dict | None:
        """The question this decision is to the game's ``advise`` command: its options by
        ``Param`` name (the rules are the game's), or None where it has no such question (the
        default). ``jaxsolve.testing`` checks that ``advise`` ranks the same options alike."""
        return None

    @property
    def family(self) -> str:
        """The game's family in the registry (the save file's ``kind``)."""
        from jaxsolve.games import get_game

        return get_game(self.game).family

    # ------------------------------------------------------------------ moves

    @property
    def over(self) -> bool:
        return self.awaiting() == "over"

    def options(self) -> list[PlayOption]:
        """The ranked options of this moment (cached per state); empty unless a choice is due."""
        if self.awaiting() != "choice":
            return []
        if self._options is None or self._options[0] is not self.state:
            self._options = (self.state, self.ranked_options())
        return self._options[1]

    def virtual_throw(self) -> list[int]:
        """The seeded virtual dice of the due throw: throw ``k`` of the game (typed throws
        count) always shows the same faces for the same seed, also after an undo."""
        k = sum(1 for m in self.moves if m["action"] == "throw")
        rng = np.random.default_rng([self.seed, k])
        return sorted(int(x) for x in rng.integers(1, self.sides() + 1, size=self.throw_size()))

    def throw(self, dice=None) -> list[int]:
        """Enter the due throw: ``dice`` typed (text or faces) or None for the virtual dice."""
        self._expect("dice")
        faces = self.virtual_throw() if dice is None else self.read_throw(dice)
        self.news = []
        self._push(self._throw_move(faces, dice is None))
        return faces

    def showing(self, thrown: list[int]) -> list[int]:
        """The dice showing after ``thrown`` fell (a category game adds the dice kept)."""
        return sorted(thrown)

    def _throw_move(self, thrown: list[int], virtual: bool) -> dict:
        return {"action": "throw", "by": self.mover(), "dice": self.showing(thrown), "virtual": virtual}

    def pick(self, choice: int | str | None = None) -> PlayOption:
        """The option ``choice`` means: None / "" / "b" / "best" the best, a number its rank
        (1 = best), else a name (``named_option``)."""
        self._expect("choice")
        options = self.options()
        text = "" if choice is None else str(choice).strip()
        if text.lower() in BEST_WORDS:
            return options[0]
        if re.fullmatch(r"#?\d+", text):
            i = int(text.lstrip("#"))
            if not 1 <= i <= len(options):
                raise PlayError(f"there is no option {i}; the options are numbered 1 to {len(options)}")
            return options[i - 1]
        return self.named_option(text, options)

    def choose(self, choice: int | str | None = None) -> PlayOption:
        """Play an option (see ``pick``) and return it."""
        option = self.pick(choice)
        move = dict(option.move, by=self.mover())
        if self.mover() == "you":
            best = self.options()[0]
            move.update(label=option.label, value=option.value, best=best.label, regret=max(option.regret, 0.0), where=self.where())
        self.news = []
        self._push(move)
        return option

    def enter(self, text: str) -> None:
        """One typed line: a throw when dice are due (empty: virtual dice), else a choice."""
        state = self.awaiting()
        if state == "over":
            raise PlayError("the game is over")
        if state == "dice":
            stripped = text.strip().lower()
            if stripped in ("", "roll", "r"):
                self.throw(None)
                return
            if stripped in ("b", "best") or not re.fullmatch(r"[\d\s,;]+", stripped):
                raise PlayError(f"a throw is due: type the {self._dice_words()} or press Enter to throw virtual dice")
            self.throw(text)
            return
        self.choose(text)

    def undo(self) -> None:
        """Take back the last move typed and the automatic moves after it."""
        if not any(not m.get("auto") for m in self.moves):
            raise PlayError("nothing to undo")
        while self.moves[-1].get("auto"):
            self._pop()
        self._pop()
        self.news = ["took the last move back"]

    def _pop(self) -> None:
        self.moves.pop()
        self.state = self._before.pop()

    def _dice_words(self) -> str:
        n = self.throw_size()
        return f"{n} {'die' if n == 1 else 'dice'} you threw" if self.mover() == "you" else f"{n} {'die' if n == 1 else 'dice'} they threw"

    def _expect(self, what: str) -> None:
        state = self.awaiting()
        if state == what:
            return
        if state == "over":
            raise PlayError("the game is over")
        if state == "dice":
            raise PlayError(f"a throw is due: type the {self._dice_words()} or press Enter to throw virtual dice")
        raise PlayError(f"a decision is due: {self.help_choice()}")

    def _push(self, move: dict, auto: bool = False) -> None:
        new, text = self.apply(self.state, move)
        self._before.append(self.state)
        self.moves.append({**move, "auto": auto})
        self.state = new
        if text:
            self.news.append(text)
        if not auto:
            self._auto()

    def _auto(self) -> None:
        move: dict | None
        while not self.over:
            if self.awaiting() == "dice" and self.auto_roll:
                move = self._throw_move(self.virtual_throw(), True)
            else:
                move = self.auto_move()
            if move is None:
                return
            self._push(move, auto=True)

    # ------------------------------------------------------------------ your decisions

    def decisions(self) -> tuple[Decision, ...]:
        out = []
        for i, m in enumerate(self.moves, 1):
            if "regret" in m:
                out.append(Decision(i, m["where"], m["label"], m["best"], m["value"], m["regret"]))
        return tuple(out)

    @property
    def regret(self) -> float:
        return float(sum(d.regret for d in self.decisions()))

    # ------------------------------------------------------------------ the save file

    def to_json(self) -> dict:
        """The save file's content (see docs/play.md)."""
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "game": self.game,
            "kind": self.family,
            "rules": self.rules.to_dict(),
            "settings": {"seed": self.seed, "auto_roll": self.auto_roll, **self.settings()},
            "moves": [_plain_move(m) for m in self.moves],
            "over": self.over,
            "summary": self.summary().to_dict(),
        }

    def replay(self, moves: list, source: str) -> None:
        """Play the typed moves of a save file again (the automatic ones follow by themselves)
        and check that every move, automatic ones included, comes out as saved."""
        if not isinstance(moves, list) or not all(isinstance(m, dict) for m in moves):
            raise JaxsolveError(f"{source}: 'moves' must be a list of objects")
        for i, m in enumerate(moves, 1):
            if m.get("auto") is True:
                continue
            try:
                self._replay_one(m)
            except JaxsolveError as exc:
                raise JaxsolveError(f"{source}: move {i} ({_describe(m)}) cannot be played: {exc}") from None
        if [_action(m) for m in self.moves] != [_action(m) for m in moves]:
            n = next((i for i, (a, b) in enumerate(zip(self.moves, moves), 1) if _action(a) != _action(b)), min(len(self.moves), len(moves)) + 1)
            raise JaxsolveError(f"{source}: the moves do not replay as saved (first difference at move {n})")
        self.news = []

    def _replay_one(self, m: dict) -> None:
        action = m.get("action")
        if action == "throw":
            dice = m.get("dice")
            if not isinstance(dice, list):
                raise PlayError("a throw needs its dice")
            if m.get("by", "you") != self.mover():
                raise PlayError(f"it is not {m.get('by')!r}'s throw")
            self._expect("dice")
            self.news = []
            self._push({"action": "throw", "by": self.mover(), "dice": dice, "virtual": bool(m.get("virtual", False))})
            return
        self._expect("choice")
        want = _action(m)
        for option in self.options():
            if _action({**option.move, "by": self.mover()}) == want:
                self.choose(self.options().index(option) + 1)
                return
        self.apply(self.state, {k: v for k, v in m.items() if k not in _INFO})  # says why, for an illegal move
        raise PlayError("not one of the options here")


def _plain_move(m: dict) -> dict:
    return {k: (float(v) if isinstance(v, (float, np.floating)) else v) for k, v in m.items()}


_INFO = ("auto", "virtual", "label", "value", "best", "regret", "where", "info")  # info: a game's own record of a decision


def _action(m: dict) -> tuple:
    """What a move does (the informational fields left out), comparable across a save."""
    return tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in m.items() if k not in _INFO))


def _describe(m: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in m.items() if k not in _INFO) or "empty"


MAX_SAVE_BYTES = 64 << 20
"""A save file larger than this is refused before it is read (a whole game is a few KiB)."""


def read_save(path: str | Path) -> dict:
    """A save file's JSON, checked to be one (``JaxsolveError`` with a clear reason otherwise)."""
    path = Path(path)
    if not path.exists():
        raise JaxsolveError(f"saved game {path} does not exist")
    if path.is_dir():
        raise JaxsolveError(f"saved game {path} is a directory")
    if path.is_file() and path.stat().st_size > MAX_SAVE_BYTES:
        raise JaxsolveError(f"{path} is {path.stat().st_size:,} bytes, too large for a saved game")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise JaxsolveError(f"{path} is not a saved game (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JaxsolveError(f"{path} is not a saved game (broken JSON: {exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise JaxsolveError(f"{path} is not a saved game (JSON nested too deeply)") from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise JaxsolveError(f"{path} is not a saved game of jaxsolve play (no \"format\": \"{SAVE_FORMAT}\")")
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version in OLD_SAVE_VERSIONS:
        raise JaxsolveError(f"{path} was written by an older jaxsolve (save format version {version}); it cannot be continued with this version")
    if version != SAVE_VERSION:
        raise JaxsolveError(f"{path}: save format version {data.get('version')!r} is not supported (this is version {SAVE_VERSION})")
    for key, kind in (("game", str), ("kind", str), ("rules", dict), ("settings", dict), ("moves", list)):
        if not isinstance(data.get(key), kind):
            raise JaxsolveError(f"{path}: field {key!r} is missing or not a {kind.__name__}")
    return data


class OneDieThrows:
    """The throws of a Pig-family game in play: one die a throw, a move after each (``rules``
    has ``sides``; ``state`` has ``winner`` and ``rolled``)."""

    rules: Any
    state: Any

    def awaiting(self) -> str:
        s = self.state
        if s.winner is not None:
            return "over"
        return "choice" if s.rolled else "dice"

    def throw_size(self) -> int:
        return 1

    def sides(self) -> int:
        return self.rules.sides

    def read_throw(self, text) -> list[int]:
        faces = typed_faces(text, self.rules.sides, packed=False)
        if len(faces) != 1:
            raise PlayError(f"one throw is one face 1..{self.rules.sides}; got {len(faces)}")
        return faces

    def thrown_face(self, s, move: dict) -> int:
        """The face of the throw ``move`` in state ``s``; a PlayError where a decision is due
        instead, or where the move is not one face of the die."""
        if s.rolled:
            raise PlayError("a decision is due, not a throw")
        dice = move.get("dice", [])
        if len(dice) != 1 or not 1 <= int(dice[0]) <= self.rules.sides:
            raise PlayError(f"a throw is one face 1..{self.rules.sides}, got {dice}")
        return int(dice[0])

    stop_action = "stop"
    """The name of the move that ends a turn and keeps its points (``bank`` at a table)."""

    def help_choice(self) -> str:
        raise NotImplementedError

    def named_option(self, text: str, options: list[PlayOption]) -> PlayOption:
        word = " ".join(split_tokens(text.lower()))
        stop = self.stop_action
        action = {"roll": "roll", "r": "roll", "again": "roll", "stop": stop, "s": stop, "bank": stop}.get(word)
        if action is None:
            raise PlayError(f"unknown choice {text.strip()!r}: type {self.help_choice()}")
        return next(o for o in options if o.move["action"] == action)
