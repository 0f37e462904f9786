"""Simulated Zehntausend duels of optimal against optimal against the solved start-player win
probability, per preset (real dice, the raw throw tables; see ``jaxsolve.games.zehntausend.duel_simulate``).

    python benchmarks/simulate_duel.py --presets first-to-10000,... [--games 1000000] [--seed 0]
        [--tables DIR] [--out results/duel/simulation.json]

``--tables DIR`` reads the solved tables ``DIR/<preset>.npy`` written by
``benchmarks/bench_duel.py --save DIR`` (or ``jaxsolve solve zehntausend-duel --out``) instead
of solving again. The output file keeps the runs of other presets already in it (one run per
preset, the newest wins); each run names the machine it came from.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="first-to-10000")
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slots", type=int, default=100_000)
    ap.add_argument("--tables", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.bench import machine as machine_info
    from jaxsolve.games.zehntausend import duel, duel_commands, duel_simulate
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    old = json.loads(args.out.read_text())["runs"] if args.out and args.out.exists() else []
    runs = {r["preset"]: r for r in old}
    for name in args.presets.split(","):
        path = args.tables / f"{name}.npy" if args.tables else None
        t0 = time.perf_counter()
        if path is not None and path.exists():
            sol = duel_commands.load(path)
            if sol.rules != PRESETS[name]:
                raise SystemExit(f"error: {path} holds {sol.rules.name}, not {name}")
        else:
            sol = duel.solve(PRESETS[name])
        solved_at = time.perf_counter()
        tables = duel_simulate.sim_tables(sol)
        built = time.perf_counter() - solved_at
        res = duel_simulate.simulate(sol, args.games, args.seed, slots=args.slots, per_slot=10, tables=tables)
        row = {
            "preset": name,
            "rules": sol.rules.to_dict(),
            **res.to_dict(),
            "solve_or_load_seconds": round(solved_at - t0, 2),
            "table_seconds": round(built, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "machine": machine_info(),
        }
        print(json.dumps(row), flush=True)
        runs[name] = row
        del tables
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"runs": list(runs.values())}, indent=1) + "\n")


if __name__ == "__main__":
    main()
