"""Warm solve times of this tree against an earlier commit, side by side on one machine.

Each round runs one fresh process per tree (alternating, so both see the same machine load);
a process solves once to compile and then times ``--repeats`` warm solves of: Yahtzee float32
and Scandinavian Yatzy float32 (the category value solve), the vector objectives on the layered
core's vector driver (the Yahtzee target table of a position with 8 boxes open, float32; the
whole Yahtzee score distribution, float64; the two-player Yacht end game of every position with
at most 3 open boxes each, float32), Schlag den Raab and Pig float64 to 1e-12, Zehntausend float64.
Compile time is excluded; the figures are the medians over all rounds. ``--cases`` keeps the
cases whose names contain one of the words given; ``--name`` names the output files.

    python benchmarks/compare_commit.py e4e3cce --rounds 3   # writes results/bench/compare_<ref>.{md,json}
    python benchmarks/compare_commit.py ef5f5c7 --cases kniffel yatzy --name compare_schedules
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import describe  # noqa: E402

TIMER = r"""
import json, sys, time
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
try:  # the category folder filed by what it holds
    from jaxsolve.games.category.engine import solver
    from jaxsolve.games.category.objectives import distribution, target, twoplayer
    from jaxsolve.games.category.sheets.kniffel import PRESETS as K
    from jaxsolve.games.category.sheets.yacht import PRESETS as YA
    from jaxsolve.games.category.sheets.yatzy import PRESETS as Y
except ImportError:
    try:  # one flat folder per game family
        from jaxsolve.games.category import solver, distribution, target, twoplayer
        from jaxsolve.games.category.kniffel import PRESETS as K
        from jaxsolve.games.category.yacht import PRESETS as YA
        from jaxsolve.games.category.yatzy import PRESETS as Y
    except ImportError:  # the earlier layout
        from jaxsolve import yatzy
        from jaxsolve.kniffel import rules as kr, solver
        K, Y, YA, distribution, target, twoplayer = kr.PRESETS, yatzy.PRESETS, None, None, None, None
try:
    from jaxsolve.games.raab import solver as raab
    from jaxsolve.games.raab.rules import PRESETS as R
    from jaxsolve.games.zehntausend import solver as zehntausend
    from jaxsolve.games.zehntausend.rules import PRESETS as Z
except ImportError:  # the earlier layout
    from jaxsolve import raab, zehntausend
    R, Z = raab.PRESETS, zehntausend.PRESETS

repeats, wanted = int(sys.argv[1]), sys.argv[2:]
EIGHT_OPEN = sum(1 << b for b in range(13) if b not in (0, 2, 5, 6, 8, 9, 11, 12))  # Yahtzee with 8 boxes open


def score_table():
    if "sol" not in CACHE:
        CACHE["sol"] = solver.solve(K["yahtzee"], dtype=jnp.float64)
    return CACHE["sol"]


CACHE = {}
cases = {
    "kniffel yahtzee float32": lambda: solver.solve(K["yahtzee"], dtype=jnp.float32).solve_seconds,
    "yatzy float32": lambda: solver.solve(Y["yatzy"], dtype=jnp.float32).solve_seconds,
    "target yahtzee 8-open float32": lambda: target.solve_target(K["yahtzee"], dtype="float32", prefilled=EIGHT_OPEN, keep="start").seconds,
    "distribution yahtzee float64": lambda: distribution.distribution(K["yahtzee"], score_table(), dtype="float64", keep="start").seconds,
    "twoplayer yacht 3-open float32": lambda: twoplayer.solve(YA["yacht"], open_boxes=3, dtype="float32").seconds,
    "raab float64": lambda: raab.solve(R["raab"], dtype=jnp.float64).solve_seconds,
    "pig float64": lambda: raab.solve(R["pig"], dtype=jnp.float64).solve_seconds,
    "zehntausend float64": lambda: zehntausend.solve(Z["peter-2013"], dtype=jnp.float64).solve_seconds,
}
import os
out = {}
for name, run in cases.items():
    if wanted and not any(w in name for w in wanted):
        continue
    run()
    out[name] = [run() for _ in range(repeats)]
out["load"] = [os.getloadavg()[0]]
print(json.dumps(out))
"""


def run_tree(tree: Path, repeats: int, cases: list) -> dict:
    env = {"PYTHONPATH": str(tree), "JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", TIMER, str(repeats), *cases], capture_output=True, text=True, env=env, cwd=tree)
    if proc.returncode:
        raise SystemExit(f"timing failed in {tree}:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ref", help="the earlier commit")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cases", nargs="*", default=[], help="only the cases whose names contain one of these words (kniffel, yatzy, target, distribution, twoplayer, raab, pig, zehntausend)")
    ap.add_argument("--name", default=None, help="output file name without extension (default: compare_<ref>)")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), args.ref], check=True, capture_output=True)
        try:
            times = {"old": {}, "new": {}}
            for _ in range(args.rounds):
                for label, tree in (("old", old), ("new", ROOT)):
                    for case, values in run_tree(tree, args.repeats, args.cases).items():
                        times[label].setdefault(case, []).extend(values)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)
    loads = sorted(times["old"].pop("load", []) + times["new"].pop("load", []))
    rows = []
    for case in times["new"]:
        o, n = statistics.median(times["old"][case]), statistics.median(times["new"][case])
        lo, ln = min(times["old"][case]), min(times["new"][case])
        rows.append({"case": case, "old_median_s": o, "new_median_s": n, "new_over_old": n / o, "old_min_s": lo, "new_min_s": ln, "min_ratio": ln / lo})
    ref = args.ref[:12]
    name = args.name or f"compare_{ref}"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"ref": args.ref, "cases": args.cases, "load_1min": loads, "rounds": args.rounds, "repeats": args.repeats, "machine": describe(), "rows": rows, "times": times}
    (out / f"{name}.json").write_text(json.dumps(payload, indent=1))
    lines = [
        f"# Warm solve times: this tree vs {ref}",
        "",
        f"Command: `python benchmarks/compare_commit.py {args.ref} --rounds {args.rounds} --repeats {args.repeats}"
        + (f" --cases {' '.join(args.cases)}" if args.cases else "") + (f" --name {args.name}" if args.name else "") + "`",
        f"Machine: {describe()['cpu']}, {describe()['cpu_count']} cores (a virtual machine), CPU only (no GPU measured); medians over {args.rounds * args.repeats} warm solves, compile excluded.",
        f"1-minute load average after each process: {', '.join(f'{x:.1f}' for x in loads)} (other work on the machine included).",
        "",
        "| case | old median (s) | new median (s) | new / old | old min (s) | new min (s) | new / old (min) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {r['case']} | {r['old_median_s']:.4f} | {r['new_median_s']:.4f} | {r['new_over_old']:.3f} | {r['old_min_s']:.4f} | {r['new_min_s']:.4f} | {r['min_ratio']:.3f} |"
        for r in rows
    ]
    if any(r["case"].split()[0] in ("raab", "pig", "zehntausend") for r in rows):
        lines += ["", "Runs of a few milliseconds (Raab, Pig, Zehntausend) vary by tens of percent from run to run on this machine; their minima are the steadier figure."]
    (out / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
