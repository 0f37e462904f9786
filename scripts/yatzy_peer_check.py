"""Cross-check every yatzy-solver variant against jaxsolve, value by value, and write a table.

For each of yatzy-solver's twelve built-in variants (``category.peer.PEER_VARIANTS`` names the
jaxsolve game and preset): both solvers are solved in float64, then ``category.peer.compare``
checks the score card, the game value, the values of random reachable states, and every option
of random situations (values, legality, and each side's best action by the other's values).

    python scripts/yatzy_peer_check.py --out results/yatzy/peer_check   # peer_check.{md,json} there
    python scripts/yatzy_peer_check.py --states 500 --situations 500 --variants yatzy-scandinavian+forced
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import jax

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
jax.config.update("jax_enable_x64", True)

from jaxsolve.bench import machine  # noqa: E402
from jaxsolve.games.category.checks import peer  # noqa: E402


def markdown(rows: list[dict], meta: dict) -> str:
    m = meta["machine"]
    lines = [
        "# jaxsolve vs yatzy-solver: every built-in variant, value by value (float64)",
        "",
        f"Machine: {m['cpu']}, {m['cpu_count']} cores, {m['platform']}, jax {m['jax']}, yatzy-solver {meta['peer_version']}; "
        f"load average at start {tuple(round(x, 2) for x in m['load_average'] or ())}; {m['date']}.",
        f"Command: `{meta['command']}` ({meta['states']} random reachable states and {meta['situations']} random situations "
        f"per variant, seed {meta['seed']}).",
        "",
        "Columns: the jaxsolve preset; both game values and their difference; the largest difference over the sampled",
        "states' values and over every legal option of the sampled situations (each box to fill, each keep); options legal",
        "on one side only; situations where one side's best action is more than 1e-9 (relative) worse by the other side's",
        "values (tied best actions are allowed to differ); situations with the very same best action.",
        "",
        "| yatzy-solver variant | jaxsolve | game value (jaxsolve) | game value (yatzy-solver) | diff | states max diff | options compared | options max diff | legality mismatches | ours worse by theirs / theirs worse by ours | same best action | ok |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['variant']} | `{r['jaxsolve']}` | {r['game_value']:.9f} | {r['peer_game_value']:.9f} | {r['game_value_diff']:.1e} | "
            f"{r['state_max_diff']:.1e} | {r['options_compared']} | {r['option_max_diff']:.1e} | {r['legal_mismatches']} | "
            f"{r['ours_suboptimal_by_peer']} / {r['peer_suboptimal_by_ours']} | {r['same_best_action']} / {r['situations']} | {'yes' if r['ok'] else '**NO**'} |"
        )
    lines += ["", f"All variants agree: {'yes' if all(r['ok'] for r in rows) else 'NO'}.", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--states", type=int, default=3000)
    ap.add_argument("--situations", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--variants", nargs="*", default=None, help="yatzy-solver variant ids (default: all built-in)")
    ap.add_argument("--out", type=Path, default=Path("peer_check"), help="path of the table without suffix: writes .md and .json (default: peer_check in the current folder)")
    args = ap.parse_args(argv)
    ys = peer.peer()
    variants = args.variants or list(ys.builtin_variants())
    meta = {
        "machine": machine(),
        "peer_version": ys.__version__,
        "command": "python scripts/yatzy_peer_check.py" + ("" if argv is None and len(sys.argv) == 1 else " " + " ".join(sys.argv[1:] if argv is None else argv)),
        "states": args.states,
        "situations": args.situations,
        "seed": args.seed,
    }
    rows = []
    for v in variants:
        t0 = time.perf_counter()
        row = peer.compare(v, states=args.states, situations=args.situations, seed=args.seed)
        row["seconds"] = time.perf_counter() - t0
        rows.append(row)
        print(f"{v:38s} value {row['game_value']:.9f} vs {row['peer_game_value']:.9f}  ok={row['ok']}  ({row['seconds']:.0f} s)", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(rows, meta))
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
