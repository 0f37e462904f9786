"""The category engine's extra cases for ``jaxsolve bench``."""

from __future__ import annotations

from typing import Callable


def category_cases(rules, quick: bool, dtype: str, devs) -> list[tuple[str, int, Callable]]:
    """Extra cases of a category game: the dense and sparse keep operators (the solve itself
    uses the level-by-level one), and the exact score distribution on 1 and on all devices."""
    from jaxsolve.games.category import distribution as D
    from jaxsolve.games.category import solver

    chunk = 256 if quick else 1024
    out = []
    for ex in () if quick else ("dense", "sparse"):

        def run(ex=ex):
            sol = solver.solve(rules, dtype=dtype, expect=ex, device=devs[0], chunk=chunk)
            return sol.game_value, sol.compile_seconds

        out.append((f"{rules.name} score, {ex} operator", 1, run))
    sub = solver.filled_mask(range(min(7, rules.num_boxes - 1)), rules) if quick else 0
    for n in sorted({1, len(devs)}):

        def run(n=n):
            sol = solver.solve(rules, dtype=dtype, device=devs[0], chunk=chunk)
            d = D.distribution(rules, sol, dtype=dtype, devices=devs[:n], prefilled=sub, keep="start")
            return float(D.summarize(d.at(sub)).sd), d.compile_seconds

        out.append((f"{rules.name} distribution" + (" (7 boxes prefilled)" if quick else ""), n, run))
    return out
