"""A table is believed only when it proves what it is; input is read strictly; Ctrl-C is clean.

Every case is answered by one ``error:`` line (CLI), a ``JaxsolveError`` (API) or the right
answer: exports and cache entries bound to game, rules, objective and dtype, sidecars covered
by their own hash and spot-checked against the rules they name, the cache healing itself,
batch lines checked against a schema, numbers and empty values refused before any work, and a
real SIGINT ending a process with one line and status 130.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

import jax
import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve import games
from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.answers import commands, query
from jaxsolve.games.category.engine import solver, table_io
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.io import cache, export

from test_export_integrity import one_line_error  # noqa: E402

runner = CliRunner()
SMALL = CategoryRules(dice=2, throws=2, upper_threshold=5)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))



@pytest.fixture(scope="module")
def small():
    return solver.solve(SMALL, chunk=256)


@pytest.fixture
def small_file(tmp_path, small):
    path = tmp_path / "small.npy"
    table_io.save_solution(path, small, game="kniffel")
    return path


@pytest.fixture
def store(tmp_path, monkeypatch):
    notes = []
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path / "store"))
    cache.configure(None, say=notes.append)
    yield notes
    cache.configure(None)


def reseal(path, edit):
    """Rewrite the sidecar of ``path`` with ``edit`` applied and its own hash recomputed, as
    someone who rewrites a sidecar whole would."""
    side = export.sidecar_path(path)
    meta = json.loads(side.read_text())
    edit(meta)
    side.write_text(json.dumps(export.seal(meta)))


# ----------------------------------------------------------------------------- the file proves what it is


def test_edited_sidecar_is_refused(small_file):
    side = export.sidecar_path(small_file)
    meta = json.loads(side.read_text())
    meta["rules"]["extra_bonus"] = 0
    side.write_text(json.dumps(meta))
    with pytest.raises(JaxsolveError, match="has been edited"):
        table_io.load_solution(small_file, game="kniffel")


def _kniffel_points(meta):
    next(b for b in meta["rules"]["boxes"] if b["kind"] == "all_same")["points"] = 60


@pytest.mark.parametrize(
    "edit",
    [
        _kniffel_points,  # the all-same box's points (as a full house edited to 40)
        lambda m: m["rules"].update(extra_bonus=0),  # the extra bonus
        lambda m: m["rules"].update(upper_bonus=0),
        lambda m: m.update(objective="goals"),
    ],
)
def test_resealed_sidecar_fails_the_spot_check(small_file, edit):
    reseal(small_file, edit)
    with pytest.raises(JaxsolveError, match="not a solution of the rules"):
        table_io.load_solution(small_file, game="kniffel")


def test_renamed_rules_refused_by_name_and_content(small_file):
    reseal(small_file, lambda m: m["rules"].update(name="yahtzee"))
    yahtzee = games.get_game("kniffel").get_rules("yahtzee")
    with pytest.raises(JaxsolveError, match=r"holds the kniffel/yahtzee/score/float64 table \(other rules under the same name\), not kniffel/yahtzee/score/float64"):
        table_io.load_solution(small_file, game="kniffel", rules=yahtzee)
    with pytest.raises(JaxsolveError, match="named 'yahtzee', a preset of kniffel, but differ from that preset"):
        table_io.load_solution(small_file, game="kniffel")  # no rules asked for: the name alone must be true


def test_foreign_tables_refused_naming_both(small_file):
    one_line_error(runner.invoke(app, ["advise", "yatzy", "--values", str(small_file), "--dice", "11"]), "holds a table of 'kniffel'")
    one_line_error(runner.invoke(app, ["analyze", "yatzy", "--values", str(small_file)]), "not yatzy")
    one_line_error(runner.invoke(app, ["advise", "maxi", "--values", str(small_file), "--dice", "11"]), "not maxi")
    result = runner.invoke(app, ["advise", "kniffel", "--rules", "yahtzee", "--values", str(small_file), "--dice", "11111"])
    one_line_error(result, "holds the kniffel/custom/score/float64 table, not kniffel/yahtzee/score/float64")


def test_float32_table_in_a_float64_slot_is_solved_again(store, small):
    path = cache.entry_path("kniffel", SMALL, "score", "float64")
    path.parent.mkdir(parents=True)
    table_io.save_solution(path, solver.Solution(SMALL, "score", small.values.astype(np.float32)), game="kniffel")
    sol = table_io.solved(SMALL, game="kniffel", dtype="float64")
    assert sol.values.dtype == np.float64
    np.testing.assert_array_equal(sol.values, small.values)
    assert any("not usable" in n and "float32" in n for n in store)
    assert table_io.load_solution(path, game="kniffel").values.dtype == np.float64  # healed


def test_float64_asked_without_x64_is_solved_in_float64(small):
    with jax.enable_x64(False):
        sol = table_io.solved(SMALL, game=None, dtype="float64")
    assert sol.values.dtype == np.float64
    np.testing.assert_allclose(sol.values, small.values, rtol=1e-12)


# ----------------------------------------------------------------------------- the cache heals


def test_foreign_entry_reported_and_solved_again(store, small, tmp_path):
    other = CategoryRules(dice=2, throws=2, upper_threshold=5, extra_bonus=0)
    path = cache.entry_path("kniffel", SMALL, "score", "float64")
    path.parent.mkdir(parents=True)
    table_io.save_solution(path, solver.solve(other, chunk=256), game="kniffel")  # other rules in this slot
    sol = table_io.solved(SMALL, game="kniffel", dtype="float64")
    assert sol.rules == SMALL and sol.game_value == pytest.approx(small.game_value, rel=1e-12)
    assert len([n for n in store if "not usable" in n]) == 1


def test_unwritable_entry_is_one_note_and_the_answer(store, small):
    path = cache.entry_path("kniffel", SMALL, "score", "float64")
    path.mkdir(parents=True)  # a folder where the entry belongs
    sol = table_io.solved(SMALL, game="kniffel", dtype="float64")
    assert sol.game_value == pytest.approx(small.game_value, rel=1e-12)
    assert any("could not cache" in n for n in store)


def test_cache_folder_that_is_a_file(store, small, tmp_path):
    root = tmp_path / "store"
    root.mkdir()
    (root / "tables").write_text("not a folder")
    sol = table_io.solved(SMALL, game="kniffel", dtype="float64")
    assert sol.game_value == pytest.approx(small.game_value, rel=1e-12)
    assert any("could not cache" in n for n in store)


def test_unwritable_cache_folder_is_one_note(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder belongs")
    result = runner.invoke(app, ["solve", "raab", "--rules", "piglet", "--quiet", "--cache-dir", str(blocker)])
    assert result.exit_code == 0 and "0.571428571429" in result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("note: the cache folder") and "cannot be written" in result.stderr


def test_oversized_sidecar_and_sidecar_given_as_table(small_file):
    side = export.sidecar_path(small_file)
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "pad": "x" * (2 << 20)}))
    with pytest.raises(JaxsolveError, match="too large for a jaxsolve export sidecar"):
        table_io.load_solution(small_file, game="kniffel")
    with pytest.raises(JaxsolveError, match="is a sidecar; give its .npy file"):
        export.load(side)


def test_huge_bogus_entry_is_not_read(store, small, monkeypatch):
    path = cache.entry_path("kniffel", SMALL, "score", "float64")
    path.parent.mkdir(parents=True)
    table_io.save_solution(path, small, game="kniffel")
    with open(path, "r+b") as fh:
        fh.truncate(6 << 30)  # sparse: 6 GiB on paper
    read = []
    real = type(path).read_bytes
    monkeypatch.setattr(type(path), "read_bytes", lambda self: read.append(self) or real(self))
    sol = table_io.solved(SMALL, game="kniffel", dtype="float64")
    assert sol.game_value == pytest.approx(small.game_value, rel=1e-12)
    assert path not in read[:1] and any("6,442,450,944 bytes" in n for n in store)


# ----------------------------------------------------------------------------- strict batch input

GOOD = '{"position": "start", "dice": [1, 1], "throws_left": 1}'


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"position": "start", "dice": [1, 1], "rolls_lef": 1}', "unknown key 'rolls_lef'"),
        ('{"positon": "start", "dice": [1, 1]}', "unknown key 'positon'"),
        ('{"state": {"upper": 0, "uper": 1}, "dice": [1, 1]}', "unknown key 'uper' in state"),
        ('{"position": "start", "state": {"upper": 0}, "dice": [1, 1]}', "give position or state, not both"),
        ('{"dice": [1, 1], "rolls_left": 1.9}', "throws_left must be an integer, got 1.9"),
        ('{"dice": [1, 1], "throws_left": 1.0}', "throws_left must be an integer"),
        ('{"dice": [1, 1], "throws_left": true}', "throws_left must be an integer"),
        ('{"dice": [1, 1], "throws_left": 5}', "throws_left must be between 0 and 1"),
        ('{"state": {"filled": ["aces"], "upper": 2.9}, "dice": [1, 1]}', "state.upper must be an integer, got 2.9"),
        ('{"state": {"filled": ["aces"], "upper": 5}, "dice": [1, 1]}', "upper total 5 is impossible"),
        ('{"state": {"upper": 0, "all_same_held": 1}, "dice": [1, 1]}', "all_same_held needs"),
        ('{"state": {"filled": 1.5}, "dice": [1, 1]}', "state.filled must be an integer"),
        ('{"state": {"filled": ["aces", "aces"]}, "dice": [1, 1]}', "state.filled names a box twice"),
        ('{"state": {"filled": 1152921504606846976}, "dice": [1, 1]}', "state.filled must be between 0 and 8191"),
        ('{"state": null, "dice": [1, 1]}', "state must be an object"),
        ('{"state": {"filled": 1e400}, "dice": [1, 1]}', "state.filled must be an integer"),
        ('{"state": {"upper": Infinity}, "dice": [1, 1]}', "Infinity is not a number here"),
        ('{"dice": [1, 1], "rolls_left": -Infinity}', "-Infinity is not a number here"),
        ('{"dice": [1, NaN]}', "NaN is not a number here"),
        ('{"dice": 11}', "dice must be an array of faces or a string"),
        ('{"dice": [1, "x"]}', "a die must be an integer"),
        ('{"dice": [1, 7]}', "a die must be between 1 and 6"),
        ('{"dice": [1, 1, 1]}', "3 dice given; the game has 2 dice"),
        ('{"position": 5, "dice": [1, 1]}', "position must be a non-empty string"),
        ('{"position": "start"}', "needs the dice showing"),
        ("[1, 2]", "a question is a JSON object, not a JSON array"),
        ("{not json", "not JSON"),
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ("[" * 200_000 + "]" * 200_000, "longer than 10,000 characters"),
        ("   ", "empty line"),
    ],
)
def test_batch_line_refused_with_its_number(small, line, message):
    answers = commands.answer_batch(SMALL, small, [GOOD, line, GOOD])
    assert "value" in answers[0] and "value" in answers[2] and answers[0]["rules"] == "custom"
    assert answers[1]["error"].startswith("line 2: ") and message in answers[1]["error"], answers[1]


def test_batch_errors_on_stderr_good_lines_answered(small_file, tmp_path):
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join([GOOD, '{"dice": [1, 1], "rolls_left": 1.9}', GOOD]) + "\n")
    result = runner.invoke(app, ["advise", "kniffel", "--values", str(small_file), "--batch", str(batch), "--no-cache"])
    assert result.exit_code == 1
    assert result.stderr == "error: line 2: throws_left must be an integer, got 1.9\n"
    out = [json.loads(x) for x in result.stdout.splitlines()]
    assert [("value" in a) for a in out] == [True, False, True] and out[0]["rules"] == "custom"


def test_bulk_api_refuses_impossible_states(small):
    table = query.Table(small)
    with pytest.raises(JaxsolveError, match="state no game reaches"):
        table.option_values([1], [5], [0], [[1, 1]], [0])  # aces filled, upper 5 with two dice
    assert np.isnan(table.state_values([1], [5], [0])).all()  # documented: NaN there
    ov = table.option_values([1], [5], [0], [[1, 1]], [0], validate=False)  # the caller's risk
    assert ov.value.shape == (1,)
    with pytest.raises(JaxsolveError, match="re-throws left must be integers"):
        table.option_values([0], [0], [0], [[1, 1]], [0.9])
    with pytest.raises(JaxsolveError, match="integer faces"):
        table.option_values([0], [0], [0], [[1.0, 1.0]], [0])


# ----------------------------------------------------------------------------- bounded options, empty values


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["solve", "kniffel", "--extra-bonus", "100000000000000000000000"], "and 1,000,000,000, got 1"),
        (["solve", "kniffel", "--extra-bonus", "1e23"], "--extra-bonus"),
        (["simulate", "kniffel", "--instant-kniffel", "100000000000000000000", "--no-files"], "and 1,000,000,000, got 1"),
        (["solve", "zehntausend", "--six-of-a-kind", "100000000000000000000000"], "and 10,000, got 1"),
        (["advise", "zehntausend", "--points", "100000000000000000000000", "--dice", "155222"], "and 1,000,000,000, got 1"),
        (["advise-target", "kniffel", "1", "1", "1", "1", "1", "--target", "100000000000000000000"], "and 1,000,000,000, got 1"),
        (["advise-target", "kniffel", "1", "1", "1", "1", "1", "--target", "50", "--upper", "500"], "upper total 500 is impossible"),
        (["solve", "raab", "--tol", "nan"], "--tol must be a finite number"),
        (["solve", "raab", "--tol", "inf"], "--tol must be a finite number"),
        (["solve", "kniffel", "--rules", ""], "--rules takes a non-empty value"),
        (["advise", "kniffel", "--dice", "11111", "--cache-dir", ""], "--cache-dir takes a non-empty value"),
        (["advise", "kniffel", "--dice", "11111", "--cache-dir="], "--cache-dir takes a non-empty value"),
        (["advise", "kniffel", "--dice", "", "--no-cache"], "--dice takes a non-empty value"),
    ],
)
def test_numbers_and_empty_values_refused_first(args, message):
    one_line_error(runner.invoke(app, args), message)


def test_zehntausend_table_honours_rules(tmp_path):
    from jaxsolve.games.zehntausend import solver as z_solver, table_io as z_io

    path = tmp_path / "z.npy"
    z_io.save_solution(path, z_solver.solve())
    result = runner.invoke(app, ["advise", "zehntausend", "--table", str(path), "--rules", "no-two-fives", "--points", "0", "--dice", "155222"])
    one_line_error(result, "not no-two-fives")


# ----------------------------------------------------------------------------- saves


def test_deep_or_huge_save_refused(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    one_line_error(runner.invoke(app, ["play", "kniffel", "--resume", str(deep), "--plain"], input=""), "nested too deeply")


def test_cache_list_with_a_deep_sidecar(store, tmp_path):
    path = cache.entry_path("kniffel", SMALL, "score", "float64")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"x")
    path.with_suffix(".json").write_text("[" * 100_000 + "]" * 100_000)
    (path.parent / "dangling.npy").symlink_to(tmp_path / "nowhere")
    result = runner.invoke(app, ["cache", "list"])
    assert result.exit_code == 0 and "no readable sidecar" in result.stdout, result.output


def test_save_of_another_game_refused(small):
    from jaxsolve import play

    yahtzee = games.get_game("kniffel").get_rules("yahtzee")
    data = {"format": play.SAVE_FORMAT, "version": play.SAVE_VERSION, "game": "yatzy", "kind": "category", "rules": yahtzee.to_dict(), "settings": {"seed": 1}, "moves": []}
    with pytest.raises(JaxsolveError, match="rules 'yahtzee' are rules of kniffel, not of yatzy"):
        play.game_from_json(data, "s.json", game="yatzy")


# ----------------------------------------------------------------------------- Ctrl-C


# a solve that runs for tens of seconds (the dense keep operator in float64, nothing cached), so
# that a signal sent in its first seconds always finds it at work: a run that ended first fails
LONG_SOLVE = ["solve", "kniffel", "--rules", "yahtzee", "--x64", "--expect", "dense", "--no-cache", "--quiet"]
MARKER_SECONDS = 120  # the most a command may take to show the marker the signal waits for


def interrupted_run(args, tmp_path, after, marker=None, stdin=None, marker_on="stdout"):
    """Run ``jaxsolve ARGS`` in its own process group and send SIGINT to the group ``after``
    seconds after ``marker`` (bytes) appeared on its stdout (``marker_on="stderr"``: its
    stderr), or after the start when ``marker`` is None; return (status, stdout, stderr). The progress bars are drawn as on a terminal
    (rich's ``TTY_COMPATIBLE``/``FORCE_COLOR``), so a progress bar's first frame marks the start
    of a command's work."""
    env = {**os.environ, "PYTHONPATH": ROOT, "JAXSOLVE_CACHE": str(tmp_path / "store"), "TTY_COMPATIBLE": "1", "FORCE_COLOR": "1"}
    # a test run started in the background of a shell without job control ignores SIGINT, and a
    # child inherits that (jaxsolve then keeps ignoring it, as a background job should): while
    # the child starts, this process handles SIGINT, so the child gets the default action back,
    # as a command typed at a terminal has it
    ignored = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jaxsolve", *args], env=env, cwd=tmp_path, start_new_session=True,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
    finally:
        if ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    if stdin is not None:
        proc.stdin.write(stdin.encode())
        proc.stdin.flush()
    seen = b""
    if marker is not None:
        deadline = time.monotonic() + MARKER_SECONDS
        stream = proc.stdout if marker_on == "stdout" else proc.stderr
        while marker not in seen:
            ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(stream.fileno(), 1 << 16) if ready else b""
            if not chunk:  # ended, or no marker in time: say what it showed
                os.killpg(proc.pid, signal.SIGKILL)
                out, err = proc.communicate(timeout=60)
                pytest.fail(f"{marker!r} never came on {marker_on} (status {proc.returncode}): {(seen + out + err).decode()[-500:]!r}")
            seen += chunk
    time.sleep(after)
    try:
        os.killpg(proc.pid, signal.SIGINT)
    except ProcessLookupError:
        pass
    out, err = proc.communicate(timeout=120)
    if marker_on == "stderr":
        return proc.returncode, out.decode(), (seen + err).decode()
    return proc.returncode, (seen + out).decode(), err.decode()


def check_interrupted(status, err):
    """The run was interrupted: status 130 and ``interrupted`` the last line on stderr (after any
    note the command gave before), no traceback."""
    assert status == 130, (status, err)
    assert err.endswith("interrupted\n") and "Traceback" not in err, err


def test_ctrl_c_during_solve(tmp_path):
    """SIGINT once the solve has begun (its progress bars are up, on stderr) ends it: no export
    is left."""
    out = tmp_path / "t.npy"
    args = [a for a in LONG_SOLVE if a != "--quiet"]
    status, _, err = interrupted_run([*args, "--out", str(out)], tmp_path, 0.5, marker=b"\x1b", marker_on="stderr")
    assert status == 130 and err.endswith("interrupted\n") and "Traceback" not in err, err  # the bars' frames, then the one line
    assert not out.exists() and not out.with_suffix(".json").exists()


def test_ctrl_c_during_play_keeps_the_save(tmp_path):
    """SIGINT while play waits for the next move, one move made: the save holds that move."""
    from jaxsolve import play

    save = tmp_path / "g.json"
    status, out, err = interrupted_run(["play", "raab", "--rules", "piglet", "--plain", "--seed", "1", "--save", str(save)], tmp_path, 0.0, marker=b"their throw", stdin="r\n")
    check_interrupted(status, err)
    assert "game saved" not in out  # it did not end the usual way
    assert [m["by"] for m in play.read_save(save)["moves"]] == ["you"]


@pytest.mark.slow
@pytest.mark.parametrize("after", [0.08, 0.2, 0.4, 0.8, 1.2, 2.0, 3.0])
@pytest.mark.parametrize("command", ["solve", "advise"])
def test_ctrl_c_at_many_moments(tmp_path, command, after):
    """SIGINT at fixed moments after the start (start-up, building, compiling, solving): every
    run is still at work then, ends with the one line, and leaves no table behind."""
    if command == "solve":
        args = [*LONG_SOLVE, "--out", str(tmp_path / "t.npy")]
    else:  # solves Maxi Yatzy into the cache first: a minute and more
        args = ["advise", "maxi", "--dice", "112233", "--quiet"]
    status, _, err = interrupted_run(args, tmp_path, after)
    check_interrupted(status, err)
    assert not (tmp_path / "t.npy").exists()
    assert list((tmp_path / "store").glob("tables/*/*.npy")) == []


@pytest.mark.slow
def test_full_house_edited_in_a_yahtzee_export(tmp_path):
    """The case as a user meets it: the full house edited to 40 points in a Yahtzee sidecar
    whose hashes were recomputed; the table was solved for 25."""
    rules = games.get_game("kniffel").get_rules("yahtzee")
    path = tmp_path / "y.npy"
    table_io.save_solution(path, solver.solve(rules), game="kniffel")
    reseal(path, lambda m: next(b for b in m["rules"]["boxes"] if b["name"] == "full_house").update(points=40))
    with pytest.raises(JaxsolveError, match="named 'yahtzee', a preset of kniffel, but differ from that preset"):
        table_io.load_solution(path, game="kniffel")
    reseal(path, lambda m: m["rules"].update(name="house-rules"))  # renamed too: the values tell
    with pytest.raises(JaxsolveError, match="not a solution of the rules house-rules"):
        table_io.load_solution(path, game="kniffel")


# ----------------------------------------------------------------------------- outputs


def test_default_outputs_are_in_the_current_folder():
    from pathlib import Path

    for g in games.games():
        for name, command in g.commands.items():
            for p in command.params:
                if p.name == "out" and isinstance(p.default, Path):
                    assert p.default.parent == Path("."), (g.name, name, p.default)


def test_plot_without_out_writes_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["plot", "raab", "--rules", "piglet", "--no-cache"])
    assert result.exit_code == 0, result.output
    assert sorted(p.suffix for p in tmp_path.iterdir()) and all(p.suffix == ".png" for p in tmp_path.iterdir())


def test_pig_export_with_edited_rules_fails_the_bellman_check(tmp_path):
    from jaxsolve.games.raab import rules as raab_rules, solver as raab_solver, table_io as raab_io

    path = tmp_path / "p.npy"
    raab_io.save_export(path, raab_solver.solve(raab_rules.PigRules(name="custom", goal=12, sides=4, bust=1, last_turn=False)))
    assert raab_io.load_export(path).rules.goal == 12
    reseal(path, lambda m: m["rules"]["points"].__setitem__(3, 3))  # a face's points edited in the sidecar
    with pytest.raises(JaxsolveError, match="not a solution of the rules custom"):
        raab_io.load_export(path)


def test_zehntausend_export_resealed_with_another_two_fives_rule_fails_the_level_check(tmp_path):
    """The two-fives rule changed leaves the closed form above the bound as it is: the levels
    below it, recomputed from the rules the sidecar names, show the change."""
    from jaxsolve.games.zehntausend import rules as z_rules, solver as z_solver, table_io as z_io

    path = tmp_path / "e.npy"
    z_io.save_solution(path, z_solver.solve(z_rules.get_rules("peter-2013")))
    reseal(path, lambda m: m["rules"].update(name="house-rules", two_fives="off"))
    with pytest.raises(JaxsolveError, match=r"not a solution of the rules house-rules its sidecar names \(E\("):
        z_io.load_solution(path)
    result = runner.invoke(app, ["advise", "zehntausend", "--points", "250", "--dice", "155222", "--table", str(path)])
    one_line_error(result, "not a solution of the rules house-rules")


def test_duel_export_resealed_with_other_scoring_fails_the_turn_check(tmp_path):
    """A duel sidecar resealed with another scoring (and a name of its own) is refused: one turn
    of those rules does not give the table's values back."""
    from jaxsolve.games.zehntausend import duel, duel_commands
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    path = tmp_path / "d.npy"
    duel_commands.save(path, duel.solve(PRESETS["small"], dtype="float32"))
    reseal(path, lambda m: m["rules"].update(name="house-rules", scoring="no-two-fives"))
    with pytest.raises(JaxsolveError, match="not a solution of the rules house-rules its sidecar names"):
        duel_commands.load(path)
    reseal(path, lambda m: m["rules"].update(name="small"))  # a preset's name on other rules
    with pytest.raises(JaxsolveError, match="named 'small', a preset of zehntausend-duel, but differ"):
        duel_commands.load(path)
