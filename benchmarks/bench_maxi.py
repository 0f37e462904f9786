"""Maxi Yatzy at full size: the value solve, saved throws uncapped, and the exact SD.

One process, the CPU shown to JAX as ``--streams N`` devices (default: as the command line
does, ``runtime.host_devices``, one device). Each part reports its run time with the
compile time apart (the solver's own figures, from the first and only run: these solves take
minutes) and the load average beside it:

* ``solve``: the value solve, float32 (game value 394.558);
* ``saved``: saved throws uncapped (``saved.useful_max_saved``), float32, game value only;
* ``sd``: the value solve in float64 and the moments-only evaluation of its policy
  (``evaluate.evaluate(split=False)``): mean and exact standard deviation of the final score.

    python benchmarks/bench_maxi.py --out results/bench   # all three; maxi.{md,json} there (default: the current folder; a run per command)
    python benchmarks/bench_maxi.py --parts solve sd
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", nargs="+", choices=("solve", "saved", "sd"), default=["solve", "saved", "sd"])
    ap.add_argument("--streams", type=int, default=None, help="CPU devices (default: as the command line, one)")
    ap.add_argument("--out", default=".", help="folder (default: the current folder)")
    args = ap.parse_args()
    from jaxsolve.core import runtime

    runtime.host_devices(args.streams)
    import jax

    jax.config.update("jax_enable_x64", True)
    from machine import describe

    from jaxsolve.games.category.engine import evaluate as E
    from jaxsolve.games.category.sheets import maxi
    from jaxsolve.games.category.engine import saved, solver

    rules = maxi.PRESETS.get_rules("maxi")
    rows = []

    def record(part, seconds, compile_s, **facts):
        row = {"part": part, "seconds": round(seconds, 2), "compile_s": round(compile_s, 2), "load_1min": round(os.getloadavg()[0], 2), **facts}
        rows.append(row)
        print(json.dumps(row), flush=True)

    if "solve" in args.parts:
        sol = solver.solve(rules, dtype="float32")
        record("value solve float32", sol.solve_seconds, sol.compile_seconds, value=sol.game_value, device=sol.device)
        del sol
    if "saved" in args.parts:
        most = saved.useful_max_saved(rules)
        sol = saved.solve(rules, most, dtype="float32", table=False)
        record(f"saved throws uncapped ({most}) float32", sol.solve_seconds, sol.compile_seconds, value=sol.game_value, device=sol.device)
        del sol
    if "sd" in args.parts:
        sol = solver.solve(rules, dtype="float64")
        record("value solve float64", sol.solve_seconds, sol.compile_seconds, value=sol.game_value, device=sol.device)
        t0 = time.perf_counter()
        ev = E.evaluate(sol, split=False, on_layer=lambda k, n: print(f"  layer {k}: {n:,} states, {time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True))
        record("moments-only evaluation float64", time.perf_counter() - t0, 0.0, mean=ev.mean(), sd=ev.sd())
    command = f"python benchmarks/bench_maxi.py --parts {' '.join(args.parts)}" + (f" --streams {args.streams}" if args.streams else "")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = _runs(out / "maxi.json")
    runs = [r for r in runs if r["command"] != command] + [{"command": command, "machine": describe(), "rows": rows}]
    (out / "maxi.json").write_text(json.dumps({"runs": runs}, indent=1))
    (out / "maxi.md").write_text(table(runs))
    print(table(runs))


def _runs(path: Path) -> list:
    """The runs recorded in ``path`` (a run per command: a new run of a command replaces its last)."""
    try:
        return json.loads(path.read_text()).get("runs", [])
    except (OSError, ValueError, AttributeError):
        return []


def table(runs: list) -> str:
    """``maxi.md``: one section per recorded run."""
    lines = [
        "# Maxi Yatzy at full size",
        "",
        "One run each, compile apart; the 2-core CPU may be shared with other work (1-minute load average beside each figure).",
    ]
    for run in runs:
        m = run["machine"]
        lines += [
            "",
            f"Command: `{run['command']}`  ",
            f"Machine: {m['cpu']}, {m['cpu_count']} cores, devices {', '.join(m['devices'])}, {m['date']}",
            "",
            "| part | run (s) | compile (s) | load | result |",
            "| --- | ---: | ---: | ---: | --- |",
        ]
        for r in run["rows"]:
            result = f"value {r['value']:.7f}" if "value" in r else f"mean {r['mean']:.7f}, SD {r['sd']:.4f}"
            lines.append(f"| {r['part']} | {r['seconds']} | {r['compile_s'] or '(included)'} | {r['load_1min']} | {result} |")
    return "\n".join(lines) + "\n"

if __name__ == "__main__":
    main()
