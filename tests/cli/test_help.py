"""Every command's ``--help`` is built from its ``Param`` values and says only what applies: no
value placeholder for a flag, a number's shown range is the range its one check takes, and no
option speaks of a solution cache to a game that keeps none."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from jaxsolve import games
from jaxsolve.cli import build_app, game_commands
from jaxsolve.cli.commands import TABLE
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import INT_LIMIT, Param

runner = CliRunner()
APP = build_app()
COMMANDS = [(name, g.name) for g in games.games() for name in game_commands(APP, g.name)]


def _help(*args: str) -> str:
    result = runner.invoke(APP, [*args, "--help"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("name, game", COMMANDS)
def test_flags_show_no_placeholder_and_ranges_are_the_checked_ones(name, game):
    text = _help(name, game)
    assert "<bool>" not in text and "BOOLEAN" not in text
    g = games.get_game(game)
    params = list(g.commands[name].params) if name in g.commands else [*g.play_params, *g.play_options]
    for p in params:
        if p.range_text() is not None and not p.argument:
            assert f"[{p.range_text()}]" in text, (p.name, p.range_text())


@pytest.mark.parametrize("args", [(), ("solve",), ("simulate",), ("cache",), ("cache", "list"), ("bench",), ("serve",), ("games",)])
def test_groups_and_plain_commands_show_no_flag_placeholder(args):
    text = _help(*args)
    assert "<bool>" not in text and "BOOLEAN" not in text


def test_a_range_shown_is_the_range_refused():
    only_min = Param("upper", int, 0, min=0)
    assert only_min.bounds() == (0, INT_LIMIT) and only_min.range_text() == f"0<=x<={INT_LIMIT}"
    assert only_min.check(0) == 0 and only_min.check(INT_LIMIT) == INT_LIMIT
    for bad in (-1, INT_LIMIT + 1):
        with pytest.raises(JaxsolveError, match=f"--upper must be between 0 and {INT_LIMIT:,}"):
            only_min.check(bad)
    declared = Param("seed", int, 0, min=0, max=2**63 - 1)
    assert declared.check(2**63 - 1) == 2**63 - 1  # a declared bound is the bound, not the general guard
    listed = Param("at", list, None, item=int, min=0)
    assert listed.check(["3", 4]) == [3, 4]
    with pytest.raises(JaxsolveError, match="--at must be between 0 and"):
        listed.check([5, -1])
    with pytest.raises(JaxsolveError, match="--tol must be a finite number"):
        Param("tol", float).check(float("nan"))


def test_games_without_a_solution_cache_are_not_told_of_one():
    assert "cache" not in TABLE.help
    for g in games.games():
        advise = g.commands.get("advise")
        if g.family != "category" and advise is not None:
            assert "cache" not in (advise.quiet_help or ""), g.name


def test_show_heuristic_is_offered_where_the_game_has_ratings_only():
    assert "--show-heuristic" in _help("play", "kniffel")
    for game in ("yatzy", "maxi", "raab", "zehntausend", "zehntausend-duel"):
        assert "--show-heuristic" not in _help("play", game)
    result = runner.invoke(APP, ["play", "zehntausend", "--show-heuristic"])
    assert result.exit_code == 1 and result.stderr.startswith("error: No such option: --show-heuristic")
