"""The layout's promises, checked on the source: no import cycle (imports inside functions and
modules named in strings count), and no module outside ``jaxsolve/games/`` names a game."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jaxsolve
from jaxsolve import games

PACKAGE = Path(jaxsolve.__file__).parent
MODULE_STRING = re.compile(r"^jaxsolve(\.\w+)+$")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module ``name`` refers to (a name inside a module resolves to the module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path: Path) -> set[str]:
    """Every jaxsolve module ``path`` imports, at any depth, or names in a string."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            # ``from a import b``: the module ``a.b`` if there is one (the way import graphs
            # count it), else a name of ``a``
            out |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module for a in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_STRING.match(node.value):
            out.add(node.value)
    return {m for m in (_resolve(n) for n in out if n.startswith("jaxsolve")) if m}


def _graph() -> dict[str, set[str]]:
    return {name: _imports(path) - {name} for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _game_names() -> set[str]:
    return {g.name for g in games.games()}


def _outside_games() -> dict[str, Path]:
    return {n: p for n, p in MODULES.items() if not (n == "jaxsolve.games" or n.startswith("jaxsolve.games."))}


def test_no_module_outside_the_games_names_a_game():
    names = _game_names()
    found = []
    for module, path in _outside_games().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                found.append(f"{module}: {node.value!r}")
    assert found == []


def test_generic_layers_import_no_game_package():
    """core, io, play and the generic CLI know games only through the registry; a family's own
    commands (``jaxsolve.cli.<family>``) and page extras (``jaxsolve.web.<family>``) may use
    that family's engine."""
    families = {g.family for g in games.games()}
    found = []
    for module in _outside_games():
        own = module.rpartition(".")[2] if module.startswith(("jaxsolve.cli.", "jaxsolve.web.")) else None
        for target in _graph()[module]:
            parts = target.split(".")
            if parts[:2] == ["jaxsolve", "games"] and len(parts) > 2 and parts[2] in families and parts[2] != own:
                found.append(f"{module} -> {target}")
    assert found == []


def test_the_registry_finds_every_game_folder():
    folders = {p.name for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").is_file()}
    assert {g.family for g in games.games()} == folders
