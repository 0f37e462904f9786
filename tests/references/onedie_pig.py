"""A game defined entirely in the test suite: two-player Pig with one die of ``sides`` faces, a
1 loses the turn total, the first to bank ``goal`` wins (no last turn).

It is written on the fixpoint core and registered like any game (rules, sweep, registration, a
play class), with no file under ``jaxsolve/`` changed: the evidence that a new game is one
folder. Its value is the win probability of the player to move at (my banked score, their banked
score, my turn total); jaxsolve's own Pig family (``raab`` with ``--rules pig``) solves the same
game another way, which the tests compare value by value.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from jaxsolve.core.rules import Presets, Rules, RulesError, option
from jaxsolve.errors import JaxsolveError
from jaxsolve.games import Advice, Command, Game, Param, Ranked, Report
from jaxsolve.games.played import PlayError, PlayOption, PlayedGame, Summary


@dataclass(frozen=True)
class OneDieRules(Rules):
    goal: int = option(8, "Banked score that wins.", min=2, max=60)
    sides: int = option(4, "Faces of the die.", min=2, max=12)

    def __post_init__(self):
        if not 2 <= self.goal <= 60 or not 2 <= self.sides <= 12:
            raise RulesError(f"goal 2..60 and sides 2..12, got {self.goal} and {self.sides}")


PRESETS = Presets("one-die Pig", {"d4-to-8": OneDieRules("d4-to-8"), "d6-to-12": OneDieRules("d6-to-12", goal=12, sides=6)})


@dataclass(frozen=True)
class Solution:
    rules: OneDieRules
    values: np.ndarray  # [goal, goal, goal]: mine, theirs, turn total; NaN where mine + turn >= goal
    iterations: int
    compile_seconds: float
    solve_seconds: float

    @property
    def game_value(self) -> float:
        return float(self.values[0, 0, 0])

    def options(self, mine: int, theirs: int, turn: int) -> dict[str, float]:
        """Win probability of rolling and of holding (None at a turn start, where one must roll)."""
        r, p = self.rules, self.values
        roll = (1.0 - p[theirs, mine, 0]) / r.sides
        for f in range(2, r.sides + 1):
            roll += (1.0 if mine + turn + f >= r.goal else p[mine, theirs, turn + f]) / r.sides
        hold = None if turn == 0 else 1.0 - p[theirs, mine + turn, 0]
        return {"roll": float(roll), "hold": None if hold is None else float(hold)}


def sweep(values, valid, goal: int, sides: int, xp=None):
    """One Bellman sweep over every state at once (arrays, no loop over states); states that are
    not positions (``valid`` false) hold 0. ``xp``: the array module (default ``jax.numpy``;
    the loader's check runs it in NumPy)."""
    if xp is None:
        import jax.numpy as xp

    g = values.shape[0]
    mine = xp.arange(g)[:, None, None]
    theirs = xp.arange(g)[None, :, None]
    turn = xp.arange(g)[None, None, :]
    v = values
    roll = (1.0 - v[theirs, mine, 0]) / sides
    for f in range(2, sides + 1):
        nxt = turn + f
        reached = mine + nxt >= goal
        roll = roll + xp.where(reached, 1.0, v[mine, theirs, xp.minimum(nxt, g - 1)]) / sides
    banked = xp.minimum(mine + turn, g - 1)
    hold = xp.where(mine + turn >= goal, 1.0, 1.0 - v[theirs, banked, 0])
    best = xp.where(turn == 0, roll, xp.maximum(roll, hold))
    return xp.where(valid, best, 0.0)


def solve(rules: OneDieRules, *, dtype="float64", device=None, tol=None) -> Solution:
    import jax
    import jax.numpy as jnp

    from jaxsolve.core.fixpoint import solve_fixpoint

    valid = reachable(rules)
    tol = tol if tol is not None else (1e-12 if np.dtype(dtype) == np.float64 else 1e-6)
    init = jax.device_put(jnp.where(valid, 0.5, 0.0).astype(dtype), device)
    run = solve_fixpoint(
        ("one-die-pig", rules), lambda v, ok: sweep(v, ok, rules.goal, rules.sides), init, jax.device_put(valid, device), tol=tol, max_iter=10_000
    )
    return Solution(rules, np.where(valid, np.asarray(run.values), np.nan), run.iterations, run.compile_seconds, run.solve_seconds)


def save(path, sol: Solution):
    from jaxsolve.io import export

    return [export.save(path, sol.values, {"game": "one-die-pig", "rules": sol.rules.to_dict(), "game_value": sol.game_value})]


def load(path) -> Solution:
    from jaxsolve.io import export

    values, meta = export.load(path, game="one-die-pig")
    rules = export.rules_from(path, meta, OneDieRules)
    export.check_preset_name(path, "one-die-pig", rules, PRESETS)
    valid = reachable(rules)
    export.check_array(path, values, shape=valid.shape, dtypes=("float32", "float64"), defined=valid, low=0.0, high=1.0, what=rules.name)
    bellman_check(path, values, rules)
    return Solution(rules, values, 0, 0.0, 0.0)


def bellman_check(path, values: np.ndarray, rules: OneDieRules) -> None:
    """Refuse values that are not a fixpoint of the Bellman equations of ``rules`` (the rules
    the sidecar names): one sweep (``sweep``, in NumPy, in float64) must leave every position's
    value unchanged, within the solve's tolerance."""
    valid = reachable(rules)
    held = np.where(valid, values, 0.0).astype(np.float64)
    again = sweep(held, valid, rules.goal, rules.sides, xp=np)
    tol = 1e-9 if values.dtype == np.float64 else 1e-4
    worst = float(np.max(np.abs(again - held)))
    if worst > tol:
        raise JaxsolveError(f"{path}: the values are not a solution of the rules {rules.name} its sidecar names (one Bellman sweep changes a value by {worst:.2e})")


def reachable(rules: OneDieRules) -> np.ndarray:
    idx = np.arange(rules.goal)
    return np.broadcast_to(idx[:, None, None] + idx[None, None, :] < rules.goal, (rules.goal,) * 3)


# ----------------------------------------------------------------------------- commands


def solve_command(rules, *, dtype, device, quiet, out):
    sol = solve(rules, dtype=dtype, device=device)
    files = save(out, sol) if out is not None else []
    line = f"{rules.name}: the start player wins with {sol.game_value:.12f}"
    return Report((line,), {"rules": rules.to_dict(), "game_value": sol.game_value, "out": [str(f) for f in files]}, (f"{sol.iterations} sweeps",))


def advise_command(rules, *, rules_given, table, dtype, setup, quiet, mine, theirs, turn):
    if table is not None:
        sol = load(table)
    else:
        setup()
        sol = solve(rules, dtype=dtype)
    if not (0 <= mine < sol.rules.goal and 0 <= theirs < sol.rules.goal and 0 <= turn and mine + turn < sol.rules.goal):
        raise JaxsolveError(f"no such position: mine {mine}, theirs {theirs}, turn {turn} (goal {sol.rules.goal})")
    opts = {k: v for k, v in sol.options(mine, theirs, turn).items() if v is not None}
    best = max(opts.values())
    ranked = tuple(Ranked(k, v, best - v) for k, v in sorted(opts.items(), key=lambda kv: -kv[1]))
    return Advice((f"{sol.rules.name}: mine {mine}, theirs {theirs}, turn total {turn}",), ranked, "win probability", best)


# ----------------------------------------------------------------------------- play


@dataclass(frozen=True)
class State:
    you: int
    them: int
    turn: int
    mover: str
    rolled: bool = False
    winner: str | None = None


class OneDiePigGame(PlayedGame):
    """You against the optimal bot; the player to move throws, then rolls again or holds."""

    unit = "win probability"
    rules_type = OneDieRules

    def __init__(self, game, rules, solution=None, *, seed=None, auto_roll=False):
        super().__init__(game, rules, solution if solution is not None else solve(rules), seed=seed, auto_roll=auto_roll)

    def initial_state(self):
        return State(0, 0, 0, "you")

    def awaiting(self):
        return "over" if self.state.winner else ("choice" if self.state.rolled else "dice")

    def mover(self):
        return self.state.mover

    def throw_size(self):
        return 1

    def sides(self):
        return self.rules.sides

    def _view(self, s):
        return (s.you, s.them) if s.mover == "you" else (s.them, s.you)

    def apply(self, s, move):
        other = "them" if s.mover == "you" else "you"
        if move["action"] == "throw":
            face = int(move["dice"][0])
            if face == 1:
                return State(s.you, s.them, 0, other), f"{s.mover} threw 1: bust"
            turn = s.turn + face
            mine, _ = self._view(s)
            if mine + turn >= self.rules.goal:
                you, them = (s.you + turn, s.them) if s.mover == "you" else (s.you, s.them + turn)
                return State(you, them, 0, s.mover, False, s.mover), f"{s.mover} reached the goal"
            return dataclasses.replace(s, turn=turn, rolled=True), f"{s.mover} threw {face}: turn total {turn}"
        if not s.rolled:
            raise PlayError("a throw is due")
        if move["action"] == "roll":
            return dataclasses.replace(s, rolled=False), ""
        if move["action"] == "hold":
            you, them = (s.you + s.turn, s.them) if s.mover == "you" else (s.you, s.them + s.turn)
            return State(you, them, 0, other), f"{s.mover} banked {s.turn}"
        raise PlayError(f"unknown move {move['action']!r}")

    def ranked_options(self):
        mine, theirs = self._view(self.state)
        opts = {k: v for k, v in self.solution.options(mine, theirs, self.state.turn).items() if v is not None}
        best = max(opts.values())
        return [PlayOption(k, v, best - v, {"action": k}) for k, v in sorted(opts.items(), key=lambda kv: -kv[1])]

    def named_option(self, text, options):
        for o in options:
            if o.label == text.strip().lower():
                return o
        raise PlayError(f"unknown choice {text!r}: roll or hold")

    def advise_options(self):
        mine, theirs = self._view(self.state)
        return {"mine": mine, "theirs": theirs, "turn": self.state.turn}

    def auto_move(self):
        if self.state.mover == "them" and self.state.rolled:
            return dict(self.ranked_options()[0].move)
        return None

    def where(self):
        return f"you {self.state.you}, them {self.state.them}, turn total {self.state.turn}"

    def value_now(self):
        return None

    def status(self):
        s = self.state
        return [f"{self.rules.name}: you {s.you}, them {s.them}; {s.mover} to move, turn total {s.turn}"]

    def summary(self):
        won = self.state.winner == "you"
        return Summary(1.0 if won else 0.0, self.solution.game_value, self.regret, self.decisions(), self.unit, (f"you {'won' if won else 'did not win'}",))


GAME = Game(
    name="one-die-pig",
    title="Pig with one small die (defined in the test suite)",
    family="one-die-pig",
    core="fixpoint",
    presets=lambda: PRESETS,
    default="d4-to-8",
    small=lambda: PRESETS["d4-to-8"],
    solve=solve,
    values=lambda sol: sol.values,
    reachable=reachable,
    save=save,
    load=load,
    commands={
        "solve": Command(solve_command, help="Win probability of the start player under optimal play by both."),
        "advise": Command(
            advise_command,
            (Param("mine", int, 0, "My banked score."), Param("theirs", int, 0, "Their banked score."), Param("turn", int, 0, "My turn total.")),
            help="Roll or hold, with both win probabilities.",
        ),
    },
    play_game=lambda: OneDiePigGame,
)
