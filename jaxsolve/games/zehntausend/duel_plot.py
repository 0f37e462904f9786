"""The duel's figure: where to write and where to throw on, over both banked scores (Agg PNG).

One panel per turn total ``p`` (rows) and number of dice ``n`` to throw (columns): at
``(my score, their score)`` the optimal duel player throws ``n`` dice on holding ``p`` (dark)
or writes (light); grey: writing is not allowed (entry minimum). The title of each panel gives
D. Peter's per-turn rule (2013: throw ``n`` dice on iff ``p < p_n``, p1..p6 = 300, 250, 400,
1050, 3050, 11900), which does not depend on the scores.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jaxsolve.games.zehntausend.rules import DICE, STEP

PETER_THRESHOLDS = {1: 300, 2: 250, 3: 400, 4: 1050, 5: 3050, 6: 11900}


def decision_grid(sol, totals, on_row=None) -> np.ndarray:
    """``[len(totals), 6, G, G]``: 1 throw on, 0 write, -1 writing not allowed (start player's
    view), from the NumPy turn (``duel_numpy.decision_tables``: no JAX)."""
    from jaxsolve.games.zehntausend.duel_numpy import decision_tables

    levels = [t // STEP for t in totals]
    V, S = decision_tables(sol, levels, on_row=on_row)
    throw = V[:, :, :, 1:] > S[:, :, :, None]
    grid = np.where(np.isfinite(S)[:, :, :, None], throw.astype(np.int8), -1)
    G = sol.rules.levels
    a = np.arange(G)[:, None, None, None]
    grid = np.where(a * STEP + np.asarray(totals)[None, None, :, None] >= sol.rules.bound, 0, grid)
    return np.moveaxis(grid, (2, 3), (0, 1))


def departures(grid, totals, rules) -> dict:
    """Per turn total and dice: the share of the positions where the duel player's decision
    differs from D. Peter's score-blind rule. Positions where writing is not allowed or where
    my score plus the turn total reaches the bound (write: the goal, or the capped last-turn
    total) are left out."""
    G = rules.levels
    mine = np.arange(G)[:, None] * STEP
    out = {}
    for i, p in enumerate(totals):
        for n in range(1, DICE + 1):
            g = grid[i, n - 1]
            allowed = (g >= 0) & np.broadcast_to(mine + p < rules.bound, g.shape)
            peter = int(p < PETER_THRESHOLDS[n])
            count = int(allowed.sum())
            differs = int((g[allowed] != peter).sum())
            out[f"{p}/{n}"] = {"positions": count, "differ": differs, "share": differs / count if count else 0.0, "peter": "throw" if peter else "write"}
    return out


def decision_maps(sol, out, totals, grid=None) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    from jaxsolve.io.export import check_writable

    path = check_writable(out / f"duel-{sol.rules.name}-decisions.png", ".png")
    grid = decision_grid(sol, totals) if grid is None else grid
    G = sol.rules.levels
    extent = (0, G * STEP, 0, G * STEP)
    cmap = ListedColormap(["0.8", "#f4e3b5", "#2b5c8a"])
    fig, axes = plt.subplots(len(totals), DICE, figsize=(2.6 * DICE, 2.7 * len(totals)), dpi=110, squeeze=False)
    for i, p in enumerate(totals):
        for n in range(1, DICE + 1):
            ax = axes[i, n - 1]
            ax.imshow(grid[i, n - 1].T, origin="lower", extent=extent, cmap=cmap, vmin=-1, vmax=1, interpolation="nearest")
            peter = "throw" if p < PETER_THRESHOLDS[n] else "write"
            ax.set_title(f"p = {p}, n = {n}  (Peter: {peter})", fontsize=8)
            ax.tick_params(labelsize=6)
            if n == 1:
                ax.set_ylabel("their score", fontsize=7)
            if i == len(totals) - 1:
                ax.set_xlabel("my score", fontsize=7)
    fig.suptitle(f"Zehntausend duel {sol.rules.name}: throw on (dark) or write (light); start player, first to {sol.rules.goal}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
