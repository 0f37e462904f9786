"""The float dtype rule: a caller's dtype, the process default only when none is given, and
float64 only with JAX's x64 mode on (refused without it, switched on by ``precision``)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.core import arrays
from jaxsolve.errors import JaxsolveError


def test_the_default_follows_x64_mode():
    assert arrays.float_dtype() == np.float64
    with jax.enable_x64(False):
        assert arrays.float_dtype() == np.float32


def test_float64_while_x64_is_off_is_refused():
    with jax.enable_x64(False):
        assert arrays.float_dtype("float32") == np.float32
        with pytest.raises(JaxsolveError, match="float64 asked for while JAX's x64 mode is off"):
            arrays.float_dtype("float64")
        with pytest.raises(JaxsolveError, match="float64 asked for"):
            arrays.float_dtype(np.float64)


def test_precision_switches_x64_on_for_a_float64_computation_only():
    with jax.enable_x64(False):
        with arrays.precision("float64"):
            assert arrays.float_dtype("float64") == np.float64
            assert jnp.zeros(2, arrays.float_dtype("float64")).dtype == np.float64
        assert not arrays.x64_enabled()
        with arrays.precision("float32"):
            assert not arrays.x64_enabled()


def test_only_float32_and_float64():
    for bad in ("int32", "float16", "bool"):
        with pytest.raises(JaxsolveError, match="float32 or float64"):
            arrays.float_dtype(bad)
    with pytest.raises(JaxsolveError, match="unknown float dtype"):
        arrays.float_dtype("double-ish")
