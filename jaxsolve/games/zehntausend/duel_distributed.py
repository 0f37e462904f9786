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
import sys

from jaxsolve.core.processes import Parser, add_process_options, check_process_options, finish, run_command, start


def check_args(args: argparse.Namespace) -> None:
    """Every check that needs no JAX: the coordinator, the process numbers, the devices, ``--out``."""
    from jaxsolve.io import export

    check_process_options(args)
    if args.out is not None:
        from jaxsolve.games.zehntausend.duel_commands import outputs

        for path in outputs(args.out):
            export.check_writable(path)


def parse(argv=None) -> argparse.Namespace:
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    ap = Parser(
        prog="python -m jaxsolve.games.zehntausend.duel_distributed",
        description="The Zehntausend duel solved by several processes at once (jax.distributed); every process runs the same command with its own --process-id.",
    )
    ap.add_argument("--rules", default="first-to-10000", help=f"preset: {', '.join(PRESETS)}")
    ap.add_argument("--goal", type=int, default=None, help="banked score that ends the game (a multiple of 50)")
    ap.add_argument("--entry", type=int, default=None, help="entry minimum of the first write (0 = none)")
    ap.add_argument("--bound", type=int, default=None, help="largest final score kept under the last-turn rule")
    ap.add_argument("--end", default=None, choices=("first", "last-turn"), help="end rule")
    add_process_options(ap, local_devices=None, local_help="devices of this process in the mesh (default all)")
    ap.add_argument("--out", default=None, help="process 0 writes the table here (.npy with sidecars)")
    ap.add_argument("--x32", action="store_true", help="float32 instead of float64")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    return run_command(parse, _main, argv)


def _main(args) -> int:
    from jaxsolve.games.zehntausend.duel_rules import PRESETS

    rules = PRESETS.get_rules(args.rules).replace(goal=args.goal, entry=args.entry, end=args.end, bound=args.bound)
    check_args(args)
    import jax

    dtype = "float32" if args.x32 else "float64"
    jax.config.update("jax_enable_x64", not args.x32)
    start(args)
    from jaxsolve.games.zehntausend import duel, duel_commands

    mesh = duel.mesh_of()
    sol = duel.solve(rules, dtype=dtype, mesh=mesh)
    if jax.process_index() != 0:
        return finish(None)
    files = duel_commands.save(args.out, sol) if args.out else []
    row = {"rules": rules.to_dict(), **sol.facts(), "processes": jax.process_count(), "devices": mesh.size}
    return finish(row, compile_seconds=sol.compile_seconds, solve_seconds=sol.solve_seconds, files=files)


if __name__ == "__main__":
    sys.exit(main())
