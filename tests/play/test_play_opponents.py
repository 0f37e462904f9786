"""``jaxsolve play GAME --opponents N``: a category game against computer opponents who play for
expected points after you, with your probability to finish first beside the options.

The opponents' decisions are checked against the expected-score advisor on their own sheets;
the win probabilities against ``winning.advise_win`` asked directly (whose own tests compare it
with the plain-Python brute force of tests/references/winning_reference.py)."""

import json
import re

import pytest

from web_helpers import registered, table_game

from jaxsolve import games, play
from jaxsolve.games.category.answers import advisor
from jaxsolve.games.category.objectives import winning
from jaxsolve.play import PlayError

GAME = table_game()  # a reduced sheet of 8 boxes and 3 dice that solves in a second
TABLE = GAME.get_rules()


@pytest.fixture(scope="module")
def solution():
    from jaxsolve.games.category.engine import solutions

    return solutions.solution(TABLE, "score", dtype="float64")


def new(sol, **settings):
    return play.new_game("kniffel", TABLE, sol, **{"seed": 3, **settings})


def test_the_opponents_play_their_turns_after_yours_by_the_expected_score_advice(solution):
    g = new(solution, opponents=2)
    g.win_on_demand = True  # no win probability here (the tests below)
    assert g.awaiting() == "dice" and g.mover() == "you" and len(g.state.others) == 2
    g.throw()
    g.choose("fill chance")
    # both opponents played a whole turn: the game is back at your throw, every sheet one box filled
    assert g.mover() == "you" and g.awaiting() == "dice"
    assert [bin(o.position.filled).count("1") for o in g.state.others] == [1, 1]
    players = [m.get("player") for m in g.moves if m.get("by") == "them"]
    assert players[0] == 1 and players[-1] == 2 and players == sorted(players)
    assert all(m["auto"] for m in g.moves if m.get("by") == "them")
    assert any(n.startswith("opponent 1 threw") for n in g.news) and any(re.match(r"opponent 2 filled \w+ with \d+", n) for n in g.news)
    # every decision of an opponent is the expected-score advisor's best on his sheet
    decisions = 0
    for before, m in zip(g._before, g.moves):
        if m.get("by") != "them" or m["action"] == "throw":
            continue
        sheet = before.others[m["player"] - 1].position
        best = advisor.advise(TABLE, sheet, before.dice, before.throws_left, "score", sol=solution).options[0]
        assert (m["action"], m.get("box"), m.get("keep")) == (("fill", best.box, None) if best.kind == "box" else ("keep", None, list(best.keep)))
        decisions += 1
    assert decisions >= 2


def test_the_win_probability_beside_the_options_and_the_loss_of_a_move(solution):
    g = new(solution, opponents=2, seed=11)
    for _ in range(3):  # a few turns in, the opponents' sheets differ from yours
        g.throw()
        g.choose("best")
        while g.awaiting() == "choice":
            g.choose("best")
    g.throw()
    s = g.state
    view = g.win_advice()
    assert view is not None and view.available and view.method == "exact"
    direct = winning.advise_win(
        TABLE, s.position, s.dice, s.throws_left, [winning.Opponent(o.position, o.score) for o in s.others], score=g.score, method="exact", sol=solution
    )
    assert {o.label: o.value for o in direct.options} == pytest.approx({k: v[0] for k, v in view.win.items()}, abs=1e-12)
    assert set(view.win) == {o.label for o in g.options()}
    assert all(0.0 <= p <= 1.0 and loss >= 0.0 for p, loss in view.win.values())
    column = g.win_column()
    assert column is not None and len(column.beside) == len(g.options()) and "best to win" in column.every
    # a move that is not the best to win: its loss is recorded in win probability and in points
    worst = max(g.options(), key=lambda o: view.win[o.label][1])
    g.choose(g.options().index(worst) + 1)
    mine = next(m for m in reversed(g.moves) if "regret" in m)
    assert mine["info"]["win_regret"] == pytest.approx(view.value - view.win[worst.label][0], abs=1e-12)
    assert mine["info"]["points_regret"] == pytest.approx(worst.regret)
    assert any(n.startswith("your move: loss ") and "in win probability" in n for n in g.news)


def test_a_game_against_opponents_to_the_end_standings_and_a_save_that_replays(solution, tmp_path):
    g = new(solution, opponents=3, seed=5)
    g.win_on_demand = True  # the win probability at the first decision only (each costs a solve of seconds)
    g.throw()
    first = g.win_advice()
    while not g.over:
        g.enter("")
    scores = [g.score] + [o.score for o in g.state.others]
    assert all(o.position.is_over for o in g.state.others) and g.state.position.is_over
    lines = g.summary().lines
    ranked = sorted(scores, reverse=True)
    assert lines[2] == "standings: " + ", ".join(f"{k}. {who} {v}" for k, (who, v) in enumerate(
        sorted(zip(["you", "opponent 1", "opponent 2", "opponent 3"], scores), key=lambda x: -x[1]), 1))
    top = [who for who, v in zip(["you", "opponent 1", "opponent 2", "opponent 3"], scores) if v == ranked[0]]
    assert lines[1] == (f"winner: {top[0]}" if len(top) == 1 else f"a tie for first: {' and '.join(top)}")
    measured = [m["info"]["win_regret"] for m in g.moves if "win_regret" in m.get("info", {})]
    assert measured == [first.win[first.best][1]] == [0.0]  # Enter plays the first by points: here also the best to win
    assert lines[3] == "your loss in win probability: 0.0000 over 1 decisions with the win probability beside"
    save = tmp_path / "g.json"
    play.save_game(g, save)
    data = json.loads(save.read_text())
    assert data["settings"]["opponents"] == 3
    back = play.load_game(save, solution=solution)
    assert back.state == g.state and back.to_json() == g.to_json()


def test_no_opponents_is_the_game_as_before_and_bad_counts_are_refused(solution):
    g = new(solution)
    assert g.state.others == () and g.settings() == {} and g.win_column() is None
    g.throw()
    g.choose("best")
    assert "info" not in g.moves[-1] and g.mover() == "you"
    for bad in (5, -1, 1.5, True, "2"):
        with pytest.raises(PlayError, match="opponents must be a whole number from 0 to 4"):
            new(solution, opponents=bad)


def test_win_probability_is_offered_only_where_it_is_quick():
    from jaxsolve.games.category.engine import solutions
    from jaxsolve.games.category.answers.play_state import win_open_limit

    assert win_open_limit(games.get_game("kniffel").get_rules("yahtzee")) == 6  # Yahtzee: from 6 open boxes on (turn 8)
    assert win_open_limit(games.get_game("maxi").get_rules("maxi-reduced-4-dice")) == 7
    assert win_open_limit(TABLE) == 8  # the reduced sheet: from the start
    # 13 boxes and 3 dice: from 8 open boxes on; before, one line says so and nothing is solved for it
    rules = games.get_game("kniffel").small()
    g = play.new_game("kniffel", rules, solutions.solution(rules, "score"), seed=2, opponents=1)
    g.throw()
    view = g.win_advice()
    assert view is not None and not view.available and view.win is None
    assert view.note == "win probability from 8 open boxes on (turn 6); before that its exact answer takes too long to wait for (`jaxsolve target-table kniffel` gives the table's answer from the start)"
    assert g.win_column().every == view.note and g.win_column().beside == ()
    g.choose("best")
    assert [m for m in g.moves if "regret" in m][-1]["info"] == {"points_regret": 0.0}


# ----------------------------------------------------------------------------- the command line


def run_cli(*args, stdin=""):
    from typer.testing import CliRunner

    from jaxsolve.cli import build_app

    return CliRunner().invoke(build_app(), ["play", *args], input=stdin)


def test_the_command_line_shows_the_opponents_moves_and_your_win_probability():
    """Your first turn (and the opponents' after it), then quit (the whole game: the slow test below)."""
    with registered(GAME):
        result = run_cli("kniffel-table", "--opponents", "2", "--seed", "4", "--plain", stdin="\n" * 4 + "q\n")
    out = result.stdout
    assert result.exit_code == 0, out[-2000:] + result.stderr
    assert "opponents: opponent 1 0, opponent 2 0" in out
    assert re.search(r"-> opponent 1 threw \d \d \d", out) and re.search(r"-> opponent 2 filled \w+ with \d+(?: \(\+\d+ bonus\))?: \d+ points?", out)
    assert re.search(r"P\(win\) \d\.\d{4} loss \d\.\d{4}  <- best to win", out) and "your win probability now: " in out
    assert re.search(r"-> your move: (a best move to win|loss \d\.\d{4} in win probability)", out)
    assert "leading: " not in out and "game not saved" in out


@pytest.mark.slow
def test_the_command_line_plays_a_whole_game_against_two_opponents_by_stdin(tmp_path):
    save = tmp_path / "table.json"
    with registered(GAME):
        result = run_cli("kniffel-table", "--opponents", "2", "--seed", "4", "--plain", "--save", str(save), stdin="\n" * 200)
    out = result.stdout
    assert result.exit_code == 0, out[-2000:] + result.stderr
    assert "opponents: opponent 1 0, opponent 2 0" in out
    assert re.search(r"-> opponent 1 threw \d \d \d", out) and re.search(r"-> opponent 2 kept|-> opponent 2 filled", out)
    assert re.search(r"-> opponent 2 filled \w+ with \d+(?: \(\+\d+ bonus\))?: \d+ points?", out)
    assert re.search(r"P\(win\) \d\.\d{4} loss \d\.\d{4}  <- best to win", out)
    assert "your win probability now: " in out
    assert re.search(r"-> your move: (a best move to win|loss \d\.\d{4} in win probability)", out)
    assert "game over" in out and re.search(r"(winner: (you|opponent \d)|a tie for first: )", out) and "standings: 1. " in out
    data = json.loads(save.read_text())
    assert data["over"] and data["settings"]["opponents"] == 2


def test_the_command_line_refuses_a_bad_count_in_one_line():
    with registered(GAME):
        for bad in ("5", "-1"):
            result = run_cli("kniffel-table", "--opponents", bad)
            assert result.exit_code != 0
            lines = (result.stderr or result.stdout).strip().splitlines()
            assert len(lines) == 1 and lines[0] == f"error: --opponents must be between 0 and 4, got {bad}", result.stderr + result.stdout


def test_before_the_exact_limit_the_win_probability_is_the_stored_target_tables_answer(solution, monkeypatch, tmp_path):
    """With the whole game's target table in the solution store, a decision with more open boxes
    than ``win_open_limit`` gets the table's answer (``advise_win(method="table")``) instead of
    the note."""
    from jaxsolve.games.category.answers import play_state
    from jaxsolve.games.category.engine import tables
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.io import cache

    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    monkeypatch.setattr(play_state, "WIN_KEEPS_OPEN", 4 * len(tables.space(TABLE.dice).keeps))
    assert play_state.win_open_limit(TABLE) == 2
    g = new(solution, opponents=1)
    g.throw()
    assert g.win_method() is None  # 8 open boxes, no stored table: the note
    tab = TG.solve_target(TABLE, dtype="float32", chunk=8)
    path = TG.store_path("kniffel", TABLE)
    path.parent.mkdir(parents=True, exist_ok=True)
    TG.save_table(path, tab, game="kniffel")
    TG.seal_table(path)
    assert cache.enabled() and path.is_file()
    g = new(solution, opponents=1)
    g.throw()
    assert g.win_method() == "table"
    view = g.win_advice()
    assert view is not None and view.available and view.method == "table"
    s = g.state
    rivals = [winning.Opponent(o.position, o.score) for o in s.others]
    direct = winning.advise_win(TABLE, s.position, s.dice, s.throws_left, rivals, score=s.position.total + s.bonus, method="table", table=tab)
    assert view.value == pytest.approx(direct.value, abs=1e-6)
    assert view.best == direct.options[0].label
