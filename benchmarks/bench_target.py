"""The full target table: max P(final >= s) for every state and every s (float32), timed.

Solves the target objective for every state of a game (Yahtzee: 536,448 states, each layer cut
to the points its states can still score: 4.3 x 10^8 state-target values), keeps every layer
in host memory, optionally exports them (``--table``), and writes beside the timings the start
state's max P(final >= s) against the score-optimal policy's P(final >= s) from its exact
distribution (``distribution.distribution``). Compile time is reported apart; CPU seconds
(``time.process_time``: every thread of this process) give the rate per core; the peak
resident memory is ``ru_maxrss``; ``uptime``'s load at the start and the end says what else ran.
Each layer's time is written to ``OUT.progress.json`` as it finishes.

    python benchmarks/bench_target.py --out results/target/yahtzee                 # the whole game
    python benchmarks/bench_target.py --game yatzy --preset yatzy --out results/target/yatzy
    python benchmarks/bench_target.py --filled 0 1 2 3 4 5 6 --out /tmp/quick       # a subgame: boxes 0..6 closed
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import load  # noqa: E402

TARGETS = (200, 250, 300, 350, 400, 500)
DLANGK = {"states": 1.43e6, "targets": 384, "seconds": 346.0, "threads": 8, "machine": "Apple M1 Max, 8 threads"}
"""dlangk/yatzy's Scandinavian Yatzy target table as its README states it (1.43 M states x 384
targets in 346 s on 8 threads of an M1 Max)."""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="kniffel", choices=("kniffel", "yatzy"))
    ap.add_argument("--preset", default=None, help="rules preset (default: yahtzee / yatzy)")
    ap.add_argument("--filled", type=int, nargs="*", default=[], help="boxes closed from the start (a subgame)")
    ap.add_argument("--chunk", type=int, default=8)
    ap.add_argument("--devices", type=int, default=1, help="CPU devices to shard the layers over")
    ap.add_argument("--max-memory", type=int, default=2048, help="MiB per device for a layer's working set")
    ap.add_argument("--table", type=Path, default=None, help="also export the table here (target.save_table)")
    ap.add_argument("--no-distribution", action="store_true", help="skip the score policy's distribution")
    ap.add_argument("--out", type=Path, required=True, help="path without suffix: writes .json and .md")
    args = ap.parse_args(argv)
    from jaxsolve.core import runtime

    runtime.host_devices(args.devices)
    import jax
    import numpy as np

    from jaxsolve.bench import machine
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.sheets import kniffel, yatzy
    from jaxsolve.games.category.engine import solver
    from jaxsolve.games.category.objectives import target as TG

    mod = kniffel if args.game == "kniffel" else yatzy
    rules = mod.get_rules(args.preset or ("yahtzee" if args.game == "kniffel" else "yatzy"))
    mask = solver.filled_mask(args.filled, rules) if args.filled else 0
    sizes = [len(D.sub_layer_states(rules, k, mask)[0]) for k in range(rules.num_boxes + 1)]
    widths = D.support_lengths(rules)
    first = bin(mask).count("1")
    values = sum(n * w for k, (n, w) in enumerate(zip(sizes, widths)) if k >= first)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    progress = args.out.with_suffix(".progress.json")
    record: dict = {
        "rules": rules.name, "game": args.game, "prefilled": mask, "states": sum(sizes[first:]), "values": values, "chunk": args.chunk,
        "devices": args.devices, "machine": machine(), "load_start": load(), "free_start": os.popen("free -g").read(), "layers": {},
    }
    t_layer = [time.perf_counter(), time.process_time()]

    def on_layer(index: int, n: int) -> None:
        now = [time.perf_counter(), time.process_time()]
        record["layers"][str(index)] = {"states": n, "width": widths[index], "wall": round(now[0] - t_layer[0], 2), "cpu": round(now[1] - t_layer[1], 2), "load": load()}
        t_layer[:] = now
        progress.write_text(json.dumps(record, indent=1))

    w0, c0 = time.perf_counter(), time.process_time()
    tab = TG.solve_target(rules, dtype=np.float32, chunk=args.chunk, devices=args.devices, max_memory=args.max_memory << 20, prefilled=mask, on_layer=on_layer)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    start = tab.at(mask)
    record.update(
        run_seconds=tab.seconds, compile_seconds=tab.compile_seconds, wall_seconds=wall, cpu_seconds=cpu, device=tab.device,
        peak_rss_gib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, load_end=load(),
        start_min=float(start.min()), start_max=float(start.max()),
        target_max_p={str(s): float(start[s]) if s < len(start) else 0.0 for s in (0, *TARGETS)},
    )
    # the run's CPU seconds include compiling; the rate counts the run's wall seconds x the cores
    # it could use, and the process's CPU seconds less the compile share (an upper bound)
    cores = min(os.cpu_count() or 1, len(os.sched_getaffinity(0)))
    record["us_per_value_wall"] = tab.seconds / values * 1e6
    record["core_us_per_value_cpu"] = cpu / values * 1e6
    record["core_us_per_value_wall_x_cores"] = tab.seconds * cores / values * 1e6
    dl_values = DLANGK["states"] * DLANGK["targets"]
    record["dlangk"] = {**DLANGK, "values": dl_values, "us_per_value_wall": DLANGK["seconds"] / dl_values * 1e6,
                        "core_us_per_value": DLANGK["seconds"] * DLANGK["threads"] / dl_values * 1e6}
    progress.write_text(json.dumps(record, indent=1))
    if args.table is not None:
        t = time.perf_counter()
        TG.save_table(args.table, tab, game=args.game)
        record["export_seconds"] = time.perf_counter() - t
    if not args.no_distribution:
        jax.config.update("jax_enable_x64", True)
        t = time.perf_counter()
        p = D.distribution(rules, prefilled=mask, dtype=np.float64).at(mask)
        tail = np.cumsum(p[::-1])[::-1]
        record["score_policy_p"] = {str(s): float(tail[s]) if s < len(tail) else 0.0 for s in (0, *TARGETS)}
        record["distribution_seconds"] = time.perf_counter() - t
        gap = [float(start[s]) - float(tail[s]) for s in range(min(len(start), len(tail)))]
        record["min_gain_over_score_policy"] = min(gap)
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1))
    lines = [
        f"# Target table: {rules.name}" + (f" (boxes {args.filled} closed)" if mask else ""),
        "",
        f"{record['states']:,} states, {values:,} state-target values (float32), chunk {args.chunk}, {args.devices} device(s): "
        f"{tab.seconds:.1f} s run + {tab.compile_seconds:.1f} s compiling, {cpu:.0f} CPU seconds, peak RSS {record['peak_rss_gib']:.2f} GiB.",
        f"Machine: {record['machine']}. Load (1, 5, 15 min) at the start {record['load_start']}, at the end {record['load_end']}.",
        "",
        f"Rate: {record['us_per_value_wall']:.3f} us per state-target value (wall), {record['core_us_per_value_wall_x_cores']:.3f} core-us "
        f"(wall x {cores} cores), {record['core_us_per_value_cpu']:.3f} core-us (this process's CPU seconds).",
        f"dlangk/yatzy (Scandinavian Yatzy, {DLANGK['states']:.3g} states x {DLANGK['targets']} targets in {DLANGK['seconds']:.0f} s on "
        f"{DLANGK['machine']}): {record['dlangk']['us_per_value_wall']:.4f} us per value (wall), {record['dlangk']['core_us_per_value']:.3f} core-us.",
        "",
        "| s | max P(final >= s) | score policy P(final >= s) |",
        "|---|---|---|",
    ]
    for s in (0, *TARGETS):
        pol = record.get("score_policy_p", {}).get(str(s))
        lines.append(f"| {s} | {record['target_max_p'][str(s)]:.6f} | {'' if pol is None else f'{pol:.6f}'} |")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
