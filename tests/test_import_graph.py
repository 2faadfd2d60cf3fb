"""The package's imports point one way: no module of `devlint/` reaches itself again through imports.

Every import statement counts, at module level and inside functions (a function-level import is
only a deferred one). Imports under `if TYPE_CHECKING:` do not run and do not count."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "devlint"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_modules(path: Path, known: set[str], root: Path = ROOT) -> set[str]:
    """The `devlint` modules `path` imports anywhere outside `if TYPE_CHECKING:` blocks."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for statement in child.orelse:
                    visit_statement(statement)
            else:
                visit_statement(child)

    def visit_statement(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parents + ([node.module] if node.module else []))
            for alias in node.names:  # `from devlint import notebook` imports a module
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
        else:
            visit(node)

    visit(ast.parse(path.read_text(), str(path)))
    return {module for module in found if module in known and module != name}


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(path) for path in paths}
    return {module_name(path): imported_modules(path, known) for path in paths}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of `graph` as [a, b, ..., a], or [] when it has none."""
    done: set[str] = set()
    stack: list[str] = []
    on_stack: set[str] = set()

    def walk(node: str) -> list[str]:
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target in on_stack:
                return stack[stack.index(target):] + [target]
            if target not in done:
                cycle = walk(target)
                if cycle:
                    return cycle
        stack.pop()
        on_stack.discard(node)
        done.add(node)
        return []

    for node in sorted(graph):
        if node not in done:
            cycle = walk(node)
            if cycle:
                return cycle
    return []


def test_devlint_imports_have_no_cycle():
    cycle = find_cycle(import_graph())
    assert cycle == [], "import cycle: " + " -> ".join(cycle)


def test_the_walker_sees_function_level_imports_and_skips_type_checking_ones(tmp_path):
    known = {"devlint.a", "devlint.b", "devlint.c"}
    (tmp_path / "devlint").mkdir()
    source = tmp_path / "devlint" / "a.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from devlint.c import C\n"
        "def f():\n    from devlint import b\n")
    graph = {"devlint.a": imported_modules(source, known, tmp_path), "devlint.b": {"devlint.a"},
             "devlint.c": set()}
    assert graph["devlint.a"] == {"devlint.b"}
    assert find_cycle(graph) == ["devlint.a", "devlint.b", "devlint.a"]


def test_importing_the_cli_does_not_import_the_language_server_libraries():
    code = "import sys, devlint.cli; print([m for m in ('pygls', 'lsprotocol') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
