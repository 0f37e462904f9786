"""Vectorised simulation: reproducibility, agreement with the solver and with exact one-throw
play, a plugged-in strategy, published greedy figure, CLI (incl. bad input)."""

import json
import math

import jax.numpy as jnp
import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.simulation import simulate, strategies
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.sheets.kniffel import NUM_BOXES, PRESETS

runner = CliRunner()


class FirstOpenBox(strategies.Strategy):
    """Never re-throws; fills the first open box (table order) after the first throw."""

    name = "first-open"

    def policy(self, state):
        filled = state.filled
        sp = tables.space()
        T, B = sp.num_throws, filled.shape[0]
        keep_all = jnp.broadcast_to((jnp.arange(T) + sp.throw_offset)[None, :, None], (self.rules.throws - 1, T, B))
        is_open = ((filled[None, :] >> jnp.arange(NUM_BOXES)[:, None]) & 1) == 0
        box = jnp.broadcast_to(jnp.argmax(is_open, axis=0)[None, :], (T, B))
        return strategies.TurnPolicy(keep_all, keep_all, box, jnp.zeros((T, B), bool), box)


def one_throw_mean(rules):
    """Exact mean of FirstOpenBox without jokers or extra bonus: one throw per box + upper bonus."""
    sp = tables.space()
    scores = tables.throw_scores()
    mean = float((scores @ sp.throw_prob).sum())
    dist = np.zeros(1)
    for face in range(6):
        step = np.zeros(5 * (face + 1) + 1)
        for t, p in enumerate(sp.throw_prob):
            step[scores[face, t]] += p
        dist = np.convolve(dist, step)
    return mean + rules.upper_bonus * dist[rules.upper_threshold :].sum()


def test_plugged_strategy_matches_exact_one_throw_play():
    rules = PRESETS["yahtzee-nobonus"]
    res = simulate.simulate(rules, FirstOpenBox(rules), 20000, seed=3, chunk=64)
    assert res.strategy == "first-open"
    assert abs(res.mean - one_throw_mean(rules)) < 4 * res.se
    sp = tables.space()
    assert res.box_points[12] / res.games == pytest.approx(17.5, abs=4 * 1.71 * 2 / math.sqrt(res.games) * 2)
    expected_scored = (tables.throw_scores() > 0) @ sp.throw_prob
    assert np.allclose(res.box_scored / res.games, expected_scored, atol=0.012)


def test_reproducible_by_seed_and_chunk_independent():
    rules = PRESETS["kniffel"]
    a = simulate.simulate(rules, "heuristic", 300, seed=5, chunk=256)
    b = simulate.simulate(rules, "heuristic", 300, seed=5, chunk=128)
    c = simulate.simulate(rules, "heuristic", 300, seed=6, chunk=256)
    assert np.array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)
    total = a.box_points.sum() + 35 * a.upper_bonus + a.extra_bonus + a.instant_bonus
    assert total == a.scores.sum()
    s = a.summary()
    assert s["games"] == 300 and s["mean"] == pytest.approx(a.scores.mean())
    assert 0 <= s["p_at_least"]["300"] <= s["p_at_least"]["250"] <= s["p_at_least"]["200"] <= 1


def test_optimal_simulation_agrees_with_solver():
    rules = PRESETS["yahtzee-free"]
    sol = solver.solve(rules, dtype=np.float32)
    res = simulate.simulate(rules, "optimal", 10000, seed=11, solution=sol)
    assert abs(res.mean - 254.5896095) < 4 * res.se
    assert res.sd == pytest.approx(59.6114, rel=0.05)


def test_greedy_matches_glenns_figure():
    res = simulate.simulate(PRESETS["yahtzee"], "greedy", 6000, seed=2)
    assert abs(res.mean - 218.05) < 4 * res.se


def test_im_hieb_bonus_is_paid():
    rules = PRESETS["kniffel-imhieb"]
    res = simulate.simulate(rules, "heuristic", 300, seed=1, chunk=256)
    assert res.instant_bonus > 0 and res.instant_bonus % 5 == 0
    plain = simulate.simulate(PRESETS["kniffel"], "heuristic", 300, seed=1, chunk=256)
    assert plain.instant_bonus == 0


def test_bad_input():
    with pytest.raises(JaxsolveError, match="positive"):
        simulate.simulate(PRESETS["kniffel"], "greedy", 0)
    with pytest.raises(JaxsolveError, match="unknown strategy"):
        simulate.simulate(PRESETS["kniffel"], "smart", 10)
    with pytest.raises(JaxsolveError, match="plays"):
        simulate.simulate(PRESETS["kniffel"], FirstOpenBox(PRESETS["yahtzee"]), 10)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--strategy", "clever"], "unknown strategy"),
        (["--strategy", "greedy", "--games", "0"], "--games must be between 1 and 10,000,000, got 0"),
        (["--strategy", "greedy", "--games", "-5"], "--games must be between 1 and 10,000,000"),
        (["--strategy", "greedy", "--games", "1000000000000"], "--games must be between 1 and 10,000,000, got 1,000,000,000,000"),
        (["--strategy", "greedy", "--seed", "1234567890123456789012345678901"], "--seed must be between 0 and 4,294,967,295"),
        (["--strategy", "greedy", "--seed", "-1"], "--seed must be between 0 and 4,294,967,295"),
        (["--strategy", "greedy", "--chunk", "0"], "--chunk must be between 1 and"),
        (["--strategy", "greedy", "--rules", "nope"], "unknown Kniffel rules"),
        (["--strategy", "greedy", "--instant-other", "-1"], "--instant-other"),
    ],
)
def test_cli_bad_input(args, message):
    out = runner.invoke(app, ["simulate", "kniffel", *args, "--no-files"])
    assert out.exit_code == 1
    assert out.stderr.startswith("error: ") and len(out.stderr.strip().splitlines()) == 1, out.output
    assert message in out.stderr and "Traceback" not in out.output


def test_cli_side_by_side(tmp_path):
    args = ["simulate", "kniffel", "--strategy", "heuristic,first", "--games", "100"]
    strategies.add("first", lambda rules, **_: FirstOpenBox(rules))
    try:
        out = runner.invoke(app, [*args, "--rules", "kniffel", "--chunk", "128", "--out", str(tmp_path), "--json"])
    finally:
        strategies._REGISTRY.pop("first")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [s["strategy"] for s in data["strategies"]] == ["heuristic", "first-open"]
    assert data["strategies"][0]["mean"] > data["strategies"][1]["mean"]
    assert json.loads((tmp_path / "kniffel_kniffel_heuristic-first_100_seed7.json").read_text())["games"] == 100
    assert (tmp_path / "kniffel_kniffel_heuristic-first_100_seed7.png").stat().st_size > 1000


@pytest.mark.slow
def test_million_optimal_games():
    """1M games of yahtzee-free: mean within 3 SE of 254.5896, SD near 59.61."""
    res = simulate.simulate(PRESETS["yahtzee-free"], "optimal", 1_000_000, seed=7)
    print(res.summary())
    assert abs(res.mean - 254.5896095) < 3 * res.se
    assert res.sd == pytest.approx(59.6114, abs=0.3)
