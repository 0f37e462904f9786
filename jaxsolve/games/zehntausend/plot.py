"""Zehntausend's figure: figure 1 of D. Peter (2013), ``Delta E(p, n)`` over a log ``p`` axis (Agg PNG)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from jaxsolve.games.zehntausend.rules import DICE, STEP

if TYPE_CHECKING:
    from jaxsolve.games.zehntausend.solver import Solution


def check_png_path(path):
    """Fail early, with a clear message, when ``path`` cannot be written as a PNG."""
    from jaxsolve.io.export import check_writable

    return check_writable(path, ".png")


def plot_gain(solution: Solution, path, p_max: int | None = None, y_min: float = -300.0):
    """Figure 1 of Peter (2013): ``Delta E(p, n) = E(p, n) - p`` for n = 1..6 on a log p axis.

    The dashed line is the n = 6 asymptote ``(1 - P0_6) p + Delta_6 - p``; dots mark ``p_n``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = check_png_path(path)
    p_max = p_max or int(solution.p6 * 1.3)
    levels = np.arange(1, p_max // STEP + 1)
    p = STEP * levels
    gain = np.array([[solution.value(int(q), n) - q for n in range(1, DICE + 1)] for q in p])
    t = solution.tables
    asym = float(t.delta(DICE)) - float(t.bust_probability(DICE)) * p
    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=130)
    colors = plt.get_cmap("viridis")(np.linspace(0.0, 0.9, DICE))
    for n in range(1, DICE + 1):
        ax.plot(p, gain[:, n - 1], color=colors[n - 1], lw=1.6, label=f"n = {n}")
    ax.plot(p, asym, "k--", lw=1.0, label=r"n = 6 asymptote $\Delta_6 - \mathcal{P}^0_6\,p$")
    for n, pn in solution.thresholds().items():
        ax.plot([pn], [0.0], "o", color=colors[n - 1], ms=4)
    ax.axhline(0.0, color="0.5", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlim(p[0], p[-1])
    ax.set_ylim(y_min, 1.05 * float(gain.max()))
    ax.set_xlabel("points already set aside this turn, p")
    ax.set_ylabel(r"$\Delta E(p, n) = E(p, n) - p$")
    ax.set_title(f"Zehntausend ({solution.rules.name}): expected gain of throwing n dice;  E(0, 6) = {solution.turn_value:.4f}")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(True, which="both", alpha=0.25)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
