"""Description of the machine a benchmark ran on (recorded beside every figure)."""

from jaxsolve.bench import machine as describe  # noqa: F401
