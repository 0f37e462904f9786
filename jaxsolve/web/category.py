"""What the page adds for the category games (as ``jaxsolve.cli.category`` adds their family
commands): the exact distribution of the final score under optimal play."""

from __future__ import annotations


def score_distribution(rules, game: str, device) -> dict:
    """Mean, SD, percentiles and ``p[k] = P(final score = k)`` from the start under the
    score-optimal policy (``distribution.distribution``, the ``distribution`` command's call)."""
    from jaxsolve.games.category import distribution as D
    from jaxsolve.games.category import table_io

    sol = table_io.solved(rules, game=game, device=device)
    p = D.distribution(rules, sol, keep="start").at(0)
    summary = D.summarize(p)
    nonzero = [i for i, x in enumerate(p) if x > 1e-12]
    top = nonzero[-1] + 1 if nonzero else 0
    return {**summary.to_dict(), "p": [float(x) for x in p[:top]]}
