"""The one compile cache (``jaxsolve.core.compile``): a program compiled once per key and
shapes, and a bounded number of programs kept (each compiled CPU program maps memory regions,
and a process has a limit of them)."""

import jax.numpy as jnp

from jaxsolve.core import compile as cc


def _program(k: int):
    return lambda x: jnp.cumsum(x) * k


def test_a_program_is_compiled_once_and_the_least_recently_used_is_dropped_past_the_bound(monkeypatch):
    monkeypatch.setattr(cc, "_CACHE", type(cc._CACHE)())
    monkeypatch.setattr(cc, "MAX_PROGRAMS", 2)
    spec = cc.abstract(jnp.zeros(5))
    _, first = cc.compiled(("bound-test", 1), _program(1), spec)
    _, again = cc.compiled(("bound-test", 1), _program(1), spec)
    assert first > 0 and again == 0.0
    cc.compiled(("bound-test", 2), _program(2), spec)
    cc.compiled(("bound-test", 1), _program(1), spec)  # used again: now the most recent
    cc.compiled(("bound-test", 3), _program(3), spec)  # past the bound: program 2 goes
    assert cc.cache_size() == 2
    exe, seconds = cc.compiled(("bound-test", 1), _program(1), spec)
    assert seconds == 0.0 and float(exe(jnp.ones(5))[-1]) == 5.0
    _, seconds = cc.compiled(("bound-test", 2), _program(2), spec)
    assert seconds > 0  # compiled anew
    cc.clear()
    assert cc.cache_size() == 0
