"""Cross-check against yatzy-solver (an independent Rust solver, the ``bench`` extra).

Skipped when it is not installed, except under CI (``CI`` set), where a missing peer fails the
run instead of passing it silently.

Every one of its twelve variants is played by a jaxsolve preset (``category.peer.PEER_VARIANTS``).
Fast checks use its rules engine only (score card, legal boxes, points and next state of a
move); the slow ones solve both sides in float64 and compare the game value, random state
values and every option of random situations (``category.peer.compare``; minutes per variant, so they run with the slow tests).
"""

import os

import jax
import pytest

try:
    import yatzy_solver as ys
except ImportError:
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        raise ImportError("yatzy-solver is not installed, and CI runs this cross-check: pip install -e '.[bench]'") from None
    pytest.skip("yatzy-solver is not installed (pip install -e '.[bench]')", allow_module_level=True)

from jaxsolve.games.category.checks import peer  # noqa: E402

VARIANTS = list(ys.builtin_variants())


def test_every_variant_has_a_preset():
    assert set(VARIANTS) == set(peer.PEER_VARIANTS)


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_score_card(variant_id):
    assert peer.sheet_mismatches(ys.Variant(variant_id), peer.rules_for(variant_id)) == []


@pytest.mark.parametrize("variant_id", VARIANTS)
def test_moves(variant_id):
    assert peer.move_mismatches(variant_id, situations=200, seed=1) == []


@pytest.mark.parametrize(
    "variant_id, other",
    [("american", "american+forced-joker"), ("american+no-joker", "american"), ("american+no-bonus", "american+no-joker"), ("yatzy-scandinavian+forced", "yatzy-scandinavian")],
)
def test_moves_tell_the_variants_apart(variant_id, other):
    """The move check fails for the preset of a neighbouring variant (so it can fail at all)."""
    assert peer.move_mismatches(variant_id, situations=200, seed=1, rules=peer.rules_for(other))


@pytest.mark.slow
@pytest.mark.parametrize("variant_id", VARIANTS)
def test_values_and_best_actions(variant_id):
    assert jax.config.jax_enable_x64
    result = peer.compare(variant_id, states=2000, situations=2000, seed=2)
    assert result["game_value_diff"] <= 1e-6 and result["state_max_diff"] <= 1e-6
    assert result["legal_mismatches"] == 0 and result["option_max_diff"] <= 1e-6
    assert result["ours_suboptimal_by_peer"] == 0 and result["peer_suboptimal_by_ours"] == 0
    assert result["ok"]
