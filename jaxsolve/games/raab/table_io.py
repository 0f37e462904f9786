"""The export of a solved Pig-family duel: win probabilities and policy as ``[TS, MSP, MAP, TSP]``
``.npy`` files bound by one JSON sidecar, and reading them back with every check."""

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
    """``X.npy`` -> ``X-policy.npy``: where ``save_export`` writes the policy (the export's
    member ``policy``)."""
    from jaxsolve.io import export

    return export.member_path(path, "policy")


def export_metadata(sol: PigSolution) -> dict:
    """The sidecar's content: rules, axes of both arrays, reduction, run facts."""
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


POLICY_ENCODING = {"1": "roll", "0": "stop", "-1": "no decision (game over / no such state)"}


def save_export(path, sol: PigSolution, full_sol: FullSolution | None = None) -> list[Path]:
    """One export: the win probabilities to ``path`` and the policy to ``X-policy.npy``, both
    ``[TS, MSP, MAP, TSP]``, with ONE sidecar that names and hashes both
    (``jaxsolve.io.export.save_members``): a write cut short anywhere leaves the old export or
    the new one. The turn-start entries (MAP 0) are the solve's own values ``sol.start``; the
    mid-turn ones are computed in their precision, whatever JAX's x64 mode.
    Returns ``[path, policy path]``."""
    from jaxsolve.core.arrays import precision
    from jaxsolve.io import export

    if full_sol is None:
        with precision(np.asarray(sol.start).dtype):
            full_sol = full(sol)
    f = full_sol
    values = turn_total_layout(sol.rules, f.value, np.nan)
    values[:, :, 0, :] = np.asarray(sol.start, values.dtype)
    policy = turn_total_layout(sol.rules, f.policy, NONE)
    meta = {
        **export_metadata(sol),
        "content": "win probability of the player to decide",
        "impossible": "NaN",
        "policy_content": "optimal decision (member 'policy')",
        "encoding": POLICY_ENCODING,
    }
    written = export.save_members(path, values, meta, {"policy": policy})
    _drop_old_policy_sidecar(path)
    return written


def _drop_old_policy_sidecar(path) -> None:
    """Remove the policy's own sidecar an export of an older version wrote beside it (the
    policy is now a member of the one sidecar; the old one no longer matches it)."""
    from jaxsolve.io import export

    try:
        export.sidecar_path(policy_path(path)).unlink()
    except OSError:
        pass


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

    def solution(self) -> PigSolution:
        """The solved game the export holds: its turn-start values (MAP 0) and the run facts
        its sidecar records."""
        meta = self.meta

        def number(key: str) -> float:
            x = meta.get(key)
            return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0

        return PigSolution(
            rules=self.rules,
            start=np.ascontiguousarray(self.values[:, :, 0, :]),
            residual=number("residual"),
            tol=number("tol"),
            dtype=str(self.values.dtype),
            device=str(meta.get("device", "?")),
            compile_seconds=0.0,
            solve_seconds=0.0,
            iterations=int(number("iterations")),
        )


def load_export(path) -> PigExport:
    """Read ``X.npy`` and its member ``X-policy.npy`` back, with every check of ``jaxsolve.io.export``.

    Refused: a policy file other than the one the sidecar hashes (of another export, or of a
    write cut short), other games, invalid rules, a shape other than the rules' ``[T, M,
    bound + 1, N]``, values not float or outside [0, 1], NaN other than exactly where MSP + MAP
    > bound, a policy not int8 in {-1, 0, 1} or with a decision where no state is, and values
    that are not a fixpoint of the rules the sidecar names (``bellman_check``).
    """
    from jaxsolve.io import export

    values, meta = export.load(path, game="raab")
    policy = export.load_members(path, meta, ("policy",))["policy"]
    rules = export.rules_from(path, meta, PigRules)
    export.check_preset_name(path, "raab", rules, PRESETS)
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
