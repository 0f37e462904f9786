"""Checks every registered game passes, in float32 and float64 (a new game gets them by registering)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from jaxsolve import games
from jaxsolve.core.compile import cache_size
from jaxsolve.core.rules import Rules

GAMES = games.games()
IDS = [g.name for g in GAMES]


@pytest.fixture(params=["float32", "float64"])
def dtype(request):
    return request.param


def test_registry_has_every_game():
    assert {g.name for g in GAMES} >= {"kniffel", "yatzy", "raab", "zehntausend"}
    for g in GAMES:
        assert g.core in ("layered", "fixpoint")
        assert g.default in g.presets() and isinstance(g.get_rules(), Rules)


def check_solve(game, dtype):
    """Values of the small rules in ``dtype``, finite exactly on the states, no recompilation."""
    rules = game.small()
    first = game.solve(rules, dtype=dtype)
    before = cache_size()
    second = game.solve(rules, dtype=dtype)
    assert cache_size() == before and second.compile_seconds == 0.0
    values = np.asarray(game.values(second))
    assert values.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(values, np.asarray(game.values(first)))
    if game.reachable is not None:
        mask = game.reachable(rules)
        assert mask.shape == values.shape
        assert np.isfinite(values[mask]).all() and np.isnan(values[~mask]).all()
    else:
        assert np.isfinite(values).all()
    assert np.isfinite(second.game_value)


def check_export(game, dtype, folder):
    rules = game.small()
    sol = game.solve(rules, dtype=dtype)
    path = folder / f"{game.name}.npy"
    game.save(path, sol)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["rules"] == json.loads(json.dumps(rules.to_dict()))
    back = game.load(path)
    np.testing.assert_array_equal(np.asarray(game.values(back)), np.asarray(game.values(sol)))
    assert back.rules == rules
    check_export_proves_itself(game, path)


def check_export_proves_itself(game, path):
    """The export is bound to its game and its sidecar to its own hash (``jaxsolve.io.export``):
    an edited sidecar, and one resealed under another game's name, are refused."""
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.io import export

    sides = [export.sidecar_path(p) for p in (game.outputs(path) if game.outputs else [path]) if str(p).endswith(".npy")]
    original = {side: side.read_text() for side in sides}
    meta = json.loads(original[sides[0]])
    sides[0].write_text(json.dumps({**meta, "note": "edited"}))
    with pytest.raises(JaxsolveError, match="has been edited"):
        game.load(path)
    for side in sides:
        side.write_text(json.dumps(export.seal({**json.loads(original[side]), "game": "another-game"})))
    with pytest.raises(JaxsolveError, match=f"holds a table of 'another-game'.*not {game.name}"):
        game.load(path)
    for side, text in original.items():
        side.write_text(text)


def check_rules(game):
    for name in game.presets():
        rules = game.get_rules(name)
        assert type(rules).from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
        assert hash(rules) == hash(type(rules).from_dict(rules.to_dict()))


def check_game(game, dtype, folder):
    """Every check of this suite on one game (a game registered later, e.g. by a test, runs them)."""
    check_solve(game, dtype)
    if game.save is not None and game.load is not None:
        check_export(game, dtype, folder)
    check_rules(game)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_solve_values_and_no_recompilation(game, dtype):
    check_solve(game, dtype)


EXPORTING = [g for g in GAMES if g.save is not None and g.load is not None]


@pytest.mark.parametrize("game", EXPORTING, ids=[g.name for g in EXPORTING])
def test_export_round_trip(game, dtype, tmp_path):
    check_export(game, dtype, tmp_path)


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_rules_round_trip_through_metadata(game):
    check_rules(game)


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
