"""The screenshots of the page (``web-*.png``, those in docs/), taken in headless Chromium.

    python scripts/web_screenshots.py --out docs   # needs chromium and chromedriver (Debian packages)

``--out``: the folder for the pictures (default: the current folder).

Starts the page server in this process on a free loopback port, asks a Yahtzee question in the
advisor, plays a seeded Yahtzee game (one worse move, to show its loss, then the best moves to
the end and the review) and takes the advisor at 390 px width.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service as DriverService  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from web_helpers import Running  # noqa: E402

from jaxsolve.web.api import Service  # noqa: E402


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("."), help="folder for web-*.png (default: the current folder)")
    out = ap.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    running = Running(Service())
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"):
        options.add_argument(arg)
    d = webdriver.Chrome(options=options, service=DriverService(executable_path=shutil.which("chromedriver")))
    wait = WebDriverWait(d, 300, poll_frequency=0.05)

    def shoot(name, width, height=None):
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height or 900, "deviceScaleFactor": 1, "mobile": width < 500})
        time.sleep(0.2)
        full = d.execute_script("return document.documentElement.scrollHeight")
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": min(full, height or full), "deviceScaleFactor": 1, "mobile": width < 500})
        time.sleep(0.2)
        d.save_screenshot(str(out / f"web-{name}.png"))
        print("wrote", out / f"web-{name}.png")

    def state():
        return d.execute_script("const v = document.getElementById('game-view').dataset; return [v.moves, v.awaiting]")

    def click(element):
        before = state()
        element.click()
        wait.until(lambda _: state() != before)

    try:
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1000, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        d.get(running.url + "/?game=kniffel")
        wait.until(lambda _: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
        d.find_element(By.ID, "adv-position").send_keys("aces=3 twos=- fours=12 sixes=24")
        d.find_element(By.ID, "adv-dice").send_keys("2 2 5 6 6")
        d.find_element(By.ID, "adv-throws_left").send_keys("1")
        d.find_element(By.ID, "advise-go").click()
        wait.until(lambda _: d.find_element(By.ID, "advice").is_displayed())
        d.execute_script("document.querySelectorAll('#advice-table tbody tr').forEach((r, i) => { if (i >= 12) r.remove(); })")
        shoot("advisor", 1000, 1100)
        shoot("phone", 390, 1300)

        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1000, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        d.get(running.url + "/?game=kniffel")
        wait.until(lambda _: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
        d.find_element(By.ID, "tab-play").click()
        d.find_element(By.ID, "set-seed").send_keys("2024")
        d.find_element(By.ID, "play-new").click()
        wait.until(lambda _: d.find_element(By.ID, "game-view").is_displayed())
        for _ in range(8):
            click(d.find_element(By.ID, "throw" if state()[1] == "dice" else "best"))
        if state()[1] == "dice":
            click(d.find_element(By.ID, "throw"))
        click(d.find_elements(By.CSS_SELECTOR, "#play-table tbody tr")[3])
        shoot("play", 1000, 1200)
        while state()[1] != "over":
            click(d.find_element(By.ID, "throw" if state()[1] == "dice" else "best"))
        wait.until(lambda _: d.find_element(By.ID, "show-distribution").is_displayed())
        d.find_element(By.ID, "show-distribution").click()
        wait.until(lambda _: d.find_elements(By.CSS_SELECTOR, "#distribution svg"))
        d.execute_script("document.getElementById('review').scrollIntoView()")
        shoot("review", 1000, None)
    finally:
        d.quit()
        running.stop()


if __name__ == "__main__":
    main()
