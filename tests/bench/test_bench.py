"""jaxsolve bench --quick (CliRunner): writes a markdown and JSON table with machine description."""

import json

import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app

runner = CliRunner()


def test_quick_bench_writes_table(tmp_path):
    res = runner.invoke(app, ["bench", "--quick", "--only", "raab", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "bench_quick.json").read_text())
    assert report["machine"]["devices"] and report["rows"]
    row = report["rows"][0]
    assert row["game"] == "raab" and row["warm_s"] >= 0 and row["compile_s"] >= 0 and row["peak_mib"] > 0
    assert "| raab |" in (tmp_path / "bench_quick.md").read_text()


def test_bad_input(tmp_path):
    res = runner.invoke(app, ["bench", "--quick", "--device", "tpu"])
    assert res.exit_code == 1 and "unknown device 'tpu'" in res.output
    res = runner.invoke(app, ["bench", "--quick", "--backend", "tpu"])  # the old spelling
    assert res.exit_code == 1 and "unknown device 'tpu'" in res.output
    res = runner.invoke(app, ["bench", "--quick", "--only", "chess", "--out", str(tmp_path)])
    assert res.exit_code == 1 and "no benchmark case" in res.output


@pytest.mark.slow  # the quick suite (test_bench_suite.py) covers every game in the default run
def test_quick_bench_covers_every_registered_game(tmp_path):
    from jaxsolve import games

    res = runner.invoke(app, ["bench", "--quick", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "bench_quick.json").read_text())
    assert {r["game"] for r in report["rows"]} == {g.name for g in games.games()}
