"""Figures of the race games for N players: start values per seat, fairest compensation, time and
peak memory, cycles that do not settle (``results/race-n/``).

Each configuration is solved in its own process under ``/usr/bin/time -v`` (wall time and peak
resident memory of the whole process, JAX's import and compiles included). Goals are run from
small to large; before each run the time and memory are estimated from the two runs before it
of the same game, players and entry (a power law in the goal), and the estimate is written
beside the measurement. A goal whose estimate passes ``--budget`` seconds is not run: only its
estimate is written.

    python scripts/race_n_figures.py --out results/race-n/race-n           # the whole set
    python scripts/race_n_figures.py --one zehntausend 3 1000 0            # one solve, JSON on stdout
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jaxsolve.core.race_table import fairest  # noqa: E402  (the head starts the commands print)

RUNS = [  # (game, players, goals, entries)
    ("zehntausend", 3, (1000, 2000, 5000, 10000), (0, 350)),
    ("zehntausend", 4, (500, 1000, 2000), (0, 350)),
    ("pig", 3, (25, 50, 100), (0,)),
    ("pig", 4, (20, 30, 50), (0,)),
]


ANALYSED = [  # (game, players, goal, entry): every cycle's equilibria enumerated
    ("pig", 3, 25, 0),
    ("pig", 3, 40, 0),
    ("zehntausend", 3, 500, 0),
    ("zehntausend", 3, 500, 350),
    ("pig", 4, 12, 0),
]


def one(game: str, players: int, goal: int, entry: int, analyse: bool = False) -> dict:
    import jax

    jax.config.update("jax_enable_x64", True)
    t0 = time.perf_counter()
    if game == "zehntausend":
        from jaxsolve.games.zehntausend.table import solve
        from jaxsolve.games.zehntausend.table_rules import TableRules

        rules = TableRules(players=players, goal=goal, entry=entry)
        sol = solve(rules, analyse=analyse)
        step = 50
    else:
        from jaxsolve.games.raab.table import solve as solve_pig
        from jaxsolve.games.raab.table_rules import PigTableRules

        prules = PigTableRules(players=players, goal=goal)
        sol = solve_pig(prules, analyse=analyse)  # type: ignore[assignment]
        step = 1
    seconds = time.perf_counter() - t0
    run = sol.run
    kinds = [u["selected"] for u in run.unsettled]
    return {
        "game": game, "players": players, "goal": goal, "entry": entry,
        "states": int(sol.values[..., 0].size),
        "start": sol.start.tolist(),
        "sum_error": float(np.max(np.abs(sol.values.sum(axis=-1) - 1.0))),
        "fairest": fairest(sol.values, step),
        "solve_seconds": run.solve_seconds, "compile_seconds": run.compile_seconds, "seconds_in_process": seconds,
        "max_rounds": run.rounds, "residual": run.residual, "analysed": run.analysed, "settled_several_pure": run.several,
        "unsettled": len(run.unsettled),
        "unsettled_several_pure": sum(1 for u in run.unsettled if u["pure"] > 1),
        "unsettled_one_pure": sum(1 for u in run.unsettled if u["pure"] == 1),
        "no_pure": sum(1 for u in run.unsettled if u["pure"] == 0),
        "mixed_selected": kinds.count("mixed"),
        "unsettled_cycles": [{"scores": [int(v) * step for v in np.unravel_index(u["members"][0], sol.values.shape[:-1])], "pure": u["pure"],
                              "mixed": u["mixed"], "mixers": u["mixer"], "q": u["q"]} for u in run.unsettled],
    }


def measured(game, players, goal, entry, analyse: bool = False) -> dict:
    cmd = ["/usr/bin/time", "-v", sys.executable, __file__, "--one", game, str(players), str(goal), str(entry)] + (["--analyse"] if analyse else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode:
        raise SystemExit(f"error: {' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", proc.stderr)
    parts = [float(x) for x in wall.group(1).split(":")] if wall else [math.nan]
    out["wall_seconds"] = sum(v * 60 ** (len(parts) - 1 - i) for i, v in enumerate(parts))
    out["peak_rss_mib"] = int(rss.group(1)) / 1024 if rss else math.nan
    out["load_before"] = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    out["measured_utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    return out


def estimate(prev: list[dict], goal: int) -> dict | None:
    """Power law in the goal through the last two measured runs; for the time at least
    ``goal ** (N + 1)`` (``G ** N`` states, each turn scanning up to ``G`` totals), since fixed
    costs (JAX's import, compiles) flatten the fit between small goals."""
    if len(prev) < 2:
        return None
    a, b = prev[-2], prev[-1]
    k = max(math.log(b["wall_seconds"] / a["wall_seconds"]) / math.log(b["goal"] / a["goal"]), b["players"] + 1.0)
    km = math.log(max(b["peak_rss_mib"], 1) / max(a["peak_rss_mib"], 1)) / math.log(b["goal"] / a["goal"])
    return {"wall_seconds": b["wall_seconds"] * (goal / b["goal"]) ** k, "peak_rss_mib": b["peak_rss_mib"] * (goal / b["goal"]) ** km, "time_exponent": k, "memory_exponent": km}


def table(rows: list[dict]) -> str:
    lines = [
        "| game | players | goal | entry | states | start: win per seat | fairest head start per seat (win) | wall s (estimate) | peak MiB (estimate) | unsettled cycles: several pure / one pure / no pure (mixed) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        est = r.get("estimate")
        e_t = f" ({est['wall_seconds']:.0f})" if est else ""
        e_m = f" ({est['peak_rss_mib']:.0f})" if est else ""
        if "start" not in r:
            assert est is not None
            lines.append(f"| {r['game']} | {r['players']} | {r['goal']:,} | {r['entry']} | | not run | | ({est['wall_seconds']:.0f}) | ({est['peak_rss_mib']:.0f}) | |")
            continue
        start = " / ".join(f"{v:.6f}" for v in r["start"])
        fair = r["fairest"]
        f = " / ".join(str(v) for v in fair["points"]) + " (" + " / ".join(f"{v:.4f}" for v in fair["win"]) + ")"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['goal']:,} | {r['entry']} | {r['states']:,} | {start} | {f} | {r['wall_seconds']:.1f}{e_t} | {r['peak_rss_mib']:.0f}{e_m} | "
            f"{r['unsettled_several_pure']} / {r['unsettled_one_pure']} / {r['no_pure']} ({r['mixed_selected']}) |"
        )
    return "\n".join(lines)


def analysed_table(rows: list[dict]) -> str:
    lines = [
        "| game | players | goal | entry | cycles | settled, several pure equilibria | unsettled: several pure / one pure / no pure (mixed) | start: win per seat | wall s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        start = " / ".join(f"{v:.6f}" for v in r["start"])
        lines.append(
            f"| {r['game']} | {r['players']} | {r['goal']} | {r['entry']} | {r['analysed'] + r['unsettled']:,} | {r['settled_several_pure']} | "
            f"{r['unsettled_several_pure']} / {r['unsettled_one_pure']} / {r['no_pure']} ({r['mixed_selected']}) | {start} | {r['wall_seconds']:.1f} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--one", nargs=4, metavar=("GAME", "PLAYERS", "GOAL", "ENTRY"))
    ap.add_argument("--out", type=Path, default=ROOT / "results" / "race-n" / "race-n")
    ap.add_argument("--budget", type=float, default=900.0, help="Largest estimated wall seconds of one run that is still run.")
    ap.add_argument("--only", default="", help="Run only this game (zehntausend or pig).")
    ap.add_argument("--players", type=int, default=0, help="Run only this number of players (0: all).")
    ap.add_argument("--entry", type=int, default=-1, help="Run only this entry minimum (-1: all).")
    ap.add_argument("--merge", action="store_true", help="Keep the rows of the existing JSON that this run does not measure (replace the others).")
    ap.add_argument("--analyse", action="store_true", help="With --one: enumerate every cycle's equilibria. Alone: run the ANALYSED set only.")
    args = ap.parse_args(argv)
    if args.one:
        game, players, goal, entry = args.one
        print(json.dumps(one(game, int(players), int(goal), int(entry), analyse=args.analyse)))
        return 0
    if args.analyse:
        found = []
        for game, players, goal, entry in ANALYSED:
            r = measured(game, players, goal, entry, analyse=True)
            found.append(r)
            print(f"{game} {players} {goal} {entry}: {r['analysed']} settled cycles analysed, {r['settled_several_pure']} with several pure equilibria; unsettled {r['unsettled']}", flush=True)
            args.out.with_suffix(".json").write_text(json.dumps({"machine": machine(), "rows": found}, indent=1))
        args.out.with_suffix(".md").write_text(analysed_table(found) + "\n")
        return 0
    rows: list[dict] = []
    args.out.parent.mkdir(parents=True, exist_ok=True)
    kept = json.loads(args.out.with_suffix(".json").read_text())["rows"] if args.merge and args.out.with_suffix(".json").exists() else []

    def save(rows: list[dict]) -> list[dict]:
        everything = merged(kept, rows) if args.merge else rows
        args.out.with_suffix(".json").write_text(json.dumps({"machine": machine(), "rows": everything}, indent=1))
        return everything

    for game, players, goals, entries in RUNS:
        if (args.only and game != args.only) or (args.players and players != args.players):
            continue
        for entry in entries:
            if args.entry >= 0 and entry != args.entry:
                continue
            prev: list[dict] = []
            for goal in goals:
                est = estimate(prev, goal)
                if est and est["wall_seconds"] > args.budget:
                    rows.append({"game": game, "players": players, "goal": goal, "entry": entry, "estimate": est})
                    print(f"{game} {players} {goal} {entry}: estimated {est['wall_seconds']:.0f} s, not run", flush=True)
                    continue
                r = measured(game, players, goal, entry)
                r["estimate"] = est
                prev.append(r)
                rows.append(r)
                print(f"{game} {players} {goal} {entry}: {r['wall_seconds']:.1f} s, {r['peak_rss_mib']:.0f} MiB, start {r['start']}", flush=True)
                save(rows)
    args.out.with_suffix(".md").write_text(table(save(rows)) + "\n")
    return 0


def merged(old: list[dict], rows: list[dict]) -> list[dict]:
    """The rows ``old`` in their order, each replaced by the row of ``rows`` with the same game,
    players, goal and entry; the other rows of ``rows`` added at the end."""
    def key(r: dict) -> tuple:
        return (r["game"], r["players"], r["goal"], r["entry"])

    new = {key(r): r for r in rows}
    out = [new.pop(key(r), r) for r in old]
    return out + list(new.values())


def machine() -> dict:
    info = {"cpus": os.cpu_count(), "python": sys.version.split()[0]}
    try:
        info["cpu"] = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name"))
    except (OSError, StopIteration):
        info["cpu"] = "?"
    return info


if __name__ == "__main__":
    sys.exit(main())
