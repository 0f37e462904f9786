"""Questions in bulk: state values, option values, best options and regrets for arrays of
situations, answered from one solved table in one process.

A *state* is ``(filled, upper, all_same_held)``: the mask of filled boxes (bit b = box b in the
sheet's order), the upper-section total so far (any non-negative total; it is capped at the
threshold here, never by the caller) and whether the all-same box holds its points. A
*situation* is a state plus the dice showing and the re-throws left this turn.

What a value includes: the expected points still to come from that moment under optimal play
(the rest of the game: every box still open, the upper bonus if it is still to be earned,
extra all-same bonuses to come). The score already on the sheet and an upper bonus already earned
are not included (add them to compare totals). With the ``goals`` objective, the expected number
of boxes still to be filled with their condition met.

Every value comes from the same engine functions and the same turn policy as the solve
(``jaxsolve.games.category.engine.solver``, ``policy``). A float64 table is answered in float64 whether or
not JAX's x64 mode is on in the caller's process.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core import dice as dicelib
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import policy, solver, tables
from jaxsolve.games.category.engine.tables import EngineState
from jaxsolve.games.category.sheets.position import PositionError, box_index
from jaxsolve.games.category.simulation.simulate import radix, throw_lookup

CHUNK = 512  # situations per compiled call (the last chunk is padded)


def _precision(dtype):
    """Run a float64 table's computations in float64 (process setting restored afterwards)."""
    return jax.enable_x64(True) if np.dtype(dtype) == np.float64 else contextlib.nullcontext()


@functools.partial(jax.jit, static_argnames=("rules", "objective", "throws_left", "first"))
def _situations(values, state, t, rules, objective, throws_left, first):
    """For situations with ``throws_left`` re-throws left: the value of filling each box with
    throw ``t`` (``[B, boxes]``, -inf where not allowed), of each keep contained in ``t``
    (``[B, S]`` over ``space.subkeeps[t]``) and of the throw itself (``[B]``)."""
    sp = tables.space(rules.dice)
    fills = solver.option_values(values, state, rules, objective, first)  # [boxes, T, B]
    rows = jnp.arange(t.shape[0])
    fill_t = fills[:, t, rows].T
    points = solver.moves(state, rules).points[:, t, rows].T
    throw_values = solver.turn_throw_values(values, state, rules, objective)  # [throws, T, B]
    throw_value = throw_values[throws_left, t, rows]
    if throws_left == 0:
        return fill_t, points, jnp.full((t.shape[0], sp.subkeeps.shape[1]), -jnp.inf, values.dtype), throw_value
    keep_values = dicelib.expect_keeps(sp, throw_values[throws_left - 1])  # [K, B]
    subs = jnp.asarray(sp.subkeeps)[t]  # [B, S]
    return fill_t, points, keep_values[subs, rows[:, None]], throw_value


@dataclass(frozen=True)
class OptionValues:
    """Option values of ``N`` situations (numpy, the table's dtype).

    Attributes:
        boxes: ``[N, boxes]`` value of filling each box now (NaN where not allowed).
        points: ``[N, boxes]`` points the box would take.
        keeps: ``[N, S]`` value of keeping ``keep_counts[n, s]`` and re-throwing the rest (NaN
            where the slot is unused: no re-throw left, a repeated keep, or keeping every die,
            which is the same as filling).
        keep_counts: ``[N, S, 6]`` the keeps, as counts of each face.
        value: ``[N]`` value of the situation (the best option's value).
    """

    boxes: np.ndarray
    points: np.ndarray
    keeps: np.ndarray
    keep_counts: np.ndarray
    value: np.ndarray


class Table:
    """A solved table (``jaxsolve.games.category.engine.solver.Solution``) that answers arrays of questions."""

    def __init__(self, solution):
        self.solution = solution
        self.rules = solution.rules
        self.objective = solution.objective
        self.dtype = np.dtype(solution.values.dtype)
        self._values = None

    # ------------------------------------------------------------------ states

    def states(self, filled, upper, all_same_held):
        """The checked states: an ``EngineState`` of int arrays broadcast to one shape (upper capped)."""
        f, u, h = (np.asarray(x) for x in np.broadcast_arrays(filled, upper, all_same_held))
        for name, x in (("filled", f), ("upper", u), ("all_same_held", h)):
            if x.dtype.kind not in "iub":
                raise JaxsolveError(f"{name} must be integers, got {x.dtype}")
        rules = self.rules
        if np.any((f < 0) | (f > rules.full_mask)):
            raise JaxsolveError(f"filled masks must be between 0 and {rules.full_mask}")
        if np.any(u < 0):
            raise JaxsolveError("upper totals must be >= 0")
        if np.any((h != 0) & (h != 1)):
            raise JaxsolveError("all_same_held must be 0 or 1")
        return EngineState(f.astype(np.int64), np.minimum(u, rules.upper_threshold).astype(np.int64), h.astype(np.int64))

    def state_values(self, filled, upper, all_same_held) -> np.ndarray:
        """Value of each state at the start of a turn (NaN where no game reaches it)."""
        f, u, h = self.states(filled, upper, all_same_held)
        return self.solution.values[f, u, h]

    # ------------------------------------------------------------------ situations

    def _device_values(self):
        if self._values is None:
            with _precision(self.dtype):
                self._values = jnp.asarray(np.nan_to_num(self.solution.values.reshape(-1), nan=0.0), self.dtype)
        return self._values

    def throws(self, dice) -> tuple[np.ndarray, np.ndarray]:
        """Throw indices of ``[N, dice]`` faces 1..6 (any order), and the ``[N, 6]`` face counts."""
        d = np.asarray(dice)
        if d.dtype.kind not in "iu":
            raise JaxsolveError(f"dice must be integer faces 1..6, got {d.dtype}")
        n = self.rules.dice
        if d.ndim != 2 or d.shape[1] != n:
            raise JaxsolveError(f"dice must be an array [situations, {n}], got shape {d.shape}")
        if d.dtype.kind not in "iu" or np.any((d < 1) | (d > 6)):
            raise JaxsolveError("dice must be faces 1..6")
        counts = np.stack([(d == face).sum(axis=1) for face in range(1, 7)], axis=1)
        return throw_lookup(n)[counts @ radix(n)], counts

    def option_values(self, filled, upper, all_same_held, dice, throws_left, *, validate: bool = True) -> OptionValues:
        """Every option of ``N`` situations: fill a box, or keep some dice and re-throw.

        Always checked: integer arrays, masks, totals, flags, faces and re-throws in range.
        ``validate`` (default) also refuses a state no game reaches (NaN in the table: an upper
        total the filled boxes cannot make, an all-same flag without its box), which would
        otherwise get finite but meaningless option values; ``validate=False`` skips that
        lookup for callers that have checked their states."""
        f, u, h = self.states(filled, upper, all_same_held)
        f, u, h = f.reshape(-1), u.reshape(-1), h.reshape(-1)
        t, _ = self.throws(dice)
        r = np.asarray(throws_left)
        if r.dtype.kind not in "iu":
            raise JaxsolveError(f"re-throws left must be integers, got {r.dtype}")
        r = np.broadcast_to(r, f.shape).astype(np.int64)
        if t.shape != f.shape:
            raise JaxsolveError(f"{len(t)} throws for {len(f)} states")
        rules = self.rules
        if np.any((r < 0) | (r > rules.throws - 1)):
            raise JaxsolveError(f"re-throws left must be between 0 and {rules.throws - 1}")
        if np.any(f == rules.full_mask):
            raise JaxsolveError("a situation needs an open box (every box is filled)")
        if validate:
            impossible = np.isnan(self.solution.values[f, u, h])
            if impossible.any():
                i = int(np.flatnonzero(impossible)[0])
                raise JaxsolveError(
                    f"{int(impossible.sum())} situation(s) in a state no game reaches, the first #{i}: "
                    f"filled={int(f[i])} upper={int(u[i])} all_same_held={int(h[i])}"
                )
        sp = tables.space(rules.dice)
        n, s = len(f), sp.subkeeps.shape[1]
        boxes = np.full((n, rules.num_boxes), np.nan, self.dtype)
        points = np.zeros((n, rules.num_boxes), np.int64)
        keeps = np.full((n, s), np.nan, self.dtype)
        value = np.full(n, np.nan, self.dtype)
        values = self._device_values()
        for left in np.unique(r):
            first = bool(rules.has_instant_bonus and left == rules.throws - 1)
            idx = np.flatnonzero(r == left)
            for start in range(0, len(idx), CHUNK):
                part = idx[start : start + CHUNK]
                pad = np.concatenate([part, np.repeat(part[-1:], CHUNK - len(part))])
                with _precision(self.dtype):
                    state = EngineState._make(jnp.asarray(a[pad], jnp.int32) for a in (f, u, h))
                    b, p, k, v = _situations(values, state, jnp.asarray(t[pad], jnp.int32), rules=rules, objective=self.objective, throws_left=int(left), first=first)
                boxes[part] = np.asarray(b)[: len(part)]
                points[part] = np.asarray(p)[: len(part)]
                keeps[part] = np.asarray(k)[: len(part)]
                value[part] = np.asarray(v)[: len(part)]
        boxes[~np.isfinite(boxes)] = np.nan
        subs = sp.subkeeps[t]  # [N, S]
        earlier = np.tril(np.ones((s, s), bool), -1)  # [j, j'] with j' < j
        unused = ((subs[:, :, None] == subs[:, None, :]) & earlier).any(axis=2)  # repeats pad the list
        unused |= sp.keep_size[subs] == rules.dice  # keeping every die = filling
        keeps[unused | ~np.isfinite(keeps)] = np.nan
        return OptionValues(boxes, points, keeps, sp.keeps[subs], value)

    def win_advice(self, position, dice, throws_left, opponents, **options):
        """The options of one situation ranked by P(finish first) against ``opponents`` (texts
        ``"SHEET SCORE"`` or ``winning.Opponent``) who play this ``score`` table's policy;
        ``options``: those of ``winning.advise_win`` (score, ties, method)."""
        from jaxsolve.games.category.objectives import winning

        if self.objective != "score":
            raise JaxsolveError("the opponents play for expected points: a score table is needed")
        if isinstance(position, str):
            from jaxsolve.games.category.sheets.position import parse_position

            position = parse_position(position, self.rules)
        opps = [o if isinstance(o, winning.Opponent) else winning.parse_opponent(o, self.rules) for o in opponents]
        return winning.advise_win(self.rules, position, dice, throws_left, opps, sol=self.solution, **options)

    def ranked(self, option_values: OptionValues, i: int) -> list[dict]:
        """Situation ``i``'s options, best first, by the engine's tie rule (filling before
        re-throwing, then more dice kept, then sheet / keep order), each with its regret."""
        from jaxsolve.games.category.answers import advisor

        ov = option_values
        keeps = [(float(ov.keeps[i, j]), ov.keep_counts[i, j]) for j in np.flatnonzero(np.isfinite(ov.keeps[i]))]
        return [o.to_dict() for o in advisor.rank(self.rules, ov.boxes[i], ov.points[i], keeps, self.dtype, floor=None)]

    def best_options(self, option_values: OptionValues, tol: float | None = None) -> list[list[dict]]:
        """For every situation, the options within ``tol`` of the best (default: the policy's
        tie tolerance for this dtype), in tie-rule order: the first is the policy's choice."""
        out = []
        for i in range(len(option_values.value)):
            ranked = self.ranked(option_values, i)
            best = ranked[0]["value"]
            limit = policy.rtol(self.dtype) * max(1.0, abs(best)) if tol is None else tol
            out.append([o for o in ranked if best - o["value"] <= limit])
        return out


def regret(table: Table, option_values: OptionValues, i: int, option: str) -> float:
    """Regret of the option labelled ``option`` (``fill <box>`` or ``keep <faces>``) in situation ``i``."""
    kind, _, rest = option.strip().partition(" ")
    for o in table.ranked(option_values, i):
        if kind == "fill" and o["kind"] == "box" and box_index(rest, table.rules) == table.rules.box_names.index(o["box"]):
            return o["regret"]
        if kind == "keep" and o["kind"] == "keep" and sorted(int(c) for c in rest.replace(",", " ").split()) == o["keep"]:
            return o["regret"]
    raise PositionError(f"{option!r} is not an option of situation {i}")
