"""The duel's layers split over a device mesh (two CPU devices in one process) and over two
processes (``jax.distributed`` on localhost, gloo): the same values as one device, bit for bit."""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

from jaxsolve.games.zehntausend import duel, duel_commands
from jaxsolve.games.zehntausend.duel_rules import DuelRules

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MESH_SCRIPT = r"""
import json, jax
jax.config.update("jax_enable_x64", True)
import numpy as np
from jaxsolve.games.zehntausend import duel
from jaxsolve.games.zehntausend.duel_rules import DuelRules
assert len(jax.devices()) == 2, jax.devices()
out = []
for rules in (DuelRules("t", goal=500, entry=150), DuelRules("t", goal=300, end="last-turn", bound=400)):
    one = duel.solve(rules)
    two = duel.solve(rules, mesh=duel.mesh_of())
    out.append({"same": bool(np.array_equal(one.start, two.start)), "rounds": bool(np.array_equal(one.rounds, two.rounds)), "device": two.device})
from typer.testing import CliRunner
from jaxsolve.cli import app
from jaxsolve.games.zehntausend.duel_rules import PRESETS
r = CliRunner().invoke(app, ["solve", "zehntausend-duel", "--rules", "small", "--devices", "0", "--json"])
cli = json.loads(r.stdout)
one = duel.solve(PRESETS["small"])
out.append({"same": cli["game_value"] == one.game_value, "rounds": cli["inner_rounds"] == int(one.rounds.sum()), "device": cli["device"]})
print(json.dumps(out))
"""


def _env(**extra):
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path, JAX_PLATFORMS="cpu", **extra)


@pytest.mark.slow
def test_two_device_mesh_equals_one_device():
    env = _env(XLA_FLAGS="--xla_force_host_platform_device_count=2")
    proc = subprocess.run([sys.executable, "-c", MESH_SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for run in json.loads(proc.stdout.strip().splitlines()[-1]):
        assert run["same"] and run["rounds"] and run["device"].startswith("mesh of 2 cpu devices")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_two_processes_equal_one_process(tmp_path):
    out = tmp_path / "duel.npy"
    rules = DuelRules("last-turn+custom", goal=300, end="last-turn", bound=400)
    args = ["--rules", "last-turn", "--goal", "300", "--bound", "400", "--coordinator", f"localhost:{_free_port()}", "--processes", "2", "--out", str(out)]
    procs = [
        subprocess.Popen([sys.executable, "-m", "jaxsolve.games.zehntausend.duel_distributed", *args, "--process-id", str(i)], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in (0, 1)
    ]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (_, err) in zip(procs, results):
        assert p.returncode == 0, err[-3000:]
    row = json.loads(results[0][0].strip().splitlines()[-1])
    assert row["processes"] == 2 and row["devices"] == 2 and "{" not in results[1][0]  # only process 0 reports
    two = duel_commands.load(out)
    one = duel.solve(rules)
    assert two.rules == one.rules and np.array_equal(two.start, one.start) and np.array_equal(two.last, one.last)


def test_distributed_entry_rejects_bad_rules():
    proc = subprocess.run([sys.executable, "-m", "jaxsolve.games.zehntausend.duel_distributed", "--rules", "nope"], env=_env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stderr.startswith("error: unknown") and "Traceback" not in proc.stderr


def test_cli_devices_beyond_the_machine_is_one_error_line():
    from typer.testing import CliRunner

    from jaxsolve.cli import app

    r = CliRunner().invoke(app, ["solve", "zehntausend-duel", "--rules", "small", "--devices", "64"])
    assert r.exit_code != 0 and "error: --devices 64: only" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize(
    "env, args, message",
    [
        ({"JAX_NUM_PROCESSES": "abc"}, [], "$JAX_NUM_PROCESSES must be a whole number, got 'abc'"),
        ({"JAX_PROCESS_ID": "1.5"}, [], "$JAX_PROCESS_ID must be a whole number, got '1.5'"),
        ({}, ["--processes", "x"], "argument --processes: invalid int value: 'x'"),
        ({}, ["--coordinator", "notahost:abc"], "--coordinator must be host:port with a port 1..65535, got 'notahost:abc'"),
        ({}, ["--coordinator", "localhost:70000"], "--coordinator must be host:port with a port 1..65535"),
        ({}, ["--coordinator", "localhost"], "--coordinator must be host:port"),
        ({}, ["--coordinator", ":1234"], "--coordinator must be host:port"),
        ({}, ["--local-devices", "-1"], "--local-devices must be at least 1, got -1"),
        ({}, ["--processes", "0"], "--processes must be at least 1, got 0"),
        ({}, ["--processes", "2", "--process-id", "2"], "--process-id must be 0..1, got 2"),
        ({}, ["--out", "/nonexistent/duel.npy"], "output directory does not exist: /nonexistent"),
        ({}, ["--out", "duel.txt"], "output path must end in .npy"),
        ({}, ["--end", "last-turn", "--bound", "20000000"], "bound 20000000 is too large: a solve would need about 16.3 TiB"),
    ],
)
def test_distributed_entry_refuses_bad_input_before_any_work(monkeypatch, capsys, env, args, message):
    from jaxsolve.games.zehntausend import duel_distributed

    for name in ("JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    initialize = []
    monkeypatch.setattr("jax.distributed.initialize", lambda *a, **k: initialize.append(1))
    assert duel_distributed.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and len(err.strip().splitlines()) == 1, err
    assert not initialize


def test_distributed_coordinator_forms():
    from jaxsolve.core.processes import check_coordinator

    for good in ("localhost:1", "10.0.0.2:65535", "[::1]:1234", "node-3.cluster:8476", None):
        check_coordinator(good)
