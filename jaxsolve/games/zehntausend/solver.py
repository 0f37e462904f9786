"""Zehntausend (10,000): one turn, maximise the expected turn score E(p, n).

The game (rules as values; by default those of D. Peter, "Optimale Strategie für das
Würfelspiel Zehntausend", 2013, preset ``peter-2013``):

* a throw ``w`` of ``n`` dice with no scoring die is a bust: the turn ends with 0 points;
* otherwise the player writes (``p + W(w)``) or sets aside a usable subset ``u`` and throws
  the other ``n - |u|`` dice; with all six used (``n = 0``) she throws six again or stops.

``E(p, n)`` is the optimal expected final score when holding ``p`` turn points and having
decided to throw ``n`` dice (``n = 0``: all six were used, throw six again or write ``p``).
All scores are multiples of 50, so ``p`` lives on the grid ``50 * level``.

Every set-aside adds at least 50 points, so ``E(p, .)`` only depends on ``E(p', .)`` with
``p' > p`` (the one same-``p`` link ``E(p, 0) = max(p, E(p, 6))`` is resolved inside a level).
Above ``p_top = max_n Delta_n / P0_n`` (``Delta_n``: expected ``W`` of one throw, ``P0_n``:
probability of a bust) stopping after the next throw is a fixed point of the optimality
equation, so there ``E(p, n) = (1 - P0_n) p + Delta_n`` exactly. The solver starts from that
closed form on the first grid level at or above ``p_top`` and runs one ``lax.scan`` down to
``p = 0``; each scan step solves one whole level (all ``n`` and all throws) as array operations.

Tables (numpy, built once per rule set from ``jaxsolve.dice``):
    rows: every throw of 1..6 dice (``R = 923`` multisets), with its probability and ``W(w)``;
    options: the distinct ``(W(u), |u|)`` of its usable subsets ``V(w)``, padded to ``U``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core.compile import abstract, compiled
from jaxsolve.core.dice import dice_space
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.rules import (  # noqa: F401 (the rules live there)
    DICE,
    PRESETS,
    SIDES,
    STEP,
    TWO_FIVES_MODES,
    TwoFives,
    ZehntausendRules,
    get_rules,
)

# ----------------------------------------------------------------------------- scoring


def score_keeps(rules: ZehntausendRules, keeps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of real dice set aside together and whether every die scores: ``[K, 6] -> [K], [K]``.

    Faces 2, 3, 4, 6 score only three or more of a kind, 1s and 5s also singly; three of a
    kind is worth ``100 x face`` (``1000`` for 1s) and doubles with each further die; plus the
    straight, six of a kind and three pairs as the rules say. The empty keep scores 0, usable.
    """
    keeps = np.asarray(keeps, dtype=np.int64)
    faces = np.arange(1, SIDES + 1)
    triple = np.where(faces == 1, 1000, 100 * faces)
    single = np.array([100, 0, 0, 0, 50, 0])
    kind = triple[None, :] * (2 ** np.clip(keeps - 3, 0, None))
    if rules.six_of_a_kind:
        kind = np.where(keeps == 6, rules.six_of_a_kind, kind)
    per_face = np.where(keeps >= 3, kind, keeps * single[None, :])
    face_ok = (keeps == 0) | (keeps >= 3) | (single[None, :] > 0)
    points = per_face.sum(axis=1)
    usable = face_ok.all(axis=1)
    if rules.straight:
        is_straight = (keeps == 1).all(axis=1)
        points = np.where(is_straight, np.maximum(points * usable, rules.straight), points)
        usable = usable | is_straight
    if rules.three_pairs:
        is_pairs = ((keeps == 2).sum(axis=1) == 3) & (keeps.sum(axis=1) == 6)
        points = np.where(is_pairs, np.maximum(points * usable, rules.three_pairs), points)
        usable = usable | is_pairs
    return points, usable


def _code(counts: np.ndarray) -> np.ndarray:
    """Base-7 code of count vectors (each count is 0..6): ``[..., 6] -> [...]``."""
    return np.asarray(counts) @ (7 ** np.arange(SIDES))


@dataclass(frozen=True, eq=False)
class SetAside:
    """Every usable subset ``u`` of one throw.

    Attributes (``S`` subsets):
        real:    ``[S, 6]`` real dice set aside, by face.
        pseudo:  ``[S]`` number of ``1*`` (each made of two 5s of the throw).
        points:  ``[S]`` ``W(u)``.
        dice:    ``[S]`` dice set aside, ``|u|`` (a ``1*`` counts one die).
    """

    real: np.ndarray
    pseudo: np.ndarray
    points: np.ndarray
    dice: np.ndarray

    def faces(self, i: int) -> list[str]:
        """Faces of subset ``i`` as strings, ``1*`` for a pseudo-one."""
        out = [str(f + 1) for f in range(SIDES) for _ in range(int(self.real[i, f]))]
        return sorted(out + ["1*"] * int(self.pseudo[i]))


def _compact(valid: np.ndarray, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Move the valid entries of each row to the front and cut the width to the longest row."""
    order = np.argsort(~valid, axis=1, kind="stable")
    width = max(int(valid.sum(axis=1).max()), 1)
    take = lambda a: np.take_along_axis(a, order[:, :width].reshape(order.shape[:1] + (width,) + (1,) * (a.ndim - 2)), axis=1)
    return (take(valid),) + tuple(take(a) for a in arrays)


def _set_asides(rules: ZehntausendRules, n: int):
    """``V(w)`` for every throw of ``n`` dice at once, as padded arrays ``[T, V, ...]``.

    Candidates are every sub-multiset of the throw (``dice_space(n).subkeeps``) times
    ``m = 0..max_pseudo_ones`` pairs of 5s turned into ``1*``; a candidate is usable when all its
    real dice score, the 5s suffice (``real 5s + 2 m <= 5s thrown``) and it is not empty.
    """
    space = dice_space(n)
    pts, ok = score_keeps(rules, space.keeps)
    subs = space.subkeeps
    padding = (np.arange(subs.shape[1]) > 0)[None, :] & (subs == subs[:, :1])
    real = space.keeps[subs]
    size = space.keep_size[subs]
    fives = space.throws[:, 4][:, None]
    parts = []
    for m in range(rules.max_pseudo_ones + 1):
        fits = ok[subs] & ~padding & (real[..., 4] + 2 * m <= fives) & (size + m > 0)
        parts.append((fits, real, np.full_like(size, m), pts[subs] + 100 * m, size + m))
    valid, real, pseudo, points, dice = (np.concatenate(a, axis=1) for a in zip(*parts))
    return _compact(valid, real, pseudo, points, dice)


def _distinct_options(valid: np.ndarray, points: np.ndarray, dice: np.ndarray):
    """Per row, the distinct ``(points, dice)`` pairs of the valid entries, compacted."""
    code = np.where(valid, (points // STEP) * (DICE + 1) + dice, np.iinfo(np.int64).max)
    code = np.sort(code, axis=1)
    keep = code != np.iinfo(np.int64).max
    keep[:, 1:] &= code[:, 1:] != code[:, :-1]
    keep, code = _compact(keep, code)
    code = np.where(keep, code, 0)
    return keep, STEP * (code // (DICE + 1)), code % (DICE + 1)


@dataclass(frozen=True, eq=False)
class Tables:
    """``W`` and ``V(w)`` for every throw of 1..6 dice, as arrays shared by solver and advisor.

    Attributes (``R`` = 923 throws of 1..6 dice in order of ``n``; ``V`` usable subsets and
    ``U`` distinct ``(W(u), |u|)`` options per throw, both padded):
        rules:        the rule set.
        row_n:        ``[R]`` dice in the throw.
        row_counts:   ``[R, 6]`` the throw, by face.
        row_weight:   ``[R]`` ordered outcomes giving the throw (probability = weight / 6**n).
        row_prob:     ``[R]`` probability of the throw.
        write:        ``[R]`` ``W(w)``; 0 marks a bust.
        v_valid, v_real, v_pseudo, v_points, v_dice: ``[R, V]`` (``v_real``: ``[R, V, 6]``)
            every usable subset ``u``: its real dice, its ``1*`` count, ``W(u)`` and ``|u|``.
        opt_valid, opt_points, opt_dice: ``[R, U]`` the distinct ``(W(u), |u|)`` (what the
            solver needs: the continuation only depends on ``p + W(u)`` and ``n - |u|``).
    """

    rules: ZehntausendRules
    row_n: np.ndarray
    row_counts: np.ndarray
    row_weight: np.ndarray
    row_prob: np.ndarray
    write: np.ndarray
    v_valid: np.ndarray
    v_real: np.ndarray
    v_pseudo: np.ndarray
    v_points: np.ndarray
    v_dice: np.ndarray
    opt_valid: np.ndarray
    opt_points: np.ndarray
    opt_dice: np.ndarray

    def rows(self, n: int) -> np.ndarray:
        return np.flatnonzero(self.row_n == n)

    @functools.cached_property
    def _row_of_code(self) -> dict[int, int]:
        return {int(c): r for r, c in enumerate(_code(self.row_counts))}

    def row_index(self, throw_counts) -> int:
        counts = np.asarray(throw_counts)
        fits = counts.shape == (SIDES,) and counts.min() >= 0 and 1 <= counts.sum() <= DICE
        row = self._row_of_code.get(int(_code(counts))) if fits else None
        if row is None:
            raise JaxsolveError(f"not a throw of 1..6 dice: {counts.tolist()}")
        return row

    def set_asides(self, throw_counts) -> SetAside:
        """``V(w)`` of one throw, from the table."""
        r = self.row_index(throw_counts)
        v = self.v_valid[r]
        return SetAside(self.v_real[r][v], self.v_pseudo[r][v], self.v_points[r][v], self.v_dice[r][v])

    def delta(self, n: int) -> Fraction:
        """``Delta_n``: exact expected ``W`` of one throw of ``n`` dice (a bust counts 0)."""
        r = self.rows(n)
        return Fraction(int((self.row_weight[r] * self.write[r]).sum()), SIDES**n)

    def bust_probability(self, n: int) -> Fraction:
        """``P0_n``: exact probability that ``n`` dice score nothing."""
        r = self.rows(n)
        return Fraction(int(self.row_weight[r][self.write[r] == 0].sum()), SIDES**n)

    def stop_point(self, n: int) -> Fraction:
        """``Delta_n / P0_n``: where ``(1 - P0_n) p + Delta_n = p`` (stopping after one throw)."""
        return self.delta(n) / self.bust_probability(n)

    @property
    def top(self) -> Fraction:
        """Above this (``max_n Delta_n / P0_n``) stopping after the next throw is optimal."""
        return max(self.stop_point(n) for n in range(1, DICE + 1))


def _pad(a: np.ndarray, width: int) -> np.ndarray:
    return np.pad(a, [(0, 0), (0, width - a.shape[1])] + [(0, 0)] * (a.ndim - 2))


@functools.lru_cache(maxsize=None)
def build_tables(rules: ZehntausendRules) -> Tables:
    """Build ``W`` and ``V(w)`` for all throws of 1..6 dice (vectorised per number of dice)."""
    fact = np.array([math.factorial(k) for k in range(DICE + 1)], dtype=np.int64)
    per_n = [_set_asides(rules, n) for n in range(1, DICE + 1)]
    width = max(part[0].shape[1] for part in per_n)
    v_valid, v_real, v_pseudo, v_points, v_dice = (np.concatenate([_pad(part[i], width) for part in per_n]) for i in range(5))
    row_counts = np.concatenate([dice_space(n).throws for n in range(1, DICE + 1)])
    row_n = row_counts.sum(axis=1)
    row_weight = fact[row_n] // fact[row_counts].prod(axis=1)
    write = np.where(v_valid, v_points, 0).max(axis=1)
    opt_valid, opt_points, opt_dice = _distinct_options(v_valid, v_points, v_dice)
    return Tables(
        rules=rules,
        row_n=row_n,
        row_counts=row_counts,
        row_weight=row_weight,
        row_prob=row_weight / float(SIDES) ** row_n,
        write=write,
        v_valid=v_valid,
        v_real=v_real,
        v_pseudo=v_pseudo,
        v_points=v_points,
        v_dice=v_dice,
        opt_valid=opt_valid,
        opt_points=opt_points,
        opt_dice=opt_dice,
    )


def usable_subsets(rules: ZehntausendRules, throw_counts) -> SetAside:
    """``V(w)``: every usable, non-empty set-aside of a throw given as counts ``[6]``."""
    return build_tables(rules).set_asides(throw_counts)


def write_points(rules: ZehntausendRules, throw_counts) -> int:
    """``W(w)``: the most points the throw can be written for (0 = bust)."""
    tables = build_tables(rules)
    return int(tables.write[tables.row_index(throw_counts)])


# ----------------------------------------------------------------------------- solver


@functools.partial(jax.jit, static_argnames=("levels", "height"))
def _solve_levels(row_prob, row_n, write, gather, valid, closed_slope, closed_offset, *, levels: int, height: int):
    """``E[level, n]`` for ``level < height``: closed form from ``levels`` up, scan below.

    Args:
        row_prob, row_n, write: ``[R]`` per throw.
        gather: ``[R, U]`` index into the flattened window ``E[level + 1 : level + D + 1, :]``.
        valid:  ``[R, U]``.
        closed_slope, closed_offset: ``[7]`` ``E(p, n) = slope * p + offset`` above the top.
    """
    dtype = closed_slope.dtype
    p_all = STEP * jnp.arange(height, dtype=dtype)
    table = p_all[:, None] * closed_slope[None, :] + closed_offset[None, :]
    span = (height - levels) * (DICE + 1)
    by_n = jax.nn.one_hot(row_n - 1, DICE, dtype=dtype).T * row_prob[None, :]
    write = write.astype(dtype)
    neg = jnp.asarray(-jnp.inf, dtype)

    def level_step(table, level):
        p = STEP * level.astype(dtype)
        window = jax.lax.dynamic_slice(table, (level + 1, 0), (height - levels, DICE + 1)).reshape(span)
        go_on = jnp.max(jnp.where(valid, window[gather], neg), axis=1)
        turn = jnp.where(write > 0, jnp.maximum(p + write, go_on), 0.0)
        e = by_n @ turn
        row = jnp.concatenate([jnp.maximum(p, e[DICE - 1 :]), e])
        return jax.lax.dynamic_update_slice(table, row[None, :], (level, 0)), None

    table, _ = jax.lax.scan(level_step, table, jnp.arange(levels - 1, -1, -1))
    return table


@dataclass(frozen=True, eq=False)
class Solution:
    """``E(p, n)`` on the grid ``p = 50 * level``, ``level < E.shape[0]``, ``n = 0..6``.

    Attributes:
        rules: the rule set.
        E: ``[levels, 7]`` optimal expected final turn score.
        top_level: first level solved in closed form (``50 * top_level >= max_n Delta_n/P0_n``).
        tables: the ``W``/``V`` tables used.
        compile_seconds, solve_seconds: timings of the jitted solve; device: where it ran.
    """

    rules: ZehntausendRules
    E: np.ndarray
    top_level: int
    tables: Tables
    compile_seconds: float = 0.0
    solve_seconds: float = 0.0
    device: str = ""

    @property
    def points(self) -> np.ndarray:
        return STEP * np.arange(self.E.shape[0])

    def value(self, p: int, n: int) -> float:
        """``E(p, n)`` for any multiple of 50 (closed form above the grid)."""
        check_points(p)
        if not 0 <= n <= DICE:
            raise JaxsolveError(f"number of dice must be 0..{DICE}, got {n}")
        level = p // STEP
        if level < self.E.shape[0]:
            return float(self.E[level, n])
        if n == 0:
            return float(p)
        return float((1 - self.tables.bust_probability(n)) * p + self.tables.delta(n))

    def thresholds(self) -> dict[int, int]:
        """``p_n``: the first multiple of 50 with ``E(p, n) <= p`` (go on only below it)."""
        gain = self.E[:, 1:] - self.points[:, None]
        return {n: int(self.points[np.argmax(gain[:, n - 1] <= 0)]) for n in range(1, DICE + 1)}

    @property
    def p6(self) -> int:
        return self.thresholds()[DICE]

    @property
    def game_value(self) -> float:
        """The registry's headline value: ``E(0, 6)``."""
        return self.turn_value

    @property
    def turn_value(self) -> float:
        """``E(0, 6)``: the expected points of a turn played optimally."""
        return float(self.E[0, DICE])


def check_points(p) -> int:
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 0 or p % STEP:
        raise JaxsolveError(f"points must be a non-negative multiple of {STEP}, got {p}")
    return int(p)


def kernel_inputs(tables: Tables, top_level: int, height: int, dtype) -> tuple[tuple, dict]:
    """Arguments of the jitted level scan for these tables and grid."""
    offset = tables.opt_points // STEP
    if (offset[tables.opt_valid] < 1).any():
        raise JaxsolveError("every set-aside must score at least 50")
    reach = int(offset.max())
    if height < top_level + reach + 1:
        raise JaxsolveError(f"grid of {height} levels is too short for top level {top_level}")
    next_n = tables.row_n[:, None] - tables.opt_dice
    gather = np.where(tables.opt_valid, (offset - 1) * (DICE + 1) + next_n, 0)
    slope = [1.0] + [float(1 - tables.bust_probability(n)) for n in range(1, DICE + 1)]
    offs = [0.0] + [float(tables.delta(n)) for n in range(1, DICE + 1)]
    args = (
        jnp.asarray(tables.row_prob, dtype),
        jnp.asarray(tables.row_n, jnp.int32),
        jnp.asarray(tables.write, jnp.int32),
        jnp.asarray(gather, jnp.int32),
        jnp.asarray(tables.opt_valid),
        jnp.asarray(slope, dtype),
        jnp.asarray(offs, dtype),
    )
    return args, {"levels": top_level, "height": height}


def _compiled_scan(args: tuple, static: dict):
    """The compiled level scan for these shapes, dtypes, grid and device (the shared compile cache)."""

    def run(*arrays):
        return _solve_levels(*arrays, **static)

    return compiled(("zehntausend-levels", tuple(sorted(static.items()))), run, *(abstract(a) for a in args))


def solve(
    rules: ZehntausendRules | None = None,
    *,
    top_level: int | None = None,
    extra_levels: int = 0,
    device: jax.Device | None = None,
    dtype=None,
) -> Solution:
    """Solve ``E(p, n)`` for all multiples of 50 and ``n = 0..6``.

    Args:
        rules: the rule set (default: ``peter-2013``).
        top_level: first grid level taken in closed form; default (and the only correct
            choice from below) ``ceil(max_n Delta_n / P0_n / 50)``. A higher one checks
            self-consistency, a lower one gives a (wrong) truncated game.
        extra_levels: closed-form levels kept beyond the reach of the highest scan step.
        device: where to compute (default: JAX's default device).
        dtype: float dtype (default float64 if x64 is on, else float32).
    """
    rules = rules or PRESETS["peter-2013"]
    tables = build_tables(rules)
    if top_level is None:
        top_level = math.ceil(tables.top / STEP)
    reach = int(tables.opt_points.max()) // STEP
    height = top_level + reach + 1 + extra_levels
    if dtype is None:
        dtype = jnp.float64 if jax.config.jax_enable_x64 else jnp.float32
    device = device or jax.devices()[0]
    args, static = kernel_inputs(tables, top_level, height, dtype)
    args = jax.device_put(args, device)
    exe, compile_seconds = _compiled_scan(args, static)
    t0 = time.perf_counter()
    E = exe(*args).block_until_ready()
    return Solution(rules, np.asarray(E), top_level, tables, compile_seconds, time.perf_counter() - t0, str(device))


# ----------------------------------------------------------------------------- advisor


@dataclass(frozen=True)
class Choice:
    """One legal choice after a throw: write, or set aside ``set_aside`` and throw ``dice``."""

    action: Literal["write", "throw", "bust"]
    set_aside: tuple[str, ...]
    points: int
    dice: int
    value: float

    def describe(self) -> str:
        if self.action == "bust":
            return "bust: no scoring dice, the turn ends with 0 points"
        if self.action == "write":
            return f"write {self.points}"
        keep = " ".join(self.set_aside)
        again = " (all six used: throw six again)" if self.dice == DICE and len(self.set_aside) else ""
        return f"set aside {keep}, throw {self.dice} with {self.points}{again}"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def parse_throw(faces) -> np.ndarray:
    """Count vector of 1..6 dice given by their faces; ``JaxsolveError`` on impossible dice."""
    faces = list(faces)
    if not 1 <= len(faces) <= DICE:
        raise JaxsolveError(f"a throw has 1 to {DICE} dice, got {len(faces)}")
    bad = [f for f in faces if isinstance(f, bool) or not isinstance(f, (int, np.integer)) or not 1 <= f <= SIDES]
    if bad:
        raise JaxsolveError(f"dice show faces 1 to {SIDES}, got {bad[0]}")
    return np.bincount(np.asarray(faces) - 1, minlength=SIDES)


def advise(solution: Solution, points: int, faces) -> list[Choice]:
    """Every legal choice for ``points`` in hand and the throw ``faces``, best first.

    Writing is worth ``points + W(w)``; setting aside ``u`` is worth
    ``E(points + W(u), n - |u|)``, where ``n - |u| = 0`` means throwing six again.
    Ties keep writing first, then more points, then fewer dice thrown.
    """
    points = check_points(points)
    counts = parse_throw(faces)
    v = usable_subsets(solution.rules, counts)
    if not len(v.points):
        return [Choice("bust", (), 0, 0, 0.0)]
    n = int(counts.sum())
    choices = [Choice("write", (), points + int(v.points.max()), 0, float(points + v.points.max()))]
    for i in range(len(v.points)):
        after, left = points + int(v.points[i]), n - int(v.dice[i])
        dice = left or DICE
        choices.append(Choice("throw", tuple(v.faces(i)), after, dice, solution.value(after, dice)))
    order = sorted(range(len(choices)), key=lambda i: (-choices[i].value, i > 0, -choices[i].points, choices[i].dice, i))
    return [choices[i] for i in order]


def e_metadata(solution: Solution) -> dict:
    """Metadata for the ``.npy`` export of ``E``."""
    t = solution.tables
    return {
        "game": "zehntausend",
        "rules": solution.rules.to_dict(),
        "value_meaning": "E(p, n): optimal expected final turn score holding p turn points, having decided to throw n dice",
        "axes": [
            {"name": "p", "size": int(solution.E.shape[0]), "meaning": f"turn points p = {STEP} * index"},
            {"name": "n", "size": DICE + 1, "meaning": "dice to throw; 0 = all six used (throw six again or write p)"},
        ],
        "turn_value": solution.turn_value,
        "thresholds": {str(k): v for k, v in solution.thresholds().items()},
        "top_level": solution.top_level,
        "closed_form_from": STEP * solution.top_level,
        "delta": {str(n): str(t.delta(n)) for n in range(1, DICE + 1)},
        "bust_probability": {str(n): str(t.bust_probability(n)) for n in range(1, DICE + 1)},
        "p6_exact": str(t.stop_point(DICE)),
        "dtype": str(solution.E.dtype),
        "device": solution.device,
        "solve_seconds": round(solution.solve_seconds, 5),
        "compile_seconds": round(solution.compile_seconds, 4),
    }


def save_solution(path, solution: Solution):
    """Export ``E`` as ``.npy`` with a JSON sidecar (rules, axes, thresholds, provenance)."""
    from jaxsolve.io import export

    return export.save(path, solution.E, e_metadata(solution))


def load_solution(path) -> Solution:
    """Read an ``E`` export back as a ``Solution`` (for the advisor without re-solving).

    Checks (``jaxsolve.export``): the sidecar and the array agree (size, SHA-256, shape,
    dtype), valid rules, a ``top_level`` at or above the self-consistent bound of those rules,
    a float ``[levels, 7]`` array covering every level a set-aside from below the bound can
    reach, finite everywhere, ``E(p, 0) >= p``, and the closed form above the bound.
    """
    from jaxsolve.io import export

    E, meta = export.load(path, game="zehntausend")
    rules = export.rules_from(path, meta, ZehntausendRules)
    side = export.sidecar_path(path)
    top_level = meta.get("top_level")
    if not isinstance(top_level, int) or isinstance(top_level, bool) or top_level < 0:
        raise JaxsolveError(f"{side} has no valid top_level (the first level solved in closed form)")
    tables = build_tables(rules)
    bound = math.ceil(tables.top / STEP)
    if top_level < bound:
        raise JaxsolveError(f"{side}: top_level {top_level} is below the self-consistent bound {bound} of rules {rules.name}")
    if not 1 <= top_level <= 1_000_000:
        raise JaxsolveError(f"{side}: top_level {top_level} is out of range")
    levels = E.shape[0] if E.ndim == 2 else -1
    need = top_level + int(tables.opt_points.max()) // STEP + 1
    export.check_array(path, E, shape=(max(levels, need), DICE + 1), dtypes=("float32", "float64"), low=0.0, what=f"rules {rules.name}")
    p = STEP * np.arange(levels, dtype=np.float64)
    tol = 1e-9 if E.dtype == np.float64 else 1e-4
    if (E[:, 0] < p * (1 - tol) - tol).any():
        raise JaxsolveError(f"{path}: E(p, 0) < p somewhere; not a solution")
    closed = np.stack([(1 - float(tables.bust_probability(n))) * p[top_level:] + float(tables.delta(n)) for n in range(1, DICE + 1)], axis=1)
    if not np.allclose(E[top_level:, 1:], closed, rtol=tol, atol=tol * 10):
        raise JaxsolveError(f"{path}: values above the bound differ from the closed form of rules {rules.name}; not a solution of these rules")
    seconds = [meta.get(k, 0.0) for k in ("compile_seconds", "solve_seconds")]
    seconds = [float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else 0.0 for x in seconds]
    device = meta.get("device", "")
    return Solution(rules, E, top_level, tables, seconds[0], seconds[1], device if isinstance(device, str) else "")


# ----------------------------------------------------------------------------- figure


def check_png_path(path):
    """Fail early, with a clear message, when ``path`` cannot be written as a PNG."""
    from jaxsolve.io.export import check_writable

    return check_writable(path, ".png")


def plot_gain(solution: Solution, path, p_max: int | None = None, y_min: float = -300.0):
    """Figure 1 of Peter (2013): ``Delta E(p, n) = E(p, n) - p`` for n = 1..6 on a log p axis.

    The dashed line is the n = 6 asymptote ``(1 - P0_6) p + Delta_6 - p``; dots mark ``p_n``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = check_png_path(path)
    p_max = p_max or int(solution.p6 * 1.3)
    levels = np.arange(1, p_max // STEP + 1)
    p = STEP * levels
    gain = np.array([[solution.value(int(q), n) - q for n in range(1, DICE + 1)] for q in p])
    t = solution.tables
    asym = float(t.delta(DICE)) - float(t.bust_probability(DICE)) * p
    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=130)
    colors = plt.get_cmap("viridis")(np.linspace(0.0, 0.9, DICE))
    for n in range(1, DICE + 1):
        ax.plot(p, gain[:, n - 1], color=colors[n - 1], lw=1.6, label=f"n = {n}")
    ax.plot(p, asym, "k--", lw=1.0, label=r"n = 6 asymptote $\Delta_6 - \mathcal{P}^0_6\,p$")
    for n, pn in solution.thresholds().items():
        ax.plot([pn], [0.0], "o", color=colors[n - 1], ms=4)
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlim(p[0], p[-1])
    ax.set_ylim(y_min, 1.05 * float(gain.max()))
    ax.set_xlabel("points already set aside this turn, p")
    ax.set_ylabel(r"$\Delta E(p, n) = E(p, n) - p$")
    ax.set_title(f"Zehntausend ({solution.rules.name}): expected gain of throwing n dice;  E(0, 6) = {solution.turn_value:.4f}")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(True, which="both", alpha=0.25)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
