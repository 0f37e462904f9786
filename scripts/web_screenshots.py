"""Regenerate the page's screenshots in docs/ (headless Chromium at 1280x900 and 390x844).

    python scripts/web_screenshots.py [--out docs] [--only NAME]

Starts the page server in this process (the solution cache as ``jaxsolve serve`` uses it),
opens each board from its address (``/?game=...&rules=...&mode=...&seed=...``), plays a few
moves with the page's own buttons and writes ``web-<name>-desktop.png`` and
``web-<name>-phone.png`` (the desktop advisor: ``web-advisor.png``, as the README shows it). Needs Chromium, chromedriver and selenium.
"""

from __future__ import annotations

import argparse
import shutil
import threading
import time
from pathlib import Path
from urllib.parse import quote

OPTIMAL_START = (
    "ones=3 twos=6 threes=9 fours=12 fives=15 sixes=18 full_house=20 four_of_a_kind=24 little_straight=30"
    " / ones=2 twos=6 threes=6 fours=16 fives=10 sixes=24 full_house=- four_of_a_kind=20 little_straight=30"
)
"""The end game played against the two-player optimal player (``optimal``): three boxes open on each sheet."""
YAHTZEE_END = (
    "aces=2 twos=6 threes=9 fours=12 fives=15 sixes=18 three_kind=24 four_kind=- small_straight=30 large_straight=40 chance=22"
    " / aces=3 twos=4 threes=9 fours=8 fives=15 sixes=18 three_kind=21 full_house=25 chance=23 large_straight=40 yahtzee=-"
)
"""A Yahtzee end game against the optimal player (``optimal-yahtzee``): two boxes open on each sheet,
answered from the stored end-game set where one is stored (``twoplayer-table kniffel --rules yahtzee --open 2``)."""
SIZES = {"desktop": (1280, 900, False), "phone": (390, 844, True)}


def serve():
    from jaxsolve.web.api import Service
    from jaxsolve.web.server import build_app, make_server

    service = Service(wait=60)
    server, sock = make_server(build_app(service), "127.0.0.1", 0)
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, service, f"http://127.0.0.1:{sock.getsockname()[1]}"


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome") or ""
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--lang=en"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=DriverService(executable_path=shutil.which("chromedriver")))


def wait(driver, check, timeout=300):
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: check(d))


def ready(driver):
    return driver.execute_script(
        "return document.body.dataset.ready === '1' && document.getElementById('progress').hidden"
        " && (document.getElementById('play').hidden || !document.getElementById('game-view').hidden)"
    )


def moves(driver) -> int:
    return int(driver.execute_script("return Number(document.getElementById('game-view').dataset.moves || -1)"))


def click(driver, element_id, settle=True):
    before = moves(driver)
    driver.execute_script(f"document.getElementById('{element_id}').click()")
    if settle:
        wait(driver, lambda d: moves(d) != before or not d.execute_script("return document.getElementById('error').hidden"))
        time.sleep(0.15)


def has(driver, element_id) -> bool:
    return bool(driver.execute_script(f"const e = document.getElementById('{element_id}'); return !!e && !e.disabled && e.offsetParent !== null"))


def sheet_game(driver):
    """Two turns with the best moves, then dice thrown and two held by click."""
    for _ in range(40):
        if driver.execute_script("return [...document.querySelectorAll('#sheet tr[data-box] td')].filter(e => /\\d/.test(e.textContent) && !e.querySelector('button')).length") >= 2 and has(driver, "best"):
            break
        click(driver, "throw" if has(driver, "throw") and not has(driver, "best") else "best")
    driver.execute_script("document.querySelectorAll('#dice button.die')[1].click(); document.querySelectorAll('#dice button.die')[2].click()")


def one_move(driver) -> bool:
    """The next move of a race on the board: the other players' turns, the best move or a
    throw; False when none is offered."""
    if has(driver, "their-turn"):
        click(driver, "their-turn")
        wait(driver, lambda d: not has(d, "their-turn") or d.execute_script("return document.getElementById('game-view').dataset.awaiting === 'over'"))
    elif has(driver, "best"):
        click(driver, "best")
    elif has(driver, "throw"):
        click(driver, "throw")
    else:
        return False
    return True


def race_game(driver):
    """Moves until both sides have banked points or a few turns went by."""
    for _ in range(60):
        b = driver.execute_script("const r = document.querySelectorAll('#race .score'); return [...r].map(e => Number(e.textContent))")
        if len(b) == 2 and b[0] > 0 and b[1] > 0 and has(driver, "best"):
            break
        if not one_move(driver):
            break


def seats_game(driver):
    """A race at a table: moves until every seat has banked points and your decision is due
    with points this turn, the other players' turns in the log."""
    for _ in range(200):
        banked = driver.execute_script("return [...document.querySelectorAll('#seats .seat')].map(e => Number(e.dataset.score))")
        turn = driver.execute_script("const e = document.querySelector('#seats .seat.moving .turn-line strong'); return e ? Number(e.textContent) : 0")
        if banked and min(banked) > 0 and turn >= 8 and has(driver, "best") and has(driver, "stop"):
            break
        if not one_move(driver):
            break
    # the seats at the top on a phone, the game's settings row above them on a desktop
    driver.execute_script("const e = document.getElementById(window.innerWidth < 760 ? 'seats' : 'play'); window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 8)")


def quiz(driver):
    """A throw, then the last move listed (the advice shows only after it)."""
    click(driver, "throw")
    driver.execute_script("const b = document.querySelectorAll('#play-table button.opt'); b[b.length - 1].click()")
    time.sleep(0.8)


def review(driver):
    """A whole game, the best move but at every fifth decision the second one listed, then the
    review with the line that says where the score stands among optimally played games."""
    for k in range(400):
        if driver.execute_script("return document.getElementById('game-view').dataset.awaiting") == "over":
            break
        if has(driver, "throw") and not has(driver, "best"):
            click(driver, "throw")
        elif k % 5 == 4 and driver.execute_script("return document.querySelectorAll('#play-table button.opt').length > 1"):
            before = moves(driver)
            driver.execute_script("document.querySelectorAll('#play-table button.opt')[1].click()")
            wait(driver, lambda d, before=before: moves(d) != before)
        else:
            click(driver, "best")
    wait(driver, lambda d: d.execute_script("return !!document.getElementById('review').dataset.meanLoss"))
    wait(driver, lambda d: d.execute_script("return !!document.getElementById('percentile-line') || !document.getElementById('percentile').textContent"))
    driver.execute_script("document.getElementById('review').scrollIntoView({block: 'start'})")


def table_game(driver):
    """Turns with the best moves until your win probability stands beside the moves (reduced
    Maxi Yatzy: from 7 open boxes on; against the optimal player: at once), the computers' turns
    in the feed."""
    for _ in range(80):
        if has(driver, "throw") and not has(driver, "best"):
            click(driver, "throw")
            wait(driver, lambda d: d.execute_script("const n = document.getElementById('win-note'); return n.hidden || n.getAttribute('aria-busy') !== 'true'"))
            if driver.execute_script("return document.querySelectorAll('#play-table tr[data-win]').length > 0"):
                break
        else:
            click(driver, "best")
    driver.execute_script("window.scrollTo(0, document.getElementById('play-stage').getBoundingClientRect().top + window.scrollY - 8)")  # the dice, the sheets and the moves with P(win)


def optimal_game(driver):
    """Against the optimal player: your turn with the best moves, his turn told in the feed, then
    your next throw with your win probability beside the moves."""
    for _ in range(20):
        if driver.execute_script("return document.querySelectorAll('#feed-list li').length > 0") and has(driver, "throw"):
            break
        click(driver, "throw" if has(driver, "throw") and not has(driver, "best") else "best")
    time.sleep(1.5)  # the feed shown step by step
    click(driver, "throw")
    wait(driver, lambda d: d.execute_script("return document.querySelectorAll('#play-table tr[data-win]').length > 0"))
    driver.execute_script("window.scrollTo(0, document.getElementById('play-stage').getBoundingClientRect().top + window.scrollY - 8)")


SHOTS = {
    "first": ("/", None),
    "sheet": ("/?game=kniffel&rules=yahtzee&mode=play&seed=11", sheet_game),
    "race": ("/?game=raab&rules=pig&mode=play&seed=5", race_game),
    "duel": ("/?game=zehntausend-duel&rules=small&mode=play&seed=8", race_game),
    "zehntausend": ("/?game=zehntausend&rules=peter-2013&mode=play&seed=4&turns=3", lambda d: click(d, "throw")),
    "quiz": ("/?game=kniffel&rules=yahtzee&mode=quiz&seed=21", quiz),
    "review": ("/?game=maxi&rules=maxi-reduced-4-dice&mode=play&seed=2", review),
    "table": ("/?game=pig-table&rules=pig-3&mode=play&seed=19&seat=2", seats_game),
    "table-advisor": ("/?game=pig-table&rules=pig-3&mode=advise", None),
    "opponents": ("/?game=maxi&rules=maxi-reduced-4-dice&mode=play&seed=6&opponents=2&speed=fast", table_game),
    "advisor": ("/?game=kniffel&rules=kniffel&mode=advise&lang=de", None),
    "optimal": (f"/?game=yacht&rules=yacht&mode=play&seed=3&against=optimal&speed=fast&start={quote(OPTIMAL_START)}", optimal_game),
    "optimal-yahtzee": (f"/?game=kniffel&rules=yahtzee&mode=play&seed=2&against=optimal&speed=fast&start={quote(YAHTZEE_END)}", optimal_game),
}


def advisor(driver):
    """A Kniffel sheet and the dice 1 1 4 5 5 entered by clicks, then the ranking."""
    driver.execute_script(
        "const set = (id, v) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('change')); };"
        "set('box-aces', '3'); set('box-fours', '12'); set('box-kniffel', '50');"
        "[1, 1, 4, 5, 5].forEach((f, i) => { for (let k = 0; k < f; k++) document.querySelectorAll('#adv-dice-pick button.die')[i].click(); });"
        "document.getElementById('advise-go').click()"
    )
    wait(driver, lambda d: d.execute_script("return !document.getElementById('advice').hidden || !document.getElementById('error').hidden"))
    driver.execute_script("document.getElementById('advise').scrollIntoView({block: 'start'})")  # the board and the first moves


def table_advisor(driver):
    """Three-player Pig at 34, 57 and 64 (a cycle with only a mixed equilibrium) entered in the
    seats' inputs, 5 points this turn, then the ranking."""
    driver.execute_script(
        "const set = (id, v) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('input')); };"
        "set('seat-score-1', '34'); set('seat-score-2', '57'); set('seat-score-3', '64'); set('adv-turn', '5');"
        "document.getElementById('advise-go').click()"
    )
    wait(driver, lambda d: d.execute_script("return !document.getElementById('advice').hidden || !document.getElementById('error').hidden"))
    driver.execute_script("document.getElementById('advise').scrollIntoView({block: 'start'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs")
    parser.add_argument("--only", action="append", choices=sorted(SHOTS))
    args = parser.parse_args()
    server, service, url = serve()
    driver = browser()
    try:
        for name in args.only or list(SHOTS):
            path, play = SHOTS[name]
            for size, (w, h, mobile) in SIZES.items():
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": mobile})
                driver.get(url + path)
                wait(driver, ready)
                if name == "advisor":
                    advisor(driver)
                elif name == "table-advisor":
                    table_advisor(driver)
                elif play is not None:
                    play(driver)
                time.sleep(0.4)
                out = args.out / ("web-advisor.png" if (name, size) == ("advisor", "desktop") else f"web-{name}-{size}.png")  # the README shows web-advisor.png
                driver.save_screenshot(str(out))
                print(out)
    finally:
        driver.quit()
        server.should_exit = True
        service.close()


if __name__ == "__main__":
    main()
