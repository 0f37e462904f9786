"""The Zehntausend duel without JAX: the throw classes, the sizes, the solved duel and its turn in
NumPy, for answers from a solved table.

A solved duel (``DuelSolution``) is read from the solution cache and a position is answered with
NumPy alone, so that a second ``advise``, ``play`` in a new process loads no JAX: the one-state
turn (``turn_values``) and the last turn (``last_turn_values``) are the arithmetic of the solver's
turn (``jaxsolve.games.zehntausend.duel``: ``write_values``, ``scan_levels``, ``_beyond``) in
float64, level by level, with the batch as the last axis. Only the values are computed (the
solver's slopes serve its bust pairs); a class's best option is the largest of the write and its
set-asides, the value the solver's running maximum keeps. The loader's check of a table against
its rules (``duel_commands.bellman_check``) uses the same turn on a batch of states.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from jaxsolve.core.race_solution import RaceSolution
from jaxsolve.games.zehntausend.duel_rules import DuelRules
from jaxsolve.games.zehntausend.rules import DICE, STEP
from jaxsolve.games.zehntausend.scoring import build_tables

NDIM = DICE + 1  # n = 0..6
_WIDTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)


# ---------------------------------------------------------------------------------------------
# Throw classes (once per scoring rule set)


@dataclass(frozen=True, eq=False)
class Classes:
    """Throws merged by ``(n, W(w), options)``, grouped by the number of options.

    ``groups``: per group ``(write [Cg], index [Cg, Ug], valid [Cg, Ug])`` where ``write`` is
    ``W(w) / 50`` and ``index`` points into the flattened window ``V[p + 1 : p + 1 + reach, :]``
    (``(W(u) / 50 - 1) * 7 + n - |u|``); ``prob [C, 6]``: each class's probability per number of
    dice ``n`` (busts last, one class per ``n``); ``reach``: the largest ``W / 50``.
    """

    groups: tuple
    prob: np.ndarray
    busts: int
    reach: int


@functools.lru_cache(maxsize=None)
def throw_classes(turn_rules) -> Classes:
    tables = build_tables(turn_rules)
    found: dict = {}
    for r in range(len(tables.row_n)):
        n, w = int(tables.row_n[r]), int(tables.write[r])
        valid = tables.opt_valid[r]
        opts = tuple(sorted({(int(p) // STEP, n - int(d)) for p, d in zip(tables.opt_points[r][valid], tables.opt_dice[r][valid])}))
        key = (n, w // STEP, opts if w else ())
        found[key] = found.get(key, 0.0) + float(tables.row_prob[r])
    scoring = sorted((k for k in found if k[1] > 0), key=lambda k: (len(k[2]), k))
    busts = sorted((k for k in found if k[1] == 0), key=lambda k: k[0])
    reach = max(max(k[1], max(o[0] for o in k[2])) for k in scoring)
    groups, order = [], []
    start = 0
    while start < len(scoring):
        width = next(w for w in _WIDTHS if w >= len(scoring[start][2]))
        members = [k for k in scoring[start:] if len(k[2]) <= width]
        index = np.zeros((len(members), width), np.int32)
        valid = np.zeros((len(members), width), bool)
        for i, (_, _, opts) in enumerate(members):
            for j, (off, nxt) in enumerate(opts):
                index[i, j], valid[i, j] = (off - 1) * NDIM + nxt, True
        groups.append((np.array([k[1] for k in members], np.int32), index, valid))
        order += members
        start += len(members)
    order += busts
    prob = np.zeros((len(order), DICE))
    for c, key in enumerate(order):
        prob[c, key[0] - 1] = found[key]
    return Classes(tuple(groups), prob, len(busts), reach)


class Geometry(NamedTuple):
    """Static sizes: ``T, G`` (flags, levels below the goal), ``Gb`` (bound level), ``H`` (table
    height), ``reach``, ``busts``, ``entry`` (level), ``last_turn``."""

    T: int
    G: int
    Gb: int
    H: int
    reach: int
    busts: int
    entry: int
    last_turn: bool


def geometry(rules: DuelRules) -> Geometry:
    cls = throw_classes(rules.turn_rules)
    G, Gb = rules.levels, rules.top // STEP
    return Geometry(rules.shape[0], G, Gb, Gb + cls.reach + 1, cls.reach, cls.busts, rules.entry // STEP, rules.last_turn)


# ---------------------------------------------------------------------------------------------
# The solved duel


@dataclass(frozen=True, eq=False)
class DuelSolution(RaceSolution):
    """Solved duel: turn-start win probabilities ``start [T, G, G]`` (``[ts, a, b]``, levels)."""

    rules: DuelRules
    last: np.ndarray
    rounds: np.ndarray

    def start_value(self, mine: int, theirs: int, *, they_started: bool = False) -> float:
        """Turn-start win probability of the player to move at banked scores ``mine``, ``theirs``."""
        return float(self.start[int(they_started and self.rules.last_turn), mine // STEP, theirs // STEP])

    @property
    def num_states(self) -> int:
        """Decision states ``(ts, a, b, p, n)`` with a turn total below what the state can use."""
        geo = geometry(self.rules)
        a = np.arange(geo.G)
        per_ab = (geo.Gb - a) * NDIM
        return int(geo.T * geo.G * per_ab.sum())

    def run_facts(self) -> dict:
        return {"inner_rounds": int(self.rounds.sum()), "num_states": self.num_states}


# ---------------------------------------------------------------------------------------------
# The turn in NumPy


class HostOps(NamedTuple):
    """The turn's tables on the host: per group ``(write [Cg], index [Cg, Ug])`` (unused slots
    repeat the first option, as in the solver's ``TurnOps``), per ``n = 1..6`` its classes and
    their probabilities, and ``bust [6]``: the probability that ``n`` dice score nothing."""

    groups: tuple
    by_n: tuple
    bust: np.ndarray


@functools.lru_cache(maxsize=8)
def host_ops(turn_rules) -> HostOps:
    cls = throw_classes(turn_rules)
    groups = tuple((w, np.where(v, i, i[:, :1])) for w, i, v in cls.groups)
    by_n = tuple((rows, cls.prob[rows, n]) for n in range(DICE) for rows in [np.nonzero(cls.prob[:, n])[0]])
    return HostOps(groups, by_n, cls.prob[cls.prob.shape[0] - cls.busts :].sum(axis=0))


def write_values(W: np.ndarray, ts, a, b, geo: Geometry, last: np.ndarray) -> np.ndarray:
    """``S [B, H]``: my win probability when I write a turn total ``p`` at the turn-start states
    ``(ts, a, b) [B]`` (``duel.write_values``; ``-inf`` where the entry minimum forbids it)."""
    ts, a, b = (np.asarray(v)[:, None] for v in (ts, a, b))
    p = np.arange(geo.H)[None, :]
    f = np.minimum(a + p, geo.Gb)
    other = 1 - ts if geo.last_turn else ts
    before = 1.0 - W[(other * geo.G + b) * geo.G + np.minimum(f, geo.G - 1)]
    if geo.last_turn:
        reached = np.where(ts == 0, 1.0 - last[np.clip(f - b + 1, 0, last.shape[0] - 1)], 1.0)
    else:
        reached = np.ones_like(before)
    S = np.where(f >= geo.G, reached, before)
    if geo.entry:
        S = np.where((a == 0) & (p < geo.entry), -np.inf, S)
    return S


def turn_tables(S: np.ndarray, x: np.ndarray, top: int, ops: HostOps, reach: int) -> np.ndarray:
    """``V [B, H, 7]``: the value of every turn total ``p`` and dice ``n`` of a batch of turns
    with write values ``S [B, H]`` and bust values ``x [B]`` (``duel.turn_tables``' values): the
    levels ``p < top`` scanned from the top down, the rows from ``top`` on throwing on towards
    the write value ``S(top)`` (``duel._beyond``)."""
    B, H = S.shape
    if not (1 <= top and top + reach <= H):
        raise ValueError(f"top {top} outside the table of {H} turn totals")
    St = np.ascontiguousarray(S.T)  # [H, B]
    V = np.repeat(St, NDIM, axis=0)  # [H * 7, B], row p * 7 + n
    e = np.empty((DICE, B))
    bust_v = np.broadcast_to(x[None, :], (1, B))
    for p in range(top - 1, -1, -1):
        window = V[(p + 1) * NDIM : (p + 1 + reach) * NDIM]
        s_win = St[p : p + reach + 1]
        values = [np.maximum(s_win[write], window[index].max(axis=1)) for write, index in ops.groups]
        every = np.concatenate([*values, np.broadcast_to(bust_v, (len(ops.bust), B))], axis=0)
        for n, (rows, pn) in enumerate(ops.by_n):
            e[n] = pn @ every[rows]
        V[p * NDIM] = np.where(St[p] >= e[DICE - 1], St[p], e[DICE - 1])
        V[p * NDIM + 1 : (p + 1) * NDIM] = e
    V = V.reshape(H, NDIM, B).transpose(2, 0, 1)
    s_top = S[:, top]
    on = x[:, None] * ops.bust[None, :] + s_top[:, None] * (1 - ops.bust[None, :])
    V[:, top:, 0] = s_top[:, None]
    V[:, top:, 1:] = on[:, None, :]
    return V


def turn_values(sol: DuelSolution, ts: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """``V [H, 7]`` and ``S [H]`` of one turn-start state ``(ts, a, b)`` (levels): every turn
    total and dice, and the write values (``duel.turn_values``, in float64 with NumPy)."""
    geo = geometry(sol.rules)
    W = np.asarray(sol.start, np.float64).reshape(-1)
    S = write_values(W, [ts], [a], [b], geo, np.asarray(sol.last, np.float64))
    other = 1 - ts if geo.last_turn else ts
    x = 1.0 - W[[(other * geo.G + b) * geo.G + a]]
    V = turn_tables(S, x, geo.Gb - a, host_ops(sol.rules.turn_rules), geo.reach)
    return V[0], S[0]


def last_turn_values(sol: DuelSolution, need: int) -> tuple[np.ndarray, np.ndarray]:
    """``V [H, 7]``, ``S [H]`` of a last turn that must end with at least ``need`` levels
    (``duel.last_turn_values``, in float64 with NumPy)."""
    geo = geometry(sol.rules)
    S = (np.arange(geo.H)[None, :] >= need).astype(np.float64)
    V = turn_tables(S, np.zeros(1), geo.Gb + 1, host_ops(sol.rules.turn_rules), geo.reach)
    return V[0], S[0]


def last_turn_table(rules: DuelRules) -> np.ndarray:
    """``L(d)``, ``d = 0..Gb + 1``: the best probability that one turn ends with >= ``d`` levels
    (``duel.last_turn_table``, in float64 with NumPy)."""
    geo = geometry(rules)
    d = np.arange(geo.Gb + 2)
    S = (np.arange(geo.H)[None, :] >= d[:, None]).astype(np.float64)
    V = turn_tables(S, np.zeros(len(d)), geo.Gb + 1, host_ops(rules.turn_rules), geo.reach)
    out = V[:, 0, DICE].copy()
    out[0] = 1.0
    return out


def turn_start_values(W: np.ndarray, last: np.ndarray, idx: np.ndarray, rules: DuelRules) -> np.ndarray:
    """One turn (``p = 0``, six dice) of each turn-start state ``idx [B]`` (flat indices into
    ``W [T * G * G]``) from the values ``W``: what a solution gives back at its own states."""
    geo = geometry(rules)
    idx = np.asarray(idx)
    ts, a, b = idx // (geo.G * geo.G), (idx // geo.G) % geo.G, idx % geo.G
    S = write_values(W, ts, a, b, geo, last)
    other = 1 - ts if geo.last_turn else ts
    x = 1.0 - W[(other * geo.G + b) * geo.G + a]
    # one scan from the batch's highest top, as the solver's turn (``duel.duel_turn``) evaluates a chunk
    V = turn_tables(S, x, int(np.max(geo.Gb - a)), host_ops(rules.turn_rules), geo.reach)
    return V[:, 0, DICE]


def row_turns(sol: DuelSolution, ts: int = 0):
    """For each my-score level ``a``: ``(a, V [G, H, 7], S [G, H])``, the turn tables and write
    values of the states ``(ts, a, b)`` for every ``b``, from one batched turn
    (``duel.row_turns``, in float64 with NumPy)."""
    geo = geometry(sol.rules)
    W = np.asarray(sol.start, np.float64).reshape(-1)
    last = np.asarray(sol.last, np.float64)
    ops = host_ops(sol.rules.turn_rules)
    b = np.arange(geo.G)
    other = 1 - ts if geo.last_turn else ts
    for a in range(geo.G):
        S = write_values(W, np.full(geo.G, ts), np.full(geo.G, a), b, geo, last)
        x = 1.0 - W[(other * geo.G + b) * geo.G + a]
        yield a, turn_tables(S, x, geo.Gb - a, ops, geo.reach), S


def decision_tables(sol: DuelSolution, levels, ts: int = 0, on_row=None):
    """``V [G, G, len(levels), 7]`` and ``S [G, G, len(levels)]`` at the turn totals ``levels``
    for every ``(a, b)`` (one batched turn per ``a``): throw on where ``V(p, n) > S(p)``
    (``duel.decision_tables``, in float64 with NumPy)."""
    geo = geometry(sol.rules)
    levels = np.asarray(levels)
    out_v = np.empty((geo.G, geo.G, len(levels), NDIM))
    out_s = np.empty((geo.G, geo.G, len(levels)))
    for a, V, S in row_turns(sol, ts):
        out_v[a] = V[:, levels, :]
        out_s[a] = S[:, levels]
        if on_row is not None:
            on_row(a)
    return out_v, out_s
