"""Maxi Yatzy without saved throws: game value, exact SD and the optimal-play simulation, side by side.

The value table comes from the solution store (solved once, about five minutes on a 2-core
CPU); the exact mean and SD of the final score under the optimal policy come from the backward
policy evaluation with two channels (``evaluate.evaluate(split=False)``: total and second
moment of every state); the simulation is ``jaxsolve simulate maxi``'s library call.

    python scripts/maxi_figures.py --out results/maxi   # float32, 100,000 games, seed 7
    python scripts/maxi_figures.py --x64 --games 200000

Writes ``figures.md`` and ``figures.json`` into ``--out`` (default: the current folder; the
committed ones are in ``results/maxi``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--x64", action="store_true", help="float64 table and evaluation (default float32)")
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--small", action="store_true", help="the reduced 4-dice game instead (a check of this script; writes to --out)")
    ap.add_argument("--out", type=Path, default=Path("."), help="folder for figures.{md,json} (default: the current folder)")
    args = ap.parse_args()

    import jax

    jax.config.update("jax_enable_x64", True)  # the simulation's bookkeeping; the table keeps its dtype
    from jaxsolve.games.category.sheets import maxi
    from jaxsolve.bench import machine
    from jaxsolve.core.runtime import peak_memory
    from jaxsolve.games.category.engine import evaluate, table_io
    from jaxsolve.games.category.simulation import simulate

    rules = maxi.small() if args.small else maxi.get_rules("maxi")
    dtype = "float64" if args.x64 else "float32"
    t0 = time.perf_counter()
    sol = table_io.solved(rules, game="maxi", dtype=dtype)
    t_table = time.perf_counter() - t0
    t0 = time.perf_counter()
    ev = evaluate.evaluate(sol, split=False)
    t_eval = time.perf_counter() - t0
    t0 = time.perf_counter()
    sim = simulate.simulate(rules, "optimal", args.games, seed=args.seed, solution=sol)
    t_sim = time.perf_counter() - t0
    peak = peak_memory(jax.devices()[0])
    data = {
        "rules": rules.name,
        "dtype": dtype,
        "game_value": sol.game_value,
        "solve_seconds": round(sol.solve_seconds, 1),
        "exact": {"mean": ev.mean(), "sd": ev.sd(), "seconds": round(t_eval, 1)},
        "simulation": {"games": args.games, "seed": args.seed, "mean": sim.mean, "sd": sim.sd, "se": sim.se, "seconds": round(t_sim, 1),
                       "z": (sim.mean - sol.game_value) / sim.se},
        "table_seconds": round(t_table, 1),
        "peak_memory_mib": round(peak[0], 1),
        "peak_memory_kind": peak[1],
        "machine": machine(),
        "command": "python scripts/maxi_figures.py" + (" --x64" if args.x64 else "") + f" --games {args.games} --seed {args.seed}",
    }
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "figures.json").write_text(json.dumps(data, indent=1) + "\n")
    m = data["machine"]
    lines = [
        f"# {rules.name} (three throws a turn, no saving): value, exact SD, simulation",
        "",
        f"Command: `{data['command']}`. Machine: {m['cpu']}, {m['cpu_count']} cores, jax {m['jax']}, load average "
        f"{tuple(round(x, 2) for x in m['load_average'] or ())} at the end; {m['date']}.",
        "",
        "| what | figure |",
        "| --- | --- |",
        f"| game value ({dtype}) | {sol.game_value:.7f} |",
        f"| exact mean and SD of the final score under the optimal policy (backward evaluation, {t_eval:.0f} s) | {ev.mean():.7f}, SD {ev.sd():.4f} |",
        f"| optimal-play simulation, {args.games:,} games, seed {args.seed} ({t_sim:.0f} s) | mean {sim.mean:.3f} (SE {sim.se:.3f}), SD {sim.sd:.3f}; "
        f"{data['simulation']['z']:+.2f} SE from the value |",
        f"| table from the solution store (solved on a miss) | {t_table:.0f} s |",
        f"| peak memory ({peak[1]}) | {peak[0] / 1024:.2f} GiB |",
        "",
    ]
    (out / "figures.md").write_text("\n".join(lines))
    print("\n".join(lines))
    if not math.isfinite(ev.sd()):
        raise SystemExit("the SD is not finite")


if __name__ == "__main__":
    main()
