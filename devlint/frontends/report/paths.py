"""Paths as CI services read them: relative to the repository root, `/`-separated.

GitHub annotations, SARIF, GitLab Code Quality and JUnit name files relative to the repository
(the checkout), whichever folder devlint ran from: a path relative to a subfolder would point
nowhere in the pull request."""

from __future__ import annotations

import os

from devlint.contract.display import display_path
from devlint.runner.ignores import repository_top


def repository_root(start: str) -> str:
    """The git top level at or above `start`, else `start` itself (the config file's folder or the cwd)."""
    return repository_top(start) or os.path.abspath(start)


def relative_path(path: str, root: str) -> str:
    """`path` relative to `root` with `/` separators; absolute when it lies outside `root`."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive on Windows
        relative = os.pardir
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        relative = absolute
    return relative.replace(os.sep, "/")


def shown_relative_path(path: str, root: str) -> str:
    """`relative_path` as annotations and reports show it: a name that is not UTF-8 with `\\xe9`-style escapes."""
    return display_path(relative_path(path, root))
