"""What a game registers: the ``Game`` value and the plain data its hooks exchange with the
layers above (CLI, ``play``, ``jaxsolve bench``, the conformance tests).

Nothing here imports JAX, typer or a game: a game's package builds a ``Game`` from its own
functions, and the generic layers read it. Options a game adds to a generic command are
``Param`` values (typer-free); the CLI turns them into command-line options.
"""

from __future__ import annotations

import builtins
import dataclasses
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from jaxsolve.core.rules import Presets, Rules
from jaxsolve.errors import JaxsolveError

INT_LIMIT = 10**9
"""An integer option takes at most this size on a side where it declares no bound of its own, so
no number reaches NumPy or JAX that overflows their integers (``100000000000000000000``)."""
FLOAT_LIMIT = 1e9
"""A float option is finite and at most this size on a side where it declares no bound."""
MAX_TEXT = 10_000
"""Longest text an option takes (characters)."""
MAX_DIGITS = 30
"""Most digits of a whole number written as text that an option reads (its bounds refuse far fewer)."""


@dataclass(frozen=True)
class Param:
    """One option a game adds to a command.

    Attributes:
        name: the Python keyword the game's hook receives.
        type: ``int``, ``float``, ``str``, ``bool``, ``Path`` or ``list`` (a repeatable option
            of ``item`` values).
        default: the value when the option is not given.
        help: the ``--help`` line.
        flags: the spellings (default ``--name`` with dashes); a bool option may be
            ``"--on/--off"``.
        aliases: old spellings that still work, hidden from ``--help``.
        choices: the allowed values of a ``str`` option.
        min, max: bounds of a number (of every item of a list of numbers); ``bounds()`` is the
            range it takes.
        required: the option must be given.
        argument: a positional argument (``list``: the rest of the command line).
        item: the type of a ``list`` option's values (``str`` or ``int``).
    """

    name: str
    type: builtins.type = str
    default: Any = None
    help: str = ""
    flags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    required: bool = False
    argument: bool = False
    item: builtins.type = str

    @property
    def spellings(self) -> tuple[str, ...]:
        return self.flags or ("--" + self.name.replace("_", "-"),)

    @property
    def flag(self) -> str:
        """The option's first spelling (``--x64`` of ``--x64/--x32``): how messages name it."""
        return self.spellings[0].split("/")[0]

    @property
    def kind(self) -> builtins.type:
        """The type of one value: ``item`` for a list, else ``type``."""
        return self.item if self.type is list else self.type

    def bounds(self) -> tuple[float | None, float | None]:
        """The range a number takes: ``min`` and ``max`` where declared; on a side without one,
        ``INT_LIMIT`` (ints) or ``FLOAT_LIMIT`` (floats). ``(None, None)`` for other types."""
        limit = {int: INT_LIMIT, float: FLOAT_LIMIT}.get(self.kind)
        if limit is None:
            return None, None
        return (-limit if self.min is None else self.min), (limit if self.max is None else self.max)

    def range_text(self) -> str | None:
        """The range as ``--help`` shows it (``1<=x<=1000``), None for other types."""
        low, high = self.bounds()
        return None if low is None or high is None else f"{_number(low)}<=x<={_number(high)}"

    def check(self, value: Any, label: str | None = None) -> Any:
        """``value`` as the option takes it, or a ``JaxsolveError`` that says what is wrong (the
        option named ``label``, default its flag): the one check of an option's value, for the
        command line (values typer has read) and the page (JSON values or form text).

        None stays None (not given). Numbers: whole numbers for ``int`` (text such as ``"12"``
        is read), finite, within ``bounds()``; ``bool``: true or false; ``str``: at most
        ``MAX_TEXT`` characters, one of ``choices`` where declared (a list of whole numbers is
        joined by spaces: dice); ``list``: every value checked as one of ``item``."""
        name = label or self.flag
        if value is None:
            return None
        if self.type is list:
            if isinstance(value, str):
                value = value.split()
            if not isinstance(value, (list, tuple)):
                raise JaxsolveError(f"{name} must be a list of {'numbers' if self.item in (int, float) else 'words'}")
            return [self._one(v, name, self.item) for v in value]
        return self._one(value, name, self.type)

    def _one(self, value: Any, name: str, kind: builtins.type) -> Any:
        if kind is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower() == "true"
            raise JaxsolveError(f"{name} must be true or false, got {value!r}")
        if kind in (int, float):
            return self._number(value, name, kind)
        if kind is Path:
            if isinstance(value, (str, Path)) and str(value):
                return Path(value)
            raise JaxsolveError(f"{name} must be a path, got {value!r}")
        if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            value = " ".join(map(str, value))  # dice given as a list of faces
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise JaxsolveError(f"{name} must be text, got {value!r}")
        value = str(value)
        if len(value) > MAX_TEXT:
            raise JaxsolveError(f"{name} is too long")
        if self.choices and value not in self.choices:
            raise JaxsolveError(f"{name} must be one of {', '.join(self.choices)}, got {value!r}")
        return value

    def _number(self, value: Any, name: str, kind: builtins.type) -> int | float:
        whole = kind is int
        what = "a whole number" if whole else "a number"
        if isinstance(value, str):
            text = value.strip()
            if not re.fullmatch(r"[+-]?\d+" if whole else r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
                raise JaxsolveError(f"{name} must be {what}, got {value!r}")
            digits = len(text.lstrip("+-"))
            if whole and digits > MAX_DIGITS:  # Python reads no int of more than 4,300 digits; no option takes one of 20
                raise JaxsolveError(f"{name} must be {what} of at most {MAX_DIGITS} digits, got one of {digits:,} digits")
            value = int(text) if whole else float(text)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and isinstance(value, float) and not value.is_integer()):
            raise JaxsolveError(f"{name} must be {what}, got {value!r}")
        value = kind(value)
        low, high = self.bounds()
        assert low is not None and high is not None
        if isinstance(value, float) and not math.isfinite(value):
            raise JaxsolveError(f"{name} must be a finite number of at most {FLOAT_LIMIT:g}, got {value}")
        if not low <= value <= high:
            if not whole and self.min is None and self.max is None:
                raise JaxsolveError(f"{name} must be a finite number of at most {FLOAT_LIMIT:g}, got {value}")
            raise JaxsolveError(f"{name} must be between {_number(low, ',')} and {_number(high, ',')}, got {_number(value, ',')}")
        return value


def _number(x: float, sep: str = "") -> str:
    """A bound or a value as text: whole numbers without a decimal point (``1,000`` with ``sep=','``)."""
    if isinstance(x, float) and not x.is_integer():
        return f"{x:g}"
    return f"{int(x):{sep}}" if sep else str(int(x))


@dataclass(frozen=True)
class Report:
    """What a command prints: ``lines`` always, ``details`` unless ``--quiet``, ``data`` as JSON
    with ``--json``; ``result``: what was computed, for a caller of the command in Python (the
    page), not printed."""

    lines: tuple[str, ...]
    data: dict | list
    details: tuple[str, ...] = ()
    result: Any = None


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
    """A command a game offers: ``jaxsolve NAME GAME`` for the name it is registered under in
    ``Game.commands`` (``solve``, ``advise``, ``plot``, ``tables`` or a name of the game's own,
    such as the category games' ``analyze``, ``distribution``, ``advise-target``, ``simulate``).

    ``run(rules, *, dtype, quiet, ..., **options)`` gets the command's ``params`` by name and
    returns a ``Report`` (``advise``: an ``Advice`` or a ``Batch``). ``solve`` also receives
    ``device`` and ``out`` (the export path or None); ``advise`` receives ``table`` (a file to
    answer from or None), ``rules_given`` (whether the command line named rules) and ``setup``
    (configures JAX and returns the device: called only when JAX is needed); every other
    command receives ``device`` (None unless ``jax``) and, where its ``run`` takes it,
    ``rules_given``.

    Attributes:
        help: the ``jaxsolve NAME GAME --help`` text.
        summary: the one line of ``jaxsolve NAME --help`` (the group of every game's NAME), for a
            command name that is not one of the generic ones; the first game's that gives one.
        precision: the float precision option: ``float32`` / ``float64`` (the default, with
            ``--x64/--x32``), ``fixed32`` / ``fixed64`` (no option); None: the game's.
        rules: whether the command takes ``--rules`` and the rule overrides.
        json: whether it takes ``--json``.
        quiet_help: the help of ``--quiet``, saying what it leaves out (None: no such option).
    """

    run: Callable[..., Any]
    params: tuple[Param, ...] = ()
    help: str = ""
    jax: bool = True
    precision: str | None = None
    rules: bool = True
    json: bool = True
    quiet_help: str | None = "No progress bars; print only the result."
    summary: str = ""


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
            ``compile_seconds`` and ``solve_seconds``; where it takes ``progress``, a callback
            ``progress(layers done, layers)`` that the progress bars of the cache show.
        values: ``values(solution) -> np.ndarray``, the exported value tensor.
        reachable: ``reachable(rules) -> bool array`` of the value tensor's shape (NaN
            elsewhere), or None when every entry is a state.
        save, load: ``save(path, solution) -> [paths written]``, ``load(path) -> solution``
            (validated: a file of another game or a broken file is a ``JaxsolveError``).
        outputs: ``outputs(path) -> [paths]``: every file ``save(path, ...)`` writes.
        commands: the commands the game offers, by name (``jaxsolve NAME GAME``): ``solve``
            (with its extra options; ``run`` returns the ``Report`` and receives ``out``),
            ``advise``, ``plot``, ``tables`` and any of the game's own; ``play`` is ``play_game``.
        play_game: ``play_game() -> PlayedGame subclass`` (``jaxsolve.play``), or None.
        play_params: the settings a new game takes (``seed`` and ``auto_roll`` are everyone's).
        play_options: options of ``jaxsolve play GAME`` that only this game has, beside the
            settings: ``show_heuristic`` (bool) where the game class gives ``ratings`` under
            all the game's rules.
        bench_presets: the presets ``jaxsolve bench`` times (default: ``default``).
        bench_extra: ``bench_extra(rules, quick, dtype, devices) -> [(label, n_devices, run)]``.
        bench_suite: ``bench_suite(rules, quick, dtype, device) -> [(label, run)]``: the game's
            cases of ``jaxsolve bench --suite`` beside its solve (``run() -> (result, compile s)``).
        objective: what the table of ``solve`` holds, where a game solves more than one kind
            (the category games' ``score``): part of its solution cache key (None: one kind).
        solve_seconds: seconds a first solve of a preset (by name) took on the 2-core CPU of
            ``benchmarks/machine.py`` (``jaxsolve cache warm``, figures in ``results/cache/``):
            the solution cache's estimate before a solve (``cache.status``); presets not
            listed are unknown.
        display_name: the game's name for players (the page's game list); ``name`` when empty.
        board: what the page draws for a game in play: ``sheet`` (a score sheet of boxes),
            ``race`` (two players' banked scores, the turn total, whose turn) or ``turns``
            (one player's turns and running total); the dice and the options always.
        words: ``words(rules) -> {language: {name: player's word}}``: the names of boxes (and
            other terms) under these rules in each language the page offers, or None.
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
    play_options: tuple[Param, ...] = ()
    bench_presets: tuple[str, ...] = ()
    bench_extra: Callable[..., list] | None = None
    bench_suite: Callable[..., list] | None = None
    objective: str | None = None
    solve_seconds: dict[str, float] = field(default_factory=dict)

    def solution(self, rules: Rules, *, dtype: str | None = None, device=None) -> Any:
        """The solved table of ``rules`` from the solution cache (kept in memory, or in the cache
        folder), else solved and cached (``jaxsolve.io.cache.solution``). ``dtype``: ``float32``
        or ``float64`` (None: float64 where JAX's x64 mode is on, else float32); ``device``: a
        device or a callable that sets one up, called only when a solve is needed."""
        from jaxsolve.io import cache

        if dtype is None:
            from jaxsolve.core.arrays import float_dtype

            dtype = float_dtype().name
        return cache.solution(self, rules, dtype=str(dtype), device=device)

    display_name: str = ""
    board: str = ""
    words: Callable[[Any], dict[str, dict[str, str]]] | None = None

    def get_rules(self, name: str | None = None) -> Rules:
        return self.presets().get_rules(name or self.default)

    def rules_type(self) -> type[Rules]:
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


def read_options(params, given: dict, *, label: Callable[[Param], str] | None = None) -> dict:
    """The values of ``params`` from ``given`` (by name), each checked by ``Param.check`` (named
    in messages by ``label(param)``, default its flag); a missing or None value is the default,
    a required one must be given."""
    out = {}
    for p in params:
        value = given.get(p.name)
        name = label(p) if label is not None else p.flag
        if value is None or value == "":
            if p.required:
                raise JaxsolveError(f"{name} is required")
            value = p.default
        out[p.name] = p.check(value, name)
    return out


def rule_param(f: dataclasses.Field) -> Param:
    """The option of an overridable rules field: its metadata says help, spellings, choices."""
    meta = f.metadata
    kind = meta.get("type", f.type if isinstance(f.type, type) else _type_of(f.type))
    return Param(
        f.name,
        kind,
        None,
        str(meta["option"]),
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
