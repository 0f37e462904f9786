"""What the page's board is drawn from (``jaxsolve.web.api.Service``, no server): the dice shown
apart from the dice of the due throw, the board each registration names with a score sheet's
totals, the moves of the options and the log, and the players' words for the boxes."""

from __future__ import annotations


from jaxsolve import games


def test_the_catalog_names_each_games_board_and_players_name(service):
    found = {g["name"]: g for g in service.catalog()}
    for g in games.games():
        assert found[g.name]["board"] == g.board and found[g.name]["display_name"] == (g.display_name or g.name)
    assert {found[n]["board"] for n in ("kniffel", "yatzy", "maxi")} == {"sheet"}
    assert found["raab"]["board"] == found["zehntausend-duel"]["board"] == "race" and found["zehntausend"]["board"] == "turns"
    sheet = found["kniffel"]["tables"]["yahtzee"]
    assert sheet["dice"] == 5 and sheet["throws"] == 3
    assert [b["face"] for b in sheet["boxes"][:6]] == [1, 2, 3, 4, 5, 6] and not any(b["upper"] for b in sheet["boxes"][6:])


def test_a_zehntausend_throw_due_says_how_many_dice_apart_from_the_dice_shown(service):
    s = service.new_game_call("zehntausend", {"rules": "peter-2013", "settings": {"seed": 6, "turns": 1}})()
    assert s["awaiting"] == "dice" and s["dice"] is None and s["throw_count"] == 6
    s = service.move_call(s["id"], {"throw": "1 2 2 3 4 6"})()
    assert s["awaiting"] == "choice" and s["dice"] == [1, 2, 2, 3, 4, 6] and s["throw_count"] is None
    assert {(o["move"]["action"], tuple(o["move"].get("set_aside", ())), o.get("next_dice")) for o in s["options"]} == {("aside", ("1",), 5), ("write", (), None)}
    assert s["board"] == {"kind": "turns", "turn": 1, "turns": 1, "total": 0, "turn_total": 0}
    s = service.move_call(s["id"], {"choice": next(o["rank"] for o in s["options"] if o["move"]["action"] == "aside")})()
    assert s["awaiting"] == "dice" and s["dice"] is None and s["throw_count"] == 5 and s["board"]["turn_total"] == 100
    assert [(m["action"], m["by"]) for m in s["log"]] == [("throw", "you"), ("aside", "you")]


def test_a_race_board_has_both_scores_the_turn_total_and_the_die_shown(service):
    s = service.new_game_call("raab", {"rules": "pig", "settings": {"seed": 3}})()
    assert s["board"] == {"kind": "race", "you": 0, "them": 0, "turn_total": 0, "mover": "you", "you_started": True, "goal": 100, "last": False, "winner": None}
    assert s["throw_count"] == 1 and s["dice"] is None
    s = service.move_call(s["id"], {"throw": "5"})()
    assert s["dice"] == [5] and s["board"]["turn_total"] == 5  # the die of a one-die race is the last throw's
    assert {o["move"]["action"] for o in s["options"]} == {"roll", "stop"}
    s = service.move_call(s["id"], {"choice": "stop"})()
    assert (s["board"]["you"], s["board"]["mover"], s["mover"]) == (5, "them", "them")


def test_the_sheet_adds_up_and_options_carry_their_moves(service):
    s = service.new_game_call("kniffel", {"rules": "yahtzee", "settings": {"seed": 4}})()
    for _ in range(12):  # a few turns with the best moves
        s = service.move_call(s["id"], {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})()
    b = s["board"]
    filled = [r["score"] for r in b["rows"] if r["score"] is not None]
    assert filled
    upper = sum(r["score"] or 0 for r in b["rows"] if r["upper"])
    assert b["upper_total"] == upper and b["lower_total"] == sum(filled) - upper
    assert b["total"] == sum(filled) + b["upper_bonus"] + b["other_bonus"]
    if s["awaiting"] == "dice":
        s = service.move_call(s["id"], {"throw": None})()
    for o in s["options"]:
        m = o["move"]
        assert m["action"] in ("keep", "fill")
        if m["action"] == "fill":
            assert o["option"] == f"fill {m['box']} ({o['points']})"
        else:
            assert o["next_dice"] == 5 - len(m["keep"])
    assert s["log"][-1]["action"] == "throw" and s["log"][-1]["dice"] == s["dice"]


def test_the_players_words_for_the_boxes():
    kniffel = games.get_game("kniffel")
    yahtzee = kniffel.words(kniffel.get_rules("yahtzee"))
    assert yahtzee["en"]["kniffel"] == "Yahtzee" and yahtzee["en"]["three_kind"] == "Three of a kind" and yahtzee["en"]["full_house"] == "Full house"
    assert kniffel.words(kniffel.get_rules("kniffel"))["en"]["kniffel"] == "Kniffel"
    de = yahtzee["de"]
    assert [de[b] for b in ("three_kind", "four_kind", "full_house", "small_straight", "large_straight", "kniffel", "chance")] == [
        "Dreierpasch", "Viererpasch", "Full House", "Kleine Straße", "Große Straße", "Kniffel", "Chance"]
    for name in ("yatzy", "maxi"):
        g = games.get_game(name)
        for preset in g.presets():
            rules = g.get_rules(preset)
            assert set(g.words(rules)["en"]) == {b.name for b in rules.boxes}
            assert all("_" not in w for w in g.words(rules)["en"].values())


def test_the_log_carries_the_points_each_move_wrote(service):
    """A box's points on the mover's sheet, a stop's or a write's points banked, by you and by the computer."""
    s = service.new_game_call("raab", {"rules": "pig", "settings": {"seed": 5}})()
    for _ in range(3000):
        if s["over"]:
            break
        s = service.move_call(s["id"], {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})()
    assert s["over"]
    for who in ("you", "them"):
        stops = [m for m in s["log"] if m["action"] == "stop" and m["by"] == who]
        assert stops and all(m["points"] > 0 for m in stops)
        assert sum(m["points"] for m in stops) == s["board"][who]
    assert all("points" not in m for m in s["log"] if m["action"] in ("throw", "roll"))
    s = service.new_game_call("maxi", {"rules": "maxi-reduced-4-dice", "settings": {"seed": 2}})()
    for _ in range(12):
        s = service.move_call(s["id"], {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})()
    fills = [m for m in s["log"] if m["action"] == "fill"]
    assert fills and {m["box"]: m["points"] for m in fills} == {r["box"]: r["score"] for r in s["board"]["rows"] if r["score"] is not None}


def test_a_review_numbers_the_decisions_and_says_where_each_was(service):
    s = service.new_game_call("zehntausend", {"rules": "peter-2013", "settings": {"seed": 6, "turns": 1}})()
    while not s["over"]:
        s = service.move_call(s["id"], {"throw": None} if s["awaiting"] == "dice" else {"choice": "best"})()
    r = service.review_call(s["id"])()
    assert [d["decision"] for d in r["decisions"]] == list(range(1, r["count"] + 1))
    assert [d["move"] for d in r["decisions"]] == [m["number"] for m in s["log"] if "regret" in m]
    first = r["decisions"][0]["at"]
    assert first["turn"] == 1 and first["turn_total"] == 0 and first["dice"] == s["log"][0]["dice"]
    assert r["from_start"] is True and r["unit"] == "points"
