"""The advisor's NumPy path (``advisor.advise``, default ``backend="numpy"``) against JAX.

Both paths run the same turn arithmetic (``advisor.turn_arrays`` over ``solver`` and ``dice``
with ``xp=numpy`` or traced ``jax.numpy``) and rank with the same tie rule; here they are
compared option by option on random situations of several rule sets: joker and extra-bonus
throws (five of a kind, with the Yahtzee box holding its points or scratched), the Im-Hieb
bonus right after the first throw, a forced box order, both scopes, float64 and float32.
The value tables are random (every reachable state gets a value; integer values make
many exact ties) except for kniffel-apl, which is solved. The best option is also checked
against the decisions of the optimal policy (``policy.optimal_turn``), and a cached ``advise``
is run as a fresh process to show that it does not import JAX.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxsolve.io import cache
from jaxsolve import games
from jaxsolve.games.category.answers import advisor
from jaxsolve.games.category.engine import policy, solutions, solver, table_io, tables
from jaxsolve.games.category.sheets.position import SheetState

PRESETS = [("kniffel", "kniffel"), ("kniffel", "yahtzee"), ("kniffel", "kniffel-apl"), ("kniffel", "kniffel-imhieb"),
           ("kniffel", "yahtzee-free"), ("yatzy", "yatzy"), ("yatzy", "yatzy+forced")]


def rules_of(game: str, preset: str):
    return games.get_game(game).get_rules(preset)


def random_table(rules, objective="score", dtype="float64", seed=0, integer=True) -> solver.Solution:
    """A value table that passes the store's checks: random values >= 0 at every reachable
    state (NaN elsewhere, 0 for the full sheet), except the last two layers (one or two open
    boxes), which are the rules' own values, as the loader's spot check wants."""
    rng = np.random.default_rng(seed)
    mask = table_io.reachable_mask(rules)
    raw = rng.integers(0, 40, mask.shape).astype(float) if integer else rng.uniform(0.0, 300.0, mask.shape)
    values = np.where(mask, raw, np.nan).astype(dtype)
    values[rules.full_mask] = 0.0
    for layer in (rules.num_boxes - 1, rules.num_boxes - 2):
        f, u, h = (x.astype(np.int64) for x in tables.layer_states(rules, layer))
        flat = np.nan_to_num(values.reshape(-1), nan=0.0)
        values[f, u, h] = solver.state_values(flat, tables.EngineState(f, u, h), rules, objective, xp=np)
    return solver.Solution(rules, objective, values)


def situations(rules, n: int, seed: int):
    """Random situations: reachable states (many with the Yahtzee box holding its points),
    dice (many five of a kind), re-throws left (many first throws)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        f, u, h = tables.layer_states(rules, int(rng.integers(rules.num_boxes)))
        held = np.flatnonzero(h == 1)
        j = int(rng.choice(held)) if len(held) and rng.random() < 0.4 else int(rng.integers(len(f)))
        if rng.random() < 0.3:
            dice = (int(rng.integers(1, 7)),) * rules.dice
        else:
            dice = tuple(sorted(int(x) for x in rng.integers(1, 7, rules.dice)))
        left = rules.throws - 1 if rng.random() < 0.4 else int(rng.integers(rules.throws))
        out.append((SheetState(int(f[j]), int(u[j]), int(h[j]), rules.boxes), dice, left))
    return out


def assert_same_advice(a, b, rtol):
    assert [o.label for o in a.options] == [o.label for o in b.options]
    assert a.value == pytest.approx(b.value, rel=rtol, abs=rtol)
    for x, y in zip(a.options, b.options):
        assert (x.kind, x.keep, x.rethrow, x.box, x.points) == (y.kind, y.keep, y.rethrow, y.box, y.points)
        assert x.value == pytest.approx(y.value, rel=rtol, abs=rtol)
        assert x.regret == pytest.approx(y.regret, rel=rtol, abs=rtol)


@pytest.mark.parametrize("game,preset", PRESETS)
def test_numpy_advice_equals_jax_advice(game, preset):
    rules = rules_of(game, preset)
    sol = random_table(rules, seed=hash(preset) % 1000)
    for i, (pos, dice, left) in enumerate(situations(rules, 24, seed=len(preset))):
        scope = "turn" if i % 6 == 5 else "game"
        args = (rules, pos, dice, left, "score")
        ours = advisor.advise(*args, scope=scope, sol=sol)
        ref = advisor.advise(*args, scope=scope, sol=sol, backend="jax")
        assert_same_advice(ours, ref, 1e-12)


def test_numpy_advice_equals_jax_advice_on_solved_tables():
    """kniffel-apl solved (score and goals): the real values and their real ties."""
    rules = rules_of("kniffel", "kniffel-apl")
    for objective in ("score", "goals"):
        sol = solutions.solution(rules, objective)
        for pos, dice, left in situations(rules, 20, seed=3):
            ours = advisor.advise(rules, pos, dice, left, objective, sol=sol)
            ref = advisor.advise(rules, pos, dice, left, objective, sol=sol, backend="jax")
            assert_same_advice(ours, ref, 1e-12)


@pytest.mark.parametrize("game,preset", [("kniffel", "kniffel-imhieb"), ("yatzy", "yatzy+forced")])
def test_numpy_advice_in_float32(game, preset):
    rules = rules_of(game, preset)
    sol = random_table(rules, dtype="float32", seed=5, integer=False)
    for pos, dice, left in situations(rules, 12, seed=11):
        ours = advisor.advise(rules, pos, dice, left, sol=sol)
        ref = advisor.advise(rules, pos, dice, left, sol=sol, backend="jax")
        assert np.dtype(sol.values.dtype) == np.float32
        assert_same_advice(ours, ref, 1e-6)


@pytest.mark.parametrize("game,preset", [("kniffel", "kniffel-imhieb"), ("kniffel", "yahtzee"), ("yatzy", "yatzy+forced")])
def test_best_option_is_the_policy_choice(game, preset):
    """The first option of the NumPy advice is what ``policy.optimal_turn`` (the decisions of
    simulation, evaluation and play) chooses: the keep, or the box (a keep of every die is
    filling, later, the box the policy fills; with the Im-Hieb bonus, filling now)."""
    rules = rules_of(game, preset)
    sol = random_table(rules, seed=2)
    cases = situations(rules, 24, seed=9)
    sp = tables.space(rules.dice)
    state = tables.EngineState._make(jnp.asarray([c[0].state(rules)[k] for c in cases], jnp.int32) for k in range(3))
    values = jnp.asarray(np.nan_to_num(sol.values.reshape(-1)), jnp.float64)
    turn = jax.jit(lambda v, s: policy.optimal_turn(v, s, rules))(values, state)
    keep, box, fill_now, box_now = (np.asarray(a) for a in (turn.keep, turn.box, turn.fill_now, turn.box_now))
    for b, (pos, dice, left) in enumerate(cases):
        best = advisor.advise(rules, pos, dice, left, sol=sol).best
        t = sp.throw_index(sp.counts_of_faces(dice))
        if left == rules.throws - 1 and left > 0 and rules.has_instant_bonus and fill_now[t, b]:
            assert (best.kind, best.box) == ("box", rules.box_names[box_now[t, b]])
        elif left > 0 and sp.keep_size[keep[left - 1, t, b]] < rules.dice:
            assert best.kind == "keep" and sp.keep_index(sp.counts_of_faces(best.keep)) == keep[left - 1, t, b]
        elif left == 0:
            assert (best.kind, best.box) == ("box", rules.box_names[box[t, b]])
        elif best.kind == "box":
            # The policy keeps every die (ties go to more dice) and fills its box later; the
            # advisor lists that as filling now. (A keep tied with it may come first instead.)
            assert best.box == rules.box_names[box[t, b]]


@pytest.fixture
def tmp_store(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXSOLVE_CACHE", str(tmp_path))
    cache.configure(None)
    solutions._SOLUTIONS.clear()
    yield tmp_path
    solutions._SOLUTIONS.clear()
    cache.configure(None)


def test_cached_advise_process_does_not_import_jax(tmp_store):
    """A fresh ``jaxsolve advise`` with the table in the store: no JAX module is imported, the
    table is loaded (not solved), and the answer is the JAX path's."""
    rules = rules_of("kniffel", "kniffel-imhieb")
    sol = random_table(rules, seed=4, integer=False)
    path = cache.entry_path("kniffel", rules, "score", "float64")
    path.parent.mkdir(parents=True)
    table_io.save_solution(path, sol, game="kniffel")
    args = ["advise", "kniffel", "--rules", "kniffel-imhieb", "--position", "aces=3 kniffel=50", "--dice", "6", "6", "6", "6", "6", "--json"]
    env = {**os.environ, "JAXSOLVE_CACHE": str(tmp_store)}
    run = subprocess.run([sys.executable, "-X", "importtime", "-m", "jaxsolve", *args], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    imported = [m.group(1) for m in re.finditer(r"^import time:\s*\d+\s*\|\s*\d+\s*\|\s*(\S+)\s*$", run.stderr, re.M)]
    assert "numpy" in imported and "jaxsolve.games.category.answers.advisor" in imported
    assert not [m for m in imported if m.split(".")[0] in ("jax", "jaxlib", "equinox")]
    assert "using the cached table" in run.stderr and "solved" not in run.stderr
    from jaxsolve.games.category.sheets.position import parse_position

    ref = advisor.advise(rules, parse_position("aces=3 kniffel=50", rules), (6, 6, 6, 6, 6), 2, sol=sol, backend="jax").to_dict()
    got = json.loads(run.stdout)
    assert [o["option"] for o in got["options"]] == [o["option"] for o in ref["options"]]
    assert got["value"] == pytest.approx(ref["value"], rel=1e-12)
    assert [o["value"] for o in got["options"]] == pytest.approx([o["value"] for o in ref["options"]], rel=1e-12)


def test_store_cached_never_solves(tmp_store):
    """``table_io.cached``: the table if the store holds a valid one, else None; a broken entry is
    left in place for ``solved`` to report and replace."""
    rules = rules_of("kniffel", "yahtzee")
    assert table_io.cached(rules, game="kniffel") is None
    sol = random_table(rules, seed=1)
    path = cache.entry_path("kniffel", rules, "score", "float64")
    path.parent.mkdir(parents=True)
    table_io.save_solution(path, sol, game="kniffel")
    assert np.array_equal(table_io.cached(rules, game="kniffel").values, sol.values, equal_nan=True)
    assert table_io.cached(rules, game="kniffel", dtype="float32") is None
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    assert table_io.cached(rules, game="kniffel") is None and path.exists()


@pytest.mark.slow
@pytest.mark.parametrize("game,preset", PRESETS)
def test_numpy_advice_equals_jax_advice_on_every_solved_preset(game, preset):
    rules = rules_of(game, preset)
    sol = solutions.solution(rules)
    for pos, dice, left in situations(rules, 60, seed=17):
        ours = advisor.advise(rules, pos, dice, left, sol=sol)
        ref = advisor.advise(rules, pos, dice, left, sol=sol, backend="jax")
        assert_same_advice(ours, ref, 1e-12)
