"""Many games of Zehntausend at a table played at once (NumPy): N players who all follow the
solved equilibrium, each seat's win count, against its solved value.

The play is ``table_played.simulate``'s (the plain Python reference, one game at a time), decided
from tables computed once: the mover's own value of throwing ``n`` dice on at every turn total
of every state (the turn scan of ``table_numpy.scan_vectors`` for all states of one banked score
at once, the mover's component only: his choices compare only it) and of writing; two more rows
per mixing member of a mixed cycle, the scans with his bust payoff moved by ``-+1e-9`` (his
policies either side of the breakpoint). A game's step is one throw of real dice (``n`` faces of
``numpy.random``, looked up among the 923 throws of ``scoring``); the mover writes or sets aside
by the tie rule (writing first, then the distinct set-asides by most points, then most dice
left, all six used counting as six; an option replaces the best so far only when it is better
for him by more than ``1e-12``), and a write that reaches the goal wins at once. A bust passes
the move. A mixing mover draws at the start of his turn which of his two policies he plays
(the lower one with the probability the solve found).

The games run in slots: each step throws once in every slot; a slot whose game ended starts the
next game until all are started, then is dropped. The hot loop reads
its tables by gathers only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jaxsolve.core.race_cycles import TIE, decode, flat_index
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.duel_numpy import NDIM
from jaxsolve.games.zehntausend.rules import DICE, STEP
from jaxsolve.games.zehntausend.scoring import build_tables
from jaxsolve.games.zehntausend.table_numpy import _bust_vectors, host_ops, scan_vectors, sizes, write_vectors
from jaxsolve.games.zehntausend.table_rules import TableRules

SIDES = 6
NUDGE = 1e-9
"""A mixer's policy either side of his breakpoint: his bust payoff moved by this (as ``table_played``)."""
POW7 = (7 ** np.arange(SIDES)).astype(np.int32)
MAX_TABLE_BYTES = 4 << 30
"""The most memory the decisions' tables may take (four players to 2,000 would need 6.7 GB)."""


@dataclass(frozen=True, eq=False)
class SimTables:
    """The decisions' tables of one solved table (``G`` levels, ``N`` players, ``S = G ** N``
    states, ``M`` mixing members, ``R = 923`` throws, ``U`` options of a throw at most).

    ``throw_on [S + 2 M, G + 1, 7]``: the mover's value of throwing ``n`` dice on (column 0:
    ``-inf``, the mark of an unused option) at turn total level ``p`` (from ``G - a`` on: 1, his
    win), a state's row by its flat index (mover first), then the lower and the upper policy of
    each mixing member; ``write [S, G + 1]``: the mover's value of writing ``p`` levels (``-inf``
    below the entry minimum, 1 from the goal on); ``mix [S]``: a state's mixing member (-1: none)
    and ``q [M]`` the probability of his lower policy. Per throw: ``row_of [7 ** 6]`` its row by
    the base-7 code of its counts, ``points [R]`` (levels; 0: a bust), and its distinct
    set-asides in the tie rule's order, ``aside [R, U]`` (levels) and ``left [R, U]`` (dice
    thrown next, 6 where all were used; 0 past the throw's last option)."""

    levels: int
    players: int
    throw_on: np.ndarray
    write: np.ndarray
    mix: np.ndarray
    q: np.ndarray
    row_of: np.ndarray
    points: np.ndarray
    aside: np.ndarray
    left: np.ndarray


def throw_tables(turn_rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(row_of, points, aside, left)`` of ``SimTables`` for a turn's scoring rules."""
    t = build_tables(turn_rules)
    pts = (t.opt_points // STEP).astype(np.int64)
    left = t.dice_left()
    # the tie rule's order: most points, then most dice left; unused slots last with 0 dice
    key = np.where(t.opt_valid, -(pts * NDIM + left), np.iinfo(np.int64).max)
    order = np.argsort(key, axis=1, kind="stable")
    valid = np.take_along_axis(t.opt_valid, order, axis=1)
    aside = np.where(valid, np.take_along_axis(pts, order, axis=1), 0)
    left = np.where(valid, np.take_along_axis(left, order, axis=1), 0)
    return t.row_lookup(), (t.write // STEP).astype(np.int64), aside, left


def _scan0(flat: np.ndarray, s: np.ndarray, x_shift: float, z, ops) -> tuple[np.ndarray, np.ndarray]:
    """``(throw_on [B, G + 1, 7], write [B, G + 1])`` of states ``s [B, N]`` with one mover's
    banked level, the mover's component of ``table_numpy.turn_scan``."""
    G = z.G
    S = write_vectors(flat, s, z)[..., :1]
    X = _bust_vectors(flat, s, G)[:, :1].copy()
    X[:, 0] += x_shift
    V = scan_vectors(S, X, G - int(s[0, 0]), ops, z)
    B = s.shape[0]
    throw_on = V[: (G + 1) * NDIM, :, 0].reshape(G + 1, NDIM, B).transpose(2, 0, 1).copy()
    throw_on[:, :, 0] = -np.inf
    return throw_on, S[:, : G + 1, 0].copy()


def sim_tables(rules: TableRules, values: np.ndarray, unsettled: list) -> SimTables:
    """The decisions' tables of the solved table ``values`` (its ``unsettled`` cycles give the mixers)."""
    n, z = rules.players, sizes(rules)
    G = z.G
    need = rules.num_states * (G + 1) * (NDIM + 1) * 8
    if need > MAX_TABLE_BYTES:
        raise JaxsolveError(f"simulating {rules.name} needs {need / 1e9:.1f} GB of decision tables (limit {MAX_TABLE_BYTES / 1e9:.1f} GB): lower the goal or the players")
    flat = np.asarray(values, np.float64).reshape(-1, n)
    ops = host_ops(rules.duel.turn_rules)
    members = [(int(u["members"][i]), float(q)) for u in unsettled if u["selected"] == "mixed" for i, q in zip(u["mixer"], u["q"])]
    S, per = G**n, G ** (n - 1)
    throw_on = np.empty((S + 2 * len(members), G + 1, NDIM))
    write = np.empty((S, G + 1))
    for a in range(G):  # the states of one mover's banked level are a block of flat indices
        s = decode(np.arange(a * per, (a + 1) * per), G, n)
        throw_on[a * per : (a + 1) * per], write[a * per : (a + 1) * per] = _scan0(flat, s, 0.0, z, ops)
    mix = np.full(S, -1, np.int64)
    for m, (state, _) in enumerate(members):
        s = decode(np.array([state]), G, n)
        for k, shift in enumerate((-NUDGE, NUDGE)):
            throw_on[S + 2 * m + k] = _scan0(flat, s, shift, z, ops)[0][0]
        mix[state] = m
    row_of, points, aside, left = throw_tables(rules.duel.turn_rules)
    return SimTables(G, n, throw_on, write, mix, np.array([q for _, q in members]), row_of, points, aside, left)


def tie_rule(vals: np.ndarray) -> np.ndarray:
    """The option each row of ``vals [B, K]`` (the mover's values in the tie rule's order) takes:
    the first, replaced by a later one only where that is better by more than ``1e-12`` than
    the best so far (``table_numpy.best_option``). The first largest, unless another option lies
    within ``1e-12`` of it: those rows go through the options one by one."""
    choice = np.argmax(vals, axis=1)
    best = vals[np.arange(len(vals)), choice]
    near = np.count_nonzero(vals + TIE >= best[:, None], axis=1) > 1
    if near.any():
        v = vals[near]
        keep = v[:, 0].copy()
        pick = np.zeros(len(v), np.int64)
        for j in range(1, v.shape[1]):
            better = v[:, j] > keep + TIE
            keep = np.where(better, v[:, j], keep)
            pick = np.where(better, j, pick)
        choice[near] = pick
    return choice


def decide(t: SimTables, vrow: np.ndarray, state: np.ndarray, banked: np.ndarray, p: np.ndarray, row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mover's choice at each of ``B`` positions: ``vrow`` the row of ``throw_on`` (his policy),
    ``state`` the flat state, ``banked`` his banked level, ``p`` the turn total level before the
    throw ``row`` (not a bust). Returns ``(choice, reach)``: 0 writing, ``j > 0`` the ``j``-th
    set-aside of the row; ``reach``: the write reaches the goal (then it is the only option)."""
    G = t.levels
    w = t.points[row]
    reach = banked + p + w >= G
    vals = np.empty((len(row), t.aside.shape[1] + 1))
    vals[:, 0] = t.write.reshape(-1)[state * (G + 1) + np.minimum(p + w, G)]
    level = np.minimum(p[:, None] + t.aside[row], G)
    vals[:, 1:] = t.throw_on.reshape(-1)[(vrow * (G + 1))[:, None] * NDIM + level * NDIM + t.left[row]]
    vals[reach, 1:] = -np.inf  # a write that reaches the goal is the only option
    return tie_rule(vals), reach


def simulate(rules: TableRules, values: np.ndarray, unsettled: list, games: int, seed: int = 0, *, slots: int = 1 << 15, tables: SimTables | None = None) -> np.ndarray:
    """Win counts per seat (seat 0 moves first) of ``games`` games of N players who all follow
    the solved equilibrium (``tables``: ``sim_tables``' of the same solution, where at hand)."""
    if games < 0:
        raise JaxsolveError(f"games must be at least 0, got {games}")
    t = sim_tables(rules, values, unsettled) if tables is None else tables
    N, G = t.players, t.levels
    rng = np.random.default_rng(seed)
    wins = np.zeros(N, np.int64)
    B = min(slots, games)
    seats = np.arange(N)
    scores = np.zeros((B, N), np.int64)  # banked levels, seat order
    mover = np.zeros(B, np.int64)
    p = np.zeros(B, np.int64)
    dice = np.full(B, DICE, np.int64)
    state = np.zeros(B, np.int64)
    vrow = np.zeros(B, np.int64)
    live = np.ones(B, bool)
    started = B

    def begin(i: np.ndarray) -> None:
        """A turn starts at slots ``i``: the state from the mover's view, the policy he plays."""
        s = flat_index(scores[i[:, None], (mover[i][:, None] + seats[None, :]) % N], G)
        state[i] = s
        m = t.mix[s]
        draw = m >= 0
        v = s.copy()
        if draw.any():
            mm = m[draw]
            lower = rng.random(len(mm)) < t.q[mm]
            v[draw] = G**N + 2 * mm + np.where(lower, 0, 1)
        vrow[i] = v

    begin(np.arange(B))
    while B:
        code = np.where(np.arange(DICE)[None, :] < dice[:, None], POW7[rng.integers(0, SIDES, (B, DICE), dtype=np.int8)], 0).sum(axis=1)
        row = t.row_of[code]
        w = t.points[row]
        bust = w == 0
        go = np.nonzero(~bust)[0]
        banked = scores[go, mover[go]]
        choice, reach = decide(t, vrow[go], state[go], banked, p[go], row[go])
        writes = go[choice == 0]
        won = go[reach]
        # set-asides: the turn goes on
        on = go[choice > 0]
        j = choice[choice > 0] - 1
        r = row[on]
        p[on] += t.aside[r, j]
        dice[on] = t.left[r, j]
        # writes that do not reach the goal, and busts: the move passes
        banks = writes[~reach[choice == 0]]
        scores[banks, mover[banks]] += p[banks] + w[banks]
        passes = np.concatenate([np.nonzero(bust)[0], banks])
        mover[passes] = (mover[passes] + 1) % N
        p[passes] = 0
        dice[passes] = DICE
        # games won: count them, start new ones
        if len(won):
            wins += np.bincount(mover[won], minlength=N)
            fresh = won[: max(0, min(len(won), games - started))]
            started += len(fresh)
            live[won[len(fresh) :]] = False
            scores[fresh] = 0
            mover[fresh] = 0
            p[fresh] = 0
            dice[fresh] = DICE
            passes = np.concatenate([passes, fresh])
        begin(passes)
        if not live.all():  # games all started: drop the slots whose game ended
            keep = np.nonzero(live)[0]
            scores, mover, p, dice, state, vrow = (x[keep] for x in (scores, mover, p, dice, state, vrow))
            live = live[keep]
            B = len(keep)
    return wins
