"""Check or fix a list of files: the work behind the CLI, one outcome per file."""

from __future__ import annotations

import contextlib
import difflib
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from devlint.cache import Cache
from devlint.diagnostics import Diagnostic
from devlint.engine import analyze, fix_text
from devlint.files import NOTEBOOK_SUFFIX, SourceError, read_source, write_source
from devlint.settings import Settings


@dataclass
class FileOutcome:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: Optional[str] = None  # could not read / write: the message
    fixed: dict[str, int] = field(default_factory=dict)  # code -> fixes applied
    diff: str = ""  # with --diff


@dataclass(frozen=True)
class Mode:
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    with_edits: bool = False  # output formats that show fix edits need them


def process(path: str, settings: Settings, mode: Mode, cache: Optional[Cache] = None) -> FileOutcome:
    """Check (or fix) one file. Check results come from, and go to, `cache` when given."""
    if path.endswith(NOTEBOOK_SUFFIX):
        from devlint import notebook  # imported on first use: most runs see no notebooks

        return notebook.process(path, settings, mode)
    outcome = FileOutcome(path)
    with recording_errors(outcome):
        source = read_source(path)
        if not (mode.fix or mode.diff):
            key = cache.key(path, source.raw, settings, mode.with_edits) if cache is not None else ""
            cached = cache.get(key) if cache is not None else None
            if cached is not None:
                outcome.diagnostics = cached
                return outcome
            outcome.diagnostics = analyze(source.text, path, settings, with_fixes=mode.with_edits).diagnostics
            if cache is not None:
                cache.put(key, outcome.diagnostics)
            return outcome
        result = fix_text(source.text, path, settings, unsafe=mode.unsafe_fixes)
        outcome.diagnostics = result.remaining
        if result.unparsable:
            # a fix that breaks the parse is a devlint bug: leave the whole file as it was
            outcome.diagnostics = analyze(source.text, path, settings).diagnostics
            codes = ", ".join(sorted(set(result.unparsable)))
            outcome.error = f"{path}: a {codes} fix would produce code that does not parse; file left unchanged"
            return outcome
        if result.source != source.text:
            outcome.fixed = result.fixed
            if mode.diff:
                outcome.diff = unified_diff(path, source.text.splitlines(keepends=True),
                                            result.source.splitlines(keepends=True))
            else:
                try:
                    write_source(source, result.source)
                except SourceError:
                    outcome.diagnostics = analyze(source.text, path, settings).diagnostics  # nothing was fixed
                    raise
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


def unified_diff(path: str, old_lines: list[str], new_lines: list[str]) -> str:
    """What `--diff` prints for one file."""
    return "".join(difflib.unified_diff(old_lines, new_lines, fromfile=f"a/{path}", tofile=f"b/{path}"))


def run(paths: Iterable[str], settings: Settings, mode: Mode, jobs: int = 1,
        cache: Optional[Cache] = None) -> Iterator[FileOutcome]:
    """Outcomes in the order of `paths`; with `jobs` > 1 computed in worker processes."""
    paths = list(paths)
    if jobs > 1 and len(paths) > 1:
        from devlint.parallel import run_parallel

        yield from run_parallel(paths, settings, mode, jobs, cache)
        return
    for path in paths:
        yield process(path, settings, mode, cache)
