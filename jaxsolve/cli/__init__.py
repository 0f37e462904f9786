"""The ``jaxsolve`` command line: a thin layer over library calls."""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from jaxsolve.cli.common import flush_stdout, advise_app, plot_app, simulate_app, solve_app, tables_app


class OneLineErrors(TyperGroup):
    """The top-level group: typer's/click's own usage errors (unknown options, values out of
    range, missing options) come out like every other error, as one ``error: ...`` line on
    stderr with exit status 1, instead of a usage box with exit status 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra)
        try:
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


def _error(message: str) -> None:
    try:
        sys.stderr.write(f"error: {message}\n")
        sys.stderr.flush()
    except OSError:
        pass
    sys.exit(1)


app = typer.Typer(
    cls=OneLineErrors,
    help="Exact optimal strategies for dice games in JAX (`jaxsolve games` lists them).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(solve_app, name="solve")
app.add_typer(advise_app, name="advise")
app.add_typer(plot_app, name="plot")
app.add_typer(simulate_app, name="simulate")
app.add_typer(tables_app, name="tables")

# Every registered game's CLI modules add their commands to the groups above.
from jaxsolve import games as _games  # noqa: E402
from jaxsolve.cli import bench, cache, play  # noqa: E402,F401

_games.load_cli_modules()


@app.command("games")
def list_games(as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON.")):
    """The registered games, their rule presets and default preset."""
    import json

    rows = [{"game": g.name, "title": g.title, "core": g.core, "default": g.default, "presets": list(g.presets())} for g in _games.games()]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    for r in rows:
        typer.echo(f"{r['game']}: {r['title']}")
        typer.echo(f"  presets: {', '.join(r['presets'])} (default {r['default']}); solver core: {r['core']}")


def main() -> None:
    app()
