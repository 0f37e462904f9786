"""The game-independent pieces: rules values (``rules``), dice (``dice``), the layered and the
fixpoint solver cores (``layered``, ``fixpoint``), the compile cache (``compile``), the array
namespace (``arrays``), the JAX run-time settings (``runtime``) and progress bars (``progress``).

Import the module you need (``from jaxsolve.core import layered``); this package imports
nothing, so reading rules values does not load JAX."""
