"""The Zehntausend commands through typer's CliRunner: results, exports, and one-line errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.io import export
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend import table_io
from jaxsolve.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = tmp_path_factory.mktemp("zt") / "e.npy"
    result = runner.invoke(app, ["solve", "zehntausend", "--no-cache", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def test_solve_prints_and_exports(table):
    out, summary = table
    assert summary["turn_value"] == pytest.approx(527.2004, abs=1e-4)
    assert summary["thresholds"] == {"1": 300, "2": 250, "3": 400, "4": 1050, "5": 3050, "6": 11900}
    assert summary["p6_exact"] == "47575/4" and summary["dtype"] == "float64"
    E, meta = export.load(out)
    assert meta["game"] == "zehntausend" and meta["rules"]["name"] == "peter-2013"
    assert [a["name"] for a in meta["axes"]] == ["p", "n"]
    assert E.shape == (meta["axes"][0]["size"], 7)
    assert E[0, 6] == pytest.approx(527.2004, abs=1e-4)
    assert E[800 // 50, 4] == pytest.approx(832.728, abs=1e-3)


def test_solve_text_output():
    result = runner.invoke(app, ["solve", "zehntausend", "--no-cache", "--two-fives", "off", "--straight", "1500"])
    assert result.exit_code == 0, result.output
    assert "peter-2013+custom" in result.stdout and "p6 = " in result.stdout and "E(0, 6) = " in result.stdout


def test_advise_lists_choices(table):
    out, _ = table
    result = runner.invoke(app, ["advise", "zehntausend", "--points", "300", "--dice", "1", "5", "5", "2", "2", "2", "--table", str(out), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    choices = payload["choices"]
    assert payload["throw"] == [1, 2, 2, 2, 5, 5] and payload["write_points"] == 400
    assert len(choices) == 16
    assert [c["value"] for c in choices] == sorted((c["value"] for c in choices), reverse=True)
    assert choices[0]["set_aside"] == ["1", "2", "2", "2", "5", "5"] and choices[0]["dice"] == 6
    assert any(c["action"] == "write" and c["value"] == 700 for c in choices)
    assert any(c["set_aside"] == ["1*"] and c["dice"] == 5 for c in choices)
    text = runner.invoke(app, ["advise", "zehntausend", "-p", "300", "--dice", "155222", "--table", str(out)])
    rows = [line.split() for line in text.stdout.splitlines()]
    assert text.exit_code == 0 and "write 700" in text.stdout and ["1", "set", "aside", "1", "2", "2", "2", "5", "5,"] == rows[3][:9]


def test_advise_solves_when_no_table():
    result = runner.invoke(app, ["advise", "zehntausend", "--points", "100", "--dice", "2,3,4,6", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "bust" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--points", "250", "--dice", "1", "5", "7"], "'7' is not a face of the die (1..6)"),
        (["--points", "250", "--dice", "0"], "'0' is not a face of the die (1..6)"),
        (["--points", "250", "--dice", "1", "1", "1", "1", "1", "1", "1"], "a throw has 1 to 6 dice, got 7"),
        (["--points", "250", "--dice", "x"], "'x' is not a face of the die (1..6)"),
        (["--points", "-50", "--dice", "1"], "--points must be between 0 and 1,000,000,000, got -50"),
        (["--points", "75", "--dice", "1"], "points must be a non-negative multiple of 50, got 75"),
        (["--points", "50", "--dice", "155222"], "turn points 50 with 6 dice thrown cannot occur"),
        (["--points", "0", "--dice", "155"], "turn points 0 with 3 dice thrown cannot occur"),
        (["--points", "50", "--dice", "1", "--rules", "nope"], "unknown Zehntausend rules 'nope'"),
        (["--points", "50", "--dice", "1", "--table", "/nonexistent/e.npy"], "no such export file"),
    ],
)
def test_advise_bad_input_is_one_line_error(args, message):
    result = runner.invoke(app, ["advise", "zehntausend", *args])
    assert result.exit_code == 1, result.output
    assert result.stderr.strip() == f"error: {message}" or result.stderr.strip().startswith(f"error: {message}")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rules", "nope"], "unknown Zehntausend rules 'nope'; choose one of peter-2013"),
        (["--straight", "1234"], "straight must be a non-negative multiple of 50"),
        (["--three-pairs", "-50"], "--three-pairs must be between 0 and 10,000, got -50"),
        (["--out", "/nonexistent/dir/e.npy"], "output directory does not exist"),
        (["--out", "e.txt"], "output path must end in .npy"),
    ],
)
def test_solve_bad_input_is_one_line_error(args, message):
    result = runner.invoke(app, ["solve", "zehntausend", *args])
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().startswith(f"error: {message}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "zehntausend", "--two-fives", "both"], "--two-fives must be one of off, one, any, got 'both'"),
        (["solve", "zehntausend", "--device", "tpu"], "Invalid value for '--device'"),
        (["advise", "zehntausend", "--dice", "1"], "Missing option '--points'"),
        (["plot", "zehntausend", "--p-max", "1000000000000"], "--p-max must be between 100 and 1,000,000, got 1,000,000,000,000"),
    ],
)
def test_usage_errors_are_one_line(args, message):
    """Usage errors (choices, ranges, missing options) end like every other error."""
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Usage" not in result.output


def test_plot_writes_png(tmp_path):
    out = tmp_path / "gain.png"
    result = runner.invoke(app, ["plot", "zehntausend", "--out", str(out), "--no-cache"])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = runner.invoke(app, ["plot", "zehntausend", "--out", str(tmp_path / "gain.svg")])
    assert bad.exit_code == 1 and bad.stderr.startswith("error: output path must end in .png")
    bad = runner.invoke(app, ["plot", "zehntausend", "--out", str(tmp_path / "no" / "gain.png")])
    assert bad.exit_code == 1 and bad.stderr.startswith("error: output directory does not exist")


def test_load_solution_rejects_other_games(tmp_path):
    path = tmp_path / "other.npy"
    export.save(path, np.zeros((3, 7)), {"game": "pig"})
    with pytest.raises(JaxsolveError, match="not zehntausend"):
        table_io.load_solution(path)
