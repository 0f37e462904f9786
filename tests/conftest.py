import os
import sys
import tempfile

import jax
import pytest

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_num_cpu_devices", 1)  # one CPU device unless a test starts its own process
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "references"))  # the independent reference implementations
sys.path.insert(0, os.path.join(HERE, "web"))  # the page tests' helpers
# The suite's own cache folder, whatever the user's $JAXSOLVE_CACHE says: tests never write
# into a user's cache (nor read tables from it).
os.environ["JAXSOLVE_CACHE"] = os.path.join(tempfile.gettempdir(), f"jaxsolve-test-cache-{os.getuid()}")


@pytest.fixture(autouse=True)
def _restore_x64():
    """CLI commands configure JAX for the whole process; give every test float64 back."""
    yield
    jax.config.update("jax_enable_x64", True)
