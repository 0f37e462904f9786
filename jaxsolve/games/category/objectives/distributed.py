"""A layered objective of the score-sheet family solved by several processes at once
(``jax.distributed``), e.g. one per GPU host: the two-player game both playing to win
(``--objective twoplayer``, the default), the target table (``target``: P(at least t more
points) of every state) or the score distribution (``distribution``); every process runs the
same command with its own process id::

    python -m jaxsolve.games.category.objectives.distributed [--objective target] --preset small \\
        --coordinator HOST:PORT --processes N --process-id I [--out layers.npz]

``--coordinator`` (default ``$JAX_COORDINATOR_ADDRESS``) is ``host:port`` of process 0, which
every process must reach; ``--processes`` (``$JAX_NUM_PROCESSES``) and ``--process-id``
(``$JAX_PROCESS_ID``) say how many take part and which one this is. Each process solves a
contiguous share of every layer's chunks on ``--local-devices`` of its own devices (default
one) and the shares are gathered after each layer (the layered core's vector driver,
``core.layered.solve_vector_layers``, which every one of these solves runs on), so every process
ends with every layer and the values equal one process's, bit for bit. Every process prints
one JSON line (the start's value, a SHA-256 digest of the layers it holds, its seconds);
process 0 writes ``--out`` (``.npz``: every kept layer as ``layer_<n>``, with ``--keep all``
every layer, and ``meta``, the settings as JSON). CPU processes talk through gloo (JAX's
default CPU collectives).

Bad input (an option or environment value that is not a number, a coordinator that is not
``host:port`` with a port 1..65535, a process id outside ``0..processes-1``, an unknown box,
an output path that cannot be written) ends with one line ``error: ...`` and exit status 1
before any work starts.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from typing import Any

from jaxsolve.core.processes import Parser, add_process_options, check_process_options, run_command


OBJECTIVES = ("twoplayer", "target", "distribution")


def parse(argv=None) -> argparse.Namespace:
    ap = Parser(
        prog="python -m jaxsolve.games.category.objectives.distributed",
        description="A layered objective solved by several processes at once (jax.distributed); every process runs the same command with its own --process-id.",
    )
    ap.add_argument("--objective", default="twoplayer", choices=OBJECTIVES, help="the two-player game, the target table or the score distribution")
    ap.add_argument("--preset", default="small", choices=("small", "yacht"), help="yacht.small() (3 dice, 9 boxes) or Yacht")
    ap.add_argument("--dice", type=int, default=None, help="play with this many dice instead")
    ap.add_argument("--open", nargs="*", default=None, help="only these boxes open (for both players; the rest filled)")
    ap.add_argument("--tie", default="share", choices=("share", "win", "lose"))
    ap.add_argument("--keep", default="start", choices=("start", "all"), help="layers kept (and written)")
    ap.add_argument("--chunk", type=int, default=8, help="states (pairs of sheets) per chunk")
    add_process_options(ap, local_devices=1, local_help="devices of this process its share is spread over (default 1)")
    ap.add_argument("--out", default=None, help="process 0 writes the kept layers here (.npz)")
    ap.add_argument("--x32", action="store_true", help="float32 instead of float64")
    return ap.parse_args(argv)


def rules_of(args):
    """The rules and the filled mask at the start (both players) the options name."""
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.games.category.sheets import yacht

    rules = yacht.small() if args.preset == "small" else yacht.get_rules("yacht")
    if args.dice is not None:
        if not 1 <= args.dice <= 6:
            raise JaxsolveError(f"--dice must be 1..6, got {args.dice}")
        rules = rules.replace(dice=args.dice, name=f"{rules.name}-{args.dice}-dice")
    mask = 0
    if args.open is not None:
        unknown = [b for b in args.open if b not in rules.box_names]
        if unknown or not args.open:
            raise JaxsolveError(f"--open needs boxes of {', '.join(rules.box_names)}; got {', '.join(unknown) or 'none'}")
        mask = rules.full_mask & ~sum(1 << rules.box_names.index(b) for b in args.open)
    return rules, mask


def check_args(args: argparse.Namespace) -> None:
    """Every check that needs no JAX: the coordinator, the process numbers, the devices, ``--out``."""
    from jaxsolve.errors import JaxsolveError
    from jaxsolve.io import export

    check_process_options(args)
    if args.chunk < 1:
        raise JaxsolveError(f"--chunk must be at least 1, got {args.chunk}")
    if args.out is not None:
        export.check_writable(args.out, ".npz")


def digest(layers) -> str:
    """SHA-256 of the kept layers' bytes, in layer order (equal digests: the same values)."""
    h = hashlib.sha256()
    for n, v in enumerate(layers):
        if v is not None:
            h.update(f"{n}:{v.dtype}:{v.shape}".encode())
            h.update(v.tobytes())
    return h.hexdigest()


def save(path, table, meta: dict) -> None:
    """The kept layers as ``layer_<n>`` and the settings ``meta`` (JSON) in one ``.npz``."""
    import numpy as np

    arrays = {f"layer_{n}": v for n, v in enumerate(table.layers) if v is not None}
    np.savez(path, meta=np.asarray(json.dumps(meta)), **arrays)


def solve(args: argparse.Namespace, rules: Any, mask: int) -> tuple[Any, float, dict[str, Any]]:
    """``(table, start value, meta)`` of the objective ``args.objective`` (every process alike)."""
    import numpy as np

    dtype = "float32" if args.x32 else "float64"
    if args.objective == "twoplayer":
        from jaxsolve.games.category.objectives import twoplayer

        pair = twoplayer.solve(rules, tie=args.tie, mine=mask, theirs=mask, dtype=dtype, keep=args.keep, chunk=args.chunk, devices=args.local_devices)
        meta: dict[str, Any] = {
            "objective": "twoplayer", "rules": pair.rules.name, "tie": pair.tie, "prefilled": [s.prefilled for s in pair.sheets], "device": pair.device,
            "layers": {str(p.n): {"mover": p.mover, "a": p.a, "b": p.b, "leads": [-p.low, p.high]} for p in pair.plans},
        }
        return pair, pair.start, meta
    from jaxsolve.games.category.objectives import distribution, target

    if args.objective == "target":
        table = target.solve_target(rules, dtype=dtype, chunk=args.chunk, devices=args.local_devices, keep=args.keep, prefilled=mask, max_memory=None)
        start = float(np.asarray(table.at(mask))[min(30, len(table.at(mask)) - 1)])  # P(at least 30 more points)
    else:
        from jaxsolve.games.category.engine import solutions

        sol = solutions.solution(rules, "score", dtype=dtype)
        table = distribution.distribution(rules, sol, dtype=dtype, chunk=args.chunk, devices=args.local_devices, keep=args.keep, prefilled=mask)
        start = float(np.asarray(table.at(mask), np.float64) @ np.arange(len(table.at(mask))))  # the mean points still to score
    meta = {"objective": args.objective, "rules": rules.name, "prefilled": mask, "device": table.device}
    return table, start, meta


def main(argv=None) -> int:
    return run_command(parse, _main, argv)


def _main(args) -> int:
    import time

    from jaxsolve.errors import JaxsolveError

    rules, mask = rules_of(args)
    check_args(args)
    import jax

    jax.config.update("jax_enable_x64", not args.x32)
    try:
        jax.distributed.initialize(coordinator_address=args.coordinator, num_processes=args.processes, process_id=args.process_id)
    except (ValueError, RuntimeError) as exc:
        raise JaxsolveError(f"jax.distributed could not start: {exc} (give --coordinator, --processes and --process-id)") from None
    w0, c0 = time.perf_counter(), time.process_time()
    table, start, meta = solve(args, rules, mask)
    row = {
        "objective": args.objective, "rules": rules.name, "prefilled": mask, "tie": args.tie, "process": jax.process_index(), "processes": jax.process_count(),
        "device": table.device, "start": start, "digest": digest(table.layers), "run_seconds": round(table.seconds, 3),
        "compile_seconds": round(table.compile_seconds, 3), "wall_seconds": round(time.perf_counter() - w0, 3),
        "cpu_seconds": round(time.process_time() - c0, 3),
    }
    if jax.process_index() == 0 and args.out:
        save(args.out, table, meta)
    print(json.dumps(row), flush=True)
    jax.distributed.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
