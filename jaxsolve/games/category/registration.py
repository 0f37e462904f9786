"""A category game's registration: every sheet (Kniffel / Yahtzee, Scandinavian Yatzy, Maxi
Yatzy, ...) gets the same engine hooks; ``category_game`` builds its ``Game`` from its presets."""

from __future__ import annotations

import functools
from typing import Callable

from jaxsolve.core.rules import Presets
from jaxsolve.games.category import commands
from jaxsolve.games.game import Command, Game

FAMILY_COMMANDS = ("analyze", "distribution", "advise-target", "simulate")


def _reachable(rules):
    from jaxsolve.games.category import table_io

    return table_io.reachable_mask(rules)


def _bench_cases(*args):
    from jaxsolve.games.category.bench_cases import category_cases

    return category_cases(*args)


def _suite_cases(*args, **kwargs):
    from jaxsolve.games.category.bench_cases import suite_cases

    return suite_cases(*args, **kwargs)


def _play_game():
    from jaxsolve.games.category.play import CategoryGame

    return CategoryGame


def category_game(
    name: str, title: str, presets: Callable[[], Presets], default: str, small: Callable, *,
    bench_presets: tuple[str, ...] = (), tables: Command | None = None, bench_saved: bool = False,
) -> Game:
    """The ``Game`` of a sheet on the category engine: solve, values, reachable states, export,
    the generic commands, play, the family's own commands and the bench cases are the engine's."""

    def save(path, sol):
        from jaxsolve.games.category import table_io

        table_io.save_solution(path, sol, game=name)
        return [path]

    def load(path):
        from jaxsolve.games.category import table_io

        return table_io.load_solution(path, game=name)

    hooks = {
        "solve": Command(functools.partial(commands.solve_command, game=name), commands.SOLVE_PARAMS, f"Solve {title} by backward induction and print the game value."),
        "advise": Command(
            functools.partial(commands.advise_command, game=name),
            commands.ADVISE_PARAMS,
            f"Rank every option of a turn of {title} (each distinct keep, each box to fill), best first. The position is a score "
            'sheet ("aces=3 twos=- fours=12") or a state ("filled=aces,chance upper=3 all_same_held=0").',
            precision="float64",
        ),
    }
    if tables is not None:
        hooks["tables"] = tables
    return Game(
        name=name,
        title=title,
        family="category",
        core="layered",
        presets=presets,
        default=default,
        small=small,
        precision="float32",
        solve=commands.solve,
        values=lambda sol: sol.values,
        reachable=_reachable,
        save=save,
        load=load,
        commands=hooks,
        play_game=_play_game,
        family_commands=FAMILY_COMMANDS,
        bench_presets=bench_presets,
        bench_extra=_bench_cases,
        bench_suite=functools.partial(_suite_cases, saved=bench_saved, sheet=lambda: presets().get_rules(default)),
    )
