"""Two players on the score-sheet engine, both playing to win (docs/twoplayer.md).

The package's public names are re-exported here (``twoplayer.solve``, ``twoplayer.simulate``, ...):

* ``sheets``: one player's sheets and the layers of pairs of sheets with their lead windows;
* ``engine``: the turn over the lead, the layered solve (devices, processes, layers written in
  slices), the start's outcome and the fairest compensation;
* ``seats``: the NumPy turn of a batch of positions over the lead and the seats besides the
  optimal one (the expected-score player, a player who reads a one-player table);
* ``simulate``: games played out by the seats, where the two-player move differs from the
  expected-score move, and the end-game positions expected-score play reaches;
* ``store`` (the tables kept in the solution store), ``advice`` (ranked options at a position),
  ``endgame`` (an end game from two sheets), ``distributed`` (a solve under ``jax.distributed``):
  imported by name, not re-exported.
"""

from jaxsolve.games.category.objectives.twoplayer.engine import (
    DEFAULT_CHUNK,
    DEFAULT_MAX_MEMORY,
    DEFAULT_SLICE_BYTES,
    MAX_ROWS,
    TIES,
    Compensation,
    Outcome,
    TwoPlayerTables,
    compensation,
    outcome,
    pair_bytes,
    padded_complement,
    solve,
    turn,
    unsolved,
)
from jaxsolve.games.category.objectives.twoplayer.sheets import (
    LayerPlan,
    Sheets,
    check_sheet,
    end_plans,
    pair_sheets,
    plan_layers,
    player_sheets,
    points_left,
    sheet_class,
    start_sheets,
)
from jaxsolve.games.category.objectives.twoplayer.seats import ScoreSeat, SeatModels, decode, score_policy, turn_arrays
from jaxsolve.games.category.objectives.twoplayer.simulate import (
    DECISION_KINDS,
    DIFFER_TOLERANCE,
    LOSS_LEVELS,
    SEATS,
    MovesDiffer,
    Played,
    Starts,
    reach,
    simulate,
)

__all__ = [
    "DECISION_KINDS", "DEFAULT_CHUNK", "DEFAULT_MAX_MEMORY", "DEFAULT_SLICE_BYTES", "DIFFER_TOLERANCE", "LOSS_LEVELS", "MAX_ROWS", "SEATS", "TIES",
    "Compensation", "LayerPlan", "MovesDiffer", "Outcome", "Played", "ScoreSeat", "SeatModels", "Sheets", "Starts", "TwoPlayerTables",
    "check_sheet", "compensation", "decode", "end_plans", "outcome", "pair_bytes", "pair_sheets", "padded_complement",
    "plan_layers", "player_sheets", "points_left", "reach", "score_policy", "sheet_class", "simulate", "solve", "start_sheets",
    "turn", "turn_arrays", "unsolved",
]
