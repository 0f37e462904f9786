"""Play a game against the exact solution, for every registered game that can be played.

``new_game(game, rules, ...)`` starts a game of a registered game whose registration names its
game class (``Game.play_game``, with the settings it takes in ``Game.play_params``);
``load_game(path)`` continues a saved one. A ``PlayedGame`` keeps the score sheet or scores and
the dice, ranks the options of the moment with their value and regret (``options()``), plays
throws and decisions (``throw``, ``choose``, ``enter`` for a typed line), takes moves back
(``undo``), and saves itself (``to_json``). Nothing here knows a game: everything comes from
the registry. The terminal loop is ``jaxsolve.cli.play``; see docs/play.md.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.played import SAVE_FORMAT, SAVE_VERSION, Decision, PlayError, PlayOption, PlayedGame, Ratings, Summary, read_save

__all__ = [
    "SAVE_FORMAT",
    "SAVE_VERSION",
    "Decision",
    "PlayError",
    "PlayOption",
    "PlayedGame",
    "Ratings",
    "Summary",
    "new_game",
    "game_from_json",
    "load_game",
    "read_save",
    "save_game",
    "settings_of",
    "Saver",
]

COMMON_SETTINGS = ("seed", "auto_roll")


def _playable(g, source: str | None = None):
    """The game class of the registered game ``g`` (``g.play_game()``), or a clear error."""
    cls = g.play_game() if g.play_game is not None else None
    if cls is None:
        raise JaxsolveError(f"{source + ': ' if source else ''}game {g.name} cannot be played")
    return cls


def settings_of(g) -> tuple[str, ...]:
    """The settings a new game of the registered game ``g`` takes: ``seed``, ``auto_roll`` and
    the game's own (``g.play_params``)."""
    return COMMON_SETTINGS + tuple(p.name for p in g.play_params)


def _unknown_settings(g, settings: dict) -> list[str]:
    return sorted(set(settings) - set(settings_of(g)))


def new_game(game: str, rules=None, solution=None, **settings) -> PlayedGame:
    """A new game of the registered game ``game`` under ``rules`` (a rules value, a preset name,
    or None for its default preset).

    ``solution`` (what the game class solves by itself, e.g. the category value table) is
    solved when not given. ``settings``: ``seed``, ``auto_roll`` and the game's own
    (``Game.play_params``: e.g. who starts, how many turns)."""
    from jaxsolve import games

    g = games.get_game(game)
    cls = _playable(g)
    unknown = _unknown_settings(g, settings)
    if unknown:
        raise JaxsolveError(f"unknown setting(s) {', '.join(unknown)} for {g.name}; it takes {', '.join(settings_of(g))}")
    rules = g.get_rules() if rules is None else (g.get_rules(rules) if isinstance(rules, str) else rules)
    if not isinstance(rules, cls.rules_type):
        raise JaxsolveError(f"rules {getattr(rules, 'name', rules)!r} are not rules of {game}")
    return cls(g.name, rules, solution, **settings)


def rules_of_game(g, rules) -> bool:
    """Whether ``rules`` are one of ``g``'s presets with some of its overridable fields changed
    (as ``--rules P --OPTION ...`` makes them). A save whose rules are another game's in this
    sense is refused (a Yahtzee sheet whose save says ``yatzy``); rules of no registered game
    (custom rules played through the library) are accepted."""
    import dataclasses

    try:
        fields = [f.name for f in type(rules).option_fields()]
    except AttributeError:
        fields = []
    over = {n: getattr(rules, n) for n in fields}
    for name in g.presets():
        try:
            cand = g.get_rules(name).replace(**over) if over else g.get_rules(name)
        except Exception:  # an override this preset does not take
            continue
        if cand == rules or (hasattr(cand, "name") and dataclasses.replace(cand, name=rules.name) == rules):
            return True
    return False


def game_from_json(data: dict, source: str = "saved game", *, game: str | None = None, solution=None) -> PlayedGame:
    """A game continued from a save file's content (``PlayedGame.to_json``): the rules and
    settings are checked, then every move is replayed (``JaxsolveError`` naming the first
    move that cannot be played)."""
    from jaxsolve import games

    if game is not None and data.get("game") != game:
        raise JaxsolveError(f"{source} holds a game of {data.get('game')!r}, not {game}")
    g = games.get_game(data["game"])
    if data.get("kind") != g.family:
        raise JaxsolveError(f"{source}: kind {data.get('kind')!r} does not match game {g.name} ({g.family})")
    cls = _playable(g, source)
    try:
        rules = cls.rules_type.from_dict(data["rules"])
    except JaxsolveError as exc:
        raise JaxsolveError(f"{source}: {exc}") from None
    if not rules_of_game(g, rules):
        owners = [h.name for h in games.games() if h.name != g.name and h.family == g.family and rules_of_game(h, rules)]
        if owners:
            raise JaxsolveError(f"{source}: rules {rules.name!r} are rules of {' and '.join(owners)}, not of {g.name}")
    settings = dict(data["settings"])
    unknown = _unknown_settings(g, settings)
    if unknown:
        raise JaxsolveError(f"{source}: unknown setting(s) {', '.join(unknown)}")
    if not isinstance(settings.get("seed"), int) or isinstance(settings.get("seed"), bool):
        raise JaxsolveError(f"{source}: settings need an integer seed")
    if "auto_roll" in settings and not isinstance(settings["auto_roll"], bool):
        raise JaxsolveError(f"{source}: the setting auto_roll is malformed: {settings['auto_roll']!r} is not true or false")
    for p in g.play_params:
        if p.name in settings:
            try:
                p.check(settings[p.name], p.name)
            except JaxsolveError as exc:
                raise JaxsolveError(f"{source}: the setting {p.name} is malformed ({exc})") from None
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
