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


def suite_cases(rules, quick: bool, dtype: str, device, *, saved: bool = False, sheet=None) -> list[tuple[str, Callable]]:
    """A category game's cases of ``jaxsolve bench --suite`` beside its solve: the exact score
    distribution of a game whose sheet (``sheet()``: the default rules) has 13 boxes (Yahtzee,
    Kniffel; ``quick``: from a sheet with 7 boxes filled), and with ``saved`` the game with
    saved throws, uncapped (``saved.useful_max_saved``: no throw is ever lost; Maxi Yatzy;
    ``quick``: at most one saved throw)."""
    from jaxsolve.core.layered import chunk_for
    from jaxsolve.games.category import distribution as D
    from jaxsolve.games.category import saved as S
    from jaxsolve.games.category import solver

    chunk = 256 if quick else 1024
    out = []
    if (sheet() if sheet is not None else rules).num_boxes <= 13:
        sub = solver.filled_mask(range(min(7, rules.num_boxes - 1)), rules) if quick else 0

        def dist():
            sol = solver.solve(rules, dtype=dtype, device=device, devices=1, chunk=chunk)
            d = D.distribution(rules, sol, dtype=dtype, chunk=chunk_for(device, chunk), devices=[device], prefilled=sub, keep="start")
            return float(D.summarize(d.at(sub)).sd), d.compile_seconds

        out.append(("distribution (SD)" + (" from 7 boxes filled" if quick else ""), dist))
    if saved:
        most = 1 if quick else S.useful_max_saved(rules)

        def uncapped():
            sol = S.solve(rules, most, dtype=dtype, device=device, chunk=chunk, table=False)
            return float(sol.game_value), sol.compile_seconds

        out.append((f"saved throws, at most {most}" + ("" if quick else " (uncapped)"), uncapped))
    return out
