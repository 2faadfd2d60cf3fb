"""Finding the files to check: walking the paths given, and what `exclude`, git and virtual
environments keep out."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import PurePath
from typing import Iterable, Iterator, Optional

from devlint.engine.settings import Settings
from devlint.runner.errors import UsageError
from devlint.runner.ignores import Excludes, GitIgnores, Skipped, is_virtualenv, repository_top
from devlint.sources.files import NOTEBOOK_SUFFIX

PYTHON_SUFFIXES = (".py", ".pyi")
SOURCE_SUFFIXES = (*PYTHON_SUFFIXES, NOTEBOOK_SUFFIX)


def discover(paths: Iterable[str], settings: Settings, skipped: Optional[list[Skipped]] = None) -> Iterator[str]:
    """Files to check, in sorted order within each given path, written without a leading `./`.

    A directory walk skips what `exclude`/`extend-exclude` match, what git ignores (with
    `respect-gitignore`) and virtual environments. A file named explicitly is checked unless
    `force-exclude` is on and `exclude` matches it (or a folder above it). What was skipped, and
    why, goes to `skipped` when given."""
    walker = _Walker(settings, skipped if skipped is not None else [])
    for path in paths:
        if os.path.isdir(path):
            yield from walker.walk(path)
        elif os.path.lexists(path):
            if not walker.forced_out(path):
                yield clean_path(path)
        else:
            raise UsageError(f"{path}: no such file or directory")


def is_excluded(path: str, settings: Settings) -> bool:
    """Whether `exclude`/`extend-exclude` (or a virtualenv above it) keeps out `path`, read as
    force-exclude reads a named file: for stdin and editors, which name every buffer they hold."""
    return _Walker(dataclasses.replace(settings, force_exclude=True), []).forced_out(path)


class WalkFilter:
    """Whether a directory walk of the project (of `settings.root`) would skip a file: for front ends
    handed files one at a time by another tool's walk (the flake8 plugin), so that they check what
    `devlint` would. The file, and every folder between the root and it, are tested as the walk tests
    them: `exclude`/`extend-exclude`, git's ignores (with `respect-gitignore`), virtualenvs."""

    def __init__(self, settings: Settings) -> None:
        self._walker = _Walker(settings, [])
        self._root = os.path.abspath(settings.root)
        self._folders: dict[str, bool] = {}  # folder -> skipped (it or a folder above it)

    def skips(self, path: str) -> bool:
        target = os.path.abspath(path)
        gitignores = self._walker._repository(os.path.dirname(target))
        return (self._folder_skipped(os.path.dirname(target), gitignores)
                or self._walker._skip(target, False, None, gitignores))

    def _folder_skipped(self, folder: str, gitignores: Optional[GitIgnores]) -> bool:
        if not folder.startswith(self._root + os.sep):
            return False  # the root itself, and what is above it, are where the walk starts
        if folder not in self._folders:
            self._folders[folder] = (self._folder_skipped(os.path.dirname(folder), gitignores)
                                     or self._walker._skip(folder, True, None, gitignores))
        return self._folders[folder]


def clean_path(path: str) -> str:
    """`path` as reports write it: `./src/x.py` and `src//x.py` are `src/x.py`. A `..` stays
    (through a symbolic link, `a/../b` need not be `b`)."""
    if os.sep == "/" and path and _UNCLEAN.search(path) is None:
        return path  # (what a walk joins is clean already: PurePath would give it back as it is)
    return str(PurePath(path))


# What PurePath changes in a POSIX path: doubled slashes, a `.` component, a slash at the end.
_UNCLEAN = re.compile(r"//|(?:^|/)\.(?:/|$)|/$")


class _Walker:
    def __init__(self, settings: Settings, skipped: list[Skipped]) -> None:
        self.settings = settings
        self.skipped = skipped
        self.excludes = Excludes(settings)
        self._gitignores: dict[str, GitIgnores] = {}

    def walk(self, root: str) -> Iterator[str]:
        # What is at or above the folder named on the command line does not exclude it (as ruff),
        # unless force-exclude is on.
        floor = None if self.settings.force_exclude else os.path.abspath(root)
        if floor is None and self._skip(root, True, None):
            return
        gitignores = self._repository(root)
        found: list[str] = []
        for directory, dirnames, filenames in os.walk(root, followlinks=False):
            kept = []
            for name in sorted(dirnames):
                if not self._skip(os.path.join(directory, name), True, floor, gitignores):
                    kept.append(name)
            dirnames[:] = kept
            for name in filenames:
                if name.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(directory, name)
                    if not self._skip(path, False, floor, gitignores):
                        found.append(clean_path(path))
        yield from sorted(found)

    def forced_out(self, path: str) -> bool:
        """With force-exclude: whether `exclude` matches this file named on the command line (or a
        folder above it up to the configuration's folder), or a folder above it is a virtualenv."""
        if not self.settings.force_exclude:
            return False
        if self._skip(path, False, None):
            return True
        root = os.path.abspath(self.settings.root)
        directory = os.path.dirname(os.path.abspath(path))
        while directory.startswith(root + os.sep):
            marker = is_virtualenv(directory)
            if marker is not None:
                self.skipped.append(Skipped(clean_path(path), f"inside a virtual environment (has {marker})"))
                return True
            directory = os.path.dirname(directory)
        return False

    def _repository(self, root: str) -> Optional[GitIgnores]:
        if not self.settings.respect_gitignore:
            return None
        top = repository_top(root)
        if top is None:
            return None
        if top not in self._gitignores:
            self._gitignores[top] = GitIgnores(top)
        return self._gitignores[top]

    def _skip(self, path: str, is_dir: bool, floor: Optional[str],
              gitignores: Optional[GitIgnores] = None) -> bool:
        reason = self.excludes.reason(path, is_dir, floor)
        if reason is None and gitignores is not None:
            reason = gitignores.reason(path, is_dir, floor)
            reason = f"ignored by git: {reason}" if reason else None
        elif reason is not None:
            reason = f"excluded by {reason}"
        if reason is None and is_dir:
            marker = is_virtualenv(path)
            reason = f"a virtual environment (has {marker})" if marker else None
        if reason is None:
            return False
        self.skipped.append(Skipped(clean_path(path) + ("/" if is_dir else ""), reason))
        return True
