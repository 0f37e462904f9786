"""Win-probability advice against expected-score opponents: the engine against a plain brute force
written apart from it (tests/references/winning_reference.py) on reduced games, float64."""

import numpy as np
import pytest

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import winning as W
from jaxsolve.games.category.sheets.position import Position, PositionError
from jaxsolve.games.category.sheets.rules import CategoryRules
from winning_reference import Response, opponent_final, win_utility

RULES = CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10)


def sheet(rules, open_boxes):
    """Every box but ``open_boxes`` scratched (upper total 0, the all-same box not holding)."""
    return Position(tuple(None if b in open_boxes else 0 for b in range(rules.num_boxes)), rules.boxes)


def closed(open_boxes):
    return frozenset(range(13)) - set(open_boxes)


@pytest.mark.parametrize("ties", W.TIES)
def test_win_utility_matches_enumeration(ties):
    rng = np.random.default_rng(3)
    finals = [rng.random(n) * (rng.random(n) < 0.6) for n in (9, 14, 6)]
    finals = [p / p.sum() for p in finals]
    got = W.win_utility(finals, ties, length=20)
    np.testing.assert_allclose(got, win_utility(finals, 20, ties), rtol=0, atol=1e-14)
    assert got[-1] == pytest.approx(1.0)


def test_opponent_final_matches_reference():
    open_boxes = (2, 8, 12)
    opp = W.Opponent(sheet(RULES, open_boxes), 17)
    got = W.final_distribution(RULES, opp)
    ref = opponent_final(RULES, closed(open_boxes), 17, len(got) - 17)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)
    assert got.sum() == pytest.approx(1.0)


OPP_A, OPP_B = ((2, 8, 12), 25), ((0, 11), 33)
CASES = [
    # rules, my open boxes, my score, opponents (open boxes, score), dice, re-throws left, tie rule
    (RULES, (0, 2, 8, 11, 12), 20, [OPP_A, OPP_B], (6, 6, 1), 2, "share"),
    (RULES, (0, 2, 8, 11, 12), 20, [OPP_A], (3, 3, 3), 0, "lose"),
    (RULES, (0, 2, 8, 11, 12), 24, [OPP_A, OPP_B], (6, 5, 4), 1, "win"),
    (RULES, (0, 11, 12), 20, [((8, 12), 25)], (6, 6, 1), 2, "share"),
]


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c < 3 else c for c in range(len(CASES))])
def test_exact_advice_matches_brute_force(case):
    rules, mine, score, opps, dice, left, ties = CASES[case]
    opponents = [W.Opponent(sheet(rules, ob), s) for ob, s in opps]
    advice = W.advise_win(rules, sheet(rules, mine), dice, left, opponents, score=score, ties=ties, method="exact")
    finals = [opponent_final(rules, closed(ob), s, 200) for ob, s in opps]
    u = win_utility(finals, 400, ties)
    ref = Response(rules, u[score: score + 200]).options(closed(mine), dice, left)
    names = {(("box", rules.box_names[k]) if kind == "box" else ("keep", k)): v for (kind, k), v in ref.items()}
    got = {("box", o.box) if o.kind == "box" else ("keep", tuple(o.keep)): o.value for o in advice.options}
    assert set(got) == set(names)
    for key, v in names.items():
        assert got[key] == pytest.approx(v, abs=1e-9), key
    assert advice.value == pytest.approx(max(names.values()), abs=1e-9)
    assert [o.value for o in advice.options] == sorted((o.value for o in advice.options), reverse=True)
    assert 0 < advice.value < 1


@pytest.mark.slow
def test_table_answer_bounds_the_exact_one():
    rules, mine, score, opps, dice, left, ties = CASES[3]
    opponents = [W.Opponent(sheet(rules, ob), s) for ob, s in opps]
    pos = sheet(rules, mine)
    exact = W.advise_win(rules, pos, dice, left, opponents, score=score, ties=ties, method="exact")
    table = W.advise_win(rules, pos, dice, left, opponents, score=score, ties=ties, method="table")
    ex = {o.label: o.value for o in exact.options}
    tb = {o.label: o.value for o in table.options}
    assert set(ex) == set(tb)
    assert all(tb[k] >= ex[k] - 1e-12 for k in ex)
    assert table.value - exact.value < 0.05  # close, not equal: each target is played for separately
    assert any(tb[k] > ex[k] + 1e-6 for k in ex)


def test_bad_input_is_one_clear_error():
    with pytest.raises(PositionError, match="sheet then his score"):
        W.parse_opponent("aces=3 twos=-", RULES)
    with pytest.raises(PositionError, match="below"):
        W.parse_opponent("aces=3 twos=- 2", CategoryRules())
    with pytest.raises(JaxsolveError, match="tie rule"):
        W.win_utility([np.ones(1)], "half")
    with pytest.raises(JaxsolveError, match="at least one opponent"):
        W.advise_win(RULES, sheet(RULES, (0, 2)), (1, 2, 3), 0, [], score=0)
    opp = W.parse_opponent("aces=3 twos=- kniffel=50 53", CategoryRules())
    assert opp.score == 53 and opp.position.scores[0] == 3
    assert W.parse_opponent("start 0", CategoryRules()).position.is_over is False


@pytest.mark.slow
def test_simulated_games_agree_with_the_predicted_win_probability():
    """100,000 games of the win-probability policy from a late position, two opponents: the
    share of games won is within 3 standard errors of the engine's P(finish first)."""
    from jaxsolve.games.category.objectives import winning_simulate as S

    rules, mine, score, opps, *_ = CASES[0]
    pos = sheet(rules, mine)
    finals = [W.final_distribution(rules, W.Opponent(sheet(rules, ob), s)) for ob, s in opps]
    w = W.utility_of_points(rules, pos, score, W.win_utility(finals))
    table = W.response_table(rules, pos.filled, w)
    predicted = float(table.at(*pos.state(rules))[len(w) - 1])
    games = 100_000
    won = S.outcomes(score + S.play_table(table, pos.state(rules), len(w) - 1, games, seed=1).points, S.draw_finals(finals, games, seed=2))
    se = won.std() / np.sqrt(games)
    assert abs(won.mean() - predicted) < 3 * se
    assert 0.5 < predicted < 0.9  # a real contest: neither certain nor hopeless
