"""The commands of the race games for N players: solve, a table file, advise (with the brute
force's values), and one ``error:`` line on bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
import race_n_reference as ref

from jaxsolve.games.raab import table_commands as pig
from jaxsolve.games.zehntausend import table_commands as zt


def test_pig_solve_table_and_advise(tmp_path, capsys):
    out = tmp_path / "pig.npz"
    assert pig.main(["solve", "--rules", "small-3", "--goal", "6", "--quiet", "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    table = ref.solve(3, 6, 6, 1)
    np.testing.assert_allclose(data["start"], table.values[(0, 0, 0)], rtol=0, atol=1e-12)
    assert data["unsettled"] == 0
    assert pig.main(["advise", "--table", str(out), "--scores", "2,1,0", "--turn", "2", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    options = {o["option"]: np.array(o["win"]) for o in advice["options"]}
    assert set(options) == {"roll", "bank 2"}
    np.testing.assert_allclose(options["bank 2"], np.roll(table.values[(1, 0, 4)], 1), rtol=0, atol=1e-12)
    best = max(v[0] for v in options.values())
    assert min(o["regret"] for o in advice["options"]) == 0.0 and best <= 1.0


@pytest.mark.parametrize(
    "argv,message",
    [
        (["advise", "--rules", "small-3", "--goal", "6", "--scores", "1,2"], "needs 3 banked scores"),
        (["advise", "--rules", "small-3", "--goal", "6", "--scores", "1,2,x"], "whole numbers"),
        (["solve", "--rules", "no-such"], "unknown rules"),
        (["solve", "--players", "9"], "players must be between 2 and 4"),
    ],
)
def test_bad_input_is_one_error_line(argv, message, capsys):
    assert pig.main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and message in err[0]


def test_a_foreign_table_is_refused(tmp_path, capsys):
    out = tmp_path / "pig.npz"
    assert pig.main(["solve", "--rules", "small-3", "--goal", "5", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    assert zt.main(["advise", "--table", str(out), "--scores", "0,0,0"]) == 1
    assert "not TableRules" in capsys.readouterr().err


def test_play_against_two_computer_players(tmp_path, capsys, monkeypatch):
    out = tmp_path / "pig.npz"
    assert pig.main(["solve", "--rules", "small-3", "--goal", "10", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    answers = iter(["r", "b"] * 50)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert pig.main(["play", "--table", str(out), "--seat", "2", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    assert "banked: player 1 0, you 0, player 3 0; player 1 to move" in text
    assert text.strip().splitlines()[-1].endswith(("and win", "and wins"))


def test_play_refuses_a_seat_outside_the_table(tmp_path, capsys):
    out = tmp_path / "pig.npz"
    assert pig.main(["solve", "--rules", "small-3", "--goal", "5", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    assert pig.main(["play", "--table", str(out), "--seat", "4"]) == 1
    assert capsys.readouterr().err.startswith("error: --seat must be 1..3")
