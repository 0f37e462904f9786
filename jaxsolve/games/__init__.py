"""The game registry: every game jaxsolve solves, by name.

A game lives in one package under ``jaxsolve/games/`` whose ``__init__`` lists its registrations
as ``GAMES`` (``Game`` values, ``jaxsolve.games.game``). The registry finds those packages by
itself on first use, so a new game is a new folder and nothing else; a game defined elsewhere
(a plug-in, a test) is added with ``register``. The CLI, ``jaxsolve play``, ``jaxsolve bench``
and the conformance tests iterate over ``games()``; no other module keeps a list of games.

Reading the registry imports no JAX: a package's ``__init__`` and its registrations are JAX-free,
and each hook imports what it needs when called.
"""

from __future__ import annotations

import importlib
import pkgutil

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Batch, Command, Game, Param, Ranked, Report

__all__ = ["Advice", "Batch", "Command", "Game", "Param", "Ranked", "Report", "games", "get_game", "register", "unregister"]

_REGISTRY: dict[str, Game] = {}
_FOUND = False


def _find() -> None:
    """Register the ``GAMES`` of every package under ``jaxsolve/games/`` (once)."""
    global _FOUND
    if _FOUND:
        return
    _FOUND = True
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.ispkg:
            for game in getattr(importlib.import_module(f"{__name__}.{info.name}"), "GAMES", ()):
                register(game)


def register(game: Game) -> Game:
    """Add ``game`` to the registry (a name may be registered once)."""
    _find()
    if game.name in _REGISTRY:
        raise JaxsolveError(f"game {game.name!r} is registered twice")
    _REGISTRY[game.name] = game
    return game


def unregister(name: str) -> None:
    """Remove a game added with ``register`` (for tests and plug-ins)."""
    _REGISTRY.pop(name, None)


def games() -> tuple[Game, ...]:
    _find()
    return tuple(_REGISTRY.values())


def get_game(name: str) -> Game:
    _find()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise JaxsolveError(f"unknown game {name!r}; choose one of {', '.join(_REGISTRY)}") from None
