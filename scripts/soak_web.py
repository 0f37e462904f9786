"""Soak the page's server: ``jaxsolve serve`` on 127.0.0.1 under a steady, bounded load over
every registered game for a while, with its memory measured.

    nice -n 19 python scripts/soak_web.py [--minutes 30] [--clients 2] [--games a,b] [--json results/web/soak.json] [-- SERVE_OPTIONS]

Starts ``jaxsolve serve --port 0`` as a child process (with the options after ``--``, e.g.
``--max-memory 2``), then ``--clients`` threads each send one request at a time, for
``--minutes``: the catalog, the warm-up's progress, each game's status, advisor questions (the
games whose question is known here: a random throw of the category games, a position of the race
games), games in play (new game, throws, best moves, undo, review), score distributions polled
for a few seconds and then left (the server cancels what nobody polls), and inputs the server
must refuse with one line and a 4xx (a 5,001-digit score, a game that does not exist, malformed
JSON). Every answer's status is counted; a 5xx or a refusal that is not one line is a failure.
The server's resident memory is sampled every second (``/proc/PID/status``: ``VmRSS``) and its
peak read at the end (``VmHWM``). Prints a summary and writes it as JSON (``--json``);
``--report FILE.json`` writes a summary's table (``.md``) and its memory plot (``.png``) beside it.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIG = "9" * 5001
POLL_LIMIT = 120.0  # seconds a client polls a job it needs (a first solve) before it walks away
DIST_POLL = 5.0  # seconds a client polls a score distribution before it walks away
TIMEOUT = 60.0  # seconds one HTTP request may take


class Client:
    """One HTTP client of the server (one request at a time), counting what it gets."""

    def __init__(self, url: str, stats: Stats, seed: int):
        self.url, self.stats, self.rng = url, stats, random.Random(seed)

    def call(self, method: str, path: str, body=None, raw: bytes | None = None) -> tuple[int, dict]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={"Content-Type": "application/json"})
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as res:
                status, text = res.status, res.read()
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read()
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            self.stats.note(f"{method} {path}: no answer ({exc})", failed=True)
            return 0, {}
        self.stats.count(path, status, time.perf_counter() - t0)
        try:
            answer = json.loads(text)
        except ValueError:
            self.stats.note(f"{method} {path}: {status} not JSON", failed=True)
            return status, {}
        if status >= 500:
            self.stats.note(f"{method} {path}: {status} {str(answer)[:200]}", failed=True)
        elif status >= 400 and (set(answer) != {"error"} or "\n" in answer["error"]):
            self.stats.note(f"{method} {path}: {status} but not one line: {str(answer)[:200]}", failed=True)
        return status, answer

    def answered(self, method: str, path: str, body=None, limit: float = POLL_LIMIT) -> tuple[int, dict]:
        """The request's answer, polling its job while it is ``202``, for at most ``limit`` seconds
        (then walked away from: ``(202, ...)``)."""
        status, answer = self.call(method, path, body)
        end = time.monotonic() + limit
        while status == 202 and time.monotonic() < end:
            time.sleep(1.0)
            status, answer = self.call("GET", f"/api/jobs/{answer['job']}")
        return status, answer


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()
        self.kinds: Counter = Counter()
        self.seconds: list[float] = []
        self.failures: list[str] = []
        self.notes: Counter = Counter()

    def count(self, path: str, status: int, seconds: float) -> None:
        kind = "/".join(p if not p[:1].isdigit() and not (p[:1] in "gj" and p[1:].isdigit()) else "*" for p in path.split("/"))
        with self.lock:
            self.statuses[status] += 1
            self.kinds[kind] += 1
            self.seconds.append(seconds)

    def note(self, text: str, failed: bool = False) -> None:
        with self.lock:
            if failed:
                self.failures.append(text)
            else:
                self.notes[text] += 1


def question(rng: random.Random, game: dict) -> dict | None:
    """An advisor question for ``game`` at its default rules, or None where none is known here."""
    table = game["tables"].get(game["default"], {})
    if game["family"] == "category":
        n = table.get("dice") or 5
        return {"dice": " ".join(str(rng.randint(1, 6)) for _ in range(n)), "throws_left": rng.choice([0, 1, 2])}
    if game["name"] == "raab":
        return {"mine": rng.randrange(0, 60), "theirs": rng.randrange(0, 60), "turn": rng.choice([0, 4, 8])}
    if game["name"] == "zehntausend":
        return {"points": rng.choice([0, 100, 350]), "dice": rng.choice(["12346", "155234", "2346"])}
    if game["name"] == "zehntausend-duel":
        return {"mine": rng.choice([0, 300, 5000]), "theirs": rng.choice([0, 1000, 9000]), "turn": 100, "dice": "12346"}
    return None


def play_a_while(c: Client, game: dict, moves: int) -> None:
    """A new game of ``game`` (default rules), ``moves`` throws and best moves, an undo, the review."""
    seed = c.rng.randrange(1 << 30)
    status, s = c.answered("POST", f"/api/games/{game['name']}/play", {"settings": {"seed": seed}})
    if status != 200:
        c.stats.note(f"play {game['name']}: {status}")
        return
    pid = s["id"]
    for _ in range(moves):
        if s.get("over"):
            break
        body = {"throw": None} if s.get("awaiting") == "dice" else {"choice": "best"}
        status, s = c.answered("POST", f"/api/play/{pid}/move", body)
        if status != 200:
            c.stats.note(f"move {game['name']}: {status} {s.get('error', '')[:80]}")
            return
    if s.get("can_undo"):
        c.answered("POST", f"/api/play/{pid}/undo", {})
    c.answered("GET", f"/api/play/{pid}/review")
    c.call("GET", f"/api/play/{pid}")
    if game.get("distribution") and c.rng.random() < 0.1:  # asked, polled a little, then left (a closed tab)
        status, _ = c.answered("GET", f"/api/play/{pid}/distribution", limit=DIST_POLL)
        c.stats.note(f"distribution {game['name']}: {'answered' if status == 200 else 'left unpolled' if status == 202 else status}")


def refusals(c: Client, games: list[dict]) -> None:
    """Inputs the server must refuse with one line and a 4xx."""
    category = [g for g in games if g["family"] == "category"]
    g = c.rng.choice(category) if category else None
    cases: list[tuple[str, str, dict | None, bytes | None]] = [
        ("POST", "/api/games/chess/advise", {}, None),
        ("POST", f"/api/games/{games[0]['name']}/advise", None, b"{not json"),
        ("GET", "/api/play/g999999999", None, None),
        ("GET", "/api/jobs/j999999999", None, None),
    ]
    if g is not None:
        cases += [
            ("POST", f"/api/games/{g['name']}/advise", {"options": {"dice": "1 2 3 4 5", "opponent": ["start 0"], "score": BIG}}, None),
            ("POST", f"/api/games/{g['name']}/advise", {"options": {"dice": "1 2 3 4 5", "opponent": [f"start {BIG}"]}}, None),
            ("POST", f"/api/games/{g['name']}/advise", {"options": {"dice": "1 2 3 4 5", "against": f"start {BIG}"}}, None),
        ]
    method, path, body, raw = c.rng.choice(cases)
    status, answer = c.call(method, path, body, raw)
    if not 400 <= status < 500:
        c.stats.note(f"{method} {path}: {status} where a 4xx was due", failed=True)


def client_loop(c: Client, games: list[dict], until: float) -> None:
    while time.monotonic() < until:
        game = c.rng.choice(games)
        r = c.rng.random()
        try:
            if r < 0.05:
                c.call("GET", "/api/games")
            elif r < 0.15:
                c.call("GET", "/api/warming")
            elif r < 0.25:
                c.call("POST", f"/api/games/{game['name']}/status", {})
            elif r < 0.55:
                q = question(c.rng, game)
                if q is None:
                    play_a_while(c, game, 4)
                else:
                    status, answer = c.answered("POST", f"/api/games/{game['name']}/advise", {"options": q})
                    if status >= 400:
                        c.stats.note(f"advise {game['name']}: {status} {answer.get('error', '')[:80]}")
            elif r < 0.9:
                play_a_while(c, game, c.rng.randrange(2, 12))
            else:
                refusals(c, games)
        except Exception as exc:  # noqa: BLE001  a client's own bug must not end the soak unseen
            c.stats.note(f"client error: {type(exc).__name__}: {exc}", failed=True)
        time.sleep(0.05)


def memory_of(pid: int) -> dict[str, int]:
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return out


def report(path: Path) -> None:
    """Write a soak's summary (``path``, its JSON) as a Markdown table beside it (``.md``) and its
    memory over time as a plot (``.png``): the server's resident memory and the bytes of the
    tables it keeps, sampled every 30 s."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = json.loads(path.read_text())
    rows = [r for r in s["every_30_s_rss_tables_games"] if r[2] is not None]
    gb = 1e9
    fig, ax = plt.subplots(figsize=(8, 4), dpi=100)
    ax.plot([r[0] / 60 for r in rows], [r[1] / gb for r in rows], label="server's resident memory (VmRSS)")
    ax.plot([r[0] / 60 for r in rows], [r[2] / gb for r in rows], label="tables kept in memory")
    ax.axhline(s["tables_at_end"]["max_bytes"] / gb, color="grey", linestyle="--", label="--max-memory (tables)")
    ax.set_xlabel("minutes into the soak")
    ax.set_ylabel("GB")
    ax.set_title(f"jaxsolve serve under {s['clients']} clients, {s['requests']:,} requests")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path.with_suffix(".png"))
    plt.close(fig)
    rss = [r[1] for r in rows if r[0] >= (s["warm_done_after_s"] or 0)] or [r[1] for r in rows]
    lines = [
        f"# Soak of the page's server ({s['minutes']:.0f} minutes)",
        "",
        f"`{s['command']}` (server: `{s['server']}`), {s['clients']} clients, games: {', '.join(s['games'])}.",
        "",
        "| figure | value |",
        "| --- | ---: |",
        f"| requests | {s['requests']:,} |",
        f"| statuses | {', '.join(f'{k}: {v:,}' for k, v in s['statuses'].items())} |",
        f"| failures (a 5xx, or a refusal that is not one line) | {s['failure_count']} |",
        f"| seconds per request: median, 95th percentile, max | {s['seconds_p50']:.3f}, {s['seconds_p95']:.3f}, {s['seconds_max']:.2f} |",
        f"| default tables warmed after | {s['warm_done_after_s']} s |",
        f"| tables kept at the end (bytes, of --max-memory) | {s['tables_at_end']['bytes'] / gb:.2f} GB of {s['tables_at_end']['max_bytes'] / gb:.2f} GB ({s['tables_at_end']['tables']} tables) |",
        f"| games in play at the end | {s['tables_at_end']['games_in_play']} |",
        f"| resident memory after warming: lowest, median of the 30 s samples | {min(rss) / gb:.1f} GB, {sorted(rss)[len(rss) // 2] / gb:.1f} GB |",
        f"| **peak resident memory (VmHWM)** | **{s['peak_rss_bytes'] / gb:.1f} GB** |",
        "",
        f"![memory over the soak]({path.with_suffix('.png').name})",
        "",
    ]
    path.with_suffix(".md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--report"] and len(argv) == 2:
        report(Path(argv[1]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--games", default=None, help="only these games, comma-separated (default: every registered game)")
    parser.add_argument("serve", nargs="*", help="options for jaxsolve serve (after --)")
    args = parser.parse_args(argv)

    cmd = [sys.executable, "-m", "jaxsolve", "serve", "--port", "0", *args.serve]
    server = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = server.stdout.readline() if server.stdout else ""
    if "http://" not in line:
        server.kill()
        print(f"error: the server did not start: {line.strip() or server.stderr.read()[-500:] if server.stderr else ''}", file=sys.stderr)
        return 1
    url = line.split("at ", 1)[1].split()[0].rstrip("/")
    errors: list[str] = []
    threading.Thread(target=lambda: errors.extend(server.stderr or []), daemon=True).start()

    stats = Stats()
    samples: list[tuple[float, int]] = []
    warm_done: list[float] = []
    start = time.monotonic()
    until = start + args.minutes * 60
    probe = Client(url, stats, args.seed)
    status, games = probe.call("GET", "/api/games")
    if status != 200:
        server.kill()
        print(f"error: GET /api/games answered {status}", file=sys.stderr)
        return 1
    if args.games:
        games = [g for g in games if g["name"] in args.games.split(",")]
    clients = [Client(url, stats, args.seed * 1000 + i) for i in range(args.clients)]
    threads = [threading.Thread(target=client_loop, args=(c, games, until), daemon=True) for c in clients]
    for t in threads:
        t.start()
    peak_sampled = 0
    while any(t.is_alive() for t in threads):
        mem = memory_of(server.pid)
        rss = mem.get("VmRSS", 0)
        peak_sampled = max(peak_sampled, rss)
        now = time.monotonic() - start
        due = not samples or now - samples[-1][0] >= 30
        if due or not warm_done:
            try:
                with urllib.request.urlopen(url + "/api/warming", timeout=TIMEOUT) as res:
                    w = json.loads(res.read())
            except (urllib.error.URLError, TimeoutError, ValueError):
                w = None
            if w is not None and not w["busy"] and not warm_done:
                warm_done.append(round(now, 1))
            if due:  # (seconds, RSS, bytes of the tables kept, games in play)
                samples.append((round(now), rss, w["memory"]["bytes"] if w else None, w["memory"]["games_in_play"] if w else None))
        time.sleep(1.0)
    for t in threads:
        t.join(TIMEOUT * 3)
    with urllib.request.urlopen(url + "/api/warming", timeout=TIMEOUT) as res:
        final = json.loads(res.read())
    mem = memory_of(server.pid)
    server.terminate()
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        server.kill()
    seconds = sorted(stats.seconds)
    summary = {
        "command": " ".join(["python", "scripts/soak_web.py", *(argv if argv is not None else sys.argv[1:])]),
        "server": " ".join(cmd[1:]),
        "minutes": round((time.monotonic() - start) / 60, 2),
        "clients": args.clients,
        "games": [g["name"] for g in games],
        "requests": len(seconds),
        "statuses": dict(sorted(stats.statuses.items())),
        "by_kind": dict(stats.kinds.most_common()),
        "seconds_p50": seconds[len(seconds) // 2] if seconds else None,
        "seconds_p95": seconds[int(len(seconds) * 0.95)] if seconds else None,
        "seconds_max": seconds[-1] if seconds else None,
        "peak_rss_bytes": mem.get("VmHWM", peak_sampled),
        "peak_rss_sampled_bytes": peak_sampled,
        "every_30_s_rss_tables_games": samples,
        "warm_done_after_s": warm_done[0] if warm_done else None,
        "tables_at_end": final["memory"],
        "warmed": [{k: t[k] for k in ("game", "rules", "dtype", "state")} for t in final["tables"]],
        "notes": dict(stats.notes.most_common()),
        "failures": stats.failures[:50],
        "failure_count": len(stats.failures),
        "server_stderr_tail": "".join(errors)[-2000:],
    }
    text = json.dumps(summary, indent=1)
    print(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    return 1 if stats.failures else 0


if __name__ == "__main__":
    sys.exit(main())
