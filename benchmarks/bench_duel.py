"""Time and memory of the Zehntausend duel's full solve (compile apart), its figures per preset.

    python benchmarks/bench_duel.py [--presets first-to-10000,...] [--out results/duel/bench-cpu.json] [--save DIR]

For each preset: the number of states, compile and solve seconds, peak resident memory of the
process, the start player's win probability, the fairest compensation. ``--save``
also writes each solved table to ``DIR/<preset>.npy`` (with its sidecars) for the simulation
(``benchmarks/simulate_duel.py --tables DIR``).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="first-to-10000")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--save", type=Path, default=None, help="folder for the solved tables (<preset>.npy)")
    args = ap.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.bench import machine as machine_info
    from jaxsolve.games.zehntausend import duel, duel_commands
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    rows = []
    for name in args.presets.split(","):
        rules = PRESETS[name]
        t0 = time.perf_counter()
        sol = duel.solve(rules)
        fair = duel_commands.fairest_compensation(sol)
        row = {
            "preset": name,
            "rules": rules.to_dict(),
            "num_states": sol.num_states,
            "turn_start_states": int(sol.start.size),
            "layers": len(sol.rounds),
            "inner_rounds": int(sol.rounds.sum()),
            "compile_seconds": round(sol.compile_seconds, 2),
            "solve_seconds": round(sol.solve_seconds, 2),
            "wall_seconds": round(time.perf_counter() - t0, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "start_player_wins": sol.game_value,
            "fairest_compensation": fair,
            "residual": sol.residual,
            "device": sol.device,
        }
        rows.append(row)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            duel_commands.save(args.save / f"{name}.npy", sol)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine_info(), "runs": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
