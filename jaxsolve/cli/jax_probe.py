"""``python -m jaxsolve.cli.jax_probe ARGS...``: the command line ``jaxsolve ARGS...``, then one
last line on stderr saying whether it imported JAX (``jax imported`` or ``no jax``): how the
tests and benchmarks show that an answer read from a stored table needs no JAX."""

from __future__ import annotations

import sys

from jaxsolve.__main__ import main


def run() -> None:
    sys.argv = ["jaxsolve", *sys.argv[1:]]
    try:
        main()
    finally:
        sys.stderr.write("jax imported\n" if "jax" in sys.modules else "no jax\n")


if __name__ == "__main__":
    run()
