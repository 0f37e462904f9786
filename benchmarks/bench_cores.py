"""Core scaling of the Yahtzee value solve: one core against both, side by side.

Each configuration runs in a fresh process, alternating round by round so all see the same
machine load; a process solves once to compile and then times ``--repeats`` warm solves of
Yahtzee (float32). Configurations:

* ``1 core``: pinned to one core (``taskset -c 0``), JAX shows one CPU device;
* ``all cores, 1 device``: every core usable, one CPU device (XLA's own threads only), what
  the command line does;
* ``all cores, 1 device per core``: one CPU device per core (``runtime.host_devices``), each
  taking a share of every layer (the layered core's ``whole-layer`` schedule, which its
  ``auto`` rule picks on CPU devices).

    python benchmarks/bench_cores.py --rounds 3   # writes results/bench/cores.{md,json}

It also times the largest layer alone on one core and on one device per core, so the scaling
of a layer big enough to split shows apart from the small layers; ``--schedule`` names the
layered core's schedule of that part (default ``auto``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import describe  # noqa: E402

TIMER = r"""
import json, os, sys
import jax
jax.config.update("jax_num_cpu_devices", int(sys.argv[2]))
import jax.numpy as jnp
from jaxsolve.games.category.engine import solver
from jaxsolve.games.category.sheets.kniffel import PRESETS as K
repeats = int(sys.argv[1])
rules = K[sys.argv[3]]
chunk = int(sys.argv[4])
first = solver.solve(rules, dtype=jnp.float32, chunk=chunk)
times = [solver.solve(rules, dtype=jnp.float32, chunk=chunk).solve_seconds for _ in range(repeats)]
print(json.dumps({"times": times, "value": first.game_value, "device": first.device, "load": os.getloadavg()[0]}))
"""


# The largest layer alone: the value solve's driver run on that one layer (as many repeats as
# asked), on one core and on one device per core, so the scaling of a layer big enough to split
# shows apart from the small layers and the layer-to-layer hand-over.
STEP = r"""
import json, sys, time
import jax
jax.config.update("jax_num_cpu_devices", int(sys.argv[2]))
import numpy as np
from jaxsolve.core.layered import Layer, make_mesh, run_layers
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets.kniffel import PRESETS as K
rules, chunk, calls, schedule = K[sys.argv[3]], int(sys.argv[4]), int(sys.argv[1]), sys.argv[5]
layer = max(range(rules.num_boxes), key=lambda k: len(tables.representative_states(rules, k)[0]))
states = tables.representative_states(rules, layer)
values = np.random.default_rng(0).uniform(0, 300, rules.num_states).astype(np.float32)
devices = jax.devices()
mesh = make_mesh(devices) if len(devices) > 1 else None
def once():
    table = jax.device_put(values, devices[0])
    run = run_layers(("bench-layer", rules), solver.value_step(rules, "score"), [Layer(layer, states)] * calls, table, chunk=chunk, mesh=mesh, schedule=schedule)
    return run.seconds, run.schedule
once()
best, ran = min(once() for _ in range(5))
print(json.dumps({"us_per_state": best / calls / len(states[0]) * 1e6, "layer": layer, "schedule": ran}))
"""


def configs(cores: int) -> dict:
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else None
    out = {}
    if pin:
        out["1 core"] = (pin, 1)
    out[f"{cores} cores, 1 device"] = ([], 1)
    out[f"{cores} cores, {cores} devices"] = ([], cores)
    return out


def run(prefix: list, devices: int, repeats: int, preset: str, chunk: int, script: str = TIMER, schedule: str = "auto") -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run(prefix + [sys.executable, "-c", script, str(repeats), str(devices), preset, str(chunk), schedule], capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode:
        raise SystemExit(f"timing failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--preset", default="yahtzee")
    ap.add_argument("--chunk", type=int, default=1024, help="states per chunk")
    ap.add_argument("--schedule", default="auto", help="the layered core's schedule of the largest layer alone (auto, per-chunk, streams, whole-layer)")
    ap.add_argument("--out", default=str(ROOT / "results" / "bench"))
    args = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    runs = configs(cores)
    times, loads, values = {k: [] for k in runs}, {k: [] for k in runs}, {}
    for _ in range(args.rounds):
        for name, (prefix, devices) in runs.items():
            r = run(prefix, devices, args.repeats, args.preset, args.chunk)
            times[name] += r["times"]
            loads[name].append(r["load"])
            values[name] = r["value"]
    steps = {}  # the largest layer alone: one core, then one device per core
    for prefix, devices in runs.values():
        if devices == 1 and prefix:
            steps["1 core"] = run(prefix, 1, 5, args.preset, args.chunk, STEP, args.schedule)
        elif devices > 1:
            steps[f"{cores} cores, {devices} devices"] = run(prefix, devices, 5, args.preset, args.chunk, STEP, args.schedule)
    base = statistics.median(times[next(iter(runs))])
    rows = [
        {"config": k, "median_s": statistics.median(v), "min_s": min(v), "speedup_vs_first": base / statistics.median(v), "load_1min": loads[k], "game_value": values[k]}
        for k, v in times.items()
    ]
    machine = describe()
    payload = {"preset": args.preset, "rounds": args.rounds, "repeats": args.repeats, "chunk": args.chunk, "schedule": args.schedule, "machine": machine, "rows": rows, "times": times, "step_alone": steps}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cores.json").write_text(json.dumps(payload, indent=1))
    lines = [
        f"# Core scaling: {args.preset} value solve, float32, warm",
        "",
        f"Command: `python benchmarks/bench_cores.py --rounds {args.rounds} --repeats {args.repeats} --chunk {args.chunk}"
        + (f" --schedule {args.schedule}`" if args.schedule != "auto" else "`"),
        f"Machine: {machine['cpu']}, {machine['cpu_count']} cores, CPU only, {machine['date']}; medians over {args.rounds * args.repeats} warm solves, compile excluded;",
        "1-minute load average read after each process (other work on the machine counts in it).",
        "",
        "| configuration | median (s) | min (s) | speed-up vs first row | load |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    lines += [f"| {r['config']} | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['speedup_vs_first']:.2f} | {', '.join(f'{x:.1f}' for x in r['load_1min'])} |" for r in rows]
    if steps:
        first = next(iter(steps.values()))["us_per_state"]
        lines += [
            "",
            f"The largest layer alone (layer {next(iter(steps.values()))['layer']} solved 5 times over by the same driver, best of 5):",
            "",
            "| configuration | schedule | microseconds per state | speed-up |",
            "| --- | --- | ---: | ---: |",
        ]
        lines += [f"| {k} | {v['schedule']} | {v['us_per_state']:.3f} | {first / v['us_per_state']:.2f} |" for k, v in steps.items()]
    (out / "cores.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
