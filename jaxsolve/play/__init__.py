"""Play a game against the exact solution: one game object per game kind.

``new_game(game, rules, ...)`` starts a game of a registered game (``category`` games such
as Kniffel / Yahtzee, the ``raab`` duel, ``zehntausend``); ``load_game(path)`` continues a
saved one. A ``PlayedGame`` keeps the score sheet or scores and the dice, ranks the options of the
moment with their value and regret (``options()``), plays throws and decisions (``throw``,
``choose``, ``enter`` for a typed line), takes moves back (``undo``), and saves itself
(``to_json``). The terminal loop is ``jaxsolve.cli.play``; see docs/play.md.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from jaxsolve.errors import JaxsolveError
from jaxsolve.play.base import SAVE_FORMAT, SAVE_VERSION, Decision, PlayError, PlayOption, PlayedGame, Summary, read_save

__all__ = [
    "SAVE_FORMAT",
    "SAVE_VERSION",
    "Decision",
    "PlayError",
    "PlayOption",
    "PlayedGame",
    "Summary",
    "KINDS",
    "kind_of",
    "new_game",
    "load_game",
    "read_save",
    "save_game",
    "Saver",
]

KINDS = ("category", "raab", "zehntausend")


def kind_of(game) -> str:
    """The game kind of a registered game (from the type of its rules), or a clear error."""
    from jaxsolve.games.category.rules import CategoryRules
    from jaxsolve.games.raab.rules import PigRules
    from jaxsolve.games.zehntausend.rules import ZehntausendRules

    rules = game.get_rules()
    for cls, kind in ((CategoryRules, "category"), (PigRules, "raab"), (ZehntausendRules, "zehntausend")):
        if isinstance(rules, cls):
            return kind
    raise JaxsolveError(f"game {game.name!r} cannot be played yet (no game for {type(rules).__name__})")


def _game_class(kind: str):
    if kind == "category":
        from jaxsolve.games.category.play import CategoryGame

        return CategoryGame
    if kind == "raab":
        from jaxsolve.games.raab.play import RaabGame

        return RaabGame
    if kind == "zehntausend":
        from jaxsolve.games.zehntausend.play import ZehntausendGame

        return ZehntausendGame
    raise JaxsolveError(f"unknown game kind {kind!r}; choose one of {', '.join(KINDS)}")


def new_game(game: str, rules=None, solution=None, **settings) -> PlayedGame:
    """A new game of the registered game ``game`` under ``rules`` (default: its default preset).

    ``solution`` (the category value table, ``raab.full(...)`` or the Zehntausend solution) is
    solved when not given. ``settings``: ``seed``, ``auto_roll``; raab ``opponent``, ``first``;
    zehntausend ``turns``.
    """
    from jaxsolve import games

    g = games.get_game(game)
    rules = g.get_rules() if rules is None else (g.get_rules(rules) if isinstance(rules, str) else rules)
    cls = _game_class(kind_of(g))
    if not isinstance(rules, cls.rules_type):
        raise JaxsolveError(f"rules {getattr(rules, 'name', rules)!r} are not rules of {game}")
    return cls(game, rules, solution, **settings)


def game_from_json(data: dict, source: str = "saved game", *, game: str | None = None, solution=None) -> PlayedGame:
    """A game continued from a save file's content (``PlayedGame.to_json``): the rules and
    settings are checked, then every move is replayed (``JaxsolveError`` naming the first
    move that cannot be played)."""
    from jaxsolve import games

    if game is not None and data.get("game") != game:
        raise JaxsolveError(f"{source} holds a game of {data.get('game')!r}, not {game}")
    g = games.get_game(data["game"])
    kind = kind_of(g)
    if data.get("kind") != kind:
        raise JaxsolveError(f"{source}: kind {data.get('kind')!r} does not match game {g.name} ({kind})")
    cls = _game_class(kind)
    try:
        rules = cls.rules_type.from_dict(data["rules"])
    except JaxsolveError as exc:
        raise JaxsolveError(f"{source}: {exc}") from None
    settings = dict(data["settings"])
    allowed = {"seed", "auto_roll"} | set({"raab": ("opponent", "first"), "zehntausend": ("turns",)}.get(kind, ()))
    unknown = sorted(set(settings) - allowed)
    if unknown:
        raise JaxsolveError(f"{source}: unknown setting(s) {', '.join(unknown)}")
    if not isinstance(settings.get("seed"), int) or isinstance(settings.get("seed"), bool):
        raise JaxsolveError(f"{source}: settings need an integer seed")
    try:
        played = cls(g.name, rules, solution, **settings)
    except TypeError as exc:
        raise JaxsolveError(f"{source}: bad settings ({exc})") from None
    except JaxsolveError as exc:
        raise JaxsolveError(f"{source}: {exc}") from None
    played.replay(data["moves"], source)
    return played


def load_game(path, *, game: str | None = None, solution=None) -> PlayedGame:
    """``game_from_json`` of a save file, checked (``read_save``)."""
    return game_from_json(read_save(path), str(path), game=game, solution=solution)


def save_game(played: PlayedGame, path) -> Path:
    """Write ``played.to_json()`` to ``path`` atomically (a temporary file renamed over it)."""
    from jaxsolve.io import export

    return export.atomic_write_text(Path(path), json.dumps(played.to_json(), indent=1) + "\n")


class Saver:
    """Saves a game after every move without making the player wait for the disk: the
    snapshot is taken at once (``submit``), a worker thread writes it atomically (temporary
    file, fsync, rename), newer snapshots replace ones not yet written. ``flush`` waits until
    the last snapshot is on disk and raises the last write error, if any."""

    def __init__(self, path):
        self.path = Path(path)
        self._pending: str | None = None
        self._busy = False
        self._error: JaxsolveError | None = None
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="jaxsolve-play-saver", daemon=True)
        self._thread.start()

    def submit(self, played: PlayedGame) -> None:
        text = json.dumps(played.to_json(), indent=1) + "\n"
        with self._cond:
            self._pending = text
            self._cond.notify_all()

    def error(self) -> JaxsolveError | None:
        """The last write error not yet reported (cleared by reading it)."""
        with self._cond:
            err, self._error = self._error, None
            return err

    def flush(self) -> None:
        with self._cond:
            while self._pending is not None or self._busy:
                self._cond.wait()
        err = self.error()
        if err is not None:
            raise err

    def _run(self) -> None:
        from jaxsolve.io import export

        while True:
            with self._cond:
                while self._pending is None:
                    self._cond.wait()
                text, self._pending, self._busy = self._pending, None, True
            try:
                export.atomic_write_text(self.path, text)
            except (JaxsolveError, OSError) as exc:
                with self._cond:
                    self._error = exc if isinstance(exc, JaxsolveError) else JaxsolveError(f"cannot save to {self.path}: {exc}")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
