"""A new objective is one value: ``halved``, an objective defined only here (every box and every
bonus worth half its points), registered with ``engine.objective.register``, gets ``solve``,
``advise`` and a stored table that loads with its checks, with nothing under ``jaxsolve/``
changed for it. Halving is exact in binary floating point and the turn is the same, so its
values are the score objective's halved, bit for bit: a check that cannot pass by accident."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import objective, solver, table_io
from jaxsolve.games.category.sheets.rules import CategoryRules

runner = CliRunner()


def half(points, dtype, xp):
    return xp.asarray(points, dtype) * 0.5


HALVED = objective.Objective(
    "halved", "half the expected final score", "", "half points", "1e-9 relative (float64)", objective.SCORE.options,
    "the halved objective", reward=half, bonus=half,
)


@pytest.fixture()
def app():
    objective.register(HALVED)
    from jaxsolve.cli import build_app

    try:
        yield build_app()
    finally:
        objective.unregister(HALVED.name)


def invoke(app, *args: str) -> dict:
    result = runner.invoke(app, [*args, "--json", "--quiet"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_solve_advise_and_a_stored_table_come_from_the_registry(app, tmp_path):
    halved, score = tmp_path / "halved.npy", tmp_path / "score.npy"
    mine = invoke(app, "solve", "yacht", "--objective", "halved", "--x64", "--out", str(halved))
    theirs = invoke(app, "solve", "yacht", "--x64", "--out", str(score))
    assert mine["objective"] == "halved" and mine["game_value"] == theirs["game_value"] / 2
    h, s = np.load(halved), np.load(score)
    assert np.array_equal(h, s / 2, equal_nan=True)

    sol = table_io.load_solution(halved, game="yacht")  # the store's checks, recomputed rows included
    assert sol.objective == "halved" and sol.game_value == theirs["game_value"] / 2
    meta = json.loads(halved.with_suffix(".json").read_text())
    assert meta["objective"] == "halved" and "half the expected final score" in meta["value_meaning"]

    dice = ("--dice", "1,2,3,4,5")
    a = invoke(app, "advise", "yacht", *dice, "--table", str(halved), "--objective", "halved")
    b = invoke(app, "advise", "yacht", *dice, "--table", str(score))
    assert a["objective"] == "halved" and a["unit"] == "half points"
    assert [o["option"] for o in a["options"]] == [o["option"] for o in b["options"]]
    assert [o["value"] for o in a["options"]] == [o["value"] / 2 for o in b["options"]]


def test_every_bonus_is_halved_too():
    """A reduced Kniffel with the upper bonus, the extra all-same bonus under the Kniffel joker
    and the Im-Hieb bonuses: the solve and the advisor's NumPy turn both halve them all."""
    from jaxsolve.games.category.engine.solver import option_values
    from jaxsolve.games.category.engine.tables import EngineState

    rules = CategoryRules(dice=3, throws=2, joker="kniffel", bonus_on_scratch=False, upper_threshold=6, instant_all_same=30, instant_other=5)
    objective.register(HALVED)
    try:
        sol = solver.solve(rules, "halved", chunk=256)
        ref = solver.solve(rules, "score", chunk=256)
        assert np.array_equal(np.asarray(sol.values), np.asarray(ref.values) / 2, equal_nan=True)
        state = EngineState(np.array([0b11]), np.array([3]), np.array([1]))  # aces and twos filled, the all-same box holding
        for first in (False, True):
            mine = option_values(np.asarray(sol.values).reshape(-1), state, rules, "halved", first_throw=first, xp=np)
            theirs = option_values(np.asarray(ref.values).reshape(-1), state, rules, "score", first_throw=first, xp=np)
            assert np.array_equal(mine, theirs / 2, equal_nan=True)
    finally:
        objective.unregister(HALVED.name)


def test_an_unregistered_objective_is_refused_in_one_line(app, tmp_path):
    halved = tmp_path / "halved.npy"
    invoke(app, "solve", "yacht", "--objective", "halved", "--out", str(halved))
    objective.unregister(HALVED.name)
    try:
        with pytest.raises(JaxsolveError, match="objective 'halved' is not one of score, goals"):
            table_io.load_solution(halved, game="yacht")
        result = runner.invoke(app, ["solve", "yacht", "--objective", "halved"])
        assert result.exit_code == 1 and "unknown objective 'halved'; choose one of score, goals" in result.stderr
    finally:
        objective.register(HALVED)


def test_only_a_scalar_objective_with_its_values_is_registered():
    with pytest.raises(JaxsolveError, match="already registered"):
        objective.register(objective.SCORE)
    with pytest.raises(JaxsolveError, match="only a scalar objective"):
        objective.register(objective.Objective("vector", "v", "a channel", "p", "0", frozenset(), "v", reward=half, bonus=half))
    with pytest.raises(JaxsolveError, match="built in"):
        objective.unregister("goals")
