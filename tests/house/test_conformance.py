"""Every registered game passes the library's conformance checks (``jaxsolve.testing``): solve
and export in float32 and float64, rules through their metadata, seeded games of best and of
random choices with ``advise`` asked at every decision; a new game gets them by registering.
Further: one ``error:`` line for bad command-line input, and checks that fail where they must."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jaxsolve import games, testing
from jaxsolve.core.rules import Rules
from jaxsolve.games.game import Ranked

GAMES = games.games()
IDS = [g.name for g in GAMES]
EXPORTING = [g for g in GAMES if g.save is not None and g.load is not None]
PLAYABLE = [g for g in GAMES if g.play_game is not None]


@pytest.fixture(params=["float32", "float64"])
def dtype(request):
    return request.param


def test_registry_has_every_game():
    assert {g.name for g in GAMES} >= {"kniffel", "yatzy", "raab", "zehntausend"}
    for g in GAMES:
        assert g.core in testing.CORES
        assert g.default in g.presets() and isinstance(g.get_rules(), Rules)
    assert {g.name for g in PLAYABLE} >= {"kniffel", "raab", "zehntausend"}


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_registration(game):
    testing.check_registration(game)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_solve_values_and_no_recompilation(game, dtype):
    testing.check_solve(game, dtype)


@pytest.mark.parametrize("game", EXPORTING, ids=[g.name for g in EXPORTING])
def test_export_round_trip(game, dtype, tmp_path):
    """The export loads back, bound to its game; in float32 also to its rules by its values
    (``check_export_resealed``: every loader recomputes values from the rules its sidecar
    names); float64 that too in the slow run (the duel's loader takes seconds per rules)."""
    testing.check_export(game, dtype, tmp_path, resealed=dtype == "float32")


@pytest.mark.slow
@pytest.mark.parametrize("game", EXPORTING, ids=[g.name for g in EXPORTING])
def test_export_resealed_float64(game, tmp_path):
    testing.check_export(game, "float64", tmp_path)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_rules_round_trip_through_metadata(game):
    testing.check_rules(game)


@pytest.mark.parametrize("policy", testing.POLICIES)
@pytest.mark.parametrize("game", PLAYABLE, ids=[g.name for g in PLAYABLE])
def test_play_advise_save_and_replay(game, policy, tmp_path):
    played = testing.check_play(game, policy, seed=0, folder=tmp_path)
    assert played.over and played.decisions()


@pytest.mark.slow
@pytest.mark.parametrize("game", PLAYABLE, ids=[g.name for g in PLAYABLE])
def test_play_many_seeds(game, tmp_path):
    solution = None
    for seed in range(1, 21):
        for policy in testing.POLICIES:
            solution = testing.check_play(game, policy, seed, tmp_path, solution=solution).solution


CLI_GAMES = [g for g in GAMES if "solve" in g.commands]


@pytest.mark.parametrize("game", CLI_GAMES, ids=[g.name for g in CLI_GAMES])
@pytest.mark.parametrize("args", [["--rules", "no-such-rules"], ["--device", "tpu9"]])
def test_cli_bad_input_is_one_error_line(game, args):
    proc = subprocess.run(
        [sys.executable, "-m", "jaxsolve", "solve", game.name, *args], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1 and len(lines) == 1 and lines[0].startswith("error:"), proc.stderr


def test_unknown_game():
    with pytest.raises(Exception, match="unknown game"):
        games.get_game("chess")


@pytest.mark.parametrize(
    "options, message",
    [
        ([], "no options"),
        ([Ranked("a", 1.0, 0.0), Ranked("b", 1.0 + 1e-3, -1e-3)], "regret -0.001 < 0"),
        ([Ranked("a", 1.0, 0.1), Ranked("b", 0.9, 0.1)], "first option 'a' has regret 0.1"),
        ([Ranked("a", 1.0, 0.0), Ranked("b", 0.5, 0.25)], "has regret 0.25, but the values"),
    ],
)
def test_the_options_check_fails_where_it_must(options, message):
    with pytest.raises(AssertionError, match=message):
        testing.check_options(GAMES[0], options, "here")
    testing.check_options(GAMES[0], [Ranked("a", 1.0, 0.0), Ranked("b", 1.0 + 1e-12, 0.0), Ranked("c", 0.5, 0.5)], "here")


def test_a_duel_set_aside_past_the_bound_is_thrown_on():
    """Found by ``check_play`` (random choices): a duel set-aside that takes the turn total to
    the state bound goes on to the throw, which the advisor values (the set-aside is worth less
    than the write: the throw can bust)."""
    from jaxsolve import play

    g = games.get_game("zehntausend-duel")
    played = play.new_game(g.name, g.small(), seed=0)
    played.throw("1 1 1 5 5 2")
    option = played.choose("aside 1 1 1")
    assert 0.0 < option.value < 1.0 and option.regret > 0.0 and not played.over
    played.throw("5 2 3")
    assert played.options()[0].label == "write 1050" and played.options()[0].value == 1.0
    played.choose("write")
    assert played.over and played.state.you == g.small().bound


def test_registry_exports_every_solved_game():
    """Every game that writes a table (``solve --out``) registers its export, so the
    conformance run checks its loader too."""
    assert {g.name for g in EXPORTING} >= {"kniffel", "yatzy", "raab", "zehntausend", "zehntausend-duel"}


def test_the_export_check_fails_for_a_loader_that_trusts_its_rules(tmp_path):
    """``check_export`` (and so ``check_game``) reseals the sidecar with other rules: a loader
    that reads the rules without recomputing any value (here the test game's, its value check
    left out) fails it; the game's own loader passes."""
    import dataclasses

    import onedie_pig
    from jaxsolve.io import export

    def trusting_load(path):
        values, meta = export.load(path, game="one-die-pig")
        return onedie_pig.Solution(export.rules_from(path, meta, onedie_pig.OneDieRules), values, 0, 0.0, 0.0)

    trusting = dataclasses.replace(onedie_pig.GAME, load=trusting_load)
    with pytest.raises(AssertionError, match="resealed with other rules .* is accepted, although its values are not their solution"):
        testing.check_export(trusting, "float32", tmp_path)
    testing.check_export(onedie_pig.GAME, "float32", tmp_path)
