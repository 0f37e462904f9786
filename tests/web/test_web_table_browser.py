"""A race at a table of three in a real browser (headless Chromium): the board shows every seat's
banked score, whose turn it is and yours, and advances after a move; the other players' moves
are in the log under their seats with their points; the advisor takes every player's score
in turn order and draws the seats of its answer; the line about a position's cycle in English
and German. Tiny rules (three-player Pig to 20) so that each test takes seconds."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("selenium", reason="the browser tests need selenium (pip install -e .[test])")

from web_helpers import CHROMIUM, DRIVER, axe_script, serving  # noqa: E402

from jaxsolve.core.race_table import cycle_note  # noqa: E402
from jaxsolve.web.api import Service, note_parts  # noqa: E402

if CHROMIUM is None or DRIVER is None:
    pytest.skip("no Chromium and chromedriver on this machine (Debian: apt-get install chromium chromium-driver)", allow_module_level=True)

GAME = "/?game=pig-table&rules=small-3&mode=play&seed=5&seat=2"
"""Seat 1 (a computer player) throws first and busts; then you throw a 5 with the virtual dice."""


@pytest.fixture(scope="module")
def server():
    with serving(Service()) as running:
        yield running




def seats(page) -> list[dict]:
    """The board's seats as shown: number, banked score, marks, name and the turn line."""
    return page.js(
        "return [...document.querySelectorAll('#seats .seat')].map(e => ({seat: Number(e.dataset.seat), score: Number(e.querySelector('.score').textContent),"
        " moving: e.classList.contains('moving'), current: e.getAttribute('aria-current') === 'true', you: e.classList.contains('you'),"
        " name: e.querySelector('.name').textContent, turn: e.querySelector('.turn-line').textContent, visible: e.offsetParent !== null}))"
    )


def log(page) -> list[tuple[str, str, str]]:
    return [tuple(x) for x in page.js("return [...document.querySelectorAll('#log li')].map(li => [li.dataset.seat || '', li.dataset.action, li.textContent.trim()])")]


def test_three_banked_scores_whose_turn_and_the_board_advances_after_a_move(page):
    page.play(GAME + "&lang=en")
    shown = seats(page)
    assert [s["seat"] for s in shown] == [1, 2, 3] and [s["score"] for s in shown] == [0, 0, 0] and all(s["visible"] for s in shown)
    assert [s["you"] for s in shown] == [False, True, False] and [s["name"] for s in shown] == ["Player 1", "You", "Player 3"]
    assert [s["moving"] for s in shown] == [s["current"] for s in shown] == [False, True, False]  # your turn: your seat highlighted
    assert page.by_id("play-stage").text.startswith("Your turn")
    assert log(page)[0][:2] == ("1", "throw") and log(page)[-1][2].endswith("bust")  # seat 1 threw first, and busted
    page.click_and_wait("throw")
    shown = seats(page)
    assert shown[1]["moving"] and shown[1]["turn"] == "this turn: 5" and [s["score"] for s in shown] == [0, 0, 0]
    page.click_and_wait("stop")  # bank the 5: the move passes to seat 3, then seat 1, then back to you
    shown = seats(page)
    assert shown[1]["score"] == 5
    entries = log(page)
    assert [e[2].split(" −")[0] for e in entries if e[:2] == ("2", "bank")] == ["You stopped and banked 5"]  # with its loss (banking 5 here is no best move)
    after = entries[[e[1] for e in entries].index("bank") + 1:]
    assert after and after[0][0] == "3" and after[0][2].startswith("Player 3 threw")  # the next seat's turn followed in the log
    feed = page.js("return [...document.querySelectorAll('#feed-list li')].map(li => [li.dataset.seat, li.textContent.trim()])")
    assert page.by_id("feed-head").text == "The other players' turns" and feed and feed[0][0] == "3" and feed[0][1].startswith("Player 3 threw")
    assert [seat for seat, _ in feed] == [e[0] for e in after]  # the feed: every move of the other seats since yours
    if page.play_state()[2] != "over":
        assert [s["moving"] for s in shown] == [False, True, False]
    for seat, _, text in entries:  # each move under its seat's name
        assert text.startswith("You" if seat == "2" else f"Player {seat}")
    for k in (1, 3):  # each computer player's banked points in the log add up to his score
        banked = sum(int(m.group(1)) for s, a, text in entries if s == str(k) and (m := re.search(r"banked (\d+)", text)))
        assert banked == shown[k - 1]["score"] or page.play_state()[2] == "over"
    assert page.console_errors() == []


def test_the_game_ends_with_the_winner_marked(page):
    page.play(GAME + "&lang=en")
    page.play_to_the_end()
    shown = page.js("return [...document.querySelectorAll('#seats .seat')].map(e => [e.classList.contains('winner'), e.classList.contains('moving'), Number(e.dataset.score)])")
    winners = [i for i, (won, _, _) in enumerate(shown, 1) if won]
    assert len(winners) == 1 and shown[winners[0] - 1][2] >= 20 and not any(moving for _, moving, _ in shown)
    page.until(lambda d: page.by_id("final").text)
    assert re.match(r"(You won|Player [13] won): Player 1 \d+, you \d+, Player 3 \d+ — your win probability at the start \(everyone", page.by_id("final").text)


def test_the_german_board_and_log(page):
    page.play(GAME + "&lang=de")
    shown = seats(page)
    assert [s["name"] for s in shown] == ["Spieler 1", "Du", "Spieler 3"] and shown[1]["moving"]
    assert page.by_id("play-stage").text.startswith("Du bist dran")
    assert "am Zug" in page.js("return document.querySelector('#seats .seat.moving .turn-tag').textContent")
    assert "Siegchance" in page.js("return document.querySelector('#seats .seat .win-line').textContent")
    assert log(page)[0][2].startswith("Spieler 1 wirft")
    note = {"text": "this position's cycle has 2 pure equilibria: ...", "pure": 2}  # the board's note, as the server sends it where the cycle has one
    shown_note = page.js("const s = structuredClone(state.play); s.board.note = arguments[0]; drawSeats(s); return document.querySelector('#seats .cycle-note').textContent", note)
    assert shown_note.startswith("Der Zyklus dieser Stellung hat 2 reine Gleichgewichte")
    assert not page.js("drawSeats(state.play); return !!document.querySelector('#seats .cycle-note')")
    page.click_and_wait("throw")
    page.click_and_wait("stop")
    assert [e[2].split(" −")[0] for e in log(page) if e[:2] == ("2", "bank")] == ["Du hörst auf und schreibst 5 Punkte auf"]
    assert not [e for e in log(page) if re.search(r"Spieler \d (wirfst|hörst|würfelst weiter)\b", e[2])]
    assert page.console_errors() == []


def test_the_quiz_hides_the_seats_win_probabilities(page):
    page.play(GAME.replace("mode=play", "mode=quiz") + "&lang=en")
    assert len(seats(page)) == 3 and not page.js("return document.querySelectorAll('#seats .win-line').length")


def test_the_advisor_takes_every_score_in_turn_order_and_draws_the_seats(page):
    page.open(path="/?game=pig-table&rules=small-3&mode=advise&lang=en")
    labels = page.js("return [...document.querySelectorAll('#adv-seats label span')].map(e => e.textContent)")
    assert labels == ["You (to move)", "Player +1", "Player +2"]
    for k, v in enumerate(("3", "7", "12"), 1):
        page.type(f"seat-score-{k}", v)
    assert page.by_id("adv-scores").get_attribute("value") == "3,7,12"
    page.type("adv-turn", "4")
    rows = page.ask()
    shown = page.js("return [...document.querySelectorAll('#advice-seats .seat')].map(e => [Number(e.dataset.score), e.classList.contains('moving'), Number(e.querySelector('.win-line').dataset.win)])")
    assert [s[0] for s in shown] == [3, 7, 12] and [s[1] for s in shown] == [True, False, False]
    assert shown[0][2] == pytest.approx(rows[0]["value"]) and sum(s[2] for s in shown) == pytest.approx(1.0)
    assert page.js("return document.querySelector('#advice-seats .seat.moving .turn-line').textContent") == "this turn: 4"
    page.type("adv-scores", "1,2,3")  # the typed field fills the seats' inputs
    assert [page.by_id(f"seat-score-{k}").get_attribute("value") for k in (1, 2, 3)] == ["1", "2", "3"]
    page.js("document.getElementById('rules-more').open = true")
    page.type("rule-players", "4")  # four players: four inputs
    assert len(page.js("return [...document.querySelectorAll('#adv-seats input')]")) == 4
    assert page.console_errors() == []


def test_the_cycles_line_in_english_and_german(page):
    page.open(path="/?game=pig-table&rules=small-3&mode=advise&lang=en")
    unsettled = [
        {"scores": [34, 57, 64], "selected": "mixed", "pure": 0, "mixer": [0, 1], "q": [0.2549, 0.1997], "members": [0]},
        {"scores": [800, 450, 1200], "selected": "mixed", "pure": 0, "mixer": [0], "q": [0.908], "members": [0]},
        {"scores": [7, 7, 0], "selected": "pure", "pure": 2, "mixer": [], "q": [], "members": [0]},
    ]
    lines = {}
    for lang in ("en", "de"):
        page.js("state.lang = arguments[0]", lang)
        lines[lang] = [page.js("return noteWords(arguments[0])", note_parts(cycle_note(scores, unsettled, step))) for scores, step in (((34, 57, 64), 1), ((16, 9, 24), 50), ((7, 0, 7), 1))]
    assert lines["en"] == [
        "This position's cycle has no pure equilibrium: the values are a stationary mixed one, in which the movers at 34 and 57 play their lower-risk policies "
        "with probabilities 0.2549 and 0.1997 respectively (the others play pure).",
        "This position's cycle has no pure equilibrium: the values are a stationary mixed one, in which the mover at 800 plays his lower-risk policy "
        "with probability 0.9080 (the others play pure).",
        "This position's cycle has 2 pure equilibria: the values are the selected one (the largest sum of the movers' own win probabilities).",
    ]
    assert lines["de"] == [
        "Der Zyklus dieser Stellung hat kein reines Gleichgewicht: die Werte sind ein stationäres gemischtes, in dem die Spieler am Zug mit 34 und 57 Punkten "
        "ihre risikoärmere Strategie mit Wahrscheinlichkeit 0,2549 bzw. 0,1997 spielen (die anderen spielen rein).",
        "Der Zyklus dieser Stellung hat kein reines Gleichgewicht: die Werte sind ein stationäres gemischtes, in dem der Spieler am Zug mit 800 Punkten "
        "seine risikoärmere Strategie mit Wahrscheinlichkeit 0,9080 spielt (die anderen spielen rein).",
        "Der Zyklus dieser Stellung hat 2 reine Gleichgewichte: die Werte sind das ausgewählte (das mit der größten Summe der eigenen "
        "Gewinnwahrscheinlichkeiten der Spieler am Zug).",
    ]


def test_on_a_phone_the_seats_fit_the_screen(page):
    page.open(width=390, height=844, path=GAME + "&lang=de")
    page.until(lambda d: page.play_state()[2] in ("dice", "choice"))
    wide = page.js("return [document.documentElement.scrollWidth, ...[...document.querySelectorAll('#seats .seat')].map(e => e.getBoundingClientRect().right)]")
    assert wide[0] <= 390 and max(wide[1:]) <= 390, wide
    assert page.js("return document.getElementById('seats').getBoundingClientRect().top") < page.js("return document.getElementById('actions').getBoundingClientRect().top") < 844


def test_the_table_board_passes_axe(page):
    script = axe_script()
    if script is None:
        pytest.skip("axe-core is not installed (npm install --prefix ~/.cache/jaxsolve/axe axe-core)")
    page.play(GAME + "&lang=en")
    page.click_and_wait("throw")
    assert page.axe(script) == []
    page.open(path="/?game=pig-table&rules=small-3&mode=advise&lang=en")
    page.type("seat-score-1", "3")
    page.ask()
    assert page.axe(script) == []
