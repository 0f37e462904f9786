"""Spread of a noisy heuristic bot's mean over bot seeds (same dice, different forecast errors).

    python benchmarks/bot_seeds.py --strength medium --games 200000 --seeds 5 --out results/simulate/strengths_bot_seeds
    # writes OUT.md and OUT.json (default: strengths_bot_seeds.{md,json} in the current folder)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import describe  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="kniffel")
    ap.add_argument("--strength", default="medium")
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7, help="dice seed (the same for every bot)")
    ap.add_argument("--out", default="strengths_bot_seeds", help="path without suffix (default: in the current folder)")
    args = ap.parse_args()

    from jaxsolve.games.category.simulation import simulate, strategies
    from jaxsolve.games.category.sheets.kniffel import get_rules

    rules = get_rules(args.rules)
    name = f"heuristic:{args.strength}"
    rows = []
    for bot in range(args.seeds):
        res = simulate.simulate(rules, strategies.make(name, rules, seed=bot), args.games, seed=args.seed)
        s = res.summary()
        rows.append({"bot_seed": bot, "strategy": name, "games": args.games, "seed": args.seed, "mean": s["mean"], "se": s["se"],
                     "upper_bonus_rate": s["upper_bonus_rate"], "kniffel_scored": s["boxes"]["kniffel"]["scored"]})
        print(json.dumps(rows[-1]), flush=True)
    means = [r["mean"] for r in rows]
    spread = statistics.stdev(means) if len(means) > 1 else 0.0
    command = "python benchmarks/bot_seeds.py " + " ".join(sys.argv[1:])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"command": command.strip(), "machine": describe(), "rows": rows, "sd_between_bot_seeds": spread}, indent=1))
    m = describe()
    lines = [
        f"# Bot seeds of one strength ({name}, {args.rules})",
        "",
        f"Command: `{command.strip()}`",
        "",
        f"Machine: {m['cpu']}, {m['cpu_count']} CPU cores, no GPU; JAX {m['jax']}, Python {m['python']}; {m['date']}.",
        "",
        f"Same dice (seed {args.seed}) for every bot; the bots differ only in their forecast errors.",
        "",
        "| bot seed | games | mean | SE | upper bonus | Kniffel scored |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [f"| {r['bot_seed']} | {r['games']:,} | {r['mean']:.3f} | {r['se']:.3f} | {r['upper_bonus_rate']:.4f} | {r['kniffel_scored']:.4f} |" for r in rows]
    lines += ["", f"SD of the {len(means)} means: {spread:.3f} points (range {min(means):.3f} to {max(means):.3f})."]
    out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
