"""Strategies for playing a category game: decisions as tables over throws for a batch of states.

A strategy answers, for a batch of start-of-turn states (batch on the last axis), every
decision of the turn for every throw at once (``TurnPolicy``):

* ``keep[r-1, t, b]``: the keep (index into ``dice_space(5).keeps``) from throw ``t`` with
  ``r`` re-throws left; ``keep_alt`` the alternative a coin flip picks instead (random rules);
* ``box[t, b]``: the box filled after the final throw ``t``;
* Im-Hieb rules only: ``fill_now[t, b]`` (fill right after the first throw) and
  ``box_now[t, b]`` (which box then).

A simulation then only looks decisions up per game (see ``jaxsolve.games.category.simulation.simulate``), so a
strategy costs one evaluation per distinct state, not per game. New strategies subclass
``Strategy`` (implement ``policy``) and register a factory with ``register``.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.simulation import heuristic
from jaxsolve.games.category.engine import policy, tables
from jaxsolve.games.category.sheets.rules import CategoryRules


class TurnPolicy(NamedTuple):
    """Decisions of one turn for a batch of states (shapes in the module docstring)."""

    keep: jax.Array
    keep_alt: jax.Array
    box: jax.Array
    fill_now: jax.Array
    box_now: jax.Array


class Strategy:
    """Base class: ``policy(state) -> TurnPolicy`` for an ``EngineState`` of ``[B]`` int32 states.

    ``policy`` must be a pure JAX function (it is jitted once per chunk size). ``random`` says
    whether ``keep_alt`` can differ from ``keep``.
    """

    name: str = "strategy"
    random: bool = False

    def __init__(self, rules: CategoryRules):
        self.rules = rules

    def policy(self, state: tables.EngineState) -> TurnPolicy:  # pragma: no cover - interface
        raise NotImplementedError


class ValueStrategy(Strategy):
    """Best play against a table of start-of-turn state values (argmax at every decision).

    With the solver's values this is the optimal strategy; with all values 0 it is greedy
    play (each turn maximises its own points, bonuses earned this turn included). Ties: the
    earlier box, the keep with more dice.
    """

    def __init__(self, rules: CategoryRules, values, name: str, dtype=jnp.float32):
        super().__init__(rules)
        self.name = name
        self.values = jnp.asarray(np.nan_to_num(np.asarray(values, dtype=np.float64).reshape(-1)), dtype)

    def policy(self, state: tables.EngineState) -> TurnPolicy:
        turn = policy.optimal_turn(self.values, state, self.rules)
        return TurnPolicy(turn.keep, turn.keep, turn.box, turn.fill_now, turn.box_now)


class HeuristicStrategy(Strategy):
    """The rating heuristic "Berechnung der Bewertungen" (``jaxsolve.games.category.simulation.heuristic``).

    ``reading``: the start value's bonus term (``heuristic.READINGS``); ``strength``: the bot
    strength (``heuristic.STRENGTHS``, the SD of the forecast errors), ``seed`` its errors.
    Name: ``heuristic``, ``heuristic:<strength>`` below the strongest, ``[<reading>]`` appended
    for a reading other than the default.
    """

    def __init__(self, rules: CategoryRules, dtype=jnp.float32, reading: str = heuristic.DEFAULT_READING, strength: str = heuristic.DEFAULT_STRENGTH, seed: int = 0):
        super().__init__(rules)
        self.tables = heuristic.heuristic_tables(rules)
        self.random = self.tables.random
        self.dtype = dtype
        self.reading = heuristic.check_reading(reading)
        self.strength = strength
        self.noise_sd = heuristic.strength_sd(strength)
        self.seed = int(seed)
        self.name = "heuristic" + ("" if strength == heuristic.DEFAULT_STRENGTH else f":{strength}")
        self.name += "" if reading == heuristic.DEFAULT_READING else f"[{reading}]"

    def policy(self, state: tables.EngineState) -> TurnPolicy:
        rules = self.rules
        gains, allowed, fill_now = heuristic.level_gains(state, rules, self.dtype, self.reading, self.noise_sd, self.seed)
        best = [heuristic.best_boxes(g, a)[1] for g, a in zip(gains, allowed)]
        t = jnp.arange(self.tables.keeps.shape[-1])[:, None]
        keeps = jnp.asarray(self.tables.keeps)
        keep = jnp.stack([keeps[0, best[r], r, t] for r in range(1, rules.throws)]) if rules.throws > 1 else jnp.zeros((0,) + best[0].shape, jnp.int32)
        keep_alt = jnp.stack([keeps[1, best[r], r, t] for r in range(1, rules.throws)]) if rules.throws > 1 else keep
        box = best[0]
        if fill_now is not None:
            box_now = best[rules.throws - 1]
            now = jnp.stack([jnp.broadcast_to(x, box_now.shape) for x in fill_now])
            now = jnp.take_along_axis(now, box_now[None], axis=0)[0]
        else:
            now, box_now = jnp.zeros(box.shape, bool), box
        return TurnPolicy(keep, keep_alt, box, now, box_now)


_REGISTRY: dict[str, Callable[..., Strategy]] = {}


def add(name: str, factory: Callable[..., Strategy]) -> None:
    """Make ``make(name, rules, ...)`` build a strategy with ``factory(rules, **options)``."""
    _REGISTRY[name] = factory


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def make(name: str, rules: CategoryRules, **options) -> Strategy:
    """A strategy by name: ``optimal``, ``heuristic``, ``greedy`` or a registered one.

    ``heuristic:<strength>`` picks a bot strength (``heuristic.STRENGTHS``). Options:
    ``device`` and ``dtype`` (optimal solves the rules on that device), ``solution`` (an
    existing ``solver.Solution`` for ``optimal``) or ``game`` (the registered game whose
    solution cache ``optimal`` uses); for ``heuristic``: ``reading``
    (``heuristic.READINGS``), ``strength`` and ``seed`` (the bot's forecast errors).
    """
    base, colon, level = name.partition(":")
    try:
        factory = _REGISTRY[base]
    except KeyError:
        raise JaxsolveError(f"unknown strategy {name!r}; choose one of {', '.join(_REGISTRY)}") from None
    if colon:
        if base != "heuristic":
            raise JaxsolveError(f"strategy {base!r} has no strength levels (only heuristic:<strength>)")
        options["strength"] = level
    return factory(rules, **options)


def _optimal(rules: CategoryRules, solution=None, device=None, dtype=jnp.float32, game: str | None = None) -> Strategy:
    if solution is None:
        from jaxsolve.games.category.engine import table_io

        solution = table_io.solved(rules, game=game, dtype=dtype, device=device)
    elif solution.rules != rules or solution.objective != "score":
        raise JaxsolveError(f"the solution is for {solution.rules.name} ({solution.objective}), not {rules.name} (score)")
    return ValueStrategy(rules, solution.values, "optimal", dtype)


def _greedy(rules: CategoryRules, device=None, dtype=jnp.float32, **_) -> Strategy:
    return ValueStrategy(rules, np.zeros(int(np.prod(tables.state_shape(rules)))), "greedy", dtype)


def _heuristic(rules: CategoryRules, device=None, dtype=jnp.float32, reading: str = heuristic.DEFAULT_READING, strength: str = heuristic.DEFAULT_STRENGTH, seed: int = 0, **_) -> Strategy:
    return HeuristicStrategy(rules, dtype, reading, strength, seed)


add("optimal", _optimal)
add("heuristic", _heuristic)
add("greedy", _greedy)
