"""Put a table of a race at a table, solved elsewhere (e.g. by several processes with
``python -m jaxsolve.games.race_table_distributed --out T.npy``), into the solution cache under
a preset, so that ``jaxsolve advise|play|simulate|plot`` answer from it at once.

The export is loaded with its full check (hashes, shape, win probabilities, and the one-turn
recomputation from the rules its sidecar names at a sample of states); its rules must equal the
preset's in every field but the name. Then it is stored under the preset, as ``jaxsolve solve``
would have stored it.

    python scripts/race_n_cache_table.py table.npy --game zehntausend-table --rules three-to-10000
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("table", type=Path, help="the .npy written with --out (its .json sidecar beside it)")
    ap.add_argument("--game", default="zehntausend-table", choices=("zehntausend-table", "pig-table"))
    ap.add_argument("--rules", required=True, help="the preset to store it under")
    args = ap.parse_args(argv)
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games import get_game
    from jaxsolve.io import cache

    try:
        game = get_game(args.game)
        rules = game.get_rules(args.rules)
        cache.setup()
        sol = game.load(args.table)
        have = {k: v for k, v in sol.rules.to_dict().items() if k != "name"}
        want = {k: v for k, v in rules.to_dict().items() if k != "name"}
        if have != want:
            raise JaxsolveError(f"{args.table} holds a table of {have}, not of the preset {rules.name} ({want})")
        path = cache.store(game, rules, dataclasses.replace(sol, rules=rules))
    except JaxsolveError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"stored under {rules.name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
