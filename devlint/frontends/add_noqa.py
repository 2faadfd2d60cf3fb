"""`devlint --add-noqa`: a `# noqa: DEVnnn` comment for every report, where flake8 will read it.

flake8 searches the report's line widened to its token range: one physical line in a statement
spread over brackets, every line of a triple-quoted string or a backslash continuation. Where the
comment goes is decided by `noqa_edit` (devlint/engine/noqa.py), as for the editor's "Disable
DEVnnn for this line": at the end of that range's last line, the only place a comment can always
be written, or added to the range's `# noqa: CODES` list. Other comments on the line stay as they
are. A second run adds nothing: every report is then suppressed.
"""

from __future__ import annotations

import ast
from typing import Sequence

from devlint.contract.diagnostics import Diagnostic
from devlint.engine.noqa import Suppressions, noqa_edit
from devlint.engine.settings import SYNTAX_ERROR_CODE


def add_noqa(source: str, diagnostics: Sequence[Diagnostic]) -> tuple[str, int]:
    """`source` with `# noqa` comments for `diagnostics` (reports on it, none suppressed), and the
    number of comments written or extended."""
    suppressions = Suppressions(source)
    wanted: dict[int, list[str]] = {}  # last line of a noqa range -> codes to add
    for diagnostic in diagnostics:
        if diagnostic.code == SYNTAX_ERROR_CODE:
            continue  # a file that does not parse has no lines flake8 can attribute
        last = suppressions.line_range(diagnostic.line)[1]
        codes = wanted.setdefault(last, [])
        if diagnostic.code not in codes:
            codes.append(diagnostic.code)
    # One edit per token range, each on a line of its own range: none moves another.
    edits = [noqa_edit(suppressions, last, sorted(codes)) for last, codes in wanted.items()]
    lines = source.split("\n")
    written = 0
    for edit in edits:
        if edit is not None:
            line = lines[edit.line - 1]
            lines[edit.line - 1] = line[:edit.start] + edit.text + line[edit.end:]
            written += 1
    return "\n".join(lines), written


def write_noqa(diagnostics: Sequence[Diagnostic]) -> tuple[int, list[str], list[str]]:
    """Add the comments to the files the reports are in: (comments written, errors, warnings).
    Notebooks are left alone (a cell's line is not a line of the file)."""
    from devlint.sources.files import NOTEBOOK_SUFFIX, SourceError, read_source, write_source

    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        by_path.setdefault(diagnostic.path, []).append(diagnostic)
    added, errors, warnings = 0, [], []
    for path, reports in sorted(by_path.items()):
        if path.endswith(NOTEBOOK_SUFFIX):
            warnings.append(f"{path}: --add-noqa does not write into notebooks; add `# noqa` in the cells")
            continue
        try:
            source = read_source(path)
            new, count = add_noqa(source.text, reports)
            if count and _parses(source.text) and not _parses(new):  # a devlint bug must not break a file
                errors.append(f"{path}: adding noqa comments would make it unparsable; file left unchanged")
                continue
            if count:
                write_source(source, new)
                added += count
        except SourceError as error:
            errors.append(str(error))
    return added, errors, warnings


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True
