"""The tables and claims of the source web page "Würfeln bei Schlag den Raab" (stefan-taube.de).

One-turn tables ("Vorüberlegung A/B", "Zwischenüberlegung"): the distribution of a turn that
never stops (``turn_distribution``), the probability to reach a total (``reach_table``), the
'roll twice' bound (``equalize_bound``) and the solitaire stopping rule (``solitaire``); and
the page's claims about the solved duel (``check_claims``).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab import solver
from jaxsolve.games.raab.rules import PigRules


@functools.partial(jax.jit, static_argnames=("rolls", "width"))
def _turn_distribution(weights, bust_prob, rolls: int, width: int):
    active0 = jnp.zeros(width, weights.dtype).at[0].set(1.0)
    inactive0 = jnp.zeros(width, weights.dtype)

    def step(carry, _):
        active, inactive = carry
        inactive = inactive + bust_prob * active
        padded = jnp.concatenate([jnp.zeros(weights.shape[0], active.dtype), active])
        active = sum(weights[k] * padded[weights.shape[0] - k - 1 : weights.shape[0] - k - 1 + width] for k in range(weights.shape[0]))
        return (active, inactive), jnp.stack([inactive, active])

    _, ys = jax.lax.scan(step, (active0, inactive0), None, length=rolls)
    return ys


def turn_distribution(rules: PigRules, rolls: int) -> np.ndarray:
    """``p[R - 1, A, S]``: after ``R`` rolls of a player who never stops, the probability that
    the turn total reached is ``S`` and the player is still active (``A = 1``) or has busted
    (``A = 0``, ``S`` = the total before the bust), for ``R = 1..rolls``."""
    if rolls < 1:
        raise JaxsolveError(f"rolls must be >= 1, got {rolls}")
    width = rolls * rules.max_points + 1
    return np.asarray(_turn_distribution(jnp.asarray(rules.weights), rules.bust_prob, rolls, width))


def reach_table(rules: PigRules, rolls: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """``(P, P_SUM)`` over ``S``: after ``rolls`` rolls, P(total reached = S) and P(>= S) —
    the probability to make at least ``S`` in one turn when rolling until ``S`` is reached."""
    dist = turn_distribution(rules, rolls)[-1].sum(axis=0)
    return dist, np.cumsum(dist[::-1])[::-1]


def equalize_bound(rules: PigRules, opponent_rolls: int = 2, rolls: int = 200) -> float:
    """Probability to at least equal an opponent who rolls ``opponent_rolls`` times then stops."""
    opp = turn_distribution(rules, opponent_rolls)[-1]
    _, p_sum = reach_table(rules, rolls)
    need = np.arange(opp.shape[1])
    return float(opp[0].sum() + (opp[1] * p_sum[need]).sum())


def solitaire(rules: PigRules, horizon: int = 400) -> tuple[int, float, np.ndarray, np.ndarray]:
    """Maximise expected banked points per turn: ``(stop_from, E(0), roll[a], stop[a])``.

    ``stop_from`` is the smallest turn total from which stopping is optimal at every larger
    total too (ties count as stop)."""
    w = np.asarray(rules.weights)
    value = jnp.arange(horizon + 1 + rules.max_points, dtype=jnp.zeros(0).dtype)

    def step(value, a):
        r = jnp.dot(jnp.asarray(w), jax.lax.dynamic_slice(value, (a + 1,), (rules.max_points,)))
        best = jnp.where(a > 0, jnp.maximum(a, r), r)
        return value.at[a].set(best), r

    value, rolls = jax.lax.scan(step, value, jnp.arange(horizon, -1, -1))
    roll = np.asarray(rolls[::-1])
    stop = np.arange(horizon + 1, dtype=float)
    rolls_better = roll > stop
    rolls_better[0] = True
    stop_from = int(np.max(np.nonzero(rolls_better)[0]) + 1)
    return stop_from, float(value[0]), roll, stop


def check_claims(rules: PigRules, extra: int = 40, device=None, dtype=None) -> dict:
    """The claims of "Würfeln bei Schlag den Raab" for a last-turn game: a lead of 80 suffices to stop, rolling on beats
    stopping at a tie in the last turn, and the state bound does not change the result."""
    if not rules.last_turn:
        raise JaxsolveError("the claims concern the last-turn rule; pick a last-turn rule set")
    base = solver.solve(rules, device=device, dtype=dtype)
    wide_rules = rules.replace(bound=rules.top + extra, name=f"{rules.name}+bound{rules.top + extra}")
    wide = solver.solve(wide_rules, device=device, dtype=dtype)
    f = solver.full(wide)
    n_t, n_m, n_s, n_n = wide_rules.shape
    s = np.arange(n_s)[None, None, :, None]
    m = np.arange(n_m)[None, :, None, None]
    t = np.arange(n_n)[None, None, None, :]
    rolling = (f.policy == solver.ROLL) & (s > m)
    lead = np.where(rolling, s - t, np.iinfo(np.int64).min)
    where = np.unravel_index(np.argmax(lead), lead.shape)
    max_lead = int(lead[where])
    g, top = rules.goal, rules.top
    ts1 = np.arange(n_t) == 1
    tie = ts1[:, None, None, None] & (s == t) & (t >= g) & (t <= top) & (s > m) & (f.policy >= 0)
    margin = np.where(tie, f.roll - f.stop, np.inf)
    n_base = top + 1
    return {
        "rules": rules.to_dict(),
        "checked_with_bound": wide_rules.top,
        "lead_80_suffices": {
            "claim": "a lead of 80 is enough to stop",
            "largest_lead_where_rolling_is_optimal": max_lead,
            "at_state": {"TS": int(where[0]), "MSP": int(where[1]), "MAP": int(where[2] - where[1]), "TSP": int(where[3])},
            "holds": max_lead < 80,
        },
        "tie_in_last_turn_roll_on": {
            "claim": "at a tie in the last turn, rolling on beats stopping",
            "tie_states": int(tie.sum()),
            "smallest_margin_roll_minus_stop": float(margin.min()),
            "holds": bool((margin > 0).all()),
        },
        "bound_growth": {
            "bound": top,
            "game_value": base.game_value,
            "game_value_bigger_bound": wide.game_value,
            "max_abs_difference_turn_start_states": float(np.max(np.abs(wide.start[:, :, :n_base] - base.start))),
        },
    }
