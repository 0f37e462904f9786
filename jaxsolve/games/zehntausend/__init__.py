"""Zehntausend, alone and as a duel.

``zehntausend``: the optimal expected turn score E(p, n) (D. Peter, 2013): scoring and
set-asides (``scoring``), the level recursion (``solver``), the advisor, exports, figure 1 and
play. ``zehntausend-duel``: two players race to the goal, win probabilities on the race-duel
engine (``jaxsolve.core.race``, layered driver): rules (``duel_rules``), the turn, layers and
solve (``duel``), the advisor, the commands, figures, play, a simulation with real dice and a
solve by several processes (``duel_distributed``).
"""

from jaxsolve.games.game import Command, Param
from jaxsolve.games.race_registration import race_game
from jaxsolve.games.race_table_game import table_game as table_registration
from jaxsolve.games.zehntausend import commands, duel_commands
from jaxsolve.games.zehntausend import table_game as zehntausend_table

GAMES = (
    race_game(
        "zehntausend", "Zehntausend: the optimal expected turn score E(p, n)", commands, core="layered",
        presets="rules.PRESETS", default="peter-2013", small="no-two-fives", values="E", play="play.ZehntausendGame",
        hooks={
            "solve": Command(commands.solve_command, help="Compute E(p, n) for all p (multiples of 50) and n = 0..6; print E(0, 6) and p1..p6."),
            "advise": Command(commands.advise_command, commands.ADVISE_PARAMS, "List every legal choice for a throw (write, or set aside and throw on), best first."),
            "plot": Command(
                commands.plot_command, commands.PLOT_PARAMS, "Draw Delta E(p, n) = E(p, n) - p for n = 1..6 on a log p axis, with the n = 6 asymptote.", json=False
            ),
        },
        play_params=(Param("turns", int, 10, "Turns in the game.", min=1, max=1000),),
        solve_seconds={"peter-2013": 4.6, "no-two-fives": 1.8, "three-pairs": 1.7, "doubling": 1.3},  # results/cache/solve-seconds.md
        display_name="Zehntausend", board="turns",
    ),
    race_game(
        "zehntausend-duel", "Zehntausend as a two-player race to the goal: win probabilities (race-duel engine, layered)", duel_commands,
        core="fixpoint", presets="duel_rules.PRESETS", default="first-to-10000", small="small", values="start", play="duel_play.DuelGame",
        hooks={
            "solve": Command(
                duel_commands.solve_command,
                duel_commands.SOLVE_PARAMS,
                "Win probabilities of the Zehntausend duel under optimal play by both; the fairest compensation. With --out X.npy "
                "writes the turn-start values [ts, mine/50, theirs/50] to X.npy and the last-turn table to X-last.npy, with one .json sidecar for both.",
            ),
            "advise": Command(duel_commands.advise_command, duel_commands.ADVISE_PARAMS, "Write or set aside and throw on? Every option's win probability and regret."),
            "simulate": Command(
                duel_commands.simulate_command,
                duel_commands.SIMULATE_PARAMS,
                "Play many games of optimal against optimal with real dice; the start player's win rate against the solved value.",
            ),
            "plot": Command(
                duel_commands.plot_command, duel_commands.PLOT_PARAMS, "Maps of the write/throw decision over both banked scores, per turn total and dice.", json=False,
                jax=False,  # drawn from the NumPy turn: JAX only to solve
            ),
        },
        play_params=(Param("first", str, "you", "Who starts: you or them.", choices=("you", "them")),),
        bench_presets=("first-to-10000",),
        solve_seconds={"first-to-10000": 29.2, "last-turn": 56.1, "small": 2.7},  # `jaxsolve cache warm`, results/cache/solve-seconds.md
        display_name="Zehntausend duel",
    ),
    table_registration(
        zehntausend_table.SPEC, "Zehntausend for 2 to 4 players at one table (--players): every seat's win probability, each playing to win",
        module="jaxsolve.games.zehntausend", default="three-to-2000", small="small-3", play="table_played.TableZehntausendGame",
        bench_presets=("three-to-1000",),
        solve_seconds={"three-to-1000": 18.9, "three-to-2000": 153.0, "three-to-2000-350": 157.5, "four-to-1000": 97.2},  # whole process, results/race-n/race-n.md
        display_name="Zehntausend at a table",
    ),
)
