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
    testing.check_export(game, dtype, tmp_path)


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


def raab_exporting():
    """Raab as an exporting game: its export (values and policy, ``raab.table_io``) saved and
    loaded, the values compared in the export's layout."""
    import dataclasses

    import numpy as np

    from jaxsolve.games.raab import solver, table_io

    def values(x):
        return x.values if isinstance(x, table_io.PigExport) else table_io.turn_total_layout(x.rules, solver.full(x).value, np.nan)

    game = games.get_game("raab")
    return dataclasses.replace(game, save=table_io.save_export, load=table_io.load_export, values=values)


RESEALED = EXPORTING + ([raab_exporting()] if all(g.name != "raab" for g in EXPORTING) else [])


@pytest.mark.parametrize("game", RESEALED, ids=[g.name for g in RESEALED])
def test_a_sidecar_resealed_with_other_rules_is_refused(game, tmp_path):
    """Every loader recomputes values from the rules its sidecar names: a sidecar rewritten
    whole, with a correct seal, naming other valid rules of the same game is refused."""
    path = tmp_path / f"{game.name}.npy"
    game.save(path, game.solve(game.small(), dtype="float32"))
    assert testing.other_rules(game, game.small())
    testing.check_export_resealed(game, path, "float32")
