"""Inputs the command line refuses with one ``error:`` line on stderr and exit status 1, before
any work and without a traceback."""

import json

from typer.testing import CliRunner

from jaxsolve.cli import app

runner = CliRunner()
LONG = "9" * 5001  # more digits than Python reads as an integer (4,300)


def one_line_error(args, *expected: str, stdin: str | None = None):
    result = runner.invoke(app, args, input=stdin)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def test_a_score_of_5001_digits_is_refused_naming_the_option():
    dice = ["--dice", "1", "1", "2", "2", "5", "--no-cache"]
    one_line_error(["advise", "kniffel", *dice, "--opponent", f"start {LONG}"], "--opponent", "5,001 digits")
    one_line_error(["advise", "kniffel", *dice, "--against", f"aces=3 {LONG}"], "--against", "5,001 digits")
    one_line_error(["advise", "kniffel", *dice, "--position", f"aces={LONG}"], "--position", "5,001 digits")


def test_a_number_of_5001_digits_elsewhere_is_one_line():
    one_line_error(["analyze", "kniffel", "--dice", "1", "1", "2", "2", "5", "--position", f"upper={LONG}", "--no-cache"], "too long")


def test_a_batch_opponent_score_of_5001_digits_is_an_answer_naming_it():
    question = json.dumps({"dice": [1, 1, 2, 2, 5], "opponents": [f"start {LONG}"]})
    result = runner.invoke(app, ["advise", "kniffel", "--batch", "-", "--rules", "kniffel-apl", "--quiet"], input=question + "\n")
    assert result.exit_code == 1, result.output
    answer = json.loads(result.stdout)
    assert "opponents" in answer["error"] and "5,001 digits" in answer["error"]


def test_twoplayer_endgame_refuses_filled_counts_that_are_no_turn_of_the_mover():
    for theirs in ("ones=1 7", "ones=1 twos=2 threes=3 fours=4 20"):
        one_line_error(["twoplayer-endgame", "yacht", "--mine", "ones=1 twos=2 5", "--theirs", theirs, "--no-cache"], "--mine has 2 boxes filled")


STARTING = """
import os, runpy, signal, sys


class SignalAt:
    # sends SIGINT to this process when the module named is about to be imported
    def __init__(self, name):
        self.name = name

    def find_spec(self, name, path, target=None):
        if name == self.name:
            os.kill(os.getpid(), signal.SIGINT)
        return None


sys.meta_path.insert(0, SignalAt(sys.argv[1]))
sys.argv[1:] = ["games"]
runpy.run_module("jaxsolve", run_name="__main__", alter_sys=True)
"""


def test_ctrl_c_while_the_modules_load_is_one_line_and_status_130(tmp_path):
    """A SIGINT while ``python -m jaxsolve`` loads its modules (before the full handler of
    ``jaxsolve.interrupt`` is in place, and while the command line's modules load) ends the
    command with ``interrupted`` and status 130, no ``KeyboardInterrupt`` traceback."""
    import os
    import signal
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = tmp_path / "start.py"
    script.write_text(STARTING)
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # a child of a background run would inherit that
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for module in ("jaxsolve.interrupt", "threading", "typer"):
            run = subprocess.run([sys.executable, str(script), module], cwd=root, capture_output=True, text=True, timeout=120,
                                 env={**os.environ, "PYTHONPATH": root})
            assert (run.returncode, run.stderr) == (130, "interrupted\n"), (module, run.returncode, run.stderr[-800:])
            assert run.stdout == ""
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)


# ----------------------------------------------------------------------------- table exports: checked before any work

TABLE_COMMANDS = (["twoplayer-table", "yacht", "--open", "2"], ["target-table", "yacht"], ["distribution-table", "yacht"])


def no_jax_setup(monkeypatch):
    """Fail the test if the command sets up JAX (the step before its work) before it refuses."""
    from jaxsolve.core import runtime

    def refuse(*args, **kwargs):
        raise AssertionError("JAX was set up before the refusal")

    monkeypatch.setattr(runtime, "configure", refuse)


def test_table_exports_refuse_a_file_as_cache_folder_before_any_work(tmp_path, monkeypatch):
    no_jax_setup(monkeypatch)
    folder = tmp_path / "a-file"
    folder.write_text("")
    for args in TABLE_COMMANDS:
        one_line_error([*args, "--cache-dir", str(folder)], f"the solution store under {folder} cannot be written", "--cache-dir")


def test_table_exports_refuse_a_read_only_cache_folder_before_any_work(tmp_path, monkeypatch):
    import tempfile

    no_jax_setup(monkeypatch)
    folder = tmp_path / "read-only"
    mkstemp = tempfile.mkstemp

    def read_only(*args, dir=None, **kwargs):  # as a read-only folder answers (also to root)
        if dir is not None and str(dir).startswith(str(folder)):
            raise PermissionError(13, "Permission denied")
        return mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    for args in TABLE_COMMANDS:
        one_line_error([*args, "--cache-dir", str(folder)], "cannot be written", "Permission denied", "--cache-dir")


def test_table_exports_refuse_a_disk_too_small_before_any_work_with_true_figures(tmp_path, monkeypatch):
    from jaxsolve.games.category.answers import table_commands

    no_jax_setup(monkeypatch)
    monkeypatch.setattr(table_commands, "free_bytes", lambda folder: 3 << 19)  # 1.5 MiB
    for args, what in zip(TABLE_COMMANDS, ("two-player", "target", "distribution")):
        line = one_line_error([*args, "--cache-dir", str(tmp_path / "store")], f"the {what} table takes about ", "has 1.5 MiB free")
        assert "0.0 GiB" not in line and " MiB on disk" in line
    one_line_error(["distribution-table", "yacht", "--out", str(tmp_path / "d.npy")], "the distribution table takes about ", "has 1.5 MiB free")


def test_disk_sizes_read_in_their_unit():
    from jaxsolve.games.category.answers.table_commands import size_text

    assert [size_text(n) for n in (512, 3 << 10, 45 << 20, 3 << 29)] == ["512 bytes", "3.0 KiB", "45.0 MiB", "1.5 GiB"]


def test_advise_against_from_the_start_names_a_remedy_that_is_not_refused(monkeypatch):
    """The whole two-player Yahtzee cannot be built (too many rows in a layer): the error names the
    end-game table that can, and --opponent; that command passes the rows and memory checks (it
    stops only at the disk check, made to fail here so that nothing is solved)."""
    import re

    from jaxsolve.games.category.answers import table_commands

    line = one_line_error(["advise", "kniffel", "--dice", "1", "1", "2", "2", "5", "--against", "start 0", "--quiet"], "--opponent")
    assert "`jaxsolve twoplayer-table kniffel`" not in line
    named = re.search(r"`jaxsolve (twoplayer-table kniffel --rules yahtzee --open \d+)`", line)
    assert named, line
    monkeypatch.setattr(table_commands, "free_bytes", lambda folder: 1)
    one_line_error([*named.group(1).split(), "--quiet"], "the two-player table takes about ")


def test_an_error_names_the_current_option_not_its_old_spelling():
    for flag in ("--all-same-held", "--holds50"):
        line = one_line_error(["advise-target", "kniffel", "1", "2", "3", "4", "5", "--target", "10", flag], "--all-same-held needs")
        assert "--holds50" not in line


def test_advise_target_table_refuses_the_sidecar_and_a_layer_file_naming_the_table(tmp_path):
    filled = [a for box in ("ones", "twos", "threes", "fours", "fives", "sixes", "full_house", "four_of_a_kind", "little_straight") for a in ("--filled", box)]
    out = tmp_path / "t.npy"
    made = runner.invoke(app, ["target-table", "yacht", *filled, "--out", str(out), "--quiet", "--no-cache"])
    assert made.exit_code == 0, made.output
    ask = ["advise-target", "yacht", "1", "2", "3", "4", "5", "--target", "10", *filled, "--no-cache", "--table"]
    assert runner.invoke(app, [*ask, str(out)]).exit_code == 0
    one_line_error([*ask, str(tmp_path / "t.json")], "is the sidecar of a target table", f"give its .npy file ({out})")
    layer = next(tmp_path.glob("t-layer_*.npy"))
    one_line_error([*ask, str(layer)], "is one layer of a target table", f"({out})")


def test_win_method_exact_from_the_start_is_refused_up_front_naming_what_answers(monkeypatch):
    from jaxsolve.games.category.objectives import winning

    def no_solve(*args, **kwargs):
        raise AssertionError("solved")

    monkeypatch.setattr(winning, "advise_win", no_solve)
    line = one_line_error(["advise", "kniffel", "--dice", "1", "1", "2", "2", "5", "--opponent", "start 0", "--win-method", "exact", "--quiet"],
                          "--win-method exact with 13 open boxes", "--win-method table", "target-table kniffel --rules yahtzee")
    assert "saved throws" not in line
    question = json.dumps({"dice": [1, 1, 2, 2, 5], "opponents": ["start 0"], "win_method": "exact"})
    result = runner.invoke(app, ["advise", "kniffel", "--batch", "-", "--rules", "kniffel-apl", "--quiet"], input=question + "\n")
    assert result.exit_code == 1 and "--win-method exact with 13 open boxes" in json.loads(result.stdout)["error"], result.output


def test_running_out_of_device_memory_names_saved_throws_only_where_they_were_asked(capsys):
    import pytest
    import typer

    from jaxsolve.cli.common import handle_errors

    class XlaRuntimeError(Exception):
        pass

    @handle_errors
    def command(**kwargs):
        raise XlaRuntimeError("RESOURCE_EXHAUSTED: Out of memory allocating 123 bytes")

    for kwargs, saved in (({"max_saved": 3}, True), ({"max_saved": None}, False), ({}, False)):
        with pytest.raises(typer.Exit):
            command(**kwargs)
        line = capsys.readouterr().err.strip()
        assert line.startswith("error: out of memory on the device") and ("saved throws" in line) == saved, line


def test_play_refuses_starting_sheets_before_it_says_it_is_solving(monkeypatch):
    from jaxsolve.games.category.engine import solutions

    def no_solve(*args, **kwargs):
        raise AssertionError("solved")

    monkeypatch.setattr(solutions, "solution", no_solve)
    for start, message in (("ones=3 / ones=2 twos=4", "both sheets have as many boxes filled"), ("ones=3 ones=2", "a slash")):
        result = runner.invoke(app, ["play", "yacht", "--against", "optimal", "--start", start, "--plain", "--no-cache"], input="")
        assert result.exit_code == 1, result.output
        assert "solving" not in result.stdout and result.stderr.strip().splitlines() == [result.stderr.strip()], result.output
        assert message in result.stderr


def help_text(args) -> str:
    """``--help`` of ``args`` as one line of words (the panels' borders and the wrapping taken out)."""
    result = runner.invoke(app, [*args, "--help"], env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.output
    return " ".join(result.stdout.replace("│", " ").split())


def test_help_shows_square_brackets_as_written():
    """Rich markup reads ``[ts, mine/50, theirs/50]`` as a tag and drops it: help texts are escaped."""
    from jaxsolve import games

    assert "[ts, mine/50, theirs/50]" in help_text(["solve", "zehntausend-duel"])
    for game in games.games():
        for name, command in game.commands.items():
            for p in command.params:
                if "[" in p.help and name in ("solve", "advise", "plot", "tables", "simulate"):
                    words = " ".join(p.help.split())
                    assert words[:60] in help_text([name, game.name]), (name, game.name, p.name)


def test_plot_zehntausend_duel_default_totals_fit_every_goal(tmp_path):
    from jaxsolve.games.zehntausend.duel_commands import default_totals

    assert default_totals(10_000) == [300, 1000] and default_totals(500) == [300] and default_totals(250) == [100]
    result = runner.invoke(app, ["plot", "zehntausend-duel", "--rules", "small", "--out", str(tmp_path), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "turn total 300" in result.stdout and list(tmp_path.glob("*.png"))


# ----------------------------------------------------------------------------- names


def test_a_preset_name_stands_for_its_game_on_the_command_line():
    ask = ["--dice", "1", "1", "2", "2", "5", "--position", "aces=3 twos=6 threes=9 fours=12 fives=15 sixes=18", "--json", "--quiet"]
    kniffel = runner.invoke(app, ["advise", "kniffel", "--rules", "yahtzee", *ask])
    assert kniffel.exit_code == 0, kniffel.output
    for name in ("yahtzee", "Yahtzee", "YAHTZEE"):
        named = runner.invoke(app, ["advise", name, *ask])
        assert named.exit_code == 0, named.output
        assert json.loads(named.stdout) == json.loads(kniffel.stdout)
    variant = runner.invoke(app, ["advise", "yahtzee", "--rules", "yahtzee-free", *ask])  # the rules given win
    assert variant.exit_code == 0 and json.loads(variant.stdout)["rules"] == "yahtzee-free", variant.output


def test_typo_hints_name_the_game():
    line = one_line_error(["advise", "yahtze"], "Did you mean 'yahtzee' (kniffel --rules yahtzee)")
    assert line.index("'yahtzee'") < line.index("'yatzy'")
    one_line_error(["advise", "kniffl"], "Did you mean 'kniffel'")
    one_line_error(["plot", "yahtzee"], "plot has no kniffel (rules yahtzee); it is offered for raab")


# ----------------------------------------------------------------------------- progress


def test_simulate_shows_its_turns_on_stderr_unless_quiet():
    args = ["simulate", "yacht", "--games", "200", "--strategy", "greedy", "--no-files", "--no-cache"]
    shown = runner.invoke(app, args)
    assert shown.exit_code == 0, shown.output
    assert "greedy: 200 games, turns: 12/12," in shown.stderr and "turns" not in shown.stdout
    quiet = runner.invoke(app, [*args, "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output


# ----------------------------------------------------------------------------- help


def test_advise_help_shows_the_players_options_first_then_tables_and_solving_then_advanced():
    text = help_text(["advise", "kniffel"])
    solving, advanced = text.index("Tables and solving"), text.index("Advanced")
    assert solving < advanced
    for option in ("--position", "--dice", "--throws-left", "--opponent", "--against", "--top", "--json"):
        assert text.index(option) < solving, option
    for option in ("--table", "--objective", "--win-method", "--device", "--cache-dir", "--no-cache", "--quiet"):
        assert solving < text.index(option) < advanced, option
    for option in ("--joker", "--extra-bonus", "--scope", "--strategy", "--bot-seed", "--batch"):
        assert advanced < text.index(option), option


def test_advise_target_shows_its_solve_layer_by_layer():
    filled = [a for box in ("ones", "twos", "threes", "fours", "fives", "sixes", "full_house", "four_of_a_kind", "little_straight") for a in ("--filled", box)]
    result = runner.invoke(app, ["advise-target", "yacht", "1", "2", "3", "4", "5", "--target", "10", *filled, "--no-cache"])
    assert result.exit_code == 0, result.output
    assert "target layers done 3/3:" in result.stderr and "left" in result.stderr and "layer" not in result.stdout
