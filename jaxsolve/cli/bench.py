"""``jaxsolve bench``: solves of every game on the visible backends, as a table."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, List, Optional

import typer

from jaxsolve.cli.common import Command, handle_errors, out_folder


def add_bench_command(app: typer.Typer) -> None:
    app.command("bench", cls=Command)(handle_errors(bench))


def bench(
    quick: Annotated[bool, typer.Option("--quick", help="Small variants only (seconds, for tests).")] = False,
    device: Annotated[Optional[List[str]], typer.Option("--device", help="cpu or gpu (repeat; default every visible kind).")] = None,
    backend: Annotated[Optional[List[str]], typer.Option("--backend", hidden=True, help="Old spelling of --device.")] = None,
    only: Annotated[Optional[str], typer.Option("--only", help="Only games whose name contains this (see `jaxsolve games`).")] = None,
    suite: Annotated[Optional[str], typer.Option("--suite", help="quick or full: every game's solve with compile apart, one table per device (suite_<suite>_<device>.{md,json}).")] = None,
    out_dir: Annotated[Path, out_folder("bench_{quick,full}.{md,json}")] = Path("."),
):
    """Time compile, warm solve and peak memory of every game's solve; write a markdown + JSON table."""
    import jax

    from jaxsolve import bench as B
    from jaxsolve.errors import JaxsolveError

    backend = (device or []) + (backend or [])
    visible = {d.platform for d in jax.devices()}
    for b in backend:
        if b not in ("cpu", "gpu"):
            raise JaxsolveError(f"unknown device {b!r}; choose cpu or gpu")
        if b not in visible:
            raise JaxsolveError(f"no {b} device is visible to JAX on this machine")
    from jaxsolve.io import export

    export.check_output_dir(out_dir, create=True)
    if suite is not None:
        if suite not in B.SUITES:
            raise JaxsolveError(f"unknown suite {suite!r}; choose one of {', '.join(B.SUITES)}")
        for kind in backend or [jax.devices()[0].platform]:
            report = B.run_suite(suite, kind, only, progress=lambda r: typer.echo(f"{r['game']:12} {r['variant']:48} {r['dtype']}: warm {r['warm_s']} s, compile {r['compile_s']} s"))
            typer.echo(B.markdown(report))
            for p in B.write_suite(report, out_dir):
                typer.echo(f"wrote {p}")
        return
    report = B.run_bench(quick, backend or None, only, progress=lambda r: typer.echo(f"{r['game']:12} {r['variant']:40} {r['dtype']} x{r['devices']}: warm {r['warm_s']} s, compile {r['compile_s']} s"))
    typer.echo(B.markdown(report))
    for p in B.write(report, out_dir):
        typer.echo(f"wrote {p}")
