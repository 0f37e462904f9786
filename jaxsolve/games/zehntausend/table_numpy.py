"""Zehntausend at a table from a solved table, in NumPy (no JAX): the turn scan of
``table.scan_vectors`` for a few states, for ``advise``, play and the loader's check.

The scan is the solver's, line for line (throw classes, turn totals from the top down, the
table's tie rule: every class compares its write first, then its set-asides by most points,
then most dice left, an option replacing the best so far only when it is better for the mover
by more than ``1e-12``); ``test_numpy_turn_equals_the_jax_turn`` holds the two to 1e-12.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from jaxsolve.core.race_cycles import TIE, decode, flat_index
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.zehntausend.duel_numpy import NDIM, Geometry, geometry, throw_classes
from jaxsolve.games.zehntausend.rules import DICE, STEP
from jaxsolve.games.zehntausend.table_rules import TableRules


Sizes = Geometry
"""The table's static sizes are its duel's: the scan reads ``G``, ``H``, ``reach``, ``busts`` and ``entry``."""


def sizes(rules: TableRules) -> Sizes:
    return geometry(rules.duel)


def _tie_order(index: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """A class's options in the tie rule's order (most points, then most dice left; all six used
    counts as six), unused slots repeating the first."""
    out = np.empty_like(index)
    for r in range(index.shape[0]):
        opts = [int(i) for i, v in zip(index[r], valid[r]) if v]
        opts.sort(key=lambda i: (-(i // NDIM), -(i % NDIM or DICE)))
        out[r] = opts + [opts[0]] * (index.shape[1] - len(opts))
    return out


@functools.lru_cache(maxsize=8)
def host_ops(turn_rules, dtype_name: str = "float64") -> tuple[tuple, tuple]:
    """``(groups, by_n)``: per group ``(write [Cg], index [Cg, Ug])`` in the tie rule's order; per
    ``n = 1..6`` ``(classes [C_n], probabilities [C_n])``."""
    cls = throw_classes(turn_rules)
    groups = tuple((np.asarray(w, np.int32), _tie_order(i, v).astype(np.int32)) for w, i, v in cls.groups)
    by_n = tuple((np.nonzero(cls.prob[:, n])[0].astype(np.int32), np.asarray(cls.prob[np.nonzero(cls.prob[:, n])[0], n], dtype_name)) for n in range(DICE))
    return groups, by_n


def write_vectors(flat: np.ndarray, s: np.ndarray, z: Sizes) -> np.ndarray:
    """``S [B, H, N]``: the value vector of writing each turn total at scores ``s [B, N]``
    (``flat [S, N]``: every turn-start vector); ``-inf`` for the mover below the entry minimum."""
    B, N = s.shape
    p = np.arange(z.H)
    new = s[:, :1] + p[None, :]
    rest = np.broadcast_to(s[:, None, 1:], (B, z.H, N - 1))
    nxt = flat_index(np.concatenate([rest, np.minimum(new, z.G - 1)[..., None]], axis=-1), z.G)
    win = np.zeros(N)
    win[0] = 1.0
    S = np.where((new >= z.G)[..., None], win, np.roll(flat[nxt], 1, axis=-1))
    if z.entry:
        barred = (s[:, :1] == 0) & (p[None, :] < z.entry)
        S[..., 0] = np.where(barred, -np.inf, S[..., 0])
    return S


def scan_vectors(S: np.ndarray, X: np.ndarray, top: int, ops: tuple, z: Sizes) -> np.ndarray:
    """``V [H * 7, B, N]``: value vectors of every turn total and dice for ``p < top`` (rows from
    ``top`` on hold the write), as ``table.scan_vectors``."""
    groups, by_n = ops
    B, H, N = S.shape
    St = np.swapaxes(S, 0, 1)
    V = np.repeat(St, NDIM, axis=0)
    bust_v = np.broadcast_to(X[None], (z.busts, B, N))
    for p in range(top - 1, -1, -1):
        win_v = V[(p + 1) * NDIM : (p + 1 + z.reach) * NDIM]
        s_win = St[p : p + z.reach + 1]
        vals = []
        for write, index in groups:
            best_v = s_win[write]
            cand_v = win_v[index]
            for j in range(index.shape[1]):
                better = cand_v[:, j, :, 0] > best_v[..., 0] + TIE
                best_v = np.where(better[..., None], cand_v[:, j], best_v)
            vals.append(best_v)
        all_v = np.concatenate(vals + [bust_v], axis=0)
        e = np.stack([np.sum(pn[:, None, None] * all_v[rows], axis=0) for rows, pn in by_n])
        s_p = St[p]
        write_now = s_p[:, 0] >= e[DICE - 1][:, 0] - TIE
        V[p * NDIM : (p + 1) * NDIM] = np.concatenate([np.where(write_now[:, None], s_p, e[DICE - 1])[None], e], axis=0)
    return V


def _bust_vectors(flat: np.ndarray, s: np.ndarray, G: int) -> np.ndarray:
    """The mover's bust vectors: the next player's turn-start vector at the same scores, rotated."""
    return np.roll(flat[flat_index(np.roll(s, -1, axis=-1), G)], 1, axis=-1)


def turn_scan(rules: TableRules, values: np.ndarray, scores: tuple, x_shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(V [H * 7, N], S [H, N])`` of one state (levels, mover first): every turn total's and
    dice's value vector and every write's. ``x_shift``: added to the mover's bust payoff (a
    mixer's policy either side of his breakpoint)."""
    n = rules.players
    z = sizes(rules)
    flat = np.asarray(values, np.float64).reshape(-1, n)
    s = np.asarray([scores], np.int64)
    S = write_vectors(flat, s, z)
    X = _bust_vectors(flat, s, z.G)
    X[:, 0] += x_shift
    V = scan_vectors(S, X, z.G - int(scores[0]), host_ops(rules.duel.turn_rules), z)
    return V[:, 0], S[0]


def turn_options(rules: TableRules, values: np.ndarray, scores: tuple, turn: int, dice: int) -> list[tuple[str, np.ndarray]]:
    """Value vectors of writing ``turn`` points and of throwing ``dice`` dice on (0: all six
    used, throw six) at ``scores`` (levels), in the tie rule's order (writing first)."""
    if turn % STEP or turn < 0:
        raise JaxsolveError(f"--turn must be a non-negative multiple of {STEP}, got {turn}")
    if not 0 <= dice <= DICE:
        raise JaxsolveError(f"--dice-left must be 0..{DICE}, got {dice}")
    p = turn // STEP
    if scores[0] + p >= rules.levels:
        raise JaxsolveError(f"a turn total of {turn} already reaches the goal {rules.goal}: write it")
    V, S = turn_scan(rules, values, scores)
    options = []
    if p > 0 and np.isfinite(S[p][0]):
        options.append((f"write {turn}", S[p]))
    options.append((f"throw {dice or DICE} on", V[p * NDIM + (dice or DICE)]))
    return options


@dataclass(frozen=True)
class ThrowOption:
    """One option of a throw: ``write`` (the turn total plus the most the throw scores) or
    ``aside`` (``set_aside`` faces, ``points`` this turn after it, ``dice`` to throw next) with
    its value vector (mover first)."""

    label: str
    vector: np.ndarray
    action: str
    set_aside: tuple[str, ...] = ()
    points: int = 0
    dice: int = 0


def throw_options(rules: TableRules, values: np.ndarray, scores: tuple, turn: int, faces, x_shift: float = 0.0, scan=None) -> list[ThrowOption]:
    """Every option of the dice ``faces`` showing, with ``turn`` points set aside before the
    throw, at ``scores`` (levels, mover first), in the tie rule's order: writing, then the
    set-asides by most points, then most dice left (all six used counts as six). Where writing
    reaches the goal it is the only option (it wins). ``scan``: ``turn_scan``'s result, where at
    hand. A throw that scores nothing (a bust) or a total no turn reaches is refused."""
    from jaxsolve.games.zehntausend.scoring import build_tables, check_reachable, parse_throw

    turn_rules = rules.duel.turn_rules
    counts = parse_throw(list(faces))
    check_reachable(turn_rules, turn, int(counts.sum()), "a turn total of")
    tables = build_tables(turn_rules)
    write = int(tables.write[tables.row_index(counts)])
    if write == 0:
        raise JaxsolveError(f"the throw {' '.join(map(str, sorted(faces)))} scores nothing: a bust, the turn is over")
    V, S = turn_scan(rules, values, scores, x_shift) if scan is None else scan
    top = S.shape[0] - 1
    p = turn // STEP
    out = []
    w = S[min(p + write // STEP, top)]
    if np.isfinite(w[0]):
        out.append(ThrowOption(f"write {turn + write}", w, "write", (), turn + write, 0))
        if scores[0] * STEP + turn + write >= rules.goal:
            return out
    subsets = tables.set_asides(counts)
    n = int(counts.sum())
    asides = []
    for i in range(len(subsets.points)):
        pts, used = int(subsets.points[i]), int(subsets.dice[i])
        left = n - used if used < n else DICE
        level = min(p + pts // STEP, top)
        keep = tuple(subsets.faces(i))
        asides.append(ThrowOption(f"aside {' '.join(keep)}, throw {left}", V[level * NDIM + left], "aside", keep, turn + pts, left))
    asides.sort(key=lambda o: (-o.points, -o.dice))
    return out + asides


def best_option(options: list[ThrowOption]) -> ThrowOption:
    """The mover's choice by the tie rule: an option replaces the best so far only when it is
    better for him by more than ``1e-12`` (the options in the tie rule's order)."""
    best = options[0]
    for o in options[1:]:
        if o.vector[0] > best.vector[0] + TIE:
            best = o
    return best


def turn_values(rules: TableRules, values: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The mover's value of his best turn (six dice, turn total 0) at each flat state of
    ``states``, his bust payoff read from ``values``: equal to ``values[state][0]`` in a solution
    (also at a mixed cycle, where each mixer is indifferent)."""
    n = rules.players
    z = sizes(rules)
    flat = np.asarray(values, np.float64).reshape(-1, n)
    s = decode(np.asarray(states), z.G, n)
    out = np.empty(len(s))
    ops = host_ops(rules.duel.turn_rules)
    for top in np.unique(z.G - s[:, 0]):  # one scan per height: the states with the same lowest mover score
        rows = np.nonzero(z.G - s[:, 0] == top)[0]
        S = write_vectors(flat, s[rows], z)
        V = scan_vectors(S, _bust_vectors(flat, s[rows], z.G), int(top), ops, z)
        out[rows] = V[DICE, :, 0]
    return out
