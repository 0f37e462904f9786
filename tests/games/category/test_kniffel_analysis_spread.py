"""Per-box split and SD from any position vs a plain-Python simulation of the optimal policy.

Reduced game (3 dice, upper bonus 35 at 6, five boxes open, 2 throws, Kniffel joker and +100
bonus): the player below uses the engine's state values only for the states after a box is
filled and makes every decision itself, by enumeration (kniffel_reference's scoring rules).
"""

import random
from functools import lru_cache
from itertools import product

import numpy as np
import pytest

from jaxsolve.games.category.answers import advisor, analysis
from jaxsolve.games.category.engine import solver
from jaxsolve.games.category.sheets.position import Position
from jaxsolve.games.category.sheets.rules import CategoryRules
from jaxsolve.games.category.sheets.kniffel import BOX_NAMES
from kniffel_reference import options

RULES = CategoryRules(throws=2, joker="kniffel", bonus_on_scratch=False, upper_threshold=6, dice=3)
OPEN = (0, 2, 6, 11, 12)
START = Position(tuple(None if b in OPEN else 0 for b in range(13)))
GAMES = 10_000


@pytest.fixture(scope="module")
def solved():
    return solver.solve(RULES, "score", chunk=256)


def make_player(sol):
    cap = RULES.upper_threshold

    @lru_cache(maxsize=None)
    def fills(state, dice):
        """(value, box, points, bonus, next state) of every legal fill, best first (ties: earlier box)."""
        filled, upper, holds = state
        out = []
        for b, pts, extra in options(RULES, dice, frozenset(filled), bool(holds)):
            new_upper = min(cap, upper + pts) if b < 6 else upper
            bonus = extra + (RULES.upper_bonus if b < 6 and upper < cap <= new_upper else 0)
            nxt = (tuple(sorted(filled + (b,))), new_upper, int(holds or (b == 11 and pts == 50)))
            mask = sum(1 << x for x in nxt[0])
            out.append((pts + bonus + sol.value(mask, nxt[1], nxt[2]), b, pts, bonus, nxt))
        return sorted(out, key=lambda o: (-o[0], o[1]))

    @lru_cache(maxsize=None)
    def keep_value(state, kept):
        outs = list(product(range(1, 7), repeat=RULES.dice - len(kept)))
        return sum(fills(state, tuple(sorted(kept + o)))[0][0] for o in outs) / len(outs)

    @lru_cache(maxsize=None)
    def keep(state, dice):
        """Best keep (ties: more dice kept) for the one re-throw."""
        best, arg = -np.inf, dice
        subs = {tuple(sorted(dice[i] for i in range(len(dice)) if m >> i & 1)) for m in range(1 << len(dice))}
        for sub in sorted(subs, key=lambda s: -len(s)):
            v = fills(state, dice)[0][0] if sub == dice else keep_value(state, sub)
            if v > best + 1e-12:
                best, arg = v, sub
        return arg

    def play(rng):
        state = (tuple(b for b in range(13) if b not in OPEN), 0, 0)
        per_box = np.zeros(14)
        while len(state[0]) < 13:
            dice = tuple(sorted(rng.randint(1, 6) for _ in range(RULES.dice)))
            kept = keep(state, dice)
            dice = tuple(sorted(kept + tuple(rng.randint(1, 6) for _ in range(RULES.dice - len(kept)))))
            _, b, pts, bonus, state = fills(state, dice)[0]
            per_box[b] += pts
            per_box[13] += bonus
        return per_box

    return play


def test_split_and_sd_match_simulation(solved):
    brk = analysis.breakdown(RULES, START, objective="score", sol=solved)
    assert brk.mean == pytest.approx(solved.value(START.filled), abs=1e-9)
    assert brk.value == pytest.approx(brk.mean, abs=1e-9)
    assert sum(brk.split.values()) == pytest.approx(brk.mean, abs=1e-9)
    play = make_player(solved)
    rng = random.Random(2024)
    games = np.array([play(rng) for _ in range(GAMES)])
    totals = games.sum(1)
    se = totals.std() / np.sqrt(GAMES)
    assert abs(totals.mean() - brk.mean) < 4 * se
    assert abs(totals.std() - brk.sd) < 4 * brk.sd / np.sqrt(2 * GAMES)
    for b in OPEN:
        col = games[:, b]
        assert abs(col.mean() - brk.split[BOX_NAMES[b]]) < 4 * col.std() / np.sqrt(GAMES) + 1e-12, BOX_NAMES[b]
    bonus = brk.split["upper_bonus"] + brk.split["extra_bonus"]
    assert abs(games[:, 13].mean() - bonus) < 4 * games[:, 13].std() / np.sqrt(GAMES) + 1e-12


def test_mid_turn_breakdown_is_consistent(solved):
    # with dice showing, the breakdown is the policy's continuation from that throw
    dice, left = (1, 1, 3), 1
    brk = analysis.breakdown(RULES, START, dice, left, objective="score", sol=solved)
    adv = advisor.advise(RULES, START, dice, left, "score", sol=solved)
    assert brk.value == pytest.approx(adv.value, abs=1e-9)
    assert brk.mean == pytest.approx(adv.value, abs=1e-9)
    assert brk.sd > 0
    # with no re-throw left, the split is the advised box's points plus the next state's split
    last = analysis.breakdown(RULES, START, (3, 3, 3), 0, objective="score", sol=solved)
    best = advisor.advise(RULES, START, (3, 3, 3), 0, "score", sol=solved).best
    after = START.fill(best.box, best.points)
    nxt = analysis.evaluation(solved).at(*after.state(RULES))
    assert best.box == "kniffel" and best.points == 50
    for name in BOX_NAMES:
        expected = nxt[name] + (best.points if name == best.box else 0)
        assert last.split[name] == pytest.approx(expected, abs=1e-9), name


def test_goals_breakdown_counts_boxes_met():
    sol = solver.solve(RULES, "goals", chunk=256)
    brk = analysis.breakdown(RULES, START, objective="goals", sol=sol)
    assert brk.mean == pytest.approx(sol.value(START.filled), abs=1e-9)
    assert all(0 <= brk.split[BOX_NAMES[b]] <= 1 for b in OPEN)
    assert brk.split["upper_bonus"] == brk.split["extra_bonus"] == 0
    assert 0 < brk.sd < np.sqrt(len(OPEN))
