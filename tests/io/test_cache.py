"""The solution store: a solved table is written once and loaded by later commands."""

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from jaxsolve.core.rules import Rules
from jaxsolve.io import cache
from jaxsolve.cli import app
from jaxsolve.games.category.engine import solutions, solver

runner = CliRunner()
ADVISE = ["advise", "kniffel", "--rules", "kniffel-apl", "--position", "aces=3 twos=- fours=12", "--dice", "1", "1", "2", "2", "5", "--rolls-left", "1", "--json"]


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    solutions._SOLUTIONS.clear()
    yield tmp_path
    solutions._SOLUTIONS.clear()
    cache.configure(None)


def test_second_advise_loads_the_table_and_does_not_solve(store, monkeypatch):
    first = runner.invoke(app, ADVISE)
    assert first.exit_code == 0, first.output
    assert "solved and cached the table" in first.stderr
    solutions._SOLUTIONS.clear()  # a new process would not have it in memory either

    def no_solve(*args, **kwargs):
        raise AssertionError("the second call solved again")

    monkeypatch.setattr(solver, "solve", no_solve)
    second = runner.invoke(app, ADVISE)
    assert second.exit_code == 0, second.output
    assert "using the cached table" in second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)


def test_broken_entry_is_reported_and_solved_again(store):
    assert runner.invoke(app, ADVISE).exit_code == 0
    (entry,) = cache.entries()
    data = bytearray(entry.path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    entry.path.write_bytes(bytes(data))
    solutions._SOLUTIONS.clear()
    again = runner.invoke(app, ADVISE)
    assert again.exit_code == 0, again.output
    assert "is not usable" in again.stderr and "solved and cached" in again.stderr


def test_cache_list_and_clear(store):
    assert runner.invoke(app, ADVISE).exit_code == 0
    listed = runner.invoke(app, ["cache", "list", "--json"])
    entries = json.loads(listed.stdout)["entries"]
    assert [(e["rules"], e["objective"], e["dtype"]) for e in entries] == [("kniffel-apl", "score", "float64")]
    cleared = runner.invoke(app, ["cache", "clear"])
    assert cleared.exit_code == 0 and "removed 3 file(s)" in cleared.stdout  # the table, its sidecar, its lock file
    assert cache.entries() == [] and not list((store / "tables").glob("*/*"))
    bad = runner.invoke(app, ["cache", "clear", "--game", "chess"])
    assert bad.exit_code == 1 and "unknown game" in bad.stderr


def test_no_cache_writes_nothing(store):
    result = runner.invoke(app, [*ADVISE, "--no-cache"])
    assert result.exit_code == 0, result.output
    assert cache.entries() == [] and "cached" not in result.stderr


def test_setup_puts_the_tables_and_the_compiled_programs_in_one_folder(tmp_path):
    code = (
        "import sys, jax; from jaxsolve.io import cache; cache.setup(sys.argv[1], compilation=True); "
        "print(cache.root() / cache.TABLES); print(jax.config.jax_compilation_cache_dir)"
    )
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == [str(tmp_path / "tables"), str(tmp_path / "xla")]
    assert (tmp_path / "xla").is_dir()


def test_setup_of_a_folder_that_takes_no_files_reads_only(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder belongs")
    notes, saved = [], []
    try:
        cache.setup(blocker, say=notes.append, compilation=True)  # no compilation cache either, and no error
        sol = cache.solved("g", Rules(name="r"), objective="score", dtype="float64", solve=lambda: "solved", save=lambda path, sol: saved.append(path), load=None)
    finally:
        cache.configure(None)
    assert sol == "solved" and saved == []
    assert notes[0].startswith(f"note: the cache folder {blocker} cannot be written")
    assert notes[1:] == ["solving g under the rules r in float64"]  # and no note of a table written


def test_one_table_asked_for_twice_at_once_is_solved_once(store):
    """Two solves of one entry at once (two threads here, each with its own open lock file, as
    two processes would have): the second waits for the first's entry and loads it."""
    import threading
    import time

    from jaxsolve.games import get_game

    game = get_game("raab")
    rules = game.get_rules("pig")
    calls, results = [], [None, None]

    def slow():
        calls.append(1)
        time.sleep(1.0)  # long enough for the other thread to reach the lock
        return game.solve(rules, dtype="float64")

    def ask(i):
        results[i] = cache.solution(game, rules, dtype="float64", solve=slow)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
        time.sleep(0.2)
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert results[0] is not None and results[1] is not None
    assert (game.values(results[0]) == game.values(results[1])).all()
    assert [p.name for p in (store / "tables" / "raab").glob("*.lock")]  # the lock file, which `cache clear` removes
    cache.clear()
    assert not list((store / "tables" / "raab").glob("*"))
