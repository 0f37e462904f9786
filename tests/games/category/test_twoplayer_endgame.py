"""Two-player end games from real sheets (``twoplayer.solve(start=)``) and the seat policies of
``twoplayer.simulate``: against the unrestricted solve, the independent brute force, and the
exact values of the one-player models."""

from __future__ import annotations

import numpy as np
import pytest
from test_twoplayer import YAHTZEE_TINY, check_layers, engine_vector, mask, reference_for

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.objectives import twoplayer
from jaxsolve.games.category.sheets import yacht

TINY_OPEN = ("twos", "threes", "kniffel")
"""Yahtzee scoring on two dice (upper bonus 35 at 5, the extra bonus 100): three open boxes, so
the upper total and the Yahtzee box's state vary along the game."""


def restricted_rows(table):
    """Every (layer, mover's sheet, other's sheet) of a kept solve."""
    for p in table.plans:
        mine, theirs = table.sheets[p.mover], table.sheets[1 - p.mover]
        for row in range(p.pairs):
            j, i = divmod(row, p.movers)
            yield (
                (int(mine.filled[p.a][i]), int(mine.upper[p.a][i]), int(mine.held[p.a][i])),
                (int(theirs.filled[p.b][j]), int(theirs.upper[p.b][j]), int(theirs.held[p.b][j])),
            )


@pytest.fixture(scope="module")
def tiny_full():
    m = mask(YAHTZEE_TINY, TINY_OPEN)
    return twoplayer.solve(YAHTZEE_TINY, mine=m, theirs=m, keep="all", dtype="float64")


@pytest.mark.parametrize("uppers", [(4, 1), pytest.param((5, 4), marks=pytest.mark.slow), pytest.param((0, 0), marks=pytest.mark.slow)], ids=["4-1", "5-4", "0-0"])
def test_restricted_solve_equals_the_unrestricted_one(tiny_full, uppers):
    """From real sheets (upper totals 4 / 1 and others), only the sheets reached from them are
    solved: fewer pairs, and on every one of them, every lead, the unrestricted solve's values
    to 1e-12."""
    m = mask(YAHTZEE_TINY, TINY_OPEN)
    start = ((m, uppers[0], 0), (m, uppers[1], 0))
    table = twoplayer.solve(YAHTZEE_TINY, start=start, keep="all", dtype="float64")
    assert sum(p.pairs for p in table.plans) < sum(p.pairs for p in tiny_full.plans) or uppers == (0, 0)
    reach = 700
    worst, count = 0.0, 0
    for mine, theirs in restricted_rows(table):
        got = engine_vector(table, mine, theirs, reach)
        want = engine_vector(tiny_full, mine, theirs, reach)
        worst = max(worst, float(np.abs(got - want).max()))
        count += 1
    assert count > 20 and worst < 1e-12
    assert table.start == pytest.approx(tiny_full.value(*start, 0), abs=1e-12)


def test_restricted_solve_matches_the_brute_force():
    """A start where the player to move is the second player and the upper totals differ:
    every kept pair of every layer against the brute force, all leads, to 1e-9."""
    rules = YAHTZEE_TINY
    start = ((mask(rules, ("threes", "kniffel")), 4, 0), (mask(rules, ("kniffel",)), 5, 0))
    table = twoplayer.solve(rules, start=start, keep="all", dtype="float64")
    ref = reference_for(rules, "share")
    assert check_layers(table, ref) >= 5
    want = ref.value(("threes", "kniffel"), ("kniffel",), 7, mine_upper=4, theirs_upper=5, starter_moves=False)
    assert table.value(*start, 7) == pytest.approx(want, abs=1e-9)


def test_start_input_is_one_clear_error():
    rules = YAHTZEE_TINY
    m = mask(rules, TINY_OPEN)
    with pytest.raises(JaxsolveError, match="not a reachable sheet"):
        twoplayer.solve(rules, start=((m, 3, 0), (m, 0, 0)))  # aces, fours, fives, sixes on two dice never make 3
    with pytest.raises(JaxsolveError, match="not the start's filled boxes"):
        twoplayer.solve(rules, mine=m ^ 1, start=((m, 0, 0), (m, 0, 0)))
    with pytest.raises(JaxsolveError, match="start is"):
        twoplayer.solve(rules, start=(m, 0, 0))


# ----------------------------------------------------------------------------- seats


SEAT_RULES = yacht.small().replace(dice=2)


SEAT_START = ((mask(SEAT_RULES, ("fives", "yacht", "choice")), 0, 0), (mask(SEAT_RULES, ("fives", "yacht")), 0, 0))
"""Two dice, the player to move second with three open boxes against two; he leads by 3."""


@pytest.fixture(scope="module")
def seat_table():
    return twoplayer.solve(SEAT_RULES, start=SEAT_START, keep="all", dtype="float64")


@pytest.fixture(scope="module")
def seat_models(seat_table):
    return twoplayer.SeatModels(SEAT_RULES, SEAT_START, 3, seat_table.tie)


def test_optimal_seats_match_the_table(seat_table):
    """Optimal against optimal from a real position 3 points up: the mean of 20,000 games within
    4 standard errors of the table's value there."""
    played = twoplayer.simulate(seat_table, 20_000, seed=3, lead=3)
    want = seat_table.value(*SEAT_START, 3)
    assert 0.5 < want < 1.0 and played.seats == ("optimal", "optimal")
    assert abs(played.mean - want) < 4 * played.standard_error


@pytest.mark.slow
def test_seat_zero_second_counts_ties_for_the_starter():
    """One die, seat 0 the second player: a tie (frequent here) is worth ``1 - TIES[tie]`` to
    him. Under ``win`` and ``lose`` optimal play's mean matches the table's value and ``score``
    against ``score`` its exact value (20,000 games, 4 standard errors), and the two tie rules
    differ by far more than that."""
    rules = yacht.small().replace(dice=1)
    start = ((mask(rules, ("ones", "twos", "threes")), 0, 0), (mask(rules, ("ones", "twos")), 0, 0))
    exact = {}
    for tie in ("win", "lose"):
        table = twoplayer.solve(rules, tie=tie, start=start, keep="all", dtype="float64")
        played = twoplayer.simulate(table, 20_000, seed=5, lead=0)
        assert abs(played.mean - table.value(*start, 0)) < 4 * played.standard_error
        models = twoplayer.SeatModels(rules, start, 0, tie)
        played = twoplayer.simulate(table, 20_000, seed=6, seats=("score", "score"), models=models)
        exact[tie] = models.exact(("score", "score"))
        assert abs(played.mean - exact[tie]) < 4 * played.standard_error
        assert played.ties > 0.05
    assert exact["lose"] - exact["win"] > 0.05  # the tie goes to seat 1 under win


@pytest.mark.slow
@pytest.mark.parametrize("seats", [("score", "score"), ("table", "score"), ("score", "table")])
def test_seat_means_match_their_exact_values(seat_table, seat_models, seats):
    """The one-player players against ``score``, 20,000 games: the mean within 4 standard errors
    of the exact value (the two distributions' convolution, or the response's value)."""
    played = twoplayer.simulate(seat_table, 20_000, seed=3, seats=seats, lead=3, models=seat_models)
    want = seat_models.exact(seats)
    assert want is not None and 0.5 < want < 1.0
    assert abs(played.mean - want) < 4 * played.standard_error


@pytest.mark.slow
def test_the_response_beats_the_expected_score_player(seat_models):
    """Against an expected-score player the static response wins at least as often as the
    expected-score player does in his seat (exact values): it is the best response to that play."""
    score, response = seat_models.exact(("score", "score")), seat_models.exact(("table", "score"))
    assert response >= score - 1e-12
    assert seat_models.exact(("score", "table")) <= score + 1e-12
    assert seat_models.exact(("optimal", "score")) is None
    bare = twoplayer.unsolved(SEAT_RULES, start=SEAT_START)
    played = twoplayer.simulate(bare, 200, seed=1, seats=("score", "score"), lead=3, models=seat_models)
    assert played.seats == ("score", "score") and len(played.score) == 200
    with pytest.raises(JaxsolveError, match="built for another start"):
        twoplayer.simulate(bare, 10, seats=("score", "score"), lead=0, models=seat_models)


def test_seats_check_their_input(seat_table):
    with pytest.raises(JaxsolveError, match="seats are two of"):
        twoplayer.simulate(seat_table, 10, seats=("optimal", "greedy"))
    bare = twoplayer.unsolved(SEAT_RULES, start=SEAT_START)
    with pytest.raises(JaxsolveError, match="needs every layer"):
        twoplayer.simulate(bare, 10, seats=("optimal", "score"), lead=3)


# ----------------------------------------------------------------------------- Yahtzee's rules, end-game exports


LAST_BOX = [
    ("yahtzee", "large_straight", 62, 1),  # the forced joker: a Yahtzee scores 40 here and the extra 100
    ("kniffel", "large_straight", 62, 1),  # Kniffel's joker
    ("yahtzee", "fours", 59, 1),  # the upper bonus at stake, the extra bonus beside
    ("yahtzee", "kniffel", 63, 0),
]


@pytest.mark.slow
@pytest.mark.parametrize("preset, open_box, upper, held", LAST_BOX, ids=[f"{c[0]}-{c[1]}" for c in LAST_BOX])
def test_last_box_against_a_full_sheet_is_the_target_objective(preset, open_box, upper, held):
    """The second player's last box against a full sheet, ties going to him: his P(win) at a lead
    L is P(at least -L more points), the target objective's (``target.solve_target``, written
    apart from this engine) for every lead of the window, to 1e-12: Yahtzee's joker, the extra
    bonus and the upper bonus as the one-player engine takes them."""
    from jaxsolve.games.category.sheets import kniffel
    from jaxsolve.games.category.objectives import target as TG

    rules = kniffel.get_rules(preset)
    mine = (rules.full_mask & ~(1 << rules.box_names.index(open_box)), upper, held)
    table = twoplayer.solve(rules, tie="lose", start=(mine, (rules.full_mask, 0, 0)), dtype="float64")
    want = TG.solve_target(rules, dtype="float64", keep="start", start=mine, shapes="bucket").at(*mine)
    leads, got = table.values(mine, (rules.full_mask, 0, 0))
    t = np.clip(-leads, 0, None)
    expected = np.where(t < len(want), want[np.minimum(t, len(want) - 1)], 0.0)
    assert np.abs(got - expected).max() < 1e-12
    assert 0.0 < got.min() < got.max() == pytest.approx(1.0)


def test_endgame_export_round_trip_and_refusals(tmp_path):
    """A position's end game written and read back bit for bit; a changed layer file, another
    game's name or a full set beyond the limit refused with one clear line."""
    from jaxsolve.games.category.objectives.twoplayer import endgame as E

    assert E.TIE_RULES == tuple(twoplayer.TIES) and E.CHUNK == twoplayer.DEFAULT_CHUNK
    table = E.solve_endgame(SEAT_RULES, start=SEAT_START, dtype="float64")
    path = tmp_path / "end.npy"
    paths = E.save_endgame(path, table, game="yacht")
    got = E.load_endgame(path, game="yacht", rules=SEAT_RULES)
    assert len(paths) == len(table.plans)
    for p in table.plans:
        assert np.array_equal(got.layers[p.n], table.layers[p.n])
    assert got.value(*SEAT_START, 3) == table.value(*SEAT_START, 3)
    with pytest.raises(JaxsolveError, match="holds a table of 'yacht'"):
        E.load_endgame(path, game="kniffel")
    member = sorted(tmp_path.glob("end-layer_*.npy"))[0]
    a = np.load(member)
    a[0, 0] = 1.0 - a[0, 0] if a[0, 0] != 0.5 else 0.25
    np.save(member, a)
    with pytest.raises(JaxsolveError, match="not the layer_"):
        E.load_endgame(path, game="yacht")
    cost = E.endgame_cost(SEAT_RULES, open_boxes=2)
    assert cost.values == sum(pairs * width for _, pairs, width in cost.layers)
    with pytest.raises(JaxsolveError, match="state-lead values"):
        E.solve_endgame(SEAT_RULES, open_boxes=2, max_values=cost.values - 1)


@pytest.mark.slow
def test_endgame_command_writes_a_loadable_set(tmp_path):
    """``twoplayer-endgame yacht --open 1``: every position with one box open each, loadable."""
    from typer.testing import CliRunner

    from jaxsolve.cli import app
    from jaxsolve.games.category.objectives.twoplayer import endgame as E

    out = tmp_path / "yacht1.npy"
    result = CliRunner().invoke(app, ["twoplayer-endgame", "yacht", "--open", "1", "--out", str(out), "--quiet", "--json"])
    assert result.exit_code == 0, result.output
    table = E.load_endgame(out, game="yacht")
    assert [p.n for p in table.plans] == [22, 23, 24]


def test_endgame_command_bad_input_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from jaxsolve.cli import app

    runner = CliRunner()
    for args, message in (
        (["--open", "1"], "give --out"),
        (["--mine", "aces=3 3"], "give both --mine and --theirs"),
        (["--rules", "yahtzee", "--open", "2", "--out", str(tmp_path / "y.npy")], "4,634,454,607 state-lead values"),
    ):
        game = "kniffel" if "--rules" in args else "yacht"
        result = runner.invoke(app, ["twoplayer-endgame", game, *args])
        assert result.exit_code == 1, result.output
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_endgame_command_answers_a_position(tmp_path):
    """``twoplayer-endgame kniffel --mine --theirs``: a Yahtzee position with one box open each
    (the Yahtzee box against a full house), its P(win) the library's value at the scores' lead,
    the written table loadable."""
    import json

    from typer.testing import CliRunner

    from jaxsolve.cli import app
    from jaxsolve.games.category.sheets import kniffel
    from jaxsolve.games.category.objectives.twoplayer import endgame as E

    upper = "aces=3 twos=6 threes=9 fours=12 fives=15 sixes=18"
    mine = f"{upper} three_kind=20 four_kind=- full_house=25 small_straight=30 large_straight=40 chance=23 236"
    theirs = f"{upper} three_kind=22 four_kind=24 kniffel=50 small_straight=30 large_straight=40 chance=21 285"
    out = tmp_path / "pos.npy"
    args = ["twoplayer-endgame", "kniffel", "--rules", "yahtzee", "--x64", "--quiet", "--json", "--mine", mine, "--theirs", theirs, "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["lead"] == -49
    rules = kniffel.get_rules("yahtzee")
    table = E.load_endgame(out, game="kniffel", rules=rules)
    start = tuple(tuple(s) for s in answer["start"])
    assert answer["p_win"] == pytest.approx(table.value(start[0], start[1], -49), abs=1e-15)
    assert 0.0 < answer["p_win"] < 0.1  # 49 behind: he needs the Yahtzee (50) and the other to miss his full house
