"""The one base of every game's rules value, and the one table of named presets.

A rules value is a frozen dataclass of plain Python fields: it is hashable, so it can key
compile caches and be passed to ``jax.jit`` as a static argument, it is immutable, and it is
printed into every export's metadata (``to_dict``) and read back (``from_dict``). A subclass is
decorated with ``@dataclasses.dataclass(frozen=True)`` too and checks its fields in
``__post_init__``. Nothing here imports JAX.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Generic, Iterator, Mapping, Self, TypeVar

from jaxsolve.errors import JaxsolveError


class RulesError(JaxsolveError):
    """A rule set, rule name or rule field that does not make sense."""


@dataclasses.dataclass(frozen=True)
class Rules:
    """Base of every game's rules: a name plus static fields defined by the subclass."""

    name: str = "custom"

    derived: ClassVar[tuple[str, ...]] = ()
    """Fields the constructor derives from the others when given as None (e.g. a bound from the goal)."""

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (``None`` = keep); the name gets ``+custom`` unless given.

        The copy is built by the constructor, so checks are redone, and a ``derived`` field that
        holds its derived value and is not among the changes is derived again.
        """
        changes = {k: v for k, v in changes.items() if v is not None}
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise RulesError(f"unknown rule field(s) {', '.join(unknown)} for {type(self).__name__}")
        if not changes:
            return self
        if "name" not in changes and any(getattr(self, k) != v for k, v in changes.items()):
            changes["name"] = self.name if self.name.endswith("+custom") else f"{self.name}+custom"
        fields = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in self.derived:
            if name not in changes and type(self)(**{**fields, name: None}) == self:
                fields[name] = None
        return type(self)(**{**fields, **changes})

    @classmethod
    def option_fields(cls) -> tuple[dataclasses.Field, ...]:
        """The fields a command line may override: those declared with ``option(...)``."""
        return tuple(f for f in dataclasses.fields(cls) if "option" in f.metadata)

    def to_dict(self) -> dict:
        """Plain JSON-able fields (the export metadata)."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: object) -> Self:
        """Inverse of ``to_dict``, with a clear error for anything that is not such a dict."""
        if not isinstance(data, Mapping):
            raise RulesError(f"{cls.__name__} metadata must be a JSON object, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(f"unknown rule field(s) {', '.join(unknown)} for {cls.__name__}")
        try:
            return cls(**{k: _unplain(v) for k, v in data.items()})
        except TypeError as exc:
            raise RulesError(f"bad {cls.__name__} fields: {exc}") from None


T = TypeVar("T")


def option(default: T, help: str, **meta: Any) -> T:
    """A rules field that commands may override with an option (``--field-name``): ``help`` is
    its help line; ``meta`` may give ``flags``, ``aliases`` (hidden old spellings), ``choices``,
    ``min``, ``max``, ``type``."""
    return dataclasses.field(default=default, metadata={"option": help, **meta})


def _plain(value: Any) -> Any:
    if isinstance(value, Rules) or dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _unplain(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_unplain(v) for v in value)
    return value


R = TypeVar("R", bound=Rules)


class Presets(Generic[R], Mapping[str, R]):
    """Named rule sets of one game, looked up with a clear error listing the names."""

    def __init__(self, game: str, presets: Mapping[str, R], aliases: Mapping[str, str] | None = None):
        self.game = game
        self._presets = dict(presets)
        self._aliases = dict(aliases or {})
        for name, rules in self._presets.items():
            if rules.name != name:
                raise RulesError(f"preset {name!r} of {game} carries the name {rules.name!r}")

    def __getitem__(self, name: str) -> R:
        return self._presets[self._aliases.get(name, name)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._presets)

    def __len__(self) -> int:
        return len(self._presets)

    def get_rules(self, name: str) -> R:
        """The preset called ``name``; ``RulesError`` listing the presets otherwise."""
        try:
            return self[name]
        except (KeyError, TypeError):
            raise RulesError(f"unknown {self.game} rules {name!r}; choose one of {', '.join(self._presets)}") from None
