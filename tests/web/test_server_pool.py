"""The page's server as a local server has to be: requests from other sites refused (a foreign
``Host``, a foreign ``Origin``, a cross-site ``text/plain`` POST), and its work on a pool of
threads: a cached answer never waits behind a solve, two tabs asking for the same unsolved rules
share one solve, a job's progress is the solve's own bars."""

from __future__ import annotations

import http.client
import json
import threading
import time
from urllib.parse import urlparse

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("uvicorn", reason="the page needs starlette and uvicorn (pip install -e .)")

import onedie_pig  # noqa: E402
from typer.testing import CliRunner  # noqa: E402
from web_helpers import Running  # noqa: E402

from jaxsolve import games  # noqa: E402
from jaxsolve.core import progress  # noqa: E402
from jaxsolve.web.api import Service  # noqa: E402
from jaxsolve.web.server import Hosts  # noqa: E402

PIG = onedie_pig.GAME.name
ADVISE = f"/api/games/{PIG}/advise"


@pytest.fixture(scope="module")
def registered():
    games.register(onedie_pig.GAME)
    try:
        yield
    finally:
        games.unregister(PIG)


@pytest.fixture
def running(registered):
    servers: list[Running] = []

    def start(**kwargs) -> Running:
        servers.append(Running(Service(**kwargs)))
        return servers[-1]

    try:
        yield start
    finally:
        for s in servers:
            s.stop()


def send(server: Running, method: str, path: str, body: bytes | None = None, headers: dict | None = None) -> tuple[int, dict, dict]:
    """One request with exactly these headers (``Host`` the server's own unless given)."""
    url = urlparse(server.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        headers = {"Host": url.netloc, **(headers or {})}
        if body is not None:
            headers["Content-Length"] = str(len(body))
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.endheaders(body)
        res = conn.getresponse()
        return res.status, json.loads(res.read()), {k.lower(): v for k, v in res.getheaders()}
    finally:
        conn.close()


QUESTION = json.dumps({"options": {"mine": 1}}).encode()
JSON = {"Content-Type": "application/json"}

# ----------------------------------------------------------------------------- hygiene


def test_a_foreign_host_is_refused_and_the_own_names_are_answered(running):
    server = running(wait=60)
    port = urlparse(server.url).port
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1 if port < 65535 else 1}", f"localhost.evil.example:{port}", ""):
        code, answer, _ = send(server, "GET", "/api/games", headers={"Host": host})
        assert code == 421 and set(answer) == {"error"} and "does not answer for the host" in answer["error"], (host, answer)
        code, answer, _ = send(server, "POST", ADVISE, QUESTION, {**JSON, "Host": host})
        assert code == 421, host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        code, answer, _ = send(server, "GET", "/api/games", headers={"Host": host})
        assert code == 200 and any(g["name"] == PIG for g in answer), host


def test_a_cross_site_plain_text_post_is_refused_and_json_is_answered(running):
    server = running(wait=60)
    for kind in ("text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        code, answer, _ = send(server, "POST", ADVISE, QUESTION, {"Content-Type": kind})
        assert code == 415 and set(answer) == {"error"} and "Content-Type: application/json" in answer["error"], kind
    code, answer, _ = send(server, "POST", ADVISE, QUESTION)  # a body without a type
    assert code == 415
    code, answer, _ = send(server, "POST", ADVISE, QUESTION, {"Content-Type": "application/json; charset=utf-8"})
    assert code == 200 and answer["options"]
    code, answer, _ = send(server, "POST", ADVISE)  # no body and no type (the page's undo): nothing a form can send
    assert code == 200 and answer["options"]


def test_a_foreign_origin_is_refused_and_the_own_is_answered(running):
    server = running(wait=60)
    for origin in ("http://evil.example", "null", server.url.replace("http://", "https://"), server.url.replace("127.0.0.1", "localhost")):
        code, answer, headers = send(server, "POST", ADVISE, QUESTION, {**JSON, "Origin": origin})
        assert code == 403 and set(answer) == {"error"} and "another page" in answer["error"], origin
        code, answer, headers = send(server, "GET", "/api/games", headers={"Origin": origin})
        assert code == 403 and not any(h.startswith("access-control-") for h in headers)
    code, answer, headers = send(server, "POST", ADVISE, QUESTION, {**JSON, "Origin": server.url})
    assert code == 200 and answer["options"]
    assert not any(h.startswith("access-control-") for h in headers) and headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    "host, allow, yes, no",
    [
        ("127.0.0.1", (), ["127.0.0.1:8765", "localhost:8765"], ["127.0.0.1:8766", "[::1]:8765", "10.0.0.2:8765", "mybox.local:8765", "127.0.0.1", "127.0.0.1:8765:8765", "", ":8765", "127.0.0.1 :8765"]),
        ("::1", (), ["[::1]:8765", "localhost:8765"], ["127.0.0.1:8765", "[::2]:8765"]),
        ("localhost", (), ["localhost:8765", "127.0.0.1:8765", "[::1]:8765"], ["evil.example:8765"]),
        ("0.0.0.0", (), ["192.168.1.7:8765", "[fe80::1]:8765", "localhost:8765"], ["mybox.local:8765", "192.168.1.7:80"]),
        ("0.0.0.0", ("MyBox.local",), ["mybox.local:8765"], ["evil.example:8765"]),
        ("0.0.0.0", ("*",), ["evil.example:8765", "anything"], []),
        ("192.168.1.7", (), ["192.168.1.7:8765"], ["localhost:8765", "192.168.1.8:8765"]),
    ],
)
def test_the_hosts_a_server_answers(host, allow, yes, no):
    hosts = Hosts.bound(host, 8765, allow)
    assert all(hosts.accepts(h) for h in yes), [h for h in yes if not hosts.accepts(h)]
    assert not any(hosts.accepts(h) for h in no), [h for h in no if hosts.accepts(h)]
    assert Hosts.bound("localhost", 80).accepts("localhost") and not Hosts().accepts("localhost:8765")


def test_serve_on_every_interface_warns_that_the_page_is_open(monkeypatch):
    from jaxsolve.cli import build_app
    from jaxsolve.web import server as web_server

    seen = {}

    class Quiet:
        def run(self, sockets):
            seen["hosts"] = app_seen["app"].state.hosts
            for sock in sockets:
                sock.close()

    app_seen: dict = {}
    real = web_server.make_server

    def make(app, host, port, sock=None, allow_hosts=()):
        server, sock = real(app, host, 0, allow_hosts=allow_hosts)
        app_seen["app"] = app
        return Quiet(), sock

    monkeypatch.setattr(web_server, "make_server", make)
    warmed: list = []
    monkeypatch.setattr(Service, "warm_defaults", lambda self: warmed.append(self.max_memory) or [])  # no solve left running at the end
    result = CliRunner().invoke(build_app(), ["serve", "--host", "0.0.0.0", "--allow-host", "mybox.local", "--no-warm"])
    assert result.exit_code == 0, result.output
    assert "warning: listening on 0.0.0.0: the page is open to the network" in result.output
    assert seen["hosts"].any_address and "mybox.local" in seen["hosts"].names and warmed == []
    result = CliRunner().invoke(build_app(), ["serve", "--max-memory", "0.5"])
    assert result.exit_code == 0 and "warning" not in result.output
    assert warmed == [1 << 29]  # the default tables warmed at start, under the limit given


# ----------------------------------------------------------------------------- the pool


def stored_solve(calls: list, delay: float, goal: int | None = None):
    """``onedie_pig.solve`` behind a solution store (a dict, as the cache keeps a table once
    solved), counting the solves and taking ``delay`` seconds longer (for rules of that ``goal``
    only, if given); without the server's one solve per table, two requests both find the store
    empty and both solve."""
    real, store = onedie_pig.solve, {}

    def solve(rules, *, dtype="float64", device=None, tol=None):
        if (rules, dtype) not in store:
            calls.append(rules)
            time.sleep(delay if goal in (None, rules.goal) else 0.0)
            store[(rules, dtype)] = real(rules, dtype=dtype, device=device, tol=tol)
        return store[(rules, dtype)]

    return solve


def post_in_threads(server: Running, bodies: list[dict]) -> list[tuple[int, dict]]:
    out: list = [None] * len(bodies)

    def ask(i):
        out[i] = server.post(ADVISE, bodies[i])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join(60)
    return out


def test_two_tabs_asking_the_same_unsolved_rules_share_one_solve(running, monkeypatch):
    calls: list = []
    monkeypatch.setattr(onedie_pig, "solve", stored_solve(calls, 2.0))
    server = running(wait=0.0)
    same = {"rules": "d4-to-8", "overrides": {"goal": 9}, "options": {"mine": 1}}
    (c1, a1), (c2, a2) = post_in_threads(server, [same, same])
    assert c1 == c2 == 202 and a1["job"] == a2["job"]
    # another question on other unsolved rules, twice at once: two jobs, the second joined to the first's solve
    other = {"rules": "d4-to-8", "overrides": {"goal": 10}}
    (c3, a3), (c4, a4) = post_in_threads(server, [{**other, "options": {"mine": 1}}, {**other, "options": {"mine": 2}}])
    assert c3 == c4 == 202 and a3["job"] != a4["job"]
    first, second = (a3, a4) if a4["joined"] else (a4, a3)  # whichever the server had first
    assert second["joined"] == first["job"] and first["joined"] is None
    assert a4["about"] == a3["about"] == f"{onedie_pig.GAME.title}, rules d4-to-8+custom (float64)"
    answers = {}
    for jid in (a1["job"], a3["job"], a4["job"]):
        server.service.job(jid).future.result(timeout=60)
        code, answers[jid] = server.get(f"/api/jobs/{jid}")
        assert code == 200 and answers[jid]["options"]
    assert [r.goal for r in calls] == [9, 10]
    assert answers[a3["job"]]["value"] != answers[a4["job"]]["value"]


def test_a_cached_answer_while_a_slow_solve_runs(running, monkeypatch):
    calls: list = []
    monkeypatch.setattr(onedie_pig, "solve", stored_solve(calls, 5.0, goal=13))
    server = running(wait=60)
    cached = {"rules": "d4-to-8", "options": {"mine": 2}}
    code, answer = server.post(ADVISE, cached)  # solved now, then from the store
    assert code == 200 and len(calls) == 1
    monkeypatch.setattr(server.service, "wait", 0.0)
    code, slow = server.post(ADVISE, {"rules": "d6-to-12", "overrides": {"goal": 13}, "options": {"mine": 1}})
    assert code == 202
    monkeypatch.setattr(server.service, "wait", 60)
    deadline = time.monotonic() + 20
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(calls) == 2, "the slow solve has started"
    seconds = []
    for mine in range(5):
        t0 = time.perf_counter()
        code, answer = server.post(ADVISE, {**cached, "options": {"mine": mine}})
        seconds.append(time.perf_counter() - t0)
        assert code == 200 and answer["options"]
    assert not server.service.job(slow["job"]).future.done(), "the slow solve ended before the cached answers were timed"
    assert max(seconds) < 1.0, seconds
    assert len(calls) == 2
    server.service.job(slow["job"]).future.result(timeout=60)


def test_a_job_shows_the_progress_of_the_solve_s_bars(running, monkeypatch):
    layers = {k: 10 * (k + 1) for k in range(5)}
    real = onedie_pig.solve

    def solve(rules, **kw):
        with progress.layer_bars(layers, quiet=True) as advance:
            for k in reversed(range(5)):
                time.sleep(0.4)
                advance(k, layers[k])
        time.sleep(0.4)
        return real(rules, **kw)

    monkeypatch.setattr(onedie_pig, "solve", solve)
    server = running(wait=0.0)
    code, job = server.post(ADVISE, {"overrides": {"goal": 11}, "options": {"mine": 1}})
    assert code == 202 and job["progress"] is None
    seen = []
    while True:
        code, info = server.get(f"/api/jobs/{job['job']}")
        if code != 202:
            break
        if info["progress"] is not None:
            seen.append(info["progress"])
        time.sleep(0.1)
    assert code == 200 and info["options"]
    assert {p["total"] for p in seen} == {5}
    done = [p["done"] for p in seen]
    assert done == sorted(done) and done[-1] == 5 and len(set(done)) >= 3
    assert seen[-1]["label"] == "layer 0" and seen[-1]["eta_seconds"] == 0
    middle = next(p for p in seen if 0 < p["done"] < 5)
    assert middle["eta_seconds"] is not None and middle["eta_seconds"] > 0


def test_listening_hears_only_its_own_thread():
    heard = []

    def bars():
        with progress.layer_bars({"a": 2, "b": 3}, quiet=True, label="part") as advance:
            advance("a", 1)
            advance("a", 1)
            advance("b", 1)

    with progress.listening(lambda *a: heard.append(a)):
        bars()
        t = threading.Thread(target=bars)
        t.start()
        t.join()
    bars()
    assert heard == [("part a", 0, 2), ("part a", 1, 2), ("part b", 1, 2)]


@pytest.mark.parametrize("error, status, words", [(MemoryError, 507, "out of memory on this computer"), ("xla", 507, "out of memory on the device")])
def test_running_out_of_memory_is_one_message(running, monkeypatch, error, status, words):
    class XlaRuntimeError(RuntimeError):
        pass

    def solve(rules, **kw):
        if error == "xla":
            raise XlaRuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1099511627776 bytes.\nmore lines")
        raise MemoryError

    monkeypatch.setattr(onedie_pig, "solve", solve)
    server = running(wait=60)
    code, answer = server.post(ADVISE, {"options": {"mine": 1}})
    assert code == status and answer == {"error": f"{words}; try smaller rules"}


def test_the_moves_of_one_game_run_one_after_the_other(running, monkeypatch):
    """Moves sent at once from many threads: none starts while another changes the game (each
    move made slow here), each applied to the state the one before left."""
    busy, overlaps = [0], []

    def slow(method):
        def run(self, *args, **kwargs):
            busy[0] += 1
            overlaps.append(busy[0] > 1)
            time.sleep(0.05)
            try:
                return method(self, *args, **kwargs)
            finally:
                busy[0] -= 1

        return run

    for name in ("throw", "choose"):
        monkeypatch.setattr(onedie_pig.OneDiePigGame, name, slow(getattr(onedie_pig.OneDiePigGame, name)))
    server = running(wait=60)
    code, s = server.post(f"/api/games/{PIG}/play", {"rules": "d6-to-12", "overrides": {"goal": 40}, "settings": {"seed": 3}})
    assert code == 200
    n, pid = 16, s["id"]
    out: list = [None] * n
    barrier = threading.Barrier(n)

    def move(i):
        barrier.wait()
        out[i] = server.post(f"/api/play/{pid}/move", {"throw": None} if i % 2 else {"choice": "best"})

    threads = [threading.Thread(target=move, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    done = [a["moves"] for code, a in out if code == 200]
    assert all(code in (200, 400) for code, _ in out) and len(done) >= 2
    assert len(overlaps) >= n and not any(overlaps)
    assert len(set(done)) == len(done)
    code, final = server.get(f"/api/play/{pid}")
    assert code == 200 and final["moves"] == max(done)


def test_jobs_waiting_for_a_solve_hold_no_thread_and_a_failed_solve_lets_the_next_try():
    from jaxsolve.web.jobs import Jobs

    jobs = Jobs(workers=2)
    release, started = threading.Event(), []
    try:

        def solve(name, fail=False):
            def run():
                started.append(name)
                release.wait(10)
                if fail:
                    raise MemoryError
                return name

            return run

        first = jobs.submit("first", solve("first", fail=True), key="k")
        waiting = [jobs.submit(f"w{i}", solve(f"w{i}"), key="k") for i in range(3)]
        other = jobs.submit("other", lambda: "other")  # gets the second thread: the three wait on no thread
        assert other.future.result(timeout=10) == "other"
        assert started == ["first"] and all(w.joined is first and w.info()["joined"] == first.id for w in waiting)
        release.set()
        assert isinstance(first.future.exception(timeout=10), MemoryError)
        assert [w.future.result(timeout=10) for w in waiting] == ["w0", "w1", "w2"]
        # the failed solve left the table unsolved: the next waiting job solved it, the others found it
        assert started[:2] == ["first", "w0"] and sorted(started[2:]) == ["w1", "w2"]
        again = jobs.submit("again", lambda: "again", key="k")  # the key is solved: no waiting from now on
        assert again.future.result(timeout=10) == "again" and again.joined is None
    finally:
        release.set()
        jobs.close()
