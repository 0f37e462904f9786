"""The conformance checks every registered game passes, for a game's author to run on a new game.

``check_game(game)`` runs them all on a ``Game`` (``jaxsolve.games.game``); each check is also a
function of its own. A check raises ``AssertionError`` with a message naming the game and what
failed, so it runs under any test runner or none::

    from jaxsolve import games, testing

    games.register(MY_GAME)
    testing.check_game(games.get_game(MY_GAME.name), dtype="float32")

What is checked, on the game's small rules (``Game.small``):

- ``check_registration``: the registration is complete (core, default preset, rules values);
- ``check_solve``: values in the dtype asked for, finite exactly on the reachable states (NaN
  elsewhere), the same values from a second solve, which compiles nothing;
- ``check_export``: the export (``Game.save`` / ``Game.load``) gives the values and rules back,
  refuses an edited sidecar and one resealed under another game's name
  (``check_export_proves_itself``), and recomputes values from the rules its sidecar names
  (``check_export_resealed``): a sidecar rewritten whole (its hash recomputed) naming other
  valid rules of the game is refused, unless those rules have the very same solution;
- ``check_rules``: every preset goes through its metadata (``to_dict`` / ``from_dict``) unchanged;
- ``check_play`` (games with a play class, ``Game.play_game``): seeded games played to the end,
  once with the best option every time and once with random options (``policy``). At every
  decision the ranked options have regret >= 0 and the first regret 0; where the play class
  says which question of the game's ``advise`` command a decision is
  (``PlayedGame.advise_options``), ``advise`` ranks a regret-0 option first and gives the same
  options with the same values. The finished game, and a game stopped halfway, are saved,
  loaded and replayed to the same state, moves and save file; a decision taken back
  (``undo``) leaves the state it was taken in.

The checks play few and short games, so that they stay quick.
"""

from __future__ import annotations

import json
import math
import re
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from jaxsolve.core.rules import Rules
from jaxsolve.errors import JaxsolveError
from jaxsolve.games.game import Advice, Game

__all__ = [
    "CORES",
    "POLICIES",
    "check_advice",
    "check_export",
    "check_export_proves_itself",
    "check_export_resealed",
    "check_game",
    "check_options",
    "check_play",
    "check_registration",
    "check_replay",
    "check_rules",
    "check_solve",
]

CORES = ("layered", "fixpoint")
POLICIES = ("best", "random")
MAX_MOVES = 20_000
"""A played game that has not ended after this many moves fails ``check_play``."""
VALUE_RTOL = {"float32": 1e-5, "float64": 1e-9}
"""Relative tolerance (of ``max(1, |value|)``), by the precision of ``advise``, at which
``advise`` and play agree on an option's value and a regret is the first value minus the option's."""


def _fail(game: Game, what: str) -> AssertionError:
    return AssertionError(f"{game.name}: {what}")


def _check(ok: Any, game: Game, what: str) -> None:
    if not ok:
        raise _fail(game, what)


def _refused(game: Game, call: Callable[[], Any], pattern: str, what: str) -> None:
    """``call()`` raises a ``JaxsolveError`` whose message matches ``pattern``."""
    try:
        call()
    except JaxsolveError as exc:
        _check(re.search(pattern, str(exc)), game, f"{what}: refused with {str(exc)!r}, expected a message matching {pattern!r}")
        return
    raise _fail(game, f"{what}: not refused")


# ----------------------------------------------------------------------------- the registration, solve, export


def check_registration(game: Game) -> None:
    """The registration names a known core, a default among its presets, rules values."""
    _check(game.core in CORES, game, f"core {game.core!r} is not one of {', '.join(CORES)}")
    _check(game.default in game.presets(), game, f"default preset {game.default!r} is not among its presets {', '.join(game.presets())}")
    _check(isinstance(game.get_rules(), Rules), game, "its default preset is not a Rules value")
    _check(isinstance(game.small(), Rules), game, "its small rules are not a Rules value")


def check_solve(game: Game, dtype: str = "float64") -> None:
    """Values of the small rules in ``dtype``, finite exactly on the states, the same from a
    second solve, which compiles nothing."""
    from jaxsolve.core.compile import cache_size

    rules = game.small()
    first = game.solve(rules, dtype=dtype)
    before = cache_size()
    second = game.solve(rules, dtype=dtype)
    _check(cache_size() == before and second.compile_seconds == 0.0, game, f"a second solve in {dtype} compiled again")
    values = np.asarray(game.values(second))
    _check(values.dtype == np.dtype(dtype), game, f"values of a {dtype} solve are {values.dtype}")
    _check(np.array_equal(values, np.asarray(game.values(first)), equal_nan=True), game, f"two solves in {dtype} give different values")
    if game.reachable is not None:
        mask = np.asarray(game.reachable(rules))
        _check(mask.shape == values.shape, game, f"reachable mask of shape {mask.shape}, values of shape {values.shape}")
        _check(np.isfinite(values[mask]).all(), game, f"{int((~np.isfinite(values[mask])).sum())} reachable states without a finite value")
        _check(np.isnan(values[~mask]).all(), game, f"{int((~np.isnan(values[~mask])).sum())} unreachable entries not NaN")
    else:
        _check(np.isfinite(values).all(), game, f"{int((~np.isfinite(values)).sum())} values not finite")
    _check(math.isfinite(second.game_value), game, f"game value {second.game_value!r} not finite")


def check_export(game: Game, dtype: str = "float64", folder: str | Path | None = None, *, resealed: bool = True) -> None:
    """The export of the small rules' solution in ``dtype`` loads back with the same values
    and rules, is bound to its game (``check_export_proves_itself``) and (``resealed``) to its
    rules by its values (``check_export_resealed``). Files go to ``folder`` (default: a
    temporary folder)."""
    if game.save is None or game.load is None:
        return
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="jaxsolve-check-") as tmp:
            check_export(game, dtype, tmp, resealed=resealed)
        return
    rules = game.small()
    sol = game.solve(rules, dtype=dtype)
    path = Path(folder) / f"{game.name}.npy"
    game.save(path, sol)
    meta = json.loads(path.with_suffix(".json").read_text())
    _check(meta.get("rules") == json.loads(json.dumps(rules.to_dict())), game, "the export's sidecar does not hold the rules solved")
    back = game.load(path)
    _check(np.array_equal(np.asarray(game.values(back)), np.asarray(game.values(sol)), equal_nan=True), game, f"exported {dtype} values load back different")
    _check(back.rules == rules, game, f"exported rules load back as {back.rules!r}")
    check_export_proves_itself(game, path)
    if resealed:
        check_export_resealed(game, path, dtype)


def check_export_proves_itself(game: Game, path: str | Path) -> None:
    """The export at ``path`` is bound to its game and its sidecar to its own hash
    (``jaxsolve.io.export``): an edited sidecar, and one resealed under another game's name,
    are refused; the files are restored afterwards."""
    from jaxsolve.io import export

    assert game.load is not None
    load = game.load
    sides = _sidecars(game, path)
    original = {side: side.read_text() for side in sides}
    try:
        meta = json.loads(original[sides[0]])
        sides[0].write_text(json.dumps({**meta, "note": "edited"}))
        _refused(game, lambda: load(path), "has been edited", "an edited sidecar")
        for side in sides:
            side.write_text(json.dumps(export.seal({**json.loads(original[side]), "game": "another-game"})))
        _refused(game, lambda: load(path), f"holds a table of 'another-game'.*not {re.escape(game.name)}", "a sidecar resealed under another game's name")
    finally:
        for side, text in original.items():
            side.write_text(text)


def _sidecars(game: Game, path: str | Path) -> list[Path]:
    """The sidecars of the export at ``path``: one per file ``Game.outputs`` names that has one."""
    from jaxsolve.io import export

    files = game.outputs(path) if game.outputs else [path]
    return [export.sidecar_path(p) for p in files if str(p).endswith(".npy") and export.sidecar_path(p).is_file()]


MAX_RESEALED = 12
"""Most other rules ``check_export_resealed`` tries."""


def other_rules(game: Game, rules: Rules) -> list[Rules]:
    """Valid rules of ``game`` that differ from ``rules`` in one field, the value one of the
    field's choices or taken from one of the game's presets (at most ``MAX_RESEALED``), named ``<name>-resealed`` (not a preset's
    name, so the loader must tell them by their values)."""
    import dataclasses

    found: list[Rules] = []
    seen = {json.dumps(rules.to_dict(), sort_keys=True, default=str)}
    changes = [(f.name, choice) for f in dataclasses.fields(rules) for choice in f.metadata.get("choices", ())]
    changes += [(f.name, getattr(game.get_rules(p), f.name)) for p in game.presets() for f in dataclasses.fields(rules)]
    for name, value in changes:
        if name != "name" and value != getattr(rules, name):
            try:
                candidate = rules.replace(name=f"{rules.name}-resealed", **{name: value})
            except (JaxsolveError, ValueError, TypeError):
                continue
            key = json.dumps({**candidate.to_dict(), "name": rules.name}, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found[:MAX_RESEALED]


def check_export_resealed(game: Game, path: str | Path, dtype: str | None = None) -> None:
    """The export at ``path`` is refused when its sidecars are
    rewritten whole, hashes recomputed, to name other valid rules of the game (``other_rules``):
    the loader recomputes values from the rules the sidecar names. Rules whose solution is the
    very same (a rule that never binds) may be accepted, and only then; the files are restored
    afterwards."""
    from jaxsolve.io import export

    assert game.load is not None
    load = game.load
    sides = _sidecars(game, path)
    original = {side: side.read_text() for side in sides}
    rules = type(game.small()).from_dict(json.loads(original[sides[0]])["rules"])
    candidates = other_rules(game, rules)
    _check(candidates, game, "no other valid rules to reseal the export with (its presets differ in no field that can be changed alone)")
    try:
        for other in candidates:
            for side in sides:
                side.write_text(json.dumps(export.seal({**json.loads(original[side]), "rules": other.to_dict()})))
            try:
                back = load(path)
            except JaxsolveError:
                continue
            # accepted: right only if these rules have the same solution
            held = np.asarray(game.values(back))
            dtype = dtype or str(held.dtype)
            solved = np.asarray(game.values(game.solve(other, dtype=dtype)))
            tol = 1e-9 if dtype == "float64" else 1e-4
            _check(
                solved.shape == held.shape and np.allclose(solved, held, rtol=tol, atol=tol, equal_nan=True),
                game,
                f"a sidecar resealed with other rules ({other!r}) is accepted, although its values are not their solution",
            )
    finally:
        for side, text in original.items():
            side.write_text(text)


def check_rules(game: Game) -> None:
    """Every preset goes through its metadata unchanged, with the same hash."""
    for name in game.presets():
        rules = game.get_rules(name)
        back = type(rules).from_dict(json.loads(json.dumps(rules.to_dict())))
        _check(back == rules, game, f"preset {name!r} comes back from its metadata as {back!r}")
        _check(hash(back) == hash(rules), game, f"preset {name!r} has another hash after its metadata")


# ----------------------------------------------------------------------------- play


def check_options(game: Game, options: list, where: str, rtol: float = VALUE_RTOL["float32"]) -> None:
    """Ranked options (``PlayOption`` or ``Ranked``): at least one, every regret >= 0, the
    first exactly 0, each regret the first value minus the option's (0 for one worth a
    rounding error more: a tie), up to ``rtol * max(1, |first value|)``."""
    _check(options, game, f"{where}: no options at a decision")
    best = options[0]
    _check(best.regret == 0.0, game, f"{where}: the first option {best.label!r} has regret {best.regret!r}, not 0")
    tol = rtol * max(1.0, abs(best.value))
    for o in options:
        _check(o.regret >= 0.0, game, f"{where}: option {o.label!r} has regret {o.regret!r} < 0 (value {o.value!r}, the first {best.value!r})")
        _check(
            abs(o.regret - max(best.value - o.value, 0.0)) <= tol,
            game,
            f"{where}: option {o.label!r} has regret {o.regret!r}, but the values are {best.value!r} (first) and {o.value!r}",
        )


def check_advice(game: Game, played, dtype: str | None = None) -> bool:
    """At a decision of ``played`` that the play class can put to ``advise``
    (``PlayedGame.advise_options``), the game's ``advise`` command (in ``dtype``, default its
    precision) gives an ``Advice`` whose options are ranked (``check_options``) and are the
    play's options with the same values (``VALUE_RTOL``). Returns whether ``advise`` was asked."""
    command = game.commands.get("advise")
    asked = played.advise_options()
    if command is None or asked is None:
        return False
    where = f"advise at {played.where()}"
    options = {p.name: p.default for p in command.params}
    unknown = set(asked) - set(options)
    _check(not unknown, game, f"{where}: the play class asks with options advise does not take: {', '.join(sorted(unknown))}")
    options.update(asked)
    if dtype is None:
        dtype = command.precision if command.precision in VALUE_RTOL else game.precision
    result = command.run(played.rules, rules_given=True, table=None, dtype=dtype, setup=lambda jax=True: None, quiet=True, **options)
    _check(isinstance(result, Advice), game, f"{where}: advise returned {type(result).__name__}, not an Advice")
    check_options(game, list(result.options), where)
    ours = {o.label: o.value for o in played.options()}
    theirs = {o.label: o.value for o in result.options}
    _check(set(ours) == set(theirs), game, f"{where}: advise's options {sorted(theirs)} are not the play's {sorted(ours)}")
    rtol = VALUE_RTOL.get(dtype, VALUE_RTOL["float32"])
    for label, value in ours.items():
        _check(
            abs(theirs[label] - value) <= rtol * max(1.0, abs(value)),
            game,
            f"{where}: option {label!r} is worth {theirs[label]!r} to advise and {value!r} in play",
        )
    return True


def _snapshot(played) -> tuple:
    return played.state, json.dumps(played.moves, sort_keys=True, default=float), played.over


def check_replay(game: Game, played, folder: str | Path) -> None:
    """``played`` saved (``jaxsolve.play.save_game``), loaded and replayed comes back to the
    same state, moves and save file; so does its save file's content read directly."""
    from jaxsolve import play

    path = Path(folder) / f"{game.name}-{len(played.moves)}.json"
    play.save_game(played, path)
    loaded = play.load_game(path, game=game.name, solution=played.solution)
    _check(_snapshot(loaded) == _snapshot(played), game, f"the game saved after {len(played.moves)} moves loads back to another state")
    _check(loaded.to_json() == json.loads(path.read_text()), game, f"the game loaded after {len(played.moves)} moves saves differently")
    replayed = play.game_from_json(played.to_json(), game=game.name, solution=played.solution)
    _check(_snapshot(replayed) == _snapshot(played), game, f"the game replayed after {len(played.moves)} moves comes to another state")


def check_play(
    game: Game,
    policy: str = "best",
    seed: int = 0,
    folder: str | Path | None = None,
    *,
    settings: dict | None = None,
    solution=None,
    advise_decisions: int | None = None,
    max_moves: int = MAX_MOVES,
):
    """One seeded game of ``game`` on its small rules played to the end with the virtual dice,
    choosing the best option (``policy="best"``) or a random one (``"random"``, seeded by
    ``seed``) at every decision of yours: the options checked at every decision
    (``check_options``), ``advise`` asked at the first ``advise_decisions`` decisions (None:
    every one) (``check_advice``), the game saved, loaded and replayed halfway and at the end
    (``check_replay``; files in ``folder``, default a temporary folder), a decision halfway
    taken back (``undo``). ``settings``: the play
    settings beside ``seed``; ``solution``: what the play class solves by itself, when at
    hand. Returns the finished game (a ``PlayedGame``); nothing for a game without a play class."""
    from jaxsolve import play

    if game.play_game is None:
        return None
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="jaxsolve-check-") as tmp:
            return check_play(game, policy, seed, tmp, settings=settings, solution=solution, advise_decisions=advise_decisions, max_moves=max_moves)
    played = play.new_game(game.name, game.small(), solution, seed=seed, **(settings or {}))
    rng = np.random.default_rng(seed)
    asked = 0
    saved: list[tuple[dict, tuple]] = []
    while not played.over:
        _check(len(played.moves) < max_moves, game, f"the game has not ended after {max_moves} moves ({policy} play, seed {seed})")
        where = f"{policy} play, seed {seed}, move {len(played.moves) + 1}"
        try:
            if played.awaiting() == "dice":
                played.throw(None)
                continue
            where += f" ({played.where()})"
            options = played.options()
            check_options(game, options, where)
            if advise_decisions is None or asked < advise_decisions:
                asked += check_advice(game, played)
            saved.append((played.to_json(), _snapshot(played)))
            pick = 1 if policy == "best" else int(rng.integers(len(options))) + 1
            chosen = played.choose(pick)
        except JaxsolveError as exc:
            raise _fail(game, f"{where}: {type(exc).__name__}: {exc}") from exc
        _check(chosen is options[pick - 1], game, f"{where}: choosing option {pick} played {chosen.label!r}")
    summary = played.summary()
    _check(math.isfinite(summary.score) and math.isfinite(summary.expected), game, f"the summary of a finished game is {summary.to_dict()}")
    _check(summary.regret >= 0.0, game, f"the regret of a finished game is {summary.regret!r} < 0")
    if policy == "best":
        _check(summary.regret == 0.0, game, f"a game of best choices has regret {summary.regret!r}")
    if saved:
        data, then = saved[len(saved) // 2]
        resumed = play.game_from_json(data, game=game.name, solution=played.solution)
        _check(_snapshot(resumed) == then, game, f"the game saved after {len(resumed.moves)} moves ({policy} play) replays to another state")
        resumed.choose(1)
        resumed.undo()
        _check(_snapshot(resumed) == then, game, f"a decision after {len(resumed.moves)} moves taken back (undo) leaves another state")
        check_replay(game, resumed, folder)
    check_replay(game, played, folder)
    return played


# ----------------------------------------------------------------------------- all of them


def check_game(game: Game, dtype: str = "float64", folder: str | Path | None = None, *, play: bool = True, seed: int = 0) -> None:
    """Every check on ``game``: registration, solve and export in ``dtype`` (the export's
    loader recomputing values from its rules included), rules through their metadata, and (``play``) a game of best and a game of random choices."""
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="jaxsolve-check-") as tmp:
            check_game(game, dtype, tmp, play=play, seed=seed)
        return
    check_registration(game)
    check_solve(game, dtype)
    check_export(game, dtype, folder)
    check_rules(game)
    if play and game.play_game is not None:
        first = check_play(game, "best", seed, folder)
        check_play(game, "random", seed, folder, solution=first.solution)
