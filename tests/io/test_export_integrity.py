"""Exports that cannot silently go out of step, and loaders that check what they load.

Every failure must end in one ``error:`` line with exit status 1 (CLI) or a
``JaxsolveError`` (API): no traceback, no half-written or mismatched export accepted, the old
export intact where nothing of the new one was renamed into place yet.
"""

import json
import os

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.io import export
from jaxsolve.games.raab import rules as raab_rules, solver as raab_solver, table_io as raab_io
from jaxsolve.games.zehntausend import rules as z_rules, solver as z_solver, table_io as z_io
from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, table_io
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.kniffel import PRESETS

runner = CliRunner()
SMALL = CategoryRules(dice=2, throws=2, upper_threshold=5)


def one_line_error(result, message):
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: "), result.output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.output


def fail_on_replace(monkeypatch, call, exc=OSError(28, "No space left on device")):
    """Make the ``call``-th ``os.replace`` fail (counting from 1), as a kill would cut it."""
    real, count = os.replace, {"n": 0}

    def replace(src, dst):
        count["n"] += 1
        if count["n"] == call:
            raise exc
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    return count


def temps(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture(scope="module")
def small():
    return solver.solve(SMALL, chunk=256)


@pytest.fixture(scope="module")
def zsol():
    return z_solver.solve()


# ----------------------------------------------------------------------------- out of step


def test_sidecar_records_size_and_hash(tmp_path, small):
    path = tmp_path / "small.npy"
    table_io.save_solution(path, small, game="kniffel")
    meta = json.loads(path.with_suffix(".json").read_text())
    data = path.read_bytes()
    import hashlib

    assert meta["format"] == export.FORMAT
    assert meta["npy_bytes"] == len(data) and meta["sha256"] == hashlib.sha256(data).hexdigest()


def test_kniffel_solve_killed_between_the_two_renames(tmp_path, monkeypatch):
    """A rule change over an old export: `solve kniffel --rules kniffel` over a `yahtzee` export, cut after the
    .npy is renamed and before its sidecar is: the old export still loads (its array kept under
    its hash), and the next write clears what was kept."""
    out = tmp_path / "k.npy"
    first = runner.invoke(app, ["solve", "kniffel", "--rules", "yahtzee", "--quiet", "--out", str(out)])
    assert first.exit_code == 0, first.output
    old_sidecar = out.with_suffix(".json").read_text()
    old = table_io.load_solution(out, game="kniffel")
    fail_on_replace(monkeypatch, 2, KeyboardInterrupt())
    killed = runner.invoke(app, ["solve", "kniffel", "--rules", "kniffel", "--quiet", "--out", str(out)])
    monkeypatch.undo()
    assert killed.exit_code != 0
    assert out.with_suffix(".json").read_text() == old_sidecar  # new values under the old sidecar
    back = table_io.load_solution(out, game="kniffel")
    assert back.rules == old.rules and np.array_equal(back.values, old.values, equal_nan=True)
    result = runner.invoke(app, ["advise", "kniffel", "--values", str(out), "--dice", "11225"])
    assert result.exit_code == 0, result.output
    assert temps(tmp_path) == []
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".prev")]  # the old array, kept
    again = runner.invoke(app, ["solve", "kniffel", "--rules", "kniffel", "--quiet", "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert table_io.load_solution(out, game="kniffel").rules.name == "kniffel"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.json", "k.npy"]


def test_a_cut_write_with_nothing_kept_is_refused(tmp_path, monkeypatch, small):
    """Where the old array could not be kept (no hard links), a cut between the renames leaves
    a pair that does not match: refused, never read as a table."""
    path = tmp_path / "small.npy"
    table_io.save_solution(path, small, game="kniffel")
    monkeypatch.setattr(os, "link", lambda *a, **k: (_ for _ in ()).throw(OSError(1, "Operation not permitted")))
    fail_on_replace(monkeypatch, 2, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        table_io.save_solution(path, solver.Solution(SMALL.replace(extra_bonus=0), "score", small.values * 0.5), game="kniffel")
    monkeypatch.undo()
    with pytest.raises(JaxsolveError, match="does not match its sidecar"):
        table_io.load_solution(path, game="kniffel")


def test_failure_before_any_rename_keeps_the_old_export(tmp_path, monkeypatch, small):
    path = tmp_path / "small.npy"
    table_io.save_solution(path, small, game="kniffel")
    before = path.read_bytes(), path.with_suffix(".json").read_bytes()
    other = solver.Solution(SMALL.replace(extra_bonus=0), "score", small.values * 0.5)
    fail_on_replace(monkeypatch, 1)
    with pytest.raises(JaxsolveError, match="cannot write"):
        table_io.save_solution(path, other, game="kniffel")
    monkeypatch.undo()
    assert (path.read_bytes(), path.with_suffix(".json").read_bytes()) == before
    np.testing.assert_array_equal(table_io.load_solution(path, game="kniffel").values, small.values)
    assert temps(tmp_path) == []


def test_stale_temp_files_are_removed_by_the_next_write(tmp_path, small):
    path = tmp_path / "small.npy"
    dead = 2**22 + 12345  # above any default pid_max: no such process
    stale = [tmp_path / f".small.npy.{dead}.abcd1234.tmp", tmp_path / ".small.json.q1w2e3r4.tmp"]
    alive = tmp_path / f".small.npy.{os.getpid()}.zzzz.tmp"  # a write in progress (this process)
    other = tmp_path / f".other.npy.{dead}.abcd.tmp"
    for p in [*stale, alive, other]:
        p.write_bytes(b"partial")
    table_io.save_solution(path, small, game="kniffel")
    assert not any(p.exists() for p in stale)
    assert alive.exists() and other.exists()


@pytest.mark.parametrize("call", [1, 2, 3])
def test_raab_values_and_policy_cut_anywhere(tmp_path, monkeypatch, call):
    """Raab's values and policy are one export with one sidecar: a failure at any rename
    (policy, values, sidecar) leaves the old export, loadable, and one error line."""
    out = tmp_path / "piglet.npy"
    assert runner.invoke(app, ["solve", "raab", "--rules", "piglet", "--out", str(out), "--no-cache"]).exit_code == 0
    old = raab_io.load_export(out)
    fail_on_replace(monkeypatch, call)
    result = runner.invoke(app, ["solve", "raab", "--rules", "piglet", "--goal", "3", "--out", str(out), "--no-cache"])
    monkeypatch.undo()
    one_line_error(result, "cannot write")
    again = raab_io.load_export(out)
    assert again.rules == old.rules
    np.testing.assert_array_equal(again.values, old.values)
    np.testing.assert_array_equal(again.policy, old.policy)
    assert temps(tmp_path) == []


KILL_AT_RENAME = """
real, count = os.replace, [0]

def replace(src, dst):
    count[0] += 1
    if count[0] == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst)

os.replace = replace
"""
"""A writer script's part that kills its process (SIGKILL) at the ``kill_at``-th rename."""


RAAB_WRITER = """
import json, os, signal, sys
import numpy as np
from jaxsolve.games.raab import solver, table_io
from jaxsolve.games.raab.rules import PigRules

path, source, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = np.load(source)
rules = PigRules.from_dict(json.loads(str(data["rules"])))
sol = solver.PigSolution(rules=rules, start=data["start"], residual=0.0, tol=1e-12, dtype="float64", device="cpu",
                         compile_seconds=0.0, solve_seconds=0.0, iterations=1)
full = solver.FullSolution(rules, data["value"], data["value"], data["value"], data["policy"])  # solved beforehand: no JIT here
""" + KILL_AT_RENAME + """table_io.save_export(path, sol, full)
"""


@pytest.fixture(scope="module")
def piglets(tmp_path_factory):
    """Two solved Pig duels whose exports have the same shape and other values (the piglet
    preset's coin, and a three-sided die with two faces of 1 point), each as the arrays a
    writer process exports (the turn-start values, and the whole-state values and policy so
    that the writer compiles nothing)."""
    folder = tmp_path_factory.mktemp("piglets")
    out = {}
    piglet = raab_rules.PRESETS["piglet"]
    for rules in (piglet, piglet.replace(name="piglet-d3", sides=3, points=(0, 1, 1))):
        sol = raab_solver.solve(rules)
        full = raab_solver.full(sol)
        source = folder / f"{rules.name}.npz"
        np.savez(source, start=sol.start, value=full.value, policy=full.policy, rules=json.dumps(rules.to_dict()))
        out[rules.name] = (sol, source)
    return out


@pytest.mark.parametrize("kill_at", [1, 2, 3, 0])
def test_raab_export_killed_at_every_rename(tmp_path, piglets, kill_at):
    """A writer process SIGKILLed at each rename of a Raab export (policy, values, sidecar)
    over an export of other rules of the same shape (0: not killed) leaves the old export or
    the new one, loadable, never a mix."""
    import subprocess
    import sys

    (old, old_source), (new, new_source) = piglets["piglet"], piglets["piglet-d3"]
    out = tmp_path / "r.npy"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), os.environ.get("PYTHONPATH")]))}
    run = [sys.executable, "-c", RAAB_WRITER, str(out)]
    assert subprocess.run([*run, str(old_source), "0"], env=env, timeout=120).returncode == 0
    before = raab_io.load_export(out)
    assert before.rules == old.rules
    proc = subprocess.run([*run, str(new_source), str(kill_at)], env=env, timeout=120)
    assert proc.returncode == (-9 if kill_at else 0)
    back = raab_io.load_export(out)
    expected = new if kill_at == 0 else old  # the sidecar, renamed last, is the third rename
    assert back.rules == expected.rules
    np.testing.assert_array_equal(back.values[:, :, 0, :], expected.start)
    if kill_at:
        np.testing.assert_array_equal(back.values, before.values)
        np.testing.assert_array_equal(back.policy, before.policy)
    else:
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r-policy.npy", "r.json", "r.npy"]
        assert back.game_value != pytest.approx(before.game_value)


def test_raab_policy_of_another_export_refused(tmp_path, piglets):
    """The values of one Raab export with the policy file of another (same shape, one decision
    other) are refused with one line: the one sidecar hashes both files."""
    sol, _ = piglets["piglet"]
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    raab_io.save_export(a, sol)
    assert not (tmp_path / "a-policy.json").exists()
    loaded = raab_io.load_export(a)
    assert loaded.rules == sol.rules
    other = loaded.policy.copy()
    other[0, 0, 1, 0] = raab_solver.STOP if other[0, 0, 1, 0] == raab_solver.ROLL else raab_solver.ROLL
    export.save_members(b, loaded.values, loaded.meta, {"policy": other})
    raab_io.policy_path(a).write_bytes(raab_io.policy_path(b).read_bytes())
    with pytest.raises(JaxsolveError, match=r"a-policy\.npy is not the policy array a\.json names"):
        raab_io.load_export(a)
    result = runner.invoke(app, ["advise", "raab", "--table", str(a), "--mine", "0", "--theirs", "0", "--turn", "1"])
    one_line_error(result, "is not the policy array a.json names")
    raab_io.policy_path(a).unlink()
    with pytest.raises(JaxsolveError, match="member file a-policy.npy is missing"):
        raab_io.load_export(a)


def test_raab_export_of_the_older_two_sidecar_form_refused(tmp_path, piglets):
    """An export written the older way (values and policy each with a sidecar naming the
    other's hash) is refused with one line; writing over it leaves one sidecar."""
    sol, _ = piglets["piglet"]
    path = tmp_path / "p.npy"
    f = raab_solver.full(sol)
    values = raab_io.turn_total_layout(sol.rules, f.value, np.nan)
    policy = raab_io.turn_total_layout(sol.rules, f.policy, raab_solver.NONE)
    meta = raab_io.export_metadata(sol)
    export.save_group([(path, values, meta), (raab_io.policy_path(path), policy, meta)])
    with pytest.raises(JaxsolveError, match=r"p\.json does not name the member arrays policy of this export"):
        raab_io.load_export(path)
    raab_io.save_export(path, sol)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p-policy.npy", "p.json", "p.npy"]
    assert raab_io.load_export(path).rules == sol.rules


def test_zehntausend_cut_between_renames(tmp_path, monkeypatch, zsol):
    out = tmp_path / "e.npy"
    z_io.save_solution(out, zsol)
    fail_on_replace(monkeypatch, 2)
    with pytest.raises(JaxsolveError):
        z_io.save_solution(out, z_solver.solve(z_rules.get_rules("doubling")))
    monkeypatch.undo()
    assert z_io.load_solution(out).rules == zsol.rules  # the old export
    result = runner.invoke(app, ["advise", "zehntausend", "--points", "300", "--dice", "155222", "--table", str(out)])
    assert result.exit_code == 0, result.output


DUEL_WRITER = """
import os, signal, sys, types
import numpy as np
from jaxsolve.games.zehntausend import duel_commands
from jaxsolve.games.zehntausend.duel_rules import DuelRules

path, source, kill_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = np.load(source)
""" + KILL_AT_RENAME + """rules = DuelRules.from_dict(__import__("json").loads(str(data["rules"])))
sol = types.SimpleNamespace(rules=rules, start=data["start"], last=data["last"], facts=lambda: {"game_value": float(data["start"].flat[0])})
duel_commands.save(path, sol)
"""


@pytest.fixture(scope="module")
def duels(tmp_path_factory):
    """Two solved duels of the same shape and other values: the small preset and the same with
    the no-two-fives scoring, each as the arrays a writer process exports."""
    from jaxsolve.games.zehntausend import duel
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    folder = tmp_path_factory.mktemp("duels")
    out = {}
    for rules in (PRESETS["small"], PRESETS["small"].replace(name="small-no-two-fives", scoring="no-two-fives")):
        sol = duel.solve(rules, dtype="float32")
        source = folder / f"{rules.name}.npz"
        np.savez(source, start=sol.start, last=sol.last, rules=json.dumps(rules.to_dict()))
        out[rules.name] = (sol, source)
    return out


@pytest.mark.parametrize("kill_at", [1, 2, 3, 0])
def test_duel_export_killed_at_every_rename(tmp_path, duels, kill_at):
    """A writer process SIGKILLed at each rename of a duel export over an export of other rules
    (0: not killed) leaves the old export or the new one, loadable, never a mix."""
    import subprocess
    import sys

    from jaxsolve.games.zehntausend import duel_commands

    (old, old_source), (new, new_source) = duels["small"], duels["small-no-two-fives"]
    out = tmp_path / "d.npy"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), os.environ.get("PYTHONPATH")]))}
    run = [sys.executable, "-c", DUEL_WRITER, str(out)]
    assert subprocess.run([*run, str(old_source), "0"], env=env, timeout=120).returncode == 0
    proc = subprocess.run([*run, str(new_source), str(kill_at)], env=env, timeout=120)
    assert proc.returncode == (-9 if kill_at else 0)
    back = duel_commands.load(out)
    expected = new if kill_at == 0 or kill_at > 3 else old  # the sidecar, renamed last, is the third rename
    assert back.rules == expected.rules
    np.testing.assert_array_equal(back.start, expected.start)
    np.testing.assert_array_equal(back.last, expected.last)
    if kill_at == 0:
        assert sorted(p.name for p in tmp_path.iterdir()) == ["d-last.npy", "d.json", "d.npy"]


def test_duel_last_turn_table_of_another_export_refused(tmp_path):
    """The start table of one duel export with the last-turn table of another (same shape) is
    refused: the one sidecar hashes both arrays."""
    from jaxsolve.games.zehntausend import duel, duel_commands
    from jaxsolve.games.zehntausend.duel_rules import DuelRules

    rules = DuelRules("t", goal=300, end="last-turn", bound=400)
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    duel_commands.save(a, duel.solve(rules, dtype="float32"))
    duel_commands.save(b, duel.solve(rules.replace(scoring="no-two-fives"), dtype="float32"))
    assert duel_commands.load(a).rules == rules
    assert not (tmp_path / "a-last.json").exists()
    duel_commands.last_path(a).write_bytes(duel_commands.last_path(b).read_bytes())
    with pytest.raises(JaxsolveError, match=r"a-last\.npy is not the last array a\.json names"):
        duel_commands.load(a)
    result = runner.invoke(app, ["advise", "zehntausend-duel", "--table", str(a), "--mine", "0", "--theirs", "0", "--dice", "155234"])
    one_line_error(result, "is not the last array")
    duel_commands.last_path(a).unlink()
    with pytest.raises(JaxsolveError, match="member file a-last.npy is missing"):
        duel_commands.load(a)


# ----------------------------------------------------------------------------- the loaders' checks


def forge(path, array, meta, edit=None):
    """An export with a correct hash but the given content, its sidecar then edited and
    sealed again (its own hash recomputed, as a sidecar rewritten whole would be)."""
    export.save(path, array, meta)
    if edit is not None:
        side = path.with_suffix(".json")
        text = edit(json.loads(side.read_text()))
        try:
            edited = json.loads(text)
        except ValueError:
            edited = None
        side.write_text(json.dumps(export.seal(edited)) if isinstance(edited, dict) else text)
    return path


def kniffel_meta(sol):
    return table_io.metadata(sol, "kniffel")


def drop(key):
    return lambda meta: json.dumps({k: v for k, v in meta.items() if k != key})


def with_rules(**changes):
    return lambda meta: json.dumps({**meta, "rules": {**meta["rules"], **changes}})


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("wide table", "shape [8192, 10, 2] does not fit the rules"),
        ("int8 zeros", "dtype int8"),
        ("all NaN", "NaN at"),
        ("values at unreachable states", "unreachable state(s), which must be NaN"),
        ("infinity", "infinite values"),
        ("negative", "below 0"),
        ("no rules", "has no rules object"),
        ("unknown rules key", "unknown rules field(s) 'wild'"),
        ("missing rules key", "rules field(s) missing: joker"),
        ("invalid rules", "invalid rules: unknown joker mode"),
        ("rules of the wrong type", "invalid rules"),
        ("sidecar is a list", "a JSON list, not an object"),
        ("sidecar not JSON", "is not a JSON sidecar"),
        ("old format", "older jaxsolve without a content hash"),
        ("format 2", "was written by an older jaxsolve (export format 2); solve again to re-export it"),
        ("npz renamed npy", "a zip archive (.npz?)"),
        ("empty file", "is empty"),
        ("no sidecar", "has no metadata sidecar"),
        ("other game", "holds a table of 'zehntausend'"),
        ("bad objective", "objective 'fun'"),
        ("edited values", "does not match its sidecar"),
    ],
)
def test_kniffel_loader_refuses(tmp_path, small, case, message):
    path = tmp_path / "t.npy"
    meta = kniffel_meta(small)
    v = small.values
    if case == "wide table":
        forge(path, np.zeros((8192, 10, 2)), meta)
    elif case == "int8 zeros":
        forge(path, np.zeros(v.shape, np.int8), meta)
    elif case == "all NaN":
        forge(path, np.full(v.shape, np.nan), meta)
    elif case == "values at unreachable states":
        forge(path, np.nan_to_num(v), meta)
    elif case == "infinity":
        forge(path, np.where(np.isnan(v), v, np.inf), meta)
    elif case == "negative":
        forge(path, -v, meta)
    elif case == "no rules":
        forge(path, v, meta, drop("rules"))
    elif case == "unknown rules key":
        forge(path, v, meta, with_rules(wild=1))
    elif case == "missing rules key":
        forge(path, v, meta, lambda m: json.dumps({**m, "rules": {k: x for k, x in m["rules"].items() if k != "joker"}}))
    elif case == "invalid rules":
        forge(path, v, meta, with_rules(joker="wild"))
    elif case == "rules of the wrong type":
        forge(path, v, meta, with_rules(throws="three"))
    elif case == "sidecar is a list":
        forge(path, v, meta, lambda m: "[1, 2]")
    elif case == "sidecar not JSON":
        forge(path, v, meta, lambda m: "{not json")
    elif case == "old format":
        forge(path, v, meta, lambda m: json.dumps({**m, "format": "jaxsolve-export/1"}))
    elif case == "format 2":  # the rules and axis names of format 2
        old_rules = {("rolls" if k == "throws" else "instant_kniffel" if k == "instant_all_same" else k): x for k, x in meta["rules"].items()}
        old_axes = [{**a, "name": "holds50"} if a["name"] == "all_same_held" else a for a in meta["axes"]]
        forge(path, v, meta, lambda m: json.dumps({**m, "format": "jaxsolve-export/2", "rules": old_rules, "axes": old_axes}))
    elif case == "npz renamed npy":
        forge(path, v, meta)
        np.savez(tmp_path / "x.npz", values=v)
        data = (tmp_path / "x.npz").read_bytes()
        path.write_bytes(data)
        import hashlib

        side = json.loads(path.with_suffix(".json").read_text())
        path.with_suffix(".json").write_text(json.dumps(export.seal({**side, "npy_bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})))
    elif case == "empty file":
        forge(path, v, meta, lambda m: json.dumps({**m, "npy_bytes": 0, "sha256": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}))
        path.write_bytes(b"")
    elif case == "no sidecar":
        np.save(path, v)
    elif case == "other game":
        forge(path, v, {**meta, "game": "zehntausend"})
    elif case == "bad objective":
        forge(path, v, {**meta, "objective": "fun"})
    elif case == "edited values":
        forge(path, v, meta)
        w = v.copy()
        w[0, 0, 0] += 1
        np.save(path, w)
    with pytest.raises(JaxsolveError, match=None) as info:
        table_io.load_solution(path, game="kniffel")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("wide table", "does not fit the rules"),
        ("int8 zeros", "dtype int8"),
        ("all NaN", "NaN at"),
        ("sidecar is a list", "not an object"),
        ("empty file", "is empty"),
        ("npz", "no metadata sidecar"),
    ],
)
def test_advise_kniffel_values_one_line_errors(tmp_path, case, message):
    """--values with a broken table: one error line before any solve (the shape check needs
    the real rules, so these use the yahtzee preset's metadata)."""
    sol = solver.Solution(PRESETS["yahtzee"], "score", np.zeros((8192, 64, 2)))
    meta = table_io.metadata(sol, "kniffel")
    path = tmp_path / "y.npy"
    if case == "wide table":
        forge(path, np.zeros((8192, 10, 2)), meta)
    elif case == "int8 zeros":
        forge(path, np.zeros((8192, 64, 2), np.int8), meta)
    elif case == "all NaN":
        forge(path, np.full((8192, 64, 2), np.nan), meta)
    elif case == "sidecar is a list":
        forge(path, np.zeros(3), meta, lambda m: "[]")
    elif case == "empty file":
        forge(path, np.zeros(3), meta)
        path.write_bytes(b"")
    elif case == "npz":
        path = tmp_path / "t.npy"
        with open(path, "wb") as fh:
            np.savez(fh, values=np.zeros(3))
    result = runner.invoke(app, ["advise", "kniffel", "--values", str(path), "--dice", "11225", "--no-cache"])
    one_line_error(result, message)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (drop("top_level"), "has no valid top_level"),
        (lambda m: json.dumps({**m, "top_level": 3}), "below the self-consistent bound"),
        (lambda m: json.dumps({**m, "top_level": "238"}), "has no valid top_level"),
        (drop("rules"), "has no rules object"),
        (with_rules(straight=7), "invalid rules"),
        (lambda m: json.dumps({**m, "game": "raab"}), "not zehntausend"),
        (lambda m: json.dumps([m]), "not an object"),
    ],
)
def test_zehntausend_table_refused(tmp_path, zsol, edit, message):
    path = tmp_path / "e.npy"
    forge(path, zsol.E, z_io.e_metadata(zsol), edit)
    result = runner.invoke(app, ["advise", "zehntausend", "--points", "300", "--dice", "155222", "--table", str(path)])
    one_line_error(result, message)


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (lambda E: E[:100], "does not fit the rules"),
        (lambda E: np.zeros(E.shape, np.int8), "dtype int8"),
        (lambda E: np.full(E.shape, np.nan), "NaN at"),
        (lambda E: E * 0.5, "E(p, 0) < p"),
        (lambda E: E + np.r_[np.zeros(200), np.ones(E.shape[0] - 200)][:, None], "closed form"),
    ],
)
def test_zehntausend_content_checks(tmp_path, zsol, array, message):
    path = tmp_path / "e.npy"
    forge(path, array(zsol.E), z_io.e_metadata(zsol))
    with pytest.raises(JaxsolveError) as info:
        z_io.load_solution(path)
    assert message in str(info.value)


def test_zehntausend_round_trip(tmp_path, zsol):
    path = tmp_path / "e.npy"
    z_io.save_solution(path, zsol)
    back = z_io.load_solution(path)
    np.testing.assert_array_equal(back.E, zsol.E)
    assert back.rules == zsol.rules and back.top_level == zsol.top_level


def test_pig_loader_checks(tmp_path):
    sol = raab_solver.solve(raab_rules.get_rules("piglet"))
    path = tmp_path / "p.npy"
    raab_io.save_export(path, sol)
    back = raab_io.load_export(path)
    assert back.game_value == pytest.approx(4 / 7, abs=1e-12)
    f = raab_solver.full(sol)
    values = raab_io.turn_total_layout(sol.rules, f.value, np.nan)
    policy = raab_io.turn_total_layout(sol.rules, f.policy, raab_solver.NONE)
    meta = raab_io.export_metadata(sol)

    def group(v, p, vmeta=meta):
        export.save_members(path, v, vmeta, {"policy": p})
        with pytest.raises(JaxsolveError) as info:
            raab_io.load_export(path)
        assert "\n" not in str(info.value)
        return str(info.value)

    assert "above 1.0" in group(values * 2, policy)
    assert "dtype float64" in group(values, policy.astype(np.float64))
    assert "NaN at" in group(np.full(values.shape, np.nan), policy)
    assert "does not fit the rules" in group(values[:, :1], policy[:, :1])
    assert "a decision where MSP + MAP exceeds" in group(values, np.where(np.isnan(values), raab_solver.ROLL, policy).astype(np.int8))
    assert "not a solution of the rules piglet" in group(np.where(np.isnan(values), np.nan, 0.5), policy)
    # a values file with no policy named in its sidecar
    export.save(path, values, meta)
    with pytest.raises(JaxsolveError, match="does not name the member arrays policy"):
        raab_io.load_export(path)


# ----------------------------------------------------------------------------- output paths and limits


@pytest.fixture
def read_only_dir(tmp_path):
    """A folder no new file can be created in (a chmod'ed one; as root, where chmod does not
    bind, /proc)."""
    if os.geteuid() != 0:
        d = tmp_path / "ro"
        d.mkdir()
        d.chmod(0o555)
        yield d
        d.chmod(0o755)
    elif os.path.isdir("/proc/self"):
        yield __import__("pathlib").Path("/proc")
    else:  # pragma: no cover
        pytest.skip("no read-only folder available as root")


def no_work(monkeypatch):
    """Any solve, table or benchmark started after this fails the test: paths are checked first."""

    def boom(*a, **k):
        raise AssertionError("the work started before the output path was checked")

    from jaxsolve import bench
    from jaxsolve.games.category.checks import apl_article
    from jaxsolve.games.category.simulation import simulate

    for mod, name in [(raab_solver, "solve"), (z_solver, "solve"), (solver, "solve"), (apl_article, "apl_tables"), (bench, "run_bench"), (simulate, "simulate")]:
        monkeypatch.setattr(mod, name, boom)


@pytest.mark.parametrize(
    "args",
    [
        ["plot", "raab", "--out", "{ro}"],
        ["tables", "raab", "--out", "{ro}"],
        ["tables", "kniffel", "--out", "{ro}/apl.md"],
        ["bench", "--quick", "--out", "{ro}"],
        ["bench", "--quick", "--out", "{ro}/new"],
        ["distribution", "kniffel", "--out", "{ro}"],
        ["distribution", "kniffel", "--out", "{ro}/new"],
        ["simulate", "kniffel", "--out", "{ro}"],
        ["solve", "kniffel", "--out", "{ro}/k.npy"],
        ["solve", "raab", "--out", "{ro}/r.npy"],
        ["solve", "zehntausend", "--out", "{ro}/z.npy"],
        ["plot", "zehntausend", "--out", "{ro}/z.png"],
    ],
    ids=lambda a: " ".join(a[:2]) + (" new" if a[-1].endswith("new") else ""),
)
def test_unwritable_output_refused_before_the_work(read_only_dir, monkeypatch, args):
    no_work(monkeypatch)
    result = runner.invoke(app, [a.replace("{ro}", str(read_only_dir)) for a in args])
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1, result.output
    assert "output directory" in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["plot", "raab", "--out", "{f}"],
        ["tables", "raab", "--out", "{f}/sub"],
        ["tables", "kniffel", "--out", "{f}/apl.md"],
        ["bench", "--quick", "--out", "{f}/sub"],
        ["distribution", "kniffel", "--out", "{f}/sub"],
        ["simulate", "kniffel", "--out", "{f}/sub"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_output_under_a_file_refused_before_the_work(tmp_path, monkeypatch, args):
    no_work(monkeypatch)
    f = tmp_path / "file.txt"
    f.write_text("x")
    result = runner.invoke(app, [a.replace("{f}", str(f)) for a in args])
    one_line_error(result, "")
    assert f.read_text() == "x"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stdout_on_a_full_disk_is_one_error_line():
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "jaxsolve", "solve", "zehntausend", "--json", "--no-cache"], stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=300
        )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().splitlines() == ["error: cannot write the output: No space left on device"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["advise", "kniffel", "--dice", "11225", "--top", "0"], "--top must be between 1 and"),
        (["solve", "kniffel", "--rolls", "0"], "--rolls must be between 1 and"),
        (["solve", "kniffel", "--extra-bonus", "-1"], "--extra-bonus must be between 0 and"),
        (["solve", "kniffel", "--chunk", "0"], "--chunk must be between 16 and"),
        (["distribution", "kniffel", "--chunk", "0"], "--chunk must be between 1 and"),
        (["solve", "kniffel", "--no-such-option"], "No such option: --no-such-option"),
        (["solve", "kniffl"], "No such command 'kniffl'"),
        (["advise-target", "kniffel", "1", "2", "3", "4", "5", "--target", "10", "--upper", "500"], "upper total 500 is impossible"),
        (["advise-target", "kniffel", "1", "2", "3", "4", "5", "--target", "10", "--upper", "19", "--filled", "aces", "--filled", "twos"], "at most 15"),
        (["advise-target", "kniffel", "1", "2", "3", "4", "5", "--target", "10", "--upper", "7", "--filled", "twos"], "only sums"),
        (["advise-target", "kniffel", "1", "2", "3", "4", "5", "--target", "10", "--holds50"], "--all-same-held needs the kniffel box"),
    ],
)
def test_usage_and_state_errors_are_one_line(monkeypatch, args, message):
    no_work(monkeypatch)
    from jaxsolve.games.category.objectives import target

    monkeypatch.setattr(target, "solve_target", lambda *a, **k: (_ for _ in ()).throw(AssertionError("solved")))
    one_line_error(runner.invoke(app, args), message)


def test_the_duel_bound_help_states_the_memory_limit_it_is_checked_against():
    """``--bound`` is limited by the memory check alone: the help names that limit, the
    largest bound it states passes the check at the smallest and the largest goal, the next
    multiple of 50 does not."""
    from jaxsolve.core.rules import RulesError
    from jaxsolve.games.zehntausend.duel_rules import MAX_BOUND, DuelRules

    result = runner.invoke(app, ["solve", "zehntausend-duel", "--help"], env={"COLUMNS": "400"})
    assert result.exit_code == 0
    assert f"a bound above {MAX_BOUND:,} is refused, its solve's turn tables would pass 4 GiB" in " ".join(result.stdout.split())
    for goal in (100, 20_000):
        assert DuelRules("x", goal=goal, end="last-turn", bound=MAX_BOUND).top == MAX_BOUND
        with pytest.raises(RulesError, match=f"bound {MAX_BOUND + 50} is too large"):
            DuelRules("x", goal=goal, end="last-turn", bound=MAX_BOUND + 50)
    one_line_error(runner.invoke(app, ["solve", "zehntausend-duel", "--rules", "last-turn", "--bound", str(MAX_BOUND + 50)]), f"bound {MAX_BOUND + 50} is too large")


def test_help_still_works():
    result = runner.invoke(app, ["solve", "kniffel", "--help"])
    assert result.exit_code == 0 and "--rules" in result.stdout


def test_a_preset_name_is_checked_against_the_presets_the_loader_gives(tmp_path):
    path = tmp_path / "t.npy"
    piglet = raab_rules.PRESETS["piglet"]
    renamed = raab_rules.PRESETS["pig"].replace(name="piglet")
    export.check_preset_name(path, "raab", piglet, raab_rules.PRESETS)
    export.check_preset_name(path, "raab", renamed, None)  # no presets given: nothing to compare with
    export.check_preset_name(path, "raab", raab_rules.PRESETS["pig"].replace(goal=50), raab_rules.PRESETS)  # not a preset's name
    with pytest.raises(JaxsolveError, match="named 'piglet', a preset of raab, but differ from that preset"):
        export.check_preset_name(path, "raab", renamed, raab_rules.PRESETS)


def _rename_export(src, dst, *, members: bool = True) -> None:
    """Rename the export ``src`` (its array, sidecar and, with ``members``, its member files) to ``dst``."""
    for f in sorted(src.parent.glob(src.stem + "*")):
        if f.suffix in (".npy", ".json") and (members or f.name in (src.name, export.sidecar_path(src).name)):
            f.rename(dst.with_name(dst.stem + f.name[len(src.stem):]))


def test_an_export_renamed_as_a_whole_loads_and_one_renamed_in_part_says_why(tmp_path):
    """Every file of an export of several arrays renamed alike (``X*.npy`` -> ``Y*.npy``): read
    back as written, its hashes proving the content. The array and sidecar renamed without the
    members: refused in one line naming the name it was written under."""
    src = tmp_path / "x.npy"
    first, second = np.arange(6.0).reshape(2, 3), np.ones((4,), np.float32)
    export.save_members(src, first, {"game": "kniffel"}, {"second": second})
    whole = tmp_path / "renamed.npy"
    _rename_export(src, whole)
    array, meta = export.load(whole)
    assert np.array_equal(array, first) and np.array_equal(export.load_members(whole, meta, ("second",))["second"], second)
    part = tmp_path / "part.npy"
    _rename_export(whole, part, members=False)
    with pytest.raises(JaxsolveError, match=r"member file part-second.npy is missing \(the export was written as x.npy: rename all of its files alike") as err:
        export.load_members(part, export.load(part)[1], ("second",))
    assert "\n" not in str(err.value)
