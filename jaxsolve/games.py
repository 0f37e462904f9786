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




# ----------------------------------------------------------------------------- registrations


def _kniffel_presets():
    from jaxsolve.kniffel.rules import PRESETS

    return PRESETS


def _kniffel_small():
    from jaxsolve.kniffel.rules import CategoryRules

    return CategoryRules(name="reduced-3-dice", dice=3, upper_threshold=6, extra_bonus=10)


def _kniffel_solve(rules, *, dtype=None, device=None):
    from jaxsolve.kniffel import solver

    return solver.solve(rules, dtype=dtype, device=device, chunk=256 if rules.dice < 5 else 1024)


def _kniffel_reachable(rules):
    from jaxsolve.kniffel import store

    return store.reachable_mask(rules)


def _kniffel_save(path, sol):
    from jaxsolve.kniffel import store

    return store.save_solution(path, sol)


def _kniffel_load(path):
    from jaxsolve.kniffel import store

    return store.load_solution(path)


register(
    Game(
        name="kniffel",
        title="Kniffel / Yahtzee and other category games (score sheets as data)",
        core="layered",
        presets=_kniffel_presets,
        default="yahtzee",
        small=_kniffel_small,
        solve=_kniffel_solve,
        values=lambda sol: sol.values,
        reachable=_kniffel_reachable,
        save=_kniffel_save,
        load=_kniffel_load,
        cli=("jaxsolve.cli.kniffel", "jaxsolve.cli.analysis", "jaxsolve.cli.distribution", "jaxsolve.cli.simulation"),
    )
)


def _pig_presets():
    from jaxsolve import pig

    return pig.PRESETS


def _pig_small():
    from jaxsolve import pig

    return pig.PRESETS["piglet"]


def _pig_solve(rules, *, dtype=None, device=None):
    from jaxsolve import pig

    return pig.solve(rules, dtype=dtype, device=device)


register(
    Game(
        name="raab",
        title="Schlag den Raab dice duel and the Pig family (win probabilities as a fixpoint)",
        core="fixpoint",
        presets=_pig_presets,
        default="raab",
        small=_pig_small,
        solve=_pig_solve,
        values=lambda sol: sol.start,
        reachable=None,
        save=None,
        load=None,
        cli=("jaxsolve.cli.raab",),
    )
)


def _z_presets():
    from jaxsolve import zehntausend

    return zehntausend.PRESETS


def _z_solve(rules, *, dtype=None, device=None):
    from jaxsolve import zehntausend

    return zehntausend.solve(rules, dtype=dtype, device=device)


def _z_save(path, sol):
    from jaxsolve import zehntausend

    return zehntausend.save_solution(path, sol)


def _z_load(path):
    from jaxsolve import zehntausend

    return zehntausend.load_solution(path)


register(
    Game(
        name="zehntausend",
        title="Zehntausend: the optimal expected turn score E(p, n)",
        core="layered",
        presets=_z_presets,
        default="peter-2013",
        small=lambda: _z_presets()["no-two-fives"],
        solve=_z_solve,
        values=lambda sol: sol.E,
        reachable=None,
        save=_z_save,
        load=_z_load,
        cli=("jaxsolve.cli.zehntausend",),
    )
)
