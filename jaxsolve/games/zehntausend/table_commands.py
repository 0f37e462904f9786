"""Commands of Zehntausend at a table (``python -m jaxsolve.games.zehntausend.table_commands
solve``, ``advise``): the generic parsing and report of ``jaxsolve.core.race_table`` with this
game's rules and its advice (write the turn total or throw the dice left on)."""

from __future__ import annotations

import sys

import numpy as np

from jaxsolve.core import race_table
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.rules import DICE, STEP
from jaxsolve.games.zehntausend.table_rules import PRESETS, TableRules


def turn_options(rules: TableRules, values: np.ndarray, scores: tuple, turn: int, dice: int) -> list[tuple[str, np.ndarray]]:
    """Value vectors of writing ``turn`` points and of throwing ``dice`` dice on (0: all six
    used, throw six) at ``scores`` (levels), from one turn scan of the solved table."""
    import jax
    import jax.numpy as jnp

    from jaxsolve.core.race_multi import flat_scores as flat
    from jaxsolve.games.zehntausend import table
    from jaxsolve.games.zehntausend.duel_numpy import NDIM

    jax.config.update("jax_enable_x64", True)
    if turn % STEP or turn < 0:
        raise JaxsolveError(f"--turn must be a non-negative multiple of {STEP}, got {turn}")
    if not 0 <= dice <= DICE:
        raise JaxsolveError(f"--dice-left must be 0..{DICE}, got {dice}")
    z = table.sizes(rules)
    p = turn // STEP
    if scores[0] + p >= z.G:
        raise JaxsolveError(f"a turn total of {turn} already reaches the goal: write it")
    n = rules.players
    W = jnp.asarray(values.reshape(-1, n))
    s = jnp.asarray([scores])
    S = table.write_vectors(W, s, z)
    X = jnp.roll(W[flat(jnp.asarray([scores[1:] + scores[:1]]), z.G)], 1, axis=-1)
    V, _ = table.scan_vectors(S, X, z.G - scores[0], table.table_ops(rules), z)
    V = np.asarray(V)[:, 0]
    options = [(f"throw {dice or DICE} on", V[p * NDIM + (dice or DICE)])]
    write = np.asarray(S)[0, p]
    if p > 0 and np.isfinite(write[0]):
        options.append((f"write {turn}", write))
    return options


def _advise(rules, values, scores, args):
    return turn_options(rules, values, scores, args.turn, args.dice_left)


def _solve(rules, progress=None):
    from jaxsolve.games.zehntausend import table

    return table.solve(rules, progress=progress)


def _advise_args(p):
    p.add_argument("--turn", type=int, default=0, help="Points set aside this turn (a multiple of 50).")
    p.add_argument("--dice-left", type=int, default=6, help="Dice left to throw (0: all six used).")


def main(argv=None) -> int:
    return race_table.main(
        argv, prog="zehntausend-table", presets=PRESETS, default="small-3", rules_type=TableRules, solve=_solve, advise=_advise, step=STEP,
        advise_args=_advise_args,
    )


if __name__ == "__main__":
    sys.exit(main())
