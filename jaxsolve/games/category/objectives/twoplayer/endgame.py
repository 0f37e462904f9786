"""Two-player end games of the category games (docs/twoplayer.md, "End games").

Two ways to the end of a two-player game, both playing to win (``twoplayer.solve``):

* every position where both players have at most ``k`` open boxes (``open_boxes=k``: the
  whole game's sheets, only its layers ``n >= 2 (boxes - k)``), for a table exported once;
* one real position's end game from the two players' sheets (``start=``: only the sheets a game
  reaches from them, ``twoplayer.player_sheets(start=)``), solved on demand in seconds.

Either is exported with ``save_endgame`` (``jaxsolve.io.export.save_members``: the first layer to
the file, every later layer as a member beside it, one sidecar hashing all; written atomically)
and read back with ``load_endgame`` (every file against its hash, the game, every rules field,
the tie rule, the layer plans the rules give, values finite in [0, 1]).

What a set costs is counted before it is solved (``endgame_cost``): sheet pairs and state-lead
values per layer; a set above ``max_values`` is refused with what it would take.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.sheets.rules import CategoryRules

if TYPE_CHECKING:
    from jaxsolve.games.category.objectives import twoplayer

OBJECTIVE = "twoplayer-endgame"
TIE_RULES = ("share", "win", "lose")
"""``twoplayer.TIES``' names (the command's choices, without importing the engine)."""
CHUNK = 8
"""``twoplayer.DEFAULT_CHUNK``."""
MAX_VALUES = 300_000_000
"""The most state-lead values solved on request (every layer is kept: 1.2 GB in float32)."""
CORE_SECONDS_PER_VALUE = 1.1e-6
"""The engine's cost per state-lead value (5 dice, float32, compiling included), from the
whole two-player Yacht's solve measured in results/twoplayer/."""


@dataclass(frozen=True)
class Cost:
    """What an end-game set holds: per layer ``(n, pairs, leads)``; ``pairs`` and ``values``
    their totals, ``sheets[k]`` a player's sheets with ``k`` boxes filled."""

    layers: tuple
    pairs: int
    values: int
    sheets: tuple

    @property
    def core_seconds(self) -> float:
        return self.values * CORE_SECONDS_PER_VALUE

    @property
    def float32_bytes(self) -> int:
        return 4 * self.values


def _plans(rules: CategoryRules, open_boxes: int | None, start) -> tuple[tuple, list]:
    from jaxsolve.games.category.objectives import twoplayer

    if (open_boxes is None) == (start is None):
        raise JaxsolveError("give either the open boxes of every end-game position or the two players' sheets, not both")
    sheets = twoplayer.pair_sheets(rules, start=start)
    plans = twoplayer.plan_layers(rules, sheets)
    return sheets, plans if open_boxes is None else twoplayer.end_plans(rules, plans, int(open_boxes))


def endgame_cost(rules: CategoryRules, *, open_boxes: int | None = None, start=None) -> Cost:
    """The layers, sheet pairs and state-lead values of an end-game set, nothing solved."""
    sheets, plans = _plans(rules, open_boxes, start)
    rows = tuple((p.n, p.pairs, p.width) for p in plans)
    counts = tuple(sheets[0].count(k) for k in range(rules.num_boxes + 1))
    return Cost(rows, sum(r[1] for r in rows), sum(r[1] * r[2] for r in rows), counts)


def solve_endgame(
    rules: CategoryRules, *, open_boxes: int | None = None, start=None, tie: str = "share", dtype=None,
    max_values: int | None = MAX_VALUES, **options,
) -> twoplayer.TwoPlayerTables:
    """Every layer of an end-game set (``open_boxes`` or ``start``), solved and kept; refused up
    front above ``max_values`` state-lead values with what it would take. ``options`` as
    ``twoplayer.solve`` (chunk, max_memory, progress, ...)."""
    from jaxsolve.games.category.objectives import twoplayer

    cost = endgame_cost(rules, open_boxes=open_boxes, start=start)
    if max_values is not None and cost.values > max_values:
        raise JaxsolveError(
            f"{rules.name} with at most {open_boxes} open boxes each is {cost.pairs:,} pairs of sheets and {cost.values:,} state-lead values "
            f"({cost.float32_bytes / 2**30:.1f} GiB in float32, about {cost.core_seconds / 3600:.1f} core-hours on a 2-core CPU like "
            f"results/twoplayer/'s), above the {max_values:,} solved on request: solve one position's end game from its sheets instead"
            if start is None else
            f"this end game is {cost.values:,} state-lead values, above the {max_values:,} solved on request"
        )
    return twoplayer.solve(rules, tie=tie, start=start, open_boxes=open_boxes, keep="all", dtype=dtype, **options)


def save_endgame(path, table: twoplayer.TwoPlayerTables, *, game: str, open_boxes: int | None = None) -> list[Path]:
    """Write every kept layer of an end-game solve: the first to ``path``, each later layer
    ``n`` as the member ``layer_n`` (one sidecar; atomic). ``open_boxes``: the set's k when it
    is every position with at most k open boxes (else the solve's start sheets are recorded)."""
    from jaxsolve.games.category.objectives.twoplayer import store
    from jaxsolve.io import export

    plans = table.plans
    if any(table.layers[p.n] is None for p in plans):
        raise JaxsolveError("an end-game export needs every layer (solve with keep='all')")
    start = None if open_boxes is not None else [list(table.sheets[0].first), list(table.sheets[1].first)]
    if open_boxes is None and (table.sheets[0].start is None or table.sheets[1].start is None):
        raise JaxsolveError("give the open boxes of the set, or export a solve from the two players' sheets (start=)")
    first = np.asarray(table.layers[plans[0].n])
    meta = {
        "game": game,
        "rules": table.rules.to_dict(),
        "objective": OBJECTIVE,
        "tie": table.tie,
        "open_boxes": open_boxes,
        "start": start,
        "layers": store._plan_dicts(plans),
        "value_meaning": "P(the player to move wins), both playing to win, a tie counting 'tie' for the game's starter; "
        "layer n row i_other * movers + i_mover (twoplayer.player_sheets), column lead + low; below the window 0, above it 1",
        "solve_dtype": str(first.dtype),
        "solve_seconds": float(table.seconds),
        "compile_seconds": float(table.compile_seconds),
        "device": table.device,
    }
    members = {f"layer_{p.n}": np.asarray(table.layers[p.n]) for p in plans[1:]}
    return export.save_members(path, first, meta, members)


def load_endgame(path, *, game: str, rules: CategoryRules | None = None) -> twoplayer.TwoPlayerTables:
    """Read a ``save_endgame`` export, checked: every file against its recorded size and
    SHA-256, the game and (where given) these ``rules``, the layer plans that the rules and the
    recorded set give, each layer's shape and dtype, values finite in [0, 1], the last layer the
    game's end."""
    from jaxsolve.games.category.objectives import twoplayer
    from jaxsolve.games.category.objectives.twoplayer import store
    from jaxsolve.io import export

    p, meta, rules = export.open_table(path, what="two-player end-game table", objective=OBJECTIVE, cls=CategoryRules, game=game, rules=rules)
    side = export.sidecar_path(p)
    tie, open_boxes, start = meta.get("tie"), meta.get("open_boxes"), meta.get("start")
    if tie not in twoplayer.TIES or (open_boxes is None) == (start is None):
        raise JaxsolveError(f"{side}: not a valid end-game sidecar (tie rule, open boxes or start)")
    try:
        sheets, plans = _plans(rules, None if open_boxes is None else int(open_boxes), None if start is None else tuple(tuple(int(x) for x in s) for s in start))
    except (TypeError, ValueError):
        raise JaxsolveError(f"{side}: not a valid end-game sidecar (open boxes or start)") from None
    if meta.get("layers") != store._plan_dicts(plans):
        raise JaxsolveError(f"{side}: its layers are not those the rules give for its end-game set")
    arrays = {plans[0].n: export.load(p, game=game)[0]}
    later = export.load_members(p, meta, tuple(f"layer_{q.n}" for q in plans[1:]))
    arrays.update({q.n: later[f"layer_{q.n}"] for q in plans[1:]})
    layers: list = [None] * (2 * rules.num_boxes + 1)
    for q in plans:
        a = arrays[q.n]
        if a.shape != (q.pairs, q.width) or a.dtype not in (np.float32, np.float64):
            raise JaxsolveError(f"{p}: layer {q.n} is {a.dtype} {a.shape}, the rules give {(q.pairs, q.width)}")
        store._check_values(p, a, q, twoplayer.TIES[tie] if q is plans[-1] else None)
        layers[q.n] = a
    return twoplayer.TwoPlayerTables(rules, tie, sheets, plans, layers, float(meta.get("solve_seconds", 0.0)), device=str(meta.get("device", "")))


# ----------------------------------------------------------------------------- command


def _params():
    from jaxsolve.games.game import Param

    return (
        Param("open_boxes", int, None, "Every position where both players have at most K boxes open (the whole set; --out needed).",
              flags=("--open",), min=1, max=20),
        Param("mine", str, None, 'The player to move: his sheet then his score, e.g. "aces=3 ... kniffel=50 210" (one position\'s end game).'),
        Param("theirs", str, None, "The other player: his sheet then his score (with --mine)."),
        Param("tie", str, "share", "What a tie is worth to the game's starter: share (1/2 each), win or lose.", choices=TIE_RULES),
        Param("out", Path, None, "The .npy to write (later layers beside it as NAME-layer_N.npy, one JSON sidecar).", flags=("--out", "-o")),
        Param("max_values", int, MAX_VALUES, "Refuse sets of more state-lead values than this.", min=1),
        Param("chunk", int, CHUNK, "Most pairs per compiled batch.", min=1, max=1 << 16),
    )


ENDGAME_PARAMS = _params()


def endgame_command(rules, *, game, dtype, device, quiet, open_boxes, mine, theirs, tie, out, max_values, chunk):
    """Solve a two-player end game (every position with at most ``--open K`` boxes open each, or
    one position from ``--mine`` / ``--theirs``) and export it where ``--out`` is given."""
    from jaxsolve.games.category.objectives import winning
    from jaxsolve.games.category.sheets.position import PositionError
    from jaxsolve.games.game import Report
    from jaxsolve.io import export

    if (open_boxes is None) == (mine is None and theirs is None):
        raise JaxsolveError("give --open K (every end-game position) or --mine and --theirs (one position), one of the two")
    if rules.has_instant_bonus:
        raise JaxsolveError(f"{rules.name}: two-player end games here do not take the instant (Im-Hieb) bonuses; choose rules without them")
    if open_boxes is not None and out is None:
        raise JaxsolveError("--open K writes a table: give --out FILE")
    if out is not None:
        export.check_writable(out)
    lead = 0
    start = None
    if open_boxes is None:
        if mine is None or theirs is None:
            raise JaxsolveError("give both --mine and --theirs")
        sides = []
        for flag, text in (("--mine", mine), ("--theirs", theirs)):
            try:
                sides.append(winning.parse_opponent(text, rules))
            except PositionError as exc:
                raise JaxsolveError(f"{flag}: {str(exc).replace('opponent score', 'score')}") from None
        me, other = sides
        if me.position.is_over and other.position.is_over:
            raise JaxsolveError("both sheets are full: the game is over")
        try:
            start = (me.position.state(rules), other.position.state(rules))
        except PositionError as exc:
            raise JaxsolveError(str(exc)) from None
        lead = me.score - other.score
    table = solve_endgame(rules, open_boxes=open_boxes, start=start, tie=tie, dtype=dtype, max_values=max_values, chunk=chunk,
                          devices=[device] if device is not None else 1, progress=not quiet)
    values = sum(int(np.asarray(a).size) for a in table.layers if a is not None)
    pairs = sum(p.pairs for p in table.plans)
    data: dict = {"rules": rules.name, "tie": tie, "open_boxes": open_boxes, "pairs": pairs, "values": values,
                  "seconds": table.seconds, "compile_seconds": table.compile_seconds, "device": table.device}
    lines = [f"{rules.name}: two-player end game of {pairs:,} pairs of sheets, {values:,} state-lead values in {table.seconds:.1f} s "
             f"(+{table.compile_seconds:.1f} s compiling) on {table.device}"]
    if start is not None:
        p_win = table.value(start[0], start[1], lead)
        data.update(start=[list(s) for s in start], lead=lead, p_win=p_win)
        lines.append(f"P(the player to move wins) at a lead of {lead:+d}, both playing to win (ties {tie}): {p_win:.6f}")
    if out is not None:
        paths = save_endgame(out, table, game=game, open_boxes=open_boxes)
        data["file"] = str(out)
        lines.append(f"wrote {out} and {len(paths) - 1} layer files beside it")
    return Report(tuple(lines), data, result=table)
