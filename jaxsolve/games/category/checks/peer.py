"""Value-by-value cross-check of category games against yatzy-solver (an independent Rust solver).

yatzy-solver (precisit, "yatzy-solver: exact solver, rules engine and data export for
Scandinavian Yatzy and American rules", version 1.0, 2026, MIT; Python package
``yatzy_solver``) ships twelve variants; ``PEER_VARIANTS`` names the registered jaxsolve
game and preset that plays each. For one variant ``compare`` checks

* the score sheet: box names in score-card order and the points of every box for all 252 throws;
* the game value and the values of random reachable states (start of a turn);
* every option (each box to fill, each keep of at most ``dice - 1`` dice) of random
  situations (a state, the dice showing, the re-throws left): the same legal options, the
  same values, and each solver's best option optimal by the other's values (ties within
  ``TIE_RTOL``).

Both solvers index states the same way: bit b of ``filled`` is box b in score-card order,
``upper`` is the upper total capped at the bonus threshold, and yatzy-solver's ``armed`` is
jaxsolve's ``all_same_held``. yatzy-solver is imported on first use (``pip install yatzy-solver``).
"""

from __future__ import annotations

import functools
import time
from typing import cast

import jax
import jax.numpy as jnp
import numpy as np

from jaxsolve.core import dice as dicelib
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import policy, solver, tables
from jaxsolve.games.category.sheets.rules import CategoryRules

PEER_VARIANTS: dict[str, tuple[str, str]] = {
    "american": ("kniffel", "yahtzee-free"),
    "american+forced-joker": ("kniffel", "yahtzee"),
    "american+no-joker": ("kniffel", "yahtzee-nojoker"),
    "american+no-bonus": ("kniffel", "yahtzee-nobonus"),
    **{f"yatzy-scandinavian{m}": ("yatzy", f"yatzy{m}") for m in ("", "+fh5", "+tp4", "+fh5+tp4", "+forced", "+fh5+forced", "+tp4+forced", "+fh5+tp4+forced")},
}
"""yatzy-solver variant id -> (registered jaxsolve game, preset)."""

TIE_RTOL = 1e-9


def peer():
    """The ``yatzy_solver`` module, or a clear error if it is not installed."""
    try:
        import yatzy_solver
    except ImportError:
        raise JaxsolveError("the cross-check needs yatzy-solver: pip install yatzy-solver") from None
    return yatzy_solver


def rules_for(variant_id: str) -> CategoryRules:
    """The jaxsolve rules that play a yatzy-solver variant."""
    from jaxsolve import games

    if variant_id not in PEER_VARIANTS:
        raise JaxsolveError(f"no jaxsolve preset for yatzy-solver variant {variant_id!r}; known: {', '.join(PEER_VARIANTS)}")
    game, preset = PEER_VARIANTS[variant_id]
    return cast(CategoryRules, games.get_game(game).get_rules(preset))


def sheet_mismatches(variant, rules: CategoryRules) -> list[str]:
    """Differences between a yatzy-solver variant's score card and ``rules``' sheet (empty: none)."""
    from jaxsolve.games.category.sheets.position import PositionError, box_index

    out = []
    try:
        same = [box_index(name, rules) for name in variant.categories] == list(range(rules.num_boxes))
    except PositionError:
        same = False
    if not same:
        return [f"categories {list(variant.categories)} are not the boxes {list(rules.box_names)} (names or aliases, in order)"]
    if variant.dice != rules.dice or variant.rolls != rules.throws:
        out.append(f"dice/throws {variant.dice}/{variant.rolls} != {rules.dice}/{rules.throws}")
    sp = tables.space(rules.dice)
    ours = tables.throw_scores(rules)
    for t, counts in enumerate(sp.throws):
        faces = sp.faces_of(counts)
        for b, name in enumerate(variant.categories):
            theirs = variant.score(name, faces)
            if theirs != ours[b, t]:
                out.append(f"{name} {faces}: {ours[b, t]} != {theirs}")
    return out


def sample_states(rules: CategoryRules, n: int, rng: np.random.Generator):
    """``n`` reachable start-of-turn states (``filled``, ``upper``, ``all_same_held``), uniform, game not over."""
    f, u, h = (np.concatenate(a) for a in zip(*(tables.layer_states(rules, k) for k in range(rules.num_boxes))))
    pick = rng.integers(0, len(f), n)
    return f[pick].astype(np.int64), u[pick].astype(np.int64), h[pick].astype(np.int64)


def state_notation(variant, rules: CategoryRules, filled: int, upper: int, all_same_held: int) -> str:
    """A state in yatzy-solver's notation, e.g. ``upper 12 | filled ones,five_of_a_kind | five_of_a_kind 50``."""
    names = [variant.categories[b] for b in range(rules.num_boxes) if (filled >> b) & 1]
    text = f"upper {upper} | filled {','.join(names) or '-'}"
    asb = rules.all_same_box
    if rules.has_all_same_rules and (filled >> asb) & 1:
        text += f" | {variant.categories[asb]} {rules.boxes[asb].points if all_same_held else 0}"
    return text


def parse_state(variant, rules: CategoryRules, text: str) -> tables.EngineState:
    """The state (upper capped at the threshold) of a state in yatzy-solver's notation."""
    fields = dict(part.strip().split(" ", 1) for part in text.split("|"))
    names = list(variant.categories)
    filled = 0
    for name in fields["filled"].split(","):
        if name != "-":
            filled |= 1 << names.index(name)
    asb = rules.all_same_box
    holds = int(asb >= 0 and int(fields.get(names[asb], 0)) > 0)
    return tables.EngineState(filled, min(int(fields["upper"]), rules.upper_threshold), holds)


def move_mismatches(variant_id: str, situations: int = 300, seed: int = 0, rules: CategoryRules | None = None) -> list[str]:
    """Filling a box after the last throw, jaxsolve against yatzy-solver's rules engine (no solve):
    the boxes that may be filled, the points (bonuses included) and the next state, for random
    reachable states and throws. ``rules`` (default ``rules_for(variant_id)``) are jaxsolve's.
    Returns the differences (empty: none)."""
    variant = peer().Variant(variant_id)
    rules = rules or rules_for(variant_id)
    rng = np.random.default_rng(seed)
    f, u, h = sample_states(rules, situations, rng)
    sp = tables.space(rules.dice)
    faces = np.sort(rng.integers(1, 7, (situations, rules.dice)), axis=1)
    if rules.all_same_box >= 0:  # every fourth throw all of one face: the joker and extra-bonus rules
        faces[::4] = rng.integers(1, 7, (len(faces[::4]), 1))
    throw = np.asarray([sp.throw_index(np.bincount(d - 1, minlength=6)) for d in faces])
    mv = solver.moves(tables.EngineState._make(jnp.asarray(a, jnp.int32) for a in (f, u, h)), rules)
    lane = np.arange(situations)
    allowed = np.asarray(mv.allowed)[:, throw, lane]
    score = np.asarray(mv.score())[:, throw, lane]
    nxt = np.asarray(mv.next_state)[:, throw, lane]
    if not rules.has_all_same_rules:  # all_same_held then does not change a state's future; yatzy-solver does not record it
        nxt = nxt - nxt % 2
    out = []
    for i in range(situations):
        state = state_notation(variant, rules, int(f[i]), int(u[i]), int(h[i]))
        dice = [int(x) for x in faces[i]]
        try:
            legal = [a.split()[1] for a in variant.legal_actions(f"dice {' '.join(map(str, dice))} | rolls 0 | {state}")]
        except ValueError as exc:
            out.append(f"{state}: yatzy-solver refuses the state ({exc})")
            continue
        ours = [variant.categories[b] for b in np.flatnonzero(allowed[:, i])]
        if legal != ours:
            out.append(f"{state} dice {dice}: boxes {ours} != {legal}")
            continue
        for b in np.flatnonzero(allowed[:, i]):
            text, pts = variant.apply_score(state, dice, variant.categories[b])
            theirs = int(parse_state(variant, rules, text).flat_index(rules))
            if (int(score[b, i]), int(nxt[b, i])) != (int(pts), theirs):
                out.append(f"{state} dice {dice} {variant.categories[b]}: {int(score[b, i])} -> {int(nxt[b, i])} != {pts} -> {text}")
    return out


@functools.lru_cache(maxsize=None)
def _code_tables(variant_id: str, rules: CategoryRules):
    """For every yatzy-solver action code: the box it fills (-1: a keep) and the keep index (-1: a box)."""
    variant = peer().Variant(variant_id)
    sp = tables.space(rules.dice)
    box = np.full(variant.num_action_codes, -1, np.int64)
    keep = np.full(variant.num_action_codes, -1, np.int64)
    for code in range(variant.num_action_codes):
        kind, *rest = variant.action_notation(code).split()
        if kind == "score":
            box[code] = list(variant.categories).index(rest[0])
        else:
            faces = [int(x) for x in rest if x != "-"]
            keep[code] = sp.keep_index(np.bincount(np.asarray(faces, np.int64) - 1, minlength=6) if faces else np.zeros(6, np.int64))
    return box, keep


@functools.partial(jax.jit, static_argnames=("rules",))
def _turn(values, state, rules):
    sp = tables.space(rules.dice)
    fills = solver.option_values(values, state, rules)
    throws = solver.turn_throw_values(values, state, rules)
    keeps = jnp.stack([dicelib.expect_keeps(sp, throws[r]) for r in range(rules.throws - 1)])
    turn = policy.optimal_turn(values, state, rules)
    return fills, keeps, turn.box, turn.keep


def option_table(sol: solver.Solution, variant_id: str, f, u, h, throw, throws_left, chunk: int = 512):
    """``([n, codes] values, [n] best code)`` of jaxsolve in yatzy-solver's action codes (NaN: not legal)."""
    rules = sol.rules
    sp = tables.space(rules.dice)
    code_box, code_keep = _code_tables(variant_id, rules)
    flat = jnp.asarray(np.nan_to_num(sol.values.reshape(-1), nan=0.0), sol.values.dtype)
    n = len(f)
    out = np.full((n, len(code_box)), np.nan)
    best = np.zeros(n, np.int64)
    is_keep = code_keep >= 0
    full_keep = sp.keep_size[np.maximum(code_keep, 0)] == rules.dice
    for s in range(0, n, chunk):
        idx = np.arange(s, min(n, s + chunk))
        pad = np.concatenate([idx, np.repeat(idx[:1], chunk - len(idx))])
        fills, keeps, box, keep = (np.asarray(a) for a in _turn(flat, tables.EngineState._make(jnp.asarray(a[pad], jnp.int32) for a in (f, u, h)), rules=rules))
        lane = np.arange(len(idx))
        t = throw[idx]
        r = throws_left[idx]
        fill = fills[:, t, lane].T  # [n, boxes]
        vals = np.where(code_box[None, :] >= 0, fill[:, np.maximum(code_box, 0)], np.nan)
        kv = keeps[np.maximum(r - 1, 0)[:, None], np.maximum(code_keep, 0)[None, :], lane[:, None]]
        inside = np.all(sp.keeps[np.maximum(code_keep, 0)][None, :, :] <= sp.throws[t][:, None, :], axis=-1)
        legal_keep = is_keep[None, :] & ~full_keep[None, :] & inside & (r[:, None] > 0)
        vals = np.where(is_keep[None, :], np.where(legal_keep, kv, np.nan), vals)
        vals = np.where(np.isfinite(vals), vals, np.nan)
        out[idx] = vals
        chosen_box = box[t, lane]
        chosen_keep = keep[np.maximum(r - 1, 0), t, lane] if rules.throws > 1 else np.zeros(len(idx), np.int64)
        fill_now = (r == 0) | (sp.keep_size[chosen_keep] == rules.dice)
        box_code = np.argmax(code_box[None, :] == chosen_box[:, None], axis=1)
        keep_code = np.argmax(code_keep[None, :] == chosen_keep[:, None], axis=1)
        best[idx] = np.where(fill_now, box_code, keep_code)
    return out, best


def _armed(all_same_held, rules: CategoryRules) -> np.ndarray:
    """yatzy-solver's ``armed``: ``all_same_held`` where a repeated all-same throw scores differently, else False
    (it does not record the flag then; jaxsolve's states with either flag have the same value)."""
    return all_same_held.astype(bool) & rules.has_all_same_rules


def compare(variant_id: str, *, states: int = 2000, situations: int = 2000, seed: int = 0, peer_solver=None, sol=None) -> dict:
    """Cross-check one variant (see the module docstring); ``sol``: a float64 jaxsolve solution to reuse."""
    ys = peer()
    rules = rules_for(variant_id)
    variant = ys.Variant(variant_id)
    out: dict = {"variant": variant_id, "jaxsolve": f"game {PEER_VARIANTS[variant_id][0]}, preset {PEER_VARIANTS[variant_id][1]}"}
    out["sheet_mismatches"] = sheet_mismatches(variant, rules)
    t0 = time.perf_counter()
    peer_solver = peer_solver or ys.Solver.build(variant)
    out["peer_build_seconds"] = time.perf_counter() - t0
    if not jax.config.jax_enable_x64:  # type: ignore[attr-defined]  # a config flag JAX sets at run time, not in its stubs
        raise JaxsolveError("the cross-check compares float64 values: call jax.config.update('jax_enable_x64', True) first")
    t0 = time.perf_counter()
    if sol is None:
        sol = solver.solve(rules, dtype=jnp.float64)
    if sol.values.dtype != np.float64 or sol.rules != rules:
        raise JaxsolveError(f"the cross-check needs a float64 solution of {rules.name}")
    out["jaxsolve_solve_seconds"] = time.perf_counter() - t0
    out["game_value"] = sol.game_value
    out["peer_game_value"] = float(peer_solver.state_values(np.zeros(1, np.uint32), np.zeros(1, np.uint16), np.zeros(1, bool))[0])
    out["game_value_diff"] = abs(out["game_value"] - out["peer_game_value"])

    rng = np.random.default_rng(seed)
    f, u, h = sample_states(rules, states, rng)
    theirs = peer_solver.state_values(f.astype(np.uint32), u.astype(np.uint16), _armed(h, rules))
    ours = sol.values[f, u, h]
    out["states"] = states
    out["state_max_diff"] = float(np.max(np.abs(ours - theirs)))

    f, u, h = sample_states(rules, situations, rng)
    sp = tables.space(rules.dice)
    faces = np.sort(rng.integers(1, 7, (situations, rules.dice)), axis=1)
    throw = np.asarray([sp.throw_index(np.bincount(d - 1, minlength=6)) for d in faces])
    throws_left = rng.integers(0, rules.throws, situations)
    mine, my_best = option_table(sol, variant_id, f, u, h, throw, throws_left)
    codes, values, counts = peer_solver.option_values_batch(f.astype(np.uint32), u.astype(np.uint16), _armed(h, rules), faces.astype(np.uint8), throws_left.astype(np.uint8))
    peer_dense = np.asarray(variant.dense(codes, values, counts))
    out["situations"] = situations
    out["legal_mismatches"] = int(np.sum(np.isnan(mine) != np.isnan(peer_dense)))
    both = ~np.isnan(mine) & ~np.isnan(peer_dense)
    out["options_compared"] = int(both.sum())
    out["option_max_diff"] = float(np.max(np.abs(mine[both] - peer_dense[both])))
    lane = np.arange(situations)
    peer_top = np.nanmax(peer_dense, axis=1)
    my_top = np.nanmax(mine, axis=1)
    peer_best = np.nanargmax(peer_dense, axis=1)
    tol = lambda v: TIE_RTOL * np.maximum(1.0, np.abs(v))  # noqa: E731
    out["ours_suboptimal_by_peer"] = int(np.sum(peer_dense[lane, my_best] < peer_top - tol(peer_top)))
    out["peer_suboptimal_by_ours"] = int(np.sum(mine[lane, peer_best] < my_top - tol(my_top)))
    out["same_best_action"] = int(np.sum(my_best == peer_best))
    out["ok"] = bool(
        not out["sheet_mismatches"]
        and out["game_value_diff"] <= 1e-6
        and out["state_max_diff"] <= 1e-6
        and out["legal_mismatches"] == 0
        and out["option_max_diff"] <= 1e-6
        and out["ours_suboptimal_by_peer"] == 0
        and out["peer_suboptimal_by_ours"] == 0
    )
    return out
