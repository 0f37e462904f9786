"""The page's server within bounds: one table per rule set for the advisor and play (each solved
once), the tables kept in memory under ``max_memory`` (least recently used first, a game in play
on a dropped table put away), a job nobody polls cancelled, the default tables warmed at start
with their progress, and inputs Python cannot read answered with one line and a 4xx."""

from __future__ import annotations

import time
import urllib.request

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("uvicorn", reason="the page needs starlette and uvicorn (pip install -e .)")

import onedie_pig  # noqa: E402
from web_helpers import Running, registered, table_game  # noqa: E402

from jaxsolve import games  # noqa: E402
from jaxsolve.io import cache  # noqa: E402
from jaxsolve.web.api import Service  # noqa: E402

TABLE = table_game()
PIG = onedie_pig.GAME.name
BIG = "9" * 5001


@pytest.fixture
def start(tmp_path):
    """``start(**service_options)``: a server over an empty cache folder (stopped after)."""
    servers: list[Running] = []

    def make(**kwargs) -> Running:
        servers.append(Running(Service(cache_dir=tmp_path, **kwargs)))
        return servers[-1]

    games.register(onedie_pig.GAME)
    try:
        with registered(TABLE):
            yield make
    finally:
        for s in servers:
            s.stop()
        games.unregister(PIG)
        cache.configure(None)


@pytest.fixture
def solves(monkeypatch):
    """Every solve the solution store makes, as (game, rules name, dtype)."""
    seen: list = []
    real = cache._solving

    def counted(game, rules, dtype, solve, seconds=None):
        seen.append((game, rules.name, dtype))
        return real(game, rules, dtype, solve, seconds)

    monkeypatch.setattr(cache, "_solving", counted)
    return seen


def test_play_and_the_advisor_read_one_table_solved_once(start, solves, tmp_path):
    """A game in play and an advisor question under the same rules share the advisor's float64
    table: one solve, one file in the cache folder (the command line's), in either order."""
    server = start(wait=300)
    rules = {"rules": "table-mini", "overrides": {"extra_bonus": 7}}  # rules no other test solves
    status, game = server.post("/api/games/kniffel-table/play", {**rules, "settings": {"seed": 3}})
    assert status == 200, game
    status, advice = server.post("/api/games/kniffel-table/advise", {**rules, "options": {"dice": "1 2 3"}})
    assert status == 200 and advice["options"], advice
    assert solves == [("kniffel-table", "table-mini+custom", "float64")]
    files = [e for e in cache.entries("kniffel-table")]
    assert [(e.rules, e.dtype) for e in files] == [("table-mini+custom", "float64")]
    assert cache.root() == tmp_path
    # the key the play job is ordered by is the advisor's: a second tab joins the same solve
    service = server.service
    assert service.order("play", "kniffel-table", rules)["key"] == service.order("advise", "kniffel-table", rules)["key"]
    assert service.order("play", "kniffel-table", rules)["key"][2] == "float64"


def test_tables_in_memory_stay_under_the_limit_and_a_game_on_a_dropped_one_is_put_away(start):
    server = start(wait=300, max_memory=1)  # one table at a time: each new one lets the one before go
    first, second = ({"rules": "table-mini", "overrides": {"extra_bonus": bonus}} for bonus in (8, 9))
    status, game = server.post("/api/games/kniffel-table/play", {**first, "settings": {"seed": 1}})
    assert status == 200, game
    status, again = server.get(f"/api/play/{game['id']}")
    assert status == 200 and server.service.memory()["tables"] == 1
    status, advice = server.post("/api/games/kniffel-table/advise", {**second, "options": {"dice": "1 2 3"}})
    assert status == 200, advice
    use = server.service.memory()
    assert use["tables"] == 1 and use["games_in_play"] == 0, use
    status, gone = server.get(f"/api/play/{game['id']}")
    assert status == 410 and set(gone) == {"error"} and "--max-memory" in gone["error"], gone
    status, gone = server.post(f"/api/play/{game['id']}/move", {"throw": None})
    assert status == 410, gone
    status, warming = server.get("/api/warming")
    assert status == 200 and warming["memory"]["tables"] == 1 and warming["memory"]["max_bytes"] == 1
    # a table let go takes the index arrays kept per rules with it (about 1 GB for Maxi Yatzy)
    from jaxsolve.games.category.engine import tables

    tables.layer_states(games.get_game("kniffel-table").get_rules(), 0)
    assert tables.layer_states.cache_info().currsize > 0
    cache.forget()
    assert tables.layer_states.cache_info().currsize == 0


def test_a_score_distribution_needing_more_memory_than_the_limit_is_one_line(start):
    """The distribution's working memory is held within ``max_memory`` (Maxi Yatzy's would take
    tens of GB): past it the answer is one line and a 4xx, and the server answers on."""
    server = start(wait=300, max_memory=1 << 20)
    status, game = server.post("/api/games/kniffel-table/play", {"rules": "table-mini", "settings": {"seed": 2}})
    assert status == 200, game
    status, answer = server.get(f"/api/play/{game['id']}/distribution")
    assert status == 400 and set(answer) == {"error"} and "\n" not in answer["error"] and "serve --max-memory" in answer["error"], answer
    status, again = server.get(f"/api/play/{game['id']}")
    assert status == 200
    assert server.service.order("distribution", game["id"], None)["serial"] == "score distribution"  # one at a time


def test_games_in_play_on_one_table_share_its_derived_values(start):
    """Raab's games hold the mid-turn values of their table (tens of MB for the full duel): one
    copy per table, however many games are in play on it."""
    server = start(wait=300)
    ids = []
    for seed in (1, 2, 3):
        status, game = server.post("/api/games/raab/play", {"rules": "piglet", "settings": {"seed": seed}})
        assert status == 200, game
        ids.append(game["id"])
    first, *others = (server.service.played(pid).solution for pid in ids)
    assert all(other is first for other in others)


def slow_solve(steps: list, seconds: float):
    """``onedie_pig.solve`` that first works for ``seconds`` in small Python steps (counted)."""
    real = onedie_pig.solve

    def solve(rules, **kw):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            steps.append(1)
            time.sleep(0.02)
        return real(rules, **kw)

    return solve


def test_a_job_nobody_polls_is_cancelled_and_a_polled_one_runs_on(start, monkeypatch):
    steps: list = []
    monkeypatch.setattr(onedie_pig, "solve", slow_solve(steps, 6.0))
    server = start(wait=0.0, abandon=1.0)
    status, left = server.post(f"/api/games/{PIG}/advise", {"rules": "d4-to-8", "overrides": {"goal": 9}, "options": {"mine": 1}})
    assert status == 202
    job = server.service.job(left["job"])  # (a look right after its submission)
    deadline = time.monotonic() + 5.0
    while not job.future.done() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert job.future.done(), "the unpolled job still runs"
    counted = len(steps)
    time.sleep(0.3)
    assert len(steps) == counted, "the solve went on after its job was cancelled"
    status, answer = server.get(f"/api/jobs/{left['job']}")
    assert status == 410 and set(answer) == {"error"} and "cancelled" in answer["error"], answer
    # a polled job of the same slow kind runs to its answer
    steps.clear()
    monkeypatch.setattr(onedie_pig, "solve", slow_solve(steps, 2.5))
    status, kept = server.post(f"/api/games/{PIG}/advise", {"rules": "d4-to-8", "overrides": {"goal": 10}, "options": {"mine": 1}})
    assert status == 202
    deadline = time.monotonic() + 60
    while status == 202 and time.monotonic() < deadline:
        time.sleep(0.3)
        status, answer = server.get(f"/api/jobs/{kept['job']}")
    assert status == 200 and answer["options"], answer


def test_a_solve_a_warming_job_waits_for_is_not_cancelled(start, monkeypatch):
    """A question's solve of a default table that nobody polls goes on while the warming at start
    waits for it (joined): the warming is never cancelled, nor what it waits for."""
    steps: list = []
    monkeypatch.setattr(onedie_pig, "solve", slow_solve(steps, 3.0))
    monkeypatch.setattr(games, "games", lambda: [onedie_pig.GAME])
    server = start(wait=0.0, abandon=0.5)
    status, asked = server.post(f"/api/games/{PIG}/advise", {"options": {"mine": 1}})  # the default rules, left unpolled
    assert status == 202
    job = server.service.job(asked["job"])
    while job.ran is None:
        time.sleep(0.02)
    (warm,) = server.service.warm_defaults()
    assert warm.joined is job
    assert job.future.result(timeout=60)["options"] and warm.future.result(timeout=60)["cached"]


def test_the_default_tables_are_warmed_at_start_with_their_progress(start, monkeypatch, solves):
    monkeypatch.setattr(games, "games", lambda: [onedie_pig.GAME])
    server = start(wait=60, abandon=0.5)
    jobs = server.service.warm_defaults()
    assert len(jobs) == 1
    deadline = time.monotonic() + 60
    status, warming = server.get("/api/warming")
    while warming["busy"] and time.monotonic() < deadline:
        time.sleep(0.1)
        status, warming = server.get("/api/warming")
    assert status == 200 and warming["ready"] == warming["total"] == 1, warming  # not cancelled although nobody polled it
    assert warming["tables"][0]["state"] == "ready" and warming["tables"][0]["rules"] == onedie_pig.GAME.default
    assert solves == [(PIG, onedie_pig.GAME.default, "float64")]
    status, status_of = server.post(f"/api/games/{PIG}/status", {})
    assert status == 200 and status_of["where"] == "memory"
    page = urllib.request.urlopen(server.url + "/", timeout=30).read().decode()
    script = urllib.request.urlopen(server.url + "/static/warming.js", timeout=30).read().decode()
    assert 'id="warming"' in page and "/static/warming.js" in page and "/api/warming" in script


@pytest.mark.parametrize(
    "options, words",
    [
        ({"dice": "1 2 3", "opponent": [f"aces=3 {BIG}"]}, "--opponent"),
        ({"dice": "1 2 3", "opponent": f"aces=3 {BIG}"}, "--opponent"),
        ({"dice": "1 2 3", "against": f"aces=3 {BIG}"}, "--against"),
        ({"dice": "1 2 3", "opponent": ["start 0"], "score": BIG}, "score must be a whole number of at most 30 digits, got one of 5,001 digits"),
    ],
)
def test_a_number_python_cannot_read_is_one_line_and_a_4xx(start, options, words):
    server = start(wait=120)
    status, answer = server.post("/api/games/kniffel-table/advise", {"rules": "table-mini", "options": options})
    assert 400 <= status < 500 and set(answer) == {"error"} and words in answer["error"], answer
    assert "\n" not in answer["error"] and "Traceback" not in answer["error"]


def test_an_opponent_given_as_text_is_one_opponent_or_several_separated_by_semicolons(start):
    server = start(wait=300)
    asked = {"rules": "table-mini", "options": {"dice": "1 2 3"}}
    answers = {}
    for name, given in (("text", "aces=3 5; start 0"), ("list", ["aces=3 5", "start 0"]), ("one", "aces=3 5")):
        status, answers[name] = server.post("/api/games/kniffel-table/advise", {**asked, "options": {**asked["options"], "opponent": given}})
        assert status == 200, answers[name]
    assert answers["text"]["data"]["opponents"] == answers["list"]["data"]["opponents"] == [{"position": "aces=3", "score": 5}, {"position": "start", "score": 0}]
    assert answers["one"]["data"]["opponents"] == [{"position": "aces=3", "score": 5}]
    assert answers["text"]["options"] == answers["list"]["options"]
