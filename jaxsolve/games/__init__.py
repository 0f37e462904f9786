from jaxsolve.games.registry_old import *# noqa: F401,F403
from jaxsolve.games.registry_old import CATEGORY_CLI, late, load_cli_modules  # noqa: F401
