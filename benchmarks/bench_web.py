"""Answer times of the page's API (``jaxsolve serve``): advise requests from the solution cache.

    .venv/bin/python benchmarks/bench_web.py [--requests 1000] [--game kniffel] [--rules yahtzee] [--out results/web]   # default: the current folder

Starts ``jaxsolve serve`` as its own process on a free loopback port (the command a user runs),
waits until its first answer (which loads or solves the table), sends 20 warm-up questions,
then ``--requests`` advise requests one after the other over one keep-alive connection: a
seeded mix of Yahtzee throws (5 dice, 0-2 re-throws left) at the start and at positions with
some boxes filled. A request's time is from sending it to having read and parsed the whole JSON
answer (every option ranked). Writes ``advise_times.md`` and ``advise_times.json`` with the
machine description (``benchmarks/machine.py``; the load average tells how busy it was).
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
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

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
    args = ap.parse_args()

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


if __name__ == "__main__":
    main()
