"""What the race games for N players share beside the engine, in NumPy (no JAX, no files): the
fairest head starts of a solved table, the cycles that did not settle as plain values (for an
export's sidecar) and the line that says where a position lies on such a cycle. The commands
(``jaxsolve solve|advise|simulate|plot|play``) are ``jaxsolve.games.race_table_game``'s.
"""

from __future__ import annotations

import numpy as np


def fairest(values: np.ndarray, step: int) -> dict:
    """Head starts for seats 1..N-1 (seat 0, who moves first, gets none) that bring every seat's
    win probability closest to ``1/N`` (smallest largest gap), over every state of the table."""
    n = values.shape[-1]
    G = values.shape[0]
    grids = np.indices((G,) * (n - 1)).reshape(n - 1, -1).T
    idx = tuple([np.zeros(len(grids), np.int64)] + [grids[:, k] for k in range(n - 1)])
    p = values[idx]
    gap = np.max(np.abs(p - 1.0 / n), axis=1)
    k = int(np.argmin(gap))
    return {"points": [0] + [int(v) * step for v in grids[k]], "win": p[k].tolist(), "largest_gap": float(gap[k])}


def cycle_note(scores: tuple, unsettled: list, step: int) -> str | None:
    """One line where ``scores`` (levels, mover first) lie on a cycle whose best responses did
    not settle: how many pure equilibria it has and which was selected, or that the selected
    one is mixed and who mixes with what probability; None elsewhere."""
    n = len(scores)
    mine = {tuple(scores[j:] + scores[:j]) for j in range(n)}
    for u in unsettled:
        if tuple(int(v) // step for v in u["scores"]) in mine:
            if u["selected"] == "mixed":
                # a state that recurs in its cycle is one mixer, named once
                mixing = {str(u["scores"][j]): q for j, q in zip(u["mixer"], u["q"])}
                who = " and ".join(f"the mover at {s}" for s in mixing)
                qs = " and ".join(f"{q:.4f}" for q in mixing.values())
                return (
                    f"this position's cycle has no pure equilibrium: the values are a stationary mixed one, in which {who} "
                    f"play their lower-risk policy with probability {qs} (the others pure)"
                )
            return f"this position's cycle has {u['pure']} pure equilibria: the values are the selected one (the largest sum of the movers' own win probabilities)"
    return None


def plain_cycle(u: dict, shape: tuple, step: int) -> dict:
    """A cycle that did not settle (``MultiRun.unsettled``) as plain JSON values: the banked
    scores (points) of its first member, its members, its equilibria counted, the selected one."""
    scores = [int(v) * step for v in np.unravel_index(u["members"][0], shape)]
    return {"scores": scores, "members": [int(m) for m in u["members"]], "pure": u["pure"], "mixed": u["mixed"], "selected": u["selected"], "mixer": u["mixer"], "q": u["q"]}
