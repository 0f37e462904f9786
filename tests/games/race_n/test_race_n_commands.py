"""The race games for N players through ``jaxsolve``'s own commands (``pig-table``,
``zehntausend-table``): the registry and ``--players``, advise against the brute force, the note
on a cycle with several equilibria, the solution cache (a second advise in a new process reads
the table without JAX), simulate, plot, play against computer players, and one ``error:`` line
with exit status 1 for every kind of bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import race_n_reference as ref
from typer.testing import CliRunner

from jaxsolve import games
from jaxsolve.cli import app
from jaxsolve.games.raab.table_game import SPEC as PIG_SPEC
from jaxsolve.games.race_table_game import SolvedTable, save

runner = CliRunner()
PIG = "pig-table"
ZT = "zehntausend-table"
TINY = ["--rules", "small-3", "--goal", "6"]  # three players, a d6 (a 1 busts) to 6: the brute force's game


def run(*args, cache=None):
    extra = ["--cache-dir", str(cache)] if cache is not None else ["--no-cache"]
    return runner.invoke(app, [*args, *extra])


def one_error_line(result) -> str:
    lines = [ln for ln in result.stderr.strip().splitlines() if ln.strip()]
    assert result.exit_code == 1 and len(lines) == 1 and lines[0].startswith("error:"), (result.exit_code, result.stderr, result.stdout)
    return lines[0]


def test_both_games_are_registered_with_a_players_option():
    for name in (PIG, ZT):
        g = games.get_game(name)
        assert {"solve", "advise", "plot"} <= set(g.commands)
        assert "players" in [p.name for p in g.override_params()]
        assert g.build_rules(None, players=4).players == 4
    assert "simulate" in games.get_game(PIG).commands and games.get_game(PIG).play_game is not None


@pytest.mark.parametrize("players", [3, pytest.param(4, marks=pytest.mark.slow)])
def test_advise_gives_every_seats_win_probability_of_the_brute_force(players):
    table = ref.solve(players, 6, 6, 1)
    scores = (2, 1, 0, 3)[:players]
    result = run("advise", PIG, *TINY, "--players", str(players), "--scores", ",".join(map(str, scores)), "--turn", "2", "--json")
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    options = {o["option"]: np.array(o["win"]) for o in advice["options"]}
    assert set(options) == {"roll", "bank 2"} and advice["seats"][0] == "you"
    banked = scores[1:] + (scores[0] + 2,)  # the next player's turn at the new scores, seen from him
    np.testing.assert_allclose(options["bank 2"], np.roll(table.values[banked], 1), rtol=0, atol=1e-12)
    best = max(options.values(), key=lambda v: v[0])
    assert advice["value"] == pytest.approx(best[0], abs=1e-15) and advice["options"][0]["regret"] == 0.0
    for v in options.values():
        assert abs(v.sum() - 1.0) < 1e-12


def test_advise_at_the_turn_start_is_the_tables_vector():
    table = ref.solve(3, 6, 6, 1)
    result = run("advise", PIG, *TINY, "--scores", "4,0,5", "--json")
    assert result.exit_code == 0, result.output
    roll = np.array(json.loads(result.stdout)["options"][0]["win"])
    np.testing.assert_allclose(roll, table.values[(4, 0, 5)], rtol=0, atol=1e-12)


def test_advise_text_names_every_seat_and_the_ranking():
    result = run("advise", PIG, *TINY, "--scores", "2,1,0", "--turn", "3")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("small-3+custom (3 players, goal 6): banked you 2, player +1 1, player +2 0; you move, turn total 3")
    assert any(ln.strip().startswith("roll: you 0.") and "player +2" in ln for ln in lines)
    assert "regret" in result.stdout and "win probability" in result.stdout


@pytest.mark.slow
def test_zehntausend_advise_writes_or_throws_on():
    result = run("advise", ZT, "--rules", "small-3", "--goal", "300", "--scores", "0,100,200", "--turn", "150", "--dice-left", "3", "--json")
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    assert {o["option"] for o in advice["options"]} == {"throw 3 on", "write 150"}
    assert all(abs(sum(o["win"]) - 1.0) < 1e-12 for o in advice["options"])


def test_the_note_of_a_cycle_with_several_equilibria(tmp_path):
    """A table whose sidecar lists the cycle of (2, 1, 0) as one with two pure equilibria: advise
    says so in one line at each rotation of it, and nowhere else."""
    g = games.get_game(PIG)
    rules = g.small().replace(name="coin-note")
    sol = g.solve(rules)
    cycle = {"scores": [0, 2, 1], "members": [], "pure": 2, "mixed": 0, "selected": "pure", "mixer": None, "q": None}
    path = tmp_path / "noted.npy"
    save(PIG_SPEC, path, SolvedTable(rules, sol.values, [cycle]))
    for scores, noted in (("2,1,0", True), ("1,0,2", True), ("0,1,2", False)):
        result = run("advise", PIG, "--table", str(path), "--scores", scores)
        assert result.exit_code == 0, result.output
        notes = [ln for ln in result.stdout.splitlines() if "pure equilibria" in ln]
        assert len(notes) == int(noted), result.stdout
    mixed = {**cycle, "pure": 0, "mixed": 1, "selected": "mixed", "mixer": [1, 2], "q": [0.25, 0.75]}
    save(PIG_SPEC, path, SolvedTable(rules, sol.values, [mixed]))
    result = run("advise", PIG, "--table", str(path), "--scores", "1,0,2", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["note"] == (
        "this position's cycle has no pure equilibrium: the values are a stationary mixed one, in which the mover at 2 and the mover at 1 "
        "play their lower-risk policy with probability 0.2500 and 0.7500 (the others pure)"
    )


@pytest.mark.slow
def test_pig_to_50_names_its_cycle_with_two_pure_equilibria():
    """Three-player Pig to 50: the cycle of the players at 7, 7 and 0 has two pure equilibria
    (``test_pig_goal_50_has_one_cycle_with_two_pure_equilibria``); advise says so there."""
    result = run("advise", PIG, "--rules", "pig-3", "--goal", "50", "--scores", "7,0,7", "--quiet")
    assert result.exit_code == 0, result.output
    assert "this position's cycle has 2 pure equilibria" in result.stdout


def test_a_second_advise_in_a_new_process_reads_the_cached_table_without_jax(tmp_path):
    args = ["advise", PIG, *TINY, "--players", "3", "--scores", "2,1,0", "--turn", "2", "--json", "--cache-dir", str(tmp_path)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    code = "import sys\nfrom jaxsolve.cli import main\nsys.argv = ['jaxsolve', *sys.argv[1:]]\ntry:\n    main()\nfinally:\n    print('jax' in sys.modules, file=sys.stderr)"
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert proc.returncode == 0, proc.stderr
    assert "using the cached table" in proc.stderr and proc.stderr.strip().splitlines()[-1] == "False"
    assert json.loads(proc.stdout) == json.loads(first.stdout)


def test_solve_reports_every_seat_and_exports(tmp_path):
    out = tmp_path / "pig.npy"
    result = run("solve", PIG, *TINY, "--json", "--out", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    np.testing.assert_allclose(data["start"], ref.solve(3, 6, 6, 1).values[(0, 0, 0)], rtol=0, atol=1e-12)
    back = games.get_game(PIG).load(out)
    assert back.rules.goal == 6 and back.values.shape == (6, 6, 6, 3)


def test_simulate_each_seat_within_four_standard_errors():
    result = run("simulate", PIG, *TINY, "--games", "40000", "--seed", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert sum(data["wins"]) == 40000
    assert all(abs(z) < 4 for z in data["z"]), data
    text = run("simulate", PIG, *TINY, "--games", "1000")
    assert "seat 3: won" in text.stdout and "standard error" in text.stdout


def test_plot_writes_one_png(tmp_path):
    result = run("plot", PIG, *TINY, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    png = tmp_path / "small-3+custom-seats.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_play_against_two_computer_players_to_the_end():
    result = runner.invoke(app, ["play", PIG, *TINY, "--seat", "2", "--seed", "5", "--plain", "--no-cache"], input="\n" * 400)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "you in seat 2" in out and "win probability now: player 1" in out
    assert "game over" in out and "your win probability at the start" in out


def test_play_refuses_a_seat_beyond_the_table():
    result = runner.invoke(app, ["play", PIG, *TINY, "--seat", "4", "--plain", "--no-cache"], input="\n")
    assert "seat must be 1..3" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["advise", PIG, *TINY, "--scores", "1,2"], "needs 3 banked scores"),
        (["advise", PIG, *TINY, "--scores", "1,2,3,4"], "needs 3 banked scores"),
        (["advise", PIG, *TINY, "--scores", "1,-2,3"], "cannot be negative"),
        (["advise", PIG, *TINY, "--scores", "1,6,3"], "reached the goal 6"),
        (["advise", PIG, *TINY, "--scores", "1,x,3"], "whole numbers"),
        (["advise", PIG, *TINY, "--scores", "1,2,3", "--turn", "5"], "already reaches the goal"),
        (["advise", PIG, *TINY, "--players", "5", "--scores", "0,0,0,0,0"], "--players must be between 2 and 4"),
        (["advise", PIG, *TINY, "--players", "1", "--scores", "0"], "--players must be between 2 and 4"),
        (["advise", PIG, "--goal", "100000000", "--scores", "0,0,0"], "--goal must be between"),
        (["advise", PIG, "--goal", "1000", "--players", "4", "--scores", "0,0,0,0"], "too many"),
        (["advise", ZT, "--rules", "small-3", "--scores", "0,75,0"], "multiple of 50"),
        (["advise", ZT, "--goal", "1000000", "--scores", "0,0,0"], "--goal must be between"),
        (["advise", ZT, "--goal", "10000", "--players", "4", "--scores", "0,0,0,0"], "too many"),
        (["advise", ZT, "--rules", "small-3", "--scores", "0,0,0", "--dice-left", "7"], "--dice-left must be between 0 and 6"),
        (["advise", ZT, "--rules", "small-3", "--scores", "0,0,0", "--turn", "120"], "multiple of 50"),
        (["advise", ZT, "--rules", "small-3", "--entry", "200", "--scores", "0,150,0"], "below the entry minimum 200"),
        (["advise", ZT, "--rules", "small-3", "--scores", "0,0,0", "--turn", "100", "--dice", "155"], "cannot occur"),
        (["advise", ZT, "--rules", "small-3", "--scores", "0,0,0", "--turn", "150", "--dice", "234"], "scores nothing: a bust"),
        (["advise", ZT, "--rules", "small-3", "--scores", "300,0,0", "--turn", "200"], "already reaches the goal 500"),
        (["solve", PIG, "--players", "9"], "--players must be between 2 and 4"),
        (["simulate", PIG, *TINY, "--games", "0"], "--games must be between"),
    ],
)
def test_bad_input_is_one_error_line(args, message):
    assert message in one_error_line(run(*args))


@pytest.mark.slow
def test_zehntausend_at_a_table_advise_a_throw_play_and_simulate(tmp_path):
    """Three players to 300 (one solve, then the cached table): advise on a throw lists the write
    and every set-aside with every seat's vector, the write's being the next player's turn-start
    vector; a game against two computer players runs to its end; simulated games give each
    seat's value within four standard errors."""
    rules = ["--rules", "small-3", "--goal", "300"]
    result = run("advise", ZT, *rules, "--scores", "0,0,150", "--turn", "50", "--dice", "1 5 2 3 4", "--json", cache=tmp_path)
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    labels = [o["option"] for o in advice["options"]]
    assert "write 200" in labels and {"aside 1, throw 4", "aside 5, throw 4", "aside 1 5, throw 3"} <= set(labels)
    sol = games.get_game(ZT).load(next((tmp_path / "tables" / ZT).glob("*.npy")))
    write = next(o for o in advice["options"] if o["option"] == "write 200")
    np.testing.assert_allclose(write["win"], np.roll(sol.values[0, 3, 4], 1), rtol=0, atol=1e-12)  # 200 banked: the next player's turn
    assert all(abs(sum(o["win"]) - 1.0) < 1e-12 for o in advice["options"])
    near_goal = run("advise", ZT, *rules, "--scores", "100,0,150", "--turn", "50", "--dice", "1 5 2 3 4", "--json", cache=tmp_path)
    assert [o["option"] for o in json.loads(near_goal.stdout)["options"]] == ["write 200"]  # it reaches the goal: it wins
    played = runner.invoke(app, ["play", ZT, *rules, "--seat", "3", "--seed", "2", "--plain", "--cache-dir", str(tmp_path)], input="\n" * 600)
    assert played.exit_code == 0, played.output
    assert "you in seat 3" in played.stdout and "game over" in played.stdout
    sim = run("simulate", ZT, *rules, "--games", "3000", "--seed", "4", "--json", cache=tmp_path)
    assert sim.exit_code == 0, sim.output
    assert all(abs(z) < 4 for z in json.loads(sim.stdout)["z"])


@pytest.mark.parametrize("seat", [2, 3])
def test_play_from_a_later_seat_replays_and_undoes(seat, tmp_path):
    """The computer players move before you; the game's checks (``testing.check_play``): ranked
    options, advise at every decision, save, replay and undo."""
    from jaxsolve import testing

    played = testing.check_play(games.get_game(PIG), "random", seed=seat, folder=tmp_path, settings={"seat": seat})
    assert played.over and played.settings() == {"seat": seat}


def test_a_table_of_the_other_game_is_refused(tmp_path):
    out = tmp_path / "pig.npy"
    assert run("solve", PIG, *TINY, "--quiet", "--out", str(out)).exit_code == 0
    assert "holds a table of 'pig-table'" in one_error_line(run("advise", ZT, "--table", str(out), "--scores", "0,0,0"))
    assert "needs 3 banked scores" in one_error_line(run("advise", PIG, "--table", str(out), "--scores", "0,0"))


def test_a_mixing_computer_player_draws_his_policy_each_turn_and_replays(tmp_path):
    """Where the table's cycle is mixed (here the start state, listed as one with a mixer who
    plays his lower-risk policy with probability 1/2), the computer player to move draws his
    policy at the start of his turn from the game's seed: both policies occur over seeds, and
    every game replays to the same state."""
    from jaxsolve import play, testing

    g = games.get_game(PIG)
    rules = g.small().replace(name="coin-mixed")
    sol = g.solve(rules)
    mixed = SolvedTable(rules, sol.values, [{"scores": [0, 0, 0], "members": [0, 0, 0], "pure": 0, "mixed": 1, "selected": "mixed", "mixer": [0], "q": [0.5]}])
    plans = set()
    for seed in range(20):
        played = play.new_game(PIG, rules, mixed, seed=seed, seat=3)
        while not played.over:
            played.throw() if played.awaiting() == "dice" else played.choose(1)
        plans |= {s.plan for s in played._before if s.scores == (0, 0, 0) and s.mover == 0 and s.rolled}
        assert all(s.plan == 0 for s in played._before if s.scores != (0, 0, 0) or s.mover == 2)  # elsewhere, and you: the table's
        testing.check_replay(g, played, tmp_path)
    assert plans == {1, 2}
