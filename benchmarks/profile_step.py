"""Per-part profile of the category value solve's chunk step on one fixed chunk.

Times, on one chunk of one layer (warm, compile apart, best of ``--repeats``), the parts of
``solver.state_values``: the next-state look-ups, the box pick after the last throw (the
all-same throws included), one re-throw (``dice.reroll``) and the whole step, in microseconds
per state. Run it pinned to one core (``taskset -c 0``) for figures that do not depend on
the other core's load; compare before/after within the same minute.

    taskset -c 0 python benchmarks/profile_step.py --game maxi --layer 10 --chunk 1024
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="maxi", help="preset name (category games)")
    ap.add_argument("--layer", type=int, default=10)
    ap.add_argument("--chunk", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--parts", nargs="+", default=["next", "box", "reroll", "step"], help="next box reroll step moments")
    args = ap.parse_args()

    import jax
    import jax.numpy as jnp
    import numpy as np

    if args.dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    from jaxsolve.core import dice
    from jaxsolve.games.category import solver, tables

    rules = _rules(args.game)
    dtype = jnp.dtype(args.dtype)
    f, u, h = tables.representative_states(rules, args.layer)
    pick = np.linspace(0, len(f) - 1, args.chunk).astype(np.int64)
    states = tuple(jnp.asarray(a[pick]) for a in (f, u, h))
    rng = np.random.default_rng(0)
    values = jnp.asarray(rng.uniform(0, 300, rules.num_states).astype(dtype))
    sp = tables.space(rules.dice)
    thr = jnp.asarray(rng.uniform(0, 300, (sp.num_throws, args.chunk)).astype(dtype))

    parts = {
        "next": (lambda v, *s: solver._next_values(v, *s, rules, "score"), (values, *states)),
        "box": (lambda v, *s: solver.final_throw_values(v, *s, rules, "score"), (values, *states)),
        "reroll": (lambda x: dice.reroll(sp, x), (thr,)),
        "step": (lambda v, *s: solver.state_values(v, *s, rules, "score"), (values, *states)),
    }
    if "moments" in args.parts:  # the moments-only policy evaluation's step (mean and second moment)
        from jaxsolve.games.category import evaluate

        aux = jnp.asarray(rng.uniform(0, 300, (rules.num_states, 2)).astype(dtype))
        parts["moments"] = (lambda v, a, *s: evaluate.turn_channels(v, a, *s, rules, "score", split=False)[1], (values, aux, *states))
    out = {"game": args.game, "layer": args.layer, "chunk": args.chunk, "dtype": args.dtype, "load_1min": os.getloadavg()[0], "cores": len(os.sched_getaffinity(0))}
    for name in args.parts:
        fn, ops = parts[name]
        t0 = time.perf_counter()
        exe = jax.jit(fn).lower(*ops).compile()
        compile_s = time.perf_counter() - t0
        jax.block_until_ready(exe(*ops))
        best = float("inf")
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            jax.block_until_ready(exe(*ops))
            best = min(best, time.perf_counter() - t0)
        out[name] = {"us_per_state": round(best / args.chunk * 1e6, 3), "compile_s": round(compile_s, 2)}
        print(name, out[name], flush=True)
    print(json.dumps(out))


def _rules(name: str):
    from jaxsolve.games import games

    for game in games():
        try:
            return game.presets().get_rules(name)
        except Exception:  # noqa: BLE001 - not this game's preset
            continue
    raise SystemExit(f"no preset {name!r}")


if __name__ == "__main__":
    main()
