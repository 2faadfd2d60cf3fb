"""Check or fix a list of files: the work behind the CLI, one outcome per file."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

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


def process(path: str, settings: Settings, mode: Mode) -> FileOutcome:
    if path.endswith(NOTEBOOK_SUFFIX):
        from devlint import notebook  # imported on first use: most runs see no notebooks

        return notebook.process(path, settings, mode)
    outcome = FileOutcome(path)
    try:
        source = read_source(path)
        if not (mode.fix or mode.diff):
            outcome.diagnostics = analyze(source.text, path, settings, with_fixes=mode.with_edits).diagnostics
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
                outcome.diff = "".join(difflib.unified_diff(
                    source.text.splitlines(keepends=True), result.source.splitlines(keepends=True),
                    fromfile=f"a/{path}", tofile=f"b/{path}",
                ))
            else:
                try:
                    write_source(source, result.source)
                except SourceError:
                    outcome.diagnostics = analyze(source.text, path, settings).diagnostics  # nothing was fixed
                    raise
    except SourceError as error:
        outcome.error = str(error)
        outcome.fixed = {}
    except RecursionError:
        outcome.error = f"{path}: too deeply nested to analyse (recursion limit)"
    return outcome


def run(paths: Iterable[str], settings: Settings, mode: Mode) -> Iterator[FileOutcome]:
    for path in paths:
        yield process(path, settings, mode)
