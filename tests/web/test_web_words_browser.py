"""The page's words in a real browser (headless Chromium): every field, rule set and game of the
registry has the players' words in English and German (never the command line's help), the log says
each move in grammatical German with the points it wrote, the progress says "finishing" once
every layer is solved, the note about an unsolved table goes once the answer came, and a
finished score game's review says where the final score stands among optimally played games.

The server here keeps no files (``use_cache=False``): each table is solved in memory, so the
note about an unsolved table shows on every run.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("selenium", reason="the browser tests need selenium (pip install -e .[test])")

import onedie_pig  # noqa: E402
from web_helpers import CHROMIUM, DRIVER, get_answered, serving  # noqa: E402

from jaxsolve import games  # noqa: E402
from jaxsolve.web.api import Service, form_params  # noqa: E402

if CHROMIUM is None or DRIVER is None:
    pytest.skip("no Chromium and chromedriver on this machine (Debian: apt-get install chromium chromium-driver)", allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with serving(Service(use_cache=False)) as running:
        yield running




def test_every_field_of_every_game_has_the_players_words_in_english_and_german(page):
    page.open(path="/?game=raab&mode=advise&lang=en")
    missing = []
    for g in games.games():
        if g.name == onedie_pig.GAME.name:  # the tests' own game: its help stands in
            continue
        fields = [("rule", p.name) for p in form_params(g.override_params())]
        if "advise" in g.commands:
            fields += [("adv", p.name) for p in form_params(g.commands["advise"].params)]
        if g.play_game is not None:
            fields += [("set", "seed")] + [("set", p.name) for p in g.play_params]
        for lang in ("en", "de"):
            for prefix, name in fields:
                words = page.js("const w = WORDS[arguments[0]].fieldWords; return w[arguments[1]] || w[arguments[2]] || null", lang, f"{prefix}-{name}", name)
                if not words or not words[0] or (prefix != "adv" or name != "position") and not words[1]:
                    missing.append(f"{g.name} {lang} {prefix}-{name}")
    assert not missing, missing


def test_every_rule_set_and_game_has_the_players_words(page):
    page.open(path="/?game=raab&mode=advise&lang=en")
    missing = []
    for g in games.games():
        if g.name == onedie_pig.GAME.name:
            continue
        for lang in ("en", "de"):
            if not page.js("return !!GAME_WORDS[arguments[0]][arguments[1]]", lang, g.name):
                missing.append(f"{lang} game {g.name}")
            for preset in g.presets():
                if page.js("const keep = state.lang; state.lang = arguments[0]; const w = presetWords(arguments[1]); state.lang = keep; return w", lang, preset) == preset:
                    missing.append(f"{lang} {g.name} {preset}")
    assert not missing, missing


def test_the_advisors_fields_say_what_they_are_without_the_command_line(page):
    for lang, opponent in (("en", "sheet"), ("de", "Block")):
        page.open(path=f"/?game=kniffel&rules=yahtzee&mode=advise&lang={lang}")
        page.js("document.getElementById('advise-more-box').open = true")
        helps = page.js("return [...document.querySelectorAll('#advise .field .help')].map(e => e.textContent)")
        assert helps and not [h for h in helps if "--" in h or re.search(r"\bWith or\b|E\^SP|P\(win\)", h)], helps
        assert opponent in page.by_id("adv-opponent-help").text and "bot" not in page.by_id("adv-opponent-help").text
        options = page.js("return [...document.querySelectorAll('#adv-ties option')].map(o => o.textContent)")
        assert "share" not in options
    page.open(path="/?game=raab&rules=pig&mode=play&lang=en")
    assert "computer" in page.js("return document.getElementById('set-opponent-help').textContent")


def test_the_progress_says_finishing_once_every_layer_is_solved(page):
    page.open(path="/?game=raab&mode=advise&lang=en")
    job = {"what": "advise raab", "seconds": 77.0, "notes": [], "progress": {"done": 20, "total": 20, "label": "solve", "eta_seconds": 1.0}}
    page.js("showProgress(arguments[0])", job)
    text = page.by_id("progress-text").text
    assert "finishing" in text and "left" not in text, text
    job["progress"] = {"done": 5, "total": 20, "label": "solve", "eta_seconds": 30.0}
    page.js("showProgress(arguments[0])", job)
    assert "5 of 20 layers done, about 30 s left" in page.by_id("progress-text").text
    page.js("showProgress(null)")


def test_the_note_about_an_unsolved_table_goes_once_the_answer_came(page):
    page.open(path="/?game=raab&rules=piglet&mode=advise&lang=en&goal=5")
    page.until(lambda d: not page.by_id("cache-note").get_attribute("hidden"))
    page.type("adv-mine", "0")
    page.type("adv-theirs", "1")
    page.ask()
    page.until(lambda d: page.by_id("cache-note").get_attribute("hidden") is not None)


def test_the_german_log_is_grammatical_and_carries_the_points(page):
    page.play("/?game=maxi&rules=maxi-reduced-4-dice&mode=play&seed=4&lang=de")
    for _ in range(6):  # two turns with the best moves
        page.click_and_wait("throw" if page.play_state()[2] == "dice" else "best")
    lines = page.js("return [...document.querySelectorAll('#log li')].map(li => li.textContent.trim())")
    assert any(line.startswith("Du wirfst") for line in lines), lines
    fills = [line for line in lines if "Feld" in line]
    assert fills and all(re.match(r"Du (trägst \d+ ins Feld .+ ein|streichst das Feld .+)( ✓| −[\d,]+)?$", line) for line in fills), fills
    assert not [line for line in lines if re.search(r"Du (Wurf|behält |trägt )", line)], lines


def test_a_finished_games_review_says_where_the_score_stands_among_optimal_games(page, server):
    page.play("/?game=maxi&rules=maxi-reduced-4-dice&mode=play&seed=7&lang=en")
    page.play_to_the_end()
    page.until(lambda d: page.js("return !!document.getElementById('percentile-line')"))
    line = page.by_id("percentile-line")
    score = int(page.by_id("review").get_attribute("data-score").split(".")[0])
    status, dist = get_answered(server, f"/api/play/{page.play_state()[0]}/distribution")
    assert status == 200
    beats = sum(dist["p"][:score])
    assert float(line.get_attribute("data-beats")) == pytest.approx(beats, abs=1e-9)
    assert line.text.startswith(f"Your {score} beats ") and "of games played optimally" in line.text
    assert "points" in page.by_id("review-summary").text
    numbers = [int(e.text) for e in page.d.find_elements(By.CSS_SELECTOR, "#review-table tbody td:first-child")]
    assert numbers == list(range(1, len(numbers) + 1))
    assert page.console_errors() == []
