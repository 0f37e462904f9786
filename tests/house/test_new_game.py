"""A new game is one folder: a game defined entirely in the test suite (``onedie_pig``: rules,
sweep on the fixpoint core, registration, a play class) gets ``solve``, ``advise``, ``play``,
export/load and the conformance checks (``jaxsolve.testing``) from the registry, with nothing under ``jaxsolve/``
changed for it."""

from __future__ import annotations

import dataclasses
import json
import os
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import onedie_pig
from jaxsolve import games, testing
from jaxsolve.games.raab import solver as pig_solver
from jaxsolve.games.raab.rules import PigRules

runner = CliRunner()


@pytest.fixture()
def app():
    games.register(onedie_pig.GAME)
    from jaxsolve.cli import build_app

    try:
        yield build_app()
    finally:
        games.unregister(onedie_pig.GAME.name)


@pytest.mark.parametrize("goal, sides", [(8, 4), (12, 6)])
def test_values_agree_with_the_pig_family_solver(goal, sides):
    """An independent solver of the same game (the registry's Pig family) gives the same values."""
    ours = onedie_pig.solve(onedie_pig.OneDieRules("x", goal=goal, sides=sides))
    theirs = pig_solver.solve(PigRules("x", goal=goal, sides=sides, bust=1, last_turn=False))
    assert ours.game_value == pytest.approx(theirs.game_value, abs=1e-11)
    np.testing.assert_allclose(ours.values[:, :, 0], np.asarray(theirs.start[0]), rtol=0, atol=1e-11)


def test_solve_and_advise_come_from_the_registry(app, tmp_path):
    out = tmp_path / "pig.npy"
    result = runner.invoke(app, ["solve", "one-die-pig", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    pig = pig_solver.solve(PigRules("d4-to-8", goal=8, sides=4, bust=1, last_turn=False))
    assert data["game_value"] == pytest.approx(pig.game_value, abs=1e-11)  # the same game, solved by the Pig family
    result = runner.invoke(app, ["solve", "one-die-pig", "--goal", "12", "--sides", "6"])
    assert result.exit_code == 0 and "d4-to-8+custom" in result.output
    result = runner.invoke(app, ["advise", "one-die-pig", "--mine", "5", "--theirs", "6", "--turn", "2", "--table", str(out), "--json"])
    assert result.exit_code == 0, result.output
    advice = json.loads(result.output)
    assert {o["option"] for o in advice["options"]} == {"roll", "hold"}
    assert advice["options"][0]["value"] >= advice["options"][1]["value"]
    assert advice["options"][0]["regret"] == 0.0 and advice["value"] == advice["options"][0]["value"]
    result = runner.invoke(app, ["advise", "one-die-pig", "--mine", "7", "--turn", "3", "--theirs", "0"])
    assert result.exit_code == 1 and result.output.startswith("error: no such position")
    help_text = runner.invoke(app, ["advise", "one-die-pig", "--help"]).output
    assert "--mine" in help_text and "--goal" in help_text and "--dice" not in help_text
    listing = runner.invoke(app, ["games", "--json"])
    row = next(r for r in json.loads(listing.output) if r["game"] == "one-die-pig")
    assert row["commands"] == ["solve", "advise", "play"]


def test_export_round_trip(tmp_path):
    sol = onedie_pig.solve(onedie_pig.PRESETS["d4-to-8"])
    path = tmp_path / "v.npy"
    onedie_pig.GAME.save(path, sol)
    back = onedie_pig.GAME.load(path)
    assert back.rules == sol.rules and np.array_equal(back.values, sol.values, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conformance_of_the_registered_game(dtype, tmp_path):
    """The library's conformance checks (``jaxsolve.testing``), play and advise included, pass
    on the registered test game."""
    games.register(onedie_pig.GAME)
    try:
        testing.check_game(games.get_game("one-die-pig"), dtype, tmp_path, play=dtype == "float64")
    finally:
        games.unregister("one-die-pig")


class _Forgetful(onedie_pig.OneDiePigGame):
    """Saves its games without the last move."""

    def to_json(self):
        data = super().to_json()
        return {**data, "moves": data["moves"][:-1]}


def _worst_first(rules, **kw):
    advice = onedie_pig.advise_command(rules, **kw)
    return dataclasses.replace(advice, options=tuple(reversed(advice.options)))


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"play_game": lambda: _Forgetful}, "(loads back|replays) to another state"),
        ({"commands": {"advise": dataclasses.replace(onedie_pig.GAME.commands["advise"], run=_worst_first)}}, "advise at .*: the first option '\\w+' has regret"),
    ],
)
def test_the_play_checks_fail_where_they_must(changes, message, tmp_path):
    """A game whose saved games lose a move, and one whose advise ranks the worse option first,
    fail ``check_play``."""
    game = games.register(dataclasses.replace(onedie_pig.GAME, name="broken-pig", **changes))
    try:
        with pytest.raises(AssertionError, match=message):
            testing.check_play(game, "best", 0, tmp_path)
    finally:
        games.unregister("broken-pig")


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")
def test_play_in_a_pseudo_terminal(tmp_path):
    """``jaxsolve play one-die-pig`` in a real terminal: a plug-in module registers the game."""
    pexpect = pytest.importorskip("pexpect")
    here = os.path.join(os.path.dirname(os.path.dirname(__file__)), "references")
    script = tmp_path / "run.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {here!r})\n"
        "import onedie_pig\n"
        "from jaxsolve import games\n"
        "games.register(onedie_pig.GAME)\n"
        "from jaxsolve.cli import build_app\n"
        "build_app()(sys.argv[1:], prog_name='jaxsolve')\n"
    )
    save = tmp_path / "game.json"
    env = {**os.environ, "JAXSOLVE_CACHE": str(tmp_path / "cache")}
    child = pexpect.spawn(sys.executable, [str(script), "play", "one-die-pig", "--seed", "5", "--save", str(save)], env=env, encoding="utf-8", timeout=120)
    child.expect("type \\? for help")
    for _ in range(200):
        i = child.expect(["throw, 1 die", "choice", "game over", pexpect.EOF])
        if i == 0:
            child.sendline("")
        elif i == 1:
            child.sendline("b")
        else:
            break
    child.expect(pexpect.EOF)
    data = json.loads(save.read_text())
    assert data["game"] == "one-die-pig" and data["over"] is True
    assert data["summary"]["regret"] == 0.0  # every decision was the best one
