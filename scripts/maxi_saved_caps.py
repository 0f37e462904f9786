"""Maxi Yatzy with saved throws: the game value as a function of the saved-throw cap.

Each cap is solved in a fresh process (``jaxsolve solve maxi --saved-rolls CAP --json``) so that
its wall time and peak memory are its own. Results are merged into ``saved_caps.json`` in the
``--out`` folder (default: the current folder; the committed ones are in ``results/maxi``; one
row per cap, device and dtype; a re-run replaces its rows) and the table ``saved_caps.md`` beside
it is rewritten with a fitted cost model:
time per cap is fitted as ``a + b * cap`` and memory as ``(cap + 1) x table``, and the
estimate for the uncapped game (cap ``(20 - 1) x (3 - 1) = 38``) is printed beside the measured
rows, marked as an estimate.

    python scripts/maxi_saved_caps.py --caps 0 1 2 --out results/maxi    # CPU, float32
    python scripts/maxi_saved_caps.py --caps 0 1 2 4 8 --device gpu --out results/maxi
    python scripts/maxi_saved_caps.py --table-only --out results/maxi    # rewrite the table from the JSON
    python scripts/maxi_saved_caps.py --reduced --out results/maxi       # every cap of the reduced game (float64)

``--reduced`` solves ``maxi.small()`` (4 dice, 11 boxes; useful cap 20) for every cap from 0
to its useful cap in float64, in this process: how the value approaches the uncapped game.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
UNCAPPED = 38


def run_cap(cap: int, device: str, x64: bool, devices: int) -> dict:
    cmd = [sys.executable, "-m", "jaxsolve", "solve", "maxi", "--saved-rolls", str(cap), "--json", "--quiet", "--no-cache", "--device", device]
    cmd += ["--x64"] if x64 else []
    cmd += ["--devices", str(devices)] if devices != 1 else []
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"cap {cap} failed:\n{proc.stderr[-2000:]}")
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    row.update(cap=cap, process_wall_s=round(wall, 1), load_average_after=[round(x, 2) for x in os.getloadavg()], solver=SOLVER)
    return row


SOLVER = "two layers"
"""The solve that measured a row: "two layers" (``saved.solve`` holds the layer it computes and the
next one) or "whole table" (its first version held the whole ``[cap + 1, states]`` table)."""

QUIET_LOAD = 4.0
"""Rows measured at a higher load average than this are shown but left out of the fit."""


def levels(cap: int) -> float:
    """Re-throw levels per state of the solve for ``cap``, averaged over the states it computes:
    a state with ``k`` boxes filled has ``rows_in_layer(k) + throws - 2`` (what its time grows with)."""
    from jaxsolve.games.category.sheets import maxi
    from jaxsolve.games.category.engine import saved, tables

    rules = maxi.get_rules("maxi")
    sizes = [len(tables.representative_states(rules, k)[0]) for k in range(rules.num_boxes)]
    work = sum(n * (saved.rows_in_layer(rules, cap, k) + rules.throws - 2) for k, n in enumerate(sizes))
    return work / sum(sizes)


def fit(rows: list[dict]) -> tuple[float, float] | None:
    """Least-squares ``seconds = a + b * levels(cap)`` over the rows of the current solver measured
    at a load average up to ``QUIET_LOAD`` (None with fewer than 2 such caps)."""
    pts = sorted({levels(r["cap"]): r["solve_seconds"] for r in rows if r["load_average_after"][0] <= QUIET_LOAD and r.get("solver") == SOLVER}.items())
    if len(pts) < 2:
        return None
    n = len(pts)
    mx = sum(c for c, _ in pts) / n
    my = sum(t for _, t in pts) / n
    b = sum((c - mx) * (t - my) for c, t in pts) / sum((c - mx) ** 2 for c, _ in pts)
    return my - b * mx, b


def reduced_rows() -> dict:
    """Every cap of the reduced game, float64: value, change, seconds."""
    import time

    import jax

    jax.config.update("jax_enable_x64", True)
    from jaxsolve.games.category.sheets import maxi
    from jaxsolve.games.category.engine import saved

    rules = maxi.small()
    rows = []
    for cap in range(saved.useful_max_saved(rules) + 1):
        t0 = time.perf_counter()
        sol = saved.solve(rules, cap)
        rows.append({"cap": cap, "game_value": sol.game_value, "seconds": round(time.perf_counter() - t0, 2)})
        print(f"reduced game, cap {cap}: {sol.game_value:.9f}", flush=True)
    return {"rules": rules.name, "dice": rules.dice, "boxes": list(rules.box_names), "useful_cap": saved.useful_max_saved(rules), "rows": rows}


def markdown(data: dict) -> str:
    import numpy as np

    from jaxsolve.games.category.sheets import maxi
    from jaxsolve.games.category.engine import saved

    rules = maxi.get_rules("maxi")
    lines = [
        "# Maxi Yatzy with saved throws: game value by saved-throw cap",
        "",
        "Each turn brings three throws, the first is compulsory, unused throws are saved; at most *cap* throws",
        "are carried into a turn (cap 0: the game without saving; cap 38 never loses a throw: the uncapped game).",
        "Every row is a fresh process: `python scripts/maxi_saved_caps.py --caps ...` (`jaxsolve solve maxi --saved-rolls CAP`).",
        "*solver*: `two layers` is `saved.solve` as it is (it holds the layer it computes and the next one);",
        "`whole table` rows were measured with its first version, which held the whole `[cap + 1, states]` table",
        "(same values, more memory).",
        "",
        "| device | dtype | cap | game value | change from the previous cap | from the uncapped value, float32 steps | solve s | compile s | peak memory GiB | memory kind | load after | solver |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    rows = sorted(data["rows"], key=lambda r: (r["device"], r["dtype"], r["cap"], r.get("solver") != SOLVER))
    prev, converged = {}, {}
    for r in rows:
        key = (r["device"], r["dtype"])
        top = [x for x in rows if (x["device"], x["dtype"]) == key and x["cap"] == UNCAPPED]
        steps = ""
        if top:
            ref = np.float32(top[0]["game_value"])
            steps = f"{(np.float32(r['game_value']) - ref) / np.spacing(ref):+.0f}"
            if abs(np.float32(r["game_value"]) - ref) <= np.spacing(ref) and key not in converged:
                converged[key] = r["cap"]
        change = "" if key not in prev or prev[key][0] == r["cap"] else f"{r['game_value'] - prev[key][1]:+.4f} (from cap {prev[key][0]})"
        if key not in prev or prev[key][0] != r["cap"]:
            prev[key] = (r["cap"], r["game_value"])
        lines.append(
            f"| {r['device']} | {r['dtype']} | {r['cap']} | {r['game_value']:.4f} | {change} | {steps} | {r['solve_seconds']:.0f} | {r['compile_seconds']:.1f} "
            f"| {r['peak_memory_mib'] / 1024:.2f} | {r['peak_memory_kind']} | {r['load_average_after'][0]} | {r.get('solver', SOLVER)} |"
        )
    for key, cap in converged.items():
        lines += ["", f"{key[0]} {key[1]}: from cap {cap} on (among the caps measured), the value equals the uncapped game's to one float32 step ({np.spacing(np.float32(500)):.1e} at this size)."]
    lines += ["", "## Cost model (a fit to the measured rows, for caps and devices not measured)", ""]
    for key in sorted({(r["device"], r["dtype"]) for r in rows}):
        sub = [r for r in rows if (r["device"], r["dtype"]) == key]
        ab = fit(sub)
        if ab is None:
            lines.append(f"- {key[0]} {key[1]}: fewer than two quiet rows of the current solver; no fit.")
            continue
        a, b = ab
        lines.append(
            f"- {key[0]} {key[1]}: solve time ~ {a:.0f} s + {b:.1f} s x (re-throw levels per state: 2 at cap 0, {levels(UNCAPPED):.1f} at cap {UNCAPPED}), "
            f"fitted over caps {', '.join(str(r['cap']) for r in sub if r.get('solver') == SOLVER and r['load_average_after'][0] <= QUIET_LOAD)}; "
            f"the uncapped game: ~{(a + b * levels(UNCAPPED)) / 60:.0f} min. Memory: two layer tables, at most "
            f"{saved.working_bytes(rules, UNCAPPED, key[1]) / 2**30:.2f} GiB at cap {UNCAPPED}, plus one chunk's work; an export needs the whole "
            f"table on the host ({saved.table_bytes(rules, UNCAPPED, key[1]) / 2**30:.1f} GiB at cap {UNCAPPED}, {saved.table_bytes(rules, 0, key[1]) / 2**30:.2f} GiB per saved-throw row)."
        )
    red = data.get("reduced")
    if red:
        lines += [
            "",
            f"## How the value approaches the uncapped game: the reduced game `{red['rules']}` (measured, float64)",
            "",
            f"{red['dice']} dice, {len(red['boxes'])} boxes ({', '.join(red['boxes'])}); a cap of {red['useful_cap']} is the uncapped game.",
            "A change below float32 resolution of the value (about 2e-5 here) marks where float32 stops seeing the cap.",
            "",
            "| cap | game value | change from cap - 1 |",
            "| ---: | ---: | ---: |",
        ]
        prev = None
        for r in red["rows"]:
            change = "" if prev is None else f"{r['game_value'] - prev:+.2e}"
            prev = r["game_value"]
            lines.append(f"| {r['cap']} | {r['game_value']:.9f} | {change} |")
        f32 = next((r["cap"] for r in red["rows"] if r["cap"] and abs(r["game_value"] - red["rows"][-1]["game_value"]) < 3e-8 * abs(r["game_value"])), None)
        if f32 is not None:
            lines += ["", f"From cap {f32} on the value equals the uncapped value to float32 resolution ({f32} of {red['useful_cap']})."]
    lines += ["", f"Machine: {data.get('machine', 'see rows')}.", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--caps", type=int, nargs="*", default=[0, 1, 2])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--devices", type=int, default=1)
    ap.add_argument("--x64", action="store_true")
    ap.add_argument("--table-only", action="store_true")
    ap.add_argument("--reduced", action="store_true", help="every cap of the reduced game instead of the full game")
    ap.add_argument("--out", type=Path, default=Path("."), help="folder of saved_caps.{json,md}, read and rewritten (default: the current folder)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "saved_caps.json"
    data = json.loads(path.read_text()) if path.exists() else {"rows": []}
    if args.reduced:
        data["reduced"] = reduced_rows()
        path.write_text(json.dumps(data, indent=1))
    elif not args.table_only:
        from jaxsolve.bench import machine

        data["machine"] = ", ".join(f"{k} {v}" for k, v in machine().items() if k in ("cpu", "cpu_count", "platform", "jax", "devices"))
        for cap in args.caps:
            row = run_cap(cap, args.device, args.x64, args.devices)
            data["rows"] = [r for r in data["rows"] if (r["cap"], r["device"], r["dtype"]) != (cap, row["device"], row["dtype"]) or r.get("solver") != SOLVER] + [row]
            path.write_text(json.dumps(data, indent=1))
            print(f"cap {cap}: {row['game_value']:.4f} in {row['solve_seconds']:.0f} s, peak {row['peak_memory_mib'] / 1024:.2f} GiB", flush=True)
    (args.out / "saved_caps.md").write_text(markdown(data))


if __name__ == "__main__":
    main()
