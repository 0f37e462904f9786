"""jaxsolve: exact optimal strategies for dice games as vectorised JAX array programs."""

__version__ = "0.1.0"

from jaxsolve.core.dice import DiceSpace, dice_space  # noqa: E402
from jaxsolve.errors import JaxsolveError  # noqa: E402

__all__ = ["DiceSpace", "JaxsolveError", "dice_space", "__version__"]
