"""devlint: find and fix PyTorch device bugs.

The public API is deliberately small::

    from devlint import lint_source, fix_source
    reports = lint_source(code, path="model.py")
    result = fix_source(code, path="model.py", unsafe=False)

Importing this package is cheap: it pulls in neither torch nor libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from devlint.project import DOCS_URL, PROJECT_URL

__version__ = "0.1.0"

if TYPE_CHECKING:  # pragma: no cover
    from devlint.diagnostics import Diagnostic, FixResult
    from devlint.settings import Settings

__all__ = ["__version__", "lint_source", "fix_source", "PROJECT_URL", "DOCS_URL"]


def lint_source(source: str, path: str = "<string>", settings: "Settings | None" = None) -> "list[Diagnostic]":
    """Lint one module's source text and return its reports, sorted by position."""
    from devlint import document
    from devlint.settings import DEFAULT_SETTINGS

    return document.check(document.PythonSource(path, source), settings or DEFAULT_SETTINGS)


def fix_source(
    source: str, path: str = "<string>", settings: "Settings | None" = None, *, unsafe: bool = False
) -> "FixResult":
    """Apply every available fix (safe ones, plus unsafe ones when asked) and return the result."""
    from devlint import document
    from devlint.settings import DEFAULT_SETTINGS

    return document.fix(document.PythonSource(path, source), settings or DEFAULT_SETTINGS, unsafe=unsafe).result
