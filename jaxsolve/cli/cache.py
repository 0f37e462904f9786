"""``jaxsolve cache list|clear|path``: the solution cache's entries."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from jaxsolve.cli.common import CacheOpt, Command, JsonOpt, group, handle_errors

cache_app = group(None, "Show or remove the solved tables in the solution cache folder.")


def add_cache_commands(app: typer.Typer) -> None:
    app.add_typer(cache_app, name="cache")

GameOpt = Annotated[Optional[str], typer.Option("--game", help="Only this game's tables.")]


def _configure(cache_dir: Optional[Path]) -> None:
    from jaxsolve.io import cache

    cache.configure(cache_dir)


def _check_game(game: Optional[str]) -> Optional[str]:
    from jaxsolve import games

    if game is not None:
        games.get_game(game)  # an unknown name is a clear error
    return game


@cache_app.command("list", cls=Command)
@handle_errors
def list_entries(game: GameOpt = None, cache_dir: CacheOpt = None, as_json: JsonOpt = False):
    """Every cached table: game, rules, objective, dtype, size, date."""
    from jaxsolve.io import cache

    _configure(cache_dir)
    rows = cache.entries(_check_game(game))
    if as_json:
        typer.echo(json.dumps({"root": str(cache.root()), "entries": [e.to_dict() for e in rows]}))
        return
    typer.echo(f"cache folder {cache.root()}: {len(rows)} table(s)")
    for e in rows:
        when = _dt.datetime.fromtimestamp(e.modified).strftime("%Y-%m-%d %H:%M")
        typer.echo(f"  {e.game:10} {e.rules:22} {e.objective:6} {e.dtype:8} {e.bytes / 2**20:8.1f} MiB  {when}  {e.path.name}")


@cache_app.command("clear", cls=Command)
@handle_errors
def clear_entries(game: GameOpt = None, cache_dir: CacheOpt = None):
    """Remove the cached tables (all, or one game's); compiled programs are kept."""
    from jaxsolve.io import cache

    _configure(cache_dir)
    removed = cache.clear(_check_game(game))
    typer.echo(f"removed {len(removed)} file(s) from {cache.root() / cache.TABLES}")


@cache_app.command("path", cls=Command)
@handle_errors
def cache_path(cache_dir: CacheOpt = None):
    """Print the cache folder."""
    from jaxsolve.io import cache

    _configure(cache_dir)
    typer.echo(str(cache.root()))
