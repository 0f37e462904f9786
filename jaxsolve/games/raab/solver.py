"""Pig-family dice duels (Schlag den Raab, Pig, Piglet): exact win probabilities by a JAX fixpoint.

One die; the player to move rolls, a *bust* face loses the turn total and passes the turn, any
other face adds its points; after a roll that did not bust the player may roll again or stop
and bank. A turn starts with a roll. With the *last-turn* rule (Schlag den Raab) the start
player's reaching the goal gives the other one a last turn, and ties at or above the goal go
on; without it (Pig) the first to bank the goal wins at once.

State, from the view of the player to decide (``TS/MSP/MAP/TSP`` as in "Würfeln bei Schlag den
Raab", stefan-taube.de)::

    ts   [T]  1 if the other player started (T = 2 with the last-turn rule, else T = 1)
    msp  [M]  my banked score 0..M-1        (M = goal + 1 with the last-turn rule, else goal)
    s    [S]  my banked score plus turn total, MSP + MAP, 0..top + max_points
    tsp  [N]  their banked score 0..top     (top = bound with the last-turn rule, else goal - 1)

When both banked scores are >= goal only their difference matters, so such a state is lowered
by the same amount until the smaller is the goal; after this reduction (and leaving out states
where the game is over) ``msp <= goal`` always, which is why M stops at goal + 1.

The cyclic part of the game (busts pass the turn back and forth) is a fixpoint over the
turn-start values ``W[ts, msp, tsp]``. One sweep evaluates a whole turn for every state at
once: a ``lax.scan`` over the total ``s`` from the top down (rolling only raises ``s``), with
the opponent's turn-start values of the previous iterate giving the bust and bank outcomes.
Sweeps repeat in the fixpoint core (``jaxsolve.core.fixpoint``) until the max-norm change is at most ``tol``. The
result satisfies the one-roll Bellman equations (``bellman``) of the whole state array.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.fixpoint import solve_fixpoint
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab.rules import MAX_STATES, PRESETS, PigRules, PigRulesError, get_rules  # noqa: F401 (the rules live there)

ROLL, STOP, NONE = 1, 0, -1


# ---------------------------------------------------------------------------------------------
# Transition tables (static, built once per rule set with NumPy; whole grids, no loops)


class Tables(NamedTuple):
    """Outcomes as ``c0 + c1 * W.flat[idx]`` of the turn-start values ``W [T, M, N]``."""

    term_mask: jax.Array  # [T, M, N] game over at the start of this turn
    term_val: jax.Array  # [T, M, N] my win probability there (0 or 1)
    bust_idx: jax.Array  # [T, M, N]
    bust_c0: jax.Array
    bust_c1: jax.Array
    stop_idx: jax.Array  # [S, T, N] (does not depend on my banked score)
    stop_c0: jax.Array
    stop_c1: jax.Array
    weights: jax.Array  # [F] probability to add k + 1 points


def terminal(rules: PigRules, ts, m, t):
    """``(over, value)``: whether the game is over at turn start ``(ts, m, t)`` and who won."""
    ts, m, t = np.broadcast_arrays(ts, m, t)
    g = rules.goal
    if not rules.last_turn:
        return (m >= g) | (t >= g), (m >= g).astype(float)
    start_over = (ts == 0) & (((m < g) & (t >= g)) | ((m >= g) & (t < g)) | ((m >= g) & (t >= g) & (m != t)))
    start_val = (m >= g) & ((t < g) | (m > t))
    other_over = (ts == 1) & (m >= g) & ((t < g) | (m > t))
    return start_over | other_over, np.where(ts == 0, start_val, True).astype(float)


def reduce_scores(rules: PigRules, m, t):
    """Lower both scores by the same amount until the smaller is the goal (when both >= goal)."""
    m, t = np.broadcast_arrays(np.asarray(m), np.asarray(t))
    g = rules.goal
    d = np.where((m >= g) & (t >= g), np.minimum(m, t) - g, 0) if rules.last_turn else 0
    return m - d, t - d


def _lookup(rules: PigRules, ts, x, y):
    """Turn-start state ``(ts, x, y)`` as ``(c0, c1, idx)``: value = c0 + c1 * W.flat[idx]."""
    over, val = terminal(rules, ts, x, y)
    x, y = reduce_scores(rules, x, y)
    n_t, n_m, _, n_n = rules.shape
    idx = (np.asarray(ts) * n_m + np.minimum(x, n_m - 1)) * n_n + np.minimum(y, rules.top)
    return np.where(over, val, 0.0), np.where(over, 0.0, 1.0), np.where(over, 0, idx)


def _opponent(rules: PigRules, ts):
    return 1 - ts if rules.last_turn else ts


def build_tables(rules: PigRules, dtype=jnp.float64) -> Tables:
    n_t, n_m, n_s, n_n = rules.shape
    g = rules.goal
    ts, m, t = np.meshgrid(np.arange(n_t), np.arange(n_m), np.arange(n_n), indexing="ij")
    over, val = terminal(rules, ts, m, t)

    c0, c1, bidx = _lookup(rules, _opponent(rules, ts), t, m)
    bc0, bc1 = 1.0 - c0, -c1
    if rules.last_turn:
        last = (ts == 1) & (t >= g)
        bc0, bc1 = np.where(last, 0.0, bc0), np.where(last, 0.0, bc1)

    s, ts2, t2 = np.meshgrid(np.arange(n_s), np.arange(n_t), np.arange(n_n), indexing="ij")
    c0, c1, sidx = _lookup(rules, _opponent(rules, ts2), t2, s)
    sc0, sc1 = 1.0 - c0, -c1
    if rules.last_turn:
        last = (ts2 == 1) & (t2 >= g)
        win = ((ts2 == 1) & (t2 < g) & (s >= g)) | (last & (s > t2))
        lose = last & (s < t2)
    else:
        win, lose = s >= g, np.zeros_like(s, dtype=bool)
    sc0 = np.where(win, 1.0, np.where(lose, 0.0, sc0))
    sc1 = np.where(win | lose, 0.0, sc1)

    f = functools.partial(jnp.asarray, dtype=dtype)
    i32 = functools.partial(jnp.asarray, dtype=jnp.int32)
    return Tables(jnp.asarray(over), f(val), i32(bidx), f(bc0), f(bc1), i32(sidx), f(sc0), f(sc1), f(rules.weights))


# ---------------------------------------------------------------------------------------------
# The sweep: one whole turn for every state, and the fixpoint over turn-start values


def _bust_values(W, tab: Tables):
    return tab.bust_c0 + tab.bust_c1 * W.reshape(-1)[tab.bust_idx]  # [T, M, N]


def _turn(W, tab: Tables, rules: PigRules, collect: bool, unroll: int = 4):
    """Evaluate one turn for every state given the opponent's turn-start values ``W``.

    Returns the turn-start values ``[T, M, N]``, their sensitivity ``beta`` to this state's own
    bust value (the probability to bust before stopping under the chosen decisions) and, if
    ``collect``, the per-total arrays ``(V, roll, stop)`` each ``[S, T, M, N]`` in ascending
    ``s``. The carry holds the next ``max_points`` slabs as tuples, so shifting copies nothing.
    """
    n_t, n_m, n_s, n_n = rules.shape
    flat = W.reshape(-1)
    roll_base = rules.bust_prob * _bust_values(W, tab)
    m_idx = jnp.arange(n_m)[None, :, None]
    shape = (n_t, n_m, n_n)
    weights = [(k, tab.weights[k]) for k, w in enumerate(rules.weights) if w > 0]

    def start_row(dst, src, s):
        row = jnp.minimum(s, n_m - 1)
        fresh = jnp.where(s < n_m, jax.lax.dynamic_slice_in_dim(src, row, 1, axis=1), jax.lax.dynamic_slice_in_dim(dst, row, 1, axis=1))
        return jax.lax.dynamic_update_slice_in_dim(dst, fresh, row, axis=1)

    def step(carry, x):
        window, beta_window, new_w, new_beta = carry
        s, idx, c0, c1 = x
        stop = (c0 + c1 * flat[idx])[:, None, :]
        roll, beta = roll_base, rules.bust_prob
        for k, w in weights:
            roll = roll + w * window[k]
            beta = beta + w * beta_window[k]
        stops = (m_idx < s) & (stop >= roll) | (s > rules.top)
        value = jnp.where(tab.term_mask, tab.term_val, jnp.where(stops, stop, roll))
        beta = jnp.where(stops | tab.term_mask, 0.0, beta)
        out = (value, roll, jnp.broadcast_to(stop, shape)) if collect else None
        carry = ((value,) + window[:-1], (beta,) + beta_window[:-1], start_row(new_w, value, s), start_row(new_beta, beta, s))
        return carry, out

    zeros = tuple(jnp.zeros(shape, W.dtype) for _ in range(rules.max_points))
    xs = (jnp.arange(n_s - 1, -1, -1), tab.stop_idx[::-1], tab.stop_c0[::-1], tab.stop_c1[::-1])
    (_, _, new_w, beta), ys = jax.lax.scan(step, (zeros, zeros, W, jnp.zeros_like(W)), xs, unroll=unroll)
    if collect:
        ys = tuple(y[::-1] for y in ys)
    return new_w, beta, ys


def sweep(W, tab: Tables, rules: PigRules):
    """One sweep: a whole turn for every state, then each bust pair solved exactly.

    A bust at ``(ts, msp, tsp)`` leads to the opponent's ``(ts', tsp, msp)`` and back, the only
    short cycle of the game. With the decisions of this turn fixed, each turn-start value is
    affine in its partner's, ``W = a + k * W[partner]`` (``k = -beta``), so the pair is solved
    in closed form, ``W = (a + k a_p) / (1 - k k_p)``; bank outcomes still use the previous
    iterate. A fixpoint of this map is a fixpoint of the plain turn evaluation.
    """
    partner = W.reshape(-1)[tab.bust_idx]
    value, beta, _ = _turn(W, tab, rules, collect=False)
    k = beta * tab.bust_c1
    a = value - k * partner
    a_p = a.reshape(-1)[tab.bust_idx]
    k_p = k.reshape(-1)[tab.bust_idx]
    return (a + k * a_p) / (1.0 - k * k_p)


def _sweep_of(rules: PigRules):
    """``sweep`` with the rules bound: ``(W, tab) -> W`` as the fixpoint core takes it."""
    return functools.partial(_bound_sweep, rules=rules)


def _bound_sweep(W, tab: Tables, rules: PigRules):
    return sweep(W, tab, rules)


@functools.partial(jax.jit, static_argnames=("rules",))
def turn_arrays(W, tab: Tables, rules: PigRules):
    """Whole-state arrays ``[T, M, S, N]`` from turn-start values: value, roll value, stop value."""
    _, _, (value, roll, stop) = _turn(W, tab, rules, collect=True)
    return tuple(jnp.moveaxis(a, 0, 2) for a in (value, roll, stop))


@functools.partial(jax.jit, static_argnames=("rules",))
def bellman(V, tab: Tables, rules: PigRules):
    """One Jacobi sweep of the one-roll Bellman equations over the whole array ``V [T, M, S, N]``.

    Independent of the turn scan: every state looks one roll ahead into ``V`` itself.
    Entries with ``s < msp`` (no such state) are returned unchanged.
    """
    n_t, n_m, n_s, n_n = rules.shape
    diag = jnp.arange(n_m)
    W = V[:, diag, diag, :]
    stop = jnp.moveaxis(tab.stop_c0 + tab.stop_c1 * W.reshape(-1)[tab.stop_idx], 0, 1)[:, None]
    padded = jnp.concatenate([V, jnp.zeros(V.shape[:2] + (rules.max_points,) + V.shape[3:], V.dtype)], axis=2)
    ahead = sum(tab.weights[k] * padded[:, :, k + 1 : k + 1 + n_s] for k in range(rules.max_points))
    roll = rules.bust_prob * _bust_values(W, tab)[:, :, None, :] + ahead
    s = jnp.arange(n_s)[None, None, :, None]
    m = jnp.arange(n_m)[None, :, None, None]
    best = jnp.where(s > m, jnp.maximum(roll, stop), roll)
    new = jnp.where(s <= rules.top, best, stop)
    new = jnp.where(tab.term_mask[:, :, None, :], tab.term_val[:, :, None, :], new)
    return jnp.where(s < m, V, new)


# ---------------------------------------------------------------------------------------------
# Public entry points


@dataclass(frozen=True)
class PigSolution:
    """Solved game: turn-start win probabilities ``start [T, M, N]`` and run facts."""

    rules: PigRules
    start: np.ndarray
    iterations: int
    residual: float
    tol: float
    converged: bool
    dtype: str
    device: str
    compile_seconds: float
    solve_seconds: float

    @property
    def game_value(self) -> float:
        """The start player's win probability under optimal play by both."""
        return float(self.start[0, 0, 0])


def default_tol(dtype) -> float:
    return 1e-12 if jnp.dtype(dtype) == jnp.float64 else 1e-6


def solve(
    rules: PigRules,
    *,
    tol: float | None = None,
    max_iter: int = 10_000,
    device: jax.Device | None = None,
    dtype=None,
) -> PigSolution:
    """Win probabilities of every turn-start state under optimal play by both players."""
    from jaxsolve.core.runtime import float_dtype

    dtype = jnp.dtype(dtype or float_dtype())
    tol = default_tol(dtype) if tol is None else tol
    device = device or jax.devices()[0]
    n_t, n_m, _, n_n = rules.shape
    with jax.default_device(device):
        tab = jax.device_put(build_tables(rules, dtype), device)
        W0 = jax.device_put(jnp.full((n_t, n_m, n_n), 0.5, dtype), device)
        run = solve_fixpoint(("pig", rules), _sweep_of(rules), W0, tab, tol=tol, max_iter=max_iter)
    return PigSolution(
        rules=rules,
        start=np.asarray(run.values),
        iterations=run.iterations,
        residual=run.residual,
        tol=float(tol),
        converged=True,
        dtype=str(dtype),
        device=str(device),
        compile_seconds=run.compile_seconds,
        solve_seconds=run.solve_seconds,
    )


@dataclass(frozen=True)
class FullSolution:
    """Every state: ``value``, ``roll``, ``stop`` ``[T, M, S, N]`` and ``policy`` (1 roll, 0 stop, -1 none)."""

    rules: PigRules
    value: np.ndarray
    roll: np.ndarray
    stop: np.ndarray
    policy: np.ndarray


def full(sol: PigSolution) -> FullSolution:
    """All mid-turn values, both options and the optimal decision, from a solved game."""
    rules = sol.rules
    tab = build_tables(rules, sol.start.dtype)
    value, roll, stop = (np.asarray(a) for a in turn_arrays(jnp.asarray(sol.start), tab, rules))
    n_t, n_m, n_s, n_n = rules.shape
    s = np.arange(n_s)[None, None, :, None]
    m = np.arange(n_m)[None, :, None, None]
    over = np.asarray(tab.term_mask)[:, :, None, :]
    roll_best = (s == m) | (roll > stop)
    policy = np.where(roll_best, ROLL, STOP).astype(np.int8)
    policy = np.where((s < m) | (s > rules.top) | over, NONE, policy).astype(np.int8)
    value = np.where(s < m, np.nan, value)
    stop = np.where((s <= m) | over, np.nan, stop)
    roll = np.where((s < m) | (s > rules.top) | over, np.nan, roll)
    return FullSolution(rules, value, roll, stop, policy)


def turn_total_layout(rules: PigRules, array: np.ndarray, fill) -> np.ndarray:
    """``[T, M, S, N]`` (indexed by my total) -> ``[TS, MSP, MAP, TSP]`` (indexed by my turn
    total MAP = 0..top), ``fill`` where MSP + MAP > top. The layout of the exports."""
    n_t, n_m, n_s, n_n = rules.shape
    a = np.arange(rules.top + 1)
    total = np.arange(n_m)[:, None] + a[None, :]
    out = array[:, np.arange(n_m)[:, None], np.minimum(total, n_s - 1), :]
    return np.where((total <= rules.top)[None, :, :, None], out, fill).astype(array.dtype)


def policy_path(path) -> "Path":
    """``X.npy`` -> ``X-policy.npy``: where ``save_export`` writes the policy."""
    from pathlib import Path

    path = Path(path)
    return path.with_name(path.stem + "-policy.npy")


def export_metadata(sol: PigSolution) -> dict:
    """What both files of an export share: rules, axes, reduction, run facts."""
    rules = sol.rules
    n_t, n_m, _, n_n = rules.shape
    return {
        "game": "raab",
        "rules": rules.to_dict(),
        "axes": [
            {"name": "TS", "size": n_t, "meaning": "1 if the other player started (last-turn rule), else always 0"},
            {"name": "MSP", "size": n_m, "meaning": "my banked score 0..MSP"},
            {"name": "MAP", "size": rules.top + 1, "meaning": "my turn total; MSP + MAP <= bound"},
            {"name": "TSP", "size": n_n, "meaning": "their banked score"},
        ],
        "view": "the player to decide",
        "reduction": "states with MSP and TSP both >= goal are stored lowered by min(MSP, TSP) - goal; "
        "every other state with MSP > goal is over, so MSP stops at the goal",
        "game_value": sol.game_value,
        "iterations": sol.iterations,
        "residual": sol.residual,
        "tol": sol.tol,
        "dtype": sol.dtype,
        "device": sol.device,
    }


def save_export(path, sol: PigSolution, full_sol: FullSolution | None = None):
    """Win probabilities to ``path`` and the policy to ``X-policy.npy``, both ``[TS, MSP, MAP,
    TSP]`` with a sidecar each, written as one group (``jaxsolve.export.save_group``)."""
    from jaxsolve.io import export

    f = full_sol or full(sol)
    common = export_metadata(sol)
    values = turn_total_layout(sol.rules, f.value, np.nan)
    policy = turn_total_layout(sol.rules, f.policy, NONE)
    encoding = {"1": "roll", "0": "stop", "-1": "no decision (game over / no such state)"}
    return export.save_group(
        [
            (path, values, {**common, "content": "win probability of the player to decide", "impossible": "NaN"}),
            (policy_path(path), policy, {**common, "content": "optimal decision", "encoding": encoding}),
        ]
    )


@dataclass(frozen=True)
class PigExport:
    """A loaded export: ``values`` (win probabilities) and ``policy`` in ``[TS, MSP, MAP, TSP]``."""

    rules: PigRules
    values: np.ndarray
    policy: np.ndarray
    meta: dict

    @property
    def game_value(self) -> float:
        return float(self.values[0, 0, 0, 0])


def load_export(path) -> PigExport:
    """Read ``X.npy`` and ``X-policy.npy`` back, with every check of ``jaxsolve.export``.

    Refused: files not from one export (hashes), other games, invalid rules or rules that
    differ between the two sidecars, a shape other than the rules' ``[T, M, bound + 1, N]``,
    values not float or outside [0, 1], NaN other than exactly where MSP + MAP > bound, a policy
    not int8 in {-1, 0, 1} or with a decision where no state is.
    """
    from jaxsolve.io import export

    (values, meta), (policy, pmeta) = export.load_group([path, policy_path(path)], game="raab")
    rules = export.rules_from(path, meta, PigRules)
    if export.rules_from(policy_path(path), pmeta, PigRules) != rules:
        raise JaxsolveError(f"{path} and {policy_path(path)} name different rules")
    n_t, n_m, _, n_n = rules.shape
    shape = (n_t, n_m, rules.top + 1, n_n)
    total = np.arange(n_m)[:, None] + np.arange(rules.top + 1)[None, :]
    defined = np.broadcast_to((total <= rules.top)[None, :, :, None], shape)
    what = f"rules {rules.name}"
    export.check_array(path, values, shape=shape, dtypes=("float32", "float64"), defined=defined, low=0.0, high=1.0, what=what)
    export.check_array(policy_path(path), policy, shape=shape, dtypes=("int8",), low=NONE, high=ROLL, what=what)
    if (policy[~defined] != NONE).any():
        raise JaxsolveError(f"{policy_path(path)}: a decision where MSP + MAP exceeds the bound {rules.top}")
    return PigExport(rules, values, policy, meta)


def check_state(rules: PigRules, mine: int, turn: int, theirs: int, they_started: bool) -> tuple[int, int, int, int]:
    """Validate a position and return its array index ``(ts, msp, s, tsp)`` (after reduction)."""
    if min(mine, turn, theirs) < 0:
        raise JaxsolveError("scores and turn total must be >= 0")
    if they_started and not rules.last_turn:
        raise JaxsolveError(f"{rules.name} has no last-turn rule, so who started does not matter; drop --they-started")
    ts = int(they_started)
    over, val = terminal(rules, ts, mine, theirs)
    if bool(over):
        who = "you" if float(val) == 1.0 else "they"
        raise JaxsolveError(f"the game is already over at mine={mine}, theirs={theirs} ({who} won)")
    m, t = (int(v) for v in reduce_scores(rules, mine, theirs))
    if t > rules.top:
        raise JaxsolveError(f"their score {theirs} is beyond the state bound {rules.top} (use a larger --bound)")
    if not rules.last_turn and mine + turn >= rules.goal:
        raise JaxsolveError(f"banked plus turn total {mine + turn} reaches the goal {rules.goal}: stop and win")
    if m + turn > rules.top:
        raise JaxsolveError(f"banked plus turn total {mine + turn} is beyond the state bound {rules.top} (use a larger --bound)")
    return ts, m, m + turn, t


@dataclass(frozen=True)
class Advice:
    decision: str
    win_if_roll: float
    win_if_stop: float | None

    @property
    def win(self) -> float:
        return self.win_if_roll if self.win_if_stop is None else max(self.win_if_roll, self.win_if_stop)


def advise(full_sol: FullSolution, mine: int, turn: int, theirs: int, they_started: bool = False) -> Advice:
    """Roll or stop at a position, with the win probability of each choice."""
    rules = full_sol.rules
    ts, m, s, t = check_state(rules, mine, turn, theirs, they_started)
    roll = float(full_sol.roll[ts, m, s, t])
    stop = None if turn == 0 else float(full_sol.stop[ts, m, s, t])
    decision = "roll" if full_sol.policy[ts, m, s, t] == ROLL else "stop"
    return Advice(decision, roll, stop)


# ---------------------------------------------------------------------------------------------
# One-turn tables of "Würfeln bei Schlag den Raab" ("Vorüberlegung A/B", "Zwischenüberlegung")


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
    roll = jnp.zeros(horizon + 1)
    value = jnp.arange(horizon + 1 + rules.max_points, dtype=roll.dtype)

    def step(value, a):
        r = jnp.dot(jnp.asarray(w), jax.lax.dynamic_slice(value, (a + 1,), (rules.max_points,)))
        best = jnp.where(a > 0, jnp.maximum(a, r), r)
        return value.at[a].set(best), r

    value, roll = jax.lax.scan(step, value, jnp.arange(horizon, -1, -1))
    roll = np.asarray(roll[::-1])
    stop = np.arange(horizon + 1, dtype=float)
    rolls_better = roll > stop
    rolls_better[0] = True
    stop_from = int(np.max(np.nonzero(rolls_better)[0]) + 1)
    return stop_from, float(value[0]), roll, stop


# ---------------------------------------------------------------------------------------------
# Derived views: where to stop, and the source page's claims


def stop_totals(f: FullSolution) -> np.ndarray:
    """``[T, M, N]``: the turn total at which a player who starts a turn stops (NaN if the game is
    over there, or if the policy rolls on to the state bound)."""
    n_t, n_m, n_s, n_n = f.rules.shape
    s = np.arange(n_s)[None, None, :, None]
    m = np.arange(n_m)[None, :, None, None]
    stops = (f.policy == STOP) & (s > m)
    first = np.argmax(stops, axis=2)
    found = stops.any(axis=2)
    over = np.asarray(terminal(f.rules, np.arange(n_t)[:, None, None], np.arange(n_m)[None, :, None], np.arange(n_n)[None, None, :])[0])
    return np.where(found & ~over, first - np.arange(n_m)[None, :, None], np.nan)


def check_claims(rules: PigRules, extra: int = 40, device=None) -> dict:
    """The claims of "Würfeln bei Schlag den Raab" for a last-turn game: a lead of 80 suffices to stop, rolling on beats
    stopping at a tie in the last turn, and the state bound does not change the result."""
    if not rules.last_turn:
        raise JaxsolveError("the claims concern the last-turn rule; pick a last-turn rule set")
    base = solve(rules, device=device)
    wide_rules = rules.replace(bound=rules.top + extra, name=f"{rules.name}+bound{rules.top + extra}")
    wide = solve(wide_rules, device=device)
    f = full(wide)
    n_t, n_m, n_s, n_n = wide_rules.shape
    s = np.arange(n_s)[None, None, :, None]
    m = np.arange(n_m)[None, :, None, None]
    t = np.arange(n_n)[None, None, None, :]
    rolling = (f.policy == ROLL) & (s > m)
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
