"""The Zehntausend duel solved by several processes at once (``jax.distributed``), e.g. one per
GPU host; every process runs the same command with its own process id::

    python -m jaxsolve.games.zehntausend.duel_distributed --rules first-to-10000 \\
        --coordinator HOST:PORT --processes N --process-id I [--out duel.npy] [--goal ...]

``--coordinator`` (default ``$JAX_COORDINATOR_ADDRESS``) is ``host:port`` of process 0, which
every process must reach; ``--processes`` (``$JAX_NUM_PROCESSES``) and ``--process-id``
(``$JAX_PROCESS_ID``) say how many take part and which one this is. On clusters that JAX
detects itself (Slurm, Open MPI, Cloud TPU) all three may be left out. The mesh spans every
device of every process (``--local-devices`` limits how many of its own each process adds);
each layer's states are split over it and ``W`` is replicated (``race.solve_layers``), so
every process ends with the whole table and the values equal one process's. Process 0 prints
the result as one JSON line and writes ``--out`` (with its sidecars). CPU processes talk
through gloo (JAX's default CPU collectives).

Bad input (an option or environment value that is not a number, a coordinator that is not
``host:port`` with a port 1..65535, a process id outside ``0..processes-1``, fewer than one
local device, rules out of range, an output path that cannot be written) ends with one line
``error: ...`` and exit status 1 before any work starts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _env_int(name: str):
    from jaxsolve.errors import JaxsolveError

    value = os.environ.get(name)
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise JaxsolveError(f"${name} must be a whole number, got {value!r}") from None


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's error discipline: one ``error:`` line, exit status 1."""

    def error(self, message):
        from jaxsolve.errors import JaxsolveError

        raise JaxsolveError(message)


def check_coordinator(address: str | None) -> None:
    """``host:port`` (``[v6 address]:port`` too) with a port 1..65535, or None (JAX detects it)."""
    from jaxsolve.errors import JaxsolveError

    if address is None:
        return
    host, colon, port = address.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    bad_host = not host or any(c.isspace() or c in "/[]@" for c in host)
    if not colon or bad_host or not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= 65535:
        raise JaxsolveError(f"--coordinator must be host:port with a port 1..65535, got {address!r}")


def check_args(args: argparse.Namespace) -> None:
    """Every check that needs no JAX: the coordinator, the process numbers, the devices, ``--out``."""
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.io import export

    check_coordinator(args.coordinator)
    if args.processes is not None and args.processes < 1:
        raise JaxsolveError(f"--processes must be at least 1, got {args.processes}")
    if args.process_id is not None and (args.process_id < 0 or (args.processes is not None and args.process_id >= args.processes)):
        top = "" if args.processes is None else f"..{args.processes - 1}"
        raise JaxsolveError(f"--process-id must be 0{top}, got {args.process_id}")
    if args.local_devices is not None and args.local_devices < 1:
        raise JaxsolveError(f"--local-devices must be at least 1, got {args.local_devices}")
    if args.out is not None:
        from jaxsolve.games.zehntausend.duel_commands import outputs

        for path in outputs(args.out):
            export.check_writable(path)


def parse(argv=None) -> argparse.Namespace:
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    ap = _Parser(
        prog="python -m jaxsolve.games.zehntausend.duel_distributed",
        description="The Zehntausend duel solved by several processes at once (jax.distributed); every process runs the same command with its own --process-id.",
    )
    ap.add_argument("--rules", default="first-to-10000", help=f"preset: {', '.join(PRESETS)}")
    ap.add_argument("--goal", type=int, default=None, help="banked score that ends the game (a multiple of 50)")
    ap.add_argument("--entry", type=int, default=None, help="entry minimum of the first write (0 = none)")
    ap.add_argument("--bound", type=int, default=None, help="largest final score kept under the last-turn rule")
    ap.add_argument("--end", default=None, choices=("first", "last-turn"), help="end rule")
    ap.add_argument("--coordinator", default=os.environ.get("JAX_COORDINATOR_ADDRESS"), help="host:port of process 0 (default $JAX_COORDINATOR_ADDRESS)")
    ap.add_argument("--processes", type=int, default=_env_int("JAX_NUM_PROCESSES"), help="number of processes (default $JAX_NUM_PROCESSES)")
    ap.add_argument("--process-id", type=int, default=_env_int("JAX_PROCESS_ID"), help="this process, 0..processes-1 (default $JAX_PROCESS_ID)")
    ap.add_argument("--local-devices", type=int, default=None, help="devices of this process in the mesh (default all)")
    ap.add_argument("--out", default=None, help="process 0 writes the table here (.npy with sidecars)")
    ap.add_argument("--x32", action="store_true", help="float32 instead of float64")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    from jaxsolve.errors import JaxsolveError

    try:
        return _main(parse(argv))
    except JaxsolveError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def _main(args) -> int:
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    rules = PRESETS.get_rules(args.rules).replace(goal=args.goal, entry=args.entry, end=args.end, bound=args.bound)
    check_args(args)
    import jax

    dtype = "float32" if args.x32 else "float64"
    jax.config.update("jax_enable_x64", not args.x32)
    local = None if args.local_devices is None else list(range(args.local_devices))
    try:
        jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=args.processes, process_id=args.process_id, local_device_ids=local)
    except (ValueError, RuntimeError) as exc:
        raise JaxsolveError(f"jax.distributed could not start: {exc} (give --coordinator, --processes and --process-id)") from None
    from jaxsolve.games.zehntausend import duel, duel_commands

    mesh = duel.mesh_of()
    sol = duel.solve(rules, dtype=dtype, mesh=mesh)
    if jax.process_index() == 0:
        files = duel_commands.save(args.out, sol) if args.out else []
        row = {
            "rules": rules.to_dict(),
            **sol.facts(),
            "processes": jax.process_count(),
            "devices": mesh.size,
            "compile_seconds": round(sol.compile_seconds, 3),
            "solve_seconds": round(sol.solve_seconds, 3),
            "out": [str(f) for f in files],
        }
        print(json.dumps(row), flush=True)
    jax.distributed.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
