"""Advice against one opponent who plays to win (``twoplayer_advice``), ``advise --against`` and
``play --against optimal``: the win probabilities of every option against the independent brute
force on tiny sheets and against the table's next states, one clear line for bad input, and a
scripted end game on the command line with save and resume."""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from itertools import combinations, product

import numpy as np
import pytest
from twoplayer_reference import TwoPlayer
from typer.testing import CliRunner
from web_helpers import registered, yacht_small_game
from yacht_reference import points as yacht_points

from jaxsolve import play
from jaxsolve.cli import app, build_app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solutions
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.objectives.twoplayer import advice as twoplayer_advice
from jaxsolve.games.category.sheets import yacht
from jaxsolve.games.category.sheets.position import parse_position

runner = CliRunner()
TINY = yacht.small().replace(dice=2)
"""Yacht's scoring on two dice (nine boxes; a turn start leaves three open on each sheet here)."""
GAME = yacht_small_game()
"""The reduced Yacht as a registered game: the command line's advise and play on it."""
SMALL = GAME.get_rules("small")


def sides(rules, mine: str, my_score: int, theirs: str, their_score: int, i_started: bool) -> twoplayer_advice.Sides:
    return twoplayer_advice.Sides(parse_position(mine, rules), my_score, parse_position(theirs, rules), their_score, i_started)


def open_names(rules, position) -> frozenset:
    return frozenset(rules.box_names[b] for b in position.open_boxes)


def reference_options(ref: TwoPlayer, mine, theirs, starter_moves: bool, lead: int):
    """``options(throw, left)``: {("box", name) or ("keep", faces): P(win)} of the player to move,
    from the reference's own pieces (``fill``, ``win``) and a keep recursion written here."""
    leads = np.asarray([lead])

    def write(box: str, throw) -> float:
        r, after = ref.fill(mine, box, throw)
        return float(1.0 - ref.at(ref.win(theirs, after, not starter_moves), -(leads + r))[0])

    @lru_cache(maxsize=None)
    def best(throw, left: int) -> float:
        return max(options(throw, left).values())

    @lru_cache(maxsize=None)
    def rethrow(kept, left: int) -> float:
        outcomes = Counter(tuple(sorted(kept + o)) for o in product(range(1, 7), repeat=ref.dice - len(kept)))
        return sum(n * best(t, left) for t, n in outcomes.items()) / sum(outcomes.values())

    @lru_cache(maxsize=None)
    def options(throw, left: int) -> dict:
        out = {("box", b): write(b, throw) for b in mine[0]}
        if left:
            for size in range(ref.dice):
                for kept in set(combinations(throw, size)):
                    out[("keep", kept)] = rethrow(kept, left - 1)
        return out

    return options, rethrow


def key(option) -> tuple:
    return ("box", option.box) if option.kind == "box" else ("keep", tuple(option.keep))


CASES = [
    pytest.param(("ones=1 threes=3 fours=4 fives=5 sixes=6 full_house=-", 19, "ones=2 threes=6 fours=4 fives=10 sixes=- full_house=-", 22, True, "share"), id="i-started"),
    pytest.param(
        ("ones=1 threes=3 fours=4 fives=5 sixes=6 full_house=-", 19, "ones=2 twos=4 threes=6 fours=4 fives=10 sixes=- full_house=-", 26, False, "win"),
        id="they-started-tie-mine", marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize("case", CASES)
def test_every_option_matches_the_brute_force_and_the_tables_next_state(case):
    """Every option after every throw with 0, 1 and 2 re-throws left against the reference to
    1e-9 (float64); each box's value is 1 - the other's value at the next state of the table; the
    throws' mean of the best options is the table's value of the position."""
    mine_text, my_score, theirs_text, their_score, i_started, ties = case
    s = sides(TINY, mine_text, my_score, theirs_text, their_score, i_started)
    tie = twoplayer_advice.starter_tie(ties, i_started)
    table, source = twoplayer_advice.table_for(TINY, tie, s.mine.filled, s.theirs.filled)
    assert source == "solved"
    ref = TwoPlayer(yacht_points, dice=2, throws=3, tie=twoplayer.TIES[tie], reach=300)
    ref_mine, ref_theirs = (open_names(TINY, s.mine), 0, False), (open_names(TINY, s.theirs), 0, False)
    options, rethrow = reference_options(ref, ref_mine, ref_theirs, i_started, s.lead)
    mine, theirs = s.mine.state(TINY), s.theirs.state(TINY)
    checked = 0
    for throw in sorted({tuple(sorted(t)) for t in product(range(1, 7), repeat=2)}):
        for left in range(3):
            value, got = twoplayer_advice.option_values(table, mine, theirs, s.lead, throw, left)
            want = options(throw, left)
            assert {key(o) for o in got} == set(want)
            for o in got:
                assert o.value == pytest.approx(want[key(o)], abs=1e-9), (throw, left, o.label)
                if o.kind == "box":
                    b = TINY.box_names.index(o.box)
                    after = (mine[0] | 1 << b, mine[1], mine[2])
                    assert o.value == pytest.approx(1.0 - table.value(theirs, after, -(s.lead + o.points)), abs=1e-12)
            assert value == got[0].value == pytest.approx(max(want.values()), abs=1e-9)
            checked += len(got)
    assert checked > 300
    assert rethrow((), 2) == pytest.approx(table.value(mine, theirs, s.lead), abs=1e-9)


@pytest.mark.slow
def test_the_expected_score_move_is_marked_with_its_win_probability():
    """The expected-score move (the one-player solution's best) is one of the options, with its
    P(win) and its loss against the best to win; far behind, some throw makes them differ."""
    s = sides(TINY, "ones=1 twos=2 threes=3 fours=4 fives=5 sixes=6 full_house=-", 21, "ones=2 twos=4 threes=6 fours=8 fives=10 sixes=- full_house=-", 30, True)
    sol = solutions.solution(TINY, "score", dtype="float64")
    differ = 0
    for throw in sorted({tuple(sorted(t)) for t in product(range(1, 7), repeat=2)}):
        advice = twoplayer_advice.advise(TINY, s, throw, 1, sol=sol)
        assert advice.expected is not None and advice.expected in advice.options
        assert advice.expected.regret == pytest.approx(advice.best.value - advice.expected.value, abs=1e-15)
        differ += advice.expected.regret > 1e-9
    assert differ > 0
    data = advice.to_dict()
    assert data["expected_move"] == advice.expected.label and data["lead"] == -9 and data["value"] == advice.best.value


@pytest.mark.parametrize(
    "mine, theirs, i_started, message",
    [
        ("ones=1", "start 0", True, "not your turn"),
        ("ones=1", "twos=2 threes=3 fours=4 9", False, "not your turn"),
        ("start", "ones=1 0", True, "below the 1 points"),
    ],
)
def test_impossible_positions_are_refused(mine, theirs, i_started, message):
    with pytest.raises(JaxsolveError, match=message):
        twoplayer_advice.parse_sides(TINY, mine, None, theirs, i_started)


def test_a_game_too_large_to_solve_says_how_to_build_the_table():
    s = sides(TINY, "ones=1", 1, "twos=2", 2, True)
    with pytest.raises(JaxsolveError, match="twoplayer-table yacht-small"):
        twoplayer_advice.advise(TINY, s, (1, 2), 1, game="yacht-small", max_values=1000)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--against", "ones=3 5"], "not your turn"),
        (["--against", "ones=3"], "sheet then his score"),
        (["--they-started"], "goes with --against"),
        (["--against", "start 0", "--opponent", "start 0"], "--against ranks"),
        (["--against", "start 0", "--ties", "draw"], "draw"),
    ],
)
def test_advise_against_bad_input_is_one_line(extra, message):
    result = runner.invoke(app, ["advise", "yacht", "--dice", "6", "6", "6", "5", "5", *extra])
    assert result.exit_code != 0, result.output
    assert message in result.output
    assert "Traceback" not in result.output


END = "ones=1 twos=4 threes=6 fours=8 fives=10 sixes=12 full_house=-"
"""A sheet of the reduced Yacht with choice and yacht open."""


@pytest.mark.slow
def test_advise_against_on_the_command_line():
    """The JSON answer is the library's: P(win) of each option, both moves named."""
    theirs = f"{END} choice=12"
    with registered(GAME):
        small_app = build_app()
        args = ["advise", "yacht-small", "--quiet", "-p", END, "--dice", "3", "3", "5", "--throws-left", "1", "--against", f"{theirs} 56", "--they-started"]
        result = runner.invoke(small_app, [*args, "--json", "--ties", "lose"])
        assert result.exit_code == 0, result.output
        answer = json.loads(result.stdout)
        assert answer["unit"] == "P(win)" and answer["lead"] == -15 and answer["i_started"] is False and answer["ties"] == "lose"
        assert answer["expected_move"] in [o["option"] for o in answer["options"]]
        assert sum(o["expected_score_move"] for o in answer["options"]) == 1
        text = runner.invoke(small_app, args)
        assert text.exit_code == 0 and "both playing to win" in text.output and "expected-score move:" in text.output
    mine, other = parse_position(END, SMALL).state(SMALL), parse_position(theirs, SMALL).state(SMALL)
    table, _ = twoplayer_advice.table_for(SMALL, "win", mine[0], other[0])  # a tie lost by me, the second, is won by the starter
    value, options = twoplayer_advice.option_values(table, mine, other, -15, (3, 3, 5), 1)
    assert answer["value"] == pytest.approx(value, abs=1e-12)
    assert [o["option"] for o in answer["options"]] == [o.label for o in options]
    assert [o["value"] for o in answer["options"]] == pytest.approx([o.value for o in options], abs=1e-12)


START = f"{END} / ones=2 twos=2 threes=9 fours=4 fives=5 sixes=12 full_house=-"


@pytest.mark.slow
def test_the_optimal_opponent_plays_the_two_player_table():
    """Every decision of the computer is the best for his P(win) (``option_values`` from his
    side); each of yours records its loss in P(win)."""
    with registered(GAME):
        g = play.new_game("yacht-small", SMALL, seed=5, against="optimal", start=START, they_start=True)
        assert g.two_player_source == "solved" and g.moves[0]["by"] == "them"  # his first turn played at once
        losses = []
        while not g.over:
            if g.awaiting() == "dice":
                g.throw()
                continue
            view = g.win_advice()
            assert view is not None and view.available and set(view.win) == {o.label for o in g.options()}
            worst = max(g.options(), key=lambda o: view.win[o.label][1])
            losses.append(view.win[worst.label][1])
            g.choose(g.options().index(worst) + 1)
        mine = [m["info"]["win_regret"] for m in g.moves if "info" in m]
        assert mine == pytest.approx(losses) and max(mine) > 0
        decided = 0
        for before, m in zip(g._before, g.moves):
            if m.get("by") != "them" or m["action"] == "throw":
                continue
            me, him = before.position, before.others[0].position
            lead = before.others[0].score - (me.total + before.bonus)
            _, best = twoplayer_advice.option_values(g.two_player, him.state(SMALL), me.state(SMALL), lead, before.dice, before.throws_left)
            want = {"action": "fill", "box": best[0].box} if best[0].kind == "box" else {"action": "keep", "keep": list(best[0].keep)}
            assert {k: m[k] for k in want} == want
            decided += 1
        assert decided >= 2
        # replaying the game checks every automatic move of the opponent against the table again
        again = play.game_from_json(json.loads(json.dumps(g.to_json())))
        assert again.summary().lines == g.summary().lines and "against the optimal player" in " ".join(g.summary().lines)


def test_play_against_optimal_scripted_with_save_and_resume(tmp_path):
    """An end game typed on the command line: stop after a few moves, resume, finish."""
    saved = tmp_path / "game.json"
    with registered(GAME):
        small_app = build_app()
        args = ["play", "yacht-small", "--plain", "--against", "optimal", "--start", START, "--seed", "2"]
        first = runner.invoke(small_app, [*args, "--save", str(saved)], input="\nw\n\nq\n")
        assert first.exit_code == 0, first.output
        assert "your win probability now" in first.output and "P(win)" in first.output
        assert "your move: a best move to win" in first.output  # w: the best to win
        resumed = runner.invoke(small_app, ["play", "yacht-small", "--plain", "--resume", str(saved)], input="\n" * 40)
        assert resumed.exit_code == 0, resumed.output
        assert "game over" in resumed.output and "against the optimal player" in resumed.output
        bad = runner.invoke(small_app, ["play", "yacht-small", "--plain", "--against", "optimal", "--start", "ones=1 / start"])
        assert bad.exit_code == 1 and "as many boxes filled" in bad.output and "Traceback" not in bad.output


def test_a_stored_whole_game_table_is_used_before_any_solve(monkeypatch):
    """``table_for`` asks the solution store first (``stored_table``: the whole game's table of
    ``jaxsolve twoplayer-table``) and solves nothing when it answers, whatever the size."""
    asked = []
    stored = object()
    monkeypatch.setattr(twoplayer_advice, "stored_table", lambda rules, tie, game, mover, other: asked.append((rules.name, tie, game)) or (stored, "stored"))
    monkeypatch.setattr(twoplayer, "solve", lambda *a, **k: pytest.fail("solved although a table is stored"))
    assert twoplayer_advice.table_for(TINY, "lose", 0, 0, game="yacht", max_values=1) == (stored, "stored")
    assert asked == [(TINY.name, "lose", "yacht")]
    monkeypatch.undo()
    assert twoplayer_advice.stored_table(TINY, "share", None) == (None, "")


def test_a_stored_end_game_set_answers_the_positions_inside_it(tmp_path, monkeypatch):
    """``twoplayer-table GAME --open 2`` in the store: a position with at most two open boxes on
    each sheet is answered from it (nothing solved), with the options' win probabilities of the
    subgame solved from the two sheets; a position with three open boxes is outside it."""
    from jaxsolve.games.category.objectives.twoplayer import store as twoplayer_store

    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    twoplayer_store.save("yacht", TINY, tie="share", dtype=np.float64, open_boxes=2, slice_bytes=50_000)
    s = sides(TINY, "ones=1 twos=2 threes=3 fours=4 fives=5 sixes=- full_house=-", 15, "ones=2 twos=4 threes=6 fours=8 fives=10 sixes=12 full_house=- choice=7", 49, False)
    mine, theirs = s.mine.state(TINY), s.theirs.state(TINY)
    solved, _ = twoplayer_advice.table_for(TINY, "share", s.mine.filled, s.theirs.filled, sheets=(mine, theirs))
    with monkeypatch.context() as m:
        m.setattr(twoplayer, "solve", lambda *a, **k: pytest.fail("solved although an end-game set is stored"))
        table, source = twoplayer_advice.table_for(TINY, "share", s.mine.filled, s.theirs.filled, game="yacht", max_values=1, sheets=(mine, theirs))
        assert source == "stored, every position with at most 2 open boxes each"
        for throw in ((1, 1), (3, 5), (6, 6)):
            got = twoplayer_advice.option_values(table, mine, theirs, s.lead, throw, 1)
            want = twoplayer_advice.option_values(solved, mine, theirs, s.lead, throw, 1)
            assert [o.label for o in got[1]] == [o.label for o in want[1]]
            assert [o.value for o in got[1]] == pytest.approx([o.value for o in want[1]], abs=1e-12)
    wider = sides(TINY, "ones=1 twos=2 threes=3 fours=4 fives=5 sixes=-", 15, "ones=2 twos=4 threes=6 fours=8 fives=10 full_house=- choice=7", 37, False)
    with pytest.raises(JaxsolveError, match="too large to solve"):
        twoplayer_advice.table_for(TINY, "share", wider.mine.filled, wider.theirs.filled, game="yacht", max_values=1)
