"""GPU readiness checked on a CPU: every registered game's solve moves data between host and
device only explicitly (``jax.device_put`` / ``jax.device_get``), never implicitly inside the
solve, so it runs unchanged on an accelerator without hidden copies or host synchronisation."""

import jax
import pytest

from jaxsolve import games


@pytest.mark.parametrize("game", games.games(), ids=lambda g: g.name)
def test_solve_has_no_implicit_transfer(game):
    rules = game.small()
    outside = game.solve(rules, dtype="float64")  # compiled and cached outside the guard
    with jax.transfer_guard("disallow"):
        inside = game.solve(rules, dtype="float64")
    assert inside.game_value == outside.game_value


def test_guard_catches_an_implicit_transfer():
    import jax.numpy as jnp
    import numpy as np

    with jax.transfer_guard("disallow"), pytest.raises(Exception, match="[Dd]isallowed"):
        jnp.asarray(np.arange(3.0)) + 1


def test_chunk_size_per_device_kind():
    from types import SimpleNamespace

    from jaxsolve.core.layered import CHUNK_FLOOR, chunk_for

    assert chunk_for(jax.devices("cpu")[0], 1024) == 1024
    assert chunk_for(SimpleNamespace(platform="gpu"), 1024) == CHUNK_FLOOR["gpu"] > 1024
    assert chunk_for(SimpleNamespace(platform="gpu"), 1 << 16) == 1 << 16
