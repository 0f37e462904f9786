"""Time an answer from the solution cache in a new process: ``jaxsolve cache warm`` (unless the
cache folder holds the table already), then ``jaxsolve advise`` run again and again, each in a
new process, with the wall time and the CPU time (user + system) of each, the load average
around them and the machine.

    python benchmarks/bench_cache.py --cache-dir /tmp/cache --out results/cache/duel-advise-from-cache
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import describe

ADVISE = ["advise", "zehntausend-duel", "--mine", "300", "--theirs", "1200", "--turn", "150", "--dice", "1552"]


def cpu_of_children() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def run(args: list[str], env: dict) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall seconds, CPU seconds (user + system) and the finished process."""
    t0, c0 = time.perf_counter(), cpu_of_children()
    proc = subprocess.run([sys.executable, "-m", "jaxsolve", *args], env=env, capture_output=True, text=True)
    return time.perf_counter() - t0, cpu_of_children() - c0, proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", required=True, type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, required=True, help="Path without suffix: writes .json and .md")
    opts = parser.parse_args()
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    cache = ["--cache-dir", str(opts.cache_dir)]
    warm_seconds, _, proc = run(["cache", "warm", "zehntausend-duel", *cache], env)
    if proc.returncode:
        sys.exit(proc.stderr)
    warm_line = proc.stdout.strip()
    load_before = os.getloadavg()
    walls, cpus, notes = [], [], []
    for _ in range(opts.repeats):
        seconds, cpu, proc = run([*ADVISE, *cache], env)
        if proc.returncode or "using the cached table" not in proc.stderr or "solving" in proc.stderr:
            sys.exit(f"not answered from the cache:\n{proc.stderr}")
        walls.append(seconds)
        cpus.append(cpu)
        notes.append(proc.stderr.strip().splitlines()[-1])
    load_after = os.getloadavg()
    data = {
        "machine": describe(),
        "warm": {"command": f"jaxsolve cache warm zehntausend-duel --cache-dir {opts.cache_dir}", "stdout": warm_line, "wall_seconds": round(warm_seconds, 2)},
        "advise": {
            "command": "jaxsolve " + " ".join(ADVISE) + f" --cache-dir {opts.cache_dir}",
            "wall_seconds": [round(w, 3) for w in walls],
            "median_seconds": round(statistics.median(walls), 3),
            "min_seconds": round(min(walls), 3),
            "cpu_seconds": [round(c, 3) for c in cpus],
            "median_cpu_seconds": round(statistics.median(cpus), 3),
            "load_average_before": load_before,
            "load_average_after": load_after,
            "last_note": notes[-1],
        },
        "answer": proc.stdout.splitlines()[:3],
    }
    opts.out.parent.mkdir(parents=True, exist_ok=True)
    opts.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    print(json.dumps(data["advise"], indent=1))


if __name__ == "__main__":
    main()
