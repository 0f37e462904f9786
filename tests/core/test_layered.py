"""The layered driver's whole-layer mode gives what one call per chunk gives, on one device and
on several (a layer cut into shares, some empty, padding, results gathered and written on every
device, per-layer setup), with a toy step whose results are known in closed form."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = r"""
import json, sys
import jax
jax.config.update("jax_num_cpu_devices", int(sys.argv[1]))
import jax.numpy as jnp
import numpy as np
from jaxsolve.core.layered import Layer, LayerSetup, SplitStep, make_mesh, real_rows, run_layers

sizes = [1, 5, 37, 64, 3, 100]  # layers of these sizes, the last one first
layers = [Layer(k, (np.arange(n, dtype=np.int32) * 3 + k, np.full(n, k, np.int32))) for k, n in reversed(list(enumerate(sizes)))]


def compute(carry, operands, rows, a, k):
    table, _ = carry
    # reads only what earlier layers wrote: the previous layer's total
    return a * operands[0] + table[k + 1]


def write(carry, operands, rows, states, out):
    table, total = carry
    k = states[1][0]
    added = jnp.sum(jnp.where(real_rows(rows), out, 0))
    return table.at[k].add(added), total.at[rows].set(out)


def run(whole, chunk, mesh):
    def begin(layer, carry):  # a fresh per-layer output, sized for the layer
        table, _ = carry
        return LayerSetup((table, jnp.zeros(len(layer.states[0]), jnp.int32)), (jnp.int32(2),), chunk)

    seen = {}

    def end(layer, carry):
        seen[layer.index] = np.asarray(carry[1]).tolist()
        return carry

    carry = (jnp.zeros(len(sizes) + 1, jnp.int32), jnp.zeros(1, jnp.int32))
    step = SplitStep(compute, write, whole_layer=whole)
    out = run_layers(("toy", whole), step, layers, carry, (jnp.int32(2),), chunk=chunk, mesh=mesh, begin_layer=begin, end_layer=end)
    return np.asarray(out.carry[0]).tolist(), seen


mesh = make_mesh(jax.devices()) if len(jax.devices()) > 1 else None
got = {f"{whole}-{chunk}": run(whole, chunk, mesh) for whole in (False, True) for chunk in (4, 16, 256)}
print(json.dumps(got))
"""


def expected():
    sizes = [1, 5, 37, 64, 3, 100]
    table = [0] * (len(sizes) + 1)
    rows = {}
    for k in reversed(range(len(sizes))):
        out = [(3 * i + k) * 2 + table[k + 1] for i in range(sizes[k])]
        rows[str(k)] = out
        table[k] = sum(out)
    return table, rows


@pytest.mark.parametrize("devices", [1, 2, 3])
def test_whole_layer_mode_matches_closed_form(devices):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(devices)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    table, rows = expected()
    for name, (values, seen) in got.items():
        assert values == table, name
        assert seen == rows, name
    assert np.all(np.asarray(table[:-1]) > 0)
