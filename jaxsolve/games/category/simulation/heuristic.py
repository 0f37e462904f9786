"""The rating heuristic of the Kniffel program JaFuffy ("Berechnung der Bewertungen").

Every open box is looked at alone. Each box has a fixed *keep rule* (which dice to keep for
that box, given the throw and the re-throws left); under that rule the box's expected points
from the throw showing are exact Markov-chain expectations over the 252 throws (a fixed keep
rule is a ``[T] -> keep`` map, one re-throw is a row of ``dice.dense``). A box's *gain* is that
expectation minus its expectation at the start of a turn; the upper boxes add the upper bonus
times an estimate of reaching it, from the source's matrices A, M, S, U, V (to both values:
the start value's bonus term has two readings, ``READINGS``; with no free upper box left the
bonus counts only when already reached). Gains are rated linearly (smallest 0, largest 1,
all equal: all 1). The best rating (ties: the box higher in the table) decides the keep (that
box's rule) and, after the last throw, the box to fill. Weaker bots (``STRENGTHS``) add a
seeded Gaussian error to every gain (``forecast_noise``).

Keep rules (``keep_rules``), with ``m(r)`` the mean of a fresh die with ``r`` throws under the
chance rule (3.5, 4.25, 4.67, ...):

* aces..sixes: keep every die of that face.
* three/four of a kind: keep the most frequent face (ties: the higher face; all different:
  re-throw all); once met, keep the 3 (4) of a kind and treat the other dice as for chance.
* full house: met: keep all; else a triple (3 dice of a 3/4/5-of-a-kind), else two pairs,
  else a pair, else re-throw all.
* small straight: two inner faces (2 and 5) -> keep them; one inner face and neither {1,2}
  nor {5,6} showing -> keep it; else the present faces of {1,2} or {5,6}, the set with more
  of them (equal: at random); the middle faces 3 and 4 are always kept. One die per face.
* large straight: one die each of 2..5 showing, plus a 1 or a 6 (both showing: at random).
* Kniffel: the most frequent face (all different: re-throw all; two pairs: at random).
* chance: keep a die when its face is above ``m(r)``.

Random choices are two alternative keeps, each taken with probability 1/2: the expectations
average both exactly, and a simulation flips a coin per game.

"Im-Hieb" rules: a box's start expectation gains P(it scores with the first throw) times its
instant bonus (the source's rule); after the first throw, a box that scores now is worth the
larger of filling now (points + instant bonus) and its keep rule's expectation, and the game
fills at once when filling now is what makes the best-rated box's value.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any
from fractions import Fraction
from itertools import product

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.sheet import BOX_NAMES, KNIFFEL_BOX, NUM_BOXES
from jaxsolve.games.category.sheets.sheet import KNIFFEL_SHEET
from jaxsolve.core.arrays import float_dtype

DICE = 5
FACES = np.arange(1, 7)
MAX_LENGTH = 5 * 6

READINGS = ("fresh-turn", "chain")
"""The two readings of the start value's upper-bonus term (the source: 35 x the estimate of
reaching the bonus, "for both values" of an upper box's gain).

* ``fresh-turn`` (default): the current value's estimator averaged over a fresh turn of the
  box's own keep rule, as the start value's points are: sum over the final count k of the
  face (binomial) of P(k) x P(the remaining free boxes reach need - face x k).
* ``chain``: the chain estimate ``V[f, L]`` with the box itself among the f free boxes, as if
  every coming turn chased the best free face.
"""
DEFAULT_READING = "fresh-turn"

STRENGTHS = {"strongest": 0.0, "strong": 1.0, "medium": 3.0, "weak": 6.0}
"""Bot strengths: the SD (points) of the Gaussian error added to every forecast (gain)."""
DEFAULT_STRENGTH = "strongest"


# ----------------------------------------------------------------------------- keep rules


def chance_threshold(throws: int) -> float:
    """Mean points of one die with ``throws`` throws left under the chance rule (3.5, 4.25, ...)."""
    m = 3.5
    for _ in range(throws - 1):
        m = float(np.mean(np.maximum(FACES, m)))
    return m


def _chance_keep(c: np.ndarray, r: int) -> np.ndarray:
    return np.where(FACES > chance_threshold(r), c, 0)


def _most_frequent(c: np.ndarray) -> list[int]:
    """Faces (0-based) showing most often, highest first; empty when all dice differ."""
    top = c.max()
    if top <= 1:
        return []
    return [f for f in range(5, -1, -1) if c[f] == top]


def _of_a_kind_keep(c: np.ndarray, r: int, n: int) -> np.ndarray:
    faces = _most_frequent(c)
    keep = np.zeros(6, dtype=np.int64)
    if not faces:
        return keep
    a = faces[0]
    if c[a] >= n:
        rest = c.copy()
        rest[a] -= n
        keep = _chance_keep(rest, r)
        keep[a] += n
        return keep
    keep[a] = c[a]
    return keep


def _full_house_keep(c: np.ndarray) -> np.ndarray:
    s = np.sort(c)
    if s[-1] == 3 and s[-2] == 2:
        return c.copy()
    keep = np.zeros(6, dtype=np.int64)
    if s[-1] >= 3:
        keep[np.argmax(c)] = 3
        return keep
    return np.where(c == 2, 2, 0)


def _small_straight_keeps(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = c > 0
    keep = np.zeros(6, dtype=np.int64)
    keep[2:4] = p[2:4]
    inner = int(p[1]) + int(p[4])
    low_pair, high_pair = p[0] and p[1], p[4] and p[5]
    if inner == 2:
        keep[[1, 4]] = 1
        return keep, keep
    if inner == 1 and not low_pair and not high_pair:
        keep[1 if p[1] else 4] = 1
        return keep, keep
    low, high = keep.copy(), keep.copy()
    low[0:2] = p[0:2]
    high[4:6] = p[4:6]
    n_low, n_high = int(p[0]) + int(p[1]), int(p[4]) + int(p[5])
    if n_low > n_high:
        return low, low
    if n_high > n_low:
        return high, high
    return low, high


def _large_straight_keeps(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = np.zeros(6, dtype=np.int64)
    keep[1:5] = c[1:5] > 0
    one, six = keep.copy(), keep.copy()
    one[0] = c[0] > 0
    six[5] = c[5] > 0
    if c[0] and c[5]:
        six[0] = 0
        return one, six
    one[5] = six[5]
    return one, one


def _kniffel_keeps(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    faces = _most_frequent(c)
    keeps = []
    for a in (faces + faces)[:2] if faces else []:
        k = np.zeros(6, dtype=np.int64)
        k[a] = c[a]
        keeps.append(k)
    if not keeps:
        z = np.zeros(6, dtype=np.int64)
        return z, z
    return keeps[0], keeps[1]


def keep_rule(box: int, counts, rethrows: int) -> tuple[np.ndarray, np.ndarray]:
    """The two alternative keeps (count vectors; equal unless the rule is random) of a box.

    ``counts`` is the throw as 6 face counts, ``rethrows`` >= 1 the re-throws left.
    """
    c = np.asarray(counts, dtype=np.int64)
    if box == 9:
        return _small_straight_keeps(c)
    if box == 10:
        return _large_straight_keeps(c)
    if box == KNIFFEL_BOX:
        return _kniffel_keeps(c)
    if box < 6:
        k = np.where(np.arange(6) == box, c, 0)
    elif box in (6, 7):
        k = _of_a_kind_keep(c, rethrows, 3 if box == 6 else 4)
    else:
        k = _full_house_keep(c) if box == 8 else _chance_keep(c, rethrows)
    return k, k


@functools.lru_cache(maxsize=None)
def keep_tables(throws: int) -> np.ndarray:
    """``[2, 13, throws, T]`` keep index of each box's rule (alternatives a/b) per re-throws left.

    Row ``r = 0`` (no re-throw left) keeps the whole throw.
    """
    sp = tables.space(DICE)
    out = np.zeros((2, NUM_BOXES, throws, sp.num_throws), dtype=np.int32)
    out[:, :, 0, :] = np.arange(sp.num_throws) + sp.throw_offset
    for b in range(NUM_BOXES):
        for r in range(1, throws):
            for t, c in enumerate(sp.throws):
                ka, kb = keep_rule(b, c, r)
                out[0, b, r, t] = sp.keep_index(ka)
                out[1, b, r, t] = sp.keep_index(kb)
    return out


def rule_chain(terminal: np.ndarray, box: int, throws: int) -> np.ndarray:
    """``[throws, T, ...]`` expectation of ``terminal[T, ...]`` under one box's keep rule.

    Level ``r`` is the expectation from a throw with ``r`` re-throws left (exact, float64).
    """
    sp = tables.space(DICE)
    keeps = keep_tables(throws)
    dense = sp.dense
    out = [np.asarray(terminal, dtype=np.float64)]
    for r in range(1, throws):
        step = 0.5 * (dense[keeps[0, box, r]] + dense[keeps[1, box, r]])
        out.append(np.tensordot(step, out[-1], axes=1))
    return np.stack(out)


# ----------------------------------------------------------------------------- bonus matrices


def _max_count_probs(dice: int, kept: int, free: int) -> list[Fraction]:
    """P(max count over ``free`` faces = j) after re-throwing ``dice`` dice, ``kept`` of face 0 held."""
    probs = [Fraction(0)] * 6
    unit = Fraction(1, 6**dice)
    for roll in product(range(6), repeat=dice):
        counts = [roll.count(f) for f in range(free)]
        counts[0] += kept
        probs[max(counts)] += unit
    return probs


@functools.lru_cache(maxsize=None)
def matrix_A() -> tuple[tuple[Fraction, ...], ...]:
    """``A[f-1][k]``: P(k dice of one face, the most among ``f`` free upper faces) in one throw."""
    return tuple(tuple(_max_count_probs(DICE, 0, f)) for f in range(1, 7))


@functools.lru_cache(maxsize=None)
def matrix_M(f: int) -> tuple[tuple[Fraction, ...], ...]:
    """``M(f)[i][j]``: from an i-tuple of a free face (kept) to a j-tuple after one re-throw.

    The tuple followed may switch to another free face that comes up more often; ``i = 0``
    re-throws all dice.
    """
    rows = [matrix_A()[f - 1]]
    for i in range(1, 6):
        rows.append(tuple(_max_count_probs(DICE - i, i, f)))
    return tuple(rows)


def _matvec(v, m):
    return tuple(sum(v[i] * m[i][j] for i in range(len(v))) for j in range(len(m[0])))


@functools.lru_cache(maxsize=None)
def matrix_S(throws: int = 3) -> tuple[tuple[Fraction, ...], ...]:
    """``S[f-1][k] = (A[f] M(f)^(throws-1))[k]``: P(k-tuple after all throws, f free faces)."""
    out = []
    for f in range(1, 7):
        row = matrix_A()[f - 1]
        for _ in range(throws - 1):
            row = _matvec(row, matrix_M(f))
        out.append(row)
    return tuple(out)


@functools.lru_cache(maxsize=None)
def matrix_U(throws: int = 3) -> np.ndarray:
    """``U[f-1][m]``: P(cumulated length m over f free upper boxes), m = 0..30 (float64)."""
    s = np.asarray(matrix_S(throws), dtype=np.float64)
    u = np.zeros((6, MAX_LENGTH + 1))
    u[0, :6] = s[0]
    for f in range(2, 7):
        for k in range(6):
            u[f - 1, k : k + 5 * (f - 1) + 1] += s[f - 1, k] * u[f - 2, : 5 * (f - 1) + 1]
    return u


@functools.lru_cache(maxsize=None)
def matrix_V(throws: int = 3) -> np.ndarray:
    """``[7, 32]``: row f = P(cumulated length >= m) with f free boxes; row 0 = (1, 0, ...).

    ``V = U D`` (D lower-triangular ones); column 31 is 0 (more than 30 dice needed).
    """
    u = matrix_U(throws)
    d = np.tril(np.ones((MAX_LENGTH + 1, MAX_LENGTH + 1)))
    v = np.zeros((7, MAX_LENGTH + 2))
    v[1:, : MAX_LENGTH + 1] = u @ d
    v[0, 0] = 1.0
    return v


# ----------------------------------------------------------------------------- static tables


@dataclass(frozen=True)
class HeuristicTables:
    """Per-rules constants of the heuristic (numpy, float64).

    points: ``[13, throws, T]`` expected points of each box under its rule (level r = r re-throws left).
    start: ``[13]`` expectation at the start of a turn (Im-Hieb: + P(first throw scores) x bonus).
    first_scores: ``[13]`` P(the first throw scores in the box).
    counts: ``[6, throws, T, 6]`` distribution of the final count of face f under its upper rule.
    start_counts: ``[6, 6]`` the same distribution over a fresh turn (binomial).
    V: ``[7, 32]`` minimum-length matrix (row = free upper boxes).
    keeps: ``[2, 13, throws, T]`` keep index of each box's rule (alternatives).
    random: whether any keep rule has two alternatives.
    """

    rules: CategoryRules
    points: np.ndarray
    start: np.ndarray
    first_scores: np.ndarray
    counts: np.ndarray
    start_counts: np.ndarray
    V: np.ndarray
    keeps: np.ndarray

    @property
    def random(self) -> bool:
        return bool(np.any(self.keeps[0] != self.keeps[1]))


def _check_rules(rules: CategoryRules) -> None:
    if rules.dice != DICE:
        raise JaxsolveError(f"the rating heuristic is defined for 5 dice, got {rules.dice}")
    if tuple(rules.boxes) != KNIFFEL_SHEET:
        raise JaxsolveError(f"the rating heuristic is defined for the Kniffel sheet, not the sheet of {rules.name}")


@functools.lru_cache(maxsize=None)
def heuristic_tables(rules: CategoryRules) -> HeuristicTables:
    """Exact per-box expectations of the keep rules for one rule set."""
    _check_rules(rules)
    sp = tables.space(DICE)
    scores = tables.throw_scores(DICE).astype(np.float64)
    points = np.stack([rule_chain(scores[b], b, rules.throws) for b in range(NUM_BOXES)])
    prob = sp.throw_prob
    start = points[:, -1] @ prob
    first_scores = (scores > 0).astype(np.float64) @ prob
    instant = np.full(NUM_BOXES, float(rules.instant_other))
    instant[KNIFFEL_BOX] = rules.instant_all_same
    start = start + first_scores * instant
    onehot = (tables.throw_counts(DICE).T[:, :, None] == np.arange(DICE + 1)).astype(np.float64)
    counts = np.stack([rule_chain(onehot[:, f], f, rules.throws) for f in range(6)])
    start_counts = np.einsum("t,ftk->fk", prob, counts[:, -1])
    return HeuristicTables(rules, points, start, first_scores, counts, start_counts, matrix_V(rules.throws), keep_tables(rules.throws))


# ----------------------------------------------------------------------------- batched ratings


def _length_prob(V, free, need, face_sum):
    """P(reaching ``need`` more upper points) with ``free`` boxes of faces summing to ``face_sum``.

    Minimum length = ceil(need / mean face) in integers; need <= 0 -> 1; need > 0 with no free
    upper box left -> 0 (the length is then infinite: the last column of ``V``, which is 0).
    """
    safe = jnp.maximum(face_sum, 1)
    length = jnp.where(free > 0, -((-need * free) // safe), V.shape[1] - 1)
    length = jnp.clip(length, 0, V.shape[1] - 1)
    return jnp.where(need <= 0, 1.0, V[free, length])


def final_moves(state: tables.EngineState, rules: CategoryRules):
    """``(points, extra, allowed, instant)``, each ``[13, T, B]``: filling each box after each throw.

    The fields of ``solver.moves`` the heuristic needs (under ``jit`` the others are dropped).
    """
    mv = solver.moves(state, rules)
    return mv.points, mv.extra, mv.allowed, mv.instant


def check_reading(reading: str) -> str:
    """``reading`` if it is one of ``READINGS``, else a ``JaxsolveError``."""
    if reading not in READINGS:
        raise JaxsolveError(f"unknown heuristic reading {reading!r}; choose one of {', '.join(READINGS)}")
    return reading


def strength_sd(strength: str) -> float:
    """The forecast noise SD (points) of a named bot strength (``STRENGTHS``)."""
    try:
        return STRENGTHS[strength]
    except KeyError:
        raise JaxsolveError(f"unknown bot strength {strength!r}; choose one of {', '.join(STRENGTHS)}") from None


def forecast_noise(state: tables.EngineState, rules: CategoryRules, sd: float, seed: int = 0):
    """``[throws, 13, T, B]`` forecast errors: ``sd`` x standard normal, float32.

    Each state draws from its own key, ``fold_in(PRNGKey(seed), state index)``, so the same
    bot (seed) meets the same situation with the same error, whatever the batch it is
    evaluated in.
    """
    T = tables.space(DICE).num_throws
    base = jax.random.PRNGKey(int(seed) & 0xFFFFFFFF)
    index = state.flat_index(rules)

    def one(i):
        return jax.random.normal(jax.random.fold_in(base, i), (rules.throws, NUM_BOXES, T), jnp.float32)

    return jnp.float32(sd) * jnp.moveaxis(jax.vmap(one)(index), 0, -1)


def level_gains(state: tables.EngineState, rules: CategoryRules, dtype=jnp.float32, reading: str = DEFAULT_READING, noise_sd: float = 0.0, noise_seed: int = 0):
    """Gains of every box for a batch of states (batch last), level by level.

    Returns ``(gains, allowed, fill_now)``: ``gains[r][b]`` is ``[T, B]``, the gain of box ``b``
    from throw ``t`` with ``r`` re-throws left: its expected points under its keep rule
    (r = 0: the points it scores now, joker and extra bonus included), plus for upper boxes the
    upper bonus times the estimated chance of reaching it, minus the same at the start of a
    turn (its start value: see ``READINGS`` for the bonus term's two readings).
    ``allowed[r][b]`` (broadcastable to ``[T, B]``) says whether the box may be chosen.
    ``fill_now[b]`` (Im-Hieb rules, else None): on the first-throw level the box is worth
    more filled now (points + instant bonus) than kept on; its gain is then that of filling now.
    ``noise_sd > 0`` adds ``forecast_noise`` to every gain (after the fill-now choice).
    """
    check_reading(reading)
    filled, upper = state.filled, state.upper
    th = heuristic_tables(rules)
    cap = rules.upper_threshold
    V = jnp.asarray(th.V, dtype)
    is_open = ((filled[None, :] >> jnp.arange(NUM_BOXES)[:, None]) & 1) == 0
    may_fill = tables.fillable(filled[None, :], jnp.arange(NUM_BOXES)[:, None], rules)
    free_up = is_open[:6].astype(jnp.int32)
    nfree = free_up.sum(0)
    face_sum = (free_up * jnp.arange(1, 7)[:, None]).sum(0)
    need = jnp.maximum(cap - upper, 0)
    bonus = rules.upper_bonus

    p_start = _length_prob(V, nfree, need, face_sum).astype(dtype)
    faces = jnp.arange(1, 7)[:, None, None]
    k = jnp.arange(DICE + 1)[None, :, None]
    p_after = _length_prob(V, jnp.maximum(nfree - 1, 0)[None, None, :], need[None, None, :] - faces * k, face_sum[None, None, :] - faces)
    p_after = p_after.astype(dtype)
    counts = jnp.asarray(th.counts, dtype)
    if reading == "chain":
        start_bonus = jnp.broadcast_to(bonus * p_start[None, :], (6,) + p_start.shape)
    else:
        start_bonus = bonus * jnp.einsum("fk,fkb->fb", jnp.asarray(th.start_counts, dtype), p_after)
    start = jnp.asarray(th.start, dtype)[:, None] + jnp.concatenate([start_bonus, jnp.zeros((NUM_BOXES - 6,) + p_start.shape, dtype)])

    points, extra, final_allowed, instant = final_moves(state, rules)
    exp_points = jnp.asarray(th.points, dtype)

    def upper_term(f, r):
        return bonus * jnp.einsum("tk,kb->tb", counts[f, r], p_after[f])

    gains, allowed = [], []
    for r in range(rules.throws):
        level, ok = [], []
        for b in range(NUM_BOXES):
            if r == 0:
                v = points[b].astype(dtype) + extra[b].astype(dtype)
                ok.append(final_allowed[b])
            else:
                v = exp_points[b, r][:, None]
                ok.append(may_fill[b][None, :])
            if b < 6:
                v = v + upper_term(b, r)
            level.append(v - start[b][None, :])
        gains.append(level)
        allowed.append(ok)

    fill_now = None
    if rules.has_instant_bonus:
        first = rules.throws - 1
        fill_now = []
        for b in range(NUM_BOXES):
            now = points[b].astype(dtype) + extra[b].astype(dtype) + instant[b].astype(dtype) - start[b][None, :]
            if b < 6:
                now = now + upper_term(b, 0)
            can = (points[b] > 0) & final_allowed[b]
            if first == 0:
                fill = can
            else:
                fill = can & (now >= gains[first][b])
            fill_now.append(fill)
            gains[first][b] = jnp.where(fill, now, gains[first][b])
            allowed[first][b] = allowed[first][b] | fill
    if noise_sd > 0:
        noise = forecast_noise(state, rules, noise_sd, noise_seed).astype(dtype)
        gains = [[g + noise[r, b] for b, g in enumerate(level)] for r, level in enumerate(gains)]
    return gains, allowed, fill_now


def best_boxes(gains, allowed):
    """``(best gain, box)`` over a list of 13 ``[T, B]`` gains, ties to the box higher in the table."""
    best = jnp.where(allowed[0], gains[0], -jnp.inf)
    arg = jnp.zeros(best.shape, jnp.int32)
    for b in range(1, len(gains)):
        g = jnp.where(allowed[b], gains[b], -jnp.inf)
        better = g > best
        best = jnp.where(better, g, best)
        arg = jnp.where(better, b, arg)
    return best, arg


def rate(gains, allowed):
    """Linear ratings over the boxes (axis 0): smallest 0, largest 1, all equal 1; NaN where not allowed."""
    g = jnp.where(allowed, gains, jnp.nan)
    lo, hi = jnp.nanmin(g, axis=0), jnp.nanmax(g, axis=0)
    span = hi - lo
    r = jnp.where(span > 0, (g - lo) / jnp.where(span > 0, span, 1), 1.0)
    return jnp.where(allowed, r, jnp.nan)


# ----------------------------------------------------------------------------- one position


@functools.lru_cache(maxsize=16)
def _jitted_gains(rules: CategoryRules, dtype, reading: str, noise_sd: float, noise_seed: int):
    return jax.jit(lambda state: level_gains(state, rules, dtype, reading, noise_sd, noise_seed))


def ratings(rules: CategoryRules, position, dice, throws_left: int, reading: str = DEFAULT_READING, strength: str = DEFAULT_STRENGTH, seed: int = 0) -> list[dict]:
    """Ratings (0..1) of every open box for a position, the dice showing and re-throws left.

    ``position`` is a ``jaxsolve.games.category.sheets.position.Position`` (or anything with ``state(rules)``
    and ``open_boxes``), ``dice`` the faces showing. ``reading`` picks the start value's bonus
    term (``READINGS``), ``strength`` and ``seed`` the bot (``STRENGTHS``; its forecast errors
    are those a simulation with the same seed meets in this position). Returns one dict per box
    that may be chosen, best first: ``option`` (what the box's rule does), ``box``, ``value``
    (the rating), ``gain`` (expected points over the box's start expectation, forecast error
    included), ``keep`` (faces kept; all dice when filling).
    """
    _check_rules(rules)
    check_reading(reading)
    sd = strength_sd(strength)
    if not 0 <= int(throws_left) < rules.throws:
        raise JaxsolveError(f"re-throws left must be between 0 and {rules.throws - 1}, got {throws_left}")
    if len(dice) != DICE:
        raise JaxsolveError(f"the heuristic needs {DICE} dice, got {len(dice)}")
    sp = tables.space(DICE)
    t = sp.throw_index(sp.counts_of_faces(dice))
    state = tables.EngineState._make(jnp.asarray([x], jnp.int32) for x in position.state(rules))
    dtype = jnp.dtype(float_dtype())
    gains, allowed, fill_now = _jitted_gains(rules, dtype, reading, sd, int(seed))(state)

    def at_throw(per_box):  # each box's ``[T, 1]`` (or broadcastable) value at throw t
        return np.asarray([np.broadcast_to(x, (sp.num_throws, 1))[t, 0] for x in per_box])

    g, ok = at_throw(gains[throws_left]).astype(np.float64), at_throw(allowed[throws_left])
    r = np.asarray(rate(jnp.asarray(g), jnp.asarray(ok)))
    now = at_throw(fill_now) if fill_now is not None and throws_left == rules.throws - 1 else np.zeros(NUM_BOXES, bool)
    th = heuristic_tables(rules)
    out: list[dict[str, Any]] = []
    for b in np.flatnonzero(ok):
        if throws_left == 0 or now[b]:
            kept = list(dice)
            label = f"fill {BOX_NAMES[b]}" + (" now" if throws_left else "")
        else:
            ka, kb = th.keeps[0, b, throws_left, t], th.keeps[1, b, throws_left, t]
            kept = sp.faces_of(sp.keeps[ka])
            alt = "" if ka == kb else f" or {' '.join(map(str, sp.faces_of(sp.keeps[kb]))) or '-'}"
            label = f"{BOX_NAMES[b]}: keep {' '.join(map(str, kept)) or '-'}{alt}"
        out.append({"option": label, "box": BOX_NAMES[b], "value": float(r[b]), "gain": float(g[b]), "keep": kept})
    out.sort(key=lambda d: (-d["value"], BOX_NAMES.index(d["box"])))
    return out
