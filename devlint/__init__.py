"""devlint: find and fix PyTorch device bugs.

The public API is deliberately small::

    from devlint import lint_source, fix_source
    reports = lint_source(code, path="model.py")
    result = fix_source(code, path="model.py", unsafe=False)

Importing this package is cheap: it pulls in neither torch nor libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__version__ = "0.1.0"
# Where the project and its rule pages live: the one place the URLs are spelled.
PROJECT_URL = "https://github.com/devlint/devlint"
DOCS_URL = f"{PROJECT_URL}/blob/main/docs/rules"

if TYPE_CHECKING:  # pragma: no cover
    from devlint.diagnostics import Diagnostic, FixResult
    from devlint.settings import Settings

__all__ = ["__version__", "lint_source", "fix_source"]


def lint_source(source: str, path: str = "<string>", settings: "Settings | None" = None) -> "list[Diagnostic]":
    """Lint one module's source text and return its reports, sorted by position."""
    from devlint.engine import lint_text

    return lint_text(source, path, settings)


def fix_source(
    source: str, path: str = "<string>", settings: "Settings | None" = None, *, unsafe: bool = False
) -> "FixResult":
    """Apply every available fix (safe ones, plus unsafe ones when asked) and return the result."""
    from devlint.engine import fix_text

    return fix_text(source, path, settings, unsafe=unsafe)
