"""The ``jaxsolve`` command line: a thin layer over library calls."""

from __future__ import annotations

import sys

import typer

from jaxsolve.cli.common import Command, Group, flush_stdout


class OneLineErrors(Group):
    """The top-level group: typer's/click's own usage errors (unknown options, values out of
    range, missing options) come out like every other error, as one ``error: ...`` line on
    stderr with exit status 1, instead of a usage box with exit status 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            return self._main(args, prog_name, complete_var, standalone_mode, **extra)
        finally:  # a JAX setup a command deferred (``Run.setup(jax=False)``) ends with the command
            from jaxsolve.io import cache

            cache.defer_jax(None)

    def _main(self, args, prog_name, complete_var, standalone_mode, **extra):
        if not standalone_mode:
            return super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
        try:
            refuse_empty(sys.argv[1:] if args is None else list(args))
            check_environment()
            code = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
            flush_stdout()
        except typer.Abort:
            _error("aborted")
        except typer.TyperException as exc:  # click's ClickException and its usage errors
            if type(exc).__name__ == "NoArgsIsHelpError":  # a group called without a command: its help
                exc.show()
                sys.exit(exc.exit_code)
            message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
            message = " ".join(message.split())
            ctx = getattr(exc, "ctx", None)
            hint = f" (see `{ctx.command_path} --help`)" if ctx is not None and type(exc).__name__ != "ClickException" else ""
            _error(f"{message}{hint}")
        sys.exit(code if isinstance(code, int) else 0)


def check_environment() -> None:
    """A clear error for a malformed ``$JAX_NUM_CPU_DEVICES`` (the number of CPU devices a
    layered solve shares each layer between; JAX itself would stop with a traceback when it starts)."""
    import os

    value = os.environ.get("JAX_NUM_CPU_DEVICES")
    if value is not None and value.strip() and not (value.strip().isdigit() and 1 <= int(value) <= 1024):
        raise typer.BadParameter(f"JAX_NUM_CPU_DEVICES must be a whole number of CPU devices between 1 and 1024, got {value!r}")


def refuse_empty(args: list[str]) -> None:
    """An empty argument (``--rules ''``, ``--cache-dir ''``, ``--out=``) is an error, not the
    default or the current folder."""
    for i, arg in enumerate(args):
        if arg == "":
            before = args[i - 1] if i else ""
            _error(f"{before} takes a non-empty value" if before.startswith("-") else "an empty argument is not allowed")
        if arg.startswith("--") and arg.endswith("=") and "=" not in arg[:-1]:
            _error(f"{arg[:-1]} takes a non-empty value")


def _error(message: str) -> None:
    try:
        sys.stderr.write(f"error: {message}\n")
        sys.stderr.flush()
    except OSError:
        pass
    sys.exit(1)


def build_app() -> typer.Typer:
    """The command line from the game registry as it stands: every command a game registers
    (``solve``, ``advise``, ``plot``, ``tables``, ``play`` and the games' own) with one
    subcommand per game offering it, and ``games``, ``bench``, ``cache``, ``serve``."""
    from jaxsolve import games as registry
    from jaxsolve.cli import bench, cache, commands, play, serve

    app = typer.Typer(
        cls=OneLineErrors,
        help="Exact optimal strategies for dice games in JAX (`jaxsolve games` lists them and their commands).",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
    )
    found = registry.games()
    names = commands.command_names(found)
    commands.add_commands(app, found, [n for n in names if n in commands.HELP])
    play.add_play_command(app, found)
    commands.add_commands(app, found, [n for n in names if n not in commands.HELP])
    bench.add_bench_command(app)
    cache.add_cache_commands(app)
    serve.add_serve_command(app)
    app.command("games", cls=Command)(list_games)
    return app


def game_commands(app: typer.Typer, name: str) -> list[str]:
    """The commands of ``app`` that have a subcommand for the game ``name``."""
    return [
        group.name for group in app.registered_groups
        if group.name is not None and group.typer_instance is not None and any(c.name == name for c in group.typer_instance.registered_commands)
    ]


def list_games(as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON.")):
    """The registered games: presets, default preset, solver core and commands."""
    import json

    from jaxsolve import games as registry

    built = build_app()
    rows = [
        {"game": g.name, "title": g.title, "family": g.family, "core": g.core, "default": g.default, "presets": list(g.presets()), "commands": game_commands(built, g.name)}
        for g in registry.games()
    ]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for r in rows:
        typer.echo(f"{r['game']}: {r['title']}")
        typer.echo(f"  presets: {', '.join(r['presets'])} (default {r['default']}); solver core: {r['core']}")
        typer.echo(f"  commands: {', '.join(r['commands'])}")


app = build_app()


def main() -> None:
    from jaxsolve import interrupt

    interrupt.install()
    app()
