"""Every module and file a docstring of the package names exists: a dotted name
``jaxsolve.a.b`` is a module or a name defined at the top of one, and a path under one of the
repository's folders (``docs/x.md``, ``results/...``, ``jaxsolve/.../x.py``) is a file or folder
of the checkout."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import jaxsolve

PACKAGE = Path(jaxsolve.__file__).parent
ROOT = PACKAGE.parent
DOTTED = re.compile(r"\bjaxsolve(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"(?<![\w/.-])((?:jaxsolve|docs|results|tests|benchmarks|scripts)/[\w/.-]*\w)")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _top_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _docstrings(path: Path):
    tree = ast.parse(path.read_text())
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "lineno", 1), doc


def _broken(text: str) -> list[str]:
    out = []
    for name in DOTTED.findall(text):
        parts = name.split(".")
        k = len(parts)
        while k > 1 and ".".join(parts[:k]) not in MODULES:
            k -= 1
        module = ".".join(parts[:k])
        if k == 1 and len(parts) > 1 or (k < len(parts) and parts[k] not in _top_names(MODULES[module])):
            out.append(name)
    for rel in PATH.findall(text):
        rel = rel.rstrip(".")
        if "*" in rel or "<" in rel or not Path(rel).suffix and rel.endswith("/"):
            continue
        if not (ROOT / rel).exists():
            out.append(rel)
    return out


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_and_file_a_docstring_names_exists(path):
    broken = [f"line {line}: {name}" for line, doc in _docstrings(path) for name in _broken(doc)]
    assert not broken, f"{path.relative_to(ROOT)} names what does not exist: {broken}"


def test_the_check_finds_a_missing_module_and_file():
    assert _broken("see ``jaxsolve.kniffel.solver`` and docs/none.md") == ["jaxsolve.kniffel.solver", "docs/none.md"]
    assert _broken("see ``jaxsolve.games.category.engine.solver.solve`` and docs/architecture.md") == []
