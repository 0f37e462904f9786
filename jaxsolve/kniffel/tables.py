"""Static Kniffel tables over the 252 throws of 5d6 and the state layout.

State layout (flat index): ``((filled * (cap + 1)) + upper) * 2 + holds50`` with
``filled`` the 13-bit mask of filled boxes (bit b = box b in table order), ``upper`` the upper
total capped at the bonus threshold, and ``holds50`` whether the Kniffel box holds 50.
"""

from __future__ import annotations

import functools

import numpy as np

from jaxsolve.dice import dice_space
from jaxsolve.kniffel.rules import KNIFFEL_BOX, NUM_BOXES, KniffelRules

DICE = 5
SIDES = 6
FULL_MASK = (1 << NUM_BOXES) - 1
LOWER_BOXES = tuple(range(6, NUM_BOXES))


def space(dice: int = DICE):
    return dice_space(dice, SIDES)


def score_counts(counts: np.ndarray) -> np.ndarray:
    """Points of every box for the dice ``counts`` (``[..., 6]``), normal scoring (no joker).

    The Kniffel box takes all dice showing one face (five of a kind in the real game).
    """
    counts = np.asarray(counts)
    faces = np.arange(1, SIDES + 1)
    total = (counts * faces).sum(-1)
    top = counts.max(-1)
    present = counts > 0
    runs4 = [present[..., a : a + 4].all(-1) for a in range(3)]
    runs5 = [present[..., a : a + 5].all(-1) for a in range(2)]
    sorted_counts = np.sort(counts, axis=-1)
    full_house = (sorted_counts[..., -1] == 3) & (sorted_counts[..., -2] == 2)
    out = np.zeros(counts.shape[:-1] + (NUM_BOXES,), dtype=np.int64)
    out[..., :6] = counts * faces
    out[..., 6] = np.where(top >= 3, total, 0)
    out[..., 7] = np.where(top >= 4, total, 0)
    out[..., 8] = np.where(full_house, 25, 0)
    out[..., 9] = np.where(np.any(runs4, axis=0), 30, 0)
    out[..., 10] = np.where(np.any(runs5, axis=0), 40, 0)
    out[..., 11] = np.where(top == counts.sum(-1), 50, 0)
    out[..., 12] = total
    return out


@functools.lru_cache(maxsize=None)
def throw_scores(dice: int = DICE) -> np.ndarray:
    """``[13, T]`` points of each box for each throw (normal scoring)."""
    return score_counts(space(dice).throws).T.astype(np.int32)


@functools.lru_cache(maxsize=None)
def throw_counts(dice: int = DICE) -> np.ndarray:
    """``[6, T]`` number of dice showing each face in each throw."""
    return space(dice).throws.T.astype(np.int32).copy()


@functools.lru_cache(maxsize=None)
def kniffel_throws(dice: int = DICE) -> np.ndarray:
    """``[6]`` throw index of all dice showing face f+1."""
    sp = space(dice)
    return np.asarray([sp.throw_index(np.eye(SIDES, dtype=int)[f] * dice) for f in range(SIDES)], dtype=np.int32)


def state_shape(rules: KniffelRules) -> tuple[int, int, int]:
    return (1 << NUM_BOXES, rules.upper_threshold + 1, 2)


def state_index(filled, upper, holds50, rules: KniffelRules):
    return (filled * (rules.upper_threshold + 1) + upper) * 2 + holds50


@functools.lru_cache(maxsize=None)
def reachable_uppers(upper_threshold: int, dice: int = DICE) -> np.ndarray:
    """``[64, cap + 1]`` bool: capped upper totals reachable with each set of filled upper boxes."""
    cap = upper_threshold
    out = np.zeros((1 << 6, cap + 1), dtype=bool)
    out[0, 0] = True
    for m in range(1, 1 << 6):
        low = (m & -m).bit_length() - 1
        prev = out[m & ~(1 << low)]
        for u in np.flatnonzero(prev):
            for c in range(dice + 1):
                out[m, min(cap, u + (low + 1) * c)] = True
    return out


@functools.lru_cache(maxsize=None)
def layer_states(upper_threshold: int, layer: int, dice: int = DICE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reachable states with ``layer`` boxes filled, as (filled, upper, holds50) int32 arrays."""
    all_masks = np.arange(1 << NUM_BOXES)
    popcount = np.unpackbits(all_masks.astype(">u2").view(np.uint8).reshape(-1, 2), axis=1).sum(1)
    masks = all_masks[popcount == layer]
    rows, upper = np.nonzero(reachable_uppers(upper_threshold, dice)[masks & 63])
    filled = masks[rows]
    kniffel_filled = ((filled >> KNIFFEL_BOX) & 1) == 1
    filled = np.concatenate([filled, filled[kniffel_filled]])
    upper = np.concatenate([upper, upper[kniffel_filled]])
    holds = np.concatenate([np.zeros(len(rows), np.int64), np.ones(int(kniffel_filled.sum()), np.int64)])
    return filled.astype(np.int32), upper.astype(np.int32), holds.astype(np.int32)


def num_reachable(upper_threshold: int = 63, dice: int = DICE) -> int:
    return sum(len(layer_states(upper_threshold, k, dice)[0]) for k in range(NUM_BOXES + 1))
