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


MAPPINGS_BEFORE_CLEARING = 30_000


@pytest.fixture(autouse=True, scope="module")
def _free_compiled_programs():
    """The suite compiles thousands of programs in one process, each mapping about twenty
    memory regions; at Linux's 65,530 mappings the next compile dies in XLA (SIGSEGV). After a
    module whose process holds many, drop the compiled programs (``jaxsolve.core.compile.clear``)."""
    yield
    try:
        with open(f"/proc/{os.getpid()}/maps") as f:
            mappings = sum(1 for _ in f)
    except OSError:  # not Linux: no such limit to watch
        return
    if mappings > MAPPINGS_BEFORE_CLEARING:
        import gc

        from jaxsolve.core import compile as compile_cache

        compile_cache.clear()
        gc.collect()


@pytest.fixture(autouse=True)
def _restore_x64():
    """CLI commands configure JAX for the whole process; give every test float64 back."""
    yield
    jax.config.update("jax_enable_x64", True)
