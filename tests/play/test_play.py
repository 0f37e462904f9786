"""``jaxsolve play``: the game objects of every playable game, the game-independent layer (a
game from the test suite plays with the defaults), and scripted games through a
pseudo-terminal (bad input mid-game, undo, save and resume)."""

import dataclasses
import io
import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

from jaxsolve import games, play
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET
from jaxsolve.play import PlayError

ROOT = Path(__file__).resolve().parents[2]

# A reduced category game that solves in a second: 3 dice, 2 throws a turn, the upper section,
# the Yahtzee box and chance (8 turns), an upper bonus of 10 from 20 points.
MINI = CategoryRules(
    name="mini", dice=3, throws=2, joker="none", extra_bonus=0, upper_threshold=20, upper_bonus=10, boxes=KNIFFEL_SHEET[:6] + KNIFFEL_SHEET[11:13]
)


@pytest.fixture(scope="module")
def mini_solution():
    from jaxsolve.games.category.engine import solutions

    return solutions.solution(MINI, "score")


@pytest.fixture(scope="module")
def piglet_full():
    from jaxsolve.games.raab import solver
    from jaxsolve.games.raab.rules import PRESETS

    return solver.full(solver.solve(PRESETS["piglet"]))


@pytest.fixture(scope="module")
def z_solution():
    from jaxsolve.games.zehntausend import solver
    from jaxsolve.games.zehntausend.rules import PRESETS

    return solver.solve(PRESETS["peter-2013"])


def mini(sol, **settings):
    return play.new_game("kniffel", MINI, sol, **{"seed": 7, **settings})


# ----------------------------------------------------------------------------- category games


def test_every_playable_game_has_a_play_command():
    from jaxsolve.cli import build_app, game_commands

    app = build_app()
    playable = {g.name for g in games.games() if g.play_game is not None}
    assert {"kniffel", "raab", "zehntausend"} <= playable
    for game in games.games():
        assert ("play" in game_commands(app, game.name)) == (game.name in playable), game.name
        if game.play_game is not None:
            assert issubclass(game.play_game(), play.PlayedGame)


def test_category_scores_fills_and_the_upper_bonus(mini_solution):
    s = mini(mini_solution)
    assert s.value_now() == pytest.approx(mini_solution.game_value)
    s.enter("6 6 6")
    s.choose("fill sixes")
    s.enter("5 5 5")
    s.choose("fives")  # a box name alone fills it
    assert s.state.position.scores[4:6] == (15, 18)
    assert s.state.bonus == 10  # 33 >= 20 in the upper section: the bonus, once
    s.enter("4 4 4")
    s.choose("fill kniffel")
    s.enter("1 2 6")
    s.choose("fill chance")
    assert s.score == 15 + 18 + 50 + 9 + 10
    assert s.turn == 5


def test_category_options_are_ranked_with_regret(mini_solution):
    s = mini(mini_solution)
    s.enter("1 2 6")
    opts = s.options()
    values = [o.value for o in opts]
    assert values == sorted(values, reverse=True)
    assert all(o.regret == pytest.approx(opts[0].value - o.value, abs=1e-12) for o in opts)
    assert s.value_now() == pytest.approx(opts[0].value)
    # every open box and every proper keep of three different dice (2^3 - 1) is an option
    assert sum(o.move["action"] == "fill" for o in opts) == 8
    assert sum(o.move["action"] == "keep" for o in opts) == 7
    worst = s.choose(len(opts))
    assert worst is opts[-1]
    d = s.decisions()[-1]
    assert d.regret == pytest.approx(opts[-1].regret) and d.regret > 0 and d.best == opts[0].label
    assert s.regret == pytest.approx(d.regret)


def test_category_rethrow_takes_the_new_dice_or_all_dice(mini_solution):
    s = mini(mini_solution)
    s.enter("1 6 6")
    s.choose("keep 6 6")
    assert s.awaiting() == "dice" and s.throw_size() == 1
    with pytest.raises(PlayError, match="do not include the kept 6 6"):
        s.enter("1 2 6")
    s.enter("6 6 3")  # all dice, the kept ones included
    assert s.state.dice == (3, 6, 6) and s.state.throws_left == 0
    s.undo()
    s.enter("4")  # only the re-thrown die
    assert s.state.dice == (4, 6, 6)
    with pytest.raises(PlayError, match="no re-throw left"):
        s.choose("keep 6")


@pytest.mark.parametrize(
    "text, message",
    [
        ("keep 7", "not a face"),
        ("keep 6 6 6 6", "cannot keep"),
        ("keep 1 6", "cannot keep"),
        ("keep 6 6 6", "no re-throw"),
        ("fill nowhere", "unknown box"),
        ("99", "no option 99"),
        ("dance", "unknown choice"),
    ],
)
def test_category_bad_choices_change_nothing(mini_solution, text, message):
    s = mini(mini_solution)
    s.enter("6 6 6")
    before, moves = s.state, list(s.moves)
    with pytest.raises(PlayError, match=message):
        s.enter(text)
    assert s.state is before and s.moves == moves


def test_category_bad_throws_and_filled_boxes(mini_solution):
    s = mini(mini_solution)
    with pytest.raises(PlayError, match="2 dice typed"):
        s.enter("6 6")
    with pytest.raises(PlayError, match="not a face"):
        s.enter("6 6 9")
    with pytest.raises(PlayError, match="a throw is due"):
        s.enter("fill chance")
    s.enter("2 2 2")
    s.choose("fill twos")
    s.enter("2 2 2")
    with pytest.raises(PlayError, match="already filled"):
        s.choose("fill twos")
    assert s.awaiting() == "choice"


def test_undo_and_the_seeded_virtual_dice(mini_solution):
    a, b = mini(mini_solution, seed=11), mini(mini_solution, seed=11)
    first = a.throw()
    assert b.throw() == first  # the same seed throws the same dice
    a.choose("keep nothing")
    state = a.state
    again = a.throw()
    a.undo()
    assert a.state is state
    assert a.throw() == again  # an undo does not throw new dice
    a.undo()
    a.undo()  # the keep
    assert a.awaiting() == "choice" and a.state.dice == tuple(first)
    a.undo()
    assert a.awaiting() == "dice" and not a.moves
    with pytest.raises(PlayError, match="nothing to undo"):
        a.undo()
    assert a.throw() == first


def test_auto_roll_throws_by_itself_and_undo_goes_back_to_a_decision(mini_solution):
    s = mini(mini_solution, auto_roll=True)
    assert s.awaiting() == "choice" and s.moves[0]["auto"]
    with pytest.raises(PlayError, match="nothing to undo"):
        s.undo()
    dice = s.state.dice
    s.choose("b")
    assert s.awaiting() == "choice"
    s.undo()
    assert s.state.dice == dice and len(s.moves) == 1


def test_category_game_to_the_end_and_json_round_trip(mini_solution, tmp_path):
    s = mini(mini_solution, seed=3)
    while not s.over:
        s.enter("")
    summary = s.summary()
    assert summary.regret == pytest.approx(0.0, abs=1e-9)  # always the best option
    assert summary.expected == pytest.approx(mini_solution.game_value)
    assert summary.score == s.state.position.total + s.state.bonus
    assert len(summary.decisions) == len([m for m in s.moves if "regret" in m])
    path = tmp_path / "game.json"
    play.save_game(s, path)
    back = play.load_game(path, game="kniffel", solution=mini_solution)
    assert back.state == s.state and back.decisions() == s.decisions() and back.over
    with pytest.raises(JaxsolveError, match="holds a game of 'kniffel', not raab"):
        play.load_game(path, game="raab")


def test_a_tampered_save_is_refused_with_the_move(mini_solution, tmp_path):
    s = mini(mini_solution)
    s.enter("6 6 6")
    s.choose("fill sixes")
    s.enter("6 6 6")
    data = s.to_json()
    data["moves"].append({"action": "fill", "box": "sixes", "by": "you"})
    with pytest.raises(JaxsolveError, match=r"move 4 \(action=fill box=sixes by=you\) cannot be played: box sixes is already filled"):
        play.game_from_json(data, "t.json", solution=mini_solution)
    data = s.to_json()
    data["settings"]["colour"] = "red"
    with pytest.raises(JaxsolveError, match="unknown setting"):
        play.game_from_json(data, "t.json", solution=mini_solution)
    data = s.to_json()
    data["settings"]["auto_roll"] = "yes"
    with pytest.raises(JaxsolveError, match=r"^t.json: the setting auto_roll is malformed: 'yes' is not true or false$"):
        play.game_from_json(data, "t.json", solution=mini_solution)
    data = s.to_json()
    data["rules"]["dice"] = 9
    with pytest.raises(JaxsolveError, match="dice must be between"):
        play.game_from_json(data, "t.json")
    data = s.to_json()
    assert data["kind"] == games.get_game("kniffel").family
    data["kind"] = "other"
    with pytest.raises(JaxsolveError, match=r"t.json: kind 'other' does not match game kniffel \(category\)"):
        play.game_from_json(data, "t.json", solution=mini_solution)


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "broken JSON"),
        ('{"format": "other"}', "not a saved game of jaxsolve play"),
        ('{"format": "jaxsolve-play", "version": 99}', "version 99"),
        ('{"format": "jaxsolve-play", "version": 1, "game": "kniffel"}', "written by an older jaxsolve"),
        ('{"format": "jaxsolve-play", "version": 2, "game": "kniffel"}', "'kind' is missing"),
        ('[1, 2]', "not a saved game"),
    ],
)
def test_broken_save_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(JaxsolveError, match=message):
        play.load_game(path)


def test_heuristic_ratings_sit_beside_the_options_they_match():
    from jaxsolve.games.category.simulation import heuristic
    from jaxsolve.games.category.sheets.kniffel import get_rules
    from jaxsolve.games.category.answers.play_state import rating_of
    from jaxsolve.games.category.sheets.position import Position
    from jaxsolve.play import PlayOption

    rules = get_rules("kniffel-apl")
    ratings = heuristic.ratings(rules, Position.empty(rules), (2, 3, 4, 5, 6), 0)
    fill = PlayOption("fill large_straight (40)", 0.0, 0.0, {"action": "fill", "box": "large_straight"})
    keep = PlayOption("keep 2 3, re-throw 3", 0.0, 0.0, {"action": "keep", "keep": [2, 3]})
    top = next(r for r in ratings if r["box"] == "large_straight")
    assert rating_of(fill, ratings) == f"{top['value']:.2f} large_straight"
    assert rating_of(keep, ratings) == ""  # no re-throw is left: the heuristic only fills


def test_category_board_is_the_sheet_and_the_heuristic_is_refused_off_the_kniffel_sheet(mini_solution):
    from jaxsolve.cli.play import Screen

    s = mini(mini_solution)
    s.enter("6 6 6")
    s.choose("fill sixes")
    s.enter("1 2 3")
    out = io.StringIO()
    Screen(True, 3, out).show(s)
    lines = out.getvalue().splitlines()
    assert lines[0] == "-> you threw 1 2 3" and lines[1].startswith("mini: turn 2 of 8, sheet 18 + bonus 0 = 18 points")
    assert "sheet: aces ., twos ., threes ., fours ., fives ., sixes 18, kniffel ., chance ." in lines
    assert lines[-2].startswith("  3. ") and lines[-1] == "     ... 11 more (type all)"  # 7 open boxes and 7 keeps
    with pytest.raises(PlayError, match="defined for the 5-dice Kniffel sheet only, not mini"):
        s.ratings()


# ----------------------------------------------------------------------------- raab games


def test_settings_come_from_the_registration(piglet_full, mini_solution):
    assert play.settings_of(games.get_game("raab")) == ("seed", "auto_roll", "opponent", "first")
    with pytest.raises(JaxsolveError, match="unknown setting.s. turns for raab; it takes seed, auto_roll, opponent, first"):
        play.new_game("raab", "piglet", piglet_full, turns=3)
    with pytest.raises(JaxsolveError, match="unknown setting.s. first for kniffel"):
        mini(mini_solution, first="them")


def test_raab_values_match_the_plain_python_reference(piglet_full):
    from raab_reference import solve_reference

    start, values = solve_reference(goal=2, points=(0, 1), bust=1, last_turn=False)
    s = play.new_game("raab", "piglet", piglet_full, seed=1)
    assert s.start_win() == pytest.approx(4 / 7, abs=1e-12)
    s.enter("2")  # turn total 1: roll or stop
    opts = {o.move["action"]: o.value for o in s.options()}
    assert opts["stop"] == pytest.approx(1 - start[(0, 0, 1)], abs=1e-10)
    assert opts["roll"] == pytest.approx(0.5 * (1 - start[(0, 0, 0)]) + 0.5 * values[(0, 0, 2, 0)], abs=1e-10)
    assert s.options()[0].move["action"] == "roll"


def test_raab_bust_bank_and_the_bot(piglet_full):
    s = play.new_game("raab", "piglet", piglet_full, seed=1, first="them")
    assert s.mover() == "them" and s.start_win() == pytest.approx(3 / 7, abs=1e-12)
    s.enter("1")  # their bust: the turn passes to you
    assert s.mover() == "you" and s.state.them == 0
    s.enter("2")
    s.choose("stop")
    assert s.state.you == 1 and s.mover() == "them"
    assert s.decisions()[-1].regret > 0  # rolling was better (see the reference test)
    # their turn total 1 against your 1: rolling wins with 1/2 + 1/2 * (1 - P(1, 0)) = 0.6 (P(1, 0) = 4/5
    # by hand), stopping leaves you P(1, 1) = 2/3, so them 1/3: the bot rolls, by itself
    s.enter("2")
    assert s.moves[-1]["auto"] and s.moves[-1]["action"] == "roll" and s.awaiting() == "dice" and s.mover() == "them"
    s.enter("2")  # 2 points reach the goal: banked by itself, they win
    assert s.over and s.state.winner == "them" and s.summary().score == 0.0
    with pytest.raises(PlayError, match="game is over"):
        s.enter("")


def test_raab_human_opponent_and_bad_input(piglet_full):
    s = play.new_game("raab", "piglet", piglet_full, seed=2, opponent="human", first="them")
    with pytest.raises(PlayError, match="not a face"):
        s.enter("3")
    with pytest.raises(PlayError, match="a throw is due"):
        s.enter("stop")
    s.enter("2")
    assert s.mover() == "them" and s.awaiting() == "choice"
    with pytest.raises(PlayError, match="unknown choice"):
        s.enter("jump")
    s.choose("stop")  # typed for them: no regret of yours
    assert s.state.them == 1 and not s.decisions()
    s.enter("2")
    s.choose("roll")
    s.enter("2")
    assert s.over and s.state.winner == "you"
    data = json.loads(json.dumps(s.to_json()))
    back = play.game_from_json(data, solution=piglet_full)
    assert back.state == s.state and back.opponent == "human"


def test_raab_total_beyond_the_state_bound_banks_the_bound():
    from jaxsolve.games.raab.rules import get_rules

    rules = get_rules("raab", goal=3, bound=4)
    s = play.new_game("raab", rules, seed=1, opponent="human")
    s.enter("5")  # 0 + 5 > 4: stopped by itself, the bound banked (as the solver's state space has it)
    assert s.moves[-1] == {"action": "stop", "by": "you", "forced": True, "auto": True}
    assert s.state.you == 4 and s.mover() == "them" and "4 banked" in s.news[-1]
    s.enter("6")  # their last turn busts: you reached the goal first
    assert s.over and s.state.winner == "you"


# ----------------------------------------------------------------------------- zehntausend games


def test_zehntausend_turns_write_bust_and_set_aside(z_solution):
    s = play.new_game("zehntausend", None, z_solution, seed=1, turns=3)
    assert s.summary().expected == pytest.approx(3 * 527.2004, abs=3e-4)  # E(0, 6), Peter (2013)
    s.enter("1 5 5 2 3 4")
    with pytest.raises(PlayError, match="not a usable set-aside"):
        s.choose("aside 2")
    listed = next(o for o in s.options() if o.move.get("set_aside") == ["1", "1*"])
    s.choose("aside 1 1*")  # a 1 and two 5s as a pseudo-1: 200, four dice go back
    assert (s.state.points, s.state.dice) == (200, 4)
    s.enter("2 3 4 6")  # no scoring die: bust
    assert s.state.turn == 2 and s.state.total == 0 and s.awaiting() == "dice"
    s.enter("1 1 1 2 3 4")
    s.choose("write")
    assert s.state.total == 1000 and s.state.turn == 3
    s.enter("5 2 3 4 6 6")
    opts_before = s.options()
    assert opts_before[0].value >= opts_before[-1].value
    s.choose("b")
    s.undo()
    assert s.options() == opts_before
    while not s.over:
        s.enter("")
    regrets = [d.regret for d in s.decisions()]
    assert regrets[0] == pytest.approx(listed.regret) and all(r == 0 for r in regrets[2:])
    assert s.summary().regret == pytest.approx(sum(regrets))


# ----------------------------------------------------------------------------- the terminal


def spawn(*args, timeout=180):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    return pexpect.spawn(sys.executable, ["-m", "jaxsolve", "play", *args], cwd=str(ROOT), env=env, encoding="utf-8", timeout=timeout, dimensions=(50, 200))


PROMPT = r"(your|their) (throw|choice)[^\n]*> "

# pexpect forks this process to start the child on a pseudo-terminal; JAX warns at every fork
# (the child runs exec at once, so the warning does not apply).
pty_test = pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")


def play_to_end(child, limit=400):
    for _ in range(limit):
        i = child.expect([PROMPT, "game over"])
        if i == 1:
            child.expect(pexpect.EOF)
            return child.before
        child.sendline("")
    raise AssertionError("the game did not end")


def finish(child) -> int:
    child.close()
    return child.exitstatus


def write_save(path: Path, game: str, kind: str, rules, **settings):
    data = {"format": "jaxsolve-play", "version": 2, "game": game, "kind": kind, "rules": rules.to_dict(), "settings": {"seed": 5, "auto_roll": False, **settings}, "moves": []}
    path.write_text(json.dumps(data))


@pty_test
def test_terminal_category_game_with_bad_input_undo_save_and_resume(tmp_path):
    save = tmp_path / "mini.json"
    write_save(save, "kniffel", "category", MINI)  # a reduced sheet: start it from a save file
    child = spawn("kniffel", "--resume", str(save), "--plain")
    child.expect("your throw, 3 dice")
    child.sendline("6 6 6")
    child.expect("your choice")
    child.sendline("fill sixes")
    child.expect("filled sixes with 18")
    child.expect("your throw")
    child.sendline("9 9 9")
    child.expect(r"'9' is not a face of the die \(1..6\)")
    child.sendline("6 6 6")
    child.expect("your choice")
    child.sendline("fill sixes")
    child.expect(r"box sixes is already filled \(18\)")
    child.sendline("keep 1")
    child.expect("cannot keep 1: the dice show 6 6 6")
    child.sendline("h")
    child.expect("defined for the 5-dice Kniffel sheet only")
    child.sendline("undo")
    child.expect("took the last move back")
    child.expect("your throw")
    child.sendline("5 5 5")
    child.expect("your choice")
    child.sendline("fill fives")
    child.expect(r"filled fives with 15 \(\+10 bonus\)")
    child.expect("your throw")
    child.sendline("q")
    child.expect("game saved to")
    child.expect(pexpect.EOF)
    assert finish(child) == 0
    saved = json.loads(save.read_text())
    assert saved["summary"]["score"] == 43 and not saved["over"]

    child = spawn("kniffel", "--resume", str(save), "--plain")
    child.expect(r"sheet 33 \+ bonus 10 = 43 points")
    tail = play_to_end(child)
    assert finish(child) == 0
    saved = json.loads(save.read_text())
    assert saved["over"]
    points = sum(int(re.search(r"\((\d+)\)$", m["label"]).group(1)) for m in saved["moves"] if m["action"] == "fill")
    score = re.search(r"score (\d+) \(sheet (\d+) \+ bonus (\d+)\)", tail)
    assert int(score.group(2)) == points and int(score.group(1)) == points + int(score.group(3))
    decisions = [m for m in saved["moves"] if "regret" in m]
    regret = sum(m["regret"] for m in decisions)
    assert f"your total regret: {regret:.4f} points over {len(decisions)} decisions" in tail
    assert decisions[0]["label"] == "fill sixes (18)" and decisions[0]["best"] == "fill kniffel (50)" and regret >= decisions[0]["regret"] > 0


@pty_test
def test_terminal_raab_duel_in_rich_mode():
    child = spawn("raab", "--rules", "piglet", "--seed", "4")
    child.expect("your throw, 1 die")
    child.sendline("3")
    child.expect(r"'3' is not a face of the die \(1..2\)")
    child.sendline("stop")
    child.expect("a throw is due")
    child.sendline("2")
    child.expect("you threw 2: turn total 1")
    child.expect("your choice")
    child.sendline("jump")
    child.expect("unknown choice 'jump'")
    child.sendline("stop")
    child.expect("you bank 1")
    child.expect("their throw")
    child.sendline("undo")
    child.expect("took the last move back")
    child.expect("your choice")
    child.sendline("b")
    child.expect("you roll again")
    tail = play_to_end(child)
    assert "your win probability at the start (both optimal): 0.5714" in tail
    assert re.search(r"you (won|lost): you \d, them \d", tail)
    assert finish(child) == 0


@pty_test
def test_terminal_zehntausend_with_save_and_resume(tmp_path):
    save = tmp_path / "z.json"
    child = spawn("zehntausend", "--turns", "2", "--seed", "9", "--save", str(save), "--plain")
    child.expect("your throw, 6 dice")
    child.sendline("1 5 5 2 3 4")
    child.expect("your choice")
    child.sendline("aside 2")
    child.expect("2 is not a usable set-aside of 1 2 3 4 5 5")
    child.sendline("aside 1 5")
    child.expect("set aside 1 5: 150 this turn, throw 4")
    child.sendline("undo")
    child.expect("the dice show 1 2 3 4 5 5")
    child.sendline("aside 1")
    child.expect("100 set aside this turn; throw 5 dice")
    child.expect("your throw")
    child.sendeof()  # the end of input quits like q
    child.expect("game saved to")
    child.expect(pexpect.EOF)
    assert finish(child) == 0

    child = spawn("zehntausend", "--resume", str(save), "--plain")
    child.expect("zehntausend peter-2013: turn")
    tail = play_to_end(child)
    assert finish(child) == 0
    assert "optimal expectation from the start: 1054.4008 points" in tail  # 2 x E(0, 6) = 2 x 527.2004
    total = re.search(r"total (\d+) after 2 of 2 turns", tail)
    assert total and int(total.group(1)) == json.loads(save.read_text())["summary"]["score"]


def run_cli(*args):
    from typer.testing import CliRunner

    from jaxsolve.cli import app

    return CliRunner().invoke(app, ["play", *args])


@pytest.mark.parametrize(
    "args, message",
    [
        (["kniffel", "--rules", "nope"], "unknown Kniffel rules 'nope'"),
        (["nogame"], "No such command 'nogame'"),
        (["raab", "--resume", "missing.json"], "saved game missing.json does not exist"),
        (["zehntausend", "--save", "game.txt"], "output path must end in .json"),
        (["raab", "--first", "them", "--seed", "3", "--resume", "g.json"], "--seed, --first cannot be combined with --resume"),
        (["zehntausend", "--turns", "3", "--resume", "g.json"], "--turns cannot be combined with --resume"),
        (["raab", "--rules", "piglet", "--show-heuristic"], "No such option: --show-heuristic"),
    ],
)
def test_bad_command_lines_are_one_error_line(args, message):
    result = run_cli(*args)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr


def test_a_foreign_or_broken_resume_file_is_one_error_line(tmp_path):
    other = tmp_path / "raab.json"
    from jaxsolve.games.raab.rules import PRESETS

    write_save(other, "raab", "raab", PRESETS["piglet"], opponent="bot", first="you")
    result = run_cli("kniffel", "--resume", str(other))
    assert result.exit_code == 1 and result.stderr.strip() == f"error: {other} holds a game of 'raab', not kniffel"
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "jaxsolve-play", "version": 2, "game": "raab", "kind": "raab", "rules": {"goal": -3}, "settings": {"seed": 1}, "moves": []}')
    result = run_cli("raab", "--resume", str(broken))
    assert result.exit_code == 1 and result.stderr.startswith(f"error: {broken}: goal must be between")


@pytest.mark.slow
@pty_test
def test_terminal_kniffel_apl_game_with_the_heuristic():
    child = spawn("kniffel", "--rules", "kniffel-apl", "--seed", "2", "--show-heuristic", timeout=600)
    child.expect("your throw, 5 dice")
    child.sendline("")
    child.expect("heuristic ratings: ")
    child.expect("your choice")
    child.sendline("h")
    child.expect("heuristic ratings off")
    tail = play_to_end(child)
    assert re.search(r"optimal expectation from the start: 189\.9733 points", tail)  # the APL article's E^SP
    assert "your total regret: 0.0000 points over" in tail
    assert finish(child) == 0


# ----------------------------------------------------------------------------- a game from outside jaxsolve


@pytest.fixture
def one_die_pig():
    """The test suite's own game (``onedie_pig.GAME``), registered for one test."""
    from onedie_pig import GAME

    games.register(GAME)
    try:
        yield GAME
    finally:
        games.unregister(GAME.name)


def test_a_game_without_a_game_class_cannot_be_played(one_die_pig):
    from jaxsolve.cli import build_app, game_commands

    games.unregister(one_die_pig.name)
    games.register(dataclasses.replace(one_die_pig, play_game=None))
    with pytest.raises(JaxsolveError, match="game one-die-pig cannot be played"):
        play.new_game("one-die-pig")
    assert "play" not in game_commands(build_app(), "one-die-pig")


def test_a_game_from_outside_plays_with_the_defaults(one_die_pig, tmp_path):
    """``play one-die-pig``: no board, no ratings, no warm-up of its own, the default summary."""
    from typer.testing import CliRunner

    from jaxsolve.cli import build_app

    save = tmp_path / "pig.json"
    lines = ["", "hold", "h", "roll", "nonsense", "moves", "?", "undo", "q"]
    result = CliRunner().invoke(build_app(), ["play", "one-die-pig", "--seed", "3", "--plain", "--no-cache", "--save", str(save)], input="\n".join(lines) + "\n")
    out = result.stdout
    assert result.exit_code == 0, result.stderr + out
    assert "d4-to-8: you 0, them 0; you to move, turn total 0" in out
    assert "options (your win probability, best first):" in out
    assert "! one-die-pig has no second-opinion ratings to show" in out
    assert "a choice                 a number from the list, or b (Enter) for the best" in out
    assert "-> took the last move back" in out and f"game saved to {save}" in out
    data = json.loads(save.read_text())
    assert data["kind"] == "one-die-pig" and data["settings"] == {"seed": 3, "auto_roll": False}
    back = play.load_game(save, game="one-die-pig")
    assert back.moves == play.game_from_json(data).moves and back.seed == 3
    result = CliRunner().invoke(build_app(), ["play", "one-die-pig", "--show-heuristic", "--no-cache"], input="q\n")
    assert result.exit_code == 1 and "error: No such option: --show-heuristic" in result.stderr


def test_a_game_s_ratings_and_summary_wording_are_shown(one_die_pig):
    """A game that gives ``ratings`` and an ``expected_label``: the screen shows them, nothing else changes."""
    from onedie_pig import OneDiePigGame

    from jaxsolve.cli.play import Screen

    class Rated(OneDiePigGame):
        def ratings(self):
            return play.Ratings("coin", tuple(f"{i}/2" for i, _ in enumerate(self.options())), "heads; tails")

        def summary(self):
            return dataclasses.replace(super().summary(), expected_label="your chance at the start")

    s = Rated("one-die-pig", one_die_pig.get_rules(), seed=3)
    s.enter("3")
    out = io.StringIO()
    Screen(True, 10, out).show(s, heuristic=True)
    text = out.getvalue()
    assert re.search(r"  1\. \w+ +value +\d\.\d{4}  regret +0\.0000  coin 0/2\n", text)
    assert re.search(r"  2\. \w+ .*  coin 1/2\n", text) and "coin ratings: heads; tails" in text
    out = io.StringIO()
    Screen(True, 10, out).summary(s)
    assert f"your chance at the start: {s.summary().expected:.4f}\n" in out.getvalue()
