"""The flake8 plugin (`flake8 --select DEV`): a thin adapter over the engine.

flake8 runs every installed plugin on every file whatever `--select` says, so the plugin
relies on the engine's prefilter (the same as the CLI's): files without the rules' tokens,
or whose `ast` has no candidate for any rule, are never parsed by LibCST. flake8 hands the
plugin the `ast` it parsed already, so the screen costs one walk of it. flake8 does its own
`# noqa`; the plugin reports what `devlint` would report on the file, with the same configuration
(`[tool.devlint]` / `[devlint]` nearest the file: select, ignore, per-file-ignores, excludes, the
target torch, the line length, preview), so that `flake8 --select DEV` and `devlint` agree. Preview
(rules and shapes not yet measured to the default bar) is also flake8's option `--devlint-preview`,
read from flake8's configuration too (`devlint-preview = true` under `[flake8]`); a preview rule named by
its full code in flake8's `--select` runs, as with `devlint --select`. A rule that fails on
a file is a visible `DEV998` line; syntax errors are flake8's own `E999`.
"""

from __future__ import annotations

import ast
import os
from dataclasses import replace
from typing import Any, Iterator, Sequence

from devlint.contract.project import __version__

_PROJECTS = None  # one per flake8 process: the configuration of each folder, read once
_FILTERS: dict = {}  # Settings -> WalkFilter
_PREVIEW = False  # flake8's --devlint-preview
_NAMED_PREVIEW_RULES: tuple[str, ...] = ()  # preview rules flake8's --select names by their full code


def _settings_for(filename: str):  # type: ignore[no-untyped-def]
    """The settings `devlint` would check `filename` with: the `[tool.devlint]` / `[devlint]` table
    nearest the file's folder; without one, the defaults with paths relative to where flake8 runs
    (as the CLI's). A configuration error is raised: flake8 stops and shows it."""
    global _PROJECTS
    if _PROJECTS is None:
        from devlint.runner.project_settings import ProjectSettings

        _PROJECTS = ProjectSettings([os.getcwd()])
    resolved = _PROJECTS.resolve(filename)
    if resolved.error is not None:
        from devlint.runner.config import ConfigError

        raise ConfigError(resolved.error)
    settings = resolved.settings
    if _NAMED_PREVIEW_RULES:  # `flake8 --select DEV004`: asked for by name, as `devlint --select DEV004`
        settings = replace(settings, extend_select=(*settings.extend_select, *_NAMED_PREVIEW_RULES))
    return replace(settings, preview=True) if _PREVIEW else settings


def _skipped(filename: str, settings) -> bool:  # type: ignore[no-untyped-def]
    """Whether `devlint`'s walk of the project would leave the file out (its excludes, git's ignores)."""
    if filename in ("-", "<stdin>", "stdin"):
        return False
    walk_filter = _FILTERS.get(settings)
    if walk_filter is None:
        from devlint.runner.discovery import WalkFilter

        walk_filter = _FILTERS[settings] = WalkFilter(settings)
    return walk_filter.skips(filename)


class Plugin:
    name = "devlint"
    version = __version__

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.add_option("--devlint-preview", action="store_true", default=False, parse_from_config=True,
                           help="devlint: run the rules and rule shapes in preview (default: off)")

    @classmethod
    def parse_options(cls, options: Any) -> None:
        global _PREVIEW, _NAMED_PREVIEW_RULES
        from devlint.engine.settings import preview_codes

        _PREVIEW = bool(getattr(options, "devlint_preview", False))
        named = [*(getattr(options, "select", None) or ()), *(getattr(options, "extend_select", None) or ())]
        _NAMED_PREVIEW_RULES = tuple(sorted(set(named) & preview_codes()))

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str = "<stdin>") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename
        # Read here, not in run(): flake8 turns an exception raised while it makes the plugin into
        # one "critical error" line and exit 1 (one raised while it iterates run() is a traceback).
        self.settings = _settings_for(filename)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from devlint.sources import document

        if _skipped(self.filename, self.settings):
            return
        source = document.PythonSource(self.filename, "".join(self.lines))
        for d in document.check(source, self.settings, ignore_noqa=True, tree=self.tree):
            if d.code == "DEV999":
                continue  # flake8 reports syntax errors itself (E999)
            yield d.line, d.col - 1, f"{d.code} {d.message}", type(self)
