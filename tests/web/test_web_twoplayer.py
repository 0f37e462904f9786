"""The page's game against the two-player optimal opponent (``settings.against = "optimal"``):
his sheet beside yours, his turns in the log, your P(win) beside the options (``GET
/api/play/{id}/win``, the two-player table's answer) and its loss on a move, an end game from
filled sheets (``settings.start``), one clear error where the game is too large to solve."""

import pytest
from web_helpers import get_answered as get, post_answered as post, registered, serving, yacht_small_game

from jaxsolve.games.category.objectives.twoplayer import advice as twoplayer_advice
from jaxsolve.web.api import Service

GAME = yacht_small_game()
START = "ones=1 twos=4 threes=6 fours=8 fives=10 sixes=12 full_house=- / ones=2 twos=2 threes=9 fours=4 fives=5 sixes=12 full_house=-"


@pytest.fixture(scope="module")
def site():
    with registered(GAME), serving(Service(wait=5)) as running:
        yield running



def test_the_game_against_the_optimal_player(site):
    status, games = site.get("/api/games")
    small = next(g for g in games if g["name"] == "yacht-small")
    assert {"against", "start", "they_start", "ties"} <= {p["name"] for p in small["play"]}
    status, s = post(site, "/api/games/yacht-small/play", {"rules": "small", "settings": {"seed": 3, "against": "optimal", "start": START}})
    assert status == 200, s
    assert [p["name"] for p in s["board"]["players"]] == ["opponent 1"] and s["board"]["players"][0]["total"] == 34
    status, s = post(site, f"/api/play/{s['id']}/move", {"throw": None})
    assert status == 200 and s["awaiting"] == "choice"
    status, w = get(site, f"/api/play/{s['id']}/win")
    assert status == 200 and w["available"] and w["method"].startswith("two-player") and w["moves"] == s["moves"], w
    assert set(w["options"]) == {o["option"] for o in s["options"]}
    p = site.service.played(s["id"])
    st = p.state
    value, options = twoplayer_advice.option_values(p.two_player, st.position.state(p.rules), st.others[0].position.state(p.rules), p.score - st.others[0].score, st.dice, st.throws_left)
    assert {o.label: o.value for o in options} == pytest.approx({k: v["win"] for k, v in w["options"].items()}, abs=1e-12)
    assert w["value"] == pytest.approx(value, abs=1e-12)
    worst = max(s["options"], key=lambda o: w["options"][o["option"]]["loss"])
    status, s = post(site, f"/api/play/{s['id']}/move", {"choice": worst["rank"]})
    assert status == 200 and s["last"]["win_regret"] == pytest.approx(w["options"][worst["option"]]["loss"], abs=1e-12)
    for _ in range(60):
        if s["over"]:
            break
        status, s = post(site, f"/api/play/{s['id']}/move", {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})
        assert status == 200, s
    assert s["over"] and any(m["by"] == "them" and m["action"] == "fill" for m in s["log"])
    assert any("against the optimal player" in line for line in s["summary"]["lines"])


def test_a_game_too_large_to_solve_is_one_clear_error(site):
    status, data = post(site, "/api/games/yacht-small/play", {"rules": "small", "settings": {"seed": 1, "against": "optimal"}})
    assert status == 400 and "twoplayer-table yacht-small" in data["error"] and "--start" in data["error"], data
    status, data = post(site, "/api/games/yacht-small/play", {"rules": "small", "settings": {"against": "optimal", "start": "ones=1 / start"}})
    assert status == 400 and "as many boxes filled" in data["error"]


def test_the_advisor_against_the_optimal_player(site):
    """The page's advisor takes ``against`` (and ``i_started``) as ``advise --against`` does."""
    sheet = "ones=1 twos=4 threes=6 fours=8 fives=10 sixes=12 full_house=-"
    options = {"position": sheet, "dice": "3 3 5", "throws_left": 1, "against": f"{sheet} choice=12 56", "i_started": False}
    status, got = post(site, "/api/games/yacht-small/advise", {"rules": "small", "options": options})
    assert status == 200, got
    assert got["unit"] == "P(win)" and got["data"]["lead"] == -15 and got["data"]["expected_move"] in [o["option"] for o in got["options"]]
    assert any("both playing to win" in line for line in got["heading"])


def test_an_end_games_review_compares_with_the_end_games_own_value(site):
    """Optimal play's expectation from the starting sheets, not the whole game's from the empty sheet."""
    from jaxsolve.games.category.sheets.position import parse_position

    status, s = post(site, "/api/games/yacht-small/play", {"rules": "small", "settings": {"seed": 5, "against": "optimal", "start": START}})
    assert status == 200, s
    for _ in range(60):
        if s["over"]:
            break
        status, s = post(site, f"/api/play/{s['id']}/move", {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})
        assert status == 200, s
    p = site.service.played(s["id"])
    mine = parse_position(START.split("/")[0].strip(), p.rules)
    want = mine.total + p.solution.value(*mine.state(p.rules))
    status, r = get(site, f"/api/play/{s['id']}/review")
    assert status == 200 and r["from_start"] is False
    assert r["expected"] == pytest.approx(want, abs=1e-9) and abs(r["expected"] - p.solution.game_value) > 1
    assert [d["decision"] for d in r["decisions"]] == list(range(1, r["count"] + 1))
