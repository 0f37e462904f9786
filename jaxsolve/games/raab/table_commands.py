"""Commands of the Pig family at a table (``python -m jaxsolve.games.raab.table_commands solve``,
``advise``): the generic parsing and report of ``jaxsolve.core.race_table`` with this game's
rules and its one-turn advice (roll or bank, as NumPy from the solved table)."""

from __future__ import annotations

import sys

from jaxsolve.core import race_table
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab.table_rules import PRESETS, PigTableRules
from jaxsolve.games.raab.table_simulate import turn_options


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


def play_main(argv: list[str]) -> int:
    """``play``: you against N-1 computer players who follow the solved equilibrium."""
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="pig-table play", description="Play against N-1 computer players who follow the solved equilibrium.")
    parser.add_argument("--rules", default="small-3", help=f"Preset: {', '.join(PRESETS)}.")
    for f in PigTableRules.option_fields():
        parser.add_argument("--" + f.name, type=int, default=None, help=f.metadata["option"])
    parser.add_argument("--table", type=Path, default=None, help="A table written by solve --out (else solved first).")
    parser.add_argument("--seat", type=int, default=1, help="Your seat (1 moves first).")
    parser.add_argument("--seed", type=int, default=0, help="Random seed of the dice.")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        if args.table is not None:
            rules, values, unsettled = race_table.load(args.table, PigTableRules)
        else:
            if args.rules not in PRESETS:
                raise JaxsolveError(f"unknown rules {args.rules!r}; choose one of {', '.join(PRESETS)}")
            rules = PRESETS[args.rules].replace(**{f.name: getattr(args, f.name) for f in PigTableRules.option_fields() if getattr(args, f.name) is not None})
            import jax

            jax.config.update("jax_enable_x64", True)
            sol = _solve(rules)
            values, unsettled = sol.values, [race_table._plain(u, sol.values.shape[:-1], 1) for u in sol.run.unsettled]
        from jaxsolve.games.raab.table_play import play

        try:
            winner = play(rules, values, unsettled, seat=args.seat - 1, seed=args.seed, ask=input, say=print)
        except EOFError:
            raise JaxsolveError("the input ended before the game") from None
        return 0 if winner >= 0 else 1
    except JaxsolveError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["play"]:
        return play_main(argv[1:])
    return race_table.main(
        argv, prog="pig-table", presets=PRESETS, default="small-3", rules_type=PigTableRules, solve=_solve, advise=_advise, step=1, advise_args=_advise_args,
        simulate=_simulate,
    )


if __name__ == "__main__":
    sys.exit(main())
