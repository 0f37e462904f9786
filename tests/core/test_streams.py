"""One chunk stream per device (``jaxsolve.core.layered``) gives the single-device values exactly."""

import json
import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import json, jax
jax.config.update("jax_enable_x64", True)
import numpy as np
from jaxsolve.games.category import solver
from jaxsolve.games.category.rules import CategoryRules
assert len(jax.devices()) == 2, jax.devices()
rules = CategoryRules(dice=2, throws=2, joker="forced", upper_threshold=8, extra_bonus=20)
one = solver.solve(rules, chunk=16, devices=1)
two = solver.solve(rules, chunk=16)  # default on a CPU: every CPU device
same_nan = bool((np.isnan(one.values) == np.isnan(two.values)).all())
print(json.dumps({"same_nan": same_nan, "max_diff": float(np.nanmax(np.abs(one.values - two.values))), "device": two.device, "value": one.game_value}))
"""


@pytest.mark.slow
def test_two_streams_equal_one():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["device"].count("cpu") == 2 or out["device"].count("Cpu") == 2, out["device"]
    assert out["same_nan"] and out["max_diff"] == 0.0
    assert out["value"] > 0


COUNT = "from jaxsolve.core import runtime; runtime.host_devices(); import jax; print(len(jax.devices('cpu')))"


def test_cpu_device_count_default_and_from_environment():
    """One CPU device by default (``runtime.MAX_HOST_DEVICES``); ``$JAX_NUM_CPU_DEVICES`` asks for streams."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
    env["JAX_PLATFORMS"] = "cpu"
    default = subprocess.run([sys.executable, "-c", COUNT], env=env, capture_output=True, text=True, timeout=120)
    asked = subprocess.run([sys.executable, "-c", COUNT], env=dict(env, JAX_NUM_CPU_DEVICES="2"), capture_output=True, text=True, timeout=120)
    assert default.returncode == 0 and asked.returncode == 0, default.stderr[-2000:] + asked.stderr[-2000:]
    assert default.stdout.split()[-1] == "1"
    assert asked.stdout.split()[-1] == "2"
