"""The game registry: every game jaxsolve solves, by name, with its presets and entry points.

A game is its rules (a ``Rules`` value with named presets) plus a registration here: how to
solve it, where its values are, which states are reachable, how to export and load a
solution, and which CLI module carries its commands. The CLI, ``jaxsolve bench`` and the
conformance tests iterate over ``games()``; no other module keeps a list of games.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from jaxsolve.core.rules import Presets, Rules
from jaxsolve.errors import JaxsolveError


@dataclass(frozen=True)
class Game:
    """One registered game.

    Attributes:
        name: the game's one name (CLI: ``jaxsolve solve NAME``).
        title: a line for listings.
        core: ``layered`` (backward induction) or ``fixpoint`` (cyclic states).
        presets: a callable returning the game's ``Presets`` (imported on first use).
        default: the preset a command uses when none is named.
        small: a preset (or rules) that solves in seconds, for tests and quick benchmarks.
        solve: ``solve(rules, dtype=, device=) -> solution`` with ``game_value``,
            ``compile_seconds`` and ``solve_seconds``.
        values: ``values(solution) -> np.ndarray``, the exported value tensor.
        reachable: ``reachable(rules) -> bool array`` of the value tensor's shape (NaN elsewhere),
            or None when every entry is a state.
        save, load: ``save(path, solution)``, ``load(path) -> solution`` (validated).
        cli: the modules that register the game's commands.
    """

    name: str
    title: str
    core: str
    presets: Callable[[], Presets]
    default: str
    small: Callable[[], Rules]
    solve: Callable[..., Any]
    values: Callable[[Any], np.ndarray]
    reachable: Callable[[Rules], np.ndarray] | None
    save: Callable[[Any, Any], Any] | None
    load: Callable[[Any], Any] | None
    cli: tuple[str, ...]

    def get_rules(self, name: str | None = None) -> Rules:
        return self.presets().get_rules(name or self.default)


_REGISTRY: dict[str, Game] = {}


def register(game: Game) -> Game:
    if game.name in _REGISTRY:
        raise JaxsolveError(f"game {game.name!r} is registered twice")
    _REGISTRY[game.name] = game
    return game


def games() -> tuple[Game, ...]:
    return tuple(_REGISTRY.values())


def get_game(name: str) -> Game:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise JaxsolveError(f"unknown game {name!r}; choose one of {', '.join(_REGISTRY)}") from None


def load_cli_modules() -> None:
    """Import every registered game's CLI module (each adds its commands to the groups)."""
    for game in games():
        for module in game.cli:
            importlib.import_module(module)




def late(module: str, name: str) -> Callable:
    """``module.name`` imported at the first call (the registry imports no game up front)."""

    def call(*args, **kwargs):
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = name
    return call


def _presets(module: str) -> Callable[[], Presets]:
    return lambda: importlib.import_module(module).PRESETS


# ----------------------------------------------------------------------------- registrations


def _category_export(name: str, game: str) -> Callable:
    """``kniffel.store``'s save / load for one registered category game (the sidecar names it)."""
    fn = late("jaxsolve.kniffel.store", name)

    def call(*args, **kwargs):
        return fn(*args, game=game, **kwargs)

    call.__name__ = name
    return call


def _kniffel_small():
    from jaxsolve.kniffel.rules import CategoryRules

    return CategoryRules(name="reduced-3-dice", dice=3, upper_threshold=6, extra_bonus=10)


def _category_solve(rules, *, dtype=None, device=None):
    from jaxsolve.kniffel import solver

    return solver.solve(rules, dtype=dtype, device=device, chunk=256 if rules.dice < 5 else 1024)


register(
    Game(
        name="kniffel",
        title="Kniffel / Yahtzee and other category games (score sheets as data)",
        core="layered",
        presets=_presets("jaxsolve.kniffel.rules"),
        default="yahtzee",
        small=_kniffel_small,
        solve=_category_solve,
        values=lambda sol: sol.values,
        reachable=late("jaxsolve.kniffel.store", "reachable_mask"),
        save=_category_export("save_solution", "kniffel"),
        load=_category_export("load_solution", "kniffel"),
        cli=("jaxsolve.cli.kniffel", "jaxsolve.cli.analysis", "jaxsolve.cli.distribution", "jaxsolve.cli.simulation"),
    )
)

def _yatzy_small():
    from jaxsolve.yatzy import small

    return small()


register(
    Game(
        name="yatzy",
        title="Scandinavian Yatzy (15 boxes) and its variants, on the category engine",
        core="layered",
        presets=_presets("jaxsolve.yatzy"),
        default="yatzy",
        small=_yatzy_small,
        solve=_category_solve,
        values=lambda sol: sol.values,
        reachable=late("jaxsolve.kniffel.store", "reachable_mask"),
        save=_category_export("save_solution", "yatzy"),
        load=_category_export("load_solution", "yatzy"),
        cli=(),
    )
)

register(
    Game(
        name="raab",
        title="Schlag den Raab dice duel and the Pig family (win probabilities as a fixpoint)",
        core="fixpoint",
        presets=_presets("jaxsolve.pig"),
        default="raab",
        small=lambda: _presets("jaxsolve.pig")()["piglet"],
        solve=late("jaxsolve.pig", "solve"),
        values=lambda sol: sol.start,
        reachable=None,
        save=None,  # exports the whole-state layout (pig.save_export / load_export), not ``start``
        load=None,
        cli=("jaxsolve.cli.raab",),
    )
)

register(
    Game(
        name="zehntausend",
        title="Zehntausend: the optimal expected turn score E(p, n)",
        core="layered",
        presets=_presets("jaxsolve.zehntausend"),
        default="peter-2013",
        small=lambda: _presets("jaxsolve.zehntausend")()["no-two-fives"],
        solve=late("jaxsolve.zehntausend", "solve"),
        values=lambda sol: sol.E,
        reachable=None,
        save=late("jaxsolve.zehntausend", "save_solution"),
        load=late("jaxsolve.zehntausend", "load_solution"),
        cli=("jaxsolve.cli.zehntausend",),
    )
)
