"""The page's game against computer opponents: the opponents' sheets in the play state and the
win-probability answer (``GET /api/play/{id}/win``), a job of its own beside the moves."""

import pytest
from web_helpers import get_answered as get, post_answered as post, registered, serving, table_game

from jaxsolve.games.category.objectives import winning
from jaxsolve.web.api import Service

GAME = table_game()


@pytest.fixture(scope="module")
def site():
    with registered(GAME), serving(Service(wait=5)) as running:
        yield running



def test_opponents_sheets_and_the_win_probability_of_a_decision(site):
    status, s = post(site, "/api/games/kniffel-table/play", {"rules": "table-mini", "settings": {"seed": 9, "opponents": 2}})
    assert status == 200, s
    assert [p["name"] for p in s["board"]["players"]] == ["opponent 1", "opponent 2"] and s["win"] is None
    assert all(v is None for p in s["board"]["players"] for v in p["scores"])
    status, s = post(site, f"/api/play/{s['id']}/move", {"throw": None})
    assert status == 200 and s["awaiting"] == "choice"
    status, w = get(site, f"/api/play/{s['id']}/win")
    assert status == 200 and w["available"] and w["moves"] == s["moves"], w
    assert set(w["options"]) == {o["option"] for o in s["options"]}
    assert all(0.0 <= o["win"] <= 1.0 and o["loss"] >= 0.0 for o in w["options"].values())
    # the same answer as advise_win asked directly (the game is the server's own object)
    p = site.service.played(s["id"])
    st = p.state
    direct = winning.advise_win(p.rules, st.position, st.dice, st.throws_left, [winning.Opponent(o.position, o.score) for o in st.others], score=p.score, method="exact")
    assert {o.label: o.value for o in direct.options} == pytest.approx({k: v["win"] for k, v in w["options"].items()}, abs=1e-12)
    # the state now carries it; a move that is not the best to win reports its loss
    status, again = get(site, f"/api/play/{s['id']}")
    assert again["win"]["best"] == w["best"]
    worst = max(s["options"], key=lambda o: w["options"][o["option"]]["loss"])
    status, after = post(site, f"/api/play/{s['id']}/move", {"choice": worst["rank"]})
    assert status == 200
    last = after["last"]
    assert last["chosen"] == worst["option"] and last["win_regret"] == pytest.approx(w["options"][worst["option"]]["loss"], abs=1e-15)
    if after["awaiting"] == "dice":  # a fill: both opponents played their turns
        assert [sum(v is not None for v in p["scores"]) for p in after["board"]["players"]] == [1, 1]
        assert {m.get("player") for m in after["log"] if m["by"] == "them"} == {1, 2}


def test_bad_opponent_counts_and_a_game_without_them(site):
    status, data = post(site, "/api/games/kniffel-table/play", {"rules": "table-mini", "settings": {"opponents": 5}})
    assert status == 400 and data["error"] == "opponents must be between 0 and 4, got 5"
    status, s = post(site, "/api/games/kniffel-table/play", {"rules": "table-mini", "settings": {"seed": 1}})
    assert status == 200 and s["board"]["players"] == [] and s["win"] is None
    status, w = get(site, f"/api/play/{s['id']}/win")
    assert status == 200 and not w["available"]
    status, data = get(site, "/api/play/nope/win")
    assert status == 404
