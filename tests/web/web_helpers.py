"""A page server for the tests (the Starlette app on a free loopback port, in a thread) and,
for the browser tests, the page driven by headless Chromium (``Page``) with axe-core's check."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

WAIT = 180  # seconds a page may take for an answer (a first solve on a slow machine)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
AXE_FOLDERS = (Path.home() / ".cache" / "jaxsolve" / "axe",)
"""Where ``npm install --prefix FOLDER axe-core`` put axe-core (``JAXSOLVE_AXE`` names another)."""


class Running:
    """``jaxsolve serve`` in this process (``url``; ``get``/``post`` return (status, JSON))."""

    def __init__(self, service):
        from jaxsolve.web.server import build_app, make_server

        self.service = service
        self.server, sock = make_server(build_app(service), "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the page server did not start")
            time.sleep(0.02)

    def request(self, method: str, path: str, body=None, raw: bytes | None = None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def get(self, path: str):
        return self.request("GET", path)

    def post(self, path: str, body=None, raw: bytes | None = None):
        return self.request("POST", path, body, raw)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.service.close()


# ----------------------------------------------------------------------------- the browser


def axe_script() -> Path | None:
    """axe-core's ``axe.min.js`` from ``$JAXSOLVE_AXE`` (the folder given to ``npm install
    --prefix``, or the file) or the known folders; None where it is not installed."""
    given = os.environ.get("JAXSOLVE_AXE")
    for base in ([Path(given)] if given else []) + list(AXE_FOLDERS):
        for path in (base, base / "axe.min.js", base / "node_modules" / "axe-core" / "axe.min.js"):
            if path.is_file():
                return path
    return None


@contextlib.contextmanager
def serving(service):
    """``Running(service)`` with the test-only one-die Pig game registered, both undone after."""
    import onedie_pig

    from jaxsolve import games

    games.register(onedie_pig.GAME)
    running = Running(service)
    try:
        yield running
    finally:
        running.stop()
        games.unregister(onedie_pig.GAME.name)


def table_game():
    """A reduced Kniffel sheet registered as a game of its own (``kniffel-table``, preset
    ``table-mini``) for the tests of play against computer opponents: 3 dice, 2 throws a turn,
    the upper section, the all-same box and chance (8 turns), an upper bonus of 10 from 20."""
    from jaxsolve.core.rules import Presets
    from jaxsolve.games.category.registration import category_game
    from jaxsolve.games.category.sheets.rules import CategoryRules
    from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET

    rules = CategoryRules(
        name="table-mini", dice=3, throws=2, joker="none", extra_bonus=0, upper_threshold=20, upper_bonus=10, boxes=KNIFFEL_SHEET[:6] + KNIFFEL_SHEET[11:13]
    )
    return category_game("kniffel-table", "a reduced Kniffel sheet (tests of play against opponents)", lambda: Presets("table", {"table-mini": rules}), "table-mini", lambda: rules)


def yacht_small_game():
    """The reduced Yacht (3 dice, 9 boxes) registered as a game of its own (``yacht-small``,
    preset ``small``) for the tests of play against the two-player optimal opponent: its end
    games solve in a second."""
    from jaxsolve.core.rules import Presets
    from jaxsolve.games.category.sheets import yacht
    from jaxsolve.games.category.registration import category_game

    rules = yacht.small().replace(name="small")
    return category_game("yacht-small", "Yacht on 3 dice, 9 boxes (tests)", lambda: Presets("Yacht small", {"small": rules}), "small", lambda: rules)


@contextlib.contextmanager
def registered(game):
    """``game`` in the registry for the time of the block."""
    from jaxsolve import games

    games.register(game)
    try:
        yield game
    finally:
        games.unregister(game.name)


@contextlib.contextmanager
def browsing(width: int = 1280, height: int = 900):
    """``chromium(width, height)``, quit after."""
    driver = chromium(width, height)
    try:
        yield driver
    finally:
        driver.quit()


def chromium(width: int = 1280, height: int = 900):
    """Headless Chromium (the system's, with its driver) that keeps the console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or ""
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}", "--lang=en-US"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=DriverService(executable_path=DRIVER))


class Page:
    """The page in the browser: open an address, wait for answers, read what it shows."""

    def __init__(self, driver, url):
        self.d = driver
        self.url = url

    def open(self, game: str | None = None, width: int | None = None, path: str | None = None, height: int = 900):
        if width is not None:
            self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700})
        else:
            self.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        self.d.get(self.url + (path if path is not None else f"/?game={game}&mode=advise"))
        self.until(lambda d: self.js("return document.body.dataset.ready === '1' && document.getElementById('progress').hidden"))
        self.until(lambda d: self.js("return document.getElementById('play').hidden || !document.getElementById('game-view').hidden") or self.error())

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def until(self, check, timeout=WAIT):
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.d, timeout, poll_frequency=0.02).until(check)

    def by_id(self, name):
        from selenium.webdriver.common.by import By

        return self.d.find_element(By.ID, name)

    def select(self, name, value):
        from selenium.webdriver.support.ui import Select

        Select(self.by_id(name)).select_by_value(value)

    def type(self, name, text):
        box = self.by_id(name)
        box.clear()
        box.send_keys(text)

    def error(self) -> str:
        return self.js("const e = document.getElementById('error'); return e.hidden ? '' : e.textContent")

    def console_errors(self) -> list[str]:
        """The browser console's errors since the last call (reading the log empties it)."""
        return [e["message"] for e in self.d.get_log("browser") if e["level"] == "SEVERE"]

    def ranking(self, table: str) -> list[dict]:
        rows = self.js("return [...document.querySelectorAll(arguments[0] + ' tbody tr')].map(r => ({...r.dataset, cls: r.className}))", f"#{table}")
        return [{"option": r["option"], "value": float(r["value"]), "regret": float(r["regret"]), "cls": r["cls"]} for r in rows]

    def advise(self, game, preset, fields: dict, more: dict | None = None) -> list[dict]:
        self.open(path=f"/?game={game}&rules={preset}&mode=advise")
        for name, value in fields.items():
            self.type(f"adv-{name}", str(value))
        for name, value in (more or {}).items():
            self.js("document.getElementById('advise-more-box').open = true")
            self.select(f"adv-{name}", value)
        return self.ask()

    def ask(self) -> list[dict]:
        self.js("document.getElementById('advice').hidden = true")
        self.by_id("advise-go").click()
        self.until(lambda d: self.js("return !document.getElementById('advice').hidden") or self.error())
        assert self.error() == ""
        return self.ranking("advice-table")

    def play_state(self):
        """(game id, moves, awaiting, mover) of the game shown, in one browser round trip."""
        got = self.js("const v = document.getElementById('game-view').dataset; return [v.id, v.moves, v.awaiting, v.mover]")
        return got[0], int(got[1] or -1), got[2], got[3]

    def settled(self, before) -> bool:
        return self.play_state() != before or bool(self.error())

    def click_and_wait(self, element_id):
        before = self.play_state()
        self.by_id(element_id).click()
        self.until(lambda d: self.settled(before))
        assert self.error() == ""

    def has(self, element_id) -> bool:
        return bool(self.js("const e = document.getElementById(arguments[0]); return !!e && !e.disabled && e.offsetParent !== null", element_id))

    def play(self, path: str):
        """Open a game from its address (``mode=play`` or ``quiz``) and wait for the board."""
        self.open(path=path)
        assert self.error() == ""
        self.until(lambda d: self.play_state()[2] in ("dice", "choice", "over"))

    def play_to_the_end(self, limit: int = 3000, check=None) -> int:
        """Play the best move at each decision (throwing when a throw is due, the computer's
        turn with one click) until the game is over; ``check(page)`` after each move. Returns
        the number of clicks."""
        for clicks in range(limit):
            state = self.play_state()
            if state[2] == "over":
                return clicks
            if self.has("their-turn"):
                self.by_id("their-turn").click()
                self.until(lambda d: not self.has("their-turn") or self.play_state()[2] == "over" or self.error())
            else:
                self.click_and_wait("throw" if state[2] == "dice" else "best")
            assert self.error() == ""
            if check is not None:
                check(self)
        raise AssertionError(f"the game did not end within {limit} clicks")

    def axe(self, script: Path) -> list[dict]:
        """axe-core's violations of impact serious or critical on the page as shown (WCAG 2 A/AA rules)."""
        if not self.js("return !!window.axe"):
            self.js(script.read_text(encoding="utf-8"))
        found = self.d.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})"
            ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))))"
            ".catch(e => done([{id: 'axe failed', impact: 'critical', nodes: [String(e)]}]))"
        )
        return [v for v in found if v["impact"] in ("serious", "critical")]


def answered(site, status, data):
    """A 202 answer polled until its job is done (at most 5 minutes)."""
    deadline = time.monotonic() + 300
    while status == 202 and data.get("pending"):
        assert time.monotonic() < deadline, data
        time.sleep(0.1)
        status, data = site.get(f"/api/jobs/{data['job']}")
    return status, data


def post_answered(site, path, body=None):
    return answered(site, *site.post(path, body))


def get_answered(site, path):
    return answered(site, *site.get(path))
