"""The command line of a solve run by several processes at once (``jax.distributed``): the
options every such entry point shares, their environment defaults, and the checks that need no
JAX (one ``error:`` line and exit status 1 on bad input, before any work starts)."""

from __future__ import annotations

import argparse
import os
from typing import Callable, NoReturn, Sequence

from jaxsolve.errors import JaxsolveError


class Parser(argparse.ArgumentParser):
    """argparse with the command line's error discipline: one ``error:`` line, exit status 1."""

    def error(self, message: str) -> NoReturn:
        raise JaxsolveError(message)


def env_int(name: str) -> int | None:
    """The whole number in ``$name``, or None where it is unset or empty."""
    value = os.environ.get(name)
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise JaxsolveError(f"${name} must be a whole number, got {value!r}") from None


def check_coordinator(address: str | None) -> None:
    """``host:port`` (``[v6 address]:port`` too) with a port 1..65535, or None (JAX detects it)."""
    if address is None:
        return
    host, colon, port = address.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    bad_host = not host or any(c.isspace() or c in "/[]@" for c in host)
    if not colon or bad_host or not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        raise JaxsolveError(f"--coordinator must be host:port with a port 1..65535, got {address!r}")


def add_process_options(ap: argparse.ArgumentParser, *, local_devices: int | None, local_help: str) -> None:
    """``--coordinator``, ``--processes``, ``--process-id`` (defaults from JAX's environment
    variables) and ``--local-devices``."""
    ap.add_argument("--coordinator", default=os.environ.get("JAX_COORDINATOR_ADDRESS"), help="host:port of process 0 (default $JAX_COORDINATOR_ADDRESS)")
    ap.add_argument("--processes", type=int, default=env_int("JAX_NUM_PROCESSES"), help="number of processes (default $JAX_NUM_PROCESSES)")
    ap.add_argument("--process-id", type=int, default=env_int("JAX_PROCESS_ID"), help="this process, 0..processes-1 (default $JAX_PROCESS_ID)")
    ap.add_argument("--local-devices", type=int, default=local_devices, help=local_help)


def check_process_options(args: argparse.Namespace) -> None:
    """The coordinator's address, the process count and id, the local devices."""
    check_coordinator(args.coordinator)
    if args.processes is not None and args.processes < 1:
        raise JaxsolveError(f"--processes must be at least 1, got {args.processes}")
    if args.process_id is not None and (args.process_id < 0 or (args.processes is not None and args.process_id >= args.processes)):
        top = "" if args.processes is None else f"..{args.processes - 1}"
        raise JaxsolveError(f"--process-id must be 0{top}, got {args.process_id}")
    if args.local_devices is not None and args.local_devices < 1:
        raise JaxsolveError(f"--local-devices must be at least 1, got {args.local_devices}")


def run_command(parse: Callable[[Sequence[str] | None], argparse.Namespace], body: Callable[[argparse.Namespace], int], argv: Sequence[str] | None = None) -> int:
    """``body(parse(argv))``'s exit status; a ``JaxsolveError`` becomes one ``error:`` line on
    stderr and exit status 1."""
    import sys

    try:
        return body(parse(argv))
    except JaxsolveError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def start(args: argparse.Namespace) -> None:
    """Join the processes (``jax.distributed.initialize`` from the parsed options; a
    ``JaxsolveError`` naming them if it cannot start)."""
    import jax

    local = None if args.local_devices is None else list(range(args.local_devices))
    try:
        jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=args.processes, process_id=args.process_id, local_device_ids=local)
    except (ValueError, RuntimeError) as exc:
        raise JaxsolveError(f"jax.distributed could not start: {exc} (give --coordinator, --processes and --process-id)") from None


def finish(row: dict | None, *, compile_seconds: float = 0.0, solve_seconds: float = 0.0, files: Sequence[object] = ()) -> int:
    """Process 0's result as one JSON line (``row`` with the solve's seconds and the files it
    wrote; None on the other processes: nothing printed), then leave the processes; exit 0."""
    import json

    import jax

    if row is not None:
        row = {**row, "compile_seconds": round(compile_seconds, 3), "solve_seconds": round(solve_seconds, 3), "out": [str(f) for f in files]}
        print(json.dumps(row), flush=True)
    jax.distributed.shutdown()
    return 0
