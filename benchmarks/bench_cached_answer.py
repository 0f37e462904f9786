"""Time the Zehntausend duel's first answer from the solution cache in a new process: ``advise``,
``play`` (until its first prompt), ``plot`` and ``simulate`` (a small number of games), each run
again and again in a new process, with the wall seconds and the CPU seconds (user + system,
``resource.getrusage(RUSAGE_CHILDREN)``) of each run, the load average around them, whether the
process imported JAX (one more run per command under a wrapper that says so) and the machine.

``jaxsolve cache warm zehntausend-duel`` fills the cache folder first where it lacks the table
(that run is not timed here). Every timed run must say ``using the cached table`` and never
``solving``.

    python benchmarks/bench_cached_answer.py --cache-dir /tmp/cw --repeats 7 --slow-repeats 3 --out results/cache/cached-answer
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAME = "zehntausend-duel"
POSITION = ["--mine", "300", "--theirs", "1200", "--turn", "150", "--dice", "1552"]
PROMPT = b"> "
def cpu_of_children() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def commands(rules: str, games: int, folder: Path) -> dict[str, list[str]]:
    preset = ["--rules", rules]
    return {
        "advise": ["advise", GAME, *preset, *POSITION],
        "play": ["play", GAME, *preset, "--plain", "--seed", "1"],
        "plot": ["plot", GAME, *preset, "--totals", "300", "--out", str(folder)],
        "simulate": ["simulate", GAME, *preset, "--games", str(games), "--slots", str(games)],
    }


def run(args: list[str], env: dict, wrapped: bool = False, prompt: bool = False) -> tuple[float, float, str, str, int]:
    """One new process: wall seconds (to its first prompt with ``prompt``, where ``q`` then ends
    it; else to its end), CPU seconds, stdout, stderr and the exit status."""
    head = [sys.executable, "-m", "jaxsolve.cli.jax_probe"] if wrapped else [sys.executable, "-m", "jaxsolve"]
    c0 = cpu_of_children()
    t0 = time.perf_counter()
    proc = subprocess.Popen([*head, *args], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    seconds = None
    if prompt:
        seen = b""
        while PROMPT not in seen:
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            chunk = os.read(proc.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                break
            seen += chunk
        seconds = time.perf_counter() - t0
        out, err = proc.communicate(b"q\n", timeout=120)
        out = seen + out
    else:
        out, err = proc.communicate(b"", timeout=600)
    wall = time.perf_counter() - t0 if seconds is None else seconds
    return wall, cpu_of_children() - c0, out.decode(), err.decode(), proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", required=True, type=Path)
    parser.add_argument("--rules", default="first-to-10000", help="The duel's preset (default: first-to-10000, the default preset).")
    parser.add_argument("--repeats", type=int, default=7, help="Runs of advise and play.")
    parser.add_argument("--slow-repeats", type=int, default=3, help="Runs of plot and simulate (seconds each).")
    parser.add_argument("--games", type=int, default=1000, help="Games of the simulate command.")
    parser.add_argument("--only", nargs="*", default=None, help="Only these commands (advise, play, plot, simulate).")
    parser.add_argument("--out", type=Path, required=True, help="Path without suffix: writes .json and .md")
    opts = parser.parse_args()
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))
    cache = ["--cache-dir", str(opts.cache_dir)]
    warmed = subprocess.run([sys.executable, "-m", "jaxsolve", "cache", "warm", GAME, "--rules", opts.rules, *cache], env=env, capture_output=True, text=True)
    if warmed.returncode:
        sys.exit(warmed.stderr)
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, args in commands(opts.rules, opts.games, Path(folder)).items():
            if opts.only and name not in opts.only:
                continue
            args = [*args, *cache]
            prompt = name == "play"
            load_before = os.getloadavg()
            walls, cpus = [], []
            repeats = opts.repeats if name in ("advise", "play") else opts.slow_repeats
            for _ in range(repeats):
                wall, cpu, out, err, code = run(args, env, prompt=prompt)
                if code or "using the cached table" not in err or "solving" in err:
                    sys.exit(f"{name}: not answered from the cache (exit {code}):\n{err[-3000:]}")
                walls.append(wall)
                cpus.append(cpu)
            load_after = os.getloadavg()
            _, _, first, err, code = run(args, env, wrapped=True, prompt=prompt)
            jax = {"no jax": "no", "jax imported": "yes"}.get((err.splitlines() or ["?"])[-1], "?")
            rows[name] = {
                "command": "jaxsolve " + " ".join(args).replace(folder, "OUT"),
                "measured": "wall seconds to the first prompt (then `q`)" if prompt else "wall seconds of the whole process (its output comes at the end)",
                "repeats": repeats,
                "wall_seconds": [round(w, 3) for w in walls],
                "median_seconds": round(statistics.median(walls), 3),
                "max_seconds": round(max(walls), 3),
                "cpu_seconds": [round(c, 3) for c in cpus],
                "median_cpu_seconds": round(statistics.median(cpus), 3),
                "load_average_before": [round(x, 2) for x in load_before],
                "load_average_after": [round(x, 2) for x in load_after],
                "jax_imported": jax,
                "first_lines": first.splitlines()[:4],
            }
            print(name, json.dumps({k: rows[name][k] for k in ("median_seconds", "max_seconds", "median_cpu_seconds", "jax_imported")}), flush=True)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from machine import describe

    data = {"machine": describe(), "rules": opts.rules, "repeats": opts.repeats, "slow_repeats": opts.slow_repeats, "cache_dir": str(opts.cache_dir), "rows": rows}
    opts.out.parent.mkdir(parents=True, exist_ok=True)
    opts.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    m = data["machine"]
    md = [
        f"# The Zehntausend duel answered from the solution cache, in a new process ({opts.rules})",
        "",
        f"`python benchmarks/bench_cached_answer.py --cache-dir {opts.cache_dir} --rules {opts.rules} --repeats {opts.repeats} --slow-repeats {opts.slow_repeats} "
        f"--games {opts.games} --out {opts.out}`: advise and play {opts.repeats} times, plot and simulate {opts.slow_repeats} times, each run",
        f"in a new process after `jaxsolve cache warm {GAME} --rules {opts.rules}`; every run said",
        "`using the cached table` and none `solving`. CPU seconds: user + system of the process (`getrusage`), beside the wall",
        "seconds because other jobs share the 2 cores; the 1-minute load average before and after each row's runs.",
        "",
        "| command | measured | median wall s | max wall s | median CPU s | JAX imported | load before / after |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in rows.items():
        what = "to the first prompt" if name == "play" else "whole process"
        md.append(
            f"| `{r['command']}` | {what} | {r['median_seconds']:.2f} | {r['max_seconds']:.2f} | {r['median_cpu_seconds']:.2f} | {r['jax_imported']} "
            f"| {r['load_average_before'][0]:.2f} / {r['load_average_after'][0]:.2f} |"
        )
    md += ["", f"Machine: {m['cpu']} ({m['cpu_count']} CPUs), Python {m['python']}, JAX {m['jax']}, {m['date']}; load average at the end {m['load_average']}."]
    opts.out.with_suffix(".md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
