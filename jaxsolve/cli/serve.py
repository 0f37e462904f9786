"""``jaxsolve serve``: the local web page (advisor and play for every registered game)."""

from __future__ import annotations

import ipaddress
import os
from typing import Annotated, List, Optional

import typer

from jaxsolve.cli.common import CacheOpt, Command, Device, DeviceOpt, NoCacheOpt, check_device, flush_stdout, handle_errors

HELP = "Serve the advisor and play page for every registered game on this computer (http://127.0.0.1:8765/ by default)."


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@handle_errors
def serve(
    port: Annotated[int, typer.Option("--port", "-p", min=0, max=65535, help="Port to listen on (0: any free port).")] = 8765,
    host: Annotated[
        str,
        typer.Option("--host", help="Address to listen on; only this computer can reach the default. 0.0.0.0 opens the page to the network (anyone who reaches this computer can use it)."),
    ] = "127.0.0.1",
    allow_host: Annotated[
        Optional[List[str]],
        typer.Option(
            "--allow-host",
            metavar="NAME",
            help="Also answer requests that name this host (a name by which other computers reach this one, e.g. mybox.local; '*': any; repeat for more). "
            "By default the server answers only its own address with its port (and localhost; and, on 0.0.0.0, any IP address), which keeps other sites out (DNS rebinding).",
        ),
    ] = None,
    max_memory: Annotated[
        float,
        typer.Option(
            "--max-memory",
            metavar="GIB",
            min=0,
            help="Solved tables kept in memory, in GiB of their arrays and the copies kept with them (default 4; 0: no limit): past it the least recently "
            "used table is let go (it stays in the cache folder; a game in play on it is put away). The process needs more: index arrays, loads and "
            "solves in flight, JAX, compiled programs.",
        ),
    ] = 4.0,
    warm: Annotated[bool, typer.Option("--warm/--no-warm", help="Solve or load every game's default table at start, in the background (the page shows how far).")] = True,
    device: DeviceOpt = Device.auto,
    cache_dir: CacheOpt = None,
    no_cache: NoCacheOpt = False,
):
    """Serve the page: every game's advisor (each option ranked with value, regret and ties) and
    play mode (virtual dice, loss of each move, undo, review), from the solution cache."""
    from jaxsolve.web.api import Service
    from jaxsolve.web.server import build_app, make_server

    check_device(device.value, x64=True)
    service = Service(cache_dir=cache_dir, use_cache=not no_cache, device=device.value, max_memory=int(max_memory * 2**30) if max_memory > 0 else None)
    server, sock = make_server(build_app(service), host, port, allow_hosts=allow_host or ())
    if warm:
        service.warm_defaults()
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    typer.echo(f"jaxsolve page at http://{shown}:{bound[1]}/ (Ctrl-C stops it)")
    if not _loopback(host):
        typer.echo(f"warning: listening on {host}: the page is open to the network; anyone who can reach this computer can use it and make it solve", err=True)
    if "*" in (allow_host or ()):
        typer.echo("warning: --allow-host '*': requests naming any host are answered, so any web site can reach this server through DNS rebinding", err=True)
    try:
        server.run(sockets=[sock])
    finally:
        running = service.close()
    if running:  # a solve cannot be stopped from outside its thread, and the interpreter would wait for it
        typer.echo(f"stopped; {running} unfinished job{'s' * (running != 1)} left undone", err=True)
        flush_stdout()
        os._exit(0)


def add_serve_command(app: typer.Typer) -> None:
    app.command("serve", help=HELP, cls=Command)(serve)
