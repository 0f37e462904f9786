"""Every schedule of the layered driver, named, gives what the per-chunk reference gives, on one
device and on several (a layer cut into shares, some empty, padding, results exchanged or
gathered, per-layer setup), with a toy step whose results are known in closed form; the layer
loop's bookkeeping (order, progress, timings) is the same in all; ``auto`` is one rule."""

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.core.layered import SCHEDULES, Layer, SplitStep, choose_schedule, run_layers
from jaxsolve.errors import JaxsolveError

SCRIPT = r"""
import json, sys
import jax
jax.config.update("jax_num_cpu_devices", int(sys.argv[1]))
import jax.numpy as jnp
import numpy as np
from jaxsolve.core.layered import SCHEDULES, Layer, LayerSetup, SplitStep, make_mesh, real_rows, run_layers

sizes = [1, 5, 37, 64, 3, 200]  # layers of these sizes, the last one first (more than 32 chunks of 4)
layers = [Layer(k, (np.arange(n, dtype=np.int32) * 3 + k, np.full(n, k, np.int32))) for k, n in reversed(list(enumerate(sizes)))]
ndev = len(jax.devices())


def compute(carry, operands, rows, a, k):
    table, _ = carry
    # reads only what earlier layers wrote: the previous layer's total (kept small: int32)
    return a * operands[0] + table[k + 1] % 1009


def write(carry, operands, rows, states, out):
    table, total = carry
    k = states[1][0]
    added = jnp.sum(jnp.where(real_rows(rows), out, 0))
    return table.at[k].add(added), total.at[rows].set(out)


def run(schedule, chunk, mesh, setup):
    size = max(ndev, chunk // ndev * ndev)  # a chunk the mesh divides (the per-chunk schedule shards it)

    def begin(layer, carry):  # a fresh per-layer output, sized for the layer
        table, _ = carry
        return LayerSetup((table, jnp.zeros(len(layer.states[0]), jnp.int32)), (jnp.int32(2),), size)

    seen, order = {}, []

    def end(layer, carry):
        seen[layer.index] = np.asarray(carry[1]).tolist()
        return carry

    total = jnp.zeros(max(sizes) if not setup else 1, jnp.int32)  # without setup: one output as wide as the widest layer
    carry = (jnp.zeros(len(sizes) + 1, jnp.int32), total)
    out = run_layers(
        ("toy", setup), SplitStep(compute, write), layers, carry, (jnp.int32(2),), chunk=chunk, mesh=mesh, schedule=schedule,
        begin_layer=begin if setup else None, end_layer=end, on_layer=lambda k, n: order.append([k, n]),
    )
    layer_seconds = sum(t["seconds"] for t in out.timings.values())
    return {
        "schedule": schedule, "setup": setup,
        "table": np.asarray(out.carry[0]).tolist(), "seen": seen, "order": order, "ran": out.schedule,
        "timings": {str(k): [t["states"], t["chunk"]] for k, t in out.timings.items()},
        "seconds": [layer_seconds, out.seconds],
    }


mesh = make_mesh(jax.devices()) if ndev > 1 else None
# chunks of 4 and 256 with per-layer setup (padding, empty shares; one chunk per layer), 16 without
got = [run(schedule, chunk, mesh, setup) for schedule in ["auto", *SCHEDULES] for chunk, setup in ((4, True), (256, True), (16, False))]
print(json.dumps(got))
"""

SIZES = [1, 5, 37, 64, 3, 200]


def expected():
    table = [0] * (len(SIZES) + 1)
    rows = {}
    for k in reversed(range(len(SIZES))):
        out = [(3 * i + k) * 2 + table[k + 1] % 1009 for i in range(SIZES[k])]
        rows[str(k)] = out
        table[k] = sum(out)
    return table, rows


@pytest.mark.parametrize("devices", [1, 2, pytest.param(3, marks=pytest.mark.slow)])  # three: uneven shares, in the slow set
def test_every_schedule_matches_closed_form(devices):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(devices)], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    table, rows = expected()
    assert np.all(np.asarray(table[:-1]) > 0)
    for run in got:
        name = f"{run['schedule']} (setup {run['setup']})"
        assert run["table"] == table, name
        if run["setup"]:
            assert run["seen"] == rows, name
        else:  # one output as wide as the widest layer
            assert all(run["seen"][k][: len(v)] == v for k, v in rows.items()), name
        assert run["order"] == [[k, SIZES[k]] for k in reversed(range(len(SIZES)))], name
        assert list(run["timings"]) == [str(k) for k in reversed(range(len(SIZES)))], name
        assert all(t[0] == SIZES[int(k)] for k, t in run["timings"].items()), name
        layer_seconds, seconds = run["seconds"]
        assert abs(layer_seconds - seconds) < 0.005 + 0.02 * seconds, name  # the layers' times add up to the run's
        if run["schedule"] != "auto":
            assert run["ran"] == run["schedule"], name
        else:  # the one rule: on CPU devices a split step without per-layer setup runs whole layers
            assert run["ran"] == ("streams" if devices > 1 else "per-chunk") if run["setup"] else "whole-layer", name


def _devices(platform, n):
    return [SimpleNamespace(platform=platform)] * n


def test_auto_is_one_rule():
    split, plain = SplitStep(lambda *a: a, lambda *a: a), lambda *a: a
    assert choose_schedule(plain, _devices("cpu", 2), False)[0] == "per-chunk"
    assert choose_schedule(split, _devices("cpu", 1), False)[0] == "whole-layer"
    assert choose_schedule(split, _devices("cpu", 2), False)[0] == "whole-layer"
    assert choose_schedule(split, _devices("cpu", 2), True)[0] == "streams"
    assert choose_schedule(split, _devices("cpu", 1), True)[0] == "per-chunk"
    assert choose_schedule(split, _devices("gpu", 4), False)[0] == "streams"
    assert choose_schedule(split, _devices("gpu", 1), False)[0] == "per-chunk"
    assert "accelerator" in choose_schedule(split, _devices("gpu", 1), False)[1]  # says why


def test_schedule_names_are_checked():
    layers = [Layer(0, (np.arange(4, dtype=np.int32),))]

    def plain(carry, operands, rows, a):
        return carry.at[rows].set(a)

    with pytest.raises(JaxsolveError, match="unknown schedule 'fast'"):
        run_layers(("toy-name",), plain, layers, jnp.zeros(4, jnp.int32), schedule="fast")
    for name in SCHEDULES:
        if name != "per-chunk":
            with pytest.raises(JaxsolveError, match=f"the {name} schedule needs a SplitStep"):
                run_layers(("toy-name",), plain, layers, jnp.zeros(4, jnp.int32), schedule=name)
    run = run_layers(("toy-name",), plain, layers, jnp.zeros(4, jnp.int32), chunk=3)
    assert run.schedule == "per-chunk" and np.asarray(run.carry).tolist() == [0, 1, 2, 3]
