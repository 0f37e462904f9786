"""Play the Pig family at a table against N-1 computer players who follow the solved equilibrium.

The computer players bank or roll by the solved decisions (``table_simulate.decisions``; a
mixing mover of a mixed cycle draws his policy at the start of his turn). Before each of your
decisions the game shows every banked score, whose turn it is, the turn total and both options'
win probabilities for you (and says when the position's cycle is one where the equilibrium was
selected among several, or is mixed).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from jaxsolve.core.race_cycles import flat_index
from jaxsolve.core.race_table import cycle_note
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.raab.table_rules import PigTableRules
from jaxsolve.games.raab.table_simulate import NUDGE, decisions, turn_options


def _mixed_rows(rules: PigTableRules, values: np.ndarray, unsettled: list) -> dict:
    """Per mixing state: his probability of the left policy and both policies' decisions."""
    mixed = {}
    for u in unsettled:
        if u["selected"] == "mixed":
            for i, q in zip(u["mixer"], u["q"]):
                state = np.array([u["members"][i]])
                mixed[int(state[0])] = (q, decisions(rules, values, np.array([-NUDGE]), state)[0], decisions(rules, values, np.array([NUDGE]), state)[0])
    return mixed


def _your_choice(rules, values, unsettled, seen, p, ask, say) -> bool:
    """Show both options' win probabilities (and the cycle's note) and read roll or bank."""
    opts = dict(turn_options(rules, values, seen, p))
    say(f"  turn total {p}: " + "; ".join(f"{label}: you win {v[0]:.4f}" for label, v in opts.items()))
    note = cycle_note(seen, unsettled, 1)
    if note:
        say("  " + note)
    answer = ""
    while answer not in ("r", "b"):
        answer = ask("  roll or bank? [r/b] ").strip().lower()[:1]
    return answer == "b"


def play(
    rules: PigTableRules, values: np.ndarray, unsettled: list, *, seat: int, seed: int, ask: Callable[[str], str], say: Callable[[str], None]
) -> int:
    """One game; returns the winner's seat (0-based). ``seat``: yours (0 moves first)."""
    G, n = rules.goal, rules.players
    if not 0 <= seat < n:
        raise JaxsolveError(f"--seat must be 1..{n}, got {seat + 1}")
    rng = np.random.default_rng(seed)
    bank = decisions(rules, values)
    mixed = _mixed_rows(rules, values, unsettled)
    scores = [0] * n
    mover = 0
    names = ["you" if i == seat else f"player {i + 1}" for i in range(n)]

    def verb(who: int, word: str) -> str:
        return f"{names[who]} {word if who == seat else word + 's'}"

    while True:
        seen = tuple(scores[(mover + k) % n] for k in range(n))
        state = int(flat_index(np.array(seen), G))
        row = bank[state]
        if state in mixed and mover != seat:
            q, left, right = mixed[state]
            row = left if rng.random() < q else right
        p = 0
        say("banked: " + ", ".join(f"{names[i]} {scores[i]}" for i in range(n)) + f"; {names[mover]} to move")
        while True:
            if p > 0:
                banks = _your_choice(rules, values, unsettled, seen, p, ask, say) if mover == seat else bool(row[p])
                if banks:
                    scores[mover] += p
                    say(f"  {verb(mover, 'bank')} {p}: {scores[mover]}")
                    break
            face = rules.points[int(rng.integers(0, rules.sides))]
            if face == 0:
                say(f"  {verb(mover, 'roll')} the bust face and {'lose' if mover == seat else 'loses'} {p}")
                break
            p += face
            say(f"  {verb(mover, 'roll')} +{face} (turn total {p})")
            if scores[mover] + p >= G:
                scores[mover] += p
                say(f"{(names[mover] + (' reach' if mover == seat else ' reaches'))} {scores[mover]} and {'win' if mover == seat else 'wins'}")
                return mover
        mover = (mover + 1) % n
