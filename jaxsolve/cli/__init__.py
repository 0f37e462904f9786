"""The ``jaxsolve`` command line: a thin layer over library calls."""

from __future__ import annotations

import typer

from jaxsolve.cli.common import advise_app, plot_app, simulate_app, solve_app, tables_app

app = typer.Typer(
    help="Exact optimal strategies for dice games (Kniffel/Yahtzee, Schlag den Raab, Pig, Zehntausend) in JAX.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(solve_app, name="solve")
app.add_typer(advise_app, name="advise")
app.add_typer(plot_app, name="plot")
app.add_typer(simulate_app, name="simulate")
app.add_typer(tables_app, name="tables")

# Each game's module registers its commands on the groups above.
from jaxsolve.cli import analysis, bench, distribution, kniffel, raab, simulation, zehntausend  # noqa: E402,F401


def main() -> None:
    app()
