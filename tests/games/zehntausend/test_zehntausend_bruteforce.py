"""A plain-Python, memoised brute force of Zehntausend over exact states ``(p, n)``.

Independent of ``jaxsolve.zehntausend`` and ``jaxsolve.dice``: throws come from
``itertools.product`` over faces, the usable subsets from an explicit rule-by-rule scorer, and
the value from the recursion of Peter's (2013) eq. (6)/(10). The one shared assumption is the
paper's boundary: from ``p >= p6`` (``p6 = Delta_6 / P0_6`` rounded up to 50, computed here with
exact fractions) writing beats throwing six again, ``E(p, 0) = p``; every other state recurses.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from fractions import Fraction

import pytest

from jaxsolve.games.zehntausend import scoring, solver
from jaxsolve.games.zehntausend.rules import PRESETS, ZehntausendRules

TRIPLE = {1: 1000, 2: 200, 3: 300, 4: 400, 5: 500, 6: 600}
SINGLE = {1: 100, 5: 50}


def group_points(face: int, count: int, six_kind: int) -> int | None:
    """Points of ``count`` dice of one face set aside together; None if they cannot all score."""
    if count == 0:
        return 0
    if count >= 3:
        if count == 6 and six_kind:
            return six_kind
        return TRIPLE[face] * 2 ** (count - 3)
    if face in SINGLE:
        return SINGLE[face] * count
    return None


def real_points(kept: tuple[int, ...], straight: int, six_kind: int, three_pairs: int) -> int | None:
    """Points of real dice (faces, sorted) set aside together, or None if one of them does not score."""
    counts = Counter(kept)
    total = 0
    for face, c in counts.items():
        g = group_points(face, c, six_kind)
        if g is None:
            total = None
            break
        total += g
    if straight and sorted(kept) == [1, 2, 3, 4, 5, 6]:
        total = max(total or 0, straight)
    if three_pairs and len(kept) == 6 and sorted(counts.values()) == [2, 2, 2]:
        total = max(total or 0, three_pairs)
    return total


def sub_multisets(throw: tuple[int, ...]):
    counts = Counter(throw)
    faces = sorted(counts)
    for pick in itertools.product(*[range(counts[f] + 1) for f in faces]):
        yield tuple(f for f, k in zip(faces, pick) for _ in range(k))


def options(throw: tuple[int, ...], rules: ZehntausendRules) -> set[tuple[int, int]]:
    """Distinct ``(points, dice set aside)`` over every usable set-aside of the throw."""
    max_pairs = {"off": 0, "one": 1, "any": 3}[rules.two_fives]
    fives = throw.count(5)
    out = set()
    for kept in sub_multisets(throw):
        pts = real_points(kept, rules.straight, rules.six_of_a_kind, rules.three_pairs)
        if pts is None:
            continue
        for pairs in range(max_pairs + 1):
            if kept.count(5) + 2 * pairs > fives or len(kept) + pairs == 0:
                continue
            out.add((pts + 100 * pairs, len(kept) + pairs))
    return out


@functools.lru_cache(maxsize=None)
def throws(n: int, rules: ZehntausendRules):
    """``[(w, weight, W(w), options)]`` over the multisets of n dice; weights sum to 6**n."""
    tally = Counter(tuple(sorted(w)) for w in itertools.product(range(1, 7), repeat=n))
    out = []
    for w, weight in tally.items():
        opts = options(w, rules)
        out.append((w, weight, max((p for p, _ in opts), default=0), tuple(sorted(opts))))
    return out


def exact_p6(rules: ZehntausendRules) -> tuple[Fraction, Fraction, int]:
    rows = throws(6, rules)
    delta = Fraction(sum(weight * write for _, weight, write, _ in rows), 6**6)
    bust = Fraction(sum(weight for _, weight, write, _ in rows if write == 0), 6**6)
    return delta, bust, 50 * math.ceil(delta / bust / 50)


class BruteForce:
    def __init__(self, rules: ZehntausendRules):
        self.rules = rules
        self.top = exact_p6(rules)[2]
        self.E = functools.lru_cache(maxsize=None)(self._E)

    def _E(self, p: int, n: int) -> float:
        if n == 0:
            return float(p) if p >= self.top else max(float(p), self.E(p, 6))
        total = 0.0
        for _, weight, write, opts in throws(n, self.rules):
            if write == 0:
                continue
            best = p + write
            for pts, used in opts:
                best = max(best, self.E(p + pts, n - used))
            total += weight * best
        return total / 6**n

    def warm(self, down_to: int) -> None:
        """Fill the memo from the top down so the recursion never goes deep."""
        for p in range(self.top + 50 * 220, down_to - 1, -50):
            for n in (5, 4, 3, 2, 1, 6, 0):
                if n == 6 and p >= self.top:
                    continue
                self.E(p, n)


def test_exact_p6_matches_seed():
    delta, bust, p6 = exact_p6(PRESETS["peter-2013"])
    assert delta == Fraction(237875, 648)
    assert bust == Fraction(5, 162)
    assert delta / bust == Fraction(47575, 4)
    assert p6 == 11900


@pytest.mark.parametrize("preset", list(PRESETS))
def test_bruteforce_options_match_tables(preset):
    rules = PRESETS[preset]
    tables = scoring.build_tables(rules)
    assert len(tables.row_n) == sum(len(throws(n, rules)) for n in range(1, 7))
    for n in range(1, 7):
        for w, weight, write, opts in throws(n, rules):
            r = tables.row_index(scoring.parse_throw(w))
            assert tables.row_n[r] == n and tables.row_weight[r] == weight and tables.write[r] == write
            mine = set(zip(tables.opt_points[r][tables.opt_valid[r]].tolist(), tables.opt_dice[r][tables.opt_valid[r]].tolist()))
            assert mine == set(opts), w


@pytest.mark.parametrize("rules", [PRESETS["peter-2013"], PRESETS["doubling"], PRESETS["three-pairs"], ZehntausendRules(two_fives="any", straight=0)], ids=["peter-2013", "doubling", "three-pairs", "any-no-straight"])
def test_bruteforce_agrees_with_array_solver_on_every_state(rules):
    bf = BruteForce(rules)
    bf.warm(down_to=0)
    sol = solver.solve(rules)
    assert sol.top_level * 50 == bf.top
    worst = 0.0
    for p in range(0, bf.top + 50 * 100, 50):
        for n in range(7):
            worst = max(worst, abs(bf.E(p, n) - sol.value(p, n)) / max(1.0, abs(bf.E(p, n))))
    assert worst < 1e-12
