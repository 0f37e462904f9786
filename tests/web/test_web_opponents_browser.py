"""A game against two computer opponents on the page, in headless Chromium: their sheets beside
yours, their turns told step by step, your win probability beside the expected points, the
address keeping the count (``&opponents=2``), no console error, and axe-core's check of the
screen. Skipped, saying so, where there is no Chromium."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("selenium", reason="the browser tests need selenium (pip install -e .[test])")

from web_helpers import CHROMIUM, DRIVER, Page, axe_script, browsing, registered, serving, table_game  # noqa: E402

from jaxsolve.web.api import Service  # noqa: E402

if CHROMIUM is None or DRIVER is None:
    pytest.skip("no Chromium and chromedriver on this machine (Debian: apt-get install chromium chromium-driver)", allow_module_level=True)

GAME = table_game()


@pytest.mark.slow
def test_a_game_against_two_computer_opponents_on_the_page():
    with registered(GAME), serving(Service()) as site, browsing(1280, 900) as driver:
        page = Page(driver, site.url)
        page.play("/?game=kniffel-table&rules=table-mini&mode=play&seed=4&opponents=2&speed=fast")
        assert "opponents=2" in page.js("return location.search")
        assert page.js("return document.getElementById('set-opponents').value") == "2"
        assert page.js("return document.getElementById('sheet').dataset.players") == "2"
        heads = page.js("return [...document.querySelectorAll('#sheet table:first-child thead th')].map(e => e.textContent)")
        assert heads == ["You", "C1Computer 1", "C2Computer 2"]
        page.click_and_wait("throw")
        # the win probability follows the board as a job of its own
        page.until(lambda d: page.js("return document.querySelectorAll('#play-table tbody tr[data-win]').length > 0") or page.error())
        assert page.error() == ""
        rows = page.js("return [...document.querySelectorAll('#play-table tbody tr')].map(r => [r.dataset.option, Number(r.dataset.win), Number(r.dataset.winLoss)])")
        assert all(0.0 <= w <= 1.0 and loss >= 0.0 for _, w, loss in rows)
        assert page.js("return !document.getElementById('win-head').hidden && document.querySelectorAll('#play-table .tag.win').length === 1")
        assert page.by_id("win-note").text.startswith("your win probability now: ")
        violations = page.axe(axe_script()) if axe_script() is not None else []
        assert violations == [], violations
        # your move, then both computers' turns told one step after another in the feed and the live region
        for _ in range(6):  # to the end of your turn (a box filled)
            if page.js("return document.querySelectorAll('#feed-list li').length > 0"):
                break
            page.click_and_wait("throw" if page.play_state()[2] == "dice" else "best")
        said = re.compile(r"Computer 2 (wrote \d+ in|crossed out) ")  # the box and its points
        page.until(lambda d: said.search(page.js("return document.getElementById('live').textContent")))  # said once all is shown
        feed = page.js("return [...document.querySelectorAll('#feed-list li')].map(e => [e.dataset.player, e.dataset.action, e.textContent])")
        assert feed[0][:2] == ["1", "throw"] and feed[-1][:2] == ["2", "fill"] and said.match(feed[-1][2])
        assert [f[0] for f in feed] == sorted(f[0] for f in feed) and {f[1] for f in feed} <= {"throw", "keep", "fill"}
        filled = page.js("return [...document.querySelectorAll('#sheet td.other')].filter(e => /\\d/.test(e.textContent)).length")
        assert filled >= 2 * 3  # each computer's box and his totals
        if page.by_id("feedback").get_attribute("data-win-regret") is not None:
            assert "win probability lost" in page.by_id("feedback").text
        violations = page.axe(axe_script()) if axe_script() is not None else []
        assert violations == [], violations
        page.play_to_the_end()
        page.until(lambda d: page.js("return !!document.getElementById('review').dataset.meanLoss"))
        assert "Standings: 1. " in page.by_id("final").text
        assert page.console_errors() == []
        # the phone width: the sheets in one column, no horizontal scrolling
        page.play("/?game=kniffel-table&rules=table-mini&mode=play&seed=4&opponents=2")
        page.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        wide, seen = page.js("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert wide <= seen
        assert page.console_errors() == []
