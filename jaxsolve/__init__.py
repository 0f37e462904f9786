"""jaxsolve: exact optimal strategies for dice games as vectorised JAX array programs."""

__version__ = "0.1.0"

from jaxsolve.errors import JaxsolveError  # noqa: E402

__all__ = ["DiceSpace", "JaxsolveError", "dice_space", "__version__"]


def __getattr__(name):
    """``DiceSpace`` and ``dice_space`` on first use: importing the package loads no NumPy, so
    the command line's Ctrl-C handling (``jaxsolve.interrupt``) is in place within milliseconds."""
    if name in ("DiceSpace", "dice_space"):
        from jaxsolve.core import dice

        return getattr(dice, name)
    raise AttributeError(f"module 'jaxsolve' has no attribute {name!r}")
