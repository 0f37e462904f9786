"""The category engine's extra cases for ``jaxsolve bench``."""

from __future__ import annotations

from typing import Callable


def category_cases(rules, quick: bool, dtype: str, devs) -> list[tuple[str, int, Callable]]:
    """Extra cases of a category game: the dense and sparse keep operators (the solve itself
    uses the level-by-level one), and the exact score distribution on 1 and on all devices."""
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.engine import solver

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


TARGET_AT = {False: 300, True: 60}
"""The target s whose max P(final >= s) from the start the suite's target-table case reports
(full suite: the whole game, 0.176019 for Yahtzee; quick: the 3-dice game from 7 boxes filled)."""


def _target_memory(device) -> int:
    """What the target table's solve may use on ``device``: half its memory where it says (a
    GPU), else the target engine's default (2 GiB; the chunk shrinks to fit)."""
    from jaxsolve.games.category.objectives import target as TG

    stats = device.memory_stats() if hasattr(device, "memory_stats") else None
    limit = (stats or {}).get("bytes_limit")
    return int(limit) // 2 if limit else TG.DEFAULT_MAX_MEMORY


def suite_cases(rules, quick: bool, dtype: str, device, *, saved: bool = False, sheet=None) -> list[tuple[str, Callable]]:
    """A category game's cases of ``jaxsolve bench --suite`` beside its solve: for a game whose
    sheet (``sheet()``: the default rules) has 13 boxes (Yahtzee, Kniffel) the exact score
    distribution and the target table (max P(final >= s) for every state and s, float32, the
    start's value at ``TARGET_AT`` reported; ``quick``: both from a sheet with 7 boxes filled),
    and with ``saved`` the game with saved throws, uncapped (``saved.useful_max_saved``: no
    throw is ever lost; Maxi Yatzy; ``quick``: at most one saved throw)."""
    from jaxsolve.core.layered import chunk_for
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.engine import saved as S
    from jaxsolve.games.category.engine import solver

    chunk = 256 if quick else 1024
    out = []
    if (sheet() if sheet is not None else rules).num_boxes <= 13:
        sub = solver.filled_mask(range(min(7, rules.num_boxes - 1)), rules) if quick else 0

        def dist():
            sol = solver.solve(rules, dtype=dtype, device=device, devices=1, chunk=chunk)
            d = D.distribution(rules, sol, dtype=dtype, chunk=chunk_for(device, chunk), devices=[device], prefilled=sub, keep="start")
            return float(D.summarize(d.at(sub)).sd), d.compile_seconds

        out.append(("distribution (SD)" + (" from 7 boxes filled" if quick else ""), dist))

        def target():
            from jaxsolve.games.category.objectives import target as TG

            tab = TG.solve_target(
                rules, dtype="float32", chunk=chunk_for(device, TG.DEFAULT_CHUNK), devices=[device], max_memory=_target_memory(device), keep="start", prefilled=sub
            )
            v, s = tab.at(sub), TARGET_AT[quick]
            return (float(v[s]) if s < len(v) else 0.0), tab.compile_seconds

        out.append((f"target table (max P(final >= s), every state; float32), s = {TARGET_AT[quick]}" + (" from 7 boxes filled" if quick else ""), target))
    if _two_player_fits(sheet() if sheet is not None else rules):
        out.append(two_player_case(rules, quick, dtype, device))
    if saved:
        most = 1 if quick else S.useful_max_saved(rules)

        def uncapped():
            sol = S.solve(rules, most, dtype=dtype, device=device, chunk=chunk, table=False)
            return float(sol.game_value), sol.compile_seconds

        out.append((f"saved throws, at most {most}" + ("" if quick else " (uncapped)"), uncapped))
    return out


TWO_PLAYER_OPEN = {True: 5, False: 8}
"""Boxes open for both players (the sheet's last ones; the rest filled) in the suite's
two-player case: quick, the small rules' game from 5 open boxes (about 70,000 state-lead
values); full, the game's from 8 (Yacht: about 5 x 10^6 values)."""
TWO_PLAYER_GPU_CHUNK = 4096
"""Pairs of sheets per chunk on an accelerator (a 5-dice pair's working set is about 2 MB in
float32 at 300 leads: 4,096 pairs are 8 GB, well inside a GPU)."""


def _two_player_fits(sheet) -> bool:
    """Whether the suite runs a category game's two-player case: a sheet of at most 12 boxes
    and no bonus (a sheet is its filled boxes, so the two-player game of the whole sheet is a
    GPU's job, not a cluster's; docs/twoplayer.md)."""
    return sheet.num_boxes <= 12 and not (sheet.upper_bonus or sheet.extra_bonus or sheet.has_instant_bonus)


def two_player_case(rules, quick: bool, dtype: str, device) -> tuple[str, Callable]:
    """The two-player game (both playing to win, ``twoplayer.solve``) from the sheet's last
    ``TWO_PLAYER_OPEN[quick]`` boxes open for both players, on ``device``; it reports the
    starter's P(win) + P(tie) / 2."""
    from jaxsolve.core.layered import chunk_for
    from jaxsolve.games.category.objectives import twoplayer

    k = min(TWO_PLAYER_OPEN[quick], rules.num_boxes)
    filled = rules.full_mask & ~sum(1 << b for b in range(rules.num_boxes - k, rules.num_boxes))
    size = min(chunk_for(device, twoplayer.DEFAULT_CHUNK), TWO_PLAYER_GPU_CHUNK)

    def run():
        tab = twoplayer.solve(rules, mine=filled, theirs=filled, dtype=dtype, chunk=size, devices=[device], max_memory=max(_target_memory(device) // 2, twoplayer.DEFAULT_MAX_MEMORY))
        return float(tab.start), tab.compile_seconds

    return f"two-player (both play to win), the last {k} boxes open", run
