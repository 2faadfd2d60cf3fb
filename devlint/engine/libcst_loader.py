"""LibCST as devlint uses it: its node classes, its parser and its visitors, not what `import libcst` also loads.

`libcst/__init__.py` imports the whole library up front: besides the node classes and the parser, its metadata
providers (scope, qualified names, type inference, which pulls in `subprocess`), its helpers and the parser's
configuration detection. devlint uses none of them, and they are a third of LibCST's import, which is most of a
one-file run's start-up (benchmarks/README.md). `load_libcst()` makes `import libcst` give a package whose names
are each bound the first time they are read, as `libcst/__init__.py` binds them: from the module it imports each
from (`from libcst._nodes.expression import Name`), a constant it assigns (`__all__`), an import it tries with a
constant as the fallback (`LIBCST_VERSION`). `libcst.Name` is LibCST's `Name`, whoever reads it. The submodules
that `__init__` imports are there when read (`libcst.metadata`); the others, as after a plain import, once
imported (`import libcst.codemod`). That `__init__` is never run, so a thread that imports a submodule meanwhile
never finds the package half made. Where `__init__` holds anything else (another LibCST release), or LibCST was
imported before, nothing changes: the plain import.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Callable, Optional, Union

PACKAGE = "libcst"

_Import = tuple[str, str]  # (module, its name)
# How `__init__` binds a name: imported, a constant, or imported with a constant where the import fails.
_Binding = Union[_Import, tuple[_Import, object], list[object]]


def load_libcst() -> None:
    """Make `import libcst` give a package whose names are bound when first read (nothing to do where it is
    imported already, cannot be found, or has an `__init__` this does not read: the plain import then)."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.origin is None or spec.submodule_search_locations is None:
        return
    try:
        with open(spec.origin, "rb") as file:
            init = ast.parse(file.read())
    except (OSError, SyntaxError, ValueError):
        return
    found = _bindings(init)
    if found is None:
        return
    bindings, submodules = found
    package = importlib.util.module_from_spec(spec)
    package.__doc__ = ast.get_docstring(init, clean=False)
    package.__getattr__, package.__dir__ = _readers(package, bindings, submodules)  # type: ignore[attr-defined]
    sys.modules.setdefault(PACKAGE, package)  # (a plain import another thread made meanwhile stays)


def _bindings(init: ast.Module) -> Optional[tuple[dict[str, _Binding], set[str]]]:
    """What the package's `__init__` binds at its top level, by name, and the submodules it imports; None where it
    does anything else."""
    bindings: dict[str, _Binding] = {}
    for statement in init.body:
        kind = type(statement)
        if kind is ast.Expr and type(statement.value) is ast.Constant:  # type: ignore[attr-defined]
            continue  # (a docstring)
        if kind is ast.ImportFrom:
            imported = _imported(statement)  # type: ignore[arg-type]
            if imported is None:
                return None
            bindings.update(imported)
        elif kind is ast.Assign:
            constant = _constant(statement)  # type: ignore[arg-type]
            if constant is None:
                return None
            bindings[constant[0]] = [constant[1]]
        elif kind is ast.Try:
            tried = _tried(statement)  # type: ignore[arg-type]
            if tried is None:
                return None
            bindings.update(tried)
        else:
            return None
    submodules = {binding[0].split(".")[1] for binding in _imports(bindings)}
    return bindings, submodules


def _imports(bindings: dict[str, _Binding]) -> list[_Import]:
    return [binding if isinstance(binding[0], str) else binding[0]  # type: ignore[misc]
            for binding in bindings.values() if isinstance(binding, tuple)]


def _imported(statement: ast.ImportFrom) -> Optional[dict[str, _Binding]]:
    """`from libcst.x import a, b as c`: {name: (module, name there)}; None for any other import."""
    module = statement.module
    if statement.level or module is None or not module.startswith(PACKAGE + "."):
        return None
    if any(alias.name == "*" for alias in statement.names):
        return None
    return {alias.asname or alias.name: (module, alias.name) for alias in statement.names}


def _constant(statement: ast.Assign) -> Optional[tuple[str, object]]:
    """`name = <a literal>`: (name, its value); None for any other assignment."""
    if len(statement.targets) != 1 or type(statement.targets[0]) is not ast.Name:
        return None
    try:
        return statement.targets[0].id, ast.literal_eval(statement.value)  # type: ignore[attr-defined]
    except ValueError:
        return None


def _tried(statement: ast.Try) -> Optional[dict[str, _Binding]]:
    """`try: from libcst.x import a` / `except ImportError: a = <a literal>`: {a: ((module, name), literal)}."""
    if statement.orelse or statement.finalbody or len(statement.handlers) != 1 or len(statement.body) != 1:
        return None
    handler, tried = statement.handlers[0], statement.body[0]
    if type(handler.type) is not ast.Name or handler.type.id != "ImportError" or handler.name is not None \
            or type(tried) is not ast.ImportFrom:
        return None
    imported = _imported(tried)
    fallbacks = [_constant(fallback) if type(fallback) is ast.Assign else None for fallback in handler.body]
    if imported is None or None in fallbacks or {name for name, _ in fallbacks} != set(imported):  # type: ignore
        return None
    return {name: (imported[name], value) for name, value in fallbacks}  # type: ignore[misc]


def _readers(package: ModuleType, bindings: dict[str, _Binding],
             submodules: set[str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The package's `__getattr__` (Python asks it for a name the package does not hold yet) and `__dir__`."""

    def read(name: str) -> object:
        binding = bindings.get(name)
        if binding is None:
            if name in submodules or (name.startswith("_") and not name.startswith("__") and _is_submodule(name)):
                return importlib.import_module(f"{PACKAGE}.{name}")  # (as `__init__`'s imports leave them)
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")
        if isinstance(binding, list):  # a constant (the same object for every reader)
            return package.__dict__.setdefault(name, binding[0])
        if isinstance(binding[0], str):
            value = getattr(importlib.import_module(binding[0]), binding[1])  # type: ignore[arg-type]
        else:
            (module, there), fallback = binding  # type: ignore[misc]
            try:
                value = getattr(importlib.import_module(module), there)
            except ImportError:
                value = fallback
        setattr(package, name, value)
        return value

    def names() -> list[str]:
        return sorted({*package.__dict__, *bindings, *submodules} - {"__getattr__", "__dir__"})

    return read, names


def _is_submodule(name: str) -> bool:
    try:
        return importlib.util.find_spec(f"{PACKAGE}.{name}") is not None
    except (ImportError, ValueError):
        return False
