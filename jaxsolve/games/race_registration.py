"""A race game's registration: the ``Game`` of a game whose hooks live in its folder's modules.

The race games (one die or six dice, one player or two, banking points toward a goal) register
the same way: the presets and the play class are names in modules of the game's folder (imported
on first use, so reading the registry imports no JAX), and ``solve``, the export hooks and the
commands come from the game's JAX-free commands module, whose folder is the game's family.
``race_game`` builds that ``Game``; it names no game.
"""

from __future__ import annotations

import importlib
import operator
from types import ModuleType
from typing import Any, Callable

from jaxsolve.games.game import Command, Game, Param


def lazy(module: str, name: str) -> Callable[[], Any]:
    """A callable that imports ``module`` when called and returns its attribute ``name``."""

    def get() -> Any:
        return getattr(importlib.import_module(module), name)

    return get


def race_game(
    name: str,
    title: str,
    commands: ModuleType,
    *,
    core: str,
    presets: str,
    play: str,
    default: str,
    small: str,
    values: str,
    hooks: dict[str, Command],
    play_params: tuple[Param, ...] = (),
    bench_presets: tuple[str, ...] = (),
    solve_seconds: dict[str, float] | None = None,
    display_name: str = "",
    board: str = "race",
) -> Game:
    """The ``Game`` of a race game whose folder holds ``commands``.

    Args:
        commands: the game's commands module: ``solve`` and, where it has them, ``outputs``
            and the export hooks ``save`` and ``load`` (the game's only when both are there).
            Its folder is the game's ``family``.
        presets, play: ``module.NAME`` in that folder: the ``Presets`` and the play class.
        default, small: the default preset and the preset that solves in seconds.
        values: the solution's attribute that is the exported value tensor.
        hooks: the generic commands the game offers, by name.
        solve_seconds: the measured first-solve seconds of presets (``Game.solve_seconds``).
        display_name, board: the game's name for players and what the page draws (``Game``).
    """
    folder = commands.__name__.rpartition(".")[0]
    presets_of = lazy(*f"{folder}.{presets}".rsplit(".", 1))
    exports = hasattr(commands, "save") and hasattr(commands, "load")
    return Game(
        name=name,
        title=title,
        family=folder.rpartition(".")[2],
        core=core,
        presets=presets_of,
        default=default,
        small=lambda: presets_of()[small],
        solve=commands.solve,
        values=operator.attrgetter(values),
        save=commands.save if exports else None,
        load=commands.load if exports else None,
        outputs=getattr(commands, "outputs", None),
        commands=hooks,
        play_game=lazy(*f"{folder}.{play}".rsplit(".", 1)),
        play_params=play_params,
        bench_presets=bench_presets,
        solve_seconds=dict(solve_seconds or {}),
        display_name=display_name,
        board=board,
    )
