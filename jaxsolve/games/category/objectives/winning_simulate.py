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
from typing import Any

import numpy as np

from jaxsolve.core import dice as dicelib
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.sheets.rules import CategoryRules

CHUNK = 8  # states per compiled call (a state's arrays: boxes x throws x channels)


@functools.lru_cache(maxsize=16)
def _state_arrays_fn(rules: CategoryRules, width: int):
    import jax

    from jaxsolve.games.category.engine import solver
    from jaxsolve.games.category.objectives import target as TG

    sp = tables.space(rules.dice)

    def fn(rows, padded, f, u, h):
        out = {}
        out["fill"] = TG.final_targets(rows, padded, f, u, h, rules, width, False)  # [b, T, B, W]
        mv = solver.moves(f, u, h, rules)
        out["reward"] = mv.score(False)
        out["next"] = mv.next_state
        if rules.has_instant_bonus:
            out["fill_first"] = TG.final_targets(rows, padded, f, u, h, rules, width, True)
            out["reward_first"] = mv.score(True)
        stages = TG.stage_targets(rows, padded, f, u, h, rules, width)
        out["keep"] = [dicelib.expect_keeps(sp, stages[r]) for r in range(rules.throws - 1)]  # [K, B, W]
        return out

    return jax.jit(fn)


def _decode(flat: np.ndarray, rules: CategoryRules):
    cap = rules.upper_threshold + 1
    return flat // (2 * cap), (flat // 2) % cap, flat % 2


@dataclass
class Played:
    """My final points from the position (``points``, one per game)."""

    points: np.ndarray


@dataclass
class _Games:
    """Games from one state: their states, channels and points, and their dice (``roll``)."""

    state: np.ndarray
    t: np.ndarray
    points: np.ndarray
    subkeeps: np.ndarray
    keeps: np.ndarray
    roll: Any


def _games_at(table, start: tuple[int, int, int], channel: int, games: int, seed: int) -> _Games:
    """``games`` games at state ``start`` and channel ``channel`` of ``table`` (a target table
    with a terminal), with the dice of ``seed``: ``roll(kept_counts)`` throws the dice not kept
    (``kept_counts``: [G, 6] face counts) and returns the throw indices."""
    from jaxsolve.games.category.simulation.simulate import throw_of

    rules = table.rules
    if getattr(table, "terminal", None) is None:
        raise JaxsolveError("simulated play needs a table solved with a terminal (every layer as wide)")
    sp = tables.space(rules.dice)
    n = rules.dice
    rng = np.random.default_rng(seed)
    f0, u0, h0 = start
    state = np.full(games, int(tables.state_index(int(f0), min(int(u0), rules.upper_threshold), int(h0), rules)), np.int64)

    def roll(kept_counts):
        m = n - kept_counts.sum(1)
        faces = rng.integers(0, 6, (len(m), n))
        return throw_of(faces, np.arange(n)[None, :] < m[:, None], kept_counts)

    return _Games(state, np.full(games, int(channel), np.int64), np.zeros(games, np.int64), np.asarray(sp.subkeeps).astype(np.int64), np.asarray(sp.keeps), roll)


@dataclass
class _TurnView:
    """One turn's option values for a batch of ``G`` games, whatever holds them: ``fill(first,
    x)`` -> ``[boxes, G]`` the value of each box after throws ``x`` (``first``: the first throw,
    with its instant bonus); ``keep(left, subs)`` -> ``[G, S]`` the value of each sub-keep with
    ``left`` re-throws left; ``reward(first, box, x)`` and ``next_state(box, x)`` -> ``[G]``."""

    fill: Any
    keep: Any
    reward: Any
    next_state: Any


def _play_turn(rules: CategoryRules, view: _TurnView, games: int, subkeeps, keeps, roll):
    """Play one turn of ``games`` games die by die by the argmax of ``view`` (ties: filling before
    re-throwing, the earlier box, the first keep): the points each scores and its next state."""
    x = roll(np.zeros((games, 6), np.int64))
    lane = np.arange(games)
    done = np.zeros(games, bool)
    box = np.zeros(games, np.int64)
    first_flag = np.zeros(games, bool)
    for left in range(rules.throws - 1, -1, -1):
        first = rules.has_instant_bonus and left == rules.throws - 1
        fv = view.fill(first, x)  # [boxes, G]
        best_box = fv.argmax(0)
        if left == 0:
            stop = ~done
        else:
            subs = subkeeps[x]  # [G, S]
            kv = view.keep(left, subs)
            stop = ~done & (fv.max(0) >= kv.max(1) - 1e-12)
            go = ~done & ~stop
            if go.any():
                pick = subs[lane, kv.argmax(1)]
                x[go] = roll(keeps[pick[go]])
        box[stop] = best_box[stop]
        first_flag[stop] = first
        done |= stop
    reward = view.reward(False, box, x)
    if rules.has_instant_bonus:
        reward = np.where(first_flag, view.reward(True, box, x), reward)
    return reward, view.next_state(box, x)


def play_table(table, start: tuple[int, int, int], channel: int, games: int, seed: int) -> Played:
    """``games`` games from state ``start`` played by the argmax of ``table`` (a target table with
    a terminal, every layer kept) at channel ``channel`` (its K: the utility's last index)."""
    import jax.numpy as jnp

    from jaxsolve.games.category.objectives.distribution import max_turn_reward
    from jaxsolve.games.category.objectives.winning import _padded

    rules = table.rules
    gs = _games_at(table, start, channel, games, seed)
    state, t, points, subkeeps, keeps, roll = gs.state, gs.t, gs.points, gs.subkeeps, gs.keeps, gs.roll
    f0 = start[0]
    lead = max_turn_reward(rules)
    rows = jnp.asarray(table.rows)

    layer0 = bin(int(f0)).count("1")
    for layer in range(layer0, rules.num_boxes):
        width = table.layers[layer].shape[1]
        padded = jnp.asarray(_padded(table.layers[layer + 1], lead, width))
        fn = _state_arrays_fn(rules, width)
        uniq, inverse = np.unique(state, return_inverse=True)
        for c0 in range(0, len(uniq), CHUNK):
            chunk = uniq[c0: c0 + CHUNK]
            pad = np.concatenate([chunk, np.repeat(chunk[:1], CHUNK - len(chunk))])
            f, u, h = (jnp.asarray(a, jnp.int32) for a in _decode(pad, rules))
            arr: dict[str, Any] = {k: (np.asarray(v) if not isinstance(v, list) else [np.asarray(x) for x in v]) for k, v in fn(rows, padded, f, u, h).items()}
            for j in range(len(chunk)):
                g = np.flatnonzero(inverse == c0 + j)
                tg = t[g]
                views = _TurnView(
                    fill=lambda first, x, j=j, tg=tg, arr=arr: arr["fill_first" if first else "fill"][:, x, j, tg],
                    keep=lambda left, subs, j=j, tg=tg, arr=arr: arr["keep"][left - 1][subs, j, tg[:, None]],
                    reward=lambda first, box, x, j=j, arr=arr: arr["reward_first" if first else "reward"][box, x, j],
                    next_state=lambda box, x, j=j, arr=arr: arr["next"][box, x, j],
                )
                reward, nxt = _play_turn(rules, views, len(g), subkeeps, keeps, roll)
                points[g] += reward
                t[g] = np.maximum(tg - reward, 0)
                state[g] = nxt
    return Played(points)


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
    read from ``table`` (a target table with a terminal, every layer kept), float64."""
    from jaxsolve.games.category.engine import solver

    rules = table.rules
    sp = tables.space(rules.dice)
    states = np.asarray(states, np.int64)
    t = np.asarray(channels, np.int64)
    uniq, inv = np.unique(states, return_inverse=True)  # games at one state share its moves
    inv = inv.reshape(-1)
    f, u, h = _decode(uniq, rules)
    layers = {bin(int(x)).count("1") for x in np.unique(f)}
    if len(layers) != 1:
        raise JaxsolveError(f"a batch of games must be at one layer, got layers {sorted(layers)}")
    layer = layers.pop()
    nxt = table.layers[layer + 1] if layer + 1 < len(table.layers) else None
    if nxt is None:
        raise JaxsolveError(f"the table does not hold layer {layer + 1} (solve with keep='all')")
    width = nxt.shape[1]
    flat = np.asarray(nxt).reshape(-1)
    mv = solver.moves(f, u, h, rules, xp=np)
    allowed_u = np.asarray(mv.allowed)
    allowed = allowed_u[:, :, inv]
    base = (np.where(allowed_u, np.asarray(table.rows)[mv.next_state], 0).astype(np.int64) * width)[:, :, inv]  # a closed box's "next state" is this layer's

    def fills(first: bool):
        reward = np.asarray(mv.score(first)).astype(np.int64)[:, :, inv]
        got = flat[base + np.clip(t - reward, 0, width - 1)].astype(np.float64)
        return np.where(allowed, got, -np.inf), reward

    fill, reward = fills(False)
    fill_first, reward_first = fills(True) if rules.has_instant_bonus else (None, None)
    stage = fill.max(0)  # [T, G]: the best box after a throw, no re-throw left
    keep = []
    for r in range(1, rules.throws):
        keep.append(dicelib.expect_keeps(sp, stage, xp=np))  # [K, G]
        if r < rules.throws - 1:
            stage = dicelib.best_subkeep(sp, keep[-1], xp=np)
    return TurnValues(fill, fill_first, reward, reward_first, np.asarray(mv.next_state).astype(np.int64)[:, :, inv], keep)


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
    gs = _games_at(table, start, channel, games, seed)
    state, t, points, subkeeps, keeps, roll = gs.state, gs.t, gs.points, gs.subkeeps, gs.keeps, gs.roll
    f0 = start[0]
    if table.rows[state[0]] < 0:
        raise JaxsolveError(f"the table does not hold the state {start}")

    for layer in range(bin(int(f0)).count("1"), rules.num_boxes):
        t0 = time.perf_counter()
        for b0 in range(0, games, batch):
            g = np.arange(b0, min(b0 + batch, games))
            lane = np.arange(len(g))
            tv = turn_values(table, state[g], t[g])
            views = _TurnView(
                fill=lambda first, x, tv=tv, lane=lane: (tv.fill_first if first and tv.fill_first is not None else tv.fill)[:, x, lane],
                keep=lambda left, subs, tv=tv, lane=lane: tv.keep[left - 1][subs, lane[:, None]],
                reward=lambda first, box, x, tv=tv, lane=lane: (tv.reward_first if first and tv.reward_first is not None else tv.reward)[box, x, lane],
                next_state=lambda box, x, tv=tv, lane=lane: tv.next_state[box, x, lane],
            )
            reward, nxt = _play_turn(rules, views, len(g), subkeeps, keeps, roll)
            points[g] += reward
            t[g] = np.maximum(t[g] - reward, 0)
            state[g] = nxt
        if on_turn is not None:
            on_turn(layer, time.perf_counter() - t0)
    return Played(points)
