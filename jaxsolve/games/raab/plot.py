"""Drawing for the Pig family: where to stop, as heatmaps over both banked scores (Agg PNGs)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from jaxsolve.games.raab.solver import STOP, FullSolution, terminal


def stop_totals(f: FullSolution) -> np.ndarray:
    """``[T, M, N]``: the turn total at which a player who starts a turn stops (NaN if the game is
    over there, or if the policy rolls on to the state bound)."""
    n_t, n_m, n_s, n_n = f.rules.shape
    s = np.arange(n_s)[None, None, :, None]
    m = np.arange(n_m)[None, :, None, None]
    stops = (f.policy == STOP) & (s > m)
    first = np.argmax(stops, axis=2)
    found = stops.any(axis=2)
    over = np.asarray(terminal(f.rules, np.arange(n_t)[:, None, None], np.arange(n_m)[None, :, None], np.arange(n_n)[None, None, :])[0])
    return np.where(found & ~over, first - np.arange(n_m)[None, :, None], np.nan)


def stop_heatmaps(f: FullSolution, out_dir: Path, theirs_max: int | None = None) -> list[Path]:
    """One PNG per TS: the turn total at which a player who starts a turn stops."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rules = f.rules
    stops = stop_totals(f)
    n_t, n_m, _, n_n = rules.shape
    top_t = min(rules.top, rules.goal + 10 if theirs_max is None else theirs_max)
    paths = []
    for ts in range(n_t):
        grid = stops[ts, :, : top_t + 1].T
        fig, ax = plt.subplots(figsize=(7.5, 6.5), dpi=110)
        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#d9d9d9")
        finite = grid[np.isfinite(grid)]
        vmax = float(np.percentile(finite, 99)) if finite.size else 1.0
        im = ax.imshow(grid, origin="lower", cmap=cmap, vmin=1, vmax=vmax, aspect="auto", interpolation="nearest")
        fig.colorbar(im, ax=ax, label="turn total at which to stop (MAP)")
        ax.set_xlabel("my banked score (MSP)")
        ax.set_ylabel("their banked score (TSP)")
        who = "I started (TS = 0)" if ts == 0 else "they started (TS = 1)"
        if n_t == 1:
            who = "either player"
        ax.set_title(f"{rules.name}: stop at this turn total - {who}\ngrey: game over; policy of optimal play by both")
        if rules.last_turn:
            ax.axhline(rules.goal - 0.5, color="white", lw=0.8, ls="--")
        suffix = f"-ts{ts}" if n_t > 1 else ""
        path = Path(out_dir) / f"{rules.name}-stop{suffix}.png"
        fig.savefig(path, bbox_inches="tight")
        plt.close(fig)
        paths.append(path)
    return paths
