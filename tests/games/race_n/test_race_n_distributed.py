"""A race at a table solved by two processes (``jax.distributed`` on localhost, gloo): the same
values as one process's solve, bit for bit; the layers' chunks dealt as one process cuts them;
bad options one ``error:`` line and exit status 1 before any work."""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

from jaxsolve.core.race_cycles import make_cycles
from jaxsolve.core.race_multi import deal_chunks
from jaxsolve.games import race_table_distributed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ENTRY = [sys.executable, "-m", "jaxsolve.games.race_table_distributed"]


def _env():
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path, JAX_PLATFORMS="cpu")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _two_processes(args):
    """Run the entry point as processes 0 and 1 of two; process 0's JSON line."""
    args = [*args, "--coordinator", f"127.0.0.1:{_free_port()}", "--processes", "2"]
    procs = [subprocess.Popen([*ENTRY, *args, "--process-id", str(i)], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in (0, 1)]
    results = []
    for p in procs:
        try:
            results.append(p.communicate(timeout=600))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
    for p, (_, err) in zip(procs, results):
        assert p.returncode == 0, err[-3000:]
    assert "{" not in results[1][0]  # only process 0 reports
    return json.loads(results[0][0].strip().splitlines()[-1])


def test_four_player_pig_by_two_processes_equals_one_process_bit_for_bit(tmp_path):
    """Four players with a d3 to 18: six cycles do not settle (pure and mixed equilibria),
    settled on both processes alike."""
    from jaxsolve.games.raab import table
    from jaxsolve.games.raab.table_rules import PigTableRules

    out = tmp_path / "pig4.npy"
    row = _two_processes(["--game", "pig-table", "--players", "4", "--goal", "18", "--sides", "3", "--out", str(out)])
    one = table.solve(PigTableRules(players=4, goal=18, sides=3))
    assert row["processes"] == 2 and row["unsettled"] == len(one.run.unsettled) == 6
    assert {u["selected"] for u in one.run.unsettled} == {"pure", "mixed"}
    assert row["sha256"] == race_table_distributed.digest(one.values)
    assert row["start"] == one.start.tolist() and row["rounds"] == one.run.rounds and row["residual"] == one.run.residual
    assert np.array_equal(np.load(out), one.values)


@pytest.mark.slow
def test_four_player_zehntausend_by_two_processes_equals_one_process_bit_for_bit():
    from jaxsolve.games.zehntausend import table
    from jaxsolve.games.zehntausend.table_rules import TableRules

    row = _two_processes(["--game", "zehntausend-table", "--players", "4", "--goal", "500"])
    one = table.solve(TableRules(players=4, goal=500))
    assert row["processes"] == 2 and row["sha256"] == race_table_distributed.digest(one.values)
    assert row["start"] == one.start.tolist()


@pytest.mark.parametrize("levels,players,chunk,processes", [(12, 3, 4, 2), (9, 4, 5, 3), (6, 4, 64, 2), (10, 2, 1, 4)])
def test_dealt_chunks_are_one_process_chunks_covering_each_layer(levels, players, chunk, processes):
    cycles = make_cycles(levels, players)
    for lo, hi in zip(cycles.starts[:-1], cycles.starts[1:]):
        size = int(hi - lo)
        parts = deal_chunks(size, chunk, processes)
        assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(size))
        for p, part in enumerate(parts):
            for j in range(0, len(part), chunk):  # laid together: whole chunks of one process's walk
                piece = part[j : j + chunk]
                assert piece[0] % chunk == 0 and np.array_equal(piece, np.arange(piece[0], piece[0] + len(piece)))
                assert (piece[0] // chunk) % processes == p  # dealt round the processes
                assert len(piece) == chunk or piece[-1] == size - 1  # only the layer's last chunk is short, and it ends a share


def test_distributed_entry_rejects_an_unknown_game():
    proc = subprocess.run([*ENTRY, "--game", "nope"], env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stderr.startswith("error: argument --game: invalid choice: 'nope'") and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "env, args, message",
    [
        ({"JAX_NUM_PROCESSES": "abc"}, [], "$JAX_NUM_PROCESSES must be a whole number, got 'abc'"),
        ({}, ["--processes", "x"], "argument --processes: invalid int value: 'x'"),
        ({}, ["--coordinator", "127.0.0.1:70000"], "--coordinator must be host:port with a port 1..65535"),
        ({}, ["--coordinator", "localhost"], "--coordinator must be host:port"),
        ({}, ["--processes", "0"], "--processes must be at least 1, got 0"),
        ({}, ["--processes", "2", "--process-id", "2"], "--process-id must be 0..1, got 2"),
        ({}, ["--local-devices", "0"], "--local-devices must be at least 1, got 0"),
        ({}, ["--out", "/nonexistent/t.npy"], "output directory does not exist: /nonexistent"),
        ({}, ["--out", "t.txt"], "output path must end in .npy"),
        ({}, ["--rules", "nope"], "unknown Zehntausend at a table rules 'nope'"),
        ({}, ["--players", "5"], "--players must be"),
        ({}, ["--goal", "1025"], "goal must be a non-negative multiple of 50, got 1025"),
        ({}, ["--game", "pig-table", "--players", "4", "--goal", "1000"], "1,000,000,000,000 turn-start states is too many"),
        ({}, ["--game", "pig-table", "--entry", "100"], "unrecognized arguments: --entry 100"),
        ({}, ["--sides", "3"], "unrecognized arguments: --sides 3"),
    ],
)
def test_distributed_entry_refuses_bad_input_before_any_work(monkeypatch, capsys, env, args, message):
    for name in ("JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    started = []
    monkeypatch.setattr("jax.distributed.initialize", lambda *a, **k: started.append(1))
    assert race_table_distributed.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and len(err.strip().splitlines()) == 1, err
    assert not started
