"""Per-part profile of the Zehntausend duel's layered solve: where the time goes.

Parts, each warm and compile apart (best of ``--repeats``, wall and process CPU seconds; the
CPU seconds are the steadier figure on a shared machine):

* ``turn``: one turn evaluation of a chunk of ``--chunk`` states scanning all ``Gb`` turn
  totals (the widest scan), per turn-total level and per state-level;
* ``pair``: one pair solve of a whole layer;
* ``blocks`` (with ``--blocks GOAL``): a whole solve at that goal with the walk in one call,
  in the default blocks and one layer per call (the cost of running blocks from Python for
  the progress report), best of ``--repeats`` after one warm-up;
* ``solve`` (with ``--solve``): the whole solve (compile, run), the inner rounds per layer,
  the chunk turn evaluations made and those every round would make without the skip of
  settled chunks, the sequential turn-total steps and state-levels of the latter (an upper
  bound), and the CPU time those explain at the ``turn`` part's cost per state-level.

    python benchmarks/profile_duel.py --preset first-to-10000 --solve --out results/duel --label NAME

``--out DIR --label NAME`` adds the run as a row of ``DIR/profile.{json,md}`` (the machine and
load are recorded beside each row).
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


def best(fn, repeats: int) -> tuple[float, float]:
    """Best wall and process CPU seconds of ``fn()`` (warm: called once before)."""
    fn()
    wall, cpu = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return min(wall), min(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="first-to-10000")
    ap.add_argument("--chunk", type=int, nargs="+", default=None, help="chunk widths to time (default: the solver's)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--solve", action="store_true", help="also run the whole solve and count its steps")
    ap.add_argument("--blocks", type=int, default=None, help="a goal: time its solve in one call, in blocks, one layer per call")
    ap.add_argument("--out", default=None)
    ap.add_argument("--label", default="")
    args = ap.parse_args()

    import functools

    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np

    from jaxsolve.core.race import pair_solve
    from jaxsolve.games.zehntausend import duel
    from jaxsolve.games.zehntausend.duel_rules import PRESETS
    from machine import describe

    rules = PRESETS[args.preset]
    geo = duel.geometry(rules)
    ops = duel.turn_ops(rules, jnp.float64)
    layers = duel.duel_layers(rules)
    rng = np.random.default_rng(0)
    W = jax.device_put(rng.uniform(0.3, 0.7, int(np.prod(rules.shape))))
    turn = jax.jit(functools.partial(duel.duel_turn, geo=geo))
    row = int(np.argmax(layers.size))  # the widest layer; its first states have a = 0: all Gb levels
    parts: dict = {}
    for chunk in args.chunk or [duel.CHUNK]:
        idx = jax.device_put(layers.index[row, :chunk])
        wall, cpu = best(lambda idx=idx: jax.block_until_ready(turn(W, idx, ops)), args.repeats)
        parts[f"turn chunk {chunk}"] = {
            "wall_s": wall,
            "cpu_s": cpu,
            "levels": geo.Gb,
            "wall_us_per_level": wall / geo.Gb * 1e6,
            "cpu_us_per_state_level": cpu / geo.Gb / chunk * 1e6,
        }
    width = layers.index.shape[1]
    part_idx = jax.device_put(layers.partner[row])
    v, k, pv = (jax.device_put(rng.uniform(0.1, 0.5, width)) for _ in range(3))
    pair = jax.jit(pair_solve)
    wall, cpu = best(lambda: jax.block_until_ready(pair(v, k, pv, part_idx)), args.repeats)
    parts["pair solve of a layer"] = {"wall_s": wall, "cpu_s": cpu, "states": width}
    if args.blocks:
        from jaxsolve.core import race
        from jaxsolve.games.zehntausend.duel_rules import DuelRules

        small = DuelRules("blocks", goal=args.blocks)
        sgeo, sops, slayers = duel.geometry(small), duel.turn_ops(small, jnp.float64), duel.duel_layers(small)
        w_init = jax.device_put(np.full(int(np.prod(small.shape)), 0.5))
        n_layers = slayers.index.shape[0]
        for name, block in (("one call", n_layers), ("default blocks", None), ("one layer per call", 1)):

            def solve_blocks(block=block):
                turn_s = functools.partial(duel.duel_turn, geo=sgeo)
                race.solve_layers(("profile-blocks", small), turn_s, w_init, slayers, sops, tol=1e-13, block=block, chunk=duel.CHUNK)

            wall, cpu = best(solve_blocks, args.repeats)
            parts[f"blocks goal {args.blocks}: {name}"] = {"wall_s": wall, "cpu_s": cpu, "layers": n_layers, "calls": len(race.layer_blocks(n_layers, block))}
    if args.solve:
        w0, c0 = time.perf_counter(), time.process_time()
        sol = duel.solve(rules)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        a_of = np.asarray(duel.decode(np.asarray(layers.index), geo)[1])
        chunk = duel.CHUNK
        full = levels = state_levels = 0  # every chunk of every round (an upper bound of the steps)
        for i, r in enumerate(sol.rounds):
            n = int(layers.size[i])
            for j in range(0, n, chunk):
                top = geo.Gb - int(a_of[i, j : min(j + chunk, n)].min())
                full += int(r)
                levels += int(r) * top
                state_levels += int(r) * top * chunk
        evals = int(np.sum(sol.evaluations))
        per = parts.get(f"turn chunk {chunk}", {}).get("cpu_us_per_state_level")
        parts["solve"] = {
            "compile_s": sol.compile_seconds,
            "run_s": sol.solve_seconds,
            "wall_s": wall,
            "cpu_s": cpu,
            "layers": len(sol.rounds),
            "inner_rounds": int(sol.rounds.sum()),
            "rounds_per_layer": {str(k): int(v) for k, v in zip(*np.unique(sol.rounds, return_counts=True))},
            "chunk_evaluations": evals,
            "chunk_evaluations_if_every_round_did_all": full,
            "sequential_level_steps_at_most": levels,
            "state_levels_at_most": state_levels,
            "cpu_s_explained_at_most": None if per is None else state_levels * per * 1e-6,
            "start_player_wins": sol.game_value,
        }
    machine = describe()
    out = {"label": args.label, "preset": args.preset, "chunk_default": duel.CHUNK, "parts": parts, "load_1min": os.getloadavg()[0], "machine": machine}
    print(json.dumps(out, indent=1))
    if args.out:
        folder = Path(args.out)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "profile.json"
        rows = json.loads(path.read_text()) if path.exists() else []
        rows.append(out)
        path.write_text(json.dumps(rows, indent=1) + "\n")
        lines = [
            "# Profile of the duel's layered solve",
            "",
            "Command: `python benchmarks/profile_duel.py --preset P [--chunk N ...] [--solve] --out results/duel --label NAME`; best of the repeats, "
            "wall and process CPU seconds (the machine was shared: the load average is in each row).",
            "",
            "| label | preset | part | wall s | CPU s | detail |",
            "| --- | --- | --- | ---: | ---: | --- |",
        ]
        for r in rows:
            for name, p in r["parts"].items():
                detail = {k: (round(v, 3) if isinstance(v, float) else v) for k, v in p.items() if k not in ("wall_s", "cpu_s")}
                lines.append(f"| {r['label']} (load {r['load_1min']:.1f}) | {r['preset']} | {name} | {p['wall_s']:.4f} | {p['cpu_s']:.4f} | {json.dumps(detail)} |")
        (folder / "profile.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
