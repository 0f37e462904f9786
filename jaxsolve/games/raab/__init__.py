"""Schlag den Raab and the Pig family: two-player "roll or stop" duels, win probabilities as a
fixpoint on the race-duel engine's sweep driver (``solver``), the advisor, exports, the source
page's tables, plots and play."""

from jaxsolve.games.game import Command, Param
from jaxsolve.games.race_registration import race_game
from jaxsolve.games.race_table_game import table_game as table_registration
from jaxsolve.games.raab import commands, table_game as pig_table

GAMES = (
    race_game(
        "raab", "Schlag den Raab dice duel and the Pig family (win probabilities as a fixpoint)", commands, core="fixpoint",
        presets="rules.PRESETS", default="raab", small="piglet", values="start", play="play.RaabGame",
        hooks={
            "solve": Command(
                commands.solve_command,
                commands.SOLVE_PARAMS,
                "Win probabilities of Schlag den Raab / Pig under optimal play by both (fixpoint iteration). With --out X.npy "
                "writes the win probabilities to X.npy and the policy to X-policy.npy, both in the layout [TS, MSP, MAP, TSP], "
                "with one .json sidecar (X.json) that hashes both.",
            ),
            "advise": Command(commands.advise_command, commands.ADVISE_PARAMS, "Roll or stop? The win probability of each choice at a position."),
            "plot": Command(
                commands.plot_command, commands.PLOT_PARAMS, "Heatmaps of the turn total at which to stop, over both banked scores, one per TS.",
                precision="fixed64", quiet_help=None, json=False,
            ),
            "tables": Command(
                commands.tables_command,
                commands.TABLES_PARAMS,
                'The one-turn tables of "Würfeln bei Schlag den Raab": distribution after R throws, P_SUM(S), the \'roll twice\' bound.',
                precision="fixed64", quiet_help=None,
            ),
        },
        play_params=(
            Param("opponent", str, "bot", "bot: the optimal bot decides for them; human: you type their decisions.", choices=("bot", "human")),
            Param("first", str, "you", "Who starts: you or them.", choices=("you", "them")),
        ),
        bench_presets=("raab", "pig"),
        solve_seconds={"raab": 5.8, "pig": 8.9, "piglet": 4.0},  # results/cache/solve-seconds.md
        display_name="Schlag den Raab / Pig",
    ),
    table_registration(
        pig_table.SPEC, "The Pig family for 2 to 4 players at one table (--players): every seat's win probability, each playing to win",
        module="jaxsolve.games.raab", default="pig-3", small="coin-3", play="table_played.TablePigGame",
        bench_presets=("raab-3",),
        solve_seconds={"pig-3": 219.3, "pig-4": 128.2},  # whole process, results/race-n/race-n.md
        display_name="Pig at a table",
    ),
)
