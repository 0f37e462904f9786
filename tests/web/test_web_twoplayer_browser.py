"""The game against the two-player optimal player on the page, in headless Chromium: one
computer sheet beside yours (the opponents' choice fixed at one), the address keeping
``&against=optimal``, your win probability beside the moves from the first throw on (the model
named), his turns in the feed, the end with the standings; no console error, axe-core's check.
Skipped, saying so, where there is no Chromium."""

from __future__ import annotations

import re

from urllib.parse import quote

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("selenium", reason="the browser tests need selenium (pip install -e .[test])")

from web_helpers import CHROMIUM, DRIVER, Page, axe_script, browsing, registered, serving, yacht_small_game  # noqa: E402

from jaxsolve.web.api import Service  # noqa: E402

if CHROMIUM is None or DRIVER is None:
    pytest.skip("no Chromium and chromedriver on this machine (Debian: apt-get install chromium chromium-driver)", allow_module_level=True)

GAME = yacht_small_game()
START = "ones=1 twos=4 threes=6 fours=8 fives=10 sixes=12 full_house=- / ones=2 twos=2 threes=9 fours=4 fives=5 sixes=12 full_house=-"


@pytest.mark.slow
def test_a_game_against_the_optimal_player_on_the_page():
    with registered(GAME), serving(Service()) as site, browsing(1280, 900) as driver:
        page = Page(driver, site.url)
        page.play(f"/?game=yacht-small&rules=small&mode=play&seed=3&against=optimal&speed=fast&start={quote(START)}")
        assert "against=optimal" in page.js("return location.search")
        assert page.js("return [document.getElementById('set-against').value, document.getElementById('set-opponents').disabled]") == ["optimal", True]
        assert page.js("return document.getElementById('sheet').dataset.players") == "1"
        page.click_and_wait("throw")
        page.until(lambda d: page.js("return document.querySelectorAll('#play-table tbody tr[data-win]').length > 0") or page.error())
        assert page.error() == ""
        rows = page.js("return [...document.querySelectorAll('#play-table tbody tr')].map(r => [Number(r.dataset.win), Number(r.dataset.winLoss)])")
        assert all(0.0 <= w <= 1.0 and loss >= 0.0 for w, loss in rows) and min(loss for _, loss in rows) == 0.0
        assert "against the optimal player" in page.by_id("win-note").text
        violations = page.axe(axe_script()) if axe_script() is not None else []
        assert violations == [], violations
        for _ in range(6):  # to the end of your turn: his turn follows in the feed
            if page.js("return document.querySelectorAll('#feed-list li').length > 0"):
                break
            page.click_and_wait("throw" if page.play_state()[2] == "dice" else "best")
        page.until(lambda d: re.search(r"Computer 1 (wrote \d+ in|crossed out) ", page.js("return document.getElementById('live').textContent")))
        feed = page.js("return [...document.querySelectorAll('#feed-list li')].map(e => e.dataset.action)")
        assert feed[0] == "throw" and feed[-1] == "fill"
        page.play_to_the_end()
        page.until(lambda d: page.js("return !!document.getElementById('review').dataset.meanLoss"))
        assert "Standings: 1. " in page.by_id("final").text
        assert page.console_errors() == []
