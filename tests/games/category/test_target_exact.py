"""Every state of a reduced game's target table against the plain-Python reference (float64),
and the table's range in float32."""

import numpy as np
import pytest

from jaxsolve.games.category.objectives import distribution as D
from jaxsolve.games.category.engine import solver, tables
from jaxsolve.games.category.objectives import target as TG
from jaxsolve.games.category.sheets.rules import CategoryRules
from kniffel_dist_reference import target_states

CASES = [
    (CategoryRules(dice=3, throws=3, joker="forced", upper_threshold=6, extra_bonus=10), (0, 2, 11, 12)),
    (CategoryRules(dice=3, throws=2, joker="kniffel", bonus_on_scratch=False, upper_threshold=6, instant_all_same=30, instant_other=5), (1, 6, 12)),
]


@pytest.mark.parametrize("case", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_every_state_matches_the_reference(case):
    rules, open_boxes = CASES[case]
    mask = solver.filled_mask(set(range(13)) - set(open_boxes))
    table = TG.solve_target(rules, prefilled=mask)
    width = max(a.shape[1] for a in table.layers if a is not None)
    ref = target_states(rules, width)
    checked = 0
    for layer in range(bin(mask).count("1"), rules.num_boxes):
        for f, u, h in zip(*D.sub_layer_states(rules, layer, mask)):
            got = table.layers[layer][table.rows[int(tables.state_index(int(f), int(u), int(h), rules))]]
            want = ref(frozenset(b for b in range(13) if int(f) >> b & 1), int(u), bool(h))
            np.testing.assert_allclose(got, want[: len(got)], rtol=0, atol=1e-9)
            assert np.all(want[len(got):] == 0.0)  # the layer's cut: nothing past its support
            checked += 1
    assert checked > 50
    assert table.at(mask)[0] == pytest.approx(1.0, abs=1e-12)


def test_float32_stays_a_probability():
    rules = CASES[0][0]
    mask = solver.filled_mask(set(range(13)) - {0, 11, 12})
    table = TG.solve_target(rules, prefilled=mask, dtype=np.float32)
    for layer in table.layers:
        if layer is not None:
            assert layer.dtype == np.float32 and layer.min() >= 0.0 and layer.max() <= 1.0
