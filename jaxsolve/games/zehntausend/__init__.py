"""Zehntausend: the optimal expected turn score E(p, n) (D. Peter, 2013): scoring and set-asides
(``scoring``), the level recursion (``solver``), the advisor, exports, figure 1 and play."""

from jaxsolve.games.game import Command, Game, Param
from jaxsolve.games.zehntausend import commands


def _presets():
    from jaxsolve.games.zehntausend.rules import PRESETS

    return PRESETS


def _play_game():
    from jaxsolve.games.zehntausend.play import ZehntausendGame

    return ZehntausendGame


GAMES = (
    Game(
        name="zehntausend",
        title="Zehntausend: the optimal expected turn score E(p, n)",
        family="zehntausend",
        core="layered",
        presets=_presets,
        default="peter-2013",
        small=lambda: _presets()["no-two-fives"],
        solve=commands.solve,
        values=lambda sol: sol.E,
        save=commands.save,
        load=commands.load,
        commands={
            "solve": Command(commands.solve_command, help="Compute E(p, n) for all p (multiples of 50) and n = 0..6; print E(0, 6) and p1..p6."),
            "advise": Command(commands.advise_command, commands.ADVISE_PARAMS, "List every legal choice for a throw (write, or set aside and throw on), best first."),
            "plot": Command(
                commands.plot_command, commands.PLOT_PARAMS, "Draw Delta E(p, n) = E(p, n) - p for n = 1..6 on a log p axis, with the n = 6 asymptote.", json=False
            ),
        },
        play_game=_play_game,
        play_params=(Param("turns", int, 10, "Turns in the game.", min=1, max=1000),),
    ),
)
