"""The two-player figures read from a solve: compensation points at the start, and where the
expected-score move differs from the move that plays to win (checked decision by decision
against the independent brute force of tests/references/twoplayer_reference.py)."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations, product

import numpy as np
import pytest
from twoplayer_reference import TwoPlayer
from yacht_reference import points as yacht_points

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import policy, solutions, tables
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.sheets import yacht
from jaxsolve.games.category.sheets.rules import CategoryRules


def mask(rules: CategoryRules, open_boxes) -> int:
    names = rules.box_names
    return rules.full_mask & ~sum(1 << names.index(b) for b in open_boxes)


def test_compensation_points_of_reduced_yacht():
    """``yacht.small()`` with four boxes open on both sheets: the starter's value falls (never
    rises) with every point given to the other, each c is the start row at lead -c, and the
    fairest c is the direct scan's argmin of |value - 1/2|."""
    rules = yacht.small()
    start = mask(rules, ("fives", "sixes", "choice", "yacht"))
    table = twoplayer.solve(rules, mine=start, theirs=start, keep="start", dtype="float64")
    got = twoplayer.compensation(table)
    assert np.all(np.diff(got.points) == 1)
    assert np.all(np.diff(got.values) <= 1e-12)
    first, second = table.sheets[0].first, table.sheets[1].first
    scan = {c: table.value(first, second, -c) for c in range(int(got.points[0]) - 2, int(got.points[-1]) + 3)}
    assert all(got.value(c) == pytest.approx(v, abs=1e-15) for c, v in scan.items())
    assert got.value(0) == pytest.approx(table.start, abs=1e-15)
    closest = min(abs(v - 0.5) for v in scan.values())
    assert got.fairest in [c for c, v in scan.items() if abs(v - 0.5) == closest]
    assert got.values[0] > 0.5 > got.values[-1]


def test_compensation_shifts_the_tie_rules_by_one_point():
    """A tie that goes to the first player is one point more for him, so the compensation
    rows of the tie rules ``win`` and ``lose`` are each other's shifted by one point (the
    sign of c: points given to the second player lower the first player's lead)."""
    rules = yacht.small()
    start = mask(rules, ("fives", "sixes", "choice", "yacht"))
    win, lose = (twoplayer.compensation(twoplayer.solve(rules, tie=t, mine=start, theirs=start, dtype="float64")) for t in ("win", "lose"))
    cs = range(int(win.points[0]) - 1, int(win.points[-1]) + 2)
    np.testing.assert_allclose([lose.value(c - 1) for c in cs], [win.value(c) for c in cs], atol=1e-12)
    assert lose.value(0) < win.value(0)


class DirectValues:
    """Each decision's values recomputed from the brute force: a box written with a throw, a
    keep with re-throws left after it, the best of a throw."""

    def __init__(self, rules: CategoryRules, ref: TwoPlayer, tie: str):
        self.rules, self.ref, self.tie = rules, ref, tie
        self.write = lru_cache(maxsize=None)(self._write)
        self.best = lru_cache(maxsize=None)(self._best)
        self.rethrow = lru_cache(maxsize=None)(self._rethrow)

    def sheet(self, filled: int, upper: int, held: int):
        return (frozenset(b for i, b in enumerate(self.rules.box_names) if not (filled >> i) & 1), upper, bool(held))

    def box(self, pos, box: str, throw: tuple) -> float:
        mine, theirs, lead, starter = pos
        r, after = self.ref.fill(mine, box, throw)
        other = self.ref.win(theirs, after, not starter)
        return float(1.0 - self.ref.at(other, np.asarray([-(lead + r)]))[0])

    def _write(self, pos, throw: tuple) -> float:
        return max(self.box(pos, b, throw) for b in pos[0][0])

    def _best(self, pos, throw: tuple, left: int) -> float:
        v = self.write(pos, throw)
        if left:
            for size in range(len(throw) + 1):
                for kept in set(combinations(throw, size)):
                    v = max(v, self.rethrow(pos, kept, left - 1))
        return v

    def _rethrow(self, pos, kept: tuple, left: int) -> float:
        outcomes = Counter(tuple(sorted(kept + o)) for o in product(range(1, 7), repeat=self.rules.dice - len(kept)))
        return sum(n * self.best(pos, t, left) for t, n in outcomes.items()) / sum(outcomes.values())


def faces(counts) -> tuple:
    return tuple(sorted(f + 1 for f, n in enumerate(counts) for _ in range(int(n))))


def test_moves_differ_counts_match_a_direct_recomputation():
    """2-dice Yacht, three boxes open on both sheets: every decision the simulation compared is
    recomputed, its best value and the expected-score choice's value from the brute force and
    that choice from the expected-score policy in NumPy; the counts per seat, turn and kind
    (a difference: more than 1e-6 lost) the summed losses and the counts above each loss level are those of the recomputation,
    and comparing does not change the games."""
    rules = yacht.small().replace(dice=2)
    boxes = ("twos", "choice", "yacht")
    start = mask(rules, boxes)
    table = twoplayer.solve(rules, mine=start, theirs=start, keep="all", dtype="float64")
    sol = solutions.solution(rules, "score", dtype="float64")
    played = twoplayer.simulate(table, 300, seed=5, compare="score", score_solution=sol, record=True)
    assert np.array_equal(played.lead, twoplayer.simulate(table, 300, seed=5).lead)
    differ = played.differ
    assert differ is not None and differ.records
    ref = TwoPlayer(yacht_points, dice=rules.dice, throws=rules.throws, tie=twoplayer.TIES["share"], reach=300)
    direct = DirectValues(rules, ref, "share")
    sp = tables.space(rules.dice)
    throw_counts = sp.keeps[sp.level_start[rules.dice]: sp.level_start[rules.dice + 1]]
    values = np.asarray(sol.values, np.float64).reshape(-1)
    es_cache: dict = {}

    def es_turn(sheet):
        if sheet not in es_cache:
            state = tables.EngineState._make(np.asarray([x], np.int64) for x in sheet)
            turn = policy.optimal_turn(values, state, rules, xp=np)
            es_cache[sheet] = (np.asarray(turn.keep)[..., 0], np.asarray(turn.box)[..., 0])
        return es_cache[sheet]

    count = np.zeros_like(differ.decisions)
    worse = np.zeros_like(differ.differ)
    lost = np.zeros_like(differ.loss)
    over = np.zeros_like(differ.over)
    for rec in differ.records:
        seat, a, kind = rec["seat"], rec["turn"], rec["kind"]
        p = next(q for q in table.plans if q.mover == seat and q.a == a)
        mine_sheets, their_sheets = table.sheets[seat], table.sheets[1 - seat]
        for k in range(len(rec["best"])):
            mine = tuple(int(s[p.a][rec["mover"][k]]) for s in (mine_sheets.filled, mine_sheets.upper, mine_sheets.held))
            theirs = tuple(int(s[p.b][rec["other"][k]]) for s in (their_sheets.filled, their_sheets.upper, their_sheets.held))
            pos = (direct.sheet(*mine), direct.sheet(*theirs), int(rec["lead"][k]), p.a == p.b)
            throw = faces(throw_counts[rec["throw"][k]])
            es_keep, es_box = es_turn(mine)
            choice = int(rec["choice"][k])
            if kind == 0:
                assert choice == es_keep[rec["left"] - 1][rec["throw"][k]]
                best = direct.best(pos, throw, rec["left"])
                chosen = direct.rethrow(pos, faces(sp.keeps[choice]), rec["left"] - 1)
            else:
                assert choice == es_box[rec["throw"][k]]
                best = direct.write(pos, throw)
                chosen = direct.box(pos, rules.box_names[choice], throw)
            assert rec["best"][k] == pytest.approx(best, abs=1e-12)
            assert rec["chosen"][k] == pytest.approx(chosen, abs=1e-12)
            count[seat, a, kind] += 1
            if best - chosen > twoplayer.DIFFER_TOLERANCE:
                worse[seat, a, kind] += 1
                lost[seat, a, kind] += best - chosen
            over[seat, a, kind] += best - chosen > np.asarray(twoplayer.LOSS_LEVELS)
    assert np.array_equal(count, differ.decisions)
    assert np.array_equal(worse, differ.differ)
    np.testing.assert_allclose(lost, differ.loss, atol=1e-12)
    assert np.array_equal(over, differ.over)
    assert differ.decisions[:, -len(boxes):, 1].tolist() == [[300] * len(boxes)] * 2  # one box per turn
    assert differ.differ.sum() > 0
    assert 0 < differ.rate() < 1 and differ.mean_loss() > twoplayer.DIFFER_TOLERANCE


def test_compare_bad_input_is_one_clear_error():
    rules = yacht.small().replace(dice=1)
    start = mask(rules, ("ones", "yacht"))
    table = twoplayer.solve(rules, mine=start, theirs=start, keep="all", dtype="float64")
    with pytest.raises(JaxsolveError, match="compare must be 'score'"):
        twoplayer.simulate(table, 10, compare="greedy")
