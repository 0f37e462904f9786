"""The raab commands through typer's CliRunner: results, exports, and one-line errors."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.io import export
from jaxsolve.cli import app

runner = CliRunner()
FAST = ["--no-cache"]


def run(*args):
    return runner.invoke(app, [*args])


def test_solve_piglet_json_and_export(tmp_path):
    out = tmp_path / "piglet.npy"
    result = run("solve", "raab", "--rules", "piglet", "--json", "--out", str(out), *FAST)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert abs(summary["game_value"] - 4 / 7) < 1e-11
    assert summary["dtype"] == "float64" and summary["residual"] <= 1e-12
    values, meta = export.load(out)
    policy = export.load_members(out, meta, ("policy",))["policy"]  # one sidecar for both files
    assert [a["name"] for a in meta["axes"]] == ["TS", "MSP", "MAP", "TSP"]
    assert meta["rules"]["name"] == "piglet" and meta["encoding"]["1"] == "roll"
    assert abs(values[0, 0, 1, 0] - 5 / 7) < 1e-11
    assert policy[0, 0, 0, 0] == 1 and policy.dtype == np.int8


def test_solve_raab_text():
    result = run("solve", "raab", "--quiet", *FAST)
    assert result.exit_code == 0, result.output
    assert "start player wins with 0.4509232226" in result.stdout  # regression pin, no published figure


def test_advise_example_position_json():
    result = run("advise", "raab", "--mine", "30", "--turn", "12", "--theirs", "41", "--they-started", "--json", *FAST)
    assert result.exit_code == 0, result.output
    adv = json.loads(result.stdout)
    assert adv["decision"] == ("roll" if adv["win_if_roll"] > adv["win_if_stop"] else "stop")
    assert adv["my_win"] == max(adv["win_if_roll"], adv["win_if_stop"])
    # the reported figures against an independent look-up in the solved arrays
    from jaxsolve.games.raab import advisor, solver
    from jaxsolve.games.raab.rules import get_rules

    f = solver.full(solver.solve(get_rules("raab")))
    ts, m, s, t = advisor.check_state(f.rules, 30, 12, 41, True)
    assert adv["win_if_roll"] == pytest.approx(float(f.roll[ts, m, s, t]), abs=1e-12)
    assert adv["win_if_stop"] == pytest.approx(float(f.stop[ts, m, s, t]), abs=1e-12)
    # stopping banks 42 against 41 with the turn passing to the start player: the value of
    # stopping is 1 - (the opponent's win probability at the start of their turn there)
    opp = f.value[0, 41, 41, 42]  # ts = 0 (they started), they have 41, turn total 0, we have 42
    assert adv["win_if_stop"] == pytest.approx(1 - float(f.roll[0, 41, 41, 42]), abs=1e-12)
    assert np.isfinite(opp)
    text = run("advise", "raab", "--mine", "30", "--turn", "12", "--theirs", "41", "--they-started", *FAST)
    lines = text.stdout.splitlines()
    assert text.exit_code == 0 and lines[1].startswith(adv["decision"].upper())
    assert lines[4].split()[:2] == ["1", adv["decision"]] and lines[3].split() == ["#", "option", "value", "regret"]


def test_advise_last_turn_needs_p_sum():
    result = run("advise", "raab", "--mine", "49", "--theirs", "52", "--they-started", "--json", *FAST)
    adv = json.loads(result.stdout)
    assert adv["win_if_stop"] is None and abs(adv["win_if_roll"] - 0.7353395061728) < 1e-11


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "raab", "--rules", "nope"], "unknown Pig-family rules 'nope'"),
        (["solve", "raab", "--bust", "9"], "bust face must be between 1 and 6"),
        (["solve", "raab", "--no-last-turn", "--bound", "120"], "bound applies only to the last-turn rule"),
        (["solve", "raab", "--goal", "50", "--bound", "20"], "bound must be >= goal"),
        (["solve", "raab", "--tol", "-1"], "--tol must be between 1e-15 and 1, got -1"),
        (["solve", "raab", "--tol", "inf"], "--tol must be a finite number of at most 1e+09, got inf"),
        (["solve", "raab", "--tol", "nan"], "--tol must be a finite number of at most 1e+09, got nan"),
        (["solve", "raab", "--tol", "0"], "--tol must be between 1e-15 and 1, got 0"),
        (["advise", "raab", "--mine", "3"], "Missing option '--theirs'"),
        (["solve", "raab", "--max-iter", "0"], "--max-iter must be between 1 and 1,000,000,000, got 0"),
        (["tables", "raab", "--rolls", "0"], "--rolls must be between 1 and 20, got 0"),
        (["advise", "raab", "--mine", "55", "--theirs", "41", "--they-started"], "the game is already over"),
        (["advise", "raab", "--mine", "-1", "--theirs", "41"], "--mine must be between 0 and 1,000,000,000, got -1"),
        (["advise", "raab", "--mine", "30", "--turn", "120", "--theirs", "41"], "beyond the state bound"),
        (["advise", "raab", "--rules", "pig", "--mine", "3", "--theirs", "4", "--they-started"], "who started does not matter"),
        (["advise", "raab", "--mine", "45", "--theirs", "53"], "the game is already over"),
        (["advise", "raab", "--rules", "pig", "--mine", "90", "--turn", "12", "--theirs", "4"], "reaches the goal 100: stop and win"),
        (["tables", "raab", "--out", "/nonexistent/dir"], "output directory does not exist"),
        (["plot", "raab", "--out", "/nonexistent/dir"], "output directory does not exist"),
    ],
)
def test_bad_input_one_line_error(args, message):
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_bad_paths(tmp_path):
    result = run("solve", "raab", "--rules", "piglet", "--out", str(tmp_path / "missing" / "x.npy"))
    assert result.exit_code == 1 and "output directory does not exist" in result.stderr
    result = run("solve", "raab", "--rules", "piglet", "--out", str(tmp_path / "x.txt"))
    assert result.exit_code == 1 and "must end in .npy" in result.stderr


def test_no_convergence_is_an_error():
    result = run("solve", "raab", "--max-iter", "2", *FAST)
    assert result.exit_code == 1 and "no convergence: 2 sweeps" in result.stderr


def test_tables_json_and_files(tmp_path):
    result = run("tables", "raab", "--json", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    psum = {row["S"]: row["P_SUM"] for row in data["reach_200_rolls"]}
    assert 0.73533950 <= psum[4] < 0.73533951 and 0.00740018 <= psum[81] < 0.00740019
    assert 0.75741652 <= data["equalize_roll_twice_bound"] < 0.75741653
    assert data["solitaire"]["stop_at_turn_total"] == 15
    assert len(data["rounds"]["2"]) == 15 and (tmp_path / "tables.json").is_file()


def test_plot_writes_pngs(tmp_path):
    result = run("plot", "raab", "--rules", "piglet", "--out", str(tmp_path), *FAST)
    assert result.exit_code == 0, result.output
    png = tmp_path / "piglet-stop.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
