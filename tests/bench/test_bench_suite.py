"""`jaxsolve bench --suite quick` (CliRunner): the GPU suite's own code run on the CPU with every
registered game's small rules, so the suite cannot rot before an accelerator runs it."""

import json

import pytest

from typer.testing import CliRunner

from jaxsolve import games
from jaxsolve.cli import app

runner = CliRunner()


@pytest.mark.slow  # about 40 s: every game's quick suite
def test_quick_suite_times_every_game(tmp_path):
    res = runner.invoke(app, ["bench", "--suite", "quick", "--device", "cpu", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "suite_quick_cpu.json").read_text())
    rows = report["rows"]
    assert {r["game"] for r in rows} == {g.name for g in games.games()}
    assert all(r["warm_s"] >= 0 and r["compile_s"] >= 0 and r["device"] for r in rows)
    variants = " ".join(r["variant"] for r in rows)
    assert "distribution" in variants and "saved throws" in variants
    md = (tmp_path / "suite_quick_cpu.md").read_text()
    assert "jaxsolve bench --suite quick --device cpu" in md and "| kniffel |" in md


def test_unknown_suite(tmp_path):
    res = runner.invoke(app, ["bench", "--suite", "huge", "--out", str(tmp_path)])
    assert res.exit_code == 1 and "unknown suite 'huge'" in res.output
