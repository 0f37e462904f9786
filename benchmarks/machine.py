"""Description of the machine a benchmark ran on (recorded beside every figure)."""

from pathlib import Path

from jaxsolve.bench import machine as describe  # noqa: F401


def load() -> str:
    """The load average (1, 5, 15 min) as ``/proc/loadavg`` says it, "?" where there is none:
    what else ran beside a measurement."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"
