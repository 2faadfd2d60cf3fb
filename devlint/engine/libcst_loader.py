"""LibCST as devlint uses it: its node classes, its parser and its visitors, not what `import libcst` also loads.

`libcst/__init__.py` imports the whole library up front: besides the node classes and the parser, its metadata
providers (scope, qualified names, type inference, which pulls in `subprocess`), its helpers and the parser's
configuration detection. devlint uses none of them, and they are a third of LibCST's import, which is most of a
one-file run's start-up (benchmarks/README.md). `load_libcst()` makes `import libcst` give the same package
object, whose names are each imported the first time they are read, from the module `libcst/__init__.py` itself
names for them (`from libcst._nodes.expression import Name`): `libcst.Name` is LibCST's `Name`, whoever reads it.
Any name the package's `__init__` does not import that way (`LIBCST_VERSION`, `__all__`) runs that `__init__` as
a plain import would, once, and everything is then where it would have been; a submodule (`libcst.metadata`,
`libcst.codemod`) is imported as usual. Another library in the same process (a flake8 plugin that uses LibCST)
sees the whole of LibCST either way; where LibCST was imported before, nothing changes.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Callable

PACKAGE = "libcst"
_lock = threading.RLock()


def load_libcst() -> None:
    """Make `import libcst` give a package whose names are imported when first read (nothing to do where it is
    imported already, or where it cannot be found: the plain import then says why)."""
    with _lock:
        if PACKAGE in sys.modules:
            return
        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or spec.origin is None or spec.loader is None or spec.submodule_search_locations is None:
            return
        try:
            with open(spec.origin, "rb") as file:
                sources = _imported_names(ast.parse(file.read()))
        except (OSError, SyntaxError, ValueError):
            return
        package = importlib.util.module_from_spec(spec)
        package.__getattr__, package.__dir__ = _readers(package, sources, spec.loader)  # type: ignore[attr-defined]
        sys.modules[PACKAGE] = package


def _imported_names(init: ast.Module) -> dict[str, tuple[str, str]]:
    """What the package's `__init__` imports at its top level from its own modules: name -> (module, name there)."""
    found: dict[str, tuple[str, str]] = {}
    for statement in init.body:
        if type(statement) is ast.ImportFrom and statement.level == 0 and statement.module is not None \
                and statement.module.startswith(PACKAGE + "."):
            for alias in statement.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = (statement.module, alias.name)
    return found


def _readers(package: ModuleType, sources: dict[str, tuple[str, str]],
             loader: object) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The package's `__getattr__` (Python asks it for a name the package does not hold yet) and `__dir__`. No
    lock is held while they import: the import system keeps its own, per module."""
    started: list[int] = []  # the thread that runs the package's `__init__`, once it is started
    done = threading.Event()  # set when it has run

    def run_init() -> None:
        with _lock:
            starting = not started
            if starting:
                started.append(threading.get_ident())
        if starting:
            try:
                loader.exec_module(package)  # type: ignore[attr-defined]  (as `import libcst` would have)
            finally:
                done.set()
        elif started[0] != threading.get_ident():
            done.wait()  # (the thread running it, reading a name meanwhile, finds what is there so far)

    def read(name: str) -> object:
        source = sources.get(name)
        if source is not None:  # (while `__init__` runs too: it imports the same, and may not be there yet)
            value = getattr(importlib.import_module(source[0]), source[1])
            setattr(package, name, value)
            return value
        if not name.startswith("__") or name == "__all__":  # (`hasattr` and `copy` ask for dunder names)
            if not started and _is_submodule(name):
                return importlib.import_module(f"{PACKAGE}.{name}")  # (`__init__` imports some: `libcst.metadata`)
            run_init()  # (or wait for the thread that runs it)
        if name in package.__dict__:
            return package.__dict__[name]
        raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}")

    def names() -> list[str]:
        run_init()
        return sorted(package.__dict__)

    return read, names


def _is_submodule(name: str) -> bool:
    try:
        return importlib.util.find_spec(f"{PACKAGE}.{name}") is not None
    except (ImportError, ValueError):
        return False
