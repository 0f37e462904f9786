"""Time and memory of the Zehntausend duel's full solve (compile apart), its figures per preset.

    python benchmarks/bench_duel.py [--presets first-to-10000,...] [--out results/duel/bench-cpu.json] [--save DIR]
    python benchmarks/bench_duel.py --presets first-to-10000,last-turn --ref 9f07418 --out results/duel/compare-9f07418.json

For each preset: the number of states, compile and solve seconds (and the process CPU seconds
of the solve, the steadier figure on a shared machine), peak resident memory of the process,
the start player's win probability, the fairest compensation. ``--save`` also writes each
solved table to ``DIR/<preset>.npy`` (with its sidecars) for the simulation
(``benchmarks/simulate_duel.py --tables DIR``). ``--against DIR`` compares each solved table
value by value with ``DIR/<preset>.npy`` (largest difference, share of identical values).

``--ref COMMIT``: the same presets solved by an earlier commit first (its own
``benchmarks/bench_duel.py`` in a temporary worktree, one process per preset, the solved
tables saved), then by this tree, one preset after the other so both see about the same load;
the rows of both, the value-by-value comparison and a Markdown table beside ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def solve_rows(presets: list[str], save: Path | None, against: Path | None) -> list[dict]:
    import jax

    jax.config.update("jax_enable_x64", True)
    import numpy as np

    from jaxsolve.games.zehntausend import duel, duel_commands
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    rows = []
    for name in presets:
        rules = PRESETS[name]
        t0, c0 = time.perf_counter(), time.process_time()
        sol = duel.solve(rules)
        cpu = time.process_time() - c0
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
            "solve_cpu_seconds_with_compile": round(cpu, 2),
            "wall_seconds": round(time.perf_counter() - t0, 2),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            "start_player_wins": sol.game_value,
            "fairest_compensation": fair,
            "residual": sol.residual,
            "device": sol.device,
            "load_1min": os.getloadavg()[0],
        }
        if hasattr(sol, "evaluations"):
            row["chunk_evaluations"] = int(np.sum(sol.evaluations))
        if against is not None:
            other = np.load(against / f"{name}.npy")
            row["against"] = {"table": str(against / f"{name}.npy"), "max_abs_diff": float(np.max(np.abs(other - sol.start))), "identical_share": float(np.mean(other == sol.start))}
        rows.append(row)
        if save:
            save.mkdir(parents=True, exist_ok=True)
            duel_commands.save(save / f"{name}.npy", sol)
        print(json.dumps(row), flush=True)
    return rows


def compare(ref: str, presets: list[str], out: Path | None) -> dict:
    """Each preset solved by ``ref`` (its bench, its tables saved), then by this tree."""
    env = {"PYTHONPATH": "", "JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}
    runs: dict = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old), ref], check=True, capture_output=True)
        try:
            for name in presets:
                for label, tree in (("old", old), ("new", ROOT)):
                    tables = Path(tmp) / f"tables-{label}"
                    cmd = [sys.executable, str(tree / "benchmarks" / "bench_duel.py"), "--presets", name, "--save", str(tables)]
                    if label == "new":
                        cmd += ["--against", str(Path(tmp) / "tables-old")]
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    proc = subprocess.run(cmd, capture_output=True, text=True, env={**env, "PYTHONPATH": str(tree)}, cwd=tree)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    if proc.returncode:
                        raise SystemExit(f"{label} bench failed for {name}:\n{proc.stderr[-2000:]}")
                    row = json.loads(proc.stdout.strip().splitlines()[-1])
                    row["process_cpu_seconds"] = round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2)
                    row["load_1min"] = os.getloadavg()[0]
                    runs[label].append(row)
                    print(label, json.dumps(row), flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)
    return runs


def markdown(ref: str, runs: dict, machine: dict, command: str) -> str:
    lines = [
        f"# The duel's solve: this tree against {ref}",
        "",
        f"Command: `{command}`",
        f"Machine: {machine['cpu']}, {machine['cpu_count']} cores, CPU only; one process per preset and tree, the old one first; "
        "the machine was shared with other jobs (1-minute load average after each run below), so wall seconds are upper bounds "
        "and the process CPU seconds (compile included) are the steadier figure.",
        "",
        "| preset | tree | compile s | solve s | process CPU s | inner rounds | start player wins | load | max abs diff to old | identical |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: |",
    ]
    for old, new in zip(runs["old"], runs["new"]):
        for label, r in (("old", old), ("new", new)):
            diff = r.get("against", {})
            lines.append(
                f"| {r['preset']} | {label} | {r['compile_seconds']} | {r['solve_seconds']} | {r['process_cpu_seconds']} | {r['inner_rounds']} | "
                f"{r['start_player_wins']:.12f} | {r['load_1min']:.1f} | {diff.get('max_abs_diff', '')} | {diff.get('identical_share', '')} |"
            )
        lines.append(f"| {old['preset']} | new / old | | {new['solve_seconds'] / old['solve_seconds']:.3f} | {new['process_cpu_seconds'] / old['process_cpu_seconds']:.3f} | | | | | |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="first-to-10000")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--save", type=Path, default=None, help="folder for the solved tables (<preset>.npy)")
    ap.add_argument("--against", type=Path, default=None, help="folder of tables (<preset>.npy) to compare value by value")
    ap.add_argument("--ref", default=None, help="an earlier commit to run side by side (see the module's help)")
    args = ap.parse_args()
    from jaxsolve.bench import machine as machine_info

    presets = args.presets.split(",")
    if args.ref:
        runs = compare(args.ref, presets, args.out)
        command = "python benchmarks/bench_duel.py --presets " + args.presets + f" --ref {args.ref}" + (f" --out {args.out}" if args.out else "")
        text = markdown(args.ref, runs, machine_info(), command)
        print(text)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"ref": args.ref, "machine": machine_info(), "runs": runs}, indent=1) + "\n")
            args.out.with_suffix(".md").write_text(text)
        return
    rows = solve_rows(presets, args.save, args.against)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"machine": machine_info(), "runs": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
