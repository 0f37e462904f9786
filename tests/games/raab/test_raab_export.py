"""Raab's export through the registry: ``solve raab --out`` writes one export (win
probabilities, policy, one sidecar), the registered loader gives the solved game back, and
``advise raab --table`` answers from it as a solve would."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve import games
from jaxsolve.cli import app
from jaxsolve.games.raab import solver
from jaxsolve.games.raab.rules import PigRules

runner = CliRunner()
RULES = PigRules("custom", goal=12, sides=4, bust=1, last_turn=False)
OPTIONS = ["--goal", "12", "--sides", "4", "--bust", "1", "--no-last-turn"]


def test_the_registered_loader_gives_the_solved_game_back(tmp_path):
    game = games.get_game("raab")
    sol = solver.solve(RULES)
    path = tmp_path / "r.npy"
    assert [p.name for p in game.save(path, sol)] == ["r.npy", "r-policy.npy"]
    assert [p.name for p in game.outputs(path)] == ["r.npy", "r-policy.npy"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r-policy.npy", "r.json", "r.npy"]
    back = game.load(path)
    assert back.rules == RULES and back.iterations == sol.iterations
    np.testing.assert_array_equal(back.start, sol.start)
    assert back.game_value == sol.game_value


def test_advise_from_a_table_answers_as_a_solve(tmp_path):
    out = tmp_path / "pig.npy"
    solved = runner.invoke(app, ["solve", "raab", "--rules", "pig", *OPTIONS, "--out", str(out), "--json", "--quiet"])
    assert solved.exit_code == 0, solved.output
    assert json.loads(solved.output)["policy_out"] == str(tmp_path / "pig-policy.npy")
    position = ["--mine", "3", "--theirs", "7", "--turn", "4", "--json", "--quiet"]
    from_table = runner.invoke(app, ["advise", "raab", "--table", str(out), *position])
    from_solve = runner.invoke(app, ["advise", "raab", "--rules", "pig", *OPTIONS, *position])
    assert from_table.exit_code == 0 and from_solve.exit_code == 0, from_table.output + from_solve.output
    a, b = json.loads(from_table.output), json.loads(from_solve.output)
    assert [o["option"] for o in a["options"]] == [o["option"] for o in b["options"]]
    for x, y in zip(a["options"], b["options"]):
        assert x["value"] == pytest.approx(y["value"], abs=1e-12)
    other = runner.invoke(app, ["advise", "raab", "--table", str(out), "--rules", "raab", *position])
    assert other.exit_code == 1 and other.stderr.strip() == f"error: {out} holds pig+custom, not raab", other.output
