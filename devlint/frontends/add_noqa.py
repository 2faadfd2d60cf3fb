"""`devlint --add-noqa`: a `# noqa: DEVnnn` comment for every report, where flake8 will read it.

flake8 searches the report's line widened to its token range (devlint/engine/noqa.py): one physical line
in a statement spread over brackets, every line of a triple-quoted string or a backslash
continuation. The comment goes at the end of that range's last line, the only place a comment
can always be written; where the range has a `# noqa: CODES` already, the new codes are added to
its list instead. Other comments on the line stay as they are. A second run adds nothing: every
report is then suppressed.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Optional, Sequence

from devlint.contract.diagnostics import Diagnostic
from devlint.engine.noqa import INLINE, Suppressions, codes_end
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
    if not wanted:
        return source, 0
    comments = _comment_columns(source)
    if comments is None:
        return source, 0  # flake8 cannot tokenize it either: no line to attribute reports to
    lines = source.split("\n")
    written = 0
    for last, codes in wanted.items():
        first = suppressions.line_range(last)[0]
        written += _annotate(lines, first, last, sorted(codes), comments)
    return "\n".join(lines), written


def _comment_columns(source: str) -> Optional[dict[int, int]]:
    """Line -> column where its comment starts; None when the text does not tokenize."""
    columns: dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                columns[token.start[0]] = token.start[1]
    except (tokenize.TokenError, SyntaxError):
        return None
    return columns


def _annotate(lines: list[str], first: int, last: int, codes: list[str], comments: dict[int, int]) -> bool:
    """Add `codes` to the noqa flake8 reads for lines `first`..`last`; False where none can be added."""
    for number in range(first, last + 1):  # flake8 reads the first `# noqa` of the range
        line = lines[number - 1]
        match = INLINE.search(line)
        if match is None:
            continue
        if comments.get(number, len(line)) > match.start() or not match.group("codes"):
            # In a string, flake8 reads it all the same and no comment after it counts: never
            # rewrite a string. (A bare noqa would have suppressed the report.)
            return False
        end = codes_end(match)
        lines[number - 1] = f"{line[:end]}, {', '.join(codes)}{line[end:]}"
        return True
    line = lines[last - 1]
    ending = "\r" if line.endswith("\r") else ""
    body = line[:len(line) - len(ending)].rstrip(" \t")
    lines[last - 1] = f"{body}  # noqa: {', '.join(codes)}{ending}"
    return True


def write_noqa(diagnostics: Sequence[Diagnostic]) -> tuple[int, list[str], list[str]]:
    """Add the comments to the files the reports are in: (comments written, errors, warnings).
    Notebooks are left alone (a cell's line is not a line of the file)."""
    from devlint.sources.files import (
        NOTEBOOK_SUFFIX,
        SourceError,
        read_source,
        write_source,
    )

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
