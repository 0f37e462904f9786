"""Throughput of bulk questions: 10,000 random situations of a solved game answered through the
batch API (``jaxsolve.games.category.answers.query.Table``) and through the CLI batch mode (``jaxsolve advise
<game> --batch -``, one process), each compared with single ``advisor.advise`` calls on a sample.

    python benchmarks/bench_batch.py [--rules yahtzee] [--n 10000] [--sample 200]

Writes batch_throughput.md (+ .json) with the machine into ``--out`` (default: the current
folder; the committed ones: ``--out results/query``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import jax  # noqa: E402
import numpy as np  # noqa: E402

jax.config.update("jax_enable_x64", True)

from machine import describe  # noqa: E402

from jaxsolve.games.category.answers import advisor, query  # noqa: E402
from jaxsolve.games.category.sheets import position  # noqa: E402
from jaxsolve.games.category.engine import table_io, tables  # noqa: E402
from jaxsolve.games.category.sheets.kniffel import get_rules  # noqa: E402


def situations(rules, n, seed=0):
    rng = np.random.default_rng(seed)
    parts = [tables.layer_states(rules, k) for k in range(rules.num_boxes)]
    f, u, h = (np.concatenate([p[i] for p in parts]) for i in range(3))
    pick = rng.integers(0, len(f), n)
    return f[pick], u[pick], h[pick], rng.integers(1, 7, (n, rules.dice)), rng.integers(0, rules.throws, n)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--out", default=".", help="folder (default: the current folder)")
    args = ap.parse_args()
    rules = get_rules(args.rules)
    sol = table_io.solved(rules, game="kniffel", dtype="float64")
    f, u, h, dice, left = situations(rules, args.n)

    table = query.Table(sol)
    t0 = time.perf_counter()
    ov = table.option_values(f[:16], u[:16], h[:16], dice[:16], left[:16])  # compile
    warmup = time.perf_counter() - t0
    t0 = time.perf_counter()
    ov = table.option_values(f, u, h, dice, left)
    ranked = [table.ranked(ov, i) for i in range(args.n)]
    api = time.perf_counter() - t0

    # equal to single advise calls (a sample; a state is given as such, scores unknown)
    worst = 0.0
    for i in range(0, args.n, max(1, args.n // args.sample)):
        filled = [rules.box_names[b] for b in range(rules.num_boxes) if f[i] >> b & 1]
        pos = position.parse_position(f"filled={','.join(filled) or '-'} upper={u[i]} all_same_held={h[i]}", rules)
        single = advisor.advise(rules, pos, tuple(int(d) for d in dice[i]), int(left[i]), sol=sol)
        assert [o.label for o in single.options] == [o["option"] for o in ranked[i]], i
        worst = max(worst, max(abs(o.value - r["value"]) for o, r in zip(single.options, ranked[i])))

    lines = []
    for i in range(args.n):
        filled = [rules.box_names[b] for b in range(rules.num_boxes) if f[i] >> b & 1]
        lines.append(json.dumps({"state": {"filled": filled, "upper": int(u[i]), "all_same_held": int(h[i])}, "dice": dice[i].tolist(), "throws_left": int(left[i])}))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "jaxsolve", "advise", "kniffel", "--rules", args.rules, "--batch", "-", "--quiet"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, env=env)
    if proc.returncode:
        bad = [line for line in proc.stdout.splitlines() if "error" in line][:3]
        raise SystemExit(f"CLI batch failed: {proc.stderr[-500:]} {bad}")
    cli = time.perf_counter() - t0
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == args.n
    cli_diff = max(abs(a["value"] - r["value"]) for o, rk in zip(out, ranked) for a, r in zip(o["options"], rk))

    report = {
        "rules": args.rules, "situations": args.n, "machine": describe(),
        "api_seconds": round(api, 3), "api_per_second": round(args.n / api), "api_compile_seconds": round(warmup, 3),
        "cli_seconds_whole_process": round(cli, 3), "cli_per_second": round(args.n / cli),
        "single_advise_sample": args.sample, "max_abs_difference_vs_single_advise": worst, "max_abs_difference_cli_vs_api": cli_diff,
    }
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "batch_throughput.json").write_text(json.dumps(report, indent=1) + "\n")
    md = [
        f"# Bulk questions: {args.n:,} random situations of `{args.rules}` (float64 table)",
        "",
        "| path | seconds | situations per second |",
        "| --- | --- | --- |",
        f"| batch API (`query.Table.option_values` + ranking), warm | {api:.2f} | {args.n / api:,.0f} |",
        f"| CLI `advise kniffel --batch -`, whole process (start-up, cached table, compile) | {cli:.2f} | {args.n / cli:,.0f} |",
        "",
        f"Compile of the batched program: {warmup:.2f} s (first call). Every option list of a sample of {args.sample}"
        f" situations equals single `advise` calls (labels and order identical; largest value difference {worst:.1e});"
        f" the CLI's answers equal the API's (largest difference {cli_diff:.1e}).",
        "",
        f"Machine: {report['machine']}",
    ]
    (out_dir / "batch_throughput.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
