"""How many CPU devices JAX shows: one by default, as many as ``$JAX_NUM_CPU_DEVICES`` asks."""

import os
import subprocess
import sys

COUNT = "from jaxsolve.core import runtime; runtime.host_devices(); import jax; print(len(jax.devices('cpu')))"


def test_cpu_device_count_default_and_from_environment():
    """One CPU device by default (``runtime.MAX_HOST_DEVICES``); ``$JAX_NUM_CPU_DEVICES`` asks for more."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_NUM_CPU_DEVICES", "XLA_FLAGS")}
    env["JAX_PLATFORMS"] = "cpu"
    default = subprocess.run([sys.executable, "-c", COUNT], env=env, capture_output=True, text=True, timeout=120)
    asked = subprocess.run([sys.executable, "-c", COUNT], env=dict(env, JAX_NUM_CPU_DEVICES="2"), capture_output=True, text=True, timeout=120)
    assert default.returncode == 0 and asked.returncode == 0, default.stderr[-2000:] + asked.stderr[-2000:]
    assert default.stdout.split()[-1] == "1"
    assert asked.stdout.split()[-1] == "2"
