"""The objective as a value: one per objective, hashable, and the advisor's options refused from
what each objective declares."""

import pytest

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import objective as O


def test_every_objective_is_a_hashable_value_named_once():
    assert len({o.name for o in O.OBJECTIVES.values()}) == len(O.OBJECTIVES)
    assert len(set(O.OBJECTIVES.values())) == len(O.OBJECTIVES)  # hashable, all different
    assert O.objective("score") is O.SCORE and O.objective(O.WIN) is O.WIN
    assert [o.name for o in O.OBJECTIVES.values() if o.scalar] == ["score", "goals"]
    with pytest.raises(JaxsolveError, match="unknown objective 'points'"):
        O.objective("points")


@pytest.mark.parametrize(
    "scalar, opponent, against, expected",
    [(None, False, False, "score"), ("goals", False, False, "goals"), (None, True, False, "win"), ("goals", True, False, "win"), (None, True, True, "twoplayer")],
)
def test_a_request_asks_for_one_objective(scalar, opponent, against, expected):
    assert O.for_advice(scalar, opponent=opponent, against=against).name == expected


def test_for_advice_takes_only_scalar_objectives_by_name():
    with pytest.raises(JaxsolveError, match="score or goals, not target"):
        O.for_advice("target", opponent=False, against=False)


def test_each_objective_takes_what_it_declares_and_refuses_the_rest():
    every = sorted(set().union(*(o.options for o in O.OBJECTIVES.values())))
    for o in O.OBJECTIVES.values():
        o.refuse({name: name in o.options for name in every})  # its own options pass
        for name in every:
            if name in o.options:
                continue
            with pytest.raises(JaxsolveError) as e:
                o.refuse({name: True})
            assert o.asked_by in str(e.value) and len(str(e.value).splitlines()) == 1


def test_a_refusal_names_where_the_option_belongs():
    with pytest.raises(JaxsolveError, match=r"--they-started \(it goes with --against\)"):
        O.SCORE.refuse({"they_started": True, "batch": False})
    with pytest.raises(JaxsolveError, match=r"--opponent \(that ranks by the probability to finish first\)"):
        O.TWOPLAYER.refuse({"opponent": True})
    with pytest.raises(JaxsolveError, match=r"--strategy heuristic"):
        O.WIN.refuse({"heuristic": True})


def test_play_refuses_two_player_settings_against_expected_score_players():
    from jaxsolve import play
    from jaxsolve.games.played import PlayError

    with pytest.raises(PlayError, match="against expected: .* takes no --ties"):
        play.new_game("yacht", seed=1, ties="win")
