"""The layered vector objectives spread over a device mesh (two CPU devices in one process) and
over two processes (``jax.distributed`` on localhost, gloo): the two-player game's and the
target table's every layer the same as one device's, bit for bit; and the suite's two-player
case on a CPU."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

from jaxsolve.core import layered
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.objectives import distributed as twoplayer_distributed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
OPEN = ("twos", "fives", "choice", "yacht")
"""The reduced game of these tests: Yacht's scoring on 1 or 2 dice, these 4 boxes open for
both players (126 pairs of sheets over 9 layers; the start layer's single pair leaves the
second process an empty share)."""

MESH_SCRIPT = r"""
import json, sys, jax
jax.config.update("jax_enable_x64", True)
import numpy as np
from jaxsolve.core import layered
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.sheets import yacht
assert len(jax.devices()) == 2, jax.devices()
rules = yacht.small().replace(dice=int(sys.argv[1]))
filled = rules.full_mask & ~sum(1 << rules.box_names.index(b) for b in sys.argv[2].split(","))
out = []
for run in sys.argv[3].split(","):
    dtype, shapes = run.split("/")
    one = twoplayer.solve(rules, mine=filled, theirs=filled, keep="all", dtype=dtype, shapes=shapes)
    two = twoplayer.solve(rules, mine=filled, theirs=filled, keep="all", dtype=dtype, shapes=shapes, devices=2)
    kept = [n for n, v in enumerate(one.layers) if v is not None]
    out.append({"dtype": dtype, "shapes": shapes, "layers": len(kept), "device": two.device,
                "dtypes": sorted({str(two.layers[n].dtype) for n in kept}),
                "same": all(np.array_equal(one.layers[n], two.layers[n]) for n in kept)})
print(json.dumps(out))
"""


def _env(**extra):
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path, JAX_PLATFORMS="cpu", **extra)


@pytest.mark.parametrize(
    "dice, runs",
    [
        pytest.param(1, ["float64/uniform"], id="1-die-float64"),
        # a program per layer: about two minutes on 2 busy cores
        pytest.param(2, ["float32/uniform", "float64/layer"], id="2-dice-float32-float64", marks=pytest.mark.slow),
    ],
)
def test_two_device_mesh_equals_one_device_in_every_layer(dice, runs):
    """The same 4 open boxes; one program for all layers (``uniform``, what ``auto`` picks for
    small games) or one per layer (``layer``, what it picks for large ones)."""
    env = _env(XLA_FLAGS="--xla_force_host_platform_device_count=2")
    proc = subprocess.run([sys.executable, "-c", MESH_SCRIPT, str(dice), ",".join(OPEN), ",".join(runs)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [f"{r['dtype']}/{r['shapes']}" for r in got] == runs
    for r in got:
        assert r["layers"] == 2 * len(OPEN) + 1 and r["dtypes"] == [r["dtype"]] and r["device"] == "cpu:0, cpu:1"
        assert r["same"], r


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _two_processes(args: list[str]) -> list[dict]:
    """Run the distributed entry point as processes 0 and 1 of two; each one's JSON line."""
    args = [*args, "--coordinator", f"localhost:{_free_port()}", "--processes", "2"]
    entry = [sys.executable, "-m", "jaxsolve.games.category.objectives.distributed"]
    procs = [subprocess.Popen([*entry, *args, "--process-id", str(i)], env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in (0, 1)]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (_, err) in zip(procs, results):
        assert p.returncode == 0, err[-3000:]
    rows = [json.loads(o.strip().splitlines()[-1]) for o, _ in results]
    assert [r["process"] for r in rows] == [0, 1] and all(r["processes"] == 2 for r in rows)
    assert [r["device"].split(" (")[1] for r in rows] == ["process 0 of 2)", "process 1 of 2)"]
    return rows


def _same_layers(rows: list[dict], out, layers: list) -> None:
    """Both processes hold ``layers`` (their digests), and process 0 wrote them to ``out``, bit for bit."""
    assert rows[0]["digest"] == rows[1]["digest"] == twoplayer_distributed.digest(layers)  # every process holds every layer
    with np.load(out) as got:
        kept = [n for n, v in enumerate(layers) if v is not None]
        assert sorted(got.files) == sorted(["meta"] + [f"layer_{n}" for n in kept])
        for n in kept:
            assert got[f"layer_{n}"].dtype == layers[n].dtype and np.array_equal(got[f"layer_{n}"], layers[n]), n


REDUCED = ["--dice", "2", "--open", *OPEN]


def test_a_target_table_by_two_processes_equals_one_process_bit_for_bit(tmp_path):
    """The target objective of a reduced game (two dice, four boxes open), every layer kept:
    each process solves its share of every layer's chunks on the one vector driver, and both
    end with the table one process solves, bit for bit (float64)."""
    from jaxsolve.games.category.objectives import target

    out = tmp_path / "target.npz"
    rows = _two_processes(["--objective", "target", *REDUCED, "--keep", "all", "--out", str(out)])
    rules, filled = twoplayer_distributed.rules_of(twoplayer_distributed.parse(REDUCED))
    _same_layers(rows, out, target.solve_target(rules, dtype="float64", chunk=8, keep="all", prefilled=filled, max_memory=None).layers)


@pytest.mark.slow
@pytest.mark.parametrize("x32", [False, True], ids=["float64", "float32"])
def test_two_processes_equal_one_process_in_every_layer(tmp_path, x32):
    """Bit for bit, not to a tolerance: each process computes exactly the chunks one process
    cuts (``process_share``), with the same compiled turn, and the gather moves values as they are."""
    out = tmp_path / "layers.npz"
    rows = _two_processes([*REDUCED, "--keep", "all", "--out", str(out), *(["--x32"] if x32 else [])])
    rules, filled = twoplayer_distributed.rules_of(twoplayer_distributed.parse(REDUCED))
    _same_layers(rows, out, twoplayer.solve(rules, mine=filled, theirs=filled, keep="all", dtype="float32" if x32 else "float64").layers)


@pytest.mark.parametrize("pairs, chunk, processes", [(1, 8, 2), (126, 8, 2), (100, 8, 3), (853_776, 16, 4), (7, 1, 7), (9, 4, 4)])
def test_process_shares_are_one_process_chunks_covering_the_layer(pairs, chunk, processes):
    shares = [layered.process_share(pairs, chunk, processes, r) for r in range(processes)]
    assert shares[0][0] == 0 and shares[-1][1] == pairs
    for (first, stop, rows), following in zip(shares, shares[1:] + [(pairs, pairs, 0)]):
        assert stop == following[0] and 0 <= stop - first <= rows and (first % chunk == 0 or first == pairs) and rows % chunk == 0
    assert max(stop - first for first, stop, _ in shares) > (pairs - 1) // processes - chunk  # balanced to a chunk


def test_gather_in_one_process_is_the_share():
    share = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(layered.gather_shares(share, (0, 2, 8), 2, 3), share[:2, :3])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--processes", "0"], "--processes must be at least 1, got 0"),
        (["--processes", "2", "--process-id", "2"], "--process-id must be 0..1, got 2"),
        (["--coordinator", "localhost"], "--coordinator must be host:port"),
        (["--coordinator", "localhost:70000"], "--coordinator must be host:port with a port 1..65535"),
        (["--local-devices", "0"], "--local-devices must be at least 1, got 0"),
        (["--open", "twos", "sevens"], "--open needs boxes of ones, twos"),
        (["--dice", "9"], "--dice must be 1..6, got 9"),
        (["--out", "layers.npy"], "output path must end in .npz"),
        (["--out", "/nonexistent/layers.npz"], "output directory does not exist: /nonexistent"),
        (["--tie", "draw"], "argument --tie: invalid choice: 'draw'"),
    ],
)
def test_distributed_entry_refuses_bad_input_before_any_work(monkeypatch, capsys, args, message):
    for name in ("JAX_NUM_PROCESSES", "JAX_PROCESS_ID", "JAX_COORDINATOR_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    started = []
    monkeypatch.setattr("jax.distributed.initialize", lambda *a, **k: started.append(1))
    assert twoplayer_distributed.main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and len(err.strip().splitlines()) == 1, err
    assert not started


def test_suite_two_player_case_runs_on_a_cpu():
    """The quick suite's two-player row (``yacht.small()`` from its last 5 boxes open, float32)
    is Yacht's only; its value within 1e-6 of the float64 solve's start, 0.49327641321800025 (a
    regression pin: this engine's own output)."""
    from jaxsolve.bench import suite_cases

    cases = [c for c in suite_cases("quick", "cpu") if "two-player" in c.variant]
    assert [(c.game, c.dtype) for c in cases] == [("yacht", "float32")]
    assert cases[0].variant.endswith("the last 5 boxes open")
    value, compile_seconds = cases[0].run()
    assert value == pytest.approx(0.49327641321800025, abs=1e-6) and compile_seconds >= 0  # regression pin
