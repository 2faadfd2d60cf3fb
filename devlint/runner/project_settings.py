"""The settings a file is checked with when front ends are handed files one at a time (the editor's
documents, the files flake8 names): the configuration nearest its folder, read as the CLI reads it.

Each folder's answer is kept with the modification time of the file it came from and checked
again (one `stat`) before use, so an edited `pyproject.toml` or `setup.cfg` takes effect on the
next check even where the client does not report file changes; `forget()` (on
`workspace/didChangeWatchedFiles`) also catches a configuration file created or deleted.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional, Sequence

from devlint.engine.settings import Settings
from devlint.rules import rule_codes
from devlint.runner.config import ConfigError, find_config, settings_from

CONFIG_FILES = ("pyproject.toml", "setup.cfg")


@dataclass(frozen=True)
class Resolved:
    settings: Settings
    config: Optional[str]  # the file the settings came from
    mtime: Optional[float]
    error: Optional[str] = None  # a configuration the user must fix (the defaults are used meanwhile)


def _mtime(path: Optional[str]) -> Optional[float]:
    if path is None:
        return None
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


class ProjectSettings:
    def __init__(self, roots: Sequence[str] = ()) -> None:
        self.roots = [os.path.abspath(root) for root in roots]
        self._by_folder: dict[str, Resolved] = {}

    def forget(self) -> None:
        self._by_folder.clear()

    def resolve(self, path: str) -> Resolved:
        folder = os.path.dirname(os.path.abspath(path))
        known = self._by_folder.get(folder)
        if known is not None and (known.config is None or _mtime(known.config) == known.mtime):
            return known
        resolved = self._read(folder)
        self._by_folder[folder] = resolved
        return resolved

    def _read(self, folder: str) -> Resolved:
        root = self._root_of(folder)
        try:
            found = find_config(folder)
            if found is None:
                return Resolved(Settings(root=root), None, None)
            config, raw = found
            settings = settings_from(raw, config, os.path.dirname(config), rule_codes())
            return Resolved(settings, config, _mtime(config))
        except ConfigError as error:
            config = _nearest_config_file(folder)
            return Resolved(Settings(root=root), config, _mtime(config), str(error))

    def _root_of(self, folder: str) -> str:
        """Without a configuration file, per-file-ignores and excludes are relative to the
        workspace folder holding the file (the CLI's: the directory it runs in)."""
        holding = [root for root in self.roots if folder == root or folder.startswith(root + os.sep)]
        return max(holding, key=len) if holding else folder


def _nearest_config_file(folder: str) -> Optional[str]:
    directory = folder
    while True:
        for name in CONFIG_FILES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent

