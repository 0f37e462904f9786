"""Many Zehntausend duels of optimal against optimal, played at once with real dice.

An independent check of a solved duel: every game throws ``n`` real dice (``jax.random``), the
throw is looked up among the 923 throws of ``jaxsolve.games.zehntausend.scoring`` (not the
merged classes the solver uses) and both players take the option with the highest win
probability: writing, or one of the throw's distinct set-asides ``(W(u), |u|)`` followed by
throwing on. The option values come from the solved turn-start values ``W``: a table of the
throw-on values ``V(p, n)`` of every turn-start state (``throw_values``, one batched turn per
``(ts, a)``, as the solver's own turn function computes them) and the write value ``S(p)``
computed from ``W`` on the fly. If the class merging or the layered solve were wrong, the
simulated win rate of the start player would not match the solved ``W(0, 0)``.

The games of a chunk run in one ``while_loop``: one step is one throw in every slot, and each
slot plays several games in a row (a new one starts where one ended) so that the slots end at
about the same time; chunks keep the memory bounded. Ties between writing and throwing on go
to writing, as in the advisor.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.games.zehntausend.duel import _turn_jit, geometry, turn_ops, write_values
from jaxsolve.games.zehntausend.duel_numpy import row_turns
from jaxsolve.games.zehntausend.rules import DICE, STEP
from jaxsolve.games.zehntausend.scoring import build_tables

SIDES = 6
MAX_STEPS = 100_000  # throws per game; a game ends with probability 1 long before

Table = np.ndarray | jax.Array  # built on the host, placed on the device by ``sim_tables``


class SimTables(NamedTuple):
    """Device arrays of one solved duel for the simulation.

    ``V [T * G * G, Gb, 6]``: throw-on values ``V(p, n)`` (``n = 1..6``) of each turn-start state
    for turn totals below the bound; ``W [T * G * G]``: turn-start values; ``last [D]``: the
    last-turn table ``L(d)``; ``lastV [D, H, 6]``: throw-on values of a last turn needing ``d``;
    ``row_of [7**6]``: throw row of a count vector's base-7 code; ``write [R]`` (levels, 0 =
    bust), ``opt_points``, ``opt_left``, ``opt_valid [R, U]``: the raw throws' options (levels;
    dice thrown next, 6 when all were used).
    """

    V: Table
    W: Table
    last: Table
    lastV: Table
    row_of: Table
    write: Table
    opt_points: Table
    opt_left: Table
    opt_valid: Table


def throw_values(sol, on_row=None) -> np.ndarray:
    """``V [T, G, G, Gb, 6]``: the throw-on value of every decision state, one batched turn per
    ``(ts, a)`` (all ``b`` at once), from the solved turn-start values (the NumPy turn,
    ``duel_numpy.row_turns``: faster on a CPU than the compiled one for these batches)."""
    geo = geometry(sol.rules)
    out = np.empty((geo.T, geo.G, geo.G, geo.Gb, DICE), sol.start.dtype)
    for ts in range(geo.T):
        for a, V, _ in row_turns(sol, ts):
            out[ts, a] = np.asarray(V[:, : geo.Gb, 1:])
            if on_row is not None:
                on_row(ts * geo.G + a)
    return out


def last_throw_values(sol) -> np.ndarray:
    """``[Gb + 2, H, 6]``: throw-on values of a last turn that must end with at least ``d`` levels."""
    geo = geometry(sol.rules)
    dtype = jnp.dtype(sol.start.dtype)
    ops = turn_ops(sol.rules, dtype)
    d = jnp.arange(geo.Gb + 2)
    S = (jnp.arange(geo.H)[None, :] >= d[:, None]).astype(dtype)
    V, _ = _turn_jit(S, jnp.zeros(d.shape, dtype), geo.Gb + 1, ops, geo.reach, geo.busts)
    return np.asarray(V[:, :, 1:])


def sim_tables(sol, V=None, device=None) -> SimTables:
    """The simulation's tables of a solved duel (``V`` from ``throw_values`` if given)."""
    tables = build_tables(sol.rules.turn_rules)
    geo = geometry(sol.rules)
    V = throw_values(sol) if V is None else V
    row_of, left = tables.row_lookup(), tables.dice_left()
    lastV = last_throw_values(sol) if geo.last_turn else np.zeros((1, 1, DICE), V.dtype)
    host = SimTables(
        V.reshape(-1, geo.Gb, DICE),
        sol.start.reshape(-1),
        np.asarray(sol.last),
        lastV,
        row_of,
        (tables.write // STEP).astype(np.int32),
        (tables.opt_points // STEP).astype(np.int32),
        left.astype(np.int32),
        tables.opt_valid,
    )
    return jax.device_put(host, device)


class Games(NamedTuple):
    """One running game per slot: ``first`` the player to move started; ``a``, ``b`` her and
    the other's banked level; ``p``, ``n`` turn total level and dice to throw; ``last`` she
    plays the last turn (last-turn rule) needing ``need`` levels. Per slot: ``todo`` games
    still to finish (0: the slot is idle), ``wins`` the start player's wins so far."""

    first: jax.Array
    a: jax.Array
    b: jax.Array
    p: jax.Array
    n: jax.Array
    last: jax.Array
    need: jax.Array
    todo: jax.Array
    wins: jax.Array


def new_games(slots: int, per_slot) -> Games:
    z = jnp.zeros(slots, jnp.int32)
    f = jnp.zeros(slots, bool)
    return Games(~f, z, z, z, z + DICE, f, z, z + per_slot, z)


def option_values(t: SimTables, g: Games, row, geo):
    """Values of writing (column 0) and of each option of the throw ``row`` (the rest; -inf
    where a row has fewer options), for the player to move."""
    w = t.write[row]
    q = g.p[:, None] + t.opt_points[row]  # [B, U]
    left = t.opt_left[row]
    valid = t.opt_valid[row]
    neg = jnp.asarray(-jnp.inf, t.V.dtype)
    # a normal turn
    ts = (~g.first).astype(jnp.int32) if geo.last_turn else jnp.zeros_like(g.a)
    state = (ts * geo.G + g.a) * geo.G + g.b
    top = geo.Gb - g.a
    write = write_values(t.W, ts, g.a, g.b, geo, t.last, (g.p + w)[:, None])[:, 0]
    inside = t.V[state[:, None], jnp.minimum(q, geo.Gb - 1), left - 1]
    beyond = write_values(t.W, ts, g.a, g.b, geo, t.last, q)  # V = S from the bound on
    opts = jnp.where(q < top[:, None], inside, beyond)
    if geo.last_turn:
        # the last turn: writing wins with at least `need` levels
        lw = (g.p + w >= g.need).astype(t.V.dtype)
        lo = t.lastV[jnp.minimum(g.need, t.lastV.shape[0] - 1)[:, None], jnp.minimum(q, t.lastV.shape[1] - 1), left - 1]
        write = jnp.where(g.last, lw, write)
        opts = jnp.where(g.last[:, None], lo, opts)
    opts = jnp.where(valid, opts, neg)
    return jnp.concatenate([write[:, None], opts], axis=1)


_options_jit = jax.jit(option_values, static_argnums=(3,))


def roll(key, n):
    """Throw ``n [B]`` real dice per game: the base-7 code of each throw's counts (``row_of`` gives its row)."""
    faces = jax.random.randint(key, (n.shape[0], DICE), 0, SIDES)
    live = jnp.arange(DICE)[None, :] < n[:, None]
    counts = jnp.sum(jax.nn.one_hot(faces, SIDES, dtype=jnp.int32) * live[:, :, None], axis=1)
    return counts @ jnp.asarray(7 ** np.arange(SIDES), jnp.int32)


def step(t: SimTables, g: Games, key, geo) -> Games:
    """One throw in every slot's game, the chosen option, and a new game where one ended."""
    row = t.row_of[roll(key, g.n)]
    w = t.write[row]
    values = option_values(t, g, row, geo)
    choice = jnp.argmax(values, axis=1)  # ties: the first, writing
    bust = w == 0
    write = ~bust & (choice == 0)
    pick = jnp.maximum(choice - 1, 0)[:, None]
    new_p = g.p + jnp.take_along_axis(t.opt_points[row], pick, axis=1)[:, 0]
    new_n = jnp.take_along_axis(t.opt_left[row], pick, axis=1)[:, 0]
    total = g.a + g.p + w
    reach = write & (total >= geo.G) & ~g.last
    passes = (bust | write) & ~g.last & ~reach
    if geo.last_turn:
        # the start player reaching the goal hands the other one her last turn
        to_last = reach & g.first
        win_now = reach & ~g.first
        last_end = g.last & (bust | write)
        last_won = g.last & write & (g.p + w >= g.need)
        ends = win_now | last_end
        start_won = last_end & ~last_won
        need = jnp.where(to_last, jnp.minimum(total, geo.Gb) - g.b + 1, g.need)
        turn_over = passes | to_last
        last = g.last | to_last
    else:
        ends, start_won = reach, reach & g.first
        need, turn_over, last = g.need, passes, g.last
    banked = jnp.where(write, jnp.minimum(total, geo.G - 1), g.a)
    moved = Games(
        first=jnp.where(turn_over, ~g.first, g.first),
        a=jnp.where(turn_over, g.b, g.a),
        b=jnp.where(turn_over, banked, g.b),
        p=jnp.where(turn_over, 0, new_p),
        n=jnp.where(turn_over, DICE, new_n),
        last=last,
        need=need,
        todo=g.todo - ends,
        wins=g.wins + start_won,
    )
    fresh = new_games(g.a.shape[0], 0)._replace(todo=moved.todo, wins=moved.wins)
    active = g.todo > 0
    return jax.tree.map(lambda new, start, old: jnp.where(active, jnp.where(ends, start, new), old), moved, fresh, g)


def choose(sol, tables: SimTables, mine: int, theirs: int, turn: int, faces, they_started: bool = False):
    """The simulation's choice at one position (points; the dice showing): ``("write",
    total, 0, value)`` or ``("aside", turn total, dice to throw, value)``; for checks against the
    advisor."""
    geo = geometry(sol.rules)
    counts = np.bincount(np.asarray(faces) - 1, minlength=SIDES)
    code = int(counts @ (7 ** np.arange(SIDES)))
    last = bool(sol.rules.last_turn and theirs >= sol.rules.goal)

    def one(v, dt=jnp.int32):
        return jnp.asarray([v], dt)

    g = new_games(1, 1)._replace(
        first=one(not they_started, bool),
        a=one(mine // STEP),
        b=one(min(theirs // STEP, geo.G - 1)),
        p=one(turn // STEP),
        n=one(int(counts.sum())),
        last=one(last, bool),
        need=one((theirs - mine) // STEP + 1 if last else 0),
    )
    row = tables.row_of[one(code)]
    values = np.asarray(_options_jit(tables, g, row, geo))[0]
    c = int(np.argmax(values))
    r = int(row[0])
    if c == 0:
        return "write", turn + STEP * int(tables.write[r]), 0, float(values[0])
    return "aside", turn + STEP * int(tables.opt_points[r, c - 1]), int(tables.opt_left[r, c - 1]), float(values[c])


def play_chunk(t: SimTables, key, slots: int, per_slot: int, geo):
    """``slots * per_slot`` games to the end (each slot plays ``per_slot`` games one after the
    other, so that the slots finish at about the same time): the start player's wins, the
    throws played and the steps of the loop."""

    def cond(c):
        g, i, _ = c
        return (i < MAX_STEPS * per_slot) & jnp.any(g.todo > 0)

    def body(c):
        g, i, throws = c
        throws = throws + jnp.sum(g.todo > 0)
        return step(t, g, jax.random.fold_in(key, i), geo), i + 1, throws

    count = jax.dtypes.canonicalize_dtype(jnp.int64)  # int32 where 64-bit types are off
    g, steps, throws = jax.lax.while_loop(cond, body, (new_games(slots, per_slot), jnp.asarray(0, jnp.int32), jnp.asarray(0, count)))
    return jnp.sum(g.wins), jnp.sum(g.todo), throws, steps


_play = jax.jit(play_chunk, static_argnums=(2, 3, 4))


@dataclass
class Simulation:
    """Result of ``simulate``: the start player's wins in ``games`` games of optimal against
    optimal and the solved value they should match."""

    games: int
    wins: int
    solved: float
    throws: int
    seed: int
    table_seconds: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.wins / self.games

    @property
    def se(self) -> float:
        """Standard error of the win rate under the solved value."""
        return math.sqrt(self.solved * (1.0 - self.solved) / self.games)

    @property
    def z(self) -> float:
        return (self.rate - self.solved) / self.se

    def to_dict(self) -> dict:
        return {
            "games": self.games,
            "seed": self.seed,
            "start_player_wins": self.wins,
            "rate": self.rate,
            "solved": self.solved,
            "standard_error": self.se,
            "z": self.z,
            "throws": self.throws,
            "table_seconds": round(self.table_seconds, 2),
            "seconds": round(self.seconds, 2),
        }


def simulate(sol, games: int, seed: int = 0, *, slots: int = 100_000, per_slot: int = 10, device=None, tables: SimTables | None = None, on_chunk=None) -> Simulation:
    """Play ``games`` duels of optimal against optimal from the start: chunks of ``slots``
    games at once, each slot playing ``per_slot`` games in a row (``on_chunk(count)`` after each)."""
    geo = geometry(sol.rules)
    t0 = time.perf_counter()
    tables = sim_tables(sol, device=device) if tables is None else tables
    t1 = time.perf_counter()
    key = jax.random.key(seed)
    wins = throws = played = 0
    size = slots * per_slot
    for i, start in enumerate(range(0, games, size)):
        count = min(size, games - start)
        k = min(per_slot, count)
        s = -(-count // k)  # the chunk plays s * k >= count games; the extra ones are cut below
        if s * k != count:
            s, k = count, 1
        w, todo, th, _ = _play(tables, jax.random.fold_in(key, i), s, k, geo)
        if int(todo):
            raise RuntimeError(f"{int(todo)} games did not end within {MAX_STEPS * k} throws")
        wins, throws, played = wins + int(w), throws + int(th), played + count
        if on_chunk is not None:
            on_chunk(count)
    return Simulation(games, wins, sol.game_value, throws, seed, t1 - t0, time.perf_counter() - t1)
