"""Heuristic / greedy / optimal means for several rule sets; writes results/simulate/strategies.{json,md}.

The heuristic's mean is given as a percentage of the exact optimal game value (solver, float64
not needed: float32 value within 1e-3) with its standard error, and the simulated optimal mean
beside it as a check.

    .venv/bin/python benchmarks/compare_strategies.py --games 200000 --rules kniffel,yahtzee
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from jaxsolve.kniffel import simulate, solver, strategies
from jaxsolve.kniffel.rules import get_rules

GLENN = [("greedy (one turn)", 218.05), ("a heuristic", 240.67), ("a better heuristic", 244.87), ("optimal", 254.59)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rules", default="kniffel,yahtzee")
    ap.add_argument("--strategies", default="heuristic,greedy,optimal")
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, default=Path("results/simulate/strategies"))
    args = ap.parse_args()
    rows = []
    for rname in args.rules.split(","):
        rules = get_rules(rname)
        sol = solver.solve(rules, dtype=np.float32)
        value = sol.game_value
        for name in args.strategies.split(","):
            t0 = time.perf_counter()
            strat = strategies.make(name, rules, solution=sol) if name == "optimal" else strategies.make(name, rules)
            res = simulate.simulate(rules, strat, args.games, seed=args.seed)
            s = res.summary()
            row = {
                "rules": rname,
                "strategy": name,
                "games": args.games,
                "seed": args.seed,
                "mean": s["mean"],
                "se": s["se"],
                "sd": s["sd"],
                "optimal_value": value,
                "percent_of_optimal": 100 * s["mean"] / value,
                "percent_se": 100 * s["se"] / value,
                "p_at_least": s["p_at_least"],
                "upper_bonus_rate": s["upper_bonus_rate"],
                "seconds": round(time.perf_counter() - t0, 1),
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1))
    lines = [
        "# Strategies compared (simulated)",
        "",
        f"Command: `.venv/bin/python benchmarks/compare_strategies.py --games {args.games} --rules {args.rules} --seed {args.seed}`",
        "",
        "| rules | strategy | games | mean | SE | SD | % of optimal value (SE) | P(>=200) | P(>=250) | P(>=300) | upper bonus |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        p = r["p_at_least"]
        lines.append(
            f"| {r['rules']} | {r['strategy']} | {r['games']:,} | {r['mean']:.3f} | {r['se']:.3f} | {r['sd']:.2f} | "
            f"{r['percent_of_optimal']:.2f} ({r['percent_se']:.2f}) | {p['200']:.4f} | {p['250']:.4f} | {p['300']:.4f} | {r['upper_bonus_rate']:.4f} |"
        )
    lines += ["", "Optimal game values (solver): " + ", ".join(f"{r['rules']} {r['optimal_value']:.4f}" for r in rows if r["strategy"] == rows[0]["strategy"]), ""]
    lines += ["## Published (Glenn, standard Yahtzee)", "", "| strategy | mean | % of 254.59 |", "| --- | ---: | ---: |"]
    lines += [f"| {n} | {m:.2f} | {100 * m / 254.59:.2f} |" for n, m in GLENN]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
