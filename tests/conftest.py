import os
import sys
import tempfile

import jax
import pytest

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_num_cpu_devices", 1)  # one CPU device unless a test starts its own process
sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("JAXSOLVE_CACHE", os.path.join(tempfile.gettempdir(), "jaxsolve-test-xla-cache"))


@pytest.fixture(autouse=True)
def _restore_x64():
    """CLI commands configure JAX for the whole process; give every test float64 back."""
    yield
    jax.config.update("jax_enable_x64", True)
