"""The options of one situation ranked by the chance to score at least a target (``advise-target``):
one state's turn in NumPy from the rows of the next layer of a target table it reaches (a few
dozen, read as such from a memory-mapped layer; no compiling: milliseconds, whatever the
table's size)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.objectives.distribution import LayerTables, max_turn_reward
from jaxsolve.games.category.objectives.target import _layer_width, _pad_target, _pad_terminal, turn_options


@dataclass(frozen=True)
class TargetChoice:
    """One option of a position: a keep (dice to keep) or a box, and P(at least target more)."""

    kind: str
    what: str
    probability: float


@dataclass(frozen=True)
class Situation:
    """One state's options at one throw, as vectors over the channel t (NumPy, float64).

    ``fills[b]``: filling box b with this throw (-1 everywhere where b may not be filled);
    ``points[b]``: the box's points; ``keeps[k]``: keeping keep k and re-throwing the rest (every
    keep of the dice space; those of this throw are ``subkeeps[throw]``), None without a re-throw
    left; ``throw``: the throw's index."""

    throw: int
    fills: np.ndarray
    points: np.ndarray
    keeps: np.ndarray | None


def situation(table: LayerTables, filled: int, upper: int, all_same_held: int, faces, throws_left: int) -> Situation:
    """Every option of one situation from a target table (step or terminal) of its subgame: one
    state's turn in NumPy from the rows of the next layer this state reaches (a few dozen, read
    as such from a memory-mapped layer; no compiling: milliseconds, whatever the table's size).
    ``faces``: the dice showing (e.g. ``[6, 6, 6, 2, 1]``); ``throws_left``: re-throws still
    allowed this turn (0: choose a box). Needs the table's next layer (``keep='all'``)."""
    rules = table.rules
    sp = tables.space(rules.dice)
    layer = bin(int(filled)).count("1")
    if table.kind != "target":
        raise JaxsolveError("the options of a situation need a target table (solve_target)")
    if not 0 <= layer < rules.num_boxes:
        raise JaxsolveError("no box is open in this position")
    if len(faces) != rules.dice or any(not 1 <= int(x) <= 6 for x in faces):
        raise JaxsolveError(f"need {rules.dice} dice showing 1..6, got {list(faces)}")
    if not 0 <= throws_left < rules.throws:
        raise JaxsolveError(f"re-throws left must be 0..{rules.throws - 1}")
    cap = rules.upper_threshold
    if not 0 <= int(filled) < 1 << rules.num_boxes or upper < 0 or all_same_held not in (0, 1):
        raise JaxsolveError(f"not a state: filled={filled}, upper={upper}, all_same_held={all_same_held}")
    if table.rows[int(tables.state_index(int(filled), min(int(upper), cap), int(all_same_held), rules))] < 0:
        raise JaxsolveError(f"unreachable state: filled={filled}, upper={upper}, all_same_held={all_same_held}")
    nxt = table.layers[layer + 1]
    if nxt is None:
        raise JaxsolveError(f"layer {layer + 1} was not kept (solve with keep='all')")
    width = table.layers[layer].shape[1] if table.layers[layer] is not None else _layer_width(table, layer)
    state = tables.EngineState._make(np.asarray([int(x)], np.int32) for x in (filled, min(upper, cap), all_same_held))
    mv = solver.moves(state, rules, xp=np)
    reach = np.unique(mv.next_state[mv.allowed])  # only the next states this one reaches (a closed box's "next state" is this layer's)
    nrow = np.minimum(np.searchsorted(reach, mv.next_state), len(reach) - 1)
    padded = (_pad_target if table.terminal is None else _pad_terminal)(np.asarray(nxt[table.rows[reach]], np.float64), max_turn_reward(rules), width)
    got = turn_options(lambda _: nrow, padded, state, rules, width, xp=np, moves=mv)
    throw = int(sp.throw_index(sp.counts_of_faces(faces)))
    fills = got.fill_first if throws_left == rules.throws - 1 and got.fill_first is not None else got.fill
    keeps = got.keep[throws_left - 1][:, 0] if throws_left > 0 else None
    return Situation(throw, fills[:, throw, 0], np.asarray(mv.points)[:, throw, 0], keeps)


def target_options(table: LayerTables, filled: int, upper: int, all_same_held: int, faces, throws_left: int, target: int) -> list[TargetChoice]:
    """Every choice of a position ranked by P(at least ``target`` more points), best first
    (``situation``: one state's turn in NumPy, no compiling). A box is a choice after the last
    throw (and after the first where the rules pay a bonus for filling on it)."""
    rules = table.rules
    sp = tables.space(rules.dice)
    got = situation(table, filled, upper, all_same_held, faces, throws_left)
    width = got.fills.shape[1]
    if target <= 0:
        return [TargetChoice("keep", "any", 1.0)]
    t = int(np.clip(target, 0, width))
    boxes = []
    if throws_left == 0 or (throws_left == rules.throws - 1 and rules.has_instant_bonus):
        val = got.fills[:, t] if t < width else np.where(got.fills[:, 0] >= 0, 0.0, -1.0)
        boxes = [TargetChoice("box", rules.box_names[b], float(val[b])) for b in range(rules.num_boxes) if val[b] >= 0]
    if got.keeps is not None:
        cand = sorted(set(int(k) for k in sp.subkeeps[got.throw]))
        keep_val = [0.0 if t == width else float(got.keeps[k, t]) for k in cand]
        boxes += [TargetChoice("keep", " ".join(map(str, sp.faces_of(sp.keeps[k]))) or "(none)", v) for k, v in zip(cand, keep_val)]
    return sorted(boxes, key=lambda c: -c.probability)
