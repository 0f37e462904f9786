"""Scandinavian Yatzy full solve: jaxsolve (float32, warm) vs yatzy-solver's build, side by side.

Both solve the base game (jaxsolve preset ``yatzy`` = yatzy-solver ``yatzy-scandinavian``) in
the same process, interleaved (jaxsolve, yatzy-solver, jaxsolve, ...) so that a change in the
machine's load hits both alike. jaxsolve is compiled once first; its compile time is reported
apart and the timed solves are warm. yatzy-solver's ``Solver.build`` solves in float64 on all
cores (it has no in-memory float32 build). jaxsolve's float64 warm solve and other chunk sizes
are timed after the side-by-side runs.

    python benchmarks/bench_yatzy.py --out results/yatzy/bench   # bench.{md,json} there (default: in the current folder)
    python benchmarks/bench_yatzy.py --repeats 5 --chunks 512 1024 2048
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import jax

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
from machine import describe  # noqa: E402

from jaxsolve.games.category.sheets import yatzy  # noqa: E402
from jaxsolve.games.category.engine import solver  # noqa: E402

PRESET, PEER = "yatzy", "yatzy-scandinavian"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3, help="interleaved pairs of timed solves")
    ap.add_argument("--chunk", type=int, default=512, help="jaxsolve states per compiled batch (the solver's default)")
    ap.add_argument("--chunks", type=int, nargs="*", default=[], help="further chunk sizes to time (float32, warm)")
    ap.add_argument("--out", type=Path, default=Path("bench"), help="path without suffix: writes .md and .json (default: bench in the current folder)")
    ap.add_argument("--streams", type=int, default=None, help="CPU devices the layered core shares each layer between (default: as the command line, one)")
    args = ap.parse_args(argv)
    from jaxsolve.core import runtime

    runtime.host_devices(args.streams)  # before JAX's first computation
    import yatzy_solver as ys

    machine = describe()
    rules = yatzy.get_rules(PRESET)
    variant = ys.Variant(PEER)

    first = solver.solve(rules, dtype=jnp.float32, chunk=args.chunk)
    compile32 = first.compile_seconds
    ours, theirs, peer_value = [], [], None
    for _ in range(args.repeats):
        sol = solver.solve(rules, dtype=jnp.float32, chunk=args.chunk)
        ours.append(sol.solve_seconds)
        t0 = time.perf_counter()
        built = ys.Solver.build(variant)
        theirs.append(time.perf_counter() - t0)
        peer_value = built.state_value("upper 0 | filled -")
        print(f"jaxsolve f32 {ours[-1]:.3f} s   yatzy-solver {theirs[-1]:.3f} s", flush=True)
    value32 = sol.game_value

    first64 = solver.solve(rules, dtype=jnp.float64, chunk=args.chunk)
    warm64 = solver.solve(rules, dtype=jnp.float64, chunk=args.chunk)
    chunks = {}
    for c in args.chunks:
        solver.solve(rules, dtype=jnp.float32, chunk=c)
        chunks[c] = statistics.median(solver.solve(rules, dtype=jnp.float32, chunk=c).solve_seconds for _ in range(2))
        print(f"chunk {c}: {chunks[c]:.3f} s", flush=True)

    med_ours, med_theirs = statistics.median(ours), statistics.median(theirs)
    result = {
        "machine": machine,
        "command": "python benchmarks/bench_yatzy.py" + ("" if not (argv or sys.argv[1:]) else " " + " ".join(argv or sys.argv[1:])),
        "rules": PRESET,
        "peer_variant": PEER,
        "peer_version": ys.__version__,
        "chunk": args.chunk,
        "states_solved": sum(len(layer.states[0]) for layer in solver.representative_layers(rules)),
        "jaxsolve_f32": {"runs": ours, "median": med_ours, "compile": compile32, "value": value32},
        "yatzy_solver_build_f64": {"runs": theirs, "median": med_theirs, "value": peer_value},
        "speedup": med_theirs / med_ours,
        "jaxsolve_f64": {"warm": warm64.solve_seconds, "compile": first64.compile_seconds, "value": warm64.game_value},
        "chunks_f32": chunks,
        "load_average_end": list(os.getloadavg()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    m = machine
    lines = [
        "# Scandinavian Yatzy full solve: jaxsolve vs yatzy-solver",
        "",
        f"Machine: {m['cpu']}, {m['cpu_count']} cores, {m['platform']}, jax {m['jax']}, devices {', '.join(m['devices'])}; "
        f"yatzy-solver {ys.__version__}; load average at start {tuple(round(x, 2) for x in m['load_average'] or ())}; {m['date']}.",
        f"Command: `{result['command']}`. The timed solves alternate (jaxsolve, yatzy-solver, ...); jaxsolve was compiled",
        f"once before (compile time apart) and solves {result['states_solved']:,} class-representative states in chunks of {args.chunk}.",
        "",
        "| solver | game value | runs (s) | median | compile |",
        "| --- | ---: | --- | ---: | ---: |",
        f"| jaxsolve `{PRESET}`, float32, warm | {value32:.4f} | {', '.join(f'{x:.2f}' for x in ours)} | {med_ours:.2f} s | {compile32:.2f} s |",
        f"| yatzy-solver `{PEER}` `Solver.build` (float64) | {peer_value:.4f} | {', '.join(f'{x:.2f}' for x in theirs)} | {med_theirs:.2f} s | — |",
        f"| jaxsolve `{PRESET}`, float64, warm (after the pairs) | {warm64.game_value:.7f} | {warm64.solve_seconds:.2f} | — | {first64.compile_seconds:.2f} s |",
        "",
        f"Speed-up (median yatzy-solver build / median jaxsolve float32 warm solve): **{result['speedup']:.2f}x**.",
        "",
        f"Load average at the end: {tuple(round(x, 2) for x in result['load_average_end'])}. Both solvers use every core; the machine is",
        "shared, and a loaded machine stretches yatzy-solver's build (a work-stealing thread pool) much more than",
        "jaxsolve's solve, so the ratio is only meaningful with the load recorded beside it.",
        "",
    ]
    if chunks:
        lines += ["| chunk (float32, warm, median of 2) | seconds |", "| ---: | ---: |"] + [f"| {c} | {s:.2f} |" for c, s in chunks.items()] + [""]
    args.out.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
