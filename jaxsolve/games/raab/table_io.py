"""The export of a solved Pig-family duel: win probabilities and policy as ``[TS, MSP, MAP, TSP]``
``.npy`` files with JSON sidecars, and reading them back with every check."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab.rules import PRESETS, PigRules
from jaxsolve.games.raab.solver import NONE, ROLL, FullSolution, PigSolution, full


def turn_total_layout(rules: PigRules, array: np.ndarray, fill) -> np.ndarray:
    """``[T, M, S, N]`` (indexed by my total) -> ``[TS, MSP, MAP, TSP]`` (indexed by my turn
    total MAP = 0..top), ``fill`` where MSP + MAP > top. The layout of the exports."""
    n_t, n_m, n_s, n_n = rules.shape
    a = np.arange(rules.top + 1)
    total = np.arange(n_m)[:, None] + a[None, :]
    out = array[:, np.arange(n_m)[:, None], np.minimum(total, n_s - 1), :]
    return np.where((total <= rules.top)[None, :, :, None], out, fill).astype(array.dtype)


def policy_path(path) -> Path:
    """``X.npy`` -> ``X-policy.npy``: where ``save_export`` writes the policy."""

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
        **sol.facts(),
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
    export.check_preset_name(path, "raab", rules, PRESETS)
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
    bellman_check(path, values, rules)
    return PigExport(rules, values, policy, meta)


def bellman_check(path, values: np.ndarray, rules: PigRules) -> None:
    """Refuse values that are not a fixpoint of the one-roll Bellman equations of ``rules``
    (the rules the sidecar names): one Jacobi sweep (``solver.bellman``) over the states the
    export holds must leave them unchanged, within the solve's tolerance. A sidecar rewritten
    whole (its goal, die or last-turn rule edited, its hashes recomputed) fails here. The sweep
    runs in the values' own precision, float64 also where JAX's x64 mode is off
    (``arrays.precision``)."""
    from jaxsolve.core.arrays import precision

    with precision(values.dtype):
        _bellman_check(path, values, rules)


def _bellman_check(path, values: np.ndarray, rules: PigRules) -> None:
    import jax.numpy as jnp

    from jaxsolve.games.raab import solver

    n_t, n_m, n_s, n_n = rules.shape
    dtype = values.dtype
    V = np.zeros((n_t, n_m, n_s, n_n), dtype)
    m_idx, a_idx = np.nonzero(np.arange(n_m)[:, None] + np.arange(rules.top + 1)[None, :] <= rules.top)
    V[:, m_idx, m_idx + a_idx, :] = values[:, m_idx, a_idx, :]
    tab = solver.build_tables(rules, dtype)
    first = np.asarray(solver.bellman(jnp.asarray(V), tab, rules))
    V[:, :, rules.top + 1 :, :] = first[:, :, rules.top + 1 :, :]  # beyond the bound: stop values, from the turn starts
    again = np.asarray(solver.bellman(jnp.asarray(V), tab, rules))
    held = np.zeros(V.shape, bool)
    held[:, m_idx, m_idx + a_idx, :] = True
    tol = 1e-9 if dtype == np.float64 else 1e-4
    diff = np.where(held, np.abs(again - V), 0.0)
    if diff.max() > tol:
        ts, m, s_, n = np.unravel_index(int(diff.argmax()), diff.shape)
        raise JaxsolveError(
            f"{path}: the values are not a solution of the rules {rules.name} its sidecar names "
            f"(at TS {ts}, MSP {m}, MAP {s_ - m}, TSP {n}: {V[ts, m, s_, n]:.6f} held, one Bellman step gives {again[ts, m, s_, n]:.6f})"
        )
