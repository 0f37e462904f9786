"""The sheets of a two-player game: one player's sheets as classes of one-player states that score
the same from here on (``Sheets``, ``player_sheets``), and the layers of pairs of sheets, each
with the window of leads it stores (``LayerPlan``, ``plan_layers``, ``end_plans``)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.objectives.distribution import points_left, sub_layer_states
from jaxsolve.games.category.sheets.rules import CategoryRules



# ----------------------------------------------------------------------------- sheets


def sheet_class(state: tables.EngineState, rules: CategoryRules):
    """``(upper, all_same_held)`` of the class representative of a one-player state:
    ``tables.canonical``, and upper 0 when the rules pay no upper bonus (the total then counts
    for nothing)."""
    _, u, h = tables.canonical(state, rules)
    return (u if rules.upper_bonus else u * 0), h


@dataclass(frozen=True, eq=False)
class Sheets:
    """One player's sheets: per number of filled boxes k the class representatives whose filled
    boxes include ``prefilled`` (with ``start``: of the sheets a game reaches from that sheet), as
    ``filled[k]``, ``upper[k]``, ``held[k]`` int32 and ``bound[k]`` (``points_left``); ``index``
    ``[flat states]`` int32 gives each state's position in its k's list (its class
    representative's; -1: not a sheet here)."""

    prefilled: int
    filled: tuple
    upper: tuple
    held: tuple
    bound: tuple
    index: np.ndarray
    start: tuple | None = None

    def count(self, k: int) -> int:
        return len(self.filled[k])

    def most(self, k: int) -> int:
        """The most points a sheet with k boxes filled can still score (0 if none)."""
        return int(self.bound[k].max(initial=0))

    @property
    def first(self) -> tuple[int, int, int]:
        """The player's sheet at the solve's start: ``start``, else the prefilled boxes (upper 0)."""
        return self.start if self.start is not None else (self.prefilled, 0, 0)

    def find(self, filled: int, upper: int, all_same_held: int, rules: CategoryRules) -> int:
        """Position of one sheet in its list; a clear error if it is not a sheet of this player."""
        cap = rules.upper_threshold
        if not 0 <= int(filled) < 1 << rules.num_boxes or int(upper) < 0 or int(all_same_held) not in (0, 1):
            raise JaxsolveError(f"not a sheet: filled={filled}, upper={upper}, all_same_held={all_same_held}")
        i = int(self.index[int(tables.state_index(int(filled), min(int(upper), cap), int(all_same_held), rules))])
        if i < 0:
            raise JaxsolveError(f"not a sheet of this solve: filled={filled}, upper={upper}, all_same_held={all_same_held} (unreachable, or a prefilled box open)")
        return i


def check_sheet(rules: CategoryRules, sheet) -> tuple[int, int, int]:
    """``(filled, upper capped at the threshold, all_same_held)`` of a reachable one-player
    sheet; a clear error otherwise."""
    try:
        f, u, h = (int(x) for x in sheet)
    except (TypeError, ValueError):
        raise JaxsolveError(f"a sheet is (filled, upper, all_same_held), got {sheet!r}") from None
    if not 0 <= f < 1 << rules.num_boxes or u < 0 or h not in (0, 1):
        raise JaxsolveError(f"not a sheet: filled={f}, upper={u}, all_same_held={h}")
    u = min(u, rules.upper_threshold)
    lf, lu, lh = tables.layer_states(rules, bin(f).count("1"))
    if not np.any((lf == f) & (lu == u) & (lh == h)):
        raise JaxsolveError(f"not a reachable sheet: filled={f}, upper={u}, all_same_held={h}")
    return f, u, h


@functools.lru_cache(maxsize=16)
def player_sheets(rules: CategoryRules, prefilled: int = 0, start: tuple[int, int, int] | None = None) -> Sheets:
    """The ``Sheets`` of a player whose filled boxes include ``prefilled`` (a mask); with ``start``
    = (filled, upper, all_same_held), only the classes of the sheets a game reaches from that
    sheet (``distribution.sub_layer_states(start=)``: its boxes and more, the upper totals its
    open upper boxes can add, its all-same flag while that box is filled). Every state of such a
    class is indexed, so the set is closed under moves (a class's states share their futures).
    The rows keep the order of the unrestricted lists."""
    nb = rules.num_boxes
    if start is not None:
        start = check_sheet(rules, start)
        prefilled = start[0]
    index = np.full(rules.num_states, -1, np.int32)
    fs, us, hs, bs = [], [], [], []
    for k in range(nb + 1):
        f, u, h = (a.astype(np.int64) for a in sub_layer_states(rules, k, prefilled))
        cu, ch = sheet_class(tables.EngineState(f, u, h), rules)
        rep = (cu == u) & (ch == h)
        if start is not None:
            rf, ru, rh = (a.astype(np.int64) for a in sub_layer_states(rules, k, prefilled, start))
            cru, crh = sheet_class(tables.EngineState(rf, ru, rh), rules)
            reached = tables.state_index(rf, cru, crh, rules)
            rep &= np.isin(tables.state_index(f, u, h, rules), reached)
        keys = tables.state_index(f[rep], u[rep], h[rep], rules)
        where = np.full(rules.num_states, -1, np.int64)
        where[keys] = np.arange(len(keys))
        index[tables.state_index(f, u, h, rules)] = where[tables.state_index(f, cu, ch, rules)]
        fs.append(f[rep].astype(np.int32))
        us.append(u[rep].astype(np.int32))
        hs.append(h[rep].astype(np.int32))
        bs.append(points_left(tables.EngineState(f[rep], u[rep], h[rep]), rules))
    return Sheets(int(prefilled), tuple(fs), tuple(us), tuple(hs), tuple(bs), index, start)


# ----------------------------------------------------------------------------- layers


@dataclass(frozen=True)
class LayerPlan:
    """Layer ``n``: the player to move (0: the one to move at the solve's start), his filled
    boxes ``a`` and the other's ``b``, the sheet counts, the leads kept ``[-low, high]``."""

    n: int
    mover: int
    a: int
    b: int
    movers: int
    others: int
    low: int
    high: int

    @property
    def pairs(self) -> int:
        return self.movers * self.others

    @property
    def width(self) -> int:
        return self.low + self.high + 1


def plan_layers(rules: CategoryRules, sheets: tuple[Sheets, Sheets]) -> list[LayerPlan]:
    """Every layer from the start (player 0 to move) to both sheets full."""
    nb = rules.num_boxes
    a0, b0 = bin(sheets[0].prefilled).count("1"), bin(sheets[1].prefilled).count("1")
    out = []
    for n in range(a0 + b0, 2 * nb + 1):
        step = n - a0 - b0
        mover = step % 2
        a, b = (a0 + step // 2, b0 + step // 2) if mover == 0 else (b0 + step // 2, a0 + (step + 1) // 2)
        mine, theirs = sheets[mover], sheets[1 - mover]
        out.append(LayerPlan(n, mover, a, b, mine.count(a), theirs.count(b), mine.most(a), theirs.most(b)))
    return out


def end_plans(rules: CategoryRules, plans: list[LayerPlan], open_boxes: int) -> list[LayerPlan]:
    """The layers of ``plans`` where both players have at most ``open_boxes`` boxes open."""
    nb = rules.num_boxes
    if not 1 <= int(open_boxes) <= nb:
        raise JaxsolveError(f"open boxes must be between 1 and {nb}, got {open_boxes}")
    return [p for p in plans if p.n >= 2 * (nb - int(open_boxes))]


# ----------------------------------------------------------------------------- solve


def start_sheets(rules: CategoryRules, start, mine: int = 0, theirs: int = 0) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """The two checked sheets of ``solve(start=)``; masks ``mine`` / ``theirs`` given beside it
    must be its filled boxes."""
    try:
        first, second = start
    except (TypeError, ValueError):
        raise JaxsolveError(f"start is (the sheet of the player to move, the other's sheet), got {start!r}") from None
    firsts = (check_sheet(rules, first), check_sheet(rules, second))
    for name, mask, sheet in (("mine", mine, firsts[0]), ("theirs", theirs, firsts[1])):
        if int(mask) and int(mask) != sheet[0]:
            raise JaxsolveError(f"{name}={mask} is not the start's filled boxes {sheet[0]}: give one or the other")
    return firsts


def pair_sheets(rules: CategoryRules, mine: int = 0, theirs: int = 0, start=None) -> tuple[Sheets, Sheets]:
    """The two players' ``Sheets`` of a solve: those with the filled boxes ``mine`` / ``theirs``
    (masks), or with ``start`` the sheets a game reaches from the two sheets (``start_sheets``)."""
    if start is None:
        return player_sheets(rules, int(mine)), player_sheets(rules, int(theirs))
    firsts = start_sheets(rules, start, mine, theirs)
    return player_sheets(rules, start=firsts[0]), player_sheets(rules, start=firsts[1])
