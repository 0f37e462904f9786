"""Race duels: two-player "bank or keep throwing" games solved for the win probability on one
engine (``engine``: the bust pairs, a sweep driver and a layered driver). Its member here is
Zehntausend's duel (``rules``, ``zehntausend``, the advisor, the figure and play); Pig and
Schlag den Raab (``jaxsolve.games.raab``) run on the engine's sweep driver."""

from jaxsolve.games.game import Command, Game, Param
from jaxsolve.games.duel import commands


def _presets():
    from jaxsolve.games.duel.rules import PRESETS

    return PRESETS


def _play_game():
    from jaxsolve.games.duel.play import DuelGame

    return DuelGame


GAMES = (
    Game(
        name="zehntausend-duel",
        title="Zehntausend as a two-player race to the goal: win probabilities (race-duel engine, layered)",
        family="duel",
        core="fixpoint",
        presets=_presets,
        default="first-to-10000",
        small=lambda: _presets()["small"],
        solve=commands.solve,
        values=lambda sol: sol.start,
        save=commands.save,
        load=commands.load,
        outputs=commands.outputs,
        commands={
            "solve": Command(
                commands.solve_command,
                commands.SOLVE_PARAMS,
                "Win probabilities of the Zehntausend duel under optimal play by both; the fairest compensation. With --out X.npy "
                "writes the turn-start values [ts, mine/50, theirs/50] to X.npy and the last-turn table to X-last.npy, each with a .json sidecar.",
            ),
            "advise": Command(commands.advise_command, commands.ADVISE_PARAMS, "Write or set aside and throw on? Every option's win probability and regret."),
            "simulate": Command(
                commands.simulate_command,
                commands.SIMULATE_PARAMS,
                "Play many games of optimal against optimal with real dice; the start player's win rate against the solved value.",
            ),
            "plot": Command(
                commands.plot_command, commands.PLOT_PARAMS, "Maps of the write/throw decision over both banked scores, per turn total and dice.", json=False
            ),
        },
        play_game=_play_game,
        play_params=(Param("first", str, "you", "Who starts: you or them.", choices=("you", "them")),),
        bench_presets=("first-to-10000",),
    ),
)
