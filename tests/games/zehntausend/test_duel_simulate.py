"""Simulated duels of optimal against optimal (real dice, the raw throw tables) against the
solved win probability, and the simulation's choices against the advisor's."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app
from jaxsolve.games.zehntausend import duel, duel_advisor, duel_simulate
from jaxsolve.games.zehntausend.duel_rules import PRESETS, DuelRules

runner = CliRunner()
LAST = DuelRules("t-last", goal=300, end="last-turn", bound=400)


@pytest.fixture(scope="module")
def small():
    return duel.solve(PRESETS["small"])


@pytest.fixture(scope="module")
def small_tables(small):
    return duel_simulate.sim_tables(small)


@pytest.fixture(scope="module")
def last():
    return duel.solve(LAST)


def _agrees(sol, games, seed, bound=4.0):
    res = duel_simulate.simulate(sol, games, seed, slots=games // 10, per_slot=10)
    assert res.games == games and res.throws > games
    assert abs(res.z) < bound, res.to_dict()
    return res


def test_simulated_win_rate_matches_the_solved_value(small, small_tables):
    res = duel_simulate.simulate(small, 20_000, 1, slots=2_000, per_slot=10, tables=small_tables)  # first to 500
    assert res.games == 20_000 and res.throws > 20_000 and abs(res.z) < 4, res.to_dict()


@pytest.mark.slow
def test_simulated_win_rate_last_turn(last):
    _agrees(last, 40_000, seed=1)  # goal 300, the last-turn rule


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", [dict(goal=1000, entry=350), dict(goal=1000, end="last-turn", entry=200)], ids=str)
def test_simulated_win_rate_larger(kwargs):
    _agrees(duel.solve(DuelRules("t", **kwargs)), 200_000, seed=3)


def _advisor_best(sol, mine, theirs, turn, faces, they_started=False):
    best = duel_advisor.advise(sol, mine, theirs, turn, faces, they_started)[0]
    return (best.action, best.points, best.dice if best.action == "aside" else 0), best.value


@pytest.mark.parametrize(
    "position",
    [(0, 0, 0, [1, 5, 5, 2, 3, 4]), (200, 350, 100, [1, 5, 6, 2]), (200, 0, 200, [5, 5]), (100, 450, 300, [1, 1, 1, 5, 2, 2]), (0, 300, 250, [5])],
    ids=str,
)
def test_the_simulation_chooses_what_the_advisor_ranks_first(small, small_tables, position):
    tables = small_tables
    action, points, dice, value = duel_simulate.choose(small, tables, *position)
    expected, best = _advisor_best(small, *position)
    assert (action, points, dice) == expected
    assert value == pytest.approx(best, abs=1e-12)


@pytest.mark.slow
def test_the_last_turn_choices_match_the_advisor(last):
    tables = duel_simulate.sim_tables(last)
    for position, started in [((100, 250, 0, [1, 5, 2, 3, 4, 6]), True), ((0, 350, 150, [1, 5, 5]), True), ((150, 200, 100, [1, 2, 2, 3]), False)]:
        action, points, dice, value = duel_simulate.choose(last, tables, *position, they_started=started)
        expected, best = _advisor_best(last, *position, they_started=started)
        assert (action, points, dice) == expected
        assert value == pytest.approx(best, abs=1e-12)


def test_cli_simulate(tmp_path):
    r = runner.invoke(app, ["simulate", "zehntausend-duel", "--rules", "small", "--games", "2000", "--seed", "4", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["games"] == 2000 and 0 <= data["start_player_wins"] <= 2000 and abs(data["z"]) < 5
    r = runner.invoke(app, ["simulate", "zehntausend-duel", "--rules", "small", "--games", "0"])
    assert r.exit_code != 0 and "error:" in r.output and "Traceback" not in r.output


def test_fairest_compensation_goes_to_the_player_behind(small):
    from jaxsolve.games.zehntausend import duel_commands

    fair = duel_commands.fairest_compensation(small)
    assert fair["to"] == "second player" and fair["start_win"] == small.start[0, 0, fair["points"] // 50]


@pytest.mark.slow
def test_fairest_compensation_under_the_last_turn_rule(last):
    from jaxsolve.games.zehntausend import duel_commands

    fair = duel_commands.fairest_compensation(last)  # the last-turn rule favours the second player here
    values = last.start[0, :, 0]
    assert last.game_value < 0.5 and fair["to"] == "start player"
    assert fair["start_win"] == values[fair["points"] // 50] == values[np.argmin(np.abs(values - 0.5))]
