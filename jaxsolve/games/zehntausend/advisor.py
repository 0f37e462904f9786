"""Zehntausend advisor: every legal choice after a throw, valued by the solved ``E(p, n)``."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

from jaxsolve.games.zehntausend.rules import DICE
from jaxsolve.games.zehntausend.scoring import check_reachable, parse_throw, usable_subsets
from jaxsolve.games.zehntausend.solver import Solution, check_points


@dataclass(frozen=True)
class Choice:
    """One legal choice after a throw: write, or set aside ``set_aside`` and throw ``dice``."""

    action: Literal["write", "throw", "bust"]
    set_aside: tuple[str, ...]
    points: int
    dice: int
    value: float

    def describe(self) -> str:
        if self.action == "bust":
            return "bust: no scoring dice, the turn ends with 0 points"
        if self.action == "write":
            return f"write {self.points}"
        keep = " ".join(self.set_aside)
        again = " (all six used: throw six again)" if self.dice == DICE and len(self.set_aside) else ""
        return f"set aside {keep}, throw {self.dice} with {self.points}{again}"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def advise(solution: Solution, points: int, faces) -> list[Choice]:
    """Every legal choice for ``points`` in hand and the throw ``faces``, best first.

    Writing is worth ``points + W(w)``; setting aside ``u`` is worth
    ``E(points + W(u), n - |u|)``, where ``n - |u| = 0`` means throwing six again.
    Ties keep writing first, then more points, then fewer dice thrown. Points and dice that
    no turn brings together are refused (``scoring.check_reachable``).
    """
    points = check_points(points)
    counts = parse_throw(faces)
    check_reachable(solution.rules, points, int(counts.sum()))
    v = usable_subsets(solution.rules, counts)
    if not len(v.points):
        return [Choice("bust", (), 0, 0, 0.0)]
    n = int(counts.sum())
    choices = [Choice("write", (), points + int(v.points.max()), 0, float(points + v.points.max()))]
    for i in range(len(v.points)):
        after, left = points + int(v.points[i]), n - int(v.dice[i])
        dice = left or DICE
        choices.append(Choice("throw", tuple(v.faces(i)), after, dice, solution.value(after, dice)))
    order = sorted(range(len(choices)), key=lambda i: (-choices[i].value, i > 0, -choices[i].points, choices[i].dice, i))
    return [choices[i] for i in order]
