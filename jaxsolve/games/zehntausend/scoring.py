"""Zehntausend's turn scoring: ``W(w)`` and the usable set-asides ``V(w)`` of every throw.

ScoringTables (numpy, built once per rule set from the multisets of 1..6 dice):
    rows: every throw of 1..6 dice (``R = 923`` multisets), with its probability and ``W(w)``;
    options: the distinct ``(W(u), |u|)`` of its usable subsets ``V(w)``, padded to ``U``.

Shared by the solver (``solver``), the advisor (``advisor``) and the export check (``table_io``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.rules import DICE, SIDES, STEP, ZehntausendRules


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

    def take(a: np.ndarray) -> np.ndarray:
        return np.take_along_axis(a, order[:, :width].reshape(order.shape[:1] + (width,) + (1,) * (a.ndim - 2)), axis=1)

    return (take(valid),) + tuple(take(a) for a in arrays)


@functools.lru_cache(maxsize=None)
def _count_vectors(most: int) -> np.ndarray:
    """``[K, 6]``: every count vector of 0..``most`` dice, lexicographically ascending (the
    empty one first)."""
    grid = np.indices((most + 1,) * SIDES).reshape(SIDES, -1).T
    return grid[grid.sum(axis=1) <= most]


@functools.lru_cache(maxsize=None)
def _sub_multisets(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``keeps [K, 6]`` (every multiset of at most ``n`` dice), ``throws [T, 6]`` (every throw
    of ``n`` dice, lexicographically descending, the order of ``jaxsolve.core.dice``) and
    ``subs [T, S]``: the indices into ``keeps`` of every sub-multiset of each throw, in
    ascending order (the empty one first; short rows repeat it). The same sets, in the same
    order, as ``dice_space(n).subkeeps``, enumerated as arrays: the dice space's transition
    tables, which the scoring does not need, take a tenth of a second to build."""
    keeps = _count_vectors(n)
    throws = keeps[keeps.sum(axis=1) == n][::-1]
    inside = (keeps[None, :, :] <= throws[:, None, :]).all(axis=2)  # [T, K]
    order = np.argsort(~inside, axis=1, kind="stable")
    width = int(inside.sum(axis=1).max())
    subs = np.where(np.take_along_axis(inside, order[:, :width], axis=1), order[:, :width], order[:, :1])
    return keeps, throws, subs


def _set_asides(rules: ZehntausendRules, n: int):
    """``V(w)`` for every throw of ``n`` dice at once, as padded arrays ``[T, V, ...]``.

    Candidates are every sub-multiset of the throw (``_sub_multisets``) times ``m =
    0..max_pseudo_ones`` pairs of 5s turned into ``1*``; a candidate is usable when all its real
    dice score, the 5s suffice (``real 5s + 2 m <= 5s thrown``) and it is not empty.
    """
    keeps, throws, subs = _sub_multisets(n)
    pts, ok = score_keeps(rules, keeps)
    padding = (np.arange(subs.shape[1]) > 0)[None, :] & (subs == subs[:, :1])
    real = keeps[subs]
    size = keeps.sum(axis=1)[subs]
    fives = throws[:, 4][:, None]
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
class ScoringTables:
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

    def row_lookup(self) -> np.ndarray:
        """``[7 ** 6]`` int32: each throw's row by the base-7 code of its face counts (-1: no
        throw of 1..6 dice), for simulations that throw real dice."""
        row_of = np.full(7**SIDES, -1, np.int32)
        row_of[_code(self.row_counts)] = np.arange(len(self.row_counts))
        return row_of

    def dice_left(self) -> np.ndarray:
        """``[R, U]``: the dice thrown next after each set-aside option (all six again where it
        uses every die of the throw)."""
        n = self.row_n[:, None]
        return np.where(self.opt_dice >= n, DICE, n - self.opt_dice)

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
def build_tables(rules: ZehntausendRules) -> ScoringTables:
    """Build ``W`` and ``V(w)`` for all throws of 1..6 dice (vectorised per number of dice)."""
    fact = np.array([math.factorial(k) for k in range(DICE + 1)], dtype=np.int64)
    per_n = [_set_asides(rules, n) for n in range(1, DICE + 1)]
    width = max(part[0].shape[1] for part in per_n)
    v_valid, v_real, v_pseudo, v_points, v_dice = (np.concatenate([_pad(part[i], width) for part in per_n]) for i in range(5))
    row_counts = np.concatenate([_sub_multisets(n)[1] for n in range(1, DICE + 1)])
    row_n = row_counts.sum(axis=1)
    row_weight = fact[row_n] // fact[row_counts].prod(axis=1)
    write = np.where(v_valid, v_points, 0).max(axis=1)
    opt_valid, opt_points, opt_dice = _distinct_options(v_valid, v_points, v_dice)
    row_prob = row_weight / float(SIDES) ** row_n
    subsets = (v_valid, v_real, v_pseudo, v_points, v_dice)
    return ScoringTables(rules, row_n, row_counts, row_weight, row_prob, write, *subsets, opt_valid, opt_points, opt_dice)


def usable_subsets(rules: ZehntausendRules, throw_counts) -> SetAside:
    """``V(w)``: every usable, non-empty set-aside of a throw given as counts ``[6]``."""
    return build_tables(rules).set_asides(throw_counts)


def write_points(rules: ZehntausendRules, throw_counts) -> int:
    """``W(w)``: the most points the throw can be written for (0 = bust)."""
    tables = build_tables(rules)
    return int(tables.write[tables.row_index(throw_counts)])


def parse_throw(faces) -> np.ndarray:
    """Count vector of 1..6 dice given by their faces; ``JaxsolveError`` on impossible dice."""
    faces = list(faces)
    if not 1 <= len(faces) <= DICE:
        raise JaxsolveError(f"a throw has 1 to {DICE} dice, got {len(faces)}")
    bad = [f for f in faces if isinstance(f, bool) or not isinstance(f, (int, np.integer)) or not 1 <= f <= SIDES]
    if bad:
        raise JaxsolveError(f"dice show faces 1 to {SIDES}, got {bad[0]}")
    return np.bincount(np.asarray(faces) - 1, minlength=SIDES)


@functools.lru_cache(maxsize=None)
def _reachable_levels(rules: ZehntausendRules) -> np.ndarray:
    """``[L, 7]``: whether turn points ``50 * level`` with ``n`` dice about to be thrown occur
    in a turn (``L`` levels; every pair above them occurs, see ``check_reachable``).

    A turn starts at ``(0, 6)``; from ``(p, n)`` a set-aside of ``(W(u), |u|)`` from some throw
    of ``n`` dice leads to ``(p + W(u), n - |u|)``, and to ``(p + W(u), 6)`` when it uses the
    last dice (all six used: six again).
    """
    tables = build_tables(rules)
    steps = []
    for n in range(1, DICE + 1):
        rows = tables.rows(n)
        valid = tables.opt_valid[rows]
        pairs = {(int(pt) // STEP, int(d)) for pt, d in zip(tables.opt_points[rows][valid], tables.opt_dice[rows][valid])}
        steps.append(sorted(pairs))
    levels = _REACH_LEVELS
    seen = np.zeros((levels, DICE + 1), dtype=bool)
    seen[0, DICE] = True
    for level in range(levels):  # every set-aside adds points, so one pass upwards settles each level
        for n in range(1, DICE + 1):
            if seen[level, n]:
                for gain, used in steps[n - 1]:
                    if level + gain < levels:
                        seen[level + gain, n - used or DICE] = True
    return seen


_REACH_LEVELS = 400  # 20,000 points: well past the last unreachable pair of every rule set


def check_reachable(rules: ZehntausendRules, points: int, dice: int, what: str = "turn points") -> None:
    """Refuse turn points and a number of dice thrown that no turn brings together.

    Six dice thrown means nothing is set aside in this round: the turn points are 0, or what
    rounds that used all six dice scored. Fewer dice mean that the others were set aside this
    round, each scoring at least 50. ``JaxsolveError`` names the pair (``what``: the points'
    name in the message).
    """
    seen = _reachable_levels(rules)
    level = points // STEP
    top = seen.shape[0] - 1
    # Above the table every pair occurs: five 5s and a 1 (350) and six 5s (300) make up every
    # total from 1,500 on, and a round's set-asides can be single 5s.
    if level <= top and not seen[level, dice]:
        if dice == DICE:
            why = "six dice thrown means nothing is set aside this round, so the turn points are 0 or what rounds using all six dice scored"
        elif points == 0:
            why = f"{DICE - dice} dice were set aside, so the turn points are at least {STEP * (DICE - dice)}"
        else:
            why = f"{DICE - dice} dice set aside this round never score exactly that on top of what full rounds scored"
        raise JaxsolveError(f"{what} {points} with {dice} {'die' if dice == 1 else 'dice'} thrown cannot occur: {why}")
