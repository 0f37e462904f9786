"""CLI: jaxsolve distribution kniffel / advise-target kniffel (CliRunner), bad input."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app

runner = CliRunner()
SMALL = ["--rules", "yahtzee", "--filled", "aces", "--filled", "twos", "--filled", "threes", "--filled", "fours"]
FILLED = SMALL[2:] + ["--filled", "three_kind", "--filled", "four_kind", "--filled", "full_house", "--filled", "small_straight", "--filled", "large_straight"]


@pytest.mark.parametrize("with_target", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_distribution_writes_files(tmp_path, with_target):
    args = ["distribution", "kniffel", "--rules", "yahtzee", *FILLED, "--at", "20", "--at", "1000", "--out", str(tmp_path), "--json", "--no-cache"]
    args += ["--target", "30"] if with_target else []
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert abs(out["mean"] - out["game_value"]) < 1e-9
    assert out["at_least"]["1000"] == 0.0 and 0 < out["at_least"]["20"] < 1
    if with_target:
        assert out["target"]["p_target_policy"] >= out["target"]["p_score_policy"] - 1e-12
    p = np.load(out["files"][0])
    assert abs(p.sum() - 1) < 1e-12
    assert (tmp_path / out["files"][2].split("/")[-1]).stat().st_size > 1000


@pytest.mark.slow
def test_advise_target():
    res = runner.invoke(app, ["advise-target", "kniffel", "5", "5", "5", "5", "1", "--target", "50", "--rerolls", "1", *FILLED, "--json", "--no-cache"])
    assert res.exit_code == 0, res.output
    choices = json.loads(res.stdout)
    assert choices[0]["what"] == "5 5 5 5"
    assert all(a["probability"] >= b["probability"] for a, b in zip(choices, choices[1:]))


def test_bad_input(tmp_path):
    res = runner.invoke(app, ["distribution", "kniffel", "--rules", "nope", "--no-write"])
    assert res.exit_code == 1 and "unknown Kniffel rules" in res.output
    res = runner.invoke(app, ["distribution", "kniffel", "--filled", "sevens", "--no-write"])
    assert res.exit_code == 1 and "unknown box" in res.output
    f = tmp_path / "file"
    f.write_text("x")
    res = runner.invoke(app, ["distribution", "kniffel", *FILLED, "--out", str(f)])
    assert res.exit_code == 1 and "not a directory" in res.output
    res = runner.invoke(app, ["advise-target", "kniffel", "5", "5", "--target", "50", *FILLED])
    assert res.exit_code == 1 and "need 5 dice" in res.output
