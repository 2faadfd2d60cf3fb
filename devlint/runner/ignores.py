"""Which paths a directory walk skips, and why: `exclude` patterns, `.gitignore` files, virtual
environments.

Patterns are gitignore patterns, matched by `pathspec` (the library git-aware Python tools use):
`*` stays within one path segment, `**` crosses them, a pattern with a `/` before its end is
anchored to its base directory, a trailing `/` matches directories only, `!` re-includes. A
directory named on the command line is walked even when it is excluded or ignored itself (as in
ruff); what is below it is judged by the patterns.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

from devlint.engine.settings import DEFAULT_EXCLUDES, Settings

if TYPE_CHECKING:
    import pathspec

# A folder is a virtual environment because of what it holds, whatever its name.
VIRTUALENV_MARKERS = ("pyvenv.cfg", "conda-meta")


@dataclass(frozen=True)
class Skipped:
    """A path a walk did not check: what it is (relative, "/" after a directory) and why."""

    path: str
    reason: str


class _Patterns:
    """Gitignore patterns read relative to `base`, each with the words that say where it came from."""

    def __init__(self, base: str, lines: Sequence[tuple[str, str]]) -> None:
        import pathspec  # on first use: worker processes that only check files never need it

        self.base = base
        spec = pathspec.GitIgnoreSpec.from_lines([line for line, _ in lines])
        # from_lines drops blank lines and keeps comments as patterns that match nothing: pair
        # each compiled pattern with its origin by the text it was compiled from.
        origins = iter(lines)
        self.patterns: list[tuple["pathspec.Pattern", str]] = []
        for pattern in spec.patterns:
            text = getattr(pattern, "pattern", None)
            for line, origin in origins:
                if line == text:
                    break
            else:  # pragma: no cover - pathspec kept a line we did not give it
                origin = "?"
            if pattern.include is not None:
                self.patterns.append((pattern, origin))

    def verdict(self, path: str, is_dir: bool, floor: Optional[str]) -> Optional[tuple[bool, str]]:
        """(ignored?, origin) of the last pattern matching `path` (absolute), or None when none does.
        A match through a directory at or above `floor` (the walk's start, absolute) does not count."""
        relative = _relative(path, self.base)
        if relative is None:
            return None
        relative += "/" if is_dir else ""
        start = _relative(floor, self.base) if floor is not None else None
        floor_length = len(start) + 1 if start else 0
        found = None
        for pattern, origin in self.patterns:
            match = pattern.regex.match(relative)  # type: ignore[attr-defined]
            if match is None:
                continue
            via_directory = match.groupdict().get("ps_d")
            if via_directory is not None and match.start("ps_d") < floor_length:
                continue  # matched as an ancestor the user named or walked from
            found = (bool(pattern.include), origin)
        return found


def _relative(path: str, base: str) -> Optional[str]:
    """`path` relative to `base` with "/" separators ("" for `base` itself); None when outside it. Both are
    absolute and normalised (`os.path.abspath`): a path below `base` is then its text after `base/`."""
    if os.sep + ".." not in path:
        if path.startswith(base) and path[len(base):len(base) + 1] == os.sep:
            return path[len(base) + 1:].replace(os.sep, "/")  # (the walk's hot path: relpath per file is slow)
        if os.name == "posix" and path != base:
            return None  # neither `base` nor below it: relpath's answer would climb out with ".."
    try:
        relative = os.path.relpath(path, base)
    except ValueError:  # another drive on Windows
        return None
    if relative == ".":
        return ""
    if relative == ".." or relative.startswith(".." + os.sep):
        return None
    return relative.replace(os.sep, "/")


class Excludes:
    """`exclude` (or the defaults) and `extend-exclude`, relative to the configuration's folder."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._patterns: Optional[_Patterns] = None  # compiled when first asked: a run of named files never is

    def reason(self, path: str, is_dir: bool, floor: Optional[str] = None) -> Optional[str]:
        if self._patterns is None:
            settings = self._settings
            exclude = settings.exclude if settings.exclude else DEFAULT_EXCLUDES
            origin = "exclude" if settings.exclude else "default exclude"
            lines = [(_compatible(p), f"{origin} '{p}'") for p in exclude]
            lines += [(_compatible(p), f"extend-exclude '{p}'") for p in settings.extend_exclude]
            self._patterns = _Patterns(os.path.abspath(settings.root), lines)
        verdict = self._patterns.verdict(os.path.abspath(path), is_dir, floor)
        return verdict[1] if verdict is not None and verdict[0] else None


def _compatible(pattern: str) -> str:
    """devlint's older excludes wrote `./build` for the root's build folder; gitignore writes `/build`."""
    return "/" + pattern[2:] if pattern.startswith("./") else pattern


class GitIgnores:
    """What git ignores in one repository: every `.gitignore` from the top down to a path (the
    deeper file wins), then `.git/info/exclude`, then the user's global excludes file."""

    def __init__(self, top: str) -> None:
        self.top = top
        self._files: dict[str, Optional[_Patterns]] = {}
        self._outer = [spec for spec in (_read(path, top) for path in _repository_excludes(top)) if spec]

    def reason(self, path: str, is_dir: bool, floor: Optional[str] = None) -> Optional[str]:
        path = os.path.abspath(path)
        directory = os.path.dirname(path)
        chain: list[_Patterns] = []
        while True:
            spec = self._gitignore(directory)
            if spec is not None:
                chain.append(spec)
            if directory == self.top or os.path.dirname(directory) == directory:
                break
            directory = os.path.dirname(directory)
        for spec in (*chain, *reversed(self._outer)):  # the nearest file first
            verdict = spec.verdict(path, is_dir, floor)
            if verdict is not None:
                return verdict[1] if verdict[0] else None
        return None

    def _gitignore(self, directory: str) -> Optional[_Patterns]:
        if directory not in self._files:
            self._files[directory] = _read(os.path.join(directory, ".gitignore"), directory)
        return self._files[directory]


def _read(path: str, base: str) -> Optional[_Patterns]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    shown = _shown(path)
    numbered = [(line, f"{shown}:{number} '{line.strip()}'") for number, line in enumerate(lines, 1)
                if line.strip() and not line.startswith("#")]
    return _Patterns(base, numbered) if numbered else None


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def repository_top(path: str) -> Optional[str]:
    """The work tree's top folder holding `path`: the nearest folder with a `.git` (a folder, or the
    file a worktree or submodule has); None outside a repository."""
    directory = os.path.abspath(path if os.path.isdir(path) else os.path.dirname(path) or ".")
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _repository_excludes(top: str) -> list[str]:
    """The global excludes file, then `info/exclude` of the repository's git folder (lowest first)."""
    found = [_global_excludes_file(top)]
    git = os.path.join(top, ".git")
    if os.path.isfile(git):  # a worktree or submodule: "gitdir: PATH"
        try:
            with open(git, encoding="utf-8") as handle:
                target = handle.read().strip()
        except OSError:
            target = ""
        git = os.path.join(top, target[len("gitdir:"):].strip()) if target.startswith("gitdir:") else ""
        common = os.path.join(git, "commondir")
        if git and os.path.isfile(common):  # a worktree's info/ is the main repository's
            with open(common, encoding="utf-8") as handle:
                git = os.path.join(git, handle.read().strip())
    if git:
        found.append(os.path.join(git, "info", "exclude"))
    return [path for path in found if path]


def _global_excludes_file(top: str) -> str:
    """`core.excludesFile` as git resolves it, else git's default `$XDG_CONFIG_HOME/git/ignore`."""
    import subprocess  # (only where a walk meets a repository)

    try:
        result = subprocess.run(["git", "config", "--path", "--get", "core.excludesFile"], cwd=top,
                                capture_output=True, text=True, timeout=10)
        if result.returncode == 0 and result.stdout.strip():
            return os.path.expanduser(result.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    config_home = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(config_home, "git", "ignore")


def is_virtualenv(directory: str) -> Optional[str]:
    """The marker that makes `directory` a virtual environment (`pyvenv.cfg`, `conda-meta`), if any."""
    for marker in VIRTUALENV_MARKERS:
        if os.path.exists(os.path.join(directory, marker)):
            return marker
    return None
