"""The layout's promises, checked on the source (imports inside functions and modules named in
strings count): the layer order ``core < io < games < play/cli/web`` (a module imports only its
own layer or lower ones; ``LAYER_OF`` classifies every top-level module and package), no game
folder imports another's, no import cycle, and no module outside ``jaxsolve/games/`` names a
game."""

from __future__ import annotations

import ast
import functools
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


@functools.cache
def _graph() -> dict[str, set[str]]:
    """Every module's imports (read once; callers do not change it)."""
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


# ----------------------------------------------------------------------------- the layer order

LAYERS = ("core", "io", "games", "top")
"""The layers, lowest first: a module may import only modules of its own layer or lower ones."""

LAYER_OF = {
    "": "core",  # the package itself: its version, JaxsolveError, the dice re-exported on first use
    "errors": "core",
    "interrupt": "core",
    "core": "core",
    "io": "io",
    "games": "games",
    "play": "top",
    "cli": "top",
    "web": "top",
    "bench": "top",
    "testing": "top",
    "__main__": "top",
}
"""The layer of every top-level module or package of ``jaxsolve`` (``""``: ``jaxsolve/__init__.py``).
A new one is unclassified, and ``test_every_top_level_module_has_a_layer`` fails, until it is
written here."""


def _top(module: str) -> str:
    """``jaxsolve.core.dice`` -> ``core``; ``jaxsolve`` -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _layer_breaches(graph: dict[str, set[str]], layer_of: dict[str, str]) -> list[str]:
    """Every import from a module to a module of a higher layer, as one line each."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    found = []
    for module, targets in sorted(graph.items()):
        mine = layer_of.get(_top(module))
        for target in sorted(targets):
            theirs = layer_of.get(_top(target))
            if mine is not None and theirs is not None and rank[theirs] > rank[mine]:
                found.append(f"{module} (layer {mine}) imports {target} (layer {theirs}), a higher layer")
    return found


def test_every_top_level_module_has_a_layer():
    unclassified = sorted({_top(m) or "jaxsolve" for m in MODULES if _top(m) not in LAYER_OF})
    assert not unclassified, f"classify in LAYER_OF ({' < '.join(LAYERS)}): {', '.join(unclassified)}"


def test_a_module_imports_only_its_own_layer_or_lower_ones():
    found = _layer_breaches(_graph(), LAYER_OF)
    assert not found, f"the layer order is {' < '.join(LAYERS)}:\n" + "\n".join(found)


def test_the_layer_check_finds_an_upward_import():
    graph = {"jaxsolve.core.a": {"jaxsolve.io.b", "jaxsolve.errors"}, "jaxsolve.io.b": {"jaxsolve.core.a"}, "jaxsolve.cli.c": {"jaxsolve.games.d"}}
    assert _layer_breaches(graph, LAYER_OF) == ["jaxsolve.core.a (layer core) imports jaxsolve.io.b (layer io), a higher layer"]


def _game_folder(module: str, folders: set[str]) -> str | None:
    """The game folder ``module`` lies in (``jaxsolve.games.<folder>...``), None for any other
    module (a generic one directly in ``jaxsolve/games/``, like the registry, is in none)."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["jaxsolve", "games"] and len(parts) > 2 and parts[2] in folders else None


def _cross_game_imports(graph: dict[str, set[str]], folders: set[str]) -> list[str]:
    found = []
    for module, targets in sorted(graph.items()):
        own = _game_folder(module, folders)
        for target in sorted(targets):
            other = _game_folder(target, folders)
            if own is not None and other is not None and other != own:
                found.append(f"{module} (game folder {own}) imports {target} (game folder {other})")
    return found


def _folders() -> set[str]:
    return {p.name for p in (PACKAGE / "games").iterdir() if (p / "__init__.py").is_file()}


def test_no_game_folder_imports_another():
    """A module under ``jaxsolve/games/<a>/`` imports no module of another game folder ``<b>``
    (what two games share lives in ``jaxsolve/core`` or directly in ``jaxsolve/games/``)."""
    found = _cross_game_imports(_graph(), _folders())
    assert not found, "a game folder imports only itself, the generic modules and lower layers:\n" + "\n".join(found)


def test_the_game_folder_check_finds_a_cross_import():
    graph = {"jaxsolve.games.a.x": {"jaxsolve.games.b", "jaxsolve.games.a.y", "jaxsolve.games.game"}, "jaxsolve.games": {"jaxsolve.games.b.z"}}
    assert _cross_game_imports(graph, {"a", "b"}) == ["jaxsolve.games.a.x (game folder a) imports jaxsolve.games.b (game folder b)"]


# ----------------------------------------------------------------------------- no cycle, no game names


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
    assert {g.family for g in games.games()} == _folders()
