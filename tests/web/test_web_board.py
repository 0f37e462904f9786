"""The page as a game board, in a real browser (headless Chromium driven by Selenium).

Every registered game (and a test game registered here) is opened from its address
(``/?game=NAME&rules=PRESET&mode=play``) and played to its end with the page's buttons, with no
error on the page and none in the browser console; the advisor and play screens of every game
pass axe-core's WCAG 2 A/AA rules without a violation of impact serious or critical. A quiz
hides the advice until the move, a whole game is played by keys alone, a score sheet and dice
entered by clicks ask the same question as the typed position, the tabs carry their ARIA states,
the language switch gives the source rules' German words, and on a phone the dice, the move
and the sheet fit on one screen.

axe-core comes from a local ``npm install --prefix ~/.cache/jaxsolve/axe axe-core`` (or the
folder in ``$JAXSOLVE_AXE``), never from the network; without it the accessibility tests are
skipped, saying so, except under ``CI=true``, where they fail.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("starlette", reason="the page needs starlette and uvicorn (pip install -e .)")
pytest.importorskip("selenium", reason="the browser tests need selenium (pip install -e .[test])")

import onedie_pig  # noqa: E402
from web_helpers import CHROMIUM, DRIVER, Page, axe_script, serving  # noqa: E402

from jaxsolve import games  # noqa: E402
from jaxsolve.web.api import Service  # noqa: E402

if CHROMIUM is None or DRIVER is None:
    pytest.skip("no Chromium and chromedriver on this machine (Debian: apt-get install chromium chromium-driver)", allow_module_level=True)

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

PIG = onedie_pig.GAME.name

# The address each game is played from: small rules where the full solve takes long (Maxi's
# reduced preset, the duel's small race to 500), a few turns of Zehntausend.
PLAYS = {
    "kniffel": "rules=yahtzee&seed=2024",
    "yatzy": "rules=yatzy&seed=5",
    "maxi": "rules=maxi-reduced-4-dice&seed=3",
    "raab": "rules=piglet&seed=4",
    "zehntausend": "rules=peter-2013&seed=6&turns=2",
    "zehntausend-duel": "rules=small&seed=8",
    "yacht": "rules=yacht&seed=11",
    "pig-table": "rules=coin-3&seed=4",
    "zehntausend-table": "rules=small-3&seed=8",
    PIG: "rules=d4-to-8&seed=9",
}
SLOW = {"kniffel", "yatzy", "yacht"}  # 13, 15 and 12 turns (about 30 s each); the default run plays the sheet on Maxi's reduced game


def axe_or_skip():
    script = axe_script()
    if script is None:
        if os.environ.get("CI") == "true":
            pytest.fail("axe-core is missing (npm install --prefix ~/.cache/jaxsolve/axe axe-core)")
        pytest.skip("axe-core is not installed here (npm install --prefix ~/.cache/jaxsolve/axe axe-core, or set JAXSOLVE_AXE)")
    return script


@pytest.fixture(scope="module")
def server():
    with serving(Service()) as running:
        yield running




def test_every_registered_game_is_played_here():
    games.register(onedie_pig.GAME)
    try:
        assert set(PLAYS) == {g.name for g in games.games() if g.play_game is not None}
    finally:
        games.unregister(PIG)


def no_trouble(page: Page) -> None:
    assert page.error() == ""
    assert page.console_errors() == []


@pytest.mark.parametrize("game", [pytest.param(g, marks=pytest.mark.slow) if g in SLOW else g for g in PLAYS])
def test_every_game_is_played_to_its_end_on_the_board(page, game):
    page.play(f"/?game={game}&{PLAYS[game]}&mode=play")
    check_axe(page)
    kind = page.js("return ['sheet-box', 'race', 'turns'].filter(id => !document.getElementById(id).hidden).join()").removesuffix("-box")
    assert kind == games.get_game(game).board  # what the registration says (the test game: none, the dice and the moves only)
    page.play_to_the_end()
    no_trouble(page)
    page.until(lambda d: page.by_id("review").get_attribute("data-mean-loss") is not None)
    assert page.by_id("review").is_displayed()
    score = float(page.by_id("review").get_attribute("data-score"))
    assert float(page.by_id("review").get_attribute("data-mean-loss")) == pytest.approx(0.0, abs=1e-12)  # the best move each time
    if kind == "sheet":
        assert not page.d.find_elements(By.CSS_SELECTOR, "#sheet button.fill")  # every box filled
        assert float(page.by_id("sheet").get_attribute("data-total")) == score
    if kind == "race":
        assert page.d.find_elements(By.CSS_SELECTOR, "#race .player.winner")
        log = page.js("return [...document.querySelectorAll('#log li')].map(li => li.className)")
        assert "by-you" in log
    assert page.d.find_elements(By.CSS_SELECTOR, "#log li[data-action=throw] .mini .die")  # the log draws the dice
    no_trouble(page)


def check_axe(page: Page) -> None:
    """The play screen (after the first throw) and the same in the quiz pass axe-core; nothing
    is checked where axe-core is not installed (its own test says so)."""
    script = axe_script()
    if script is None:
        return
    if page.has("throw") and page.play_state()[2] == "dice":
        page.click_and_wait("throw")
    assert page.axe(script) == []
    page.js("document.getElementById('tab-quiz').click()")
    assert page.axe(script) == []
    page.js("document.getElementById('tab-play').click()")


@pytest.mark.parametrize("game", list(PLAYS))
def test_advisor_screens_pass_axe(page, game):
    """The advisor of every game before and after a question (the play screens: in the whole games above)."""
    script = axe_or_skip()
    page.open(path=f"/?game={game}&{PLAYS[game]}&mode=advise")
    assert page.axe(script) == []
    no_trouble(page)


@pytest.mark.parametrize("game", sorted(SLOW))
def test_play_screens_of_the_long_games_pass_axe(page, game):
    """The play screens of the games whose whole game runs only with the slow tests."""
    axe_or_skip()
    page.play(f"/?game={game}&{PLAYS[game]}&mode=play")
    check_axe(page)
    no_trouble(page)


def test_the_advice_passes_axe(page):
    script = axe_or_skip()
    page.advise("kniffel", "yahtzee", {"dice": "2 2 5 6 6"})
    assert page.axe(script) == []
    page.advise("zehntausend-duel", "small", {"mine": "100", "theirs": "200", "dice": "1 5 5 2 3 4"})
    assert page.axe(script) == []


def test_the_quiz_hides_the_advice_until_the_move(page, server):
    page.play("/?game=kniffel&rules=yahtzee&mode=quiz&seed=31")
    page.click_and_wait("throw")
    gid = page.play_state()[0]
    status, shown = server.get(f"/api/play/{gid}")
    assert status == 200 and shown["awaiting"] == "choice"
    table = page.by_id("play-table")
    assert not page.has("best")
    assert not page.d.find_elements(By.CSS_SELECTOR, "#play-table tr.best, #play-table .tag, #play-table tr[data-value]")
    assert not any(c.is_displayed() and c.text for c in table.find_elements(By.CSS_SELECTOR, "td.adv, th.adv"))
    assert not page.by_id("feedback").is_displayed()
    assert "value" not in page.by_id("play").text.lower() and "loss" not in page.by_id("running-loss").text.lower()
    # the advice comes after the move: the chosen move, the best move, the loss
    options = {o["option"]: o for o in shown["options"]}
    first = page.d.find_elements(By.CSS_SELECTOR, "#play-table button.opt")[0]
    chosen = first.find_element(By.XPATH, "./ancestor::tr").get_attribute("data-option")
    before = page.play_state()
    first.click()
    page.until(lambda d: page.settled(before))
    feedback = page.by_id("feedback")
    assert feedback.is_displayed()
    assert feedback.get_attribute("data-chosen") == chosen and feedback.get_attribute("data-best") == shown["options"][0]["option"]
    assert float(feedback.get_attribute("data-regret")) == pytest.approx(options[chosen]["regret"], abs=1e-9)
    assert "Your move:" in feedback.text
    page.until(lambda d: feedback.text in page.js("return document.getElementById('live').textContent"))  # announced to screen readers
    no_trouble(page)


ON_BOARD = "const e = document.activeElement; return !!e && e !== document.body && document.getElementById('game-view').contains(e)"


def test_a_whole_game_by_keys_alone(page):
    from selenium.webdriver.common.action_chains import ActionChains

    page.play("/?game=zehntausend&rules=peter-2013&mode=play&seed=12&turns=2")
    body = page.d.find_element(By.TAG_NAME, "body")

    def press(key):
        # the key goes where the focus is, as a person's key does
        before = page.play_state()
        ActionChains(page.d).send_keys(key).perform()
        page.until(lambda d: page.settled(before))
        assert page.error() == ""

    press("r")  # throw
    assert page.js(ON_BOARD), "the focus left the board after a throw"
    body.send_keys("1")  # pick the first die
    assert page.js("return document.querySelector('#dice button.die').getAttribute('aria-pressed')") == "true"
    body.send_keys("1")
    assert page.js("return document.querySelector('#dice button.die').getAttribute('aria-pressed')") == "false"
    # every option is a button in the tab order; the arrow keys move between them
    assert page.js("return [...document.querySelectorAll('#play-table button.opt')].every(b => b.tabIndex >= 0)")
    body.send_keys(Keys.ARROW_DOWN)
    assert page.js("return document.activeElement.classList.contains('opt')")
    page.js("document.getElementById('best').focus()")
    for _ in range(400):
        _, _, awaiting, _ = page.play_state()
        if awaiting == "over":
            break
        press(Keys.ENTER)  # the focused control: the best move, then the throw it leads to, and so on
        assert page.js(ON_BOARD), f"the focus left the board after move {page.play_state()[1]}"
    assert page.play_state()[2] == "over"
    page.until(lambda d: page.by_id("review").get_attribute("data-mean-loss") is not None)
    assert float(page.by_id("review").get_attribute("data-mean-loss")) == 0.0
    assert page.js("return document.activeElement.id") == "review"
    body.send_keys("?")
    assert page.by_id("help").is_displayed()
    body.send_keys(Keys.ESCAPE)
    no_trouble(page)


def test_the_focus_stays_on_the_board_after_a_move_and_enter_plays_only_a_focused_move(page):
    from selenium.webdriver.common.action_chains import ActionChains

    page.play("/?game=maxi&rules=maxi-reduced-4-dice&mode=quiz&seed=5")
    first = page.play_state()
    page.by_id("play-new").click()  # a new game from its button: the focus goes to the board's throw
    page.until(lambda d: page.play_state()[0] != first[0])
    assert page.js("return document.activeElement.id") == "throw"
    page.click_and_wait("throw")
    assert page.js(ON_BOARD) and page.js("return document.activeElement.id") == "throw"
    # nothing focused: Enter plays nothing (in the quiz the first move listed is a cross-out)
    page.js("document.activeElement.blur()")
    before = page.play_state()
    ActionChains(page.d).send_keys(Keys.ENTER).perform()
    page.js("return new Promise(r => setTimeout(r, 400))")
    assert page.play_state() == before
    # a move clicked in the list: the focus stays on the board, on the next thing to do
    page.by_id("choice-head").click()
    option = page.d.find_elements(By.CSS_SELECTOR, "#play-table button.opt")[-1]
    option.click()
    page.until(lambda d: page.settled(before))
    assert page.error() == ""
    assert page.js(ON_BOARD), "the focus left the board after a move"
    no_trouble(page)


def test_undo_by_key(page):
    page.play("/?game=zehntausend&rules=peter-2013&mode=play&seed=2&turns=1")
    body = page.d.find_element(By.TAG_NAME, "body")
    state = page.play_state()
    body.send_keys("r")
    page.until(lambda d: page.settled(state))
    body.send_keys("u")
    page.until(lambda d: page.play_state() == state)


def test_a_clicked_position_equals_the_typed_one(page):
    typed = page.advise("kniffel", "yahtzee", {"position": "aces=3 twos=- fours=12 kniffel=50", "dice": "2 2 5 6 6", "throws_left": "1"})
    page.open(path="/?game=kniffel&rules=yahtzee&mode=advise")
    page.select("box-aces", "3")
    page.select("box-twos", "0")
    page.select("box-fours", "12")
    page.type("box-kniffel", "50")
    for i, face in enumerate([2, 2, 5, 6, 6]):
        die = page.d.find_elements(By.CSS_SELECTOR, "#adv-dice-pick button.die")[i]
        for _ in range(face):
            die.click()
            die = page.d.find_elements(By.CSS_SELECTOR, "#adv-dice-pick button.die")[i]
    page.type("adv-throws_left", "1")
    assert page.by_id("adv-position").get_attribute("value") == "aces=3 twos=- fours=12 kniffel=50"
    assert page.by_id("adv-dice").get_attribute("value") == "2 2 5 6 6"
    clicked = page.ask()
    assert clicked == typed and len(clicked) > 5
    no_trouble(page)


def test_the_tabs_carry_their_aria_states_and_the_address_the_mode(page):
    page.open(path="/?game=raab&rules=piglet&mode=advise")
    tabs = page.js("return [...document.querySelectorAll('[role=tab]')].map(t => [t.dataset.mode, t.getAttribute('aria-selected'), t.tabIndex])")
    assert tabs == [["advise", "true", 0], ["play", "false", -1], ["quiz", "false", -1]]
    page.by_id("tab-quiz").click()
    assert page.js("return document.getElementById('tab-quiz').getAttribute('aria-selected')") == "true"
    assert "mode=quiz" in page.d.current_url and "game=raab" in page.d.current_url and "rules=piglet" in page.d.current_url
    assert page.js("return document.getElementById('live').getAttribute('aria-live')") == "polite"


def test_the_language_switch_gives_the_source_rules_words(page):
    page.play("/?game=kniffel&rules=yahtzee&mode=play&seed=1&lang=en")
    names = page.js("return [...document.querySelectorAll('#sheet tr[data-box] th')].map(e => e.textContent)")
    assert names[6:9] == ["Three of a kind", "Four of a kind", "Full house"] and names[11] == "Yahtzee"
    assert "three_kind" not in page.by_id("play").text and "kniffel" not in page.by_id("play").text
    page.select("lang", "de")
    names = page.js("return [...document.querySelectorAll('#sheet tr[data-box] th')].map(e => e.textContent)")
    assert names[6:12] == ["Dreierpasch", "Viererpasch", "Full House", "Kleine Straße", "Große Straße", "Kniffel"]
    assert page.by_id("throw").text == "5 Würfel werfen"
    page.open(path="/?game=kniffel&rules=kniffel&mode=advise&lang=en")
    assert page.js("return document.querySelector('label[for=box-kniffel] span').textContent") == "Kniffel"
    page.play("/?game=zehntausend&rules=peter-2013&mode=play&seed=1&lang=de")
    page.click_and_wait("throw")
    assert "rauslegen" in page.by_id("play-table").text or "aufschreiben" in page.by_id("play-table").text
    page.select("lang", "en")


def test_win_probabilities_are_percentages_with_the_exact_value_on_hover(page):
    page.advise("raab", "piglet", {"mine": "0", "theirs": "1", "turn": "1"})
    cell = page.d.find_element(By.CSS_SELECTOR, "#advice-table tbody tr td:nth-child(3)")
    assert cell.text == "60.0 %" and float(cell.get_attribute("title")) == pytest.approx(0.6)
    assert "false" not in page.by_id("advise").text


def test_on_a_phone_the_dice_the_move_and_the_sheet_fit_on_one_screen(page):
    page.open(path="/?game=kniffel&rules=yahtzee&mode=play&seed=3", width=390, height=844)
    page.click_and_wait("throw")
    page.js("document.getElementById('play-stage').scrollIntoView({block: 'start'})")
    bottoms = page.js("return ['dice', 'actions', 'sheet'].map(id => { const r = document.getElementById(id).getBoundingClientRect(); return [r.top, r.bottom]; })")
    for top, bottom in bottoms:
        assert 0 <= top and bottom <= 844
    page.open(path="/?game=zehntausend-duel&rules=small&mode=play&seed=3", width=390, height=844)
    top, bottom = page.js("const r = document.getElementById('actions').getBoundingClientRect(); return [r.top, r.bottom]")
    assert 0 <= top and bottom <= 844


def test_the_computers_turn_plays_by_itself_at_the_chosen_speed(page):
    page.play("/?game=raab&rules=pig&mode=play&seed=4&first=them&speed=fast")
    page.until(lambda d: page.play_state()[3] == "you" or page.play_state()[2] == "over")
    log = page.js("return [...document.querySelectorAll('#log li')].map(li => [li.className, li.dataset.action, li.querySelectorAll('.die').length])")
    assert log[0] == ["by-them", "throw", 1] and all(who == "by-them" for who, _, _ in log)
    assert not page.has("their-turn")
    no_trouble(page)


def test_an_error_names_the_box_as_the_sheet_does(page):
    page.open(path="/?game=kniffel&rules=yahtzee&mode=advise&lang=en")
    page.type("adv-position", "kniffel=50 kniffel=0")
    page.by_id("advise-go").click()
    page.until(lambda d: page.error())
    assert page.error() == "error: box Yahtzee is given twice in the position"
    assert page.by_id("adv-position").get_attribute("aria-invalid") == "true"
