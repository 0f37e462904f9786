"""The solution cache for every registered game: the Zehntausend duel (small rules) answered from
the cache by advise, play, plot and simulate; edited, foreign and forged entries refused; a
float64 table answered in float64; progress on stderr; a game defined in the test suite cached
through its registration alone; the memory layer and ``status`` for the page."""

import dataclasses
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import onedie_pig
from jaxsolve import games, play
from jaxsolve.cli import app
from jaxsolve.core.arrays import precision
from jaxsolve.games.zehntausend import duel, duel_advisor, duel_commands
from jaxsolve.games.zehntausend.duel_rules import PRESETS, DuelRules
from jaxsolve.io import cache

runner = CliRunner()
DUEL = "zehntausend-duel"
SMALL = PRESETS["small"]
POSITION = ["--mine", "300", "--theirs", "0", "--turn", "100", "--dice", "12346"]
ADVISE = ["advise", DUEL, "--rules", "small", *POSITION, "--json"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    """A cache folder holding the small duel's float64 table, solved once for this module."""
    folder = tmp_path_factory.mktemp("seed")
    cache.configure(folder)
    try:
        cache.solution(games.get_game(DUEL), SMALL, dtype="float64")
    finally:
        cache.configure(None)
    return folder


@pytest.fixture
def store(seeded, tmp_path, monkeypatch):
    """A copy of the seeded cache folder as this test's cache ($JAXSOLVE_CACHE)."""
    folder = tmp_path / "cache"
    shutil.copytree(seeded, folder)
    monkeypatch.setenv("JAXSOLVE_CACHE", str(folder))
    cache.configure(None)
    cache.forget()
    yield folder
    cache.keep_in_memory(False)
    cache.configure(None)


@pytest.fixture
def no_solve(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("solved although the cache holds the table")

    monkeypatch.setattr(duel, "solve", refuse)


def entry(store, rules=SMALL, dtype="float64"):
    return store / "tables" / DUEL / cache.entry_name(rules, "value", dtype)


def environment(store):
    return dict(os.environ, JAXSOLVE_CACHE=str(store), JAX_PLATFORMS="cpu", PYTHONPATH=ROOT)


def test_second_advise_in_a_new_process_is_answered_from_the_cache(store):
    """A new process answers from the cached table (a note says so, none says it solves), and
    stdout holds only the answer (the notes are on stderr)."""
    proc = subprocess.run([sys.executable, "-m", "jaxsolve", *ADVISE], env=environment(store), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "using the cached table" in proc.stderr and "solving" not in proc.stderr
    answer = json.loads(proc.stdout)  # nothing but the answer
    assert answer["options"][0]["option"] == "write 200"


def test_advise_and_play_start_from_the_cache(store, no_solve):
    advised = runner.invoke(app, ADVISE)
    assert advised.exit_code == 0, advised.output
    assert "using the cached table" in advised.stderr
    game = play.new_game(DUEL, "small", seed=1)
    assert game.solution.rules == SMALL and 0.0 < game.your_win() < 1.0


@pytest.mark.slow
def test_plot_and_simulate_start_from_the_cache(store, no_solve, tmp_path):
    plotted = runner.invoke(app, ["plot", DUEL, "--rules", "small", "--totals", "300", "--out", str(tmp_path)])
    assert plotted.exit_code == 0, plotted.output
    assert "using the cached table" in plotted.stderr and list(tmp_path.glob("*.png"))
    simulated = runner.invoke(app, ["simulate", DUEL, "--rules", "small", "--games", "200", "--slots", "200", "--quiet", "--json"])
    assert simulated.exit_code == 0, simulated.output
    assert json.loads(simulated.stdout)["games"] == 200


def test_cache_list_shows_the_duel_entry_once(store):
    listed = runner.invoke(app, ["cache", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)["entries"]
    assert [(r["game"], r["rules"], r["dtype"]) for r in rows] == [(DUEL, "small", "float64")]  # the -last.npy member counts in its size
    files = list(entry(store).parent.iterdir())
    assert rows[0]["bytes"] == sum(f.stat().st_size for f in files if f.suffix in (".npy", ".json"))


def test_an_edited_entry_is_refused_and_solved_again(store):
    path = entry(store).with_name(entry(store).stem + "-last.npy")
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))
    again = runner.invoke(app, ADVISE)
    assert again.exit_code == 0, again.output
    assert "is not usable" in again.stderr and "solved and cached" in again.stderr


@pytest.mark.slow
def test_a_foreign_entry_is_refused_and_solved_again(store):
    """The small duel's files under the key of other rules: the sidecar names other rules."""
    other = DuelRules("t-300", goal=300)
    for f in entry(store).parent.iterdir():
        shutil.copy(f, f.with_name(f.name.replace(entry(store).stem, entry(store, other).stem)))
    notes = []
    cache.configure(store, say=notes.append)
    sol = cache.solution(games.get_game(DUEL), other, dtype="float64")
    assert sol.rules == other
    assert any("is not usable" in n and "holds the" in n for n in notes) and any("solved and cached" in n for n in notes)


def test_a_forged_entry_with_consistent_hashes_is_checked_in_full_and_refused(store):
    """Values changed and the sidecar written anew (all hashes right): the sidecar hash is no
    longer the one the cache checked, so the loader recomputes a turn and refuses the table."""
    good = duel_commands.load(entry(store))
    forged = dataclasses.replace(good, start=np.clip(good.start * 0.97, 0.0, 1.0))
    duel_commands.save(entry(store), forged)
    notes = []
    cache.configure(store, say=notes.append)
    sol = cache.solution(games.get_game(DUEL), SMALL, dtype="float64")
    assert any("is not usable" in n and "not a solution" in n for n in notes), notes
    np.testing.assert_allclose(sol.start, good.start, rtol=0, atol=1e-12)


def fresh_advice():
    """The position's options from a fresh float64 solve, without the cache."""
    with precision("float64"):
        sol = duel.solve(SMALL, dtype="float64")
        return {c.label: c.value for c in duel_advisor.advise(sol, 300, 0, 100, [1, 2, 3, 4, 6])}


def test_a_float64_table_answers_in_float64_without_warnings(store, tmp_path):
    table = tmp_path / "duel.npy"
    duel_commands.save(table, duel_commands.load(entry(store)))
    want = fresh_advice()
    command = [sys.executable, "-W", "default", "-m", "jaxsolve", "advise", DUEL, "--table", str(table), *POSITION, "--x64", "--json"]
    proc = subprocess.run(command, env=environment(store), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "warn" not in proc.stderr.lower(), proc.stderr
    got = {o["option"]: o["value"] for o in json.loads(proc.stdout)["options"]}
    assert got.keys() == want.keys() and max(abs(got[k] - want[k]) for k in want) <= 1e-12
    in_float32_mode = runner.invoke(app, ["advise", DUEL, "--table", str(table), *POSITION, "--x32", "--json"])  # the table's precision wins
    assert in_float32_mode.exit_code == 0, in_float32_mode.output
    got = {o["option"]: o["value"] for o in json.loads(in_float32_mode.stdout)["options"]}
    assert max(abs(got[k] - want[k]) for k in want) <= 1e-12


def test_solve_shows_layers_on_stderr_and_fills_the_cache(tmp_path, monkeypatch):
    """The bar (layers done of layers, time left) is on stderr, stdout holds the answer only, and
    the solved table is the cache's entry from then on."""
    real = duel.solve

    def reporting(rules, progress=None, **kwargs):
        sol = real(rules, **kwargs)
        for done in range(1, 4):
            progress(done, 3)
        return sol

    monkeypatch.setattr(duel, "solve", reporting)
    monkeypatch.setitem(games.get_game(DUEL).solve_seconds, "small", 2 * cache.LONG_SOLVE_SECONDS)  # a solve long enough to be announced
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    cache.configure(None)
    solved = runner.invoke(app, ["solve", DUEL, "--rules", "small"])
    assert solved.exit_code == 0, solved.output
    assert solved.stdout.startswith("small: the start player wins with 0.") and "solving" not in solved.stdout and "left" not in solved.stdout
    assert "solving small, layers" in solved.stderr and "3/3" in solved.stderr and "left" in solved.stderr
    assert solved.stderr.startswith(f"solving {DUEL} under the rules small in float64\n")  # no idle figure: the bar shows the time left as measured here
    assert [e.rules for e in cache.entries(DUEL)] == ["small"]


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The test suite's own game (tests/references/onedie_pig.py) registered, and an empty cache."""
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    cache.configure(None)
    games.register(onedie_pig.GAME)
    from jaxsolve.cli import build_app

    try:
        yield build_app()
    finally:
        games.unregister(onedie_pig.GAME.name)
        cache.configure(None)


def test_a_new_game_is_cached_through_its_registration_alone(toy):
    warmed = runner.invoke(toy, ["cache", "warm", "one-die-pig", "--rules", "d4-to-8"])
    assert warmed.exit_code == 0, warmed.output
    assert warmed.stdout.startswith("one-die-pig d4-to-8 (float64): solved in ") and "cached at" in warmed.stdout
    listed = json.loads(runner.invoke(toy, ["cache", "list", "--game", "one-die-pig", "--json"]).stdout)["entries"]
    assert [(e["game"], e["rules"], e["dtype"]) for e in listed] == [("one-die-pig", "d4-to-8", "float64")]
    again = runner.invoke(toy, ["cache", "warm", "one-die-pig", "-r", "d4-to-8", "-r", "d6-to-12", "--quiet"])  # several presets at once
    assert again.exit_code == 0, again.output
    lines = again.stdout.splitlines()
    assert len(lines) == 2 and "d4-to-8 (float64): already cached" in lines[0] and "d6-to-12 (float64): solved in" in lines[1]
    assert again.stderr == ""  # --quiet: no note, no bar

    def refuse(*args, **kwargs):
        raise AssertionError("solved although the cache holds the table")

    rules = onedie_pig.PRESETS["d4-to-8"]
    sol = cache.solution(dataclasses.replace(onedie_pig.GAME, solve=refuse), rules, dtype="float64")
    want = onedie_pig.solve(rules)
    np.testing.assert_array_equal(sol.values, want.values)


def test_warm_all_solves_every_game_s_default_table_once(toy, monkeypatch):
    """``cache warm --all``: each registered game's default preset in its advisor's precision;
    a second run finds them all cached (a registry of the toy game alone keeps it short)."""
    calls: list = []
    real = onedie_pig.GAME.solve

    def counted(rules, **kw):
        calls.append(rules.name)
        return real(rules, **kw)

    game = dataclasses.replace(onedie_pig.GAME, solve=counted)
    monkeypatch.setattr(games, "games", lambda: [game])
    first = runner.invoke(toy, ["cache", "warm", "--all", "--quiet"])
    assert first.exit_code == 0, first.output
    assert first.stdout.startswith(f"one-die-pig {game.default} (float64): solved in ") and calls == [game.default]
    again = runner.invoke(toy, ["cache", "warm", "--all", "--quiet"])
    assert again.exit_code == 0 and "already cached" in again.stdout and calls == [game.default]
    for args, message in (([], "name a game, or give --all"), (["one-die-pig", "--all"], "name a game, or give --all"), (["--all", "-r", "x"], "--rules names presets")):
        refused = runner.invoke(toy, ["cache", "warm", *args])
        assert refused.exit_code == 1 and refused.stderr.startswith("error: ") and message in refused.stderr, refused.output


def test_tables_kept_in_memory_stay_under_the_limit_least_recently_used_first(toy):
    """``keep_in_memory(max_bytes=)``: past the limit the least recently used table is let go
    (and its listeners hear it); a table used again goes last."""
    game = onedie_pig.GAME
    rules = [onedie_pig.PRESETS["d4-to-8"], onedie_pig.PRESETS["d6-to-12"], game.build_rules("d4-to-8", goal=10)]
    sizes = [cache.table_bytes(cache.solution(game, r, dtype="float64")) for r in rules]  # solved and written
    assert all(size > 0 for size in sizes)
    keys = [cache.memory_key(game, r, "float64") for r in rules]
    heard: list = []
    cache.on_forget(lambda key, sol: heard.append(key))
    try:
        cache.keep_in_memory(True, max_bytes=sizes[0] + sizes[1])
        for r in rules[:2]:
            cache.solution(game, r, dtype="float64")
        assert cache.memory_use()["tables"] == 2 and heard == []
        assert cache.touch(keys[0])  # the first is used again
        cache.solution(game, rules[2], dtype="float64")
        use = cache.memory_use()
        assert use["bytes"] <= use["max_bytes"] and heard == [keys[1]]  # the second went first
        assert [cache.status(game, r, dtype="float64").where for r in rules] == ["memory", "disk", "memory"]
        # a copy a holder derives from the newest table counts against the limit too: the other goes
        cache.charge(cache.solution(game, rules[2], dtype="float64"), sizes[1] + 1)
        assert heard == [keys[1], keys[0]] and cache.memory_use()["tables"] == 1
        assert cache.memory_use()["bytes"] == sizes[2] + sizes[1] + 1
    finally:
        cache.keep_in_memory(False)
        cache._FORGET.pop()


def test_warm_refuses_unknown_games_and_presets(toy):
    for args, message in ((["chess"], "unknown game"), (["one-die-pig", "--rules", "nope"], "nope")):
        result = runner.invoke(toy, ["cache", "warm", *args])
        assert result.exit_code == 1 and result.stderr.startswith("error: ") and message in result.stderr


def test_memory_layer_and_status(store):
    game = games.get_game(DUEL)
    cache.setup(store, memory=True)
    assert cache.status(game, SMALL, dtype="float64").where == "disk"
    first = cache.solution(game, SMALL, dtype="float64")
    assert cache.status(game, SMALL, dtype="float64").where == "memory"
    for f in entry(store).parent.iterdir():
        f.unlink()
    assert cache.solution(game, SMALL, dtype="float64") is first  # kept in memory: no file read, no solve
    cache.keep_in_memory(False)
    missing = cache.status(game, SMALL, dtype="float64")
    assert not missing.cached and missing.estimate_seconds == game.solve_seconds["small"]
    default = cache.status(game, game.get_rules(), dtype="float64")
    assert default.to_dict()["cached"] is False and default.estimate_seconds == game.solve_seconds[game.default]
    assert cache.status(game, SMALL.replace(goal=600), dtype="float64").estimate_seconds is None  # changed rules: unknown
