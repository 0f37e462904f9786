"""``jaxsolve cache list|clear|path|warm``: the solution cache's entries, and solving them ahead
of time."""

from __future__ import annotations

import datetime as _dt
import json
import time
from pathlib import Path
from typing import Annotated, List, Optional

import typer

from jaxsolve.cli.common import CacheOpt, Command, Device, DeviceOpt, JsonOpt, Run, group, handle_errors
from jaxsolve.errors import JaxsolveError

cache_app = group(None, "Show, remove or fill (warm) the solved tables in the solution cache folder.")


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
        typer.echo(f"  {e.game:16} {e.rules:22} {e.objective:6} {e.dtype:8} {e.bytes / 2**20:8.1f} MiB  {when}  {e.path.name}")


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


@cache_app.command("warm", cls=Command)
@handle_errors
def warm(
    game: Annotated[Optional[str], typer.Argument(help="The game (`jaxsolve games` lists them); none with --all.", show_default=False)] = None,
    rules: Annotated[Optional[List[str]], typer.Option("--rules", "-r", help="A preset to solve (repeat for several; default: the game's default preset).")] = None,
    every: Annotated[bool, typer.Option("--all", help="Every registered game's default preset (every game that writes a table file).")] = False,
    x64: Annotated[
        Optional[bool], typer.Option("--x64/--x32", help="Solve in float64 or float32 (default: the precision of the game's advise).", show_default=False)
    ] = None,
    device: DeviceOpt = Device.auto,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars or notes; print only one line per table.")] = False,
    cache_dir: CacheOpt = None,
):
    """Solve and cache a game's tables ahead of time, or with --all every game's default table
    (one line per table: already cached, or solved and cached, with the seconds it took), with
    progress on stderr. These are the tables the page (``jaxsolve serve``) and every command
    read: one table per rule set."""
    from jaxsolve import games
    from jaxsolve.io import cache

    if every == (game is not None):
        raise JaxsolveError("name a game, or give --all for every game's default table")
    if every and rules:
        raise JaxsolveError("--rules names presets of one game; --all solves every game's default preset")
    if every:
        chosen = [(g, g.get_rules()) for g in games.games() if g.save is not None and g.load is not None]
    else:
        assert game is not None
        g = games.get_game(game)
        chosen = [(g, g.get_rules(name)) for name in (rules or [g.default])]  # every preset checked before any solve
        if g.save is None or g.load is None:
            raise JaxsolveError(f"{g.name} writes no table file, so it has nothing to cache")
    dtypes = [warm_dtype(g) if x64 is None else ("float64" if x64 else "float32") for g, _ in chosen]
    run = Run(device=device, x64="float64" in dtypes, quiet=quiet, cache_dir=cache_dir)
    where = run.setup()
    for (g, r), dtype in zip(chosen, dtypes):
        found = cache.status(g, r, dtype=dtype)
        if found.cached:
            typer.echo(f"{g.name} {r.name} ({dtype}): already cached at {found.path}")
            continue
        t0 = time.perf_counter()
        cache.solution(g, r, dtype=dtype, device=where)
        path = cache.entry_path(g.name, r, cache.objective_of(g), dtype)
        kept = f"cached at {path}" if path.is_file() else "not cached (see the note above)"
        typer.echo(f"{g.name} {r.name} ({dtype}): solved in {time.perf_counter() - t0:.1f} s, {kept}")


def warm_dtype(game) -> str:
    """The precision of the table ``game``'s advise answers from (the game's own where it has no advise)."""
    advise = game.commands.get("advise")
    return (advise.precision if advise is not None and advise.precision in ("float32", "float64") else None) or game.precision
