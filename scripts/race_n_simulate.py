"""A million simulated games of Zehntausend at a table per preset: each seat's win rate against
its solved value (``results/race-n/simulate.json``, ``simulate.md``).

Each preset's table comes from the solution cache (solved and cached where it is not there);
the games are played at once in NumPy (``jaxsolve.games.zehntausend.table_simulate``). The
times are wall seconds in this process: building the decisions' tables from the solved table,
and playing the games. Three players to 10,000 is not solved here (8 to 13 hours): not run.

    python scripts/race_n_simulate.py                                   # the three-player presets
    python scripts/race_n_simulate.py --presets small-3 --games 100000 --out /tmp/sim
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from race_n_figures import machine  # noqa: E402

PRESETS = ("three-to-1000", "three-to-2000", "three-to-2000-350")


def one(preset: str, games: int, seed: int) -> dict:
    """``games`` games of the preset's table: wins, rates, standard errors, z, seconds."""
    from jaxsolve.core import runtime
    from jaxsolve.games import get_game
    from jaxsolve.games.zehntausend import table_simulate
    from jaxsolve.games.zehntausend.table_rules import PRESETS as TABLE_PRESETS

    runtime.configure(x64=True)
    rules = TABLE_PRESETS[preset]
    t0 = time.perf_counter()
    sol = get_game("zehntausend-table").solution(rules, dtype="float64")
    t1 = time.perf_counter()
    values = np.asarray(sol.values, np.float64)
    tables = table_simulate.sim_tables(rules, values, sol.unsettled)
    t2 = time.perf_counter()
    wins = table_simulate.simulate(rules, values, sol.unsettled, games, seed, tables=tables)
    t3 = time.perf_counter()
    start = np.asarray(sol.start, np.float64)
    rate = wins / games
    se = np.sqrt(start * (1 - start) / games)
    z = (rate - start) / se
    mixers = sum(len(u["mixer"]) for u in sol.unsettled if u["selected"] == "mixed")
    return {
        "preset": preset, "players": rules.players, "goal": rules.goal, "entry": rules.entry, "games": games, "seed": seed,
        "wins": wins.tolist(), "rate": rate.tolist(), "standard_error": se.tolist(), "solved": start.tolist(), "z": z.tolist(),
        "within_3_se": bool(np.all(np.abs(z) <= 3)), "mixing_members": mixers,
        "load_seconds": round(t1 - t0, 2), "table_seconds": round(t2 - t1, 2), "play_seconds": round(t3 - t2, 2),
        "games_per_second": round(games / (t3 - t2)), "load_before": os.getloadavg()[0],
    }


def table(rows: list[dict]) -> str:
    out = ["| preset | games | seat: won (standard error), solved, z | within 3 SE | tables s | play s | games/s |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        seats = "<br>".join(f"{k + 1}: {r['rate'][k]:.6f} ({r['standard_error'][k]:.6f}), {r['solved'][k]:.6f}, {r['z'][k]:+.2f}" for k in range(r["players"]))
        out.append(f"| {r['preset']} | {r['games']:,} | {seats} | {'yes' if r['within_3_se'] else 'no'} | {r['table_seconds']} | {r['play_seconds']} | {r['games_per_second']:,} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", nargs="+", default=list(PRESETS))
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "race-n" / "simulate")
    args = ap.parse_args(argv)
    rows = []
    for preset in args.presets:
        r = one(preset, args.games, args.seed)
        rows.append(r)
        print(f"{preset}: {r['games']:,} games in {r['play_seconds']} s ({r['games_per_second']:,}/s), z = {', '.join(f'{v:+.2f}' for v in r['z'])}", flush=True)
        args.out.with_suffix(".json").write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1) + "\n")
    args.out.with_suffix(".md").write_text(table(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
