"""Shared dice machinery: multisets of dice, keeps, and the keep -> throw chance operators.

A *throw* is a multiset of ``n`` dice with ``sides`` faces, stored as a count vector.
A *keep* is a sub-multiset of a throw (0..n dice). All keeps are enumerated once, ordered by
size (level) and then lexicographically, so the throws are exactly the last level.

Three equivalent ways to turn values of throws into values of keeps (expectation over
re-throwing the missing dice) are offered:

* ``dense``: one ``[keeps, throws]`` matrix product;
* ``sparse``: a gather + segment-sum over the nonzeros of that matrix;
* ``levels``: "a keep of k dice is worth the mean over one more die", applied level by level,
  which needs far fewer multiply-adds than the dense product.

``best_subkeep`` is the dual operation for the decision: for every throw, the best value over
all keeps contained in it, again computed level by level (or by a direct gather). Level by
level, the keeps of a level are computed in the ``Lattice`` order (grouped by their number of
distinct faces), so each keep compares only its distinct sub-keeps.

The tables are NumPy. ``expect_keeps``, ``best_subkeep``, ``reroll``, ``throw_mean``,
``best_subkeep_arg`` and ``rethrow_mass`` take ``xp`` (``jaxsolve.core.arrays``): ``jax.numpy`` by
default, or NumPy to run the same lines eagerly; the others are JAX only. JAX is imported when a function first needs it, not with this module.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterable, Literal, Sequence, SupportsInt, TypeVar

import numpy as np

from jaxsolve.core.arrays import Array, namespace
from jaxsolve.errors import JaxsolveError

ExpectMethod = Literal["dense", "sparse", "levels"]
SubkeepMethod = Literal["levels", "gather"]
_T = TypeVar("_T")


def _multisets(size: int, sides: int) -> list[tuple[int, ...]]:
    """Count vectors of all multisets of ``size`` dice, lexicographically descending."""
    out = []
    for combo in itertools.combinations_with_replacement(range(sides), size):
        counts = [0] * sides
        for face in combo:
            counts[face] += 1
        out.append(tuple(counts))
    return sorted(set(out), reverse=True)


@dataclass(frozen=True, eq=False)
class DiceSpace:
    """All keeps and throws of ``n`` dice with ``sides`` faces, with their chance operators.

    Attributes (numpy, built once; ``K`` keeps, ``T`` throws):
        keeps:        ``[K, sides]`` counts of each keep, levels 0..n in order.
        keep_size:    ``[K]`` number of dice in each keep.
        level_start:  ``[n + 2]`` keeps of size k are ``level_start[k]:level_start[k+1]``.
        throw_prob:   ``[T]`` probability of each throw of all n dice.
        nz_keep, nz_throw, nz_prob: ``[nnz]`` sparse keep -> throw operator.
        add_die:      ``[K, sides]`` index of keep + one die of that face (-1 past level n).
        remove_die:   ``[K, sides]`` index of keep - one die of that face (-1 if absent).
        subkeeps:     ``[T, S]`` all keeps contained in each throw (padded with repeats).
    """

    n: int
    sides: int
    keeps: np.ndarray
    keep_size: np.ndarray
    level_start: np.ndarray
    throw_prob: np.ndarray
    nz_keep: np.ndarray
    nz_throw: np.ndarray
    nz_prob: np.ndarray
    add_die: np.ndarray
    remove_die: np.ndarray
    subkeeps: np.ndarray

    @property
    def num_keeps(self) -> int:
        return int(self.keeps.shape[0])

    @property
    def num_throws(self) -> int:
        return int(self.level_start[-1] - self.level_start[-2])

    @property
    def throws(self) -> np.ndarray:
        """``[T, sides]`` counts of every throw of all n dice."""
        return self.keeps[self.level_start[self.n] :]

    @property
    def throw_offset(self) -> int:
        return int(self.level_start[self.n])

    def level(self, k: int) -> slice:
        return slice(int(self.level_start[k]), int(self.level_start[k + 1]))

    @functools.cached_property
    def index(self) -> dict[tuple[int, ...], int]:
        return {tuple(int(c) for c in row): i for i, row in enumerate(self.keeps)}

    def keep_index(self, counts: Iterable[SupportsInt]) -> int:
        """Index of a keep given as a count vector."""
        return self.index[tuple(int(c) for c in counts)]

    def throw_index(self, counts: Iterable[SupportsInt]) -> int:
        """Index (0..T-1) of a throw given as a count vector."""
        return self.keep_index(counts) - self.throw_offset

    def counts_of_faces(self, faces: Iterable[SupportsInt]) -> np.ndarray:
        """Count vector of dice given by their faces (1-based)."""
        counts = np.zeros(self.sides, dtype=np.int64)
        for f in faces:
            counts[int(f) - 1] += 1
        return counts

    def faces_of(self, counts: Sequence[SupportsInt] | np.ndarray) -> list[int]:
        """Sorted 1-based faces of a count vector."""
        return [f + 1 for f in range(self.sides) for _ in range(int(counts[f]))]

    @functools.cached_property
    def dense(self) -> np.ndarray:
        """``[K, T]`` P(throw | keep, the other dice re-thrown)."""
        out = np.zeros((self.num_keeps, self.num_throws))
        out[self.nz_keep, self.nz_throw] = self.nz_prob
        return out

    @functools.cached_property
    def level_down(self) -> list[np.ndarray]:
        """``level_down[k]``: ``[n_k, k]`` indices (within level k-1) of the keep minus one die."""
        out = [np.zeros((1, 0), dtype=np.int32)]
        for k in range(1, self.n + 1):
            lv, below = self.level(k), self.level(k - 1)
            rows = []
            for j in range(lv.start, lv.stop):
                subs = sorted({int(self.remove_die[j, f]) for f in range(self.sides)} - {-1})
                subs = subs + [subs[0]] * (k - len(subs))
                rows.append([s - below.start for s in subs])
            out.append(np.asarray(rows, dtype=np.int32))
        return out


def dice_space(n: int, sides: int = 6) -> DiceSpace:
    """The dice space of ``n`` dice with ``sides`` faces (built once per process)."""
    if n < 1 or sides < 2:
        raise ValueError(f"need at least 1 die and 2 sides, got n={n}, sides={sides}")
    return _dice_space(int(n), int(sides))


@functools.lru_cache(maxsize=None)
def _dice_space(n: int, sides: int) -> DiceSpace:
    levels = [_multisets(k, sides) for k in range(n + 1)]
    keeps = np.asarray([m for lv in levels for m in lv], dtype=np.int64).reshape(-1, sides)
    level_start = np.cumsum([0] + [len(lv) for lv in levels])
    index = {tuple(int(c) for c in row): i for i, row in enumerate(keeps)}
    num_keeps = len(keeps)
    offset = int(level_start[n])
    throws = keeps[offset:]

    fact = [math.factorial(i) for i in range(n + 1)]

    def prob(counts: Iterable[int]) -> float:
        m = int(sum(counts))
        return fact[m] / math.prod(fact[int(c)] for c in counts) / sides**m

    throw_prob = np.asarray([prob(t) for t in throws])

    nz_keep, nz_throw, nz_prob = [], [], []
    subs_of: list[list[int]] = []
    for t_idx, t in enumerate(throws):
        subs = []
        for sub in itertools.product(*[range(c + 1) for c in t]):
            k_idx = index[sub]
            subs.append(k_idx)
            nz_keep.append(k_idx)
            nz_throw.append(t_idx)
            nz_prob.append(prob([c - k for c, k in zip(t, sub)]))
        subs_of.append(subs)
    width = max(len(s) for s in subs_of)
    subkeeps = np.asarray([s + [s[0]] * (width - len(s)) for s in subs_of], dtype=np.int32)

    add_die = -np.ones((num_keeps, sides), dtype=np.int32)
    remove_die = -np.ones((num_keeps, sides), dtype=np.int32)
    for i, row in enumerate(keeps):
        for face in range(sides):
            up = row.copy()
            up[face] += 1
            add_die[i, face] = index.get(tuple(int(c) for c in up), -1)
            if row[face] > 0:
                down = row.copy()
                down[face] -= 1
                remove_die[i, face] = index[tuple(int(c) for c in down)]

    order = np.lexsort((np.asarray(nz_throw), np.asarray(nz_keep)))
    return DiceSpace(
        n=n,
        sides=sides,
        keeps=keeps,
        keep_size=keeps.sum(axis=1),
        level_start=level_start,
        throw_prob=throw_prob,
        nz_keep=np.asarray(nz_keep, dtype=np.int32)[order],
        nz_throw=np.asarray(nz_throw, dtype=np.int32)[order],
        nz_prob=np.asarray(nz_prob)[order],
        add_die=add_die,
        remove_die=remove_die,
        subkeeps=subkeeps,
    )


def computed(fn: Callable[..., _T], *args: Any, xp: ModuleType | None = None) -> _T:
    """``fn(*args)`` computed apart: XLA neither fuses it into its consumers nor them into it.

    Used where a cheap gather-based producer has gather consumers: without it XLA fuses the
    producer into each consumer and recomputes it once per gathered element. On a CPU ``fn`` is
    the taken branch of a conditional on a run-time-true predicate (``lax.optimization_barrier``
    does not stop fusion there; a branch writes its own result buffers, so there is no copy, as
    there would be for a branch returning its operand); elsewhere ``fn(*args)`` behind
    ``lax.optimization_barrier`` (a GPU would read a conditional's predicate on the host, a
    synchronisation per use). With NumPy (``xp=numpy``) plain ``fn(*args)``.
    """
    if xp is np:
        return fn(*args)
    import jax
    import jax.numpy as jnp

    def on_cpu(*a: Any) -> Any:
        # true at run time, but not to the compiler (x == x fails for NaN): a float leaf
        leaf = next(x for x in jax.tree_util.tree_leaves(a) if jnp.issubdtype(x.dtype, jnp.floating)).reshape(-1)[0]
        token = (leaf == leaf) | jnp.isnan(leaf)
        shapes = jax.eval_shape(fn, *a)

        def never(*_: Any) -> Any:
            return jax.tree_util.tree_map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)

        return jax.lax.cond(token, fn, never, *a)

    def default(*a: Any) -> Any:
        return jax.lax.optimization_barrier(fn(*a))

    return jax.lax.platform_dependent(*args, cpu=on_cpu, default=default)


@dataclass(frozen=True, eq=False)
class Lattice:
    """The keeps of every level in the order the level-by-level operators compute them.

    Within a level the keeps are sorted by their number of distinct faces, most first, so the
    keeps with ``d`` distinct faces are one contiguous group and the best sub-keep looks at
    exactly ``d`` keeps of one die less (one per face shown) instead of a row padded to the
    level's size: for six dice 2,772 instead of 4,752 comparisons per re-throw.

    order:  per level k, ``[n_k]`` in-level index (the space's order) of each position.
    place:  per level k, ``[n_k]`` the inverse: position of each keep of the space's order.
    up:     per level k < n, ``[n_k, sides]`` position in level k + 1 of the keep plus one die
            of each face; ``up_plain`` the same for level n - 1 into level n in the space's order.
    groups: per level k >= 1, ``(start, stop, down)``: positions ``start:stop`` hold the keeps
            with ``down.shape[1]`` distinct faces, ``down`` the positions in level k - 1 of the
            keep minus one die of each face it shows.
    """

    order: tuple
    place: tuple
    up: tuple
    up_plain: np.ndarray
    groups: tuple


def lattice(space: DiceSpace) -> Lattice:
    """The ``Lattice`` of a dice space (built once per space)."""
    return _lattice(space.n, space.sides)


@functools.lru_cache(maxsize=None)
def _lattice(n: int, sides: int) -> Lattice:
    space = dice_space(n, sides)
    order, place = [], []
    for k in range(n + 1):
        distinct = (space.keeps[space.level(k)] > 0).sum(axis=1)
        o = np.argsort(-distinct, kind="stable").astype(np.int32)
        p = np.empty_like(o)
        p[o] = np.arange(len(o), dtype=np.int32)
        order.append(o)
        place.append(p)
    up = []
    for k in range(n):
        above = space.add_die[space.level(k)][order[k]] - space.level_start[k + 1]
        up.append(place[k + 1][above])
    up_plain = (space.add_die[space.level(n - 1)][order[n - 1]] - space.level_start[n]).astype(np.int32)
    groups: list[tuple] = [()]
    for k in range(1, n + 1):
        start = int(space.level_start[k])
        keeps = space.keeps[space.level(k)][order[k]]
        distinct = (keeps > 0).sum(axis=1)
        level_groups = []
        for d in sorted(set(distinct.tolist()), reverse=True):
            rows = np.flatnonzero(distinct == d)
            # in the space's order of the sub-keeps (as ``level_down``): the order ties are decided in
            down = [
                [place[k - 1][j - space.level_start[k - 1]] for j in sorted(int(space.remove_die[start + order[k][r], f]) for f in range(sides) if keeps[r, f] > 0)]
                for r in rows
            ]
            level_groups.append((int(rows[0]), int(rows[-1]) + 1, np.asarray(down, dtype=np.int32)))
        groups.append(tuple(level_groups))
    return Lattice(tuple(order), tuple(place), tuple(up), up_plain, tuple(groups))


def _expect_lattice(space: DiceSpace, flat: Array, xp: ModuleType | None = None) -> list[Array]:
    """``_expect_levels`` with levels 0..n-1 in the lattice's order (level n: ``flat`` itself,
    in the space's order)."""
    xp = namespace(xp)
    lat = lattice(space)
    parts = [flat]
    for k in range(space.n - 1, -1, -1):
        up = lat.up_plain if k == space.n - 1 else lat.up[k]

        def mean(above: Array, up: np.ndarray = up) -> Array:
            return functools.reduce(xp.add, [above[up[:, f]] for f in range(space.sides)]) * (1.0 / space.sides)

        parts.append(computed(mean, parts[-1], xp=xp))
    return parts[::-1]


def _best_subkeep_lattice(space: DiceSpace, levels: list[Array], xp: ModuleType | None = None) -> Array:
    """Best contained keep for each throw, from keep values given level by level (levels
    0..n-1 in the lattice's order, level n and the result in the space's order): a keep's best
    is the larger of its own value and its sub-keeps' best, one die less of each face it shows."""
    xp = namespace(xp)
    lat = lattice(space)
    n = space.n
    best = levels[0]
    for k in range(1, n + 1):
        own = levels[k] if k < n else levels[n][lat.order[n]]

        def step(best: Array, own: Array, groups: tuple[tuple[int, int, np.ndarray], ...] = lat.groups[k]) -> Array:
            segs = []
            for start, stop, down in groups:
                below = functools.reduce(xp.maximum, [best[down[:, j]] for j in range(down.shape[1])])
                segs.append(xp.maximum(own[start:stop], below))
            return xp.concatenate(segs, axis=0)

        # apart, else XLA fuses each level into the next and recomputes it per gather
        best = computed(step, best, own, xp=xp) if k < n else step(best, own)[lat.place[n]]
    return best


def _expect_levels(space: DiceSpace, flat: Array, xp: ModuleType | None = None) -> list[Array]:
    """Keep values level by level, ``[level 0, ..., level n]``, each ``[n_k, batch]``.

    A keep of k dice is the mean over the ``sides`` keeps of k + 1 dice that add one die:
    ``sides`` row gathers per keep instead of a dense product.
    """
    xp = namespace(xp)
    parts = [flat]
    for k in range(space.n - 1, -1, -1):
        up = space.add_die[space.level(k)] - space.level_start[k + 1]

        def mean(above: Array, up: np.ndarray = up) -> Array:
            return functools.reduce(xp.add, [above[up[:, f]] for f in range(space.sides)]) * (1.0 / space.sides)

        parts.append(computed(mean, parts[-1], xp=xp))
    return parts[::-1]


def expect_keeps(space: DiceSpace, values: Array, method: ExpectMethod = "levels", xp: ModuleType | None = None) -> Array:
    """Values of all keeps from values of throws: ``[T, ...] -> [K, ...]``.

    The value of a keep is the expected throw value after re-throwing the other dice.
    The dice axis leads so that a batch of states is the contiguous (minor) axis.
    """
    xp = namespace(xp)
    dtype = values.dtype
    flat = values.reshape(values.shape[0], -1)
    if method == "dense":
        out = xp.asarray(space.dense, dtype) @ flat
    elif method == "sparse":
        gathered = flat[space.nz_throw] * xp.asarray(space.nz_prob, dtype)[:, None]
        if xp is np:
            out = np.zeros((space.num_keeps,) + flat.shape[1:], dtype)
            np.add.at(out, space.nz_keep, gathered)
        else:
            import jax

            out = jax.ops.segment_sum(gathered, xp.asarray(space.nz_keep), num_segments=space.num_keeps, indices_are_sorted=True)
    elif method == "levels":
        out = xp.concatenate(_expect_levels(space, flat, xp), axis=0)
    else:
        raise ValueError(f"unknown expectation method {method!r} (dense, sparse, levels)")
    return out.reshape((space.num_keeps,) + values.shape[1:])


def best_subkeep(space: DiceSpace, keep_values: Array, method: SubkeepMethod = "levels", xp: ModuleType | None = None) -> Array:
    """For every throw, the best value over all keeps it contains: ``[K, ...] -> [T, ...]``."""
    xp = namespace(xp)
    if method == "gather":
        return xp.max(keep_values[space.subkeeps], axis=1)
    if method == "levels":
        lat = lattice(space)
        levels = [keep_values[space.level(k)][lat.order[k]] for k in range(space.n)] + [keep_values[space.level(space.n)]]
        return _best_subkeep_lattice(space, levels, xp)
    raise ValueError(f"unknown sub-keep method {method!r} (levels, gather)")


def reroll(space: DiceSpace, values: Array, expect: ExpectMethod = "levels", subkeep: SubkeepMethod = "levels", xp: ModuleType | None = None) -> Array:
    """Value of each throw when one more re-throw is allowed: ``[T, ...] -> [T, ...]``."""
    if expect == "levels" and subkeep == "levels":
        flat = values.reshape(values.shape[0], -1)
        return _best_subkeep_lattice(space, _expect_lattice(space, flat, xp), xp).reshape(values.shape)
    return best_subkeep(space, expect_keeps(space, values, expect, xp), subkeep, xp)


def rethrow_mass(space: DiceSpace, keep_mass: Array, xp: ModuleType | None = None) -> Array:
    """Distribution of the throw after re-throwing the dice not kept: ``[K, ...] -> [T, ...]``.

    ``keep_mass[k]`` is the probability of keeping ``k``; the result is the probability of each
    throw of all dice. The transpose of ``expect_keeps``, level by level: a keep of k dice
    passes a sixth of its mass to each keep of k + 1 dice that adds one die, so each keep of
    k + 1 dice gathers from the keeps that remove one of its faces.
    """
    xp = namespace(xp)
    flat = keep_mass.reshape(keep_mass.shape[0], -1)
    mass = flat[space.level(0)]
    for k in range(space.n):
        lv = space.level(k + 1)
        down = space.remove_die[lv] - space.level_start[k]
        down = np.where(space.remove_die[lv] < 0, space.level_start[k + 1] - space.level_start[k], down)

        def step(mass: Array, own: Array, down: np.ndarray = down) -> Array:
            padded = xp.concatenate([mass, xp.zeros((1,) + mass.shape[1:], mass.dtype)], axis=0)
            return own + functools.reduce(xp.add, [padded[down[:, f]] for f in range(space.sides)]) * (1.0 / space.sides)

        mass = computed(step, mass, flat[lv], xp=xp) if k + 1 < space.n else step(mass, flat[lv])
    return mass.reshape((space.num_throws,) + keep_mass.shape[1:])


def throw_mean(space: DiceSpace, values: Array, xp: ModuleType | None = None) -> Array:
    """Expected value of a fresh throw of all dice: ``[T, ...] -> [...]``."""
    xp = namespace(xp)
    return xp.tensordot(xp.asarray(space.throw_prob, values.dtype), values, axes=1)


def best_subkeep_arg(space: DiceSpace, keep_values: Array, rtol: float = 0.0, xp: ModuleType | None = None) -> tuple[Array, Array]:
    """Like ``best_subkeep`` but also returns which keep is best: ``[K, ...] -> ([T, ...], [T, ...])``.

    Ties go to a best keep with the most dice (fewest re-thrown), then to the first candidate
    of the level recursion. Two values are tied when they differ by at most
    ``rtol * max(1, |value|)``: a keep with fewer dice wins only if it is better by more.
    Elementwise selects only, no ``argmax``.
    """
    xp = namespace(xp)

    def tol(v: Array) -> Array | float:
        return rtol * xp.maximum(1.0, xp.abs(v)) if rtol else 0.0

    best = keep_values[space.level(0)]
    arg = xp.zeros(best.shape, xp.int32)
    size = xp.zeros(best.shape, xp.int8)
    for k in range(1, space.n + 1):
        lv, down = space.level(k), space.level_down[k]
        own = keep_values[lv]
        step = functools.partial(_best_subkeep_arg_level, tol, lv, down, k, xp=xp)
        # apart, else XLA fuses each level into the next and recomputes it per gather
        best, arg, size = computed(step, own, best, arg, size, xp=xp) if k < space.n else step(own, best, arg, size)
    return best, arg


def best_subkeep_carry(space: DiceSpace, keep_values: Array, keep_extra: tuple[Array, ...], rtol: float = 0.0) -> tuple[Array, tuple[Array, ...]]:
    """The choice of ``best_subkeep_arg``, carrying ``keep_extra`` instead of the keep's index.

    ``keep_values`` ``[K, B]``, ``keep_extra`` a tuple of ``[K, B]`` arrays: returns the best
    value ``[T, B]`` and the chosen keep's ``keep_extra`` (a tuple of ``[T, B]``) for each throw,
    what gathering ``keep_extra`` at ``best_subkeep_arg``'s index gives, without the index or
    the gather. The same tie rule, over the ``Lattice``'s distinct sub-keeps, in the order of
    ``best_subkeep_arg``'s candidates.
    """
    import jax.numpy as jnp

    lat = lattice(space)
    n = space.n

    def tol(v: Array) -> Array | float:
        return rtol * jnp.maximum(1.0, jnp.abs(v)) if rtol else 0.0

    def level(k: int, part: Array) -> Array:
        got = part[space.level(k)]
        return got if k == n else got[lat.order[k]]

    best, extra = level(0, keep_values), tuple(level(0, x) for x in keep_extra)
    size = jnp.zeros(best.shape, best.dtype)
    for k in range(1, n + 1):

        def choose(own: Array, best: Array, size: Array, k: int = k) -> tuple[Array, ...]:
            """Per group: the best value, its keep's size and which candidate it is (the
            sub-keeps 0..d-1 in order, d: the keep itself)."""
            outs = []
            for start, stop, down in lat.groups[k]:
                first = down[:, 0]
                below, below_size, which = best[first], size[first], jnp.zeros(first.shape + best.shape[1:], jnp.int32)
                for j in range(1, down.shape[1]):
                    cand, cand_size = best[down[:, j]], size[down[:, j]]
                    gap = tol(below)
                    better = (cand > below + gap) | ((cand >= below - gap) & (cand_size > below_size))
                    below = jnp.where(better, cand, below)
                    below_size = jnp.where(better, cand_size, below_size)
                    which = jnp.where(better, j, which)
                mine = own[start:stop]
                take_own = mine >= below - tol(below)
                outs.append((jnp.where(take_own, mine, below), jnp.where(take_own, jnp.asarray(k, size.dtype), below_size), jnp.where(take_own, down.shape[1], which)))
            return tuple(jnp.concatenate(parts, axis=0) for parts in zip(*outs))

        def step(own: Array, own_extra: tuple[Array, ...], best: Array, extra: tuple[Array, ...], size: Array, k: int = k) -> tuple[Array, tuple[Array, ...], Array]:
            if k == n:
                own, own_extra = own[lat.order[n]], tuple(x[lat.order[n]] for x in own_extra)
            # the choice apart, so that each carried array selects by it instead of repeating it
            best, size, which = computed(choose, own, best, size)
            carried = []
            for x, mine in zip(extra, own_extra):
                segs = []
                for start, stop, down in lat.groups[k]:
                    w = which[start:stop]
                    seg = mine[start:stop]
                    for j in range(down.shape[1]):
                        seg = jnp.where(w == j, x[down[:, j]], seg)
                    segs.append(seg)
                carried.append(jnp.concatenate(segs, axis=0))
            return best, tuple(carried), size

        args = (level(k, keep_values), tuple(level(k, x) for x in keep_extra), best, extra, size)
        # apart, else XLA fuses each level into the next and recomputes it per gather
        best, extra, size = computed(step, *args) if k < n else step(*args)
    return best[lat.place[n]], tuple(x[lat.place[n]] for x in extra)


def _best_subkeep_arg_level(
    tol: Callable[[Array], Array | float], lv: slice, down: np.ndarray, k: int, own: Array, best: Array, arg: Array, size: Array, xp: ModuleType | None = None
) -> tuple[Array, Array, Array]:
    """One level of ``best_subkeep_arg``: its keeps' own values against their best sub-keeps."""
    xp = namespace(xp)
    below, below_arg, below_size = best[down[:, 0]], arg[down[:, 0]], size[down[:, 0]]
    for j in range(1, k):
        cand, cand_size = best[down[:, j]], size[down[:, j]]
        gap = tol(below)
        better = (cand > below + gap) | ((cand >= below - gap) & (cand_size > below_size))
        below = xp.where(better, cand, below)
        below_arg = xp.where(better, arg[down[:, j]], below_arg)
        below_size = xp.where(better, cand_size, below_size)
    own_idx = xp.arange(lv.start, lv.stop, dtype=xp.int32).reshape((-1,) + (1,) * (own.ndim - 1))
    take_own = own >= below - tol(below)
    return xp.where(take_own, own, below), xp.where(take_own, own_idx, below_arg), xp.where(take_own, xp.int8(k), below_size)


def parse_faces(text: str | Iterable[int | str], sides: int = 6, *, packed: bool = True) -> list[int]:
    """Dice as a person types them, the one grammar of every command and game: ``1 1 2 5 6``,
    ``1,1,2,5,6`` (``;`` too) or, with ``packed`` and dice of fewer than ten sides, ``11256``;
    a sequence of faces is taken as it is. A token that is not a face 1..``sides`` is a
    ``JaxsolveError``."""
    if isinstance(text, str):
        tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
        if packed and sides < 10:
            tokens = [c for t in tokens for c in (list(t) if re.fullmatch(r"\d{2,}", t) else [t])]
    else:
        tokens = [str(t) for t in text]
    faces = []
    for token in tokens:
        if not re.fullmatch(r"\d+", token) or not 1 <= int(token) <= sides:
            raise JaxsolveError(f"{token!r} is not a face of the die (1..{sides})")
        faces.append(int(token))
    return faces
