"""The two-player game (both play to win) of Yacht or a reduced Yacht, solved and timed.

Solves every state (the two sheets and the lead of the player to move) from both sheets full
back to the start (``twoplayer.solve``, float32 unless ``--float64``), and writes the start's
value: the first player's P(win) + P(tie) / 2. Per layer (written to ``OUT.progress.json`` as
each finishes, so a cut run leaves its evidence): the pairs of sheets, the leads kept, the
state-lead values, the wall and CPU seconds (compiling included; the compile-free seconds per
layer come with the end of the run) and the load. At the end: the run's seconds without
compiling, the compile seconds, CPU seconds (``time.process_time``: every thread), peak RSS
(``ru_maxrss``), values per second and the core-microseconds per value. ``--estimate`` only
counts the values (nothing solved). ``--simulate N`` keeps every layer and plays N games of
optimal against optimal from the tables (``twoplayer.simulate``), compared with the solved value.

``--devices N`` spreads each layer's chunks over N devices (on a CPU, N virtual CPU devices of
this process: ``jax_num_cpu_devices``). ``--processes N`` starts N processes of this script on
localhost under ``jax.distributed`` (gloo), each solving its share of every layer's chunks on
``--devices`` devices of its own (``twoplayer.solve``); process 0 writes the files, with the
CPU seconds of all the processes (``getrusage`` of the children) beside its own.

``--store`` writes every layer into the solution store as it is done (``twoplayer_store.save``;
``jaxsolve twoplayer-table`` does the same). ``--stored --simulate N`` solves nothing: it plays N
games from the stored table (``twoplayer_store.load``, memory-mapped) in batches of ``--batch``
games with the seeds ``seed * 1000 + i``, ``--jobs`` at a time (each its own process),
writing ``OUT.progress.json`` after each batch and at the end the combined P(win), P(tie),
P(lose), the mean (a tie worth the tie rule's value), its standard error and z against the
stored start value.

    python benchmarks/bench_twoplayer.py --preset small --out results/twoplayer/small
    python benchmarks/bench_twoplayer.py --preset small --dice 2 --simulate 100000 --out /tmp/small2
    python benchmarks/bench_twoplayer.py --preset yacht --estimate --out results/twoplayer/yacht-estimate
    nice -n 10 python benchmarks/bench_twoplayer.py --preset yacht --out results/twoplayer/yacht
    python benchmarks/bench_twoplayer.py --preset small --processes 2 --out /tmp/small-2p
    python benchmarks/bench_twoplayer.py --preset small --store --out /tmp/small-stored
    python benchmarks/bench_twoplayer.py --preset small --stored --simulate 100000 --batch 25000 --jobs 2 --out /tmp/small-sim
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import load  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", default="small", choices=("small", "yacht"), help="yacht.small() (3 dice, 9 boxes) or the whole game")
    ap.add_argument("--dice", type=int, default=None, help="play with this many dice instead")
    ap.add_argument("--open", nargs="*", default=None, help="only these boxes open for both players (the rest filled)")
    ap.add_argument("--tie", default="share", choices=("share", "win", "lose"))
    ap.add_argument("--chunk", type=int, default=8)
    ap.add_argument("--max-memory", type=int, default=2048, help="MiB for a layer's tables and a chunk's working set")
    ap.add_argument("--float64", action="store_true")
    ap.add_argument("--estimate", action="store_true", help="count the pairs and values only")
    ap.add_argument("--simulate", type=int, default=0, help="games of optimal against optimal (keeps every layer)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--devices", type=int, default=1, help="devices each layer's chunks are spread over (per process)")
    ap.add_argument("--processes", type=int, default=1, help="processes on localhost under jax.distributed")
    ap.add_argument("--coordinator", default=None, help=argparse.SUPPRESS)  # set by the parent of --processes
    ap.add_argument("--process-id", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--store", action="store_true", help="write every layer into the solution store as it is done")
    ap.add_argument("--stored", action="store_true", help="with --simulate: play from the stored table, solve nothing")
    ap.add_argument("--batch", type=int, default=50_000, help="with --stored: games per batch")
    ap.add_argument("--jobs", type=int, default=1, help="with --stored: batches played at once, each in its own process")
    ap.add_argument("--reference", type=float, default=None, help="with --stored: also z against this value")
    ap.add_argument("--out", type=Path, required=True, help="path without suffix: writes .json, .md and .progress.json")
    args = ap.parse_args(argv)
    if args.devices < 1 or args.processes < 1:
        ap.error("--devices and --processes must be at least 1")
    if args.processes > 1 and args.process_id is None:
        return _launch(args, argv if argv is not None else sys.argv[1:])
    import jax

    if args.float64:
        jax.config.update("jax_enable_x64", True)
    if args.devices > 1 and jax.config.jax_platforms in (None, "", "cpu"):
        jax.config.update("jax_num_cpu_devices", args.devices)
    if args.process_id is not None:
        jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=args.processes, process_id=args.process_id)
    import numpy as np

    from jaxsolve.bench import machine
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.sheets import yacht

    rules = yacht.small() if args.preset == "small" else yacht.get_rules("yacht")
    if args.dice:
        rules = rules.replace(dice=args.dice, name=f"{rules.name}-{args.dice}-dice")
    mask = 0
    if args.open:
        mask = rules.full_mask & ~sum(1 << rules.box_names.index(b) for b in args.open)
    sheets = (twoplayer.player_sheets(rules, mask), twoplayer.player_sheets(rules, mask))
    plans = twoplayer.plan_layers(rules, sheets)
    solved = plans[:-1]
    values = sum(p.pairs * p.width for p in solved)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    progress = args.out.with_suffix(".progress.json")
    record: dict = {
        "rules": rules.name, "dice": rules.dice, "boxes": list(rules.box_names), "open": args.open, "tie": args.tie, "chunk": args.chunk,
        "dtype": "float64" if args.float64 else "float32", "pairs": sum(p.pairs for p in solved), "values": values,
        "plan": [{"layer": p.n, "pairs": p.pairs, "leads": [-p.low, p.high], "values": p.pairs * p.width} for p in solved],
        "machine": machine(), "load_start": load(), "layers": {},
    }
    if args.stored:
        if not args.simulate or args.open or args.float64:
            ap.error("--stored plays --simulate N games of the whole game's stored float32 table")
        return simulate_stored(rules, args, record)
    if args.estimate:
        args.out.with_suffix(".json").write_text(json.dumps(record, indent=1))
        print(f"{rules.name}: {record['pairs']:,} pairs of sheets, {values:,} state-lead values, widest layer "
              f"{max(p.pairs * p.width for p in solved) * 4 / 2**30:.2f} GiB in float32")
        return 0
    t_layer = [time.perf_counter(), time.process_time()]

    def on_layer(index: int, n: int) -> None:
        now = [time.perf_counter(), time.process_time()]
        p = plans[index - plans[0].n]
        record["layers"][str(index)] = {"pairs": n, "width": p.width, "values": n * p.width, "wall": round(now[0] - t_layer[0], 2),
                                        "cpu": round(now[1] - t_layer[1], 2), "load": load(), "at": time.strftime("%H:%M:%S", time.gmtime())}
        t_layer[:] = now
        progress.write_text(json.dumps(record, indent=1))

    w0, c0 = time.perf_counter(), time.process_time()
    table = twoplayer.solve(rules, tie=args.tie, mine=mask, theirs=mask, dtype=np.float64 if args.float64 else np.float32,
                            keep="all" if args.simulate else "start", chunk=args.chunk, max_memory=args.max_memory << 20, on_layer=on_layer,
                            devices=args.devices)
    dtype = np.float64 if args.float64 else np.float32
    if args.store:
        from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store

        if args.open or args.simulate:
            ap.error("--store keeps the whole game (no --open), --simulate plays from it later (--stored)")
        table, writer = twoplayer_store.save("yacht", rules, tie=args.tie, dtype=dtype, chunk=args.chunk, max_memory=args.max_memory << 20, on_layer=on_layer)
        record.update(stored=str(writer.path), stored_bytes=writer.bytes)
    else:
        table = twoplayer.solve(rules, tie=args.tie, mine=mask, theirs=mask, dtype=dtype,
                                keep="all" if args.simulate else "start", chunk=args.chunk, max_memory=args.max_memory << 20, on_layer=on_layer)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    if args.process_id is not None:
        print(json.dumps({"process": args.process_id, "wall_seconds": wall, "cpu_seconds": cpu, "run_seconds": table.seconds,
                          "compile_seconds": table.compile_seconds, "start": table.start}), flush=True)
        if args.process_id != 0:
            return 0
    cores = min(os.cpu_count() or 1, len(os.sched_getaffinity(0)))
    record.update(
        start=table.start, run_seconds=table.seconds, compile_seconds=table.compile_seconds, wall_seconds=wall, cpu_seconds=cpu,
        devices=args.devices, processes=args.processes, device=table.device, peak_rss_gib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, load_end=load(),
        values_per_second=values / table.seconds, us_per_value_wall=table.seconds / values * 1e6,
        core_us_per_value_cpu=cpu / values * 1e6, core_us_per_value_wall_x_cores=table.seconds * cores / values * 1e6,
        layer_seconds_without_compile={str(k): v["seconds"] for k, v in table.timings.items()},
    )
    progress.write_text(json.dumps(record, indent=1))
    lines = [
        f"# Two-player {rules.name}" + (f" (open: {', '.join(args.open)})" if args.open else ""),
        "",
        f"Devices: {table.device}" + (f" ({args.processes} processes under jax.distributed; this process's figures)" if args.processes > 1 else "") + ".",
        f"{record['pairs']:,} pairs of sheets, {values:,} state-lead values ({record['dtype']}), chunk {args.chunk}, tie rule {args.tie}: "
        f"{table.seconds:.1f} s run + {table.compile_seconds:.1f} s compiling, {cpu:.0f} CPU seconds, peak RSS {record['peak_rss_gib']:.2f} GiB.",
        f"Machine: {record['machine']}. Load (1, 5, 15 min) at the start {record['load_start']}, at the end {record['load_end']}.",
        f"Rate: {record['values_per_second']:.3g} values per second; {record['us_per_value_wall']:.3f} us per value (wall), "
        f"{record['core_us_per_value_cpu']:.3f} core-us (this process's CPU seconds, compiling included).",
        "",
        f"The first player's P(win) + P(tie) / 2 (tie rule {args.tie}: a tie worth {twoplayer.TIES[args.tie]} to him): {table.start:.9f}",
    ]
    if args.simulate:
        t, c = time.perf_counter(), time.process_time()
        played = twoplayer.simulate(table, args.simulate, seed=args.seed)
        turns = len(table.plans) - 1
        record["simulation"] = {"games": args.simulate, "seed": args.seed, "mean": played.mean, "standard_error": played.standard_error,
                                "wins": played.wins, "ties": played.ties, "seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - c,
                                "turns": turns, "core_us_per_game_turn": (time.process_time() - c) / (args.simulate * turns) * 1e6, "load": load(),
                                "z": (played.mean - table.start) / played.standard_error}
        s = record["simulation"]
        lines += [
            "",
            f"Simulated, optimal against optimal: {args.simulate:,} games (seed {args.seed}) in {s['seconds']:.1f} s ({s['cpu_seconds']:.1f} CPU s, "
            f"{s['core_us_per_game_turn']:.1f} core-us per game and turn, load {s['load']}): the first player's mean "
            f"{s['mean']:.5f} +- {s['standard_error']:.5f} (z = {s['z']:+.2f} against the solved value); he wins {s['wins']:.4%}, ties {s['ties']:.4%}.",
        ]
    lines += ["", "| layer | pairs | leads | values | seconds (no compiling) |", "|---|---|---|---|---|"]
    for p in reversed(solved):
        lines.append(f"| {p.n} | {p.pairs:,} | {-p.low}..{p.high} | {p.pairs * p.width:,} | {table.timings.get(p.n, {}).get('seconds', float('nan')):.2f} |")
    args.out.with_suffix(".json").write_text(json.dumps(record, indent=1))
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def _launch(args, argv) -> int:
    """Start ``args.processes`` copies of this script on localhost (``jax.distributed``), wait for
    them, and add the processes' wall and CPU seconds (all of them) to process 0's files."""
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    w0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    procs = [
        subprocess.Popen([sys.executable, __file__, *argv, "--coordinator", f"localhost:{port}", "--process-id", str(i)], stdout=subprocess.PIPE, text=True)
        for i in range(args.processes)
    ]
    outs = [p.communicate()[0] for p in procs]
    wall = time.perf_counter() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if any(p.returncode for p in procs):
        print(f"error: a process failed (exit {[p.returncode for p in procs]})", file=sys.stderr)
        return 1
    rows = [json.loads(next(ln for ln in o.splitlines() if ln.startswith('{"process"'))) for o in outs]
    print(outs[0], end="")
    out = args.out.with_suffix(".json")
    record = json.loads(out.read_text())
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    record["all_processes"] = {"processes": rows, "wall_seconds": wall, "cpu_seconds": cpu, "core_us_per_value_cpu": cpu / record["values"] * 1e6}
    out.write_text(json.dumps(record, indent=1))
    line = (f"All {args.processes} processes (started, solved, gathered; their CPU seconds from getrusage of the children, "
            f"jax.distributed start and compiling included): {wall:.1f} s wall, {cpu:.1f} CPU seconds, {cpu / record['values'] * 1e6:.3f} core-us per value.")
    md = args.out.with_suffix(".md")
    md.write_text(md.read_text() + "\n" + line + "\n")
    print(line)
    return 0


_TABLE: dict = {}


def _load_table(rules, tie: str):
    """A worker's table, loaded once per process (memory-mapped: the processes share the pages)."""
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store

    key = (rules, tie)
    if key not in _TABLE:
        table = twoplayer_store.load(rules, tie, "yacht")
        if table is None:
            raise SystemExit(f"no stored two-player table of {rules.name} (ties {tie}): run `jaxsolve twoplayer-table yacht` first")
        _TABLE[key] = table
    return _TABLE[key]


def _play_batch(job: tuple) -> dict:
    """One batch of games in a worker: its counts of wins, ties and losses, the sum of the leads
    and of their squares, its seconds."""
    import numpy as np

    from jaxsolve.games.category.objectives import twoplayer

    rules, tie, games, seed = job
    w0, c0 = time.perf_counter(), time.process_time()
    table = _load_table(rules, tie)
    played = twoplayer.simulate(table, games, seed=seed)
    lead = played.lead.astype(np.int64)
    return {"seed": seed, "games": games, "wins": int((lead > 0).sum()), "ties": int((lead == 0).sum()), "losses": int((lead < 0).sum()),
            "lead_sum": int(lead.sum()), "lead_squares": int((lead * lead).sum()), "wall": round(time.perf_counter() - w0, 2),
            "cpu": round(time.process_time() - c0, 2), "load": load(), "at": time.strftime("%H:%M:%S", time.gmtime()), "pid": os.getpid()}


def combine(batches: list[dict], tie_value: float) -> dict:
    """The games of every batch as one sample: P(win), P(tie), P(lose) and their sum, the mean
    result (a tie worth ``tie_value``) with its standard error (``twoplayer.Played``'s: the
    population SD over sqrt(n - 1)), the mean lead and its SD."""
    import math

    n = sum(b["games"] for b in batches)
    w, t, lost = (sum(b[k] for b in batches) for k in ("wins", "ties", "losses"))
    mean = (w + tie_value * t) / n
    var = (w * (1 - mean) ** 2 + t * (tie_value - mean) ** 2 + lost * mean**2) / n
    lead_mean = sum(b["lead_sum"] for b in batches) / n
    lead_var = sum(b["lead_squares"] for b in batches) / n - lead_mean**2
    return {"games": n, "wins": w, "ties": t, "losses": lost, "p_win": w / n, "p_tie": t / n, "p_lose": lost / n,
            "p_sum": w / n + t / n + lost / n, "mean": mean, "standard_error": math.sqrt(var / max(n - 1, 1)),
            "lead_mean": lead_mean, "lead_sd": math.sqrt(max(lead_var, 0.0))}


def _machine_words(m) -> str:
    if not isinstance(m, dict):
        return str(m)
    return f"{m.get('cpu', '?')}, {m.get('cpu_count', '?')} cores, {m.get('platform', '?')}, Python {m.get('python', '?')}, JAX {m.get('jax', '?')}"


def simulate_stored(rules, args, record: dict) -> int:
    """``--stored --simulate N``: N games from the stored table in batches, ``--jobs`` at a
    time; progress after each batch, the combined figures at the end."""
    import multiprocessing as mp

    from jaxsolve.bench import machine
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store

    t0, c0 = time.perf_counter(), time.process_time()
    table = _load_table(rules, args.tie)
    load_seconds = time.perf_counter() - t0
    start = table.start
    sizes = [min(args.batch, args.simulate - k) for k in range(0, args.simulate, args.batch)]
    jobs = [(rules, args.tie, g, args.seed * 1000 + i) for i, g in enumerate(sizes)]
    progress = args.out.with_suffix(".progress.json")
    out: dict = {
        "rules": rules.name, "tie": args.tie, "games": args.simulate, "batch": args.batch, "processes": args.jobs, "seed": args.seed,
        "seeds": [j[3] for j in jobs], "stored": str(twoplayer_store.store_path("yacht", rules, args.tie)), "stored_start": start,
        "reference": args.reference, "load_seconds": load_seconds, "machine": machine(), "load_start": load(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "batches": [],
    }
    tie_value = twoplayer.TIES[args.tie]

    def note(batch: dict) -> None:
        out["batches"].append(batch)
        out["so_far"] = combine(out["batches"], tie_value)
        progress.write_text(json.dumps(out, indent=1))
        print(f"batch seed {batch['seed']}: {batch['games']:,} games in {batch['wall']:.0f} s ({batch['cpu']:.0f} CPU s), load {batch['load']}; "
              f"{out['so_far']['games']:,} so far, mean {out['so_far']['mean']:.5f} +- {out['so_far']['standard_error']:.5f}", flush=True)

    if args.jobs > 1:
        with mp.get_context("spawn").Pool(args.jobs) as pool:
            for batch in pool.imap_unordered(_play_batch, jobs):
                note(batch)
    else:
        for job in jobs:
            note(_play_batch(job))
    wall = time.perf_counter() - t0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    own = resource.getrusage(resource.RUSAGE_SELF)
    total = combine(out["batches"], tie_value)
    z = (total["mean"] - start) / total["standard_error"]
    out.update(total, z=z, wall_seconds=wall, cpu_seconds=sum(b["cpu"] for b in out["batches"]) + (time.process_time() - c0 if args.jobs > 1 else 0.0),
               peak_rss_gib=max(children.ru_maxrss, own.ru_maxrss) / 2**20, load_end=load(),
               finished=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    del out["so_far"]
    if args.reference is not None:
        out["z_reference"] = (total["mean"] - args.reference) / total["standard_error"]
    progress.write_text(json.dumps(out, indent=1))
    lines = [
        f"# Two-player {rules.name}: {args.simulate:,} games of optimal against optimal from the stored table",
        "",
        f"Both players choose every keep and box by the stored table (`twoplayer_store.load`, every layer memory-mapped; "
        f"`twoplayer.simulate`), tie rule {args.tie} (a tie worth {tie_value} to the first player). {len(jobs)} batches of "
        f"{args.batch:,} games (seeds {jobs[0][3]}..{jobs[-1][3]}), {args.jobs} process(es) at a time.",
        "",
        "| | value |",
        "|---|---|",
        f"| P(first player wins) | {total['p_win']:.6f} |",
        f"| P(tie) | {total['p_tie']:.6f} |",
        f"| P(first player loses) | {total['p_lose']:.6f} |",
        f"| sum | {total['p_sum']:.12f} |",
        f"| mean result (win 1, tie {tie_value}, loss 0) | {total['mean']:.6f} +- {total['standard_error']:.6f} (SE) |",
        f"| solved value (stored start) | {start:.9f} |",
        f"| z = (mean - solved) / SE | {z:+.2f} |",
        f"| the first player's mean lead at the end | {total['lead_mean']:+.3f} (SD {total['lead_sd']:.2f}) |",
        "",
        f"{wall:.0f} s wall, {out['cpu_seconds']:.0f} CPU seconds (every batch's process, `time.process_time`), peak RSS of one process "
        f"{out['peak_rss_gib']:.2f} GiB; table loaded in {load_seconds:.1f} s. Machine: {_machine_words(out['machine'])}. Load (1, 5, 15 min) at the start "
        f"{out['load_start']}, at the end {out['load_end']}: other engineers' jobs ran on the same 2 cores.",
    ]
    args.out.with_suffix(".json").write_text(json.dumps(out, indent=1))
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
