"""The one exception type the CLI turns into a clear one-line message and a non-zero exit."""


class JaxsolveError(ValueError):
    """Bad input from a user: unknown names, impossible dice, malformed positions, bad paths."""
