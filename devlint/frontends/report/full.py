"""`--output-format full`: each report with its source line(s), carets under the reported range,
the fix's description (with `--show-fixes`, the fix itself as a small diff) and the rule's page,
in ruff's layout. The default when stdout is a terminal; `concise` is the one-line form.

    train.py:8:9: DEV004 [*] `torch.load(...)` without `map_location` fails on ...
      |
    8 | state = torch.load(path)
      |         ^^^^^^^^^^^^^^^^ DEV004
      |
      = help: Add `map_location="cpu"`
      = docs: https://github.com/devlint/devlint/blob/main/docs/rules/DEV004.md

The text is built as lines of (text, style) spans; with colour on, rich turns the styles into
terminal codes (rich is imported only then: concise output, and full output without colour,
never import it). Source is read again only for files that have reports."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Optional, Sequence

from devlint.contract.diagnostics import Applicability, Diagnostic, Edit
from devlint.frontends.report.meta import rule_url
from devlint.frontends.report.text import marker
from devlint.sources.files import NOTEBOOK_SUFFIX, SourceError, read_source

if TYPE_CHECKING:  # pragma: no cover
    from devlint.frontends.report import Context

Span = tuple[str, str]  # (text, style name; "" for plain)
Line = list[Span]

# Style names -> rich styles.
STYLES = {
    "location": "bold",
    "code": "bold red",
    "fixable": "bold cyan",
    "gutter": "bold blue",
    "caret": "bold red",
    "help": "bold cyan",
    "removed": "red",
    "added": "green",
}
MAX_SOURCE_LINES = 6  # a longer report shows its first lines, then an ellipsis
TAB_WIDTH = 4


def render(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    if not diagnostics:
        return ""
    sources: dict[tuple[str, Optional[int]], Optional[list[str]]] = {}
    lines: list[Line] = []
    for d in diagnostics:
        key = (d.path, d.cell)
        if key not in sources:
            sources[key] = source_lines(d.path, d.cell)
        lines.extend(report_lines(d, sources[key], context))
    return _styled(lines) if context.colour else "".join(_plain(line) + "\n" for line in lines)


def source_lines(path: str, cell: Optional[int]) -> Optional[list[str]]:
    """The file's lines (a notebook cell's, for a report in a cell), as Python counts them; None
    when the file cannot be read any more (the report is then shown without its source)."""
    try:
        if path.endswith(NOTEBOOK_SUFFIX):
            from devlint.sources.notebook import read_notebook

            text = next((c.source for c in read_notebook(path).cells if c.number == cell), None)
            if text is None:
                return None
        else:
            text = read_source(path).text
    except SourceError:
        return None
    return text.split("\n")


def report_lines(d: Diagnostic, source: Optional[list[str]], context: "Context") -> list[Line]:
    headline: Line = [(d.location, "location"), (": ", ""), (d.code, "code"), (" ", "")]
    mark = marker(d, context.unsafe_fixes)
    if mark:
        headline.append((mark, "fixable"))
    headline.append((d.message, ""))
    edits = d.fix.edits if d.fix is not None and context.show_fixes else ()
    width = len(str(max(d.line, d.end_line, *(edit.end_line + 1 for edit in edits))))
    bar: Line = [(" " * width + " |", "gutter")]
    lines = [headline]
    if source is not None and 1 <= d.line <= len(source):
        lines.append(bar)
        lines.extend(_snippet(d, source, width))
        lines.append(bar)
    if d.fix is not None:
        lines.append(_note(width, "help", d.fix.description))
        if edits and source is not None and all(edit.start_line >= 1 for edit in edits):
            safety = "Safe fix" if d.fix.applicability is Applicability.SAFE else "Unsafe fix"
            lines.append([(" " * width + " = ", "gutter"), (safety, "help")])
            lines.extend(_fix_diff(edits, source, width))
    url = rule_url(d.code)
    if url:
        lines.append(_note(width, "docs", url))
    lines.append([])
    return lines


def _note(width: int, label: str, text: str) -> Line:
    return [(" " * width + " = ", "gutter"), (f"{label}: ", "help"), (text, "")]


def _snippet(d: Diagnostic, source: list[str], width: int) -> list[Line]:
    """The reported lines, each with carets under its part of the range."""
    first, last = d.line, min(max(d.line, d.end_line), len(source))
    end_col = d.end_col if d.end_line else d.col + 1
    out: list[Line] = []
    for number in range(first, last + 1):
        if number - first == MAX_SOURCE_LINES:
            out.append([(" " * width + " | ", "gutter"), ("...", "gutter")])
            break
        text = _line_text(source[number - 1])
        start = d.col if number == first else len(text) - len(text.lstrip()) + 1
        stop = end_col if number == last else len(text) + 1
        left, right = _display(text, start), _display(text, max(stop, start + 1))
        out.append([(f"{number:>{width}} | ", "gutter"), (_shown(text), "")])
        carets: Line = [(" " * width + " | ", "gutter"), (" " * left, ""), ("^" * max(1, right - left), "caret")]
        if number == last or number - first == MAX_SOURCE_LINES - 1:
            carets += [(" ", ""), (d.code, "code")]
        out.append(carets)
    return out


def _line_text(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def _shown(line: str) -> str:
    """A source line as printed: without its "\r", tabs expanded (the carets count the same way)."""
    return _line_text(line).expandtabs(TAB_WIDTH)


def _display(text: str, column: int) -> int:
    """Where 1-based `column` of `text` is on screen (tabs expanded)."""
    return len(text[: column - 1].expandtabs(TAB_WIDTH))


def _fix_diff(edits: Sequence[Edit], source: list[str], width: int) -> list[Line]:
    """The fix as removed and added lines, hunk by hunk (edits on the same lines form one hunk);
    the numbers are the old lines' and the new lines'."""
    out: list[Line] = []
    shift = 0  # lines added before this hunk by earlier hunks
    for first, last, hunk in _hunks(edits):
        if last > len(source):
            return []  # the file changed since it was checked: no diff rather than a wrong one
        old = source[first - 1:last]
        new = _apply(old, first, hunk).split("\n")
        same_head = 0
        while same_head < min(len(old), len(new)) - 1 and old[same_head] == new[same_head]:
            same_head += 1
        same_tail = 0
        while (same_tail < min(len(old), len(new)) - same_head - 1
               and old[len(old) - 1 - same_tail] == new[len(new) - 1 - same_tail]):
            same_tail += 1
        for index in range(same_head, len(old) - same_tail):
            out.append([(f"{first + index:>{width}} ", "gutter"), ("- " + _shown(old[index]), "removed")])
        for index in range(same_head, len(new) - same_tail):
            out.append([(f"{first + shift + index:>{width}} ", "gutter"), ("+ " + _shown(new[index]), "added")])
        shift += len(new) - len(old)
    return out


def _hunks(edits: Sequence[Edit]) -> list[tuple[int, int, list[Edit]]]:
    hunks: list[tuple[int, int, list[Edit]]] = []
    for edit in sorted(edits, key=lambda e: (e.start_line, e.start_col)):
        if hunks and edit.start_line <= hunks[-1][1]:
            first, last, group = hunks[-1]
            hunks[-1] = (first, max(last, edit.end_line), [*group, edit])
        else:
            hunks.append((edit.start_line, edit.end_line, [edit]))
    return hunks


def _apply(old: list[str], first: int, edits: Sequence[Edit]) -> str:
    """The lines `old` (starting at line `first`) with `edits` applied."""
    text = "\n".join(old)
    starts = [0]
    for line in old:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int:
        return starts[line - first] + column - 1

    for edit in sorted(edits, key=lambda e: (e.start_line, e.start_col), reverse=True):
        start, end = offset(edit.start_line, edit.start_col), offset(edit.end_line, edit.end_col)
        text = text[:start] + edit.content + text[end:]
    return text


def _plain(line: Line) -> str:
    return "".join(text for text, _ in line)


def _styled(lines: list[Line]) -> str:
    try:
        from rich.console import Console
        from rich.text import Text
    except ImportError:  # rich is optional (`pip install 'devlint[color]'`): plain text without it
        return "".join(_plain(line) + "\n" for line in lines)
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system="standard", highlight=False,
                      emoji=False, soft_wrap=True, width=10_000)
    for line in lines:
        console.print(Text.assemble(*((text, STYLES.get(style, "")) for text, style in line)))
    return buffer.getvalue()
