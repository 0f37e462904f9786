"""Every schedule of the layered core, named, gives the per-chunk values of a category solve
exactly (float64, bit for bit), on two CPU devices and on one; the value solve's default (every
CPU device) gives the single-device values."""

import json
import os
import subprocess
import sys

SCRIPT = r"""
import json, jax
jax.config.update("jax_enable_x64", True)
jax.config.update("jax_num_cpu_devices", 2)
import numpy as np
from jaxsolve.core.layered import SCHEDULES, make_mesh, run_layers
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets.rules import CategoryRules
assert len(jax.devices()) == 2, jax.devices()
rules = CategoryRules(dice=2, throws=2, joker="forced", upper_threshold=8, extra_bonus=20)


def values(schedule, mesh):
    init = np.full(tables.state_shape(rules), np.nan)
    init[rules.full_mask] = 0.0
    table = jax.device_put(init.reshape(-1), jax.devices()[0])
    run = run_layers(("schedules", rules), solver.value_step(rules, "score"), solver.representative_layers(rules), table, chunk=16, mesh=mesh, schedule=schedule)
    assert run.schedule == schedule, run.schedule
    return np.asarray(run.carry)


def same(a, b):
    return bool((np.isnan(a) == np.isnan(b)).all() and (a[~np.isnan(a)] == b[~np.isnan(b)]).all())


reference = values("per-chunk", None)  # one device, one call per chunk
out = {}
for name in SCHEDULES:
    out[f"{name}, two devices"] = same(values(name, make_mesh(2)), reference)
    out[f"{name}, one device"] = same(values(name, make_mesh(1)), reference)
one = solver.solve(rules, chunk=16, devices=1)
both = solver.solve(rules, chunk=16)  # default on a CPU: every CPU device
out["solve, two devices"] = same(one.values, both.values) and both.device.lower().count("cpu") == 2
print(json.dumps({"same": out, "reached": int((~np.isnan(reference)).sum())}))
"""


def test_every_schedule_equals_per_chunk():
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["reached"] > 100
    names = [f"{s}, {d}" for s in ("per-chunk", "streams", "whole-layer") for d in ("two devices", "one device")]
    assert out["same"] == {k: True for k in names + ["solve, two devices"]}
