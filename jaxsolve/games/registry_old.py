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
        bench_presets: the presets ``jaxsolve bench`` times (default: ``default``).
        bench_extra: ``bench_extra(rules, quick, dtype, devices) -> [(label, n_devices, run)]``,
            further cases of the game for ``jaxsolve bench``.
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
    bench_presets: tuple[str, ...] = ()
    bench_extra: Callable[..., list] | None = None

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


CATEGORY_CLI = ("jaxsolve.cli.kniffel", "jaxsolve.cli.analysis", "jaxsolve.cli.distribution", "jaxsolve.cli.simulation")
"""The commands of a category game (solve, advise, analyze, distribution, advise-target, simulate)."""


def _category_export(name: str, game: str) -> Callable:
    """``kniffel.store``'s save / load for one registered category game (the sidecar names it)."""
    fn = late("jaxsolve.games.category.table_io", name)

    def call(*args, **kwargs):
        return fn(*args, game=game, **kwargs)

    call.__name__ = name
    return call


def _kniffel_small():
    from jaxsolve.games.category.rules import CategoryRules

    return CategoryRules(name="reduced-3-dice", dice=3, upper_threshold=6, extra_bonus=10)


def _category_solve(rules, *, dtype=None, device=None):
    from jaxsolve.games.category import solver

    return solver.solve(rules, dtype=dtype, device=device, chunk=256 if rules.dice < 5 else 1024)


def category_game(name: str, title: str, module: str, default: str, small: Callable, bench_presets: tuple[str, ...] = ()) -> Game:
    """A category game (rules module ``module`` with ``PRESETS``) on the category engine: its
    solve, values, reachable states, export, commands and bench cases are the engine's."""
    return Game(
        name=name,
        title=title,
        core="layered",
        presets=_presets(module),
        default=default,
        small=small,
        solve=_category_solve,
        values=lambda sol: sol.values,
        reachable=late("jaxsolve.games.category.table_io", "reachable_mask"),
        save=_category_export("save_solution", name),
        load=_category_export("load_solution", name),
        cli=CATEGORY_CLI,
        bench_presets=bench_presets,
        bench_extra=late("jaxsolve.bench", "category_cases"),
    )


register(category_game("kniffel", "Kniffel / Yahtzee and other category games (score sheets as data)", "jaxsolve.games.category.rules", "yahtzee", _kniffel_small))
register(
    category_game(
        "yatzy", "Scandinavian Yatzy (15 boxes) and its variants, on the category engine", "jaxsolve.games.category.yatzy", "yatzy",
        late("jaxsolve.games.category.yatzy", "small"), bench_presets=("yatzy", "yatzy+forced"),
    )
)
register(
    category_game(
        "maxi", "Maxi Yatzy (six dice, 20 boxes; saved throws with solve --saved-rolls)", "jaxsolve.games.category.maxi", "maxi",
        late("jaxsolve.games.category.maxi", "small"), bench_presets=("maxi",),
    )
)

register(
    Game(
        name="raab",
        title="Schlag den Raab dice duel and the Pig family (win probabilities as a fixpoint)",
        core="fixpoint",
        presets=_presets("jaxsolve.games.raab.rules"),
        default="raab",
        small=lambda: _presets("jaxsolve.games.raab.rules")()["piglet"],
        solve=late("jaxsolve.games.raab.solver", "solve"),
        values=lambda sol: sol.start,
        reachable=None,
        save=None,  # exports the whole-state layout (raab.save_export / load_export), not ``start``
        load=None,
        cli=("jaxsolve.cli.raab",),
        bench_presets=("raab", "pig"),
    )
)

register(
    Game(
        name="zehntausend",
        title="Zehntausend: the optimal expected turn score E(p, n)",
        core="layered",
        presets=_presets("jaxsolve.games.zehntausend.rules"),
        default="peter-2013",
        small=lambda: _presets("jaxsolve.games.zehntausend.rules")()["no-two-fives"],
        solve=late("jaxsolve.games.zehntausend.solver", "solve"),
        values=lambda sol: sol.E,
        reachable=None,
        save=late("jaxsolve.games.zehntausend.solver", "save_solution"),
        load=late("jaxsolve.games.zehntausend.solver", "load_solution"),
        cli=("jaxsolve.cli.zehntausend",),
    )
)
