"""Strategy means for several rule sets; writes ``<out>.json`` and ``<out>.md`` (default
``strategies`` in the current folder; the committed ones: ``--out results/simulate/strategies``).

A strategy is a registered name (``heuristic``, ``greedy``, ``optimal``), a heuristic bot
strength (``heuristic:weak``) and, for the heuristic, a start-value reading in brackets
(``heuristic[chain]``; default reading: fresh-turn). Each mean is given as a percentage of the
exact optimal game value (solver, float64) with its standard error, the simulated optimal mean
beside it as a check. The machine and the command are recorded with the figures.

    python benchmarks/compare_strategies.py --games 1000000 --rules kniffel,yahtzee \\
        --strategies heuristic,heuristic[chain],greedy,optimal --out results/simulate/strategies
    python benchmarks/compare_strategies.py --games 1000000 --rules kniffel \\
        --strategies heuristic,heuristic:strong,heuristic:medium,heuristic:weak --out results/simulate/strengths
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

import jax
import numpy as np

from jaxsolve.bench import machine
from jaxsolve.games.category.simulation import heuristic, simulate, strategies
from jaxsolve.games.category.engine import solver
from jaxsolve.games.category.sheets.kniffel import get_rules

# J. Glenn, "An Optimal Strategy for Yahtzee" (2006): simulated means of his strategies.
GLENN = [("greedy (one turn)", 218.05), ("a heuristic", 240.67), ("a better heuristic", 244.87), ("optimal", 254.59)]


def build(spec: str, rules, sol, bot_seed: int):
    """The strategy named by ``spec`` (see the module docstring)."""
    name, _, reading = spec.partition("[")
    if name == "optimal":
        return strategies.make(name, rules, solution=sol)
    if name.partition(":")[0] == "heuristic":
        return strategies.make(name, rules, reading=reading.rstrip("]") or heuristic.DEFAULT_READING, seed=bot_seed)
    return strategies.make(name, rules)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", default="kniffel,yahtzee")
    ap.add_argument("--strategies", default="heuristic,heuristic[chain],greedy,optimal")
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--bot-seed", type=int, default=0, help="Seed of the heuristic bots' forecast errors.")
    ap.add_argument("--out", type=Path, default=Path("strategies"), help="path without suffix (default: in the current folder)")
    args = ap.parse_args()
    command = "python " + " ".join(shlex.quote(a) for a in ["benchmarks/compare_strategies.py", *sys.argv[1:]])
    values = {}
    jax.config.update("jax_enable_x64", True)
    for rname in args.rules.split(","):
        values[rname] = float(solver.solve(get_rules(rname), dtype=np.float64).game_value)
    jax.config.update("jax_enable_x64", False)
    rows = []
    for rname in args.rules.split(","):
        rules = get_rules(rname)
        value = values[rname]
        sol = solver.solve(rules, dtype=np.float32)
        for spec in args.strategies.split(","):
            t0 = time.perf_counter()
            strat = build(spec, rules, sol, args.bot_seed)
            res = simulate.simulate(rules, strat, args.games, seed=args.seed)
            s = res.summary()
            row = {
                "rules": rname,
                "strategy": strat.name,
                "games": args.games,
                "seed": args.seed,
                "bot_seed": args.bot_seed if isinstance(strat, strategies.HeuristicStrategy) else None,
                "noise_sd": getattr(strat, "noise_sd", None),
                "mean": s["mean"],
                "se": s["se"],
                "sd": s["sd"],
                "optimal_value": value,
                "percent_of_optimal": 100 * s["mean"] / value,
                "percent_se": 100 * s["se"] / value,
                "p_at_least": s["p_at_least"],
                "upper_bonus_rate": s["upper_bonus_rate"],
                "kniffel_scored": s["boxes"]["kniffel"]["scored"],
                "extra_bonus_mean": s["extra_bonus_mean"],
                "seconds": round(time.perf_counter() - t0, 1),
            }
            print(json.dumps(row), flush=True)
            rows.append(row)
    info = machine()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"command": command, "machine": info, "rows": rows}, indent=1))
    gpu = any(not d.startswith(("cpu", "TFRT_CPU")) for d in info["devices"])
    lines = [
        "# Strategies compared (simulated)",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {info['cpu']}, {info['cpu_count']} CPU cores (shared), {'GPU: ' + ', '.join(info['devices']) if gpu else 'no GPU'}; "
        f"JAX {info['jax']}, Python {info['python']}; {info['date']}. Policies in float32, optimal values in float64.",
        "",
        "`heuristic` = default reading (fresh-turn), strongest bot; `[chain]` = the chain reading of the start value's "
        "bonus term; `:" + "/:".join(list(heuristic.STRENGTHS)[1:]) + "` = forecast noise SD "
        + "/".join(f"{v:g}" for v in list(heuristic.STRENGTHS.values())[1:]) + " points (bot seed "
        f"{args.bot_seed}). Kniffel scored = share of games with 50 in the Kniffel box.",
        "",
        "| rules | strategy | games | mean | SE | SD | % of optimal value (SE) | P(>=200) | P(>=250) | P(>=300) | upper bonus | Kniffel scored | extra bonus |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        p = r["p_at_least"]
        lines.append(
            f"| {r['rules']} | {r['strategy']} | {r['games']:,} | {r['mean']:.3f} | {r['se']:.3f} | {r['sd']:.2f} | "
            f"{r['percent_of_optimal']:.2f} ({r['percent_se']:.2f}) | {p['200']:.4f} | {p['250']:.4f} | {p['300']:.4f} | "
            f"{r['upper_bonus_rate']:.4f} | {r['kniffel_scored']:.4f} | {r['extra_bonus_mean']:.2f} |"
        )
    lines += ["", "Optimal game values (solver, float64): " + ", ".join(f"{k} {v:.4f}" for k, v in values.items()), ""]
    lines += ['## Published (J. Glenn, "An Optimal Strategy for Yahtzee", 2006; standard Yahtzee)', ""]
    lines += ["| strategy | mean | % of 254.59 |", "| --- | ---: | ---: |"]
    lines += [f"| {n} | {m:.2f} | {100 * m / 254.59:.2f} |" for n, m in GLENN]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
