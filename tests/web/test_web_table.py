"""What the page draws a race at a table of N players from (``jaxsolve.web.api.Service``, no
server): every seat's banked score and win probability, whose turn and yours, the turn total,
the seat of each move in the log with its busts and the points a bank or a write added, the
advisor's seats, and the line about a position's cycle in parts the page words in English and
German."""

from __future__ import annotations

import pytest

from jaxsolve.core.race_table import cycle_note
from jaxsolve.web.api import note_parts


def _check_log(s):
    """The log's seats, busts and banked points agree with the board."""
    b = s["board"]
    banked = [0] * len(b["seats"])
    for i, m in enumerate(s["log"]):
        assert m["seat"] in range(1, len(b["seats"]) + 1)
        assert (m["by"] == "you") == (m["seat"] == b["you"]), m
        if m["action"] in ("bank", "write"):
            banked[m["seat"] - 1] += m["points"]
        if m["action"] == "throw" and i + 1 < len(s["log"]):
            assert m["bust"] == (s["log"][i + 1]["seat"] != m["seat"]), (i, m)
    if not s["over"]:
        assert banked == [x["score"] for x in b["seats"]]
    else:  # the winning throw or write put the rest on the board
        assert all(x <= y["score"] for x, y in zip(banked, b["seats"]))


def test_a_pig_table_board_has_every_seat_whose_turn_and_yours(service):
    s = service.new_game_call("pig-table", {"rules": "small-3", "settings": {"seed": 5, "seat": 2}})()
    b = s["board"]
    assert b["kind"] == "table" and b["you"] == 2 and b["mover"] == 2 and b["goal"] == 20 and b["winner"] is None
    assert [x["seat"] for x in b["seats"]] == [1, 2, 3] and [x["score"] for x in b["seats"]] == [0, 0, 0]
    assert sum(x["win"] for x in b["seats"]) == pytest.approx(1.0, abs=1e-9)
    assert s["mover"] == "you" and s["awaiting"] == "dice"
    assert s["log"] and {m["seat"] for m in s["log"]} == {1} and s["log"][-1]["action"] == "throw" and s["log"][-1]["bust"]  # seat 1 went first and busted
    s = service.move_call(s["id"], {"throw": "5"})()
    assert s["board"]["turn_total"] == 5 and s["board"]["mover"] == 2 and {o["move"]["action"] for o in s["options"]} == {"roll", "bank"}
    s = service.move_call(s["id"], {"choice": "bank"})()
    b = s["board"]
    assert b["seats"][1]["score"] == 5
    bank = next(m for m in s["log"] if m["action"] == "bank")
    assert (bank["by"], bank["seat"], bank["points"], bank["label"]) == ("you", 2, 5, "bank 5")
    assert {m["seat"] for m in s["log"] if m["by"] == "them"} >= {1, 3} or s["over"]  # seat 3 played after you
    _check_log(s)
    for _ in range(200):  # to the end with the best moves
        if s["over"]:
            break
        s = service.move_call(s["id"], {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})()
        _check_log(s)
    assert s["over"] and s["board"]["winner"] in (1, 2, 3) and s["board"]["seats"][s["board"]["winner"] - 1]["score"] >= 20


def test_a_zehntausend_table_board_has_the_points_set_aside(service):
    s = service.new_game_call("zehntausend-table", {"rules": "small-3", "settings": {"seed": 8, "seat": 1}})()
    assert s["board"]["kind"] == "table" and s["board"]["mover"] == 1 and s["board"]["you"] == 1 and s["board"]["goal"] == 500
    s = service.move_call(s["id"], {"throw": "1 1 2 3 4 6"})()
    aside = next(o for o in s["options"] if o["move"]["action"] == "aside" and o["move"]["set_aside"] == ["1", "1"])
    s = service.move_call(s["id"], {"choice": aside["rank"]})()
    assert s["board"]["turn_total"] == 200 and s["board"]["mover"] == 1
    for _ in range(40):
        if s["over"] or s["awaiting"] == "choice" and any(o["move"]["action"] == "write" for o in s["options"]):
            break
        s = service.move_call(s["id"], {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})()
    _check_log(s)


def test_the_advisor_answers_every_seat_and_the_cycles_note_in_parts(service):
    a = service.advise_call("pig-table", {"rules": "small-3", "options": {"scores": "3,7,12", "turn": 4}})()
    d = a["data"]
    assert d["scores"] == [3, 7, 12] and d["seats"] == ["you", "player +1", "player +2"] and d["turn"] == 4
    assert a["options"][0]["win"][0] == pytest.approx(a["value"]) and sum(a["options"][0]["win"]) == pytest.approx(1.0)
    assert (d["note_parts"] is None) if d["note"] is None else (d["note_parts"]["text"] == d["note"])
    found = {g["name"]: g for g in service.catalog()}
    assert found["pig-table"]["tables"]["pig-4"]["players"] == 4 and found["pig-table"]["tables"]["pig-4"]["goal"] == 50
    assert found["zehntausend-table"]["tables"]["small-3"]["players"] == 3 and found["kniffel"]["tables"]["yahtzee"]["players"] is None


def test_the_cycles_line_in_parts():
    unsettled = [
        {"scores": [34, 57, 64], "selected": "mixed", "pure": 0, "mixer": [0, 1], "q": [0.2549, 0.1997], "members": [0]},
        {"scores": [450, 1200, 800], "selected": "mixed", "pure": 0, "mixer": [2], "q": [0.908], "members": [0]},
        {"scores": [7, 7, 0], "selected": "pure", "pure": 2, "mixer": [], "q": [], "members": [0]},
    ]
    mixed = note_parts(cycle_note((57, 64, 34), unsettled, 1))  # a rotation of the cycle's first member
    assert mixed is not None and mixed["mixers"] == [34, 57] and mixed["q"] == [0.2549, 0.1997] and "pure" not in mixed
    one = note_parts(cycle_note((9, 24, 16), unsettled, 50))
    assert one is not None and one["mixers"] == [800] and one["q"] == [0.908]
    pure = note_parts(cycle_note((0, 7, 7), unsettled, 1))
    assert pure is not None and pure["pure"] == 2 and "mixers" not in pure
    assert note_parts(cycle_note((1, 2, 3), unsettled, 1)) is None
    assert note_parts("a line of another kind") == {"text": "a line of another kind"}  # shown as it is


def test_the_board_has_the_note_where_the_position_lies_on_an_unsettled_cycle(service):
    from dataclasses import replace

    s = service.new_game_call("pig-table", {"rules": "small-3", "settings": {"seed": 3, "seat": 2}})()
    s = service.move_call(s["id"], {"throw": "6"})()
    s = service.move_call(s["id"], {"choice": "bank"})()  # the others go for 20 and bust: your turn at 0, 6, 0
    assert [x["score"] for x in s["board"]["seats"]] == [0, 6, 0] and s["board"]["mover"] == 2 and s["board"]["note"] is None
    p = service.played(s["id"])
    seen = [p.state.scores[(p.state.mover + k) % 3] for k in range(3)]  # mover first
    cycle = {"scores": seen[1:] + seen[:1], "selected": "mixed", "pure": 0, "mixer": [2], "q": [0.25], "members": [0]}  # a rotation: its member 2 is the mover
    p.solution = replace(p.solution, unsettled=[cycle])
    note = service.play_state(s["id"])["board"]["note"]
    assert note is not None and note["mixers"] == [seen[0]] and note["q"] == [0.25] and note["text"].startswith("this position's cycle has no pure equilibrium")
    p.solution = replace(p.solution, unsettled=[{**cycle, "selected": "pure", "pure": 3, "mixer": [], "q": []}])
    assert service.play_state(s["id"])["board"]["note"]["pure"] == 3
