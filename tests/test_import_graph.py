"""The package's imports point one way: no module of `devlint/` reaches itself again through imports,
and no module imports one of a layer above its own.

Every import statement counts: at module level, inside functions (a function-level import is only a
deferred one) and under `if TYPE_CHECKING:` (a type named from a higher layer is still a dependency on it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "devlint"

# The layers, top first: one folder of `devlint/` each. A module may import its own layer and the
# layers below it, never one above. `devlint/__init__.py` (the public API) and `__main__.py` are front
# ends too. The order is described in devlint/__init__.py's docstring and the README (Developing).
LAYERS = ("frontends", "runner", "sources", "engine", "rules", "analysis", "contract")
TOP_LEVEL_MODULES = ("devlint", "devlint.__main__")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, known: set[str], root: Path = ROOT) -> set[str]:
    """The `devlint` modules `path` imports anywhere."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
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


def layer_rank(module: str) -> int:
    """0 for the top layer (the front ends, the public API with them) down to the bottom one."""
    return 0 if module in TOP_LEVEL_MODULES else LAYERS.index(module.split(".")[1])


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every `importer -> imported` where the imported module is in a higher layer than the importer."""
    return sorted(f"{importer} ({rank_name(importer)}) -> {imported} ({rank_name(imported)})"
                  for importer, targets in graph.items() for imported in targets
                  if layer_rank(imported) < layer_rank(importer))


def rank_name(module: str) -> str:
    return "frontends" if module in TOP_LEVEL_MODULES else module.split(".")[1]


def modules_outside_the_layers(modules: set[str]) -> list[str]:
    return sorted(module for module in modules
                  if module not in TOP_LEVEL_MODULES and module.split(".")[1] not in LAYERS)


def test_every_module_sits_in_a_layer_folder():
    assert modules_outside_the_layers(set(import_graph())) == [], (
        "a module outside the layer folders: put it in the folder of its layer " + str(LAYERS))


def test_the_package_folders_are_the_layers():
    # A folder left with only __pycache__ (a checkout from before a move) holds no module: not counted.
    folders = [path.name for path in PACKAGE.iterdir() if path.is_dir() and any(path.rglob("*.py"))]
    assert sorted(folders) == sorted(LAYERS)


def test_no_module_imports_a_higher_layer():
    assert upward_imports(import_graph()) == []


def rule_package(module: str) -> str | None:
    """`devlint.rules.dev004_load_without_map_location` for any module of that rule's package, else None. The
    packages starting with `_` (what two rules share: `_factory_moves`) are not one rule's."""
    parts = module.split(".")
    return ".".join(parts[:3]) if len(parts) > 2 and parts[1] == "rules" and parts[2].startswith("dev") else None


def imports_of_another_rule(graph: dict[str, set[str]]) -> list[str]:
    """Every `importer -> imported` where `imported` is in a rule's package and `importer` is not."""
    return sorted(f"{importer} -> {imported}" for importer, targets in graph.items() for imported in targets
                  if rule_package(imported) is not None and rule_package(imported) != rule_package(importer))


def test_a_rule_package_is_imported_by_no_module_outside_it():
    # So a new shape of a rule is its package and its tests: what two rules share is in analysis/ (or a rules/_*
    # package), and the registry finds the packages without importing them by name.
    assert imports_of_another_rule(import_graph()) == []
    assert imports_of_another_rule({"devlint.rules.dev011_x": {"devlint.rules.dev002_y.visitor"},
                                    "devlint.rules.dev002_y.visitor": {"devlint.rules.dev002_y", "devlint.rules._z"}}) == [
        "devlint.rules.dev011_x -> devlint.rules.dev002_y.visitor"]


def test_an_import_of_a_higher_layer_is_named_and_a_stray_module_is_found():
    graph = {"devlint.engine.engine": {"devlint.rules", "devlint.runner.cache"},
             "devlint.rules": {"devlint.contract.diagnostics"}, "devlint.runner.cache": set(),
             "devlint.contract.diagnostics": set(), "devlint.frontends.cli": {"devlint"},
             "devlint": {"devlint.sources.document"}, "devlint.sources.document": {"devlint"},
             "devlint.helpers": set()}
    assert upward_imports({name: targets for name, targets in graph.items() if name != "devlint.helpers"}) == [
        "devlint.engine.engine (engine) -> devlint.runner.cache (runner)",
        "devlint.sources.document (sources) -> devlint (frontends)"]
    assert modules_outside_the_layers(set(graph)) == ["devlint.helpers"]


def test_the_walker_sees_function_level_and_type_checking_imports(tmp_path):
    known = {"devlint.a", "devlint.b", "devlint.c"}
    (tmp_path / "devlint").mkdir()
    source = tmp_path / "devlint" / "a.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from devlint.c import C\n"
        "def f():\n    from devlint import b\n")
    graph = {"devlint.a": imported_modules(source, known, tmp_path), "devlint.b": {"devlint.a"},
             "devlint.c": set()}
    assert graph["devlint.a"] == {"devlint.b", "devlint.c"}
    assert find_cycle(graph) == ["devlint.a", "devlint.b", "devlint.a"]


def test_importing_the_cli_does_not_import_the_language_server_libraries():
    code = "import sys, devlint.frontends.cli; print([m for m in ('pygls', 'lsprotocol') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
