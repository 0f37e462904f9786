"""The Zehntausend duel answered without JAX: the NumPy turn (``duel_numpy``) against the solver's
JAX turn (``duel``) to 1e-12 in float64, and a second ``advise`` in a new process that reads the
solution cache, imports no JAX and prints what the JAX turn gives."""

import dataclasses
import functools
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend import duel, duel_advisor, duel_commands, duel_numpy
from jaxsolve.games.zehntausend.duel_rules import PRESETS, DuelRules
from jaxsolve.io import cache

runner = CliRunner()
DUEL = "zehntausend-duel"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RULES = (
    PRESETS["small"],
    pytest.param(PRESETS["small-entry"], marks=pytest.mark.slow),
    pytest.param(DuelRules("t-300-last", goal=300, end="last-turn", bound=400), marks=pytest.mark.slow),
    DuelRules("t-300-last-entry", goal=300, end="last-turn", bound=450, entry=100, scoring="three-pairs"),
)


@functools.lru_cache(maxsize=None)
def solved(rules):
    return duel.solve(rules, dtype="float64")


def edge_states(geo):
    """Turn-start states ``(ts, a, b)`` at the edges (nobody entered, both one level short of
    the goal, one far behind) and in the middle, for each start flag."""
    G = geo.G
    corners = {(0, 0), (0, G - 1), (G - 1, 0), (G - 1, G - 1), (1, 0), (0, 1), (G // 2, G // 3)}
    return [(ts, a, b) for ts in range(geo.T) for a, b in sorted(corners) if a < G and b < G]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: getattr(r, "name", None))
def test_the_numpy_turn_equals_the_jax_turn(rules):
    sol = solved(rules)
    geo = duel_numpy.geometry(rules)
    for ts, a, b in edge_states(geo):
        V, S = duel.turn_values(sol, ts, a, b)
        v, s = duel_numpy.turn_values(sol, ts, a, b)
        np.testing.assert_array_equal(np.isfinite(S), np.isfinite(s))  # -inf: the entry minimum forbids the write
        np.testing.assert_allclose(s, S, rtol=0, atol=1e-12)
        np.testing.assert_allclose(v, V, rtol=0, atol=1e-12)
    for need in (0, 1, 2, geo.Gb // 2, geo.Gb + 1):
        V, S = duel.last_turn_values(sol, need)
        v, s = duel_numpy.last_turn_values(sol, need)
        np.testing.assert_allclose(v, V, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(s, S)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: getattr(r, "name", None))
def test_one_numpy_turn_gives_the_solution_back(rules):
    """Every turn-start state, one turn in NumPy from the solved values: the values again (the
    loader's check, ``duel_commands.bellman_check``), and the last-turn table of the JAX solve."""
    sol = solved(rules)
    W = sol.start.reshape(-1)
    np.testing.assert_allclose(duel_numpy.turn_start_values(W, sol.last, np.arange(W.size), rules), W, rtol=0, atol=1e-12)
    if rules.last_turn:
        np.testing.assert_allclose(duel_numpy.last_turn_table(rules), sol.last, rtol=0, atol=1e-12)


def test_every_option_equals_the_jax_advisor_near_the_goal():
    """Options of throws near the goal and past it (set-asides that risk a bust there), the
    NumPy advisor against the same advisor on the JAX turn."""
    sol = solved(PRESETS["small"])
    for mine, theirs, turn, faces in ((450, 450, 0, [1, 5, 5, 2, 3, 4]), (300, 0, 100, [1, 2, 3, 4, 6]), (0, 450, 400, [1, 5]), (400, 100, 550, [5, 5, 2])):
        got = duel_advisor.advise(sol, mine, theirs, turn, faces)
        want = _jax_advice(sol, mine, theirs, turn, faces)
        assert [c.label for c in got] == [c.label for c in want]
        assert max(abs(g.value - w.value) for g, w in zip(got, want)) <= 1e-12


def _jax_advice(sol, mine, theirs, turn, faces):
    original = duel_advisor.tables_at

    def jax_tables(sol, mine, theirs, they_started):
        if theirs >= sol.rules.goal:
            return duel.last_turn_values(sol, (theirs - mine) // 50 + 1)
        return duel.turn_values(sol, int(they_started and sol.rules.last_turn), mine // 50, theirs // 50)

    duel_advisor.tables_at = jax_tables
    try:
        return duel_advisor.advise(sol, mine, theirs, turn, faces)
    finally:
        duel_advisor.tables_at = original


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A cache folder holding the small duel's float64 table (written by the solve, so sealed)."""
    folder = tmp_path_factory.mktemp("seed")
    try:
        solved_here = runner.invoke(app, ["solve", DUEL, "--rules", "small", "--cache-dir", str(folder), "--quiet"])
    finally:
        cache.configure(None)
    assert solved_here.exit_code == 0, solved_here.output
    return folder


POSITION = ["--rules", "small", "--mine", "300", "--theirs", "150", "--turn", "100", "--dice", "12346"]
def in_a_new_process(folder, *args, stdin=None):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu")
    command = [sys.executable, "-m", "jaxsolve.cli.jax_probe", *args, "--cache-dir", str(folder)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, input=stdin)


def advise_in_a_new_process(folder, *args):
    return in_a_new_process(folder, "advise", DUEL, *POSITION, *args)


def test_a_cached_advise_in_a_new_process_imports_no_jax_and_answers_as_the_jax_turn(seeded, tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    shutil.copytree(seeded, folder)
    entry = folder / "tables" / DUEL / cache.entry_name(PRESETS["small"], "value", "float64")
    seal = entry.with_suffix(cache.VERIFIED)
    assert seal.is_file()
    proc = advise_in_a_new_process(folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.splitlines()[-1] == "no jax" and "using the cached table" in proc.stderr, proc.stderr
    monkeypatch.setattr(duel_advisor, "tables_at", _jax_tables)  # the same command on the JAX turn, in this process
    jax_path = runner.invoke(app, ["advise", DUEL, *POSITION, "--cache-dir", str(folder)])
    assert jax_path.exit_code == 0, jax_path.output
    assert proc.stdout == jax_path.stdout and "win probability" in proc.stdout
    # without the seal the table is checked in full (one turn of a sample of states), still without JAX
    seal.unlink()
    proc = advise_in_a_new_process(folder, "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.splitlines()[-1] == "no jax" and seal.is_file()
    assert json.loads(proc.stdout)["options"][0]["option"] == "write 200"
    cache.configure(None)


def test_play_from_the_cache_in_a_new_process_imports_no_jax(seeded):
    """Up to the first prompt, a throw of virtual dice and its ranked options: no JAX."""
    proc = in_a_new_process(seeded, "play", DUEL, "--rules", "small", "--seed", "3", "--plain", stdin="\n\nq\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.splitlines()[-1] == "no jax", proc.stderr
    assert "your throw, 6 dice" in proc.stdout and "options (your win probability, best first)" in proc.stdout


def _jax_tables(sol, mine, theirs, they_started):
    return duel.turn_values(sol, int(they_started and sol.rules.last_turn), mine // 50, theirs // 50)


def test_a_forged_table_is_refused_by_the_numpy_check(tmp_path):
    """Values changed and the sidecar written anew (every hash right): the full check recomputes
    one turn with NumPy and refuses the table."""
    sol = solved(PRESETS["small"])
    path = tmp_path / "forged.npy"
    duel_commands.save(path, dataclasses.replace(sol, start=np.clip(sol.start * 0.99, 0.0, 1.0)))
    with pytest.raises(JaxsolveError, match="not a solution"):
        duel_commands.load(path)
    assert duel_commands.load(path, verify=False).rules == sol.rules  # the export's own checks pass


@pytest.mark.parametrize("n", range(1, 7))
def test_the_scoring_enumerates_the_sub_multisets_of_the_dice_space(n):
    """The scoring's own enumeration of each throw's sub-multisets: the dice space's, in order."""
    from jaxsolve.core.dice import dice_space
    from jaxsolve.games.zehntausend import scoring

    keeps, throws, subs = scoring._sub_multisets(n)
    space = dice_space(n)
    np.testing.assert_array_equal(throws, space.throws)
    np.testing.assert_array_equal(keeps[subs], space.keeps[space.subkeeps])


@pytest.mark.parametrize("rules", [PRESETS["small"], RULES[3]], ids=lambda r: r.name)
def test_the_numpy_decision_tables_equal_the_jax_ones(rules):
    """The plot's and the simulation's tables (every state, one batched turn per my score):
    NumPy against JAX to 1e-12, for each start flag."""
    sol = solved(rules)
    levels = [0, 3, 6, duel_numpy.geometry(rules).Gb - 1]
    for ts in range(rules.shape[0]):
        V, S = duel.decision_tables(sol, levels, ts)
        v, s = duel_numpy.decision_tables(sol, levels, ts)
        np.testing.assert_allclose(s, S, rtol=0, atol=1e-12)
        np.testing.assert_allclose(v, V, rtol=0, atol=1e-12)
