"""Simulated games at a table: me playing a policy from a target table with a terminal (the best
response to the win utility, or the expected-score policy), the opponents' final scores drawn
from their exact distributions under the expected-score policy.

My games are played die by die from a position: every throw is drawn, every keep and box is the
argmax of the table's option vectors at my current channel t = K - points scored (ties: filling
before re-throwing, the earlier box). The opponents do not react to me, so their games enter
only through their final scores, drawn independently from ``winning.final_distribution``.
The states met on a turn are answered in chunks (one compiled call per chunk).

``play_channel`` plays the same policy without a whole vector per state: it reads each game's
own channel only, in NumPy, vectorised over a batch of games. Filling box b after throw x is
worth the next state's value at ``max(t - points, 0)`` (one table look-up); a keep with r
re-throws left is worth the mean over the re-thrown dice of the best option with r - 1 left at
the same channel (``dice.expect_keeps`` and ``dice.best_subkeep`` over the throws).
``play_table`` evaluates the whole vector (every channel) of every state its games meet, which
from the start of a game is a large share of the game's states; ``play_channel`` evaluates
252 x 13 scalars per game and turn (Yahtzee), and the moves once per distinct state of a batch.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.sheets.rules import CategoryRules

CHUNK = 8  # states per compiled call (a state's arrays: boxes x throws x channels)


@functools.lru_cache(maxsize=16)
def _state_arrays_fn(rules: CategoryRules, width: int):
    """The jitted whole-vector options of a chunk of states (``target.turn_options``)."""
    import jax
    import jax.numpy as jnp

    from jaxsolve.games.category.objectives import target as TG

    def fn(rows, padded, f, u, h):
        got = TG.turn_options(rows, padded, tables.EngineState(f, u, h), rules, width, xp=jnp)
        out = {"fill": got.fill, "reward": got.moves.score(False), "next": got.moves.next_state, "keep": got.keep}  # [b, T, B, W], ..., [K, B, W]
        if rules.has_instant_bonus:
            out["fill_first"], out["reward_first"] = got.fill_first, got.moves.score(True)
        return out

    return jax.jit(fn)


def decode(flat: np.ndarray, rules: CategoryRules):
    """``(filled, upper, all_same_held)`` of flat state indices (``tables.state_index``)."""
    cap = rules.upper_threshold + 1
    flat = np.asarray(flat, np.int64)
    return flat // (2 * cap), (flat // 2) % cap, flat % 2


_decode = decode


def roller(rng: np.random.Generator, n_dice: int):
    """``roll(kept)``: each game's throw index after re-throwing the dice not in ``kept``
    (``[G, 6]`` face counts), the dice drawn from ``rng``."""
    from jaxsolve.games.category.simulation.simulate import throw_of

    def roll(kept):
        m = n_dice - kept.sum(1)
        faces = rng.integers(0, 6, (len(m), n_dice))
        return throw_of(faces, np.arange(n_dice)[None, :] < m[:, None], kept).astype(np.int64)
    return roll


@dataclass
class Played:
    """My final points from the position (``points``, one per game)."""

    points: np.ndarray


def _games_at(table, start: tuple[int, int, int], channel: int, games: int) -> tuple:
    """``(state, channel, points)`` of ``games`` games at state ``start`` and channel ``channel``
    of ``table`` (a target table with a terminal)."""
    rules = table.rules
    if getattr(table, "terminal", None) is None:
        raise JaxsolveError("simulated play needs a table solved with a terminal (every layer as wide)")
    f0, u0, h0 = start
    state = np.full(games, int(tables.state_index(int(f0), min(int(u0), rules.upper_threshold), int(h0), rules)), np.int64)
    return state, np.full(games, int(channel), np.int64), np.zeros(games, np.int64)


def _play_turn(rules: CategoryRules, tv: TurnValues, roll):
    """Play one turn of the games of ``tv`` die by die by its argmax (ties: filling before
    re-throwing, the earlier box, the first keep): the points each scores and its next state."""
    sp = tables.space(rules.dice)
    subkeeps, keeps = np.asarray(sp.subkeeps).astype(np.int64), np.asarray(sp.keeps)
    games = tv.fill.shape[2]
    x = roll(np.zeros((games, 6), np.int64))
    lane = np.arange(games)
    done = np.zeros(games, bool)
    box = np.zeros(games, np.int64)
    first_flag = np.zeros(games, bool)
    first_fill = tv.fill if tv.fill_first is None else tv.fill_first  # the first throw's, with its instant bonus
    for left in range(rules.throws - 1, -1, -1):
        first = rules.has_instant_bonus and left == rules.throws - 1
        fv = (first_fill if first else tv.fill)[:, x, lane]  # [boxes, G]
        best_box = fv.argmax(0)
        if left == 0:
            stop = ~done
        else:
            subs = subkeeps[x]  # [G, S]
            kv = tv.keep[left - 1][subs, lane[:, None]]
            stop = ~done & (fv.max(0) >= kv.max(1) - 1e-12)
            go = ~done & ~stop
            if go.any():
                pick = subs[lane, kv.argmax(1)]
                x[go] = roll(keeps[pick[go]])
        box[stop] = best_box[stop]
        first_flag[stop] = first
        done |= stop
    reward = np.where(first_flag, (tv.reward if tv.reward_first is None else tv.reward_first)[box, x, lane], tv.reward[box, x, lane])
    return reward, tv.next_state[box, x, lane]


def play_table(table, start: tuple[int, int, int], channel: int, games: int, seed: int) -> Played:
    """``games`` games from state ``start`` played by the argmax of ``table`` (a target table with
    a terminal, every layer kept) at channel ``channel`` (its K: the utility's last index)."""
    import jax.numpy as jnp

    from jaxsolve.games.category.objectives.distribution import max_turn_reward
    from jaxsolve.games.category.objectives.winning import _padded

    rules = table.rules
    state, t, points = _games_at(table, start, channel, games)
    roll = roller(np.random.default_rng(seed), rules.dice)
    rows = jnp.asarray(table.rows)
    for layer in range(bin(int(start[0])).count("1"), rules.num_boxes):
        width = table.layers[layer].shape[1]
        padded = jnp.asarray(_padded(table.layers[layer + 1], max_turn_reward(rules), width))
        uniq, inverse = np.unique(state, return_inverse=True)
        for c0 in range(0, len(uniq), CHUNK):
            chunk = uniq[c0: c0 + CHUNK]
            f, u, h = (jnp.asarray(a, jnp.int32) for a in decode(np.concatenate([chunk, np.repeat(chunk[:1], CHUNK - len(chunk))]), rules))
            arr = {k: (np.asarray(v) if not isinstance(v, list) else [np.asarray(x) for x in v]) for k, v in _state_arrays_fn(rules, width)(rows, padded, f, u, h).items()}
            for j in range(len(chunk)):
                g = np.flatnonzero(inverse == c0 + j)
                _advance(rules, _state_values(arr, j, t[g]), roll, g, state, t, points)
    return Played(points)


def _state_values(arr: dict, j: int, channels: np.ndarray) -> TurnValues:
    """The options of the games at state ``j`` of a chunk (``_state_arrays_fn``'s arrays), each
    game at its channel."""

    def one(a):  # [boxes, T, G] of [boxes, T, B, W] (at each game's channel) or [boxes, T, B]
        if a is None:
            return None
        return np.broadcast_to(a[:, :, j, None], a.shape[:2] + (len(channels),)) if a.ndim == 3 else a[:, :, j, channels]

    return TurnValues(one(arr["fill"]), one(arr.get("fill_first")), one(arr["reward"]), one(arr.get("reward_first")), one(arr["next"]),
                      [k[:, j, channels] for k in arr["keep"]])


def _advance(rules: CategoryRules, tv: TurnValues, roll, g, state, t, points) -> None:
    """Games ``g`` play a turn by ``tv`` (``_play_turn``): their points, channels and states move on."""
    reward, nxt = _play_turn(rules, tv, roll)
    points[g] += reward
    t[g] = np.maximum(t[g] - reward, 0)
    state[g] = nxt


def draw_finals(finals: list[np.ndarray], games: int, seed: int) -> np.ndarray:
    """``[opponents, games]`` final scores drawn from each opponent's distribution."""
    rng = np.random.default_rng(seed)
    out = []
    for p in finals:
        p = np.clip(np.asarray(p, np.float64), 0, None)
        out.append(rng.choice(len(p), size=games, p=p / p.sum()))
    return np.asarray(out)


def outcomes(mine: np.ndarray, opponents: np.ndarray, ties: str = "share") -> np.ndarray:
    """Per game: 1 for a win, 0 for a loss, a tie for first shared / won / lost by ``ties``."""
    top = opponents.max(0)
    tied = (opponents == mine[None, :]).sum(0)
    share = {"share": 1.0 / (1 + tied), "win": np.ones_like(mine, float), "lose": np.zeros_like(mine, float)}[ties]
    return np.where(mine > top, 1.0, np.where(mine == top, share, 0.0))


BATCH = 1024  # games per NumPy batch (a batch's move arrays: boxes x throws x games)


@dataclass
class TurnValues:
    """The options of one turn of a batch of games, each at its own channel (``G`` games).

    fill: ``[boxes, T, G]`` the value of filling each box after each throw (-inf: not allowed);
    fill_first: the same with the first throw's instant bonus (None without one);
    reward, reward_first: ``[boxes, T, G]`` the points of each move; next_state: ``[boxes, T, G]``;
    keep: ``keep[r - 1]`` = ``[K, G]`` the value of each keep with r re-throws left (the dice
    not kept thrown again, r - 1 re-throws after it).
    """

    fill: np.ndarray
    fill_first: np.ndarray | None
    reward: np.ndarray
    reward_first: np.ndarray | None
    next_state: np.ndarray
    keep: list


def turn_values(table, states: np.ndarray, channels: np.ndarray) -> TurnValues:
    """The options of a turn from ``states`` (flat state indices, one layer) at ``channels``,
    read from ``table`` (a target table with a terminal, every layer kept), float64: the target
    turn (``target.turn_options``) at one channel per game, from the rows of the next layer the
    states reach."""
    from jaxsolve.games.category.engine import solver
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.games.category.objectives.distribution import max_turn_reward

    rules = table.rules
    uniq, inv = np.unique(np.asarray(states, np.int64), return_inverse=True)  # games at one state share its moves
    f, u, h = decode(uniq, rules)
    layers = {bin(int(x)).count("1") for x in np.unique(f)}
    if len(layers) != 1:
        raise JaxsolveError(f"a batch of games must be at one layer, got layers {sorted(layers)}")
    layer = layers.pop()
    nxt = table.layers[layer + 1] if layer + 1 < len(table.layers) else None
    if nxt is None:
        raise JaxsolveError(f"the table does not hold layer {layer + 1} (solve with keep='all')")
    mv = solver.Moves._make(np.asarray(a)[:, :, inv.reshape(-1)] for a in solver.moves(tables.EngineState(f, u, h), rules, xp=np))
    row = np.where(mv.allowed, np.asarray(table.rows)[mv.next_state], -1)  # a closed box's "next state" is this layer's
    reach, local = np.unique(row, return_inverse=True)
    padded = TG._pad_terminal(np.asarray(nxt[reach[reach >= 0]], np.float64), max_turn_reward(rules), nxt.shape[1])
    local = np.maximum(local.reshape(row.shape) - int(reach[0] < 0), 0)
    got = TG.turn_options(lambda _: local, padded, tables.EngineState(f, u, h), rules, nxt.shape[1], xp=np,
                          columns=np.asarray(channels, np.int64)[:, None], moves=mv)

    def fill(values):
        return None if values is None else np.where(mv.allowed, values[..., 0], -np.inf)

    def reward(first: bool):
        return np.asarray(mv.score(first)).astype(np.int64)

    return TurnValues(fill(got.fill), fill(got.fill_first), reward(False), reward(True) if rules.has_instant_bonus else None,
                      np.asarray(mv.next_state).astype(np.int64), [k[..., 0] for k in got.keep])


def play_channel(table, start: tuple[int, int, int], channel: int, games: int, seed: int, *, batch: int = BATCH, on_turn=None) -> Played:
    """``games`` games from state ``start`` played as ``play_table`` plays them (the argmax of
    ``table`` at each game's channel, ``channel`` at the start; filling before re-throwing on
    ties, the earlier box, the first keep), reading one channel per game (``turn_values``).
    Reproducible by ``seed`` and ``batch``. ``on_turn(layer, seconds)`` after each turn."""
    import time

    rules = table.rules
    if getattr(table, "terminal", None) is None:
        raise JaxsolveError("simulated play needs a table solved with a terminal (every layer as wide)")
    if int(games) <= 0 or int(batch) <= 0:
        raise JaxsolveError(f"games and batch must be positive, got {games} and {batch}")
    if not 0 <= int(channel) < len(table.terminal):
        raise JaxsolveError(f"channel {channel} is outside the table's 0..{len(table.terminal) - 1}")
    state, t, points = _games_at(table, start, channel, games)
    roll = roller(np.random.default_rng(seed), rules.dice)
    if table.rows[state[0]] < 0:
        raise JaxsolveError(f"the table does not hold the state {start}")
    for layer in range(bin(int(start[0])).count("1"), rules.num_boxes):
        t0 = time.perf_counter()
        for b0 in range(0, games, batch):
            g = np.arange(b0, min(b0 + batch, games))
            _advance(rules, turn_values(table, state[g], t[g]), roll, g, state, t, points)
        if on_turn is not None:
            on_turn(layer, time.perf_counter() - t0)
    return Played(points)
