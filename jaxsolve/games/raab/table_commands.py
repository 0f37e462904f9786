"""Commands of the Pig family at a table (``python -m jaxsolve.games.raab.table_commands solve``,
``advise``): the generic parsing and report of ``jaxsolve.core.race_table`` with this game's
rules and its one-turn advice (roll or bank, as NumPy from the solved table)."""

from __future__ import annotations

import sys

import numpy as np

from jaxsolve.core import race_table
from jaxsolve.core.race_cycles import TIE
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab.table_rules import PRESETS, PigTableRules


def turn_options(rules: PigTableRules, values: np.ndarray, scores: tuple, turn: int) -> list[tuple[str, np.ndarray]]:
    """The value vectors of rolling and (with a turn total) banking at ``scores`` with ``turn``
    points this turn, the later rolls decided by the tie rule (``table.pig_turn`` in NumPy)."""
    G, n = rules.goal, rules.players
    a = scores[0]
    if a + turn >= G:
        raise JaxsolveError(f"a turn total of {turn} already reaches the goal {G}: bank it")
    win = np.zeros(n)
    win[0] = 1.0
    X = np.roll(values[tuple(scores[1:]) + (a,)], 1)

    def bank(p):
        return win if a + p >= G else np.roll(values[tuple(scores[1:]) + (a + p,)], 1)

    V = {p: win for p in range(G - a, G - a + rules.max_points + 1)}
    w = rules.weights
    roll = {}
    for p in range(G - a - 1, turn - 1, -1):
        r = rules.bust_prob * X + sum(w[k] * V[p + k + 1] for k in range(len(w)))
        roll[p] = r
        V[p] = bank(p) if p > 0 and bank(p)[0] >= r[0] - TIE else r
    options = [("roll", roll[turn])]
    if turn > 0:
        options.append((f"bank {turn}", bank(turn)))
    return options


def _advise(rules, values, scores, args):
    return turn_options(rules, values, scores, args.turn)


def _solve(rules, progress=None):
    from jaxsolve.games.raab import table

    return table.solve(rules, progress=progress)


def _advise_args(p):
    p.add_argument("--turn", type=int, default=0, help="Points rolled this turn so far.")


def _simulate(rules, values, unsettled, games, seed):
    from jaxsolve.games.raab.table_simulate import simulate

    return simulate(rules, values, unsettled, games, seed)


def main(argv=None) -> int:
    return race_table.main(
        argv, prog="pig-table", presets=PRESETS, default="small-3", rules_type=PigTableRules, solve=_solve, advise=_advise, step=1, advise_args=_advise_args,
        simulate=_simulate,
    )


if __name__ == "__main__":
    sys.exit(main())
