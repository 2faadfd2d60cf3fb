"""Check or fix a list of files: the work behind the CLI, one outcome per file."""

from __future__ import annotations

import contextlib
import difflib
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, Optional

from devlint.contract.diagnostics import Diagnostic
from devlint.contract.display import display_path
from devlint.engine.engine import MAX_FIX_PASSES
from devlint.engine.settings import Settings
from devlint.sources import document
from devlint.sources.files import NOTEBOOK_SUFFIX, SourceError, read_bytes, write_source

if TYPE_CHECKING:  # pragma: no cover
    from devlint.runner.cache import Cache  # (imported by the CLI only where the cache is used)


@dataclass
class FileOutcome:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: Optional[str] = None  # could not read / write: the message
    fixed: dict[str, int] = field(default_factory=dict)  # code -> fixes applied
    diff: str = ""  # with --diff
    warnings: list[str] = field(default_factory=list)  # printed, but the run goes on (and may write)


@dataclass(frozen=True)
class Mode:
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    with_edits: bool = False  # output formats that show fix edits need them


def process(path: str, settings: Settings, mode: Mode, cache: Optional[Cache] = None) -> FileOutcome:
    """Check (or fix) one file. Check results of Python files come from, and go to, `cache` when given."""
    outcome = FileOutcome(path)
    with recording_errors(outcome):
        if not (mode.fix or mode.diff):
            return _check(path, settings, mode, cache, outcome)
        file, source = document.read(path)
        fixed = document.fix(source, settings, unsafe=mode.unsafe_fixes)
        result = fixed.result
        outcome.diagnostics = result.remaining
        if not result.converged:
            outcome.warnings.append(not_converged(path))
        if result.unparsable:
            # a fix that breaks the parse is a devlint bug: leave the whole file as it was
            outcome.diagnostics = document.check(source, settings)
            codes = ", ".join(sorted(set(result.unparsable)))
            outcome.error = f"{path}: a {codes} fix would produce code that does not parse; file left unchanged"
            return outcome
        if fixed.text != file.text:
            outcome.fixed = result.fixed
            if mode.diff:
                outcome.diff = unified_diff(path, split_lines(file.text), split_lines(fixed.text))
            else:
                try:
                    write_source(file, fixed.text)
                except SourceError:
                    outcome.diagnostics = document.check(source, settings)  # nothing was fixed
                    raise
    return outcome


def _cached(path: str, settings: Settings, mode: Mode, cache: Cache) -> Optional[FileOutcome]:
    """The stored outcome of checking a Python file, or None (not stored, not readable, a notebook, a fix run):
    the file is then checked as usual, and its error, if any, reported there."""
    if mode.fix or mode.diff or path.endswith(NOTEBOOK_SUFFIX):
        return None
    try:
        cached, _, _, _ = _stored(path, settings, mode, cache)
    except SourceError:
        return None
    return None if cached is None else FileOutcome(path, cached)


def _stored(path: str, settings: Settings, mode: Mode,
            cache: Cache) -> tuple[Optional[list[Diagnostic]], Optional[os.stat_result], Optional[bytes], str]:
    """(the stored reports or None, the file's status before it was read, its bytes or None, their key) of a
    Python file. The file's status stands for its bytes where the cache recorded it so (`Cache.by_status`):
    then the file is not even read. Otherwise its bytes are the key (SourceError where they cannot be read)."""
    try:
        status: Optional[os.stat_result] = os.stat(path)
    except OSError:
        status = None
    if status is not None:
        cached = cache.by_status(path, status, settings, mode.with_edits)
        if cached is not None:
            return cached, status, None, ""
    raw = read_bytes(path)
    key = cache.key(path, raw, settings, mode.with_edits)
    cached = cache.get(key, path)
    if cached is not None:
        cache.remember_status(path, status, key, settings, mode.with_edits)
    return cached, status, raw, key


def _check(path: str, settings: Settings, mode: Mode, cache: Optional[Cache], outcome: FileOutcome) -> FileOutcome:
    if cache is None:
        _, source = document.read(path)
        outcome.diagnostics = document.check(source, settings, with_fixes=mode.with_edits)
        return outcome
    # A Python file's bytes are its key: it is decoded only where the cache has no answer. (Notebooks are
    # cached too: their reports hold their cells.)
    source: Optional[document.Source] = None
    status: Optional[os.stat_result] = None
    if path.endswith(NOTEBOOK_SUFFIX):
        file, source = document.read(path)
        raw: Optional[bytes] = file.raw
        key = cache.key(path, file.raw, settings, mode.with_edits)
        cached = cache.get(key, path)
    else:
        cached, status, raw, key = _stored(path, settings, mode, cache)
    if cached is not None:
        outcome.diagnostics = cached
        return outcome
    if source is None:
        _, source = document.read(path, raw)
    index_reads: dict[str, object] = {}
    outcome.diagnostics = document.check(source, settings, with_fixes=mode.with_edits, index_reads=index_reads)
    cache.put(key, outcome.diagnostics, index_reads, path)
    cache.remember_status(path, status, key, settings, mode.with_edits)
    return outcome


@contextlib.contextmanager
def recording_errors(outcome: FileOutcome) -> Iterator[None]:
    """A file that cannot be read, written or analysed becomes the outcome's error, never a traceback."""
    try:
        yield
    except SourceError as error:
        outcome.error = str(error)
        outcome.fixed = {}
    except RecursionError:
        outcome.error = f"{outcome.path}: too deeply nested to analyse (recursion limit)"


def not_converged(path: str) -> str:
    return (f"{path}: fixes kept changing the file after {MAX_FIX_PASSES} rounds (or undid each other);"
            " the last round's result is kept. This is a devlint bug: please report it")


def split_lines(text: str) -> list[str]:
    """Lines as Python and git see them: ended by "\n" only (a "\r" or "\f" stays in its line)."""
    lines = text.split("\n")
    result = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1])
    return result


def unified_diff(path: str, old_lines: list[str], new_lines: list[str]) -> str:
    """What `--diff` prints for one file: a patch `git apply` (and `patch -p1`) applies from the
    current directory. Paths are relative to it where the file is below it; a last line without
    a line break is marked as git marks it."""
    name = diff_path(path)
    out = []
    for line in difflib.unified_diff(old_lines, new_lines, fromfile=git_quoted(f"a/{name}"),
                                     tofile=git_quoted(f"b/{name}")):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_path(path: str) -> str:
    """`path` as a diff names it: relative to the current directory, with "/" separators."""
    try:
        relative = os.path.relpath(os.path.abspath(path))
    except ValueError:  # another drive on Windows
        relative = path
    if relative.startswith(".."):
        relative = os.path.abspath(path)
    return relative.replace(os.sep, "/")


_GIT_ESCAPES = {ord('"'): '\\"', ord("\\"): "\\\\", ord("\a"): "\\a", ord("\b"): "\\b", ord("\t"): "\\t",
                ord("\n"): "\\n", ord("\v"): "\\v", ord("\f"): "\\f", ord("\r"): "\\r"}


def git_quoted(name: str) -> str:
    """`name` as a diff header holds it: unchanged when it is UTF-8 text, else quoted as git quotes it
    (`"a/caf\\351.py"`, each byte that is not printable ASCII in octal), which `git apply` and GNU
    `patch` read back to the file's own bytes."""
    if display_path(name) == name and name.isprintable():
        return name
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte (a broken name on Windows)
        return display_path(name)
    return '"' + "".join(_GIT_ESCAPES.get(byte) or (chr(byte) if 0x20 <= byte < 0x7F else f"\\{byte:03o}")
                         for byte in raw) + '"'


# Lookups in the main process go on while at least half of them find the file's reports, and for this many at least:
# a cold cache (a first run, a CI runner) then pays for a few lookups there, not one more per file.
LOOKUPS_BEFORE_GIVING_UP = 64


def _looked_up(paths: list[str], settings: Settings, mode: Mode, cache: Cache) -> dict[int, FileOutcome]:
    """The outcomes the cache holds, by position in `paths`, looked up here. Where the cache holds few of the
    files, the rest are left to the workers, which look each up before they check it."""
    stored: dict[int, FileOutcome] = {}
    for i, path in enumerate(paths):
        if i >= LOOKUPS_BEFORE_GIVING_UP and 2 * len(stored) < i:
            break
        found = _cached(path, settings, mode, cache)
        if found is not None:
            stored[i] = found
    return stored


def run(paths: Iterable[str], settings: Settings, mode: Mode, jobs: int = 1,
        cache: Optional[Cache] = None) -> Iterator[FileOutcome]:
    """Outcomes in the order of `paths`; with `jobs` > 1 those the cache does not hold are computed in worker
    processes. The cache is read here first: a lookup (read, hash, one small JSON file) costs less than handing
    the file to a worker, so a run whose files are all cached starts no worker at all; a run that finds few
    stops looking here (`_looked_up`)."""
    paths = list(paths)
    if jobs > 1 and len(paths) > 1:
        from devlint.runner.parallel import run_parallel, workers_pay

        stored = _looked_up(paths, settings, mode, cache) if cache is not None else {}
        missing = [path for i, path in enumerate(paths) if i not in stored]
        if workers_pay(len(missing), jobs):
            computed = run_parallel(process, missing, settings, mode, jobs, cache)
        else:
            computed = (process(path, settings, mode, cache) for path in missing)
        for i in range(len(paths)):
            yield stored[i] if i in stored else next(computed)
        return
    for path in paths:
        yield process(path, settings, mode, cache)
