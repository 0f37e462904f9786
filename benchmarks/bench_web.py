"""Answer times of the page's API (``jaxsolve serve``): advise requests from the solution cache,
alone or while a long solve runs in the same server.

    .venv/bin/python benchmarks/bench_web.py [--requests 1000] [--game kniffel] [--rules yahtzee] [--out results/web]   # default: the current folder
    .venv/bin/python benchmarks/bench_web.py --during zehntausend-duel --requests 100 --out results/web

Starts ``jaxsolve serve`` as its own process on a free loopback port (the command a user runs),
waits until its first answer (which loads or solves the table), sends 20 warm-up questions,
then ``--requests`` advise requests one after the other over one keep-alive connection: a
seeded mix of Yahtzee throws (5 dice, 0-2 re-throws left) at the start and at positions with
some boxes filled. A request's time is from sending it to having read and parsed the whole JSON
answer (every option ranked). Writes ``advise_times.md`` and ``advise_times.json`` with the
machine description (``benchmarks/machine.py``; the load average tells how busy it was).

``--during GAME``: the server runs on an empty temporary cache folder into which ``jaxsolve
advise`` (another process) has put the asked game's table beforehand. After the warm-up, the
``--requests`` questions are timed alone (the figures to compare with); then one connection
asks ``GAME``'s advisor a question of its default rules (``zehntausend-duel``: the duel to
10,000, some 5 minutes of solving on 2 cores; ``maxi``: Maxi Yatzy) and, once that solve has
run ``--settle`` seconds, the same questions are timed again over another connection,
``--spacing`` seconds apart (spread over the solve as a player's clicks are). The solve
must still be running when the last answer is in (checked and written); its job's progress is
recorded before and after. Writes ``during_solve-GAME.md`` and ``during_solve-GAME.json``.

``--gil GAME``: whether the server's threads are enough (the question of a pool of threads
against one of processes): ``GAME``'s default rules solved on a thread of this process for
``--seconds`` while a thread here and a child process each wake every millisecond and note
every gap over 50 ms. A gap only the thread sees is the solve holding Python's global lock; a
gap both see is the machine's other work. Writes ``gil_probe-GAME.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

LONG = {  # a question whose answer needs the game's default rules solved
    "zehntausend-duel": {"mine": 0, "theirs": 0, "turn": 0, "dice": "1 2 3 4 6 6"},
    "maxi": {"dice": "1 2 3 4 6 6"},
}
POSITIONS = ["start", "aces=3 twos=- fours=12", "aces=2 threes=9 sixes=24 chance=22 yahtzee=50", "full_house=25 small_straight=30 large_straight=40 three_kind=20"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def questions(n: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        dice = " ".join(map(str, sorted(rng.integers(1, 7, size=5))))
        out.append({"position": POSITIONS[rng.integers(len(POSITIONS))], "dice": dice, "throws_left": int(rng.integers(0, 3))})
    return out


def ask(conn, path: str, body: dict) -> tuple[int, dict]:
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    res = conn.getresponse()
    return res.status, json.loads(res.read())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--game", default="kniffel")
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--out", type=Path, default=Path("."), help="folder (default: the current folder)")
    ap.add_argument("--during", choices=sorted(LONG), default=None, help="time the requests while this game's default rules are solved")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds the long solve runs before the timed requests (with --during)")
    ap.add_argument("--spacing", type=float, default=0.3, help="seconds between two timed requests during the solve (with --during; a player's clicks, spread over the solve)")
    ap.add_argument("--gil", choices=sorted(LONG), default=None, help="probe the global lock while this game's default rules are solved")
    ap.add_argument("--seconds", type=float, default=45.0, help="how long to probe (with --gil)")
    ap.add_argument("--ticks", default=None, help=argparse.SUPPRESS)  # the child process of --gil: "t0,end"
    args = ap.parse_args()
    if args.ticks is not None:
        t0, end = map(float, args.ticks.split(","))
        time.sleep(max(0.0, t0 - time.perf_counter()))
        return print(json.dumps(gaps(t0, end)))
    if args.during:
        return during(args)
    if args.gil:
        return gil_probe(args)

    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    server = subprocess.Popen([sys.executable, "-m", "jaxsolve", "serve", "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        server.stdout.readline()  # "jaxsolve page at ..."
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as a browser does: no Nagle wait on small requests
        path = f"/api/games/{args.game}/advise"
        t0 = time.perf_counter()
        status, answer = ask(conn, path, {"rules": args.rules, "options": {"dice": "1 2 3 4 6"}})
        while status == 202:
            time.sleep(0.5)
            conn.request("GET", f"/api/jobs/{answer['job']}")
            res = conn.getresponse()
            status, answer = res.status, json.loads(res.read())
        assert status == 200, answer
        first = time.perf_counter() - t0
        for q in questions(20, seed=1):
            ask(conn, path, {"rules": args.rules, "options": q})
        times, options = [], 0
        for q in questions(args.requests):
            t = time.perf_counter()
            status, answer = ask(conn, path, {"rules": args.rules, "options": q})
            times.append(time.perf_counter() - t)
            assert status == 200 and answer["game"] == args.game, answer
            options += len(answer["options"])
    finally:
        server.terminate()
        server.wait(30)

    from machine import describe

    ms = sorted(1000 * t for t in times)
    p99 = ms[min(len(ms) - 1, int(np.ceil(0.99 * len(ms))) - 1)]
    report = {
        "what": f"{args.requests} advise requests to `jaxsolve serve` ({args.game}, rules {args.rules}) from the solution cache, one after the other, keep-alive",
        "requests": args.requests,
        "median_ms": statistics.median(ms),
        "p99_ms": p99,
        "mean_ms": statistics.fmean(ms),
        "max_ms": ms[-1],
        "options_per_answer": options / len(times),
        "first_answer_s": first,
        "machine": describe(),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "advise_times.json").write_text(json.dumps(report, indent=1) + "\n")
    m = report["machine"]
    lines = [
        "# Answer times of the page's API (`jaxsolve serve`)",
        "",
        f"{report['what']}; regenerate with `python benchmarks/bench_web.py`.",
        "",
        "| requests | median | 99th percentile | mean | max | options per answer | first answer (load) |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {args.requests} | {report['median_ms']:.2f} ms | {p99:.2f} ms | {report['mean_ms']:.2f} ms | {report['max_ms']:.2f} ms | {report['options_per_answer']:.1f} | {first:.2f} s |",
        "",
        f"Machine: {m['cpu']} ({m['cpu_count']} cores), {m['platform']}, Python {m['python']}, JAX {m['jax']}; "
        f"load average {', '.join(f'{x:.2f}' for x in m['load_average'])} at the end; {m['date']}.",
    ]
    (args.out / "advise_times.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def connect(port: int) -> http.client.HTTPConnection:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as a browser does: no Nagle wait on small requests
    return conn


def poll(port: int, jid: str) -> tuple[int, dict]:
    """A job's state, asked on a connection of its own (the server closes one idle for 5 s)."""
    conn = connect(port)
    try:
        conn.request("GET", f"/api/jobs/{jid}")
        res = conn.getresponse()
        return res.status, json.loads(res.read())
    finally:
        conn.close()


def during(args) -> None:
    """The cached requests timed while ``args.during``'s default rules are solved (module doc)."""
    import shutil

    from machine import describe

    load_before = list(os.getloadavg())
    folder = Path(tempfile.mkdtemp(prefix="jaxsolve-bench-web-"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "jaxsolve", "advise", args.game, "--rules", args.rules, "--dice", "1 2 3 4 6", "--cache-dir", str(folder), "-q", "--json"],
        env=env, check=True, stdout=subprocess.DEVNULL,
    )
    cached_in = time.perf_counter() - t0
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "jaxsolve", "serve", "--port", str(port), "--cache-dir", str(folder)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        server.stdout.readline()  # "jaxsolve page at ..."
        fast, slow = connect(port), connect(port)
        path = f"/api/games/{args.game}/advise"
        t0 = time.perf_counter()
        status, answer = ask(fast, path, {"rules": args.rules, "options": {"dice": "1 2 3 4 6"}})
        while status == 202:  # loading the table took longer than the server waits (a busy machine)
            time.sleep(0.2)
            status, answer = poll(port, answer["job"])
        first = time.perf_counter() - t0
        assert status == 200, answer
        for q in questions(20, seed=1):
            ask(fast, path, {"rules": args.rules, "options": q})
        alone = []
        for q in questions(args.requests):
            t = time.perf_counter()
            status, answer = ask(fast, path, {"rules": args.rules, "options": q})
            alone.append(time.perf_counter() - t)
            assert status == 200, answer
        t_long = time.perf_counter()
        status, long_job = ask(slow, f"/api/games/{args.during}/advise", {"options": LONG[args.during]})
        assert status == 202, long_job
        time.sleep(args.settle)
        _, before = poll(port, long_job["job"])
        fast.close()
        fast = connect(port)  # the server closes a connection idle for 5 s, as the first one has been
        times, at = [], []
        for q in questions(args.requests):
            at.append(time.perf_counter() - t_long)
            t = time.perf_counter()
            status, answer = ask(fast, path, {"rules": args.rules, "options": q})
            times.append(time.perf_counter() - t)
            assert status == 200 and answer["game"] == args.game, answer
            time.sleep(args.spacing)
        status, after = poll(port, long_job["job"])
        running = status == 202 and not after.get("done")
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(folder, ignore_errors=True)

    ms = sorted(1000 * t for t in times)
    ms_alone = sorted(1000 * t for t in alone)
    report = {
        "what": f"{args.requests} advise requests ({args.game}, rules {args.rules}, from the solution cache) over one keep-alive connection "
                f"while another connection's question has {args.during}'s default rules solved in the same server (empty temporary cache folder)",
        "requests": args.requests,
        "median_ms": statistics.median(ms),
        "p99_ms": ms[min(len(ms) - 1, int(np.ceil(0.99 * len(ms))) - 1)],
        "mean_ms": statistics.fmean(ms),
        "max_ms": ms[-1],
        "over_1s": sum(t > 1000 for t in ms),
        "without_the_solve": {"median_ms": statistics.median(ms_alone), "max_ms": ms_alone[-1], "mean_ms": statistics.fmean(ms_alone)},
        "first_answer_s": first,
        "cached_beforehand_s": cached_in,
        "solve_still_running_at_the_end": running,
        "solve_job_before": before,
        "solve_job_after": after,
        "load_average_before": load_before,
        "times_ms": [round(1000 * t, 2) for t in times],
        "sent_at_s": [round(t, 3) for t in at],
        "machine": describe(),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"during_solve-{args.during}.json").write_text(json.dumps(report, indent=1) + "\n")
    m = report["machine"]
    lines = [
        "# Cached answers of the page's API while a long solve runs in the same server",
        "",
        f"{report['what']}; the timed requests start {args.settle:g} s into the solve, {args.spacing:g} s apart. "
        f"Regenerate with `python benchmarks/bench_web.py --during {args.during} --requests {args.requests} --out results/web`.",
        "",
        "| requests | median | 99th percentile | mean | max | over 1 s | solve still running at the end | the same requests before the solve: median, max |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        f"| {args.requests} | {report['median_ms']:.2f} ms | {report['p99_ms']:.2f} ms | {report['mean_ms']:.2f} ms | {report['max_ms']:.2f} ms | {report['over_1s']} | {'yes' if running else 'no'} "
        f"| {statistics.median(ms_alone):.2f} ms, {ms_alone[-1]:.2f} ms |",
        "",
        f"The solve's job when the timed requests began: {before.get('seconds')} s, progress {before.get('progress') or 'none reported'}; "
        f"after the last answer: {after.get('seconds')} s, progress {after.get('progress') or 'none reported'}.",
        "",
        machine_line(m, load_before, "this benchmark"),
    ]
    (args.out / f"during_solve-{args.during}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def machine_line(m: dict, load_before, what: str) -> str:
    """The machine and its load before and after, for a results file."""
    return (
        f"Machine: {m['cpu']} ({m['cpu_count']} cores), {m['platform']}, Python {m['python']}, JAX {m['jax']}; "
        f"load average {', '.join(f'{x:.2f}' for x in load_before)} before and {', '.join(f'{x:.2f}' for x in m['load_average'])} at the end "
        f"(other jobs on the machine besides {what} when above about 2); {m['date']}."
    )


def gaps(t0: float, end: float) -> list[list[float]]:
    """Wake every millisecond until ``end``; every gap over 50 ms as [when (s after ``t0``), how
    long (ms)] (``time.perf_counter``: one clock for every process on Linux)."""
    out, last = [], time.perf_counter()
    while time.perf_counter() < end:
        time.sleep(0.001)
        now = time.perf_counter()
        if now - last > 0.05:
            out.append([round(last - t0, 2), round(1000 * (now - last), 1)])
        last = now
    return out


def gil_probe(args) -> None:
    """Gaps of a ticking thread beside a solve, and of a ticking child process (module doc)."""
    import threading

    from machine import describe

    from jaxsolve import games
    from jaxsolve.core import runtime

    runtime.configure(x64=True)
    game = next(g for g in games.games() if g.name == args.gil)
    rules = game.build_rules(None)
    load_before = list(os.getloadavg())
    t0 = time.perf_counter() + 2.0  # the child is running by then
    end = t0 + args.seconds
    child = subprocess.Popen([sys.executable, __file__, "--ticks", f"{t0!r},{end!r}"], stdout=subprocess.PIPE, text=True)
    here: list = []
    ticker = threading.Thread(target=lambda: here.extend(gaps(t0, end)))
    time.sleep(max(0.0, t0 - time.perf_counter()))
    ticker.start()

    def solve():
        if args.gil == "maxi":
            from jaxsolve.games.category.engine import solver

            solver.solve(rules, dtype="float32")
        else:
            from jaxsolve.games.zehntausend import duel_commands

            duel_commands.solve(rules, dtype="float64")

    threading.Thread(target=solve, daemon=True).start()
    ticker.join()
    there = json.loads(child.communicate()[0])
    only_here = [g for g in here if not any(abs(g[0] - h[0]) < 0.3 for h in there)]
    report = {
        "what": f"gaps over 50 ms of a 1 ms ticker while {args.gil}'s default rules are solved on a thread, for {args.seconds:g} s",
        "thread_gaps": here,
        "child_process_gaps": there,
        "thread_only_gaps": only_here,
        "load_average_before": load_before,
        "machine": describe(),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"gil_probe-{args.gil}.json").write_text(json.dumps(report, indent=1) + "\n")
    m = report["machine"]
    worst = max((g[1] for g in only_here), default=0.0)
    lines = [
        f"# Does a solve on a thread hold up the page's other threads? ({args.gil})",
        "",
        f"{report['what']}: the gaps a thread of the same process sees, those a child process sees (the machine's other work), "
        f"and those only the thread sees (the solve holding Python's global lock). "
        f"Regenerate with `python benchmarks/bench_web.py --gil {args.gil} --seconds {args.seconds:g} --out results/web`.",
        "",
        "| ticker | gaps over 50 ms | longest | total |",
        "| --- | ---: | ---: | ---: |",
        *(f"| {name} | {len(gaps)} | {max((g[1] for g in gaps), default=0):.0f} ms | {sum(g[1] for g in gaps):.0f} ms |"
          for name, gaps in (("thread beside the solve", here), ("child process", there), ("the thread only", only_here))),
        "",
        f"The longest gap only the thread saw: {worst:.0f} ms.",
        "",
        machine_line(m, load_before, "this probe"),
    ]
    (args.out / f"gil_probe-{args.gil}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    os._exit(0)  # the solve's thread is not waited for


if __name__ == "__main__":
    main()
