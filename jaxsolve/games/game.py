"""What a game registers: the ``Game`` value and the plain data its hooks exchange with the
layers above (CLI, ``play``, ``jaxsolve bench``, the conformance tests).

Nothing here imports JAX, typer or a game: a game's package builds a ``Game`` from its own
functions, and the generic layers read it. Options a game adds to a generic command are
``Param`` values (typer-free); the CLI turns them into command-line options.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from jaxsolve.core.rules import Presets, Rules


@dataclass(frozen=True)
class Param:
    """One option a game adds to a generic command.

    Attributes:
        name: the Python keyword the game's hook receives.
        type: ``int``, ``float``, ``str``, ``bool`` or ``list`` (a repeatable ``str`` option).
        default: the value when the option is not given.
        help: the ``--help`` line.
        flags: the spellings (default ``--name`` with dashes); a bool option may be
            ``"--on/--off"``.
        aliases: old spellings that still work, hidden from ``--help``.
        choices: the allowed values of a ``str`` option.
        min, max: bounds of a number.
        required: the option must be given.
        argument: a positional argument (``list``: the rest of the command line).
    """

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    flags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    required: bool = False
    argument: bool = False

    @property
    def spellings(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)


@dataclass(frozen=True)
class Report:
    """What a command prints: ``lines`` always, ``details`` unless ``--quiet``, ``data`` as JSON
    with ``--json``."""

    lines: tuple[str, ...]
    data: dict
    details: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ranked:
    """One option of a position, ranked: ``value`` in the game's unit and ``regret`` = best value -
    value (0 for the best option and its ties); ``detail``: the game's own fields of the option
    (for JSON)."""

    label: str
    value: float
    regret: float
    detail: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"option": self.label, "value": self.value, "regret": self.regret, **self.detail}


@dataclass(frozen=True)
class Advice:
    """A position's options, best first, as every game's ``advise`` prints them.

    ``heading``: lines that say what was asked (rules, position, throw); ``value``: the position's
    value under optimal play (None where the game gives none); ``unit``: what a value means;
    ``data``: further JSON fields."""

    heading: tuple[str, ...]
    options: tuple[Ranked, ...]
    unit: str
    value: float | None = None
    data: dict = field(default_factory=dict)

    def to_dict(self, top: int | None = None) -> dict:
        return {**self.data, "value": self.value, "unit": self.unit, "options": [o.to_dict() for o in self.options[:top]]}


@dataclass(frozen=True)
class Batch:
    """Answers to many questions at once (``advise --batch``): one JSON object per question, in
    order; an answer with an ``error`` key makes the command exit with status 1."""

    answers: tuple[dict, ...]


@dataclass(frozen=True)
class Command:
    """A generic command a game offers (``solve``, ``advise``, ``plot``, ``tables``).

    ``run(rules, *, dtype, quiet, ..., **options)`` gets the game's own ``params`` by name and
    returns a ``Report`` (``advise``: an ``Advice`` or a ``Batch``). ``solve`` also receives
    ``device`` and ``out`` (the export path or None); ``advise`` receives ``table`` (a file to
    answer from or None), ``rules_given`` (whether the command line named rules) and ``setup``
    (configures JAX and returns the device: called only when JAX is needed); ``plot`` and
    ``tables`` receive ``device`` (None unless ``jax``).

    Attributes:
        precision: the float precision option: ``float32`` / ``float64`` (the default, with
            ``--x64/--x32``), ``fixed32`` / ``fixed64`` (no option); None: the game's.
        rules: whether the command takes ``--rules`` and the rule overrides.
        json: whether it takes ``--json``.
        quiet_help: the help of ``--quiet`` (None: no such option).
    """

    run: Callable[..., Any]
    params: tuple[Param, ...] = ()
    help: str = ""
    jax: bool = True
    precision: str | None = None
    rules: bool = True
    json: bool = True
    quiet_help: str | None = "No progress bars; print only the result."


@dataclass(frozen=True)
class Game:
    """One registered game.

    Attributes:
        name: the game's one name (``jaxsolve solve NAME``).
        title: a line for listings.
        family: the package the game lives in (its engine; also the save files' ``kind``).
        core: ``layered`` (backward induction) or ``fixpoint`` (cyclic states).
        presets: a callable returning the game's ``Presets`` (read without importing JAX).
        default: the preset a command uses when none is named.
        small: rules that solve in seconds, for tests and quick benchmarks.
        precision: the default float precision of its commands (``float32`` or ``float64``).
        solve: ``solve(rules, dtype=, device=) -> solution`` with ``game_value``,
            ``compile_seconds`` and ``solve_seconds``.
        values: ``values(solution) -> np.ndarray``, the exported value tensor.
        reachable: ``reachable(rules) -> bool array`` of the value tensor's shape (NaN
            elsewhere), or None when every entry is a state.
        save, load: ``save(path, solution) -> [paths written]``, ``load(path) -> solution``
            (validated: a file of another game or a broken file is a ``JaxsolveError``).
        outputs: ``outputs(path) -> [paths]``: every file ``save(path, ...)`` writes.
        commands: the generic commands the game offers, by name: ``solve`` (with its extra
            options; ``run`` returns the ``Report`` and receives ``out``), ``advise``, ``plot``,
            ``tables``; ``play`` is ``play_game``.
        play_game: ``play_game() -> PlayedGame subclass`` (``jaxsolve.play``), or None.
        play_params: the settings a new game takes (``seed`` and ``auto_roll`` are everyone's).
        family_commands: names of commands that exist for this game's family only (the CLI's
            family modules add them to every game listing them).
        bench_presets: the presets ``jaxsolve bench`` times (default: ``default``).
        bench_extra: ``bench_extra(rules, quick, dtype, devices) -> [(label, n_devices, run)]``.
        bench_suite: ``bench_suite(rules, quick, dtype, device) -> [(label, run)]``: the game's
            cases of ``jaxsolve bench --suite`` beside its solve (``run() -> (result, compile s)``).
    """

    name: str
    title: str
    family: str
    core: str
    presets: Callable[[], Presets]
    default: str
    small: Callable[[], Rules]
    solve: Callable[..., Any]
    values: Callable[[Any], np.ndarray]
    reachable: Callable[[Rules], np.ndarray] | None = None
    save: Callable[[Any, Any], Any] | None = None
    load: Callable[[Any], Any] | None = None
    outputs: Callable[[Any], list] | None = None
    precision: str = "float64"
    commands: dict[str, Command] = field(default_factory=dict)
    play_game: Callable[[], type] | None = None
    play_params: tuple[Param, ...] = ()
    family_commands: tuple[str, ...] = ()
    bench_presets: tuple[str, ...] = ()
    bench_extra: Callable[..., list] | None = None
    bench_suite: Callable[..., list] | None = None

    def get_rules(self, name: str | None = None) -> Rules:
        return self.presets().get_rules(name or self.default)

    def rules_type(self) -> type:
        return type(self.small())

    def build_rules(self, name: str | None = None, **overrides) -> Rules:
        """The preset ``name`` (default: the game's default) with rule fields overridden (None:
        keep the preset's)."""
        return self.get_rules(name).replace(**overrides)

    def override_params(self) -> tuple[Param, ...]:
        """The rule fields a command line may override, as options (``Rules.option_fields``)."""
        return tuple(rule_param(f) for f in self.rules_type().option_fields())

    def __hash__(self) -> int:
        return hash(self.name)


def rule_param(f: dataclasses.Field) -> Param:
    """The option of an overridable rules field: its metadata says help, spellings, choices."""
    meta = f.metadata
    kind = meta.get("type", f.type if isinstance(f.type, type) else _type_of(f.type))
    return Param(
        f.name,
        kind,
        None,
        meta["option"],
        flags=tuple(meta.get("flags", ())),
        aliases=tuple(meta.get("aliases", ())),
        choices=tuple(meta.get("choices", ())),
        min=meta.get("min"),
        max=meta.get("max"),
    )


def _type_of(annotation: str) -> type:
    """The option type of a field annotation written as a string (``from __future__ import annotations``)."""
    text = str(annotation).replace(" ", "")
    for name, kind in (("bool", bool), ("int", int), ("float", float)):
        if text == name or text.startswith(name + "|") or text.endswith("|" + name):
            return kind
    return str
