"""A race at a table of N players (``pig-table``, ``zehntausend-table``) solved by several
processes at once (``jax.distributed``), e.g. one per GPU host; every process runs the same
command with its own process id::

    python -m jaxsolve.games.race_table_distributed --game zehntausend-table --players 4 --goal 1000 \\
        --coordinator HOST:PORT --processes N --process-id I [--out table.npy]

``--game`` names the game (default ``zehntausend-table``), ``--rules`` one of its presets (default
the game's default) and every rules field of the game is an option (``--players``, ``--goal``;
``--entry``, ``--scoring`` for Zehntausend; ``--sides``, ``--bust`` for Pig), as in ``jaxsolve
solve GAME``. ``--coordinator`` (default ``$JAX_COORDINATOR_ADDRESS``) is ``host:port`` of
process 0, which every process must reach; ``--processes`` (``$JAX_NUM_PROCESSES``) and
``--process-id`` (``$JAX_PROCESS_ID``) say how many take part and which one this is. On clusters
that JAX detects itself (Slurm, Open MPI, Cloud TPU) all three may be left out.

The N-player engine (``jaxsolve.core.race_multi``) deals each layer's chunks of cycles round the
processes; each solves its chunks on its first local device with the same compiled program, and
the layer's new value vectors are gathered into every process's table before the next layer, so
every process ends with the whole table and the values equal one process's, bit for bit.
``--checkpoint FILE`` keeps the walk's values in ``FILE`` every five minutes (process 0 writes
it) and a run started again with it goes on after the last layer kept, with the values of a run
without a stop. Process 0 shows a bar of the layers on stderr (done of all, time elapsed and left; plain lines
off a terminal; ``--quiet``: none) and prints one JSON line (each seat's win probability at the start, a SHA-256 digest of
the value array, the seconds) and writes ``--out`` (the ``.npy`` with its sidecar that
``jaxsolve solve GAME --out`` writes). CPU processes talk through gloo (JAX's default CPU
collectives).

Bad input (an unknown game or preset, a rules field out of range or a table too large, an option
or environment value that is not a number, a coordinator that is not ``host:port`` with a port
1..65535, a process id outside ``0..processes-1``, fewer than one local device, an output path
that cannot be written) ends with one line ``error: ...`` and exit status 1 before any work
starts.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from typing import Any, Sequence

from jaxsolve.errors import JaxsolveError
from jaxsolve.core.processes import Parser, add_process_options, check_process_options, finish, run_command, start

GAMES = ("zehntausend-table", "pig-table")
"""The games on the N-player race engine."""

PROG = "python -m jaxsolve.games.race_table_distributed"


def _game_of(argv: Sequence[str] | None) -> str:
    """``--game`` alone (the other options depend on it)."""
    pre = Parser(prog=PROG, add_help=False, allow_abbrev=False)
    pre.add_argument("--game", default=GAMES[0], choices=GAMES)
    known, _ = pre.parse_known_args(argv)
    return str(known.game)


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    from jaxsolve.games import get_game

    game = get_game(_game_of(argv))
    ap = Parser(
        prog=PROG,
        description="A race at a table of N players solved by several processes at once (jax.distributed); every process runs the same command with its own --process-id.",
        allow_abbrev=False,
    )
    ap.add_argument("--game", default=GAMES[0], choices=GAMES, help="the game (its rules fields are options)")
    ap.add_argument("--rules", default=game.default, help=f"preset: {', '.join(game.presets())}")
    for p in game.override_params():
        ap.add_argument(*p.spellings, *p.aliases, dest=p.name, type=p.kind, choices=p.choices or None, default=None, help=p.help)
    add_process_options(ap, local_devices=None, local_help="devices of this process JAX starts with (the first N; the solve runs on the first; default all)")
    ap.add_argument("--out", default=None, help="process 0 writes the table here (.npy with its sidecar)")
    ap.add_argument("--checkpoint", default=None, help="keep the walk's progress in this file every few minutes (process 0 writes it; every process reads it) and go on from it if it exists")
    ap.add_argument("--quiet", action="store_true", help="no progress bar (process 0 shows one on stderr: layers done, time elapsed and left)")
    return ap.parse_args(argv)


def rules_of(args: argparse.Namespace) -> Any:
    """The rules the options name (the preset with the fields given), checked."""
    from jaxsolve.games import get_game

    game = get_game(args.game)
    overrides = {p.name: p.check(getattr(args, p.name)) for p in game.override_params()}
    return game.build_rules(args.rules, **overrides)


def check_args(args: argparse.Namespace) -> None:
    """Every check that needs no JAX: the coordinator, the process numbers, the devices, ``--out``."""
    from jaxsolve.io import export

    check_process_options(args)
    if args.out is not None:
        export.check_writable(args.out)
    if args.checkpoint is not None and not os.path.isdir(os.path.dirname(os.path.abspath(args.checkpoint))):
        raise JaxsolveError(f"--checkpoint {args.checkpoint}: no such folder")


def digest(values: Any) -> str:
    """SHA-256 of the value array's bytes (C order; equal digests: the same values)."""
    import numpy as np

    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    return run_command(parse, _main, argv)


def _main(args: argparse.Namespace) -> int:
    rules = rules_of(args)
    check_args(args)
    import jax

    jax.config.update("jax_enable_x64", True)  # the engine computes in float64
    start(args)
    from jaxsolve.games import get_game

    game = get_game(args.game)
    from jaxsolve.core.progress import steps_bar

    w0 = time.perf_counter()
    device = jax.local_devices()[0]
    with steps_bar(None, f"solving {rules.name}, layers", args.quiet or jax.process_index() != 0) as steps:
        sol = game.solve(rules, dtype="float64", device=device, progress=steps, checkpoint=args.checkpoint)
    wall = time.perf_counter() - w0
    if jax.process_index() != 0:
        return finish(None)
    assert game.save is not None
    files = game.save(args.out, sol) if args.out else []
    row = {
        "game": game.name, "rules": rules.to_dict(), "start": sol.start.tolist(), "sha256": digest(sol.values), "unsettled": len(sol.unsettled),
        "residual": sol.residual, "rounds": sol.rounds, "processes": jax.process_count(), "device": str(device), "wall_seconds": round(wall, 3),
    }
    return finish(row, compile_seconds=sol.compile_seconds, solve_seconds=sol.solve_seconds, files=files)


if __name__ == "__main__":
    sys.exit(main())
