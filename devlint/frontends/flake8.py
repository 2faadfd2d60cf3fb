"""The flake8 plugin (`flake8 --select DEV`): a thin adapter over the engine.

flake8 runs every installed plugin on every file whatever `--select` says, so the plugin
relies on the engine's prefilter (the same as the CLI's): files without the rules' tokens,
or whose `ast` has no candidate for any rule, are never parsed by LibCST. flake8 hands the
plugin the `ast` it parsed already, so the screen costs one walk of it. flake8 does its own
`# noqa` and selection; the plugin reports everything the engine finds. Preview (rules and
shapes not yet measured to the default bar) is flake8's option `--devlint-preview`, also read
from flake8's configuration (`devlint-preview = true` under `[flake8]`).
"""

from __future__ import annotations

import ast
from typing import Any, Iterator, Sequence

from devlint.contract.project import __version__

_ALL_SETTINGS = None
_PREVIEW = False


def _settings():  # type: ignore[no-untyped-def]
    global _ALL_SETTINGS
    if _ALL_SETTINGS is None:
        from devlint.engine.settings import Settings

        _ALL_SETTINGS = Settings(select=("DEV",), preview=_PREVIEW)
    return _ALL_SETTINGS


class Plugin:
    name = "devlint"
    version = __version__

    @classmethod
    def add_options(cls, manager: Any) -> None:
        manager.add_option("--devlint-preview", action="store_true", default=False, parse_from_config=True,
                           help="devlint: run the rules and rule shapes in preview (default: off)")

    @classmethod
    def parse_options(cls, options: Any) -> None:
        global _ALL_SETTINGS, _PREVIEW
        _PREVIEW = bool(getattr(options, "devlint_preview", False))
        _ALL_SETTINGS = None

    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str = "<stdin>") -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from devlint.sources import document

        source = document.PythonSource(self.filename, "".join(self.lines))
        for d in document.check(source, _settings(), ignore_noqa=True, tree=self.tree):
            if d.code == "DEV999":
                continue  # flake8 reports syntax errors itself (E999)
            yield d.line, d.col - 1, f"{d.code} {d.message}", type(self)
