"""Description of the machine a benchmark ran on (recorded beside every figure)."""

from __future__ import annotations

import os
import platform


def describe() -> dict:
    import jax

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "load_average_at_start": load,
        "jax": jax.__version__,
        "devices": [str(d) for d in jax.devices()],
        "backend": jax.default_backend(),
    }
