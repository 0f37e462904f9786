"""Play many games of a category game at once with a strategy (vectorised, reproducible by seed).

Per turn all games are at the start of a turn with the same number of filled boxes. The
distinct states among them are found (``np.unique`` on the state index) and the strategy's
``TurnPolicy`` plus the resulting moves (``solver.chosen_moves``: points, bonuses, next state)
are computed for those states only, in fixed-size chunks (one compilation), on the chosen
device. Each game then only looks up its decisions: its first throw, keeps, re-throws and box.
For the optimal strategy 1M games cost about as much as one solve: the distinct states over
all turns are at most the game's reachable states.

Randomness: all dice of a turn are drawn up front with ``jax.random`` from
``fold_in(PRNGKey(seed), turn)`` as ``[throws, games, dice]`` faces; a re-throw of ``n`` dice uses
the first ``n`` of that throw's dice. The results depend only on (rules, strategy, games, seed),
not on the chunk size or the device's float rounding of the dice (integers).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass, field
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.simulation import strategies
from jaxsolve.games.category.sheets.rules import CategoryRules

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
THRESHOLDS = (200, 250, 300)


@dataclass
class SimulationResult:
    """Final scores and per-box statistics of a simulation.

    scores: ``[games]`` final totals (bonuses included). box_points / box_scored: per box, the
    points summed over games and the number of games that scored in it (not scratched).
    """

    rules: CategoryRules
    strategy: str
    games: int
    seed: int
    scores: np.ndarray
    box_points: np.ndarray
    box_scored: np.ndarray
    upper_bonus: int
    extra_bonus: int
    instant_bonus: int
    policy_seconds: float = 0.0
    play_seconds: float = 0.0
    setup_seconds: float = 0.0
    unique_states: list = field(default_factory=list)
    device: str = ""

    @property
    def mean(self) -> float:
        return float(self.scores.mean())

    @property
    def sd(self) -> float:
        return float(self.scores.std(ddof=1)) if self.games > 1 else 0.0

    @property
    def se(self) -> float:
        return self.sd / np.sqrt(self.games)

    @property
    def seconds(self) -> float:
        return self.policy_seconds + self.play_seconds

    def summary(self) -> dict:
        """Mean, SD, standard error, percentiles, P(score >= 200/250/300), box usage, timings."""
        n = self.games
        boxes = {
            name: {"mean_points": float(self.box_points[b] / n), "scored": float(self.box_scored[b] / n)}
            for b, name in enumerate(self.rules.box_names)
        }
        return {
            "rules": self.rules.name,
            "strategy": self.strategy,
            "games": n,
            "seed": self.seed,
            "mean": self.mean,
            "sd": self.sd,
            "se": self.se,
            "min": int(self.scores.min()),
            "max": int(self.scores.max()),
            "percentiles": {str(p): float(v) for p, v in zip(PERCENTILES, np.percentile(self.scores, PERCENTILES))},
            "p_at_least": {str(s): float((self.scores >= s).mean()) for s in THRESHOLDS},
            "boxes": boxes,
            "upper_bonus_rate": self.upper_bonus / n,
            "extra_bonus_mean": self.extra_bonus / n,
            "instant_bonus_mean": self.instant_bonus / n,
            "seconds": {"setup": self.setup_seconds, "policy": self.policy_seconds, "play": self.play_seconds},
            "games_per_second": n / self.seconds if self.seconds > 0 else None,
            "device": self.device,
        }


def radix(n: int) -> np.ndarray:
    """Place values of a count vector of ``n`` dice as a number in base ``n + 1``."""
    return (n + 1) ** np.arange(6)


@functools.lru_cache(maxsize=None)
def throw_lookup(n: int) -> np.ndarray:
    """Throw index of every count vector of ``n`` dice, by its code in base ``n + 1`` (``radix``)."""
    sp = tables.space(n)
    out = np.full((n + 1) ** 6, -1, np.int64)
    out[sp.throws @ radix(n)] = np.arange(sp.num_throws)
    return out


def throw_of(faces: np.ndarray, mask: np.ndarray | None = None, base=None) -> np.ndarray:
    """Throw index of dice ``faces[..., n]`` (0-based), counting only ``mask``ed dice, added to ``base`` counts."""
    onehot = faces[..., None] == np.arange(6, dtype=faces.dtype)
    if mask is not None:
        onehot &= mask[..., None]
    counts = onehot.sum(-2, dtype=np.int64)
    if base is not None:
        counts = counts + base
    return throw_lookup(faces.shape[-1])[counts @ radix(faces.shape[-1])]


class _ChunkFn:
    """Jitted ``states -> (policy, moves)`` for one strategy and chunk size (numpy out)."""

    def __init__(self, strategy: strategies.Strategy, device):
        self.strategy = strategy
        self.device = device
        rules = strategy.rules

        def fn(f, u, h):
            state = tables.EngineState(f, u, h)
            pol = strategy.policy(state)
            mv = solver.chosen_moves(pol.box, state, rules)
            out = {
                "keep": pol.keep.astype(jnp.int16),
                "box": pol.box.astype(jnp.int8),
                "points": mv.points.astype(jnp.int16),
                "extra": mv.extra.astype(jnp.int16),
                "upper_bonus": mv.upper_bonus.astype(jnp.int16),
                "next": mv.next_state.astype(jnp.int32),
            }
            if strategy.random:
                out["keep_alt"] = pol.keep_alt.astype(jnp.int16)
            if rules.has_instant_bonus:
                now = solver.chosen_moves(pol.box_now, state, rules)
                out.update(
                    fill_now=pol.fill_now,
                    box_now=pol.box_now.astype(jnp.int8),
                    points_now=now.points.astype(jnp.int16),
                    extra_now=now.extra.astype(jnp.int16),
                    upper_bonus_now=now.upper_bonus.astype(jnp.int16),
                    instant_now=now.instant.astype(jnp.int16),
                    next_now=now.next_state.astype(jnp.int32),
                )
            return out

        self.fn = jax.jit(fn)

    def __call__(self, f, u, h) -> dict:
        args = [jax.device_put(jnp.asarray(a, jnp.int32), self.device) for a in (f, u, h)]
        return {k: np.asarray(v) for k, v in self.fn(*args).items()}


def _chosen(tab: dict, t, loc, now, key: str) -> np.ndarray:
    """``key`` of the box each game fills after its last throw ``t`` (where ``now``: at once after
    its first throw) as int64: the box, its points, bonuses (instant: only filled at once) or next state."""
    later = np.zeros(len(loc), np.int64) if key == "instant" else tab[key][t, loc]
    return (later if now is None else np.where(now, tab[f"{key}_now"][t, loc], later)).astype(np.int64)


def simulate(
    rules: CategoryRules,
    strategy: strategies.Strategy | str,
    games: int,
    seed: int = 0,
    *,
    chunk: int = 1024,
    device=None,
    on_turn: Callable[[int, int], None] | None = None,
    **strategy_options,
) -> SimulationResult:
    """Play ``games`` games of ``rules`` with ``strategy`` (a ``Strategy`` or a registered name).

    Args:
        chunk: distinct states per compiled policy evaluation.
        device: a ``jax.Device`` (default: JAX's default device).
        on_turn: called as ``on_turn(turn, distinct_states)`` after each turn (progress).
        strategy_options: passed to ``strategies.make`` (e.g. ``solution=`` for optimal).
    """
    if int(games) <= 0:
        raise JaxsolveError(f"the number of games must be positive, got {games}")
    if int(chunk) <= 0:
        raise JaxsolveError(f"chunk must be positive, got {chunk}")
    games, chunk = int(games), int(chunk)
    device = device or jax.devices()[0]
    t_setup = time.perf_counter()
    with jax.default_device(device):
        if isinstance(strategy, str):
            strategy = strategies.make(strategy, rules, device=device, **strategy_options)
        elif strategy.rules != rules:
            raise JaxsolveError(f"the strategy plays {strategy.rules.name}, not {rules.name}")
        cache = strategy.__dict__.setdefault("_chunk_fns", {})
        if str(device) not in cache:
            cache[str(device)] = _ChunkFn(strategy, device)
        chunk_fn = cache[str(device)]
    setup_seconds = time.perf_counter() - t_setup

    n_dice, n_boxes = rules.dice, rules.num_boxes
    sp = tables.space(n_dice)
    keep_counts = sp.keeps.astype(np.int64)
    keep_new = (n_dice - sp.keep_size).astype(np.int64)
    offset = sp.throw_offset
    cap = rules.upper_threshold
    instant = rules.has_instant_bonus
    throws = rules.throws
    key = jax.random.PRNGKey(int(seed))

    filled = np.zeros(games, np.int64)
    upper = np.zeros(games, np.int64)
    holds = np.zeros(games, np.int64)
    scores = np.zeros(games, np.int64)
    box_points = np.zeros(n_boxes, np.int64)
    box_scored = np.zeros(n_boxes, np.int64)
    totals = {"upper_bonus": 0, "extra": 0, "instant": 0}
    policy_seconds = play_seconds = 0.0
    unique_counts = []
    lanes = np.arange(n_dice)

    def state_of(index):  # (filled, upper, all_same_held) of flat state indices
        return index // (2 * (cap + 1)), (index // 2) % (cap + 1), index % 2

    for turn in range(n_boxes):
        t0 = time.perf_counter()
        with jax.default_device(device):
            k_dice, k_coin = jax.random.split(jax.random.fold_in(key, turn))
            all_dice = np.asarray(jax.random.randint(k_dice, (throws, games, n_dice), 0, 6, dtype=jnp.int32)).astype(np.int8)
            coins = np.asarray(jax.random.bernoulli(k_coin, 0.5, (max(throws - 1, 1), games))) if strategy.random else None
        index = tables.state_index(filled, upper, holds, rules)
        uniq, inv = np.unique(index, return_inverse=True)
        inv = inv.reshape(-1)
        order = np.argsort(inv, kind="stable")
        starts = np.searchsorted(inv[order], np.arange(0, len(uniq) + chunk, chunk))
        unique_counts.append(int(len(uniq)))
        play_seconds += time.perf_counter() - t0

        for ci, c0 in enumerate(range(0, len(uniq), chunk)):
            t0 = time.perf_counter()
            ids = uniq[c0 : c0 + chunk]
            ids = np.concatenate([ids, np.repeat(ids[:1], chunk - len(ids))])
            tab = chunk_fn(*state_of(ids))
            t1 = time.perf_counter()
            policy_seconds += t1 - t0

            g = order[starts[ci] : starts[ci + 1]]
            loc = inv[g] - c0
            d = all_dice[:, g]
            t = throw_of(d[0])
            now = tab["fill_now"][t, loc] if instant else None
            for step in range(1, throws):
                r = throws - step
                k = tab["keep"][r - 1, t, loc].astype(np.int64)
                if coins is not None:
                    k = np.where(coins[step - 1, g], tab["keep_alt"][r - 1, t, loc], k)
                if now is not None:
                    k = np.where(now, offset + t, k)
                t = throw_of(d[step], lanes[None, :] < keep_new[k][:, None], keep_counts[k])
            box, pts, extra, ub, inst, nxt = (_chosen(tab, t, loc, now, k) for k in ("box", "points", "extra", "upper_bonus", "instant", "next"))
            scores[g] += pts + extra + ub + inst
            box_points += np.bincount(box, weights=pts, minlength=n_boxes).astype(np.int64)
            box_scored += np.bincount(box[pts > 0], minlength=n_boxes)
            totals["upper_bonus"] += int((ub > 0).sum())
            totals["extra"] += int(extra.sum())
            totals["instant"] += int(inst.sum())
            filled[g], upper[g], holds[g] = state_of(nxt)
            play_seconds += time.perf_counter() - t1
        if on_turn is not None:
            on_turn(turn, len(uniq))

    if not np.all(filled == rules.full_mask):
        raise RuntimeError("a game did not fill every box (policy chose a filled box)")
    return SimulationResult(
        rules,
        strategy.name,
        games,
        int(seed),
        scores.astype(np.int32),
        box_points,
        box_scored,
        totals["upper_bonus"],
        totals["extra"],
        totals["instant"],
        policy_seconds,
        play_seconds,
        setup_seconds,
        unique_counts,
        str(device),
    )
