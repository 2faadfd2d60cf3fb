"""devlint: find and fix PyTorch device bugs.

The public API is deliberately small::

    from devlint import lint_source, fix_source
    reports = lint_source(code, path="model.py")
    result = fix_source(code, path="model.py", unsafe=False)

Importing this package is cheap: it pulls in neither torch nor libcst.

The package is laid out in layers, one folder each, top first; a module imports only from its own
layer or the layers below it (tests/test_import_graph.py holds the order and enforces it):

    frontends/   what a user runs: the CLI (`devlint`), the flake8 plugin, `devlint lsp`, the
                 output formats (report/), `--add-noqa`, baselines, and the runtime companion
                 (`devlint confirm`, runtime/)
    runner/      a run over many files: configuration, file discovery and excludes, the cache,
                 worker processes, writing fixes
    sources/     the one document API: a Python file, a notebook or an editor buffer in, reports
                 and fixes out; reading and writing source files
    engine/      one source text checked: the rules the prefilter and the screen leave run in
                 one LibCST pass; `# noqa`, the layout of fixes, settings
    rules/       one package per rule: its metadata, visitor and fix
    analysis/    what rules share: the text prefilter's tokens and the `ast` screen's facts (no
                 LibCST), torch names, types, guards, flow, tree walks
    contract/    what every layer speaks: reports and fixes (diagnostics.py), the version and
                 project URLs (project.py)

This module, the public API, is a front end too. At import it reads only contract/project.py (the
version); the layers that do the work are imported inside its functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from devlint.contract.project import DOCS_URL, PROJECT_URL, __version__

if TYPE_CHECKING:  # pragma: no cover
    from devlint.contract.diagnostics import Diagnostic, FixResult
    from devlint.engine.settings import Settings

__all__ = ["__version__", "lint_source", "fix_source", "PROJECT_URL", "DOCS_URL"]


def lint_source(source: str, path: str = "<string>", settings: "Settings | None" = None) -> "list[Diagnostic]":
    """Lint one module's source text and return its reports, sorted by position."""
    from devlint.engine.settings import DEFAULT_SETTINGS
    from devlint.sources import document

    return document.check(document.PythonSource(path, source), settings or DEFAULT_SETTINGS)


def fix_source(
    source: str, path: str = "<string>", settings: "Settings | None" = None, *, unsafe: bool = False
) -> "FixResult":
    """Apply every available fix (safe ones, plus unsafe ones when asked) and return the result."""
    from devlint.engine.settings import DEFAULT_SETTINGS
    from devlint.sources import document

    return document.fix(document.PythonSource(path, source), settings or DEFAULT_SETTINGS, unsafe=unsafe).result
