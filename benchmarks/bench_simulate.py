"""Games per second of each strategy (compile time apart), JSON with the machine description.

    .venv/bin/python benchmarks/bench_simulate.py --rules yahtzee-free --games 1000000 --strategies optimal
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import jax

from jaxsolve import bench
from jaxsolve.games.category.simulation import simulate, strategies
from jaxsolve.games.category.sheets.kniffel import get_rules




def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rules", default="yahtzee-free")
    ap.add_argument("--strategies", default="optimal,heuristic,greedy")
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", type=Path, default=Path("bench_cpu.json"), help="JSON file (default: bench_cpu.json in the current folder; the committed one: results/simulate/bench_cpu.json)")
    args = ap.parse_args()
    device = jax.devices(args.device)[0]
    rules = get_rules(args.rules)
    rows = []
    for name in args.strategies.split(","):
        t0 = time.perf_counter()
        strat = strategies.make(name, rules, device=device)
        setup = time.perf_counter() - t0
        t0 = time.perf_counter()
        simulate.simulate(rules, strat, 64, seed=0, chunk=args.chunk, device=device)  # compiles
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = simulate.simulate(rules, strat, args.games, seed=args.seed, chunk=args.chunk, device=device)
        wall = time.perf_counter() - t0
        row = {
            "strategy": name,
            "rules": rules.name,
            "games": args.games,
            "setup_seconds": round(setup, 2),
            "compile_and_warmup_seconds": round(warm, 2),
            "wall_seconds": round(wall, 2),
            "policy_seconds": round(res.policy_seconds, 2),
            "play_seconds": round(res.play_seconds, 2),
            "games_per_second": round(args.games / wall, 1),
            "distinct_states": sum(res.unique_states),
            "mean": res.mean,
            "se": res.se,
            "sd": res.sd,
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": bench.machine(), "device": str(device), "chunk": args.chunk, "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
