"""The one-turn tables of "Würfeln bei Schlag den Raab" (stefan-taube.de), P_SUM, the 'roll twice then stop' bound and the solitaire rule."""

from fractions import Fraction

import numpy as np
import pytest

from jaxsolve.games.raab import source_tables
from jaxsolve.games.raab.rules import PRESETS

RAAB = PRESETS["raab"]
EPS = 1e-12


def assert_printed(x, printed):
    """The page prints probabilities cut (not rounded) to 8 digits: printed <= x < printed + 1e-8."""
    assert printed - EPS <= x < printed + 1e-8 + EPS, (x, printed)


# (S, A, P) rows of the page's tables V for R = 2 and R = 3 (every nonzero row is listed).
R2 = [(0, 0, 0.16666666), (1, 0, 0.02777777), (2, 0, 0.02777777), (2, 1, 0.02777777), (3, 0, 0.02777777),
      (3, 1, 0.05555555), (4, 0, 0.02777777), (4, 1, 0.08333333), (5, 0, 0.02777777), (5, 1, 0.11111111),
      (6, 1, 0.13888888), (7, 1, 0.11111111), (8, 1, 0.08333333), (9, 1, 0.05555555), (10, 1, 0.02777777)]
R3 = [(0, 0, 0.16666666), (1, 0, 0.02777777), (2, 0, 0.03240740), (3, 0, 0.03703703), (3, 1, 0.00462962),
      (4, 0, 0.04166666), (4, 1, 0.01388888), (5, 0, 0.04629629), (5, 1, 0.02777777), (6, 0, 0.02314814),
      (6, 1, 0.04629629), (7, 0, 0.01851851), (7, 1, 0.06944444), (8, 0, 0.01388888), (8, 1, 0.08333333),
      (9, 0, 0.00925925), (9, 1, 0.08796296), (10, 0, 0.00462962), (10, 1, 0.08333333), (11, 1, 0.06944444),
      (12, 1, 0.04629629), (13, 1, 0.02777777), (14, 1, 0.01388888), (15, 1, 0.00462962)]
R2_PSUM = [1.0, 0.83333333, 0.80555555, 0.75, 0.66666666, 0.55555555, 0.41666666, 0.27777777, 0.16666666,
           0.08333333, 0.02777777]
# (S, P, P_SUM) rows of the page's table E (200 rolls).
E_ROWS = [(0, 0.16666666, 1.0), (1, 0.02777777, 0.83333333), (2, 0.03240740, 0.80555555), (3, 0.03780864, 0.77314814),
          (4, 0.04411008, 0.73533950), (5, 0.05146176, 0.69122942), (6, 0.03226094, 0.63976766),
          (10, 0.03036066, 0.50906544), (15, 0.02188012, 0.37778469), (20, 0.01621742, 0.28048013),
          (32, 0.00793745, 0.13720386), (40, 0.00492754, 0.08517759), (49, 0.00288210, 0.04982011),
          (50, 0.00271537, 0.04693800), (79, 0.00048228, 0.00833686), (80, 0.00045438, 0.00785457),
          (81, 0.00042810, 0.00740018)]


@pytest.fixture(scope="module")
def dist():
    return source_tables.turn_distribution(RAAB, 3)


def test_round_one_uniform(dist):
    assert np.allclose(dist[0, 0, 0], 1 / 6) and np.allclose(dist[0, 1, 1:6], 1 / 6)
    assert np.count_nonzero(dist[0] > 0) == 6


@pytest.mark.parametrize(("r", "rows"), [(2, R2), (3, R3)])
def test_rounds_two_and_three(dist, r, rows):
    table = dist[r - 1]
    assert table.sum() == pytest.approx(1.0, abs=1e-15)
    for s, a, p in rows:
        assert_printed(table[a, s], p)
    assert np.count_nonzero(table > 0) == len(rows)


def test_exact_fraction_r2():
    assert source_tables.turn_distribution(RAAB, 2)[1, 1, 6] == pytest.approx(float(Fraction(5, 36)), abs=1e-16)


def test_r2_grouped_psum(dist):
    grouped = dist[1].sum(axis=0)
    psum = np.cumsum(grouped[::-1])[::-1]
    for s, printed in enumerate(R2_PSUM):
        assert_printed(psum[s], printed)


def test_e_table_and_reach_figures():
    p, p_sum = source_tables.reach_table(RAAB, 200)
    for s, printed_p, printed_sum in E_ROWS:
        assert_printed(p[s], printed_p)
        assert_printed(p_sum[s], printed_sum)
    assert p.sum() == pytest.approx(1.0, abs=1e-14)
    # The P_SUM recurrence q(x) = 1/6 sum_f q(x - f), q(<= 0) = 1, computed independently in Fractions.
    q = {x: Fraction(1) for x in range(-5, 1)}
    for x in range(1, 82):
        q[x] = sum(q[x - f] for f in range(1, 6)) / 6
    for s in (4, 10, 32, 50, 81):
        assert p_sum[s] == pytest.approx(float(q[s]), abs=1e-14)


def test_equalize_bound():
    assert_printed(source_tables.equalize_bound(RAAB, 2), 0.75741652)
    # An opponent who stops after one roll is easier to equal than one who rolls twice.
    assert 1.0 > source_tables.equalize_bound(RAAB, 1) > source_tables.equalize_bound(RAAB, 2) > source_tables.equalize_bound(RAAB, 3)


def test_solitaire_stop_at_15_and_pig_20():
    stop_from, expected, roll, stop = source_tables.solitaire(RAAB)
    assert stop_from == 15
    assert np.all(roll[1:15] > stop[1:15]) and np.all(roll[15:100] <= stop[15:100] + 1e-12)
    assert roll[15] == pytest.approx(15.0, abs=1e-12)  # (5 * 15 + 15) / 6 = 15: indifferent, the page stops
    assert source_tables.solitaire(PRESETS["pig"])[0] == 20  # Pig's well-known "hold at 20"
