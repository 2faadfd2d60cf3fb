"""Run flake8 with some installed plugins left out: `flake8_with_plugins.py --drop devlint,TorchFix -- ARGS`.

flake8 loads every installed plugin on every file. To time flake8 "without devlint" in the same
environment, this wraps flake8's plugin discovery and drops the named distributions; the rest of
flake8 (pycodestyle, pyflakes, mccabe) runs unchanged.
"""

from __future__ import annotations

import sys

from flake8.main.cli import main
from flake8.plugins import finder


def _dropping(names: set[str]):  # type: ignore[no-untyped-def]
    original = finder._find_importlib_plugins

    def find():  # type: ignore[no-untyped-def]
        return (plugin for plugin in original() if plugin.package.lower() not in names)

    return find


if __name__ == "__main__":
    args = sys.argv[1:]
    drop: set[str] = set()
    if args[:1] == ["--drop"]:
        drop = {name.strip().lower() for name in args[1].split(",") if name.strip()}
        args = args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    finder._find_importlib_plugins = _dropping(drop)
    sys.exit(main(args))
