"""Bot strengths of the heuristic (forecast noise), the readings in simulation, and the CLI
plumbing of ``--heuristic-reading``, ``--bot-strength``, ``--bot-seed`` and ``heuristic:<strength>``."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from typer.testing import CliRunner

from jaxsolve.cli import app
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.simulation import heuristic, simulate, strategies
from jaxsolve.games.category.engine import tables
from jaxsolve.games.category.sheets.position import parse_position
from jaxsolve.games.category.sheets.kniffel import PRESETS

KNIFFEL = PRESETS["kniffel"]
runner = CliRunner()


def _states(n, layer=5, seed=0):
    lf, lu, lh = tables.layer_states(KNIFFEL, layer)
    pick = np.random.default_rng(seed).choice(len(lf), size=n, replace=False)
    return tables.EngineState._make(jnp.asarray(a[pick], jnp.int32) for a in (lf, lu, lh))


def test_noise_reproducible_and_independent_of_the_batch():
    state = _states(6)
    z = np.asarray(heuristic.forecast_noise(state, KNIFFEL, 1.0, seed=4))
    assert z.shape == (KNIFFEL.throws, 13, 252, 6)
    perm = np.array([5, 0, 3])
    zp = np.asarray(heuristic.forecast_noise(tables.EngineState._make(a[perm] for a in state), KNIFFEL, 1.0, seed=4))
    assert np.array_equal(zp, z[..., perm])
    other = np.asarray(heuristic.forecast_noise(state, KNIFFEL, 1.0, seed=5))
    assert np.abs(other - z).min() > 0 or np.mean(other == z) < 1e-3
    assert np.allclose(np.asarray(heuristic.forecast_noise(state, KNIFFEL, 3.0, seed=4)), 3 * z, rtol=1e-6)


def test_noise_is_standard_normal():
    """~1M draws: moments and tails of N(0, 1); neighbouring draws and states uncorrelated."""
    state = _states(100)
    z = np.asarray(heuristic.forecast_noise(state, KNIFFEL, 1.0, seed=0), dtype=np.float64)
    flat = z.ravel()
    assert abs(flat.mean()) < 0.005 and abs(flat.std() - 1) < 0.005
    assert abs(np.mean(np.abs(flat) > 1.959964) - 0.05) < 0.002
    assert abs(np.mean(flat**4) - 3) < 0.05
    per_state = z.reshape(-1, 100)
    corr = np.corrcoef(per_state.T)
    assert np.abs(corr[np.triu_indices(100, 1)]).max() < 0.06
    lag = np.corrcoef(flat[:-1], flat[1:])[0, 1]
    assert abs(lag) < 0.005


def test_noise_is_added_to_every_gain():
    state = _states(8)
    gains = jax.jit(lambda sd: heuristic.level_gains(state, KNIFFEL, jnp.float64, noise_sd=sd, noise_seed=2)[0], static_argnums=0)
    plain, noisy = gains(0.0), gains(3.0)
    z = np.asarray(heuristic.forecast_noise(state, KNIFFEL, 3.0, seed=2), dtype=np.float64)
    for r in range(KNIFFEL.throws):
        for b in range(13):
            assert np.allclose(np.asarray(noisy[r][b]) - np.asarray(plain[r][b]), z[r, b], atol=1e-5)


def test_strategy_names_and_options():
    assert strategies.make("heuristic", KNIFFEL).name == "heuristic"
    weak = strategies.make("heuristic:weak", KNIFFEL, seed=3)
    assert (weak.name, weak.noise_sd, weak.seed) == ("heuristic:weak", heuristic.STRENGTHS["weak"], 3)
    assert strategies.make("heuristic", KNIFFEL, reading="chain").name == "heuristic[chain]"
    assert strategies.make("heuristic", KNIFFEL).noise_sd == 0.0
    assert list(heuristic.STRENGTHS.values()) == sorted(heuristic.STRENGTHS.values())
    with pytest.raises(JaxsolveError, match="unknown bot strength 'bogus'"):
        strategies.make("heuristic:bogus", KNIFFEL)
    with pytest.raises(JaxsolveError, match="no strength levels"):
        strategies.make("greedy:weak", KNIFFEL)
    with pytest.raises(JaxsolveError, match="unknown bot strength"):
        heuristic.ratings(KNIFFEL, parse_position("", KNIFFEL), (1, 2, 3, 4, 5), 0, strength="best")


def test_bot_seed_reproducible():
    """Same bot seed, same games (the noise's batch independence: see the test above)."""
    bot = strategies.make("heuristic:medium", KNIFFEL, seed=1)
    a = simulate.simulate(KNIFFEL, bot, 100, seed=2, chunk=64)
    b = simulate.simulate(KNIFFEL, bot, 100, seed=2, chunk=64)
    c = simulate.simulate(KNIFFEL, strategies.make("heuristic:medium", KNIFFEL, seed=2), 100, seed=2, chunk=64)
    assert np.array_equal(a.scores, b.scores)
    assert not np.array_equal(a.scores, c.scores)


def test_weak_bot_scores_less():
    """Same dice, 400 games: the weak bot (SD 6) loses ~38 points a game (SE of the difference ~3)."""
    strong = simulate.simulate(KNIFFEL, "heuristic", 400, seed=11, chunk=256)
    weak = simulate.simulate(KNIFFEL, "heuristic:weak", 400, seed=11, chunk=256)
    diff = strong.scores.astype(float) - weak.scores
    assert diff.mean() > 20 and diff.mean() > 5 * diff.std(ddof=1) / np.sqrt(len(diff))


@pytest.mark.slow
def test_strengths_ordered():
    means = [simulate.simulate(KNIFFEL, strategies.make(f"heuristic:{s}", KNIFFEL), 3000, seed=5).mean for s in heuristic.STRENGTHS]
    assert means == sorted(means, reverse=True)


# Regression pins: this code's own simulation output for 1000 Kniffel games (dice seed 3), as
# (sum of the final scores, games with the upper bonus, games with the all-same box scored).
# They are no published figures: they only tell when a change moves the simulated games. The
# heuristic's keep rules are checked independently, box by box against a plain-Python brute
# force, in test_kniffel_strategies.py (``kniffel_heuristic_reference``).
REGRESSION_PIN_FRESH_TURN_1000_GAMES = (241445, 595, 234)
REGRESSION_PIN_CHAIN_1000_GAMES = (229333, 466, 126)


def test_regression_pin_readings_kniffel_1000_games():
    """Regression pins (the code's own outputs, not published figures): the fresh-turn reading
    scores about 12 points more than the chain reading (1.6 SE each)."""
    fresh = simulate.simulate(KNIFFEL, "heuristic", 1000, seed=3, chunk=256)
    chain = simulate.simulate(KNIFFEL, strategies.make("heuristic", KNIFFEL, reading="chain"), 1000, seed=3, chunk=256)
    assert (int(fresh.scores.sum()), fresh.upper_bonus, int(fresh.box_scored[11])) == REGRESSION_PIN_FRESH_TURN_1000_GAMES
    assert (int(chain.scores.sum()), chain.upper_bonus, int(chain.box_scored[11])) == REGRESSION_PIN_CHAIN_1000_GAMES
    for result in (fresh, chain):  # the bookkeeping adds up: box points plus bonus points
        assert int(result.scores.sum()) == int(result.box_points.sum()) + result.upper_bonus * KNIFFEL.upper_bonus + result.extra_bonus + result.instant_bonus


@pytest.mark.parametrize(
    "args, message",
    [
        (["simulate", "kniffel", "--strategy", "heuristic:bogus"], "unknown bot strength 'bogus'"),
        (["simulate", "kniffel", "--strategy", "greedy:weak"], "no strength levels"),
        (["simulate", "kniffel", "--strategy", "heuristic", "--heuristic-reading", "both"], "unknown heuristic reading 'both'"),
        (["advise", "kniffel", "--strategy", "heuristic", "--dice", "12345", "--bot-strength", "bogus"], "unknown bot strength 'bogus'"),
        (["advise", "kniffel", "--strategy", "heuristic", "--dice", "12345", "--heuristic-reading", "both"], "unknown heuristic reading 'both'"),
    ],
)
def test_cli_bad_input_is_one_line_error(args, message):
    result = runner.invoke(app, [*args, "--games", "10", "--no-files"] if args[0] == "simulate" else args)
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().startswith("error: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_cli_simulate_strengths_and_reading(tmp_path):
    args = ["simulate", "kniffel", "--rules", "kniffel", "--strategy", "heuristic,heuristic:weak", "--games", "50", "--chunk", "64", "--quiet", "--out", str(tmp_path)]
    result = runner.invoke(app, [*args, "--heuristic-reading", "chain", "--bot-seed", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [s["strategy"] for s in data["strategies"]] == ["heuristic[chain]", "heuristic:weak[chain]"]
    assert (tmp_path / "kniffel_kniffel_heuristic-heuristic_weak_chain_50_seed7.json").exists()


def test_cli_advise_boundary_position():
    """The position of the bonus-boundary bug: the advisor no longer fills sixes."""
    pos = "aces=3 twos=6 threes=9 fours=12 fives=15"
    result = runner.invoke(app, ["advise", "kniffel", "--rules", "kniffel", "--strategy", "heuristic", "--position", pos, "--dice", "6", "2", "3", "4", "1", "--rolls-left", "0", "--json"])
    assert result.exit_code == 0, result.output
    options = json.loads(result.stdout)["options"]
    assert options[0]["option"] == "fill small_straight" and options[-1]["option"] == "fill sixes"
    weak = runner.invoke(app, ["advise", "kniffel", "--rules", "kniffel", "--strategy", "heuristic", "--position", pos, "--dice", "62341", "--rolls-left", "0", "--bot-strength", "weak", "--json"])
    assert weak.exit_code == 0, weak.output
    assert [o["value"] for o in json.loads(weak.stdout)["options"]] != [o["value"] for o in options]
