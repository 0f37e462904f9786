"""A category game's registration: every sheet (Kniffel / Yahtzee, Scandinavian Yatzy, Maxi
Yatzy, ...) gets the same engine hooks; ``category_game`` builds its ``Game`` from its presets."""

from __future__ import annotations

import functools
from typing import Callable

from jaxsolve.core.rules import Presets
from jaxsolve.games.category.answers import commands, family_commands, table_commands
from jaxsolve.games.category.sheets import names
from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET
from jaxsolve.games.game import Command, Game, Param

CACHE_NOTES = "No notes on stderr (which cached table is used)."
OPPONENTS = Param(
    "opponents", int, 0, "Computer opponents at the table (they play for expected points after you; your P(win) beside the options).", min=0, max=4
)
SHOW_HEURISTIC = Param(
    "show_heuristic", bool, False, "Show the rating heuristic's ratings (JaFuffy's) beside the options from the start (h toggles)."
)


def _reachable(rules):
    from jaxsolve.games.category.engine import table_io

    return table_io.reachable_mask(rules)


def _bench_cases(*args):
    from jaxsolve.games.category.checks.bench_cases import category_cases

    return category_cases(*args)


def _suite_cases(*args, **kwargs):
    from jaxsolve.games.category.checks.bench_cases import suite_cases

    return suite_cases(*args, **kwargs)


def _endgame_params():
    from jaxsolve.games.category.objectives.twoplayer.endgame import ENDGAME_PARAMS

    return ENDGAME_PARAMS


def _play_game():
    from jaxsolve.games.category.answers.play import CategoryGame

    return CategoryGame


def _family_commands(name: str, title: str) -> dict[str, Command]:
    """The family's own commands of the game ``name`` (``analyze``, ``distribution``,
    ``advise-target``, ``simulate``, the two-player solves and the table exports)."""
    quiet = Command.quiet_help
    commands = (
        # name, what runs, its parameters, precision, the help of --quiet, the one-line summary
        ("twoplayer-endgame", family_commands.endgame_command, _endgame_params(), "float32", quiet, "Solve two-player end games (both play to win) and export them."),
        ("analyze", family_commands.analyze_command, family_commands.ANALYZE_PARAMS, "float64", CACHE_NOTES, "Split a position's value over the boxes and bonuses, with its spread."),
        ("distribution", family_commands.distribution_command, family_commands.DISTRIBUTION_PARAMS, "float64", quiet, "Exact score distributions under the optimal policy."),
        ("advise-target", family_commands.advise_target_command, family_commands.ADVISE_TARGET_PARAMS, "fixed64", None, "Advise by the probability of reaching a score (the target objective)."),
        ("target-table", table_commands.target_table_command, table_commands.TARGET_TABLE_PARAMS, "fixed32", quiet, "Export the table of max P(final >= t) for every state and t."),
        ("distribution-table", table_commands.distribution_table_command, table_commands.DISTRIBUTION_TABLE_PARAMS, "float64", quiet, "Export the remaining-score distribution of every state."),
        ("twoplayer-table", table_commands.twoplayer_table_command, table_commands.TWOPLAYER_TABLE_PARAMS, "float32", quiet, "Solve the two-player game (both play to win) and store every layer."),
        ("simulate", family_commands.simulate_command, family_commands.SIMULATE_PARAMS, "fixed32", quiet, "Play many games at once with a strategy."),
    )
    helps = {
        "twoplayer-endgame": f"Two players of {title}, both playing to win: solve every position where both have at most --open K boxes open, or one "
        "position's end game from --mine and --theirs (sheet then score), and export it (--out).",
        "analyze": "Value of a position as a single turn and within the game; split over boxes and bonuses, SD.",
        "distribution": "Exact distribution of the final score under the score-optimal policy: mean, SD, percentiles, P(score >= T).",
        "advise-target": "Rank every choice by the probability of scoring at least --target more points.\n\nSolves the rest of the game from the "
        "position's filled boxes (few open boxes: seconds on a CPU), or answers from a `target-table` export (--table).",
        "target-table": f"Solve the target objective (max P(at least t more points), every t) for every state of {title} and export every "
        "layer, for `advise-target --table`.\n\nThe whole Yahtzee table is 4.3 x 10^8 values (1.7 GB in float32).",
        "distribution-table": f"The exact distribution of the remaining score (P(k more points) under the score-optimal policy) of every state of "
        f"{title}, solved in float64 and exported in float32, every layer, for `advise --opponent` (each opponent's row read "
        "instead of computed).\n\nThe whole Yahtzee table is 4.3 x 10^8 values (1.7 GB).",
        "twoplayer-table": f"Solve {title} for two players, both playing to win, and keep every layer in the solution store (written as each "
        "is done; two layers in memory), for simulated two-player play and advice.\n\nThe whole two-player Yacht is "
        "2.04 x 10^9 values (8.2 GB in float32, about 40 core-minutes); games far larger are refused up front.",
        "simulate": f"Play many games of {title} with each strategy and compare the score distributions.",
    }
    return {
        key: Command(functools.partial(fn, game=name), params, helps[key], precision=precision, quiet_help=quiet_help, summary=summary)
        for key, fn, params, precision, quiet_help, summary in commands
    }


def category_game(
    name: str, title: str, presets: Callable[[], Presets], default: str, small: Callable, *,
    bench_presets: tuple[str, ...] = (), tables: Command | None = None, bench_saved: bool = False, display_name: str = "",
) -> Game:
    """The ``Game`` of a sheet on the category engine: solve, values, reachable states, export,
    the generic commands, play, the family's own commands and the bench cases are the engine's.
    ``--show-heuristic`` is offered by ``play`` where every preset is the 5-dice Kniffel sheet
    (the sheet the rating heuristic is defined for)."""

    def save(path, sol):
        from jaxsolve.games.category.engine import table_io

        table_io.save_solution(path, sol, game=name)
        return [path]

    def load(path):
        from jaxsolve.games.category.engine import table_io

        return table_io.load_solution(path, game=name)

    hooks = {
        "solve": Command(functools.partial(commands.solve_command, game=name), commands.SOLVE_PARAMS, f"Solve {title} by backward induction and print the game value."),
        "advise": Command(
            functools.partial(commands.advise_command, game=name),
            commands.ADVISE_PARAMS,
            f"Rank every option of a turn of {title} (each distinct keep, each box to fill), best first. The position is a score "
            'sheet ("aces=3 twos=- fours=12") or a state ("filled=aces,chance upper=3 all_same_held=0").',
            precision="float64",
            quiet_help=CACHE_NOTES,
        ),
    }
    if tables is not None:
        hooks["tables"] = tables
    hooks.update(_family_commands(name, title))
    rated = all(r.dice == 5 and tuple(r.boxes) == tuple(KNIFFEL_SHEET) for r in presets().values())
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
        play_params=(OPPONENTS, *commands.PLAY_PARAMS),
        play_options=(SHOW_HEURISTIC,) if rated else (),
        bench_presets=bench_presets,
        bench_extra=_bench_cases,
        bench_suite=functools.partial(_suite_cases, saved=bench_saved, sheet=lambda: presets().get_rules(default)),
        objective="score",
        display_name=display_name,
        board="sheet",
        words=names.words,
    )
