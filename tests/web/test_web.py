"""The page's JSON API (``jaxsolve serve``) over HTTP: the registry, advice as ``jaxsolve advise``
gives it, bulk values, play with undo and review, jobs for long work, and one clear message
with a 4xx status for every bad request (the server answering on afterwards)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("uvicorn", reason="the page needs starlette and uvicorn (pip install -e .)")

import onedie_pig  # noqa: E402
from typer.testing import CliRunner  # noqa: E402
from web_helpers import Running, serving  # noqa: E402

from jaxsolve import games  # noqa: E402
from jaxsolve.web.api import Service  # noqa: E402

PIG = onedie_pig.GAME.name


@pytest.fixture(scope="module")
def server():
    with serving(Service(wait=60)) as running:
        yield running


def cli_advice(args: list[str]) -> dict:
    from jaxsolve.cli import build_app

    result = CliRunner().invoke(build_app(), ["advise", *args, "--json", "-q"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_catalog_is_the_registry(server):
    status, found = server.get("/api/games")
    assert status == 200
    assert [g["name"] for g in found] == [g.name for g in games.games()]
    pig = next(g for g in found if g["name"] == PIG)
    assert pig["presets"] == ["d4-to-8", "d6-to-12"]
    assert [p["name"] for p in pig["advise"]["options"]] == ["mine", "theirs", "turn"]
    assert [p["name"] for p in pig["rules_options"]] == ["goal", "sides"]
    assert pig["play"][0]["name"] == "seed"


def test_advice_of_a_test_game_equals_the_command_line(server):
    status, got = server.post(f"/api/games/{PIG}/advise", {"rules": "d6-to-12", "options": {"mine": 3, "theirs": 5, "turn": 4}})
    assert status == 200
    want = cli_advice([PIG, "--rules", "d6-to-12", "--mine", "3", "--theirs", "5", "--turn", "4"])
    assert got["game"] == PIG and got["ruleset"] == "d6-to-12"
    assert [o["option"] for o in got["options"]] == [o["option"] for o in want["options"]]
    for a, b in zip(got["options"], want["options"]):
        assert a["value"] == pytest.approx(b["value"], abs=1e-12)
        assert a["regret"] == pytest.approx(b["regret"], abs=1e-12)
    assert got["options"][0]["best"] and not got["options"][0]["tie"]


def test_ties_with_the_best_are_marked(server):
    """``best``: the first option and every option within 1e-9 (relative) of it; ``tie``: those after the first."""
    status, got = server.post(f"/api/games/{PIG}/advise", {"rules": "d4-to-8", "options": {"mine": 0, "theirs": 0, "turn": 0}})
    assert status == 200
    best = got["options"][0]["value"]
    for o in got["options"]:
        assert o["best"] == (abs(o["regret"]) <= 1e-9 * max(1.0, abs(best)))


@pytest.mark.parametrize(
    "path, body, status, words",
    [
        ("/api/games/nope/advise", {}, 404, "unknown game 'nope'"),
        (f"/api/games/{PIG}/advise", {"rules": "d7"}, 400, "unknown rules 'd7'"),
        (f"/api/games/{PIG}/advise", {"overrides": {"goal": 1}}, 400, "goal must be between 2 and 60, got 1"),
        (f"/api/games/{PIG}/advise", {"options": {"mine": "x"}}, 400, "mine must be a whole number"),
        (f"/api/games/{PIG}/advise", {"options": {"mine": 9}}, 400, ""),
        (f"/api/games/{PIG}/advise", {"options": {"dice": "1 2"}}, 400, "unknown advisor options: dice"),
        (f"/api/games/{PIG}/advise", {"sheet": 1}, 400, "unknown field(s) sheet"),
        (f"/api/games/{PIG}/advise", [1, 2], 400, "must be a JSON object"),
        (f"/api/games/{PIG}/values", {"questions": []}, 400, "non-empty list"),
        ("/api/play/g999/move", {"choice": 1}, 404, "no game 'g999'"),
        ("/api/jobs/j999", None, 404, "no job 'j999'"),
        ("/api/nothing", None, 404, "nothing at /api/nothing"),
    ],
)
def test_bad_requests_get_one_message(server, path, body, status, words):
    code, answer = server.post(path, body) if body is not None else server.get(path)
    assert code == status
    assert set(answer) == {"error"} and words in answer["error"]
    assert "\n" not in answer["error"] and "Traceback" not in answer["error"]


def test_malformed_json_and_the_server_answers_on(server):
    code, answer = server.post(f"/api/games/{PIG}/advise", raw=b'{"options": {"mine": ')
    assert code == 400 and answer["error"].startswith("malformed JSON")
    code, answer = server.post(f"/api/games/{PIG}/advise", {"options": {"mine": 1}})
    assert code == 200 and answer["options"]


def test_values_in_bulk_equal_single_answers(server):
    questions = [{"mine": m, "theirs": t, "turn": 0} for m in range(0, 8, 3) for t in range(0, 8, 2)] + [{"mine": 99}]
    code, bulk = server.post(f"/api/games/{PIG}/values", {"rules": "d4-to-8", "questions": questions})
    assert code == 200 and len(bulk["answers"]) == len(questions)
    assert "error" in bulk["answers"][-1]
    for q, a in zip(questions[:-1], bulk["answers"]):
        _, one = server.post(f"/api/games/{PIG}/advise", {"rules": "d4-to-8", "options": q})
        assert a["value"] == one["value"] and a["options"] == one["options"]


def test_play_undo_and_review(server):
    code, s = server.post(f"/api/games/{PIG}/play", {"rules": "d4-to-8", "settings": {"seed": 5}})
    assert code == 200 and s["game"] == PIG and s["seed"] == 5
    pid, moves = s["id"], 0
    code, again = server.post(f"/api/games/{PIG}/play", {"rules": "d4-to-8", "settings": {"seed": 5}})
    assert again["id"] != pid
    while not s["over"] and moves < 400:
        if s["awaiting"] == "dice":
            code, s = server.post(f"/api/play/{pid}/move", {"throw": None})
        else:
            before, worst = s, s["options"][-1]
            code, s = server.post(f"/api/play/{pid}/move", {"choice": worst["rank"]})
            assert s["last"]["chosen"] == worst["option"] and s["last"]["regret"] == pytest.approx(worst["regret"], abs=1e-15)
            assert s["last"]["fresh"] and s["last"]["optimal"] == worst["best"]
            if not worst["best"]:
                code, undone = server.post(f"/api/play/{pid}/undo")
                assert undone["decisions"] == before["decisions"] and undone["options"] == before["options"] and undone["moves"] == before["moves"]
                code, s = server.post(f"/api/play/{pid}/move", {"choice": "best"})
                assert s["last"]["optimal"] and s["last"]["regret"] == 0
        assert code == 200
        moves += 1
    code, review = server.get(f"/api/play/{pid}/review")
    assert code == 200 and review["over"] and review["count"] == s["decisions"]
    assert review["loss"] == pytest.approx(sum(d["regret"] for d in review["decisions"]))
    assert review["mean_loss"] == pytest.approx(review["loss"] / max(review["count"], 1))
    code, answer = server.post(f"/api/play/{pid}/move", {"throw": None})
    assert code == 400 and answer["error"] == "the game is over"


def test_a_long_request_becomes_a_job_to_poll(server):
    running = Running(Service(wait=0.0))
    try:
        code, job = running.post(f"/api/games/{PIG}/advise", {"rules": "d6-to-12", "overrides": {"goal": 14}, "options": {"mine": 1}})
        assert code == 202 and job["pending"] and job["what"] == f"advise {PIG}"
        running.service.job(job["job"]).future.result(timeout=120)
        code, answer = running.get(f"/api/jobs/{job['job']}")
        assert code == 200 and answer["game"] == PIG and answer["ruleset"] == onedie_pig.GAME.build_rules("d6-to-12", goal=14).name
    finally:
        running.stop()


def test_serve_refuses_a_port_in_use_with_one_line():
    import socket

    from jaxsolve.cli import build_app

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(build_app(), ["serve", "--port", str(port)])
    assert result.exit_code == 1
    assert f"error: cannot listen on 127.0.0.1:{port}" in result.output


def _raw_http(server, head: bytes, body_parts=(), read_first: bool = False) -> tuple[int, dict]:
    """Send a request by hand (headers, then body parts) and read the answer's status and JSON."""
    import socket
    from urllib.parse import urlparse

    url = urlparse(server.url)
    with socket.create_connection((url.hostname, url.port), timeout=60) as sock:
        sock.sendall(head)
        try:
            for part in body_parts:
                sock.sendall(part)
        except OSError:  # the server answered and closed before the whole body was sent
            pass
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                head_end = data.index(b"\r\n\r\n")
                headers = data[:head_end].decode("latin-1").lower()
                length = next((int(h.split(":")[1]) for h in headers.split("\r\n") if h.startswith("content-length:")), None)
                if length is not None and len(data) >= head_end + 4 + length:
                    break
    status = int(data.split(b" ", 2)[1])
    return status, json.loads(data[data.index(b"\r\n\r\n") + 4:])


def test_a_large_body_is_refused_before_it_is_read(server):
    path = f"/api/games/{PIG}/advise"
    # a Content-Length above the limit: 413 at once, nothing of the 300 MiB sent
    head = f"POST {path} HTTP/1.1\r\nHost: {server.url.removeprefix('http://')}\r\nContent-Type: application/json\r\nContent-Length: {300 << 20}\r\n\r\n".encode()
    status, answer = _raw_http(server, head, [b'{"options": '])
    assert status == 413 and answer == {"error": "the request body is larger than 1024 KiB"}
    # a chunked stream without a length: refused as soon as it passes the limit
    head = f"POST {path} HTTP/1.1\r\nHost: {server.url.removeprefix('http://')}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
    chunk = b" " * (256 << 10)
    status, answer = _raw_http(server, head, [b"%x\r\n%s\r\n" % (len(chunk), chunk)] * 6)
    assert status == 413 and "larger than" in answer["error"]
    # one byte over the limit, announced: 413 (sent by hand: the server may close before the
    # client has written the whole body, which a plain HTTP client reports as a broken pipe)
    head = f"POST {path} HTTP/1.1\r\nHost: {server.url.removeprefix('http://')}\r\nContent-Type: application/json\r\nContent-Length: {(1 << 20) + 1}\r\n\r\n".encode()
    status, answer = _raw_http(server, head, [b" " * ((1 << 20) + 1)])
    assert status == 413
    code, answer = server.post(path, {"options": {"mine": 1}})
    assert code == 200 and answer["options"]


@pytest.mark.parametrize(
    "raw, status, words",
    [
        (b"[" * 100_000 + b"]" * 100_000, 400, "nested more than 32 levels deep"),
        (b'{"options": ' + b"[" * 500 + b"]" * 500 + b"}", 400, "nested more than 32 levels deep"),
        (b'{"options": {"mine": ' + b"9" * 5000 + b"}}", 400, "malformed JSON"),
        (b'{"overrides": {"goal": 1e23}}', 400, "goal must be between"),
        (b'{"overrides": {"goal": 100000000000000000000000}}', 400, "goal must be between"),
        (b'{"options": {"mine": 1e23}}', 400, "mine must be between"),
        (b'{"options": {"mine": 1e400}}', 400, "mine must be"),
    ],
)
def test_hostile_bodies_get_one_message_and_the_server_answers_on(server, raw, status, words):
    code, answer = server.post(f"/api/games/{PIG}/advise", raw=raw)
    assert code == status and set(answer) == {"error"} and words in answer["error"], answer
    code, answer = server.post(f"/api/games/{PIG}/advise", {"options": {"mine": 1}})
    assert code == 200 and answer["options"]


@pytest.mark.parametrize(
    "game, overrides, words",
    [
        ("zehntausend", {"straight": 1e23}, "straight must be between 0 and 10,000"),
        ("zehntausend", {"six_of_a_kind": 1_000_000_000}, "six of a kind must be between 0 and 10,000"),
        ("zehntausend-duel", {"end": "last-turn", "bound": 20_000_000}, "bound 20000000 is too large"),
        ("zehntausend-duel", {"goal": 1e23}, "goal must be between"),
    ],
)
def test_rules_overrides_beyond_the_rules_limits_are_refused(server, game, overrides, words):
    code, answer = server.post(f"/api/games/{game}/advise", {"overrides": overrides})
    assert code == 400 and set(answer) == {"error"} and words in answer["error"], answer


@pytest.mark.parametrize(
    "game, options, words",
    [
        ("zehntausend", {"points": 50, "dice": "155222"}, "turn points 50 with 6 dice thrown cannot occur"),
        ("zehntausend-duel", {"mine": 0, "theirs": 0, "turn": 0, "dice": "155"}, "a turn total of 0 with 3 dice thrown cannot occur"),
    ],
)
def test_positions_no_turn_reaches_are_refused_as_on_the_command_line(server, game, options, words):
    code, answer = server.post(f"/api/games/{game}/advise", {"rules": "small" if game == "zehntausend-duel" else None, "options": options})
    assert code == 400 and set(answer) == {"error"} and answer["error"].startswith(words), answer


def test_status_says_an_unsolved_table_and_warm_solves_it_once(tmp_path):
    """The page asks whether the chosen rules are solved (with the registered estimate of the
    solve's seconds when not), can have them solved ahead, and then hears they are kept."""
    running = Running(Service(wait=60, cache_dir=tmp_path))
    try:
        body = {"rules": "piglet"}
        status, before = running.post("/api/games/raab/status", body)
        assert status == 200 and before["cached"] is False and before["where"] is None
        assert before["estimate_seconds"] == games.get_game("raab").solve_seconds["piglet"]
        status, warmed = running.post("/api/games/raab/warm", body)
        assert status == 200 and warmed["cached"] is True and warmed["rules"] == "piglet", warmed
        status, after = running.post("/api/games/raab/status", body)
        assert status == 200 and after["cached"] is True and after["where"] in ("memory", "disk")
        assert any(p.suffix == ".npy" for p in (tmp_path / "tables" / "raab").iterdir())  # kept on disk too
        status, err = running.post("/api/games/raab/status", {"rules": "nope"})
        assert status == 400 and "unknown rules 'nope'" in err["error"]
    finally:
        running.stop()
