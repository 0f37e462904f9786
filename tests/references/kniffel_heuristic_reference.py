"""Plain-Python reference for the keep rules of JaFuffy's "Berechnung der Bewertungen": dice as sorted face lists, recursion over
the outcomes of the re-thrown dice (multisets with multinomial weights), no arrays."""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter


def chance_mean(throws: int) -> float:
    m = 3.5
    for _ in range(throws - 1):
        m = sum(max(f, m) for f in range(1, 7)) / 6
    return m


def score(box: int, faces: tuple[int, ...]) -> int:
    c = Counter(faces)
    top = max(c.values())
    s = set(faces)
    if box < 6:
        return (box + 1) * c[box + 1]
    if box == 6:
        return sum(faces) if top >= 3 else 0
    if box == 7:
        return sum(faces) if top >= 4 else 0
    if box == 8:
        return 25 if sorted(c.values()) == [2, 3] else 0
    if box == 9:
        return 30 if any(set(range(a, a + 4)) <= s for a in (1, 2, 3)) else 0
    if box == 10:
        return 40 if any(set(range(a, a + 5)) <= s for a in (1, 2)) else 0
    if box == 11:
        return 50 if top == 5 else 0
    return sum(faces)


def keeps(box: int, faces: tuple[int, ...], r: int) -> list[list[int]]:
    """Alternative keeps (faces kept) of the box's rule; two when the source says 'at random'."""
    c = Counter(faces)
    top = max(c.values())
    modal = sorted((f for f in c if c[f] == top), reverse=True) if top > 1 else []
    chance = [f for f in faces if f > chance_mean(r)]
    if box < 6:
        return [[box + 1] * c[box + 1]]
    if box in (6, 7):
        n = 3 if box == 6 else 4
        if not modal:
            return [[]]
        a = modal[0]
        if c[a] >= n:
            rest = list(faces)
            for _ in range(n):
                rest.remove(a)
            return [[a] * n + [f for f in rest if f > chance_mean(r)]]
        return [[a] * c[a]]
    if box == 8:
        if sorted(c.values()) == [2, 3]:
            return [list(faces)]
        if top >= 3:
            return [[modal[0]] * 3]
        return [[f for f in faces if c[f] == 2]]
    if box == 9:
        s = set(faces)
        middle = [f for f in (3, 4) if f in s]
        inner = [f for f in (2, 5) if f in s]
        if len(inner) == 2:
            return [middle + inner]
        if len(inner) == 1 and not {1, 2} <= s and not {5, 6} <= s:
            return [middle + inner]
        low = [f for f in (1, 2) if f in s]
        high = [f for f in (5, 6) if f in s]
        if len(low) != len(high):
            return [middle + (low if len(low) > len(high) else high)]
        return [middle + low, middle + high]
    if box == 10:
        s = set(faces)
        core = [f for f in (2, 3, 4, 5) if f in s]
        ends = [f for f in (1, 6) if f in s]
        return [core + [e] for e in ends] or [core]
    if box == 11:
        return [[a] * top for a in modal] or [[]]
    return [chance]


@functools.lru_cache(maxsize=None)
def outcomes(m: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    out = []
    for combo in itertools.combinations_with_replacement(range(1, 7), m):
        ways = math.factorial(m)
        for v in Counter(combo).values():
            ways //= math.factorial(v)
        out.append((combo, ways / 6**m))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def expectation(box: int, faces: tuple[int, ...], r: int) -> float:
    """Expected points of ``box`` from the sorted ``faces`` with ``r`` re-throws left under its rule."""
    if r == 0:
        return float(score(box, faces))
    alts = keeps(box, faces, r)
    total = 0.0
    for kept in alts:
        for combo, p in outcomes(len(faces) - len(kept)):
            total += p * expectation(box, tuple(sorted(kept + list(combo))), r - 1)
    return total / len(alts)


def start_expectation(box: int, throws: int = 3) -> float:
    """Expected points of ``box`` over a fresh turn of ``throws`` throws under its rule."""
    return sum(p * expectation(box, combo, throws - 1) for combo, p in outcomes(5))


def upper_count_probs(throws: int = 3) -> list:
    """P(k dice of a fixed face after a fresh turn under the upper rule), k = 0..5, as Fractions."""
    from fractions import Fraction

    p = 1 - Fraction(5, 6) ** throws
    return [math.comb(5, k) * p**k * (1 - p) ** (5 - k) for k in range(6)]
