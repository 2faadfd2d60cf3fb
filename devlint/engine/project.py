"""The project a file belongs to, and its files, for the project index (devlint/analysis/project_index.py).

The project's root is the nearest folder above the file that holds a project marker (`pyproject.toml`,
`setup.py`, `setup.cfg`, `.git`); without one, the folder above the file's outermost package (the
first folder up without an `__init__.py`). Its files are every `*.py` below the root but those in
the default excludes, hidden folders and virtual environments. One index per root is kept for the
process; its files are read only when a rule asks a question whose word their text holds.

The result cache keeps the index's answers between runs (devlint/runner/cache.py) under the files'
fingerprint: their paths, sizes and modification times, taken before the index reads any of them.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import os
import time
from typing import Iterator, Optional

from devlint.analysis.project_index import ProjectIndex
from devlint.engine.settings import DEFAULT_EXCLUDES, DEFAULT_MAX_FILE_SIZE

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
# A project bigger than this is read no further: the facts of the files read so far stand, and
# every fact says "not known" rather than costing a minute per question.
MAX_FILES = 20_000
# A file changed this recently may change again within the same tick of a coarse file-system clock without
# its modification time moving: a fingerprint that sees one is not taken (git's "racily clean" files).
RACY_SECONDS = 2.0


def project_root(path: str) -> Optional[str]:
    """The root of the project `path` belongs to; None for a text with no file (`<string>`, `-`)."""
    if not path or path.startswith("<") or path == "-":
        return None
    directory = os.path.dirname(os.path.abspath(path))
    return _root_of(directory)


@functools.lru_cache(maxsize=256)
def _root_of(directory: str) -> str:
    current = directory
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in PROJECT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    current = directory
    while os.path.isfile(os.path.join(current, "__init__.py")):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


def index_for(path: str) -> Optional[ProjectIndex]:
    """The index of `path`'s project (one per root for the process), or None."""
    root = project_root(path)
    return None if root is None else _index(root)


@functools.lru_cache(maxsize=16)
def _index(root: str) -> ProjectIndex:
    return ProjectIndex(functools.partial(_files_holding, root), functools.partial(_text_of, root))


def forget_project_indexes() -> None:
    """Drop every kept index and file list (an editor's files changed): the next question reads again."""
    _index.cache_clear()
    _python_files.cache_clear()
    _python_file_set.cache_clear()
    _read_under.clear()


def files_fingerprint(root: str) -> Optional[str]:
    """The state of the project's files as their metadata shows it: each one's path, size, modification time and
    inode. None where that cannot vouch for their text: a file changed in the last `RACY_SECONDS` (or dated in
    the future), or one that cannot be looked at."""
    digest = hashlib.sha256(os.fsencode(root))  # (a name that is not UTF-8 is kept as its bytes)
    now = time.time()
    for path in _python_files(root):
        try:
            status = os.stat(path)
        except OSError:
            return None
        if now - status.st_mtime <= RACY_SECONDS:  # (a date in the future too)
            return None
        digest.update(os.fsencode(f"\0{path}\0{status.st_size}\0{status.st_mtime_ns}\0{status.st_ino}"))
    return digest.hexdigest()


def index_fingerprint(root: str) -> Optional[str]:
    """The fingerprint of the project's files taken before this process's index first read one of them (what its
    answers were read from); None before it read any, or where no fingerprint could be taken."""
    return _read_under.get(root)


# root -> the files' fingerprint when the index of that root first read them
_read_under: dict[str, Optional[str]] = {}


@functools.lru_cache(maxsize=16)
def _python_files(root: str) -> tuple[str, ...]:
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not _skipped(directory, d))
        found.extend(os.path.join(directory, name) for name in sorted(filenames) if name.endswith(".py"))
        if len(found) >= MAX_FILES:
            break
    return tuple(found[:MAX_FILES])


def _skipped(directory: str, name: str) -> bool:
    if name.startswith(".") or any(fnmatch.fnmatchcase(name, pattern) for pattern in DEFAULT_EXCLUDES):
        return True
    folder = os.path.join(directory, name)
    return os.path.exists(os.path.join(folder, "pyvenv.cfg")) or os.path.isdir(os.path.join(folder, "conda-meta"))


def _reading(root: str) -> None:
    """Before the index first reads `root`'s files: take their fingerprint (the cache keeps its answers under it)."""
    if root not in _read_under:
        _read_under[root] = files_fingerprint(root)


def _text_of(root: str, path: str) -> Optional[str]:
    """The text of the project's file at `path`; None where it is not one of the project's files."""
    _reading(root)
    if path not in _python_file_set(root):
        return None
    try:
        with open(path, "rb") as handle:
            raw = handle.read(DEFAULT_MAX_FILE_SIZE + 1)
    except OSError:
        return None
    return raw.decode("utf-8", errors="replace") if len(raw) <= DEFAULT_MAX_FILE_SIZE else None


@functools.lru_cache(maxsize=16)
def _python_file_set(root: str) -> frozenset[str]:
    return frozenset(_python_files(root))


def _files_holding(root: str, word: str) -> Iterator[tuple[str, str]]:
    """(path, text) of the project's files whose text holds `word`."""
    _reading(root)
    needle = word.encode()
    for path in _python_files(root):
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except OSError:
            continue
        if needle in raw and len(raw) <= DEFAULT_MAX_FILE_SIZE:  # (a generated module: its parse would cost GBs)
            yield path, raw.decode("utf-8", errors="replace")
