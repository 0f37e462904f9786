"""Playing to finish first at a table: every option ranked by the probability of winning.

The model: each opponent plays the rest of the game for expected points (the ``score``-optimal
policy), so his final score is his current score plus the exact distribution of his remaining
points from his sheet (``distribution.distribution``). Opponents are independent of each other
and of me (they do not react to my score). My probability to finish first, given my final
score f, is then a utility::

    u(f) = E[ 1{every opponent's final <= f} * share(number of opponents at f) ]

with the tie rule ``share`` (a tie among j + 1 players counts 1 / (j + 1)), ``win`` (a tie
counts as a win) or ``lose``. The best response to the opponents maximises E[u(my final)]:
the target objective's recursion with the terminal ``u(my score + k)`` over the points k scored
from here on (``target.solve_target(terminal=...)``), solved exactly over the states my game
reaches from my position ("exact"; ``start=``: my upper total and all-same flag carried, a
fraction of the subgame of my filled boxes; the opponents' distributions likewise from their
states, or read from the whole game's distribution table that ``jaxsolve distribution-table
GAME`` keeps in the solution store), in shapes bucketed so that one compiled step serves many
positions. Early in the game,
where that solve takes longer than a player waits, the answer comes from the step target table
(``V_option[k]`` = max P(at least k more points), one policy per k), weighted by the utility's
increments::

    P(win) ~ u(s) + sum_k (u(s + k) - u(s + k - 1)) V_option[k]        ("table")

which is an upper bound of the exact value (each target is played for separately). The table
is the whole game's that ``jaxsolve target-table GAME`` keeps in the solution store where there
is one (two layers memory-mapped, a few dozen rows read), else solved for my subgame. Either way
the options of the situation come from one state's turn in NumPy (``target.situation``).

References: J. Pawlewicz, "A Nearly Optimal Computer Player in Multi-player Yahtzee",
Computers and Games 2010 (multi-player play from exact final-score distributions);
W. Holderied's Yahtzee program ("beat your opponent": summing over the opponent's distribution).
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from jaxsolve.errors import JaxsolveError
from jaxsolve.games.category.engine import policy, tables
from jaxsolve.games.category.answers.advisor import Option
from jaxsolve.games.category.sheets.position import Position, PositionError, SheetState, check_throws_left, format_dice, parse_position
from jaxsolve.games.category.sheets.rules import CategoryRules

TIES = ("share", "win", "lose")
METHODS = ("auto", "exact", "table")
TRIM = 1e-15
"""The utility over my points is cut where it stays within this of its largest value."""
CHUNK = 2
"""States per compiled batch of the exact response and the opponents' distributions: a chunk's
throws x channel in float64 (252 x ~900 x 8 bytes per state) stay in a CPU's caches
(results/winning/ has the measured effect of the chunk size)."""
NUMPY_CHUNK_VALUES = 1 << 17
"""Throw x channel values per batch of the NumPy response (``response_numpy``): 1 MiB in float64,
which stays in a core's caches (results/winning/ has the measured effect of the batch size)."""
ENGINES = ("auto", "numpy", "jax")
NUMPY_MAX_OPPONENT_STATES = 1 << 14
"""``auto`` computes an opponent's distribution in NumPy (``distribution.distribution_numpy``)
where his game reaches at most this many states, else with the compiled step: NumPy's cost
grows with the states, the compiled step's is mostly tracing and compiling it, so a running
process with the step compiled is ahead on the large ones (the measurements: results/winning/)."""
NUMPY_MAX_RESPONSE_WORK = 1 << 17
"""``auto`` solves my exact response in NumPy (``response_numpy``, the reached channels) where
it computes at most this many state-channel values (``response_work``), else with the compiled
step: NumPy's cost grows with the values, the compiled step's is mostly compiling it (the
measurements: results/winning/)."""
EXACT_MAX_OPEN = 9
"""``auto`` solves the exact best response with at most this many open boxes (its time at 9:
results/winning/), else answers from the target table."""


# ----------------------------------------------------------------------------- opponents


@dataclass(frozen=True)
class Opponent:
    """An opponent's sheet and his current score (bonuses included: what he has on the table)."""

    position: Position | SheetState
    score: int

    def __str__(self) -> str:
        return f"{self.position} ({self.score} points)"


def parse_opponent(text: str, rules: CategoryRules) -> Opponent:
    """``"SHEET SCORE"``: the sheet in the notation of ``--position`` and his current total last,
    e.g. ``"aces=3 twos=- kniffel=50 53"`` or ``"start 0"``."""
    parts = (text or "").strip().rsplit(None, 1)
    if not parts or not re.fullmatch(r"\d+", parts[-1]):
        raise PositionError(f"an opponent is his sheet then his score, e.g. \"aces=3 twos=- 3\" or \"start 0\"; got {text!r}")
    score = int(parts[-1])
    sheet = parts[0] if len(parts) == 2 else "start"
    pos = parse_position(sheet, rules)
    if pos.total is not None and score < pos.total:
        raise PositionError(f"opponent score {score} is below the {pos.total} points on his sheet ({pos})")
    if not pos.is_over:
        pos.state(rules)  # the sheet order of the rules
    return Opponent(pos, score)


_REMAINING: dict[tuple, Any] = {}


def remaining_distribution(rules: CategoryRules, position, sol=None, *, game: str | None = None, engine: str = "auto", jax_setup: Callable[[], Any] | None = None) -> np.ndarray:
    """``P(k more points)`` from a sheet under the ``score``-optimal policy (float64). ``engine``
    ``auto`` reads his state's row from the whole game's distribution table that ``jaxsolve
    distribution-table GAME`` keeps in the solution store, where there is one
    (``stored_distribution_table``: one layer memory-mapped, one row read; float32, each
    probability within 6e-8 of its own size), else computes it over the states his game
    reaches, once per process and state: ``numpy`` (``distribution.distribution_numpy``: no
    JAX, no compiling), ``jax`` (one compiled step for many positions) or, for ``auto``, NumPy
    where his game reaches at most ``NUMPY_MAX_OPPONENT_STATES`` states. The score table comes
    from this process or the solution store (read without JAX), else it is solved. ``jax_setup``:
    called before JAX is first used (the command line's deferred set-up: precision and
    compilation cache)."""
    from jaxsolve.games.category.objectives import distribution as D
    from jaxsolve.games.category.engine import solutions

    if engine not in ENGINES:
        raise JaxsolveError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if position.is_over:
        return np.ones(1)
    f, u, h = position.state(rules)
    state = (int(f), int(u), int(h))
    if engine == "auto":
        stored = stored_distribution_table(rules, game, bin(state[0]).count("1"))
        if stored is not None and stored.rows[int(tables.state_index(state[0], min(state[1], rules.upper_threshold), state[2], rules))] >= 0:
            return np.asarray(stored.at(*state), np.float64)  # (a subgame's table, e.g. an export put there by hand, may not hold him)
    if engine == "auto":
        engine = "numpy" if D.reach_size(rules, state) <= NUMPY_MAX_OPPONENT_STATES else "jax"
    if sol is None:
        sol = solutions.cached_solution(rules, "score", "float64", game=game) or solutions.cached_solution(rules, "score", "float32", game=game)
    if sol is None:
        _ready(jax_setup)
        sol = solutions.solution(rules, "score", game=game, dtype="float64")
    key = (rules, state, id(sol), engine)
    if key not in _REMAINING:
        while len(_REMAINING) >= 64:
            _REMAINING.pop(next(iter(_REMAINING)))
        if engine == "numpy":
            dist = D.distribution_numpy(rules, sol, state)
        else:
            _ready(jax_setup)
            # only the states his game reaches from his own, in shapes one compiled step serves for many
            dist = D.distribution(rules, sol, dtype="float64", chunk=CHUNK, keep="start", start=state, shapes="bucket")
        _REMAINING[key] = (sol, np.asarray(dist.at(*state), np.float64))
    return _REMAINING[key][1]


_DISTRIBUTIONS: dict[tuple, Any] = {}


def stored_distribution_table(rules: CategoryRules, game: str | None, layer: int) -> Any:
    """The whole game's remaining-score distribution table that ``jaxsolve distribution-table
    GAME`` keeps in the solution store (``target.store_path(..., 'distribution')``), its
    ``layer`` memory-mapped (checked in full once, then trusted by the note of that check), kept
    per process; None where the store holds none."""
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.io import cache

    if game is None or not cache.enabled():
        return None
    path = TG.store_path(game, rules, "distribution")
    key = (str(path), rules, int(layer))
    if key not in _DISTRIBUTIONS:
        if not path.is_file():
            return None
        while len(_DISTRIBUTIONS) >= 16:
            _DISTRIBUTIONS.pop(next(iter(_DISTRIBUTIONS)))
        head = TG.load_table(path, game=game, rules=rules, layers=(), kind="distribution")  # the sidecar only
        if int(layer) < bin(head.prefilled).count("1"):  # a subgame's table (an export put there by hand): not his layer
            return None
        _DISTRIBUTIONS[key] = TG.load_table(path, game=game, rules=rules, layers=(int(layer),), mmap=True, kind="distribution")
        cache.note(f"using the distribution table {path}")
    return _DISTRIBUTIONS[key]


def _ready(jax_setup: Callable[[], Any] | None) -> None:
    """Set JAX up before its first use (``jax_setup``), where a caller deferred it."""
    if jax_setup is not None:
        jax_setup()


def _once(fn: Callable[[], Any] | None) -> Callable[[], Any] | None:
    """``fn`` called at most once (None stays None)."""
    if fn is None:
        return None
    done: list = []

    def call() -> None:
        if not done:
            done.append(fn())

    return call


def final_distribution(rules: CategoryRules, opponent: Opponent, sol=None, *, game: str | None = None, engine: str = "auto", jax_setup: Callable[[], Any] | None = None) -> np.ndarray:
    """``P(final score = s)``, s = 0..: his score plus his remaining points (``remaining_distribution``)."""
    rest = remaining_distribution(rules, opponent.position, sol, game=game, engine=engine, jax_setup=jax_setup)
    return np.concatenate([np.zeros(opponent.score), rest])


def win_utility(finals: list[np.ndarray], ties: str = "share", length: int | None = None) -> np.ndarray:
    """``u[f]`` = P(I finish first | my final score f), f = 0..length-1 (default: one past the
    highest final any opponent can reach, where ``u`` is 1), opponents independent.

    With ``a_i = P(X_i < f)`` and ``b_i = P(X_i = f)``, the coefficient of z^j in
    ``prod_i (a_i + b_i z)`` is P(no opponent above f, j of them at f)."""
    if ties not in TIES:
        raise JaxsolveError(f"unknown tie rule {ties!r}; choose {', '.join(TIES)}")
    if not finals:
        raise JaxsolveError("give at least one opponent")
    top = max(len(p) for p in finals)
    length = top + 1 if length is None else int(length)
    coef = np.zeros((len(finals) + 1, length))
    coef[0] = 1.0
    for p in finals:
        p = np.pad(np.asarray(p, np.float64), (0, max(0, length - len(p))))[:length]
        below = np.concatenate([[0.0], np.cumsum(p)[:-1]])
        below = np.where(np.arange(length) >= len(p), 1.0, below)
        new = coef * below
        new[1:] += coef[:-1] * p
        coef = new
    j = np.arange(len(finals) + 1)[:, None]
    weight = {"share": 1.0 / (1 + j), "win": np.ones_like(j, dtype=float), "lose": (j == 0).astype(float)}[ties]
    return (coef * weight).sum(0)


def my_score(rules: CategoryRules, position, score: int | None) -> int:
    """My current total: given, or the sheet's total plus the upper bonus once earned."""
    if score is not None:
        if position.total is not None and score < position.total:
            raise PositionError(f"my score {score} is below the {position.total} points on my sheet")
        return int(score)
    if position.total is None:
        raise PositionError("a position given as a state has no total: give my score too (--score)")
    earned = rules.upper_bonus if position.upper_total >= rules.upper_threshold else 0
    return int(position.total + earned)


def utility_of_points(rules: CategoryRules, position, score: int, u: np.ndarray) -> np.ndarray:
    """``w[k] = u(score + k)`` over the points k = 0..K I can still score (K: the layer's bound)."""
    from jaxsolve.games.category.objectives.distribution import support_lengths

    layer = bin(int(position.state(rules)[0])).count("1")
    top = support_lengths(rules)[layer] - 1
    idx = np.minimum(score + np.arange(top + 1), len(u) - 1)
    w = np.asarray(u, np.float64)[idx]
    # Past the point where w stays within TRIM of its last value, more points change nothing
    # that float64 holds: the target channel needs only that many (terminal[0] = w[-1] beyond).
    far = np.flatnonzero(w[-1] - w > TRIM)
    return w[: int(far[-1]) + 2] if len(far) else w[:1]


# ----------------------------------------------------------------------------- the engine's tables


_TABLES: dict[tuple, Any] = {}


_RESPONSES: dict[tuple, Any] = {}


def response_table(
    rules: CategoryRules, filled: int, w: np.ndarray, *, start: tuple[int, int, int] | None = None, chunk: int = CHUNK, devices=1, engine: str = "jax",
    jax_setup: Callable[[], Any] | None = None,
):
    """The exact best response to ``w[k]`` (float64, every layer): with ``start`` = (filled,
    upper, all_same_held), over the states my game reaches from that state, in shapes one
    compiled step serves for many positions (``shapes='bucket'``); else over the whole subgame
    of ``filled`` (every upper total and flag). The last few are kept per process: the
    questions of one turn share one. ``engine``: ``jax`` (the compiled step), ``numpy``
    (``response_numpy`` with the reached channels only, with ``start``) or ``auto`` (NumPy where
    that is at most ``NUMPY_MAX_RESPONSE_WORK`` state-channel values, ``response_work``). ``jax_setup``:
    called before JAX is first used."""
    from jaxsolve.games.category.objectives import target as TG

    if engine not in ENGINES or (engine == "numpy" and start is None):
        raise JaxsolveError(f"engine must be one of {', '.join(ENGINES)} (numpy with a start state), got {engine!r}")
    start = None if start is None else (int(start[0]), int(start[1]), int(start[2]))
    w = np.asarray(w, np.float64)
    if engine == "auto":
        engine = "numpy" if start is not None and response_work(rules, start, len(w) - 1) <= NUMPY_MAX_RESPONSE_WORK else "jax"
    key = (rules, int(filled), start, w.tobytes(), engine)
    if key not in _RESPONSES:
        while len(_RESPONSES) >= 4:
            _RESPONSES.pop(next(iter(_RESPONSES)))
        terminal = TG.utility_terminal(w)
        if engine == "numpy" and start is not None:
            _RESPONSES[key] = response_numpy(rules, w, start, channels="reached")
        else:
            _ready(jax_setup)
            if start is None:
                _RESPONSES[key] = TG.solve_target(rules, dtype="float64", chunk=chunk, devices=devices, keep="all", prefilled=int(filled), terminal=terminal)
            else:
                _RESPONSES[key] = TG.solve_target(rules, dtype="float64", chunk=chunk, devices=devices, keep="all", start=start, shapes="bucket", terminal=terminal)
    return _RESPONSES[key]


def response_numpy(rules: CategoryRules, w: np.ndarray, start: tuple[int, int, int], *, channels: str = "all"):
    """``response_table(rules, start[0], w, start=start)`` in NumPy (float64, no compiling, no
    JAX): the target recursion with the terminal ``utility_terminal(w)`` over the states my game
    reaches from ``start``, layer by layer, in batches of states. The turn is
    ``target.stage_targets``' (the best box per target after each throw, ``dice.reroll`` per
    re-throw, the Im-Hieb fill after the first throw, ``dice.throw_mean``) on
    ``solver.moves(..., xp=np)``.

    ``channels``: ``all`` computes every channel t of every state (the compiled step's table);
    ``reached`` only the channels a game from ``start`` can ask a state for: t >= K - (the most
    points it can have scored since ``start``, ``most_points``), K = len(w) - 1; the other
    entries are NaN. The start's ``V[K]`` and every option of its situations
    (``option_vectors``, which read channels K - r of the next layer) are the same; at the 6-open
    speed position of results/winning/ it is a third of the work."""
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.games.category.objectives.distribution import LayerTables, max_turn_reward, reach_rows, sub_layer_states

    if channels not in ("all", "reached"):
        raise JaxsolveError(f"channels must be all or reached, got {channels!r}")
    start = (int(start[0]), int(start[1]), int(start[2]))
    terminal = TG.utility_terminal(w)
    lo, hi = float(terminal.min()), float(terminal.max())
    width, lead, nb = len(terminal), max_turn_reward(rules), rules.num_boxes
    sp = tables.space(rules.dice)
    rows = reach_rows(rules, start)
    first = bin(start[0]).count("1")
    layers: list = [None] * (nb + 1)
    layers[nb] = np.broadcast_to(terminal, (len(sub_layer_states(rules, nb, start[0], start)[0]), width)).copy()
    for layer in range(nb - 1, first - 1, -1):
        f, u, h = (np.asarray(x, np.int32) for x in sub_layer_states(rules, layer, start[0], start))
        padded = TG._pad_terminal(layers[layer + 1], lead, width)
        need = np.full(len(f), width) if channels == "all" else np.minimum(most_points(rules, start, tables.EngineState(f, u, h)) + 1, width)
        out = np.full((len(f), width), np.nan)
        order = np.argsort(-need, kind="stable")
        i = 0
        while i < len(order):  # batches of states, most channels first: a bounded working set
            batch = order[i: i + max(1, NUMPY_CHUNK_VALUES // (sp.num_throws * int(need[order[i]])))]
            c0 = width - int(need[batch[0]])
            out[batch, c0:] = TG.turn_target_numpy(rules, rows, padded, tables.EngineState(f[batch], u[batch], h[batch]), lo, hi, c0)
            i += len(batch)
        out[np.arange(width)[None, :] < (width - need)[:, None]] = np.nan  # a batch computes its widest state's channels
        layers[layer] = out
    out_table = LayerTables(rules, layers, rows, "target", prefilled=start[0], start=start, device="numpy")
    out_table.terminal = terminal
    return out_table


def response_work(rules: CategoryRules, start: tuple[int, int, int], top: int) -> int:
    """How many state-channel values ``response_numpy(..., channels='reached')`` computes for a
    utility over the points 0..``top`` (the measured cost per value: results/winning/)."""
    from jaxsolve.games.category.objectives.distribution import sub_layer_states

    start = (int(start[0]), int(start[1]), int(start[2]))
    work = 0
    for layer in range(bin(start[0]).count("1"), rules.num_boxes):
        f, u, h = sub_layer_states(rules, layer, start[0], start)
        work += int(np.minimum(most_points(rules, start, tables.EngineState(f, u, h)) + 1, top + 1).sum())
    return work


def most_points(rules: CategoryRules, start: tuple[int, int, int], state: tables.EngineState) -> np.ndarray:
    """``[B]``: a bound of the points scored between ``start`` and each state of its game: the
    most each box filled since can take, the extra bonus on every turn since where the all-same
    box holds its points, the upper bonus where it was earned since and the larger Im-Hieb bonus
    per turn. A move scoring r points from one state to the next raises the bound by at least r,
    so the channels ``t >= K - most_points`` of a state read only those of the next state."""
    from jaxsolve.games.category.objectives.distribution import box_max_points

    f0, u0 = int(start[0]), int(start[1])
    filled, upper, all_same_held = state
    filled = np.asarray(filled, np.int64)
    new = ((filled[:, None] & ~f0) >> np.arange(rules.num_boxes)) & 1
    turns = new.sum(1)
    crossed = (u0 < rules.upper_threshold) & (np.asarray(upper) >= rules.upper_threshold)
    instant = max(rules.instant_all_same, rules.instant_other)
    return new @ box_max_points(rules) + rules.extra_bonus * turns * (np.asarray(all_same_held) == 1) + rules.upper_bonus * crossed + instant * turns


def target_table(rules: CategoryRules, filled: int, *, chunk: int = CHUNK, devices=1, jax_setup: Callable[[], Any] | None = None):
    """The step target table (``V[k]`` = max P(at least k more)) over the subgame of ``filled``,
    once per process (it serves every opponent and every score); solved with JAX (``jax_setup``:
    called first)."""
    from jaxsolve.games.category.objectives import target as TG

    key = (rules, int(filled))
    if key not in _TABLES:
        _ready(jax_setup)
        _TABLES[key] = TG.solve_target(rules, dtype="float64", chunk=chunk, devices=devices, keep="all", prefilled=int(filled))
    return _TABLES[key]


def stored_target_table(rules: CategoryRules, game: str | None, layers) -> Any:
    """The whole game's step target table that ``jaxsolve target-table GAME`` keeps in the
    solution store (``target.store_path``), its ``layers`` memory-mapped (a question reads the
    few rows it needs); None where the store holds none."""
    from jaxsolve.games.category.objectives import target as TG
    from jaxsolve.io import cache

    if game is None or not cache.enabled():
        return None
    path = TG.store_path(game, rules)
    if not path.is_file():
        return None
    table = TG.load_table(path, game=game, rules=rules, layers=layers, mmap=True)
    cache.note(f"using the target table {path}")
    return table


def _padded(nxt: np.ndarray, lead: int, width: int) -> np.ndarray:
    """The next layer's vectors with ``lead`` copies of channel 0 on the left (a box worth r
    takes t to max(t - r, 0)) and zeros on the right up to ``width`` (targets out of reach)."""
    nxt = np.asarray(nxt)
    right = np.zeros((len(nxt), max(0, width - nxt.shape[1])), nxt.dtype)
    return np.concatenate([np.repeat(nxt[:, :1], lead, axis=1), nxt, right], axis=1)


@dataclass
class OptionVectors:
    """Every option of a situation with its vector over the channel t (``[options, width]``)."""

    options: list  # advisor.Option with value 0 (filled in by ``ranked``)
    vectors: np.ndarray
    keys: list  # the policy's tie preference of each option

    def ranked(self, values) -> list:
        """The options with these values, best first (ties as ``policy.rank_with_ties``), each
        with its loss against the best."""
        items = [(float(v), key, dataclasses.replace(o, value=float(v))) for v, key, o in zip(values, self.keys, self.options)]
        ranked = policy.rank_with_ties(items, np.dtype(np.float64))
        best = ranked[0].value
        return [Option(o.kind, o.value, max(best - o.value, 0.0), o.keep, o.rethrow, o.box, o.points) for o in ranked]


def option_vectors(table, filled: int, upper: int, all_same_held: int, faces, throws_left: int) -> OptionVectors:
    """The vector of every option (each legal box; with a re-throw left, each keep of fewer
    than all dice) of one situation, from a target table (step or terminal) of its subgame
    (``target.situation``: one state's turn in NumPy, no compiling)."""
    from jaxsolve.games.category.objectives import target_situation

    rules = table.rules
    return situation_options(rules, target_situation.situation(table, filled, min(upper, rules.upper_threshold), all_same_held, faces, throws_left))


def situation_options(rules: CategoryRules, got) -> OptionVectors:
    """The options of a ``target_situation.Situation`` (each box legal at channel K, the last,
    which every table holds; each keep of fewer than all dice where a re-throw is left)."""
    sp = tables.space(rules.dice)
    opts, vecs, keys = [], [], []
    for b in range(rules.num_boxes):
        if got.fills[b, -1] >= 0:  # (a response of the reached channels only: NaN below K)
            opts.append(Option("box", 0.0, 0.0, box=rules.box_names[b], points=int(got.points[b])))
            vecs.append(got.fills[b])
            keys.append((0, -rules.dice, b))
    if got.keeps is not None:
        for k in sorted({int(k) for k in sp.subkeeps[got.throw]}):
            n = int(sp.keeps[k].sum())
            if n < rules.dice:
                opts.append(Option("keep", 0.0, 0.0, keep=tuple(sp.faces_of(sp.keeps[k])), rethrow=rules.dice - n))
                vecs.append(got.keeps[k])
                keys.append((1, -n, k))
    return OptionVectors(opts, np.asarray(vecs, np.float64), keys)


# ----------------------------------------------------------------------------- advice


@dataclass
class WinAdvice:
    """Every option of a turn ranked by my probability to finish first, best first."""

    rules: CategoryRules
    position: object
    dice: tuple
    throws_left: int
    score: int
    opponents: list
    ties: str
    method: str
    value: float
    options: list = field(default_factory=list)
    before_turn: float | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "rules": self.rules.name,
            "objective": "win",
            "method": self.method,
            "ties": self.ties,
            "position": str(self.position),
            "score": self.score,
            "opponents": [{"position": str(o.position), "score": o.score} for o in self.opponents],
            "dice": list(self.dice),
            "throws_left": self.throws_left,
            "value": self.value,
            "seconds": self.seconds,
            "options": [o.to_dict() for o in self.options],
        }


def advise_win(
    rules: CategoryRules,
    position,
    dice,
    throws_left: int | None,
    opponents: list[Opponent],
    *,
    score: int | None = None,
    ties: str = "share",
    method: str = "auto",
    sol=None,
    game: str | None = None,
    table=None,
    engine: str = "auto",
    jax_setup: Callable[[], Any] | None = None,
) -> WinAdvice:
    """Rank every option of a turn by my probability to finish first against ``opponents``
    (each playing the rest of his game for expected points).

    ``method``: ``exact`` solves the best response over the states my game reaches; ``table``
    weights a step target table: ``table``, else the whole game's in the solution store
    (``game``'s, ``stored_target_table``), else my subgame's, solved and kept per process;
    ``auto``: exact with at most ``EXACT_MAX_OPEN`` open boxes, else the table.

    ``engine``: how the opponents' distributions and my exact response are computed: ``auto``
    (NumPy for small games, ``NUMPY_MAX_OPPONENT_STATES`` and ``NUMPY_MAX_RESPONSE_WORK``,
    else JAX), ``numpy`` or ``jax``. Where everything is NumPy, with the score table in the
    solution store (and, for ``table``, the whole game's target table there), JAX is not even
    imported. ``jax_setup``: called once before JAX is first used (the command line's deferred
    set-up: float64 and the compilation cache).
    """
    t0 = time.perf_counter()
    jax_setup = _once(jax_setup)
    if method not in METHODS:
        raise JaxsolveError(f"unknown method {method!r}; choose {', '.join(METHODS)}")
    if not opponents:
        raise JaxsolveError("give at least one opponent")
    faces = tuple(sorted(int(x) for x in dice))
    if len(faces) != rules.dice or any(not 1 <= x <= 6 for x in faces):
        raise PositionError(f"need {rules.dice} dice showing 1..6, got {list(dice)}")
    left = check_throws_left(throws_left, rules, faces)
    f, u, h = position.state(rules)
    if f == rules.full_mask:
        raise PositionError("the game is over: every box is filled")
    mine = my_score(rules, position, score)
    finals = [final_distribution(rules, o, sol, game=game, engine=engine, jax_setup=jax_setup) for o in opponents]
    util = win_utility(finals, ties)
    w = utility_of_points(rules, position, mine, util)
    n_open = rules.num_boxes - bin(f).count("1")
    if method == "auto":
        method = "exact" if n_open <= EXACT_MAX_OPEN else "table"
    if method == "exact":
        tab = response_table(rules, f, w, start=(f, u, h), engine=engine, jax_setup=jax_setup)
        ov = option_vectors(tab, f, u, h, faces, left)
        values = ov.vectors[:, len(w) - 1]
        before = float(tab.at(f, u, h)[len(w) - 1])
    else:
        layer = bin(f).count("1")
        tab = table if table is not None else stored_target_table(rules, game, (layer, layer + 1))
        tab = tab if tab is not None else target_table(rules, f, jax_setup=jax_setup)
        ov = option_vectors(tab, f, u, h, faces, left)
        values = table_values(ov.vectors, w)
        before = float(table_values(tab.at(f, u, h)[None, :], w)[0])
    options = ov.ranked(np.clip(values, 0.0, 1.0))  # probabilities: means and maxima of them, rounding taken off
    return WinAdvice(rules, position, faces, left, mine, list(opponents), ties, method, options[0].value, options, before, time.perf_counter() - t0)


def table_values(vectors: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``w[0] + sum_k (w[k] - w[k-1]) V[k]``: E[w] if each target k were met with probability
    ``V[k]`` (max P(at least k more points)); the table's answer, an upper bound of the exact one."""
    vectors = np.asarray(vectors, np.float64)
    n = min(vectors.shape[1], len(w))
    dw = np.diff(np.asarray(w, np.float64)[:n])
    return w[0] + vectors[:, 1:n] @ dw


def describe(advice: WinAdvice) -> tuple[str, ...]:
    """The heading lines of an answer."""
    opp = "; ".join(f"{o.position} = {o.score}" for o in advice.opponents)
    how = "exact best response" if advice.method == "exact" else "target table (upper bound)"
    return (
        f"{advice.rules.name}, P(finish first) vs {len(advice.opponents)} expected-score player(s), ties {advice.ties}, {how}",
        f"me: {advice.position} = {advice.score}; opponents: {opp}",
        f"dice {format_dice(advice.dice)}, {advice.throws_left} re-throw{'s' if advice.throws_left != 1 else ''} left",
    )
