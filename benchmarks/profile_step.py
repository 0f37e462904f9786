"""Per-part profile of the category value solve's chunk step on one fixed chunk.

Times, on one chunk of one layer (warm, compile apart, best of ``--repeats``), the parts of
``solver.state_values``: the next-state look-ups, the box pick after the last throw (the
all-same throws included), one re-throw (``dice.reroll``) and the whole step, in microseconds
per state. Run it pinned to one core (``taskset -c 0``) for figures that do not depend on
the other core's load; compare before/after within the same minute.

    taskset -c 0 python benchmarks/profile_step.py --game maxi --layer 10 --chunk 1024

``--out DIR --label NAME`` adds the run as a row of ``DIR/profile_<game>.{json,md}`` (e.g. one
row per commit, run one after the other; the machine and load are recorded beside each row).
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
    ap.add_argument("--out", default=None, help="folder: add this run to profile_<game>.{json,md} there")
    ap.add_argument("--label", default="", help="name of this run's row (e.g. the commit)")
    ap.add_argument("--parts", nargs="+", default=["next", "box", "reroll", "step"], help="next box reroll step moments saved")
    ap.add_argument("--max-saved", type=int, default=None, help="saved part: the most saved throws (default: uncapped)")
    args = ap.parse_args()

    import jax
    import jax.numpy as jnp
    import numpy as np

    if args.dtype == "float64":
        jax.config.update("jax_enable_x64", True)
    from jaxsolve.core import dice
    from jaxsolve.games.category.engine import solver, tables

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
        "next": (lambda v, *s: solver._next_values(v, tables.EngineState(*s), rules, "score"), (values, *states)),
        "box": (lambda v, *s: solver.final_throw_values(v, tables.EngineState(*s), rules, "score"), (values, *states)),
        "reroll": (lambda x: dice.reroll(sp, x), (thr,)),
        "step": (lambda v, *s: solver.state_values(v, tables.EngineState(*s), rules, "score"), (values, *states)),
    }
    if "saved" in args.parts:  # the saved-throw step: every row of a chunk, next layer at full size
        from jaxsolve.games.category.engine import saved

        most = saved.useful_max_saved(rules) if args.max_saved is None else args.max_saved
        rows = saved.rows_in_layer(rules, most, args.layer)
        width = saved.layer_width(rules) * saved.layer_masks(rules)[args.layer + 1]
        after = jnp.asarray(rng.uniform(0, 300, (saved.rows_in_layer(rules, most, args.layer + 1), width)).astype(dtype))
        ranks = jnp.asarray(saved.mask_ranks(rules.num_boxes))
        parts["saved"] = (lambda n, rk, *s: saved.state_values(n, rk, tables.EngineState(*s), rules, rows), (after, ranks, *states))
    if "moments" in args.parts:  # the moments-only policy evaluation's step (mean and second moment)
        from jaxsolve.games.category.engine import evaluate

        aux = jnp.asarray(rng.uniform(0, 300, (rules.num_states, 2)).astype(dtype))
        parts["moments"] = (lambda v, a, *s: evaluate.turn_channels(v, a, tables.EngineState(*s), rules, "score", split=False)[1], (values, aux, *states))
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
    if args.out:
        _record(Path(args.out), args, out)


def _record(folder: Path, args, out: dict) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from machine import describe

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"profile_{args.game}.json"
    runs = json.loads(path.read_text())["runs"] if path.exists() else []
    runs.append({"label": args.label, "machine": describe(), **out})
    path.write_text(json.dumps({"runs": runs}, indent=1))
    write_table(folder, args.game, runs)


def write_table(folder: Path, game: str, runs: list) -> None:
    """``profile_<game>.md`` from the recorded runs."""
    parts = ("next", "box", "reroll", "step", "moments", "saved")
    lines = [
        f"# Chunk step profile: {game}",
        "",
        "Microseconds per state on one fixed chunk (warm, best of the repeats, compile apart), pinned to one core:",
        "`taskset -c 0 python benchmarks/profile_step.py --game GAME --layer L --chunk C --parts ... --out results/bench --label LABEL`.",
        "next: next-state look-ups; box: box pick after the last throw (look-ups included); reroll: one re-throw;",
        "step: the whole value step; moments: the moments-only evaluation step (mean and second moment);",
        "saved: the saved-throw step (every saved-throw row of the state, saved throws uncapped; its next layer at full size).",
        "",
        "| run | date (UTC) | layer | chunk | dtype | load | " + " | ".join(parts) + " |",
        "| --- | --- | ---: | ---: | --- | ---: | " + " | ".join("---:" for _ in parts) + " |",
    ]
    for r in runs:
        cells = [str(r[p]["us_per_state"]) if p in r else "" for p in parts]
        lines.append(f"| {r['label']} | {r['machine']['date'][:16]} | {r['layer']} | {r['chunk']} | {r['dtype']} | {r['load_1min']:.1f} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"Machine: {runs[-1]['machine']['cpu']}, {runs[-1]['machine']['cpu_count']} cores (shared with other work: compare rows taken one after the other).")
    (folder / f"profile_{game}.md").write_text("\n".join(lines) + "\n")


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
