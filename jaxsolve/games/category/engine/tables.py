"""Static tables of a category game: points of every box for every throw, and the state layout.

State layout (flat index): ``((filled * (cap + 1)) + upper) * 2 + all_same_held`` with ``filled``
the mask of filled boxes (bit b = box b in sheet order; 13 bits for Kniffel, 20 for Maxi
Yatzy), ``upper`` the upper total capped at the bonus threshold, and ``all_same_held`` whether the
all-same box (Yahtzee, Kniffel, Yatzy: all dice showing one face) holds its points (only states
with that box filled have ``all_same_held = 1``).

Which boxes a turn may fill is decided in one place, ``fillable``: any open box, or under
``order="forced"`` only the first open box of the sheet (then the filled masks are the prefixes
of the sheet, ``layer_states`` yields only those).

A state at the start of a turn is an ``EngineState``: the three components above as one named
tuple, what the engine's functions take (``solver``, ``policy``, ``evaluate``, ``saved``).
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from jaxsolve.core.dice import dice_space
from jaxsolve.games.category.sheets.rules import CategoryRules

SIDES = 6


class EngineState(NamedTuple):
    """The score sheet at the start of a turn, for one state or a batch of states.

    filled: mask of filled boxes (bit b = box b in sheet order).
    upper: upper-section total, capped at the bonus threshold (``rules.upper_threshold``).
    all_same_held: 1 where the all-same box (Yahtzee, Kniffel, Yatzy) is filled and holds
    points, else 0.

    Each field is a Python int, or an int array of one batch shape (NumPy or JAX; ``[B]``
    int32 in the engine's batched functions). A ``NamedTuple`` is a JAX pytree: an ``EngineState``
    passes through ``jax.jit``, ``jax.vmap`` and ``lax`` loops as its three arrays, and it
    unpacks as ``filled, upper, all_same_held = state``. (``sheets.position.SheetState`` is
    another thing: a position given as a state in text, uncapped, whose ``state(rules)`` is
    its ``EngineState``.)
    """

    filled: Any
    upper: Any
    all_same_held: Any

    def flat_index(self, rules: CategoryRules):
        """The flat table index of the state(s) (``state_index``)."""
        return state_index(self.filled, self.upper, self.all_same_held, rules)


def space(dice: int = 5):
    return dice_space(dice, SIDES)


@functools.lru_cache(maxsize=None)
def throw_scores(rules: CategoryRules | int = 5) -> np.ndarray:
    """``[boxes, T]`` points of each box for each throw (normal scoring, no joker).

    An int stands for the standard 13-box sheet (``KNIFFEL_SHEET``) with that many dice.
    """
    if isinstance(rules, int):
        rules = CategoryRules(dice=rules)
    throws = space(rules.dice).throws
    return np.stack([box.score(throws) for box in rules.boxes]).astype(np.int32)


@functools.lru_cache(maxsize=None)
def joker_points(rules: CategoryRules) -> np.ndarray:
    """``[boxes]`` fixed points a box pays for a joker (0: scored normally)."""
    return np.asarray([b.joker_points or 0 for b in rules.boxes], dtype=np.int32)


@functools.lru_cache(maxsize=None)
def box_max_points(rules: CategoryRules) -> np.ndarray:
    """``[boxes]`` most points one box can take (joker points included)."""
    return np.maximum(throw_scores(rules).max(axis=1), joker_points(rules)).astype(np.int64)


@functools.lru_cache(maxsize=None)
def throw_counts(dice: int = 5) -> np.ndarray:
    """``[6, T]`` number of dice showing each face in each throw."""
    return space(dice).throws.T.astype(np.int32).copy()


@functools.lru_cache(maxsize=None)
def all_same_throws(dice: int = 5) -> np.ndarray:
    """``[6]`` throw index of all dice showing face f+1."""
    sp = space(dice)
    return np.asarray([sp.throw_index(np.eye(SIDES, dtype=int)[f] * dice) for f in range(SIDES)], dtype=np.int32)


def state_shape(rules: CategoryRules) -> tuple[int, int, int]:
    return rules.state_shape


def state_index(filled, upper, all_same_held, rules: CategoryRules):
    return (filled * (rules.upper_threshold + 1) + upper) * 2 + all_same_held


def fillable(filled, box, rules: CategoryRules):
    """Whether ``box`` may be filled in a state with filled mask ``filled`` (broadcast; NumPy or JAX ints).

    ``order="free"``: the box is open. ``order="forced"``: it is open and every earlier box of the
    sheet is filled (the next box in sheet order).
    """
    is_open = ((filled >> box) & 1) == 0
    if rules.order == "free":
        return is_open
    below = (1 << box) - 1
    return is_open & ((filled & below) == below)


def fillable_boxes(filled: int, rules: CategoryRules) -> tuple[int, ...]:
    """The boxes a turn may fill from one filled mask (a Python int), in sheet order."""
    return tuple(b for b in range(rules.num_boxes) if fillable(int(filled), b, rules))


def canonical(state: EngineState, rules: CategoryRules) -> EngineState:
    """The representative of a state's class of equal-valued states (the same filled boxes).

    Two states with the same filled boxes have the same value (and the same future) when

    * the upper bonus is out of reach in both: ``upper + dice x (faces of the open upper
      boxes) < threshold``; the class is represented by ``upper = 0`` (always reachable);
    * they differ only in ``all_same_held`` and a repeated all-same throw scores like any other throw
      (``not rules.has_all_same_rules``); the class is represented by ``all_same_held = 0``.

    Broadcasts over NumPy or JAX ints. The value solve computes representatives only.
    """
    filled_faces = sum(((state.filled >> f) & 1) * (f + 1) for f in range(6))
    reachable = state.upper + rules.dice * (21 - filled_faces) >= rules.upper_threshold
    return EngineState(state.filled, state.upper * reachable, state.all_same_held * int(rules.has_all_same_rules))


def canonical_index(index, rules: CategoryRules):
    """``state_index`` of the representative (``canonical``) of flat state indices."""
    width = rules.upper_threshold + 1
    all_same_held, rest = index % 2, index // 2
    upper, filled = rest % width, rest // width
    return canonical(EngineState(filled, upper, all_same_held), rules).flat_index(rules)


def popcount(masks: np.ndarray) -> np.ndarray:
    """Number of set bits of each non-negative int (< 2**32)."""
    m = np.asarray(masks, dtype=np.uint32)
    return np.unpackbits(m.astype(">u4").view(np.uint8).reshape(-1, 4), axis=1).sum(1).reshape(m.shape)


@functools.lru_cache(maxsize=None)
def reachable_uppers(upper_threshold: int, dice: int = 5) -> np.ndarray:
    """``[64, cap + 1]`` bool: capped upper totals reachable with each set of filled upper boxes."""
    cap = upper_threshold
    out = np.zeros((1 << 6, cap + 1), dtype=bool)
    out[0, 0] = True
    for m in range(1, 1 << 6):
        low = (m & -m).bit_length() - 1
        prev = out[m & ~(1 << low)]
        for u in np.flatnonzero(prev).tolist():
            for c in range(dice + 1):
                out[m, min(cap, u + (low + 1) * c)] = True
    return out


@functools.lru_cache(maxsize=None)
def _masks_by_layer(num_boxes: int) -> tuple[np.ndarray, ...]:
    masks = np.arange(1 << num_boxes, dtype=np.int64)
    counts = popcount(masks)
    return tuple(masks[counts == k] for k in range(num_boxes + 1))


@functools.lru_cache(maxsize=None)
def layer_states(rules: CategoryRules, layer: int) -> EngineState:
    """Reachable states with ``layer`` boxes filled, as an ``EngineState`` of int32 arrays."""
    if rules.order == "forced":
        masks = np.asarray([(1 << layer) - 1], dtype=np.int64)
    else:
        masks = _masks_by_layer(rules.num_boxes)[layer]
    rows, upper = np.nonzero(reachable_uppers(rules.upper_threshold, rules.dice)[masks & 63])
    filled = masks[rows]
    if rules.all_same_box >= 0:
        all_same_filled = ((filled >> rules.all_same_box) & 1) == 1
    else:
        all_same_filled = np.zeros(len(filled), bool)
    filled = np.concatenate([filled, filled[all_same_filled]])
    upper = np.concatenate([upper, upper[all_same_filled]])
    holds = np.concatenate([np.zeros(len(rows), np.int64), np.ones(int(all_same_filled.sum()), np.int64)])
    return EngineState(filled.astype(np.int32), upper.astype(np.int32), holds.astype(np.int32))


@functools.lru_cache(maxsize=None)
def representative_states(rules: CategoryRules, layer: int) -> EngineState:
    """The states of ``layer_states`` that are their class's representative (``canonical``)."""
    f, u, h = layer_states(rules, layer)
    _, cu, ch = canonical(EngineState(f, u, h), rules)
    keep = (cu == u) & (ch == h)
    return EngineState(f[keep], u[keep], h[keep])


@functools.lru_cache(maxsize=4)
def class_copies(rules: CategoryRules) -> tuple[np.ndarray, np.ndarray]:
    """``(targets, sources)`` int32 flat state indices: every reachable state that is not its
    class's representative, and that representative (``canonical``); copying ``sources`` to
    ``targets`` gives every reachable state the value the solve computed for its class."""
    targets, sources = [], []
    for k in range(rules.num_boxes + 1):
        f, u, h = (a.astype(np.int64) for a in layer_states(rules, k))
        _, cu, ch = canonical(EngineState(f, u, h), rules)
        moved = (cu != u) | (ch != h)
        targets.append(state_index(f[moved], u[moved], h[moved], rules))
        sources.append(state_index(f[moved], cu[moved], ch[moved], rules))
    return np.concatenate(targets).astype(np.int32), np.concatenate(sources).astype(np.int32)


def num_reachable(rules: CategoryRules | None = None) -> int:
    rules = rules or CategoryRules()
    return sum(len(layer_states(rules, k)[0]) for k in range(rules.num_boxes + 1))


def forget_layouts(key: Any = None, sol: Any = None) -> None:
    """Drop the index arrays kept per rules (``layer_states``, ``representative_states``,
    ``class_copies``: about 1 GB for Maxi Yatzy), for every rules; they are computed again
    where needed. Called when the solution store lets go of a table (``cache.on_forget``: a
    bounded server), so that a dropped table's rules free theirs (``table_io`` drops its
    ``reachable_mask`` the same way)."""
    for kept in (layer_states, representative_states, class_copies):
        kept.cache_clear()


def _listen() -> None:
    from jaxsolve.io import cache

    cache.on_forget(forget_layouts)


_listen()
