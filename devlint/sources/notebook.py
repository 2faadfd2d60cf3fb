"""Jupyter notebooks: lint and fix the code cells of an `.ipynb` file as one module.

A notebook's code cells run in order in one namespace, so they are joined, in order, into one
module (a name bound in cell 2 is known in cell 5) and analysed by the same engine as a `.py` file.
IPython syntax that is not Python (`%magic`, `%%cell magic`, `!shell`, `x = !ls`, `obj?`) is masked:
the line becomes a `pass` at its indentation (a whole cell-magic cell becomes blank lines), so it is
never reported and never rewritten. Every report is mapped back to its cell:

- `cell` is the cell's 1-based position in the notebook counting **every** cell (markdown and raw
  cells too), which is what a reader counts when scrolling the notebook;
- `line`/`col` are within that cell's source;
- `notebook_line` is the line of the `.ipynb` file holding the JSON string of that source line.

Fixing rewrites only the `source` values of the cells that changed, in place in the file's text:
outputs, metadata, ids, key order, indentation and escaping elsewhere are untouched byte for byte.

The file is read with the standard `json` module (nbformat is not needed): a notebook is nbformat 4
JSON with a `cells` list whose cells have a `cell_type` and a `source` (a string or a list of strings).
"""

from __future__ import annotations

import difflib
import enum
import json
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional, Sequence

from devlint.contract.diagnostics import Diagnostic, Edit, FixResult
from devlint.engine.engine import analyze, fix_text
from devlint.engine.result import Analysis
from devlint.engine.settings import SYNTAX_ERROR_CODE, Settings
from devlint.engine.syntax import parse_python
from devlint.sources.files import SourceError, read_bytes

if TYPE_CHECKING:  # pragma: no cover
    from devlint.engine.reparse import Reparser

# What a masked line becomes: a statement, so a masked block body still parses; the comment lets a
# fix's span be checked for it.
PLACEHOLDER = "pass  # devlint: masked"
SEPARATOR = "# devlint: cell "  # the line before each cell in the joined module, then the cell's number


# ---------------------------------------------------------------------------------------------
# Reading


@dataclass
class CodeCell:
    number: int  # 1-based position among all cells (what a reader counts)
    index: int  # 0-based index into the notebook's "cells" array
    source: str  # the cell's source, joined
    as_list: bool  # was "source" a list of strings (the usual form) or one string
    first_line: int = 0  # 1-based line of the joined module where the cell starts
    line_count: int = 0


@dataclass
class Notebook:
    """A notebook's code cells joined into one module, with the way back to cells."""

    path: str
    text: str  # the file's JSON text
    encoding: str
    raw: bytes
    cells: list[CodeCell]
    module: str = ""  # the joined code, magics masked
    original: list[Optional[str]] = field(default_factory=list)  # per module line: the cell's own line
    masked: set[int] = field(default_factory=set)  # 1-based module lines that are placeholders
    owner: list[CodeCell] = field(default_factory=list)  # per module line: its cell
    _layout: Optional[dict[int, "_SourceLayout"]] = None

    def where(self, line: int) -> tuple[CodeCell, int]:
        """1-based module line -> (cell, 1-based line within the cell)."""
        line = max(1, min(line, len(self.owner)))
        cell = self.owner[line - 1]
        return cell, max(1, line - cell.first_line + 1)  # a separator line counts as the cell's first

    def layout(self) -> dict[int, "_SourceLayout"]:
        """Where each cell's source sits in the file's text (found on first use)."""
        if self._layout is None:
            self._layout = _source_layout(self.text)
        return self._layout


def read_notebook(path: str) -> Notebook:
    raw = read_bytes(path)
    encoding = "utf-8-sig" if raw.startswith(b"\xef\xbb\xbf") else "utf-8"
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise SourceError(path, f"not a Jupyter notebook: not UTF-8 (byte {error.start})") from None
    return parse_notebook(path, text, encoding, raw)


def parse_notebook(path: str, text: str, encoding: str = "utf-8", raw: bytes = b"") -> Notebook:
    """Validate the JSON as an nbformat 4 notebook and join its code cells; SourceError if it is not one."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        reason = f"{error.msg} at line {error.lineno} column {error.colno}" if isinstance(
            error, json.JSONDecodeError) else "nested too deeply"
        raise SourceError(path, f"not a Jupyter notebook: invalid JSON ({reason})") from None
    if not isinstance(data, dict) or "cells" not in data:
        raise SourceError(path, "not a Jupyter notebook: no \"cells\" list at the top level")
    version = data.get("nbformat")
    if version != 4:
        raise SourceError(path, f"not a Jupyter notebook in nbformat 4 (nbformat is {version!r}); "
                                "convert it with `jupyter nbconvert --to notebook`")
    if not isinstance(data["cells"], list):
        raise SourceError(path, "not a Jupyter notebook: \"cells\" is not a list")
    cells: list[CodeCell] = []
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise SourceError(path, f"not a Jupyter notebook: cell {index + 1} has no \"cell_type\"")
        if cell["cell_type"] != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            cells.append(CodeCell(index + 1, index, "".join(source), True))
        elif isinstance(source, str):
            cells.append(CodeCell(index + 1, index, source, False))
        else:
            raise SourceError(path, f"not a Jupyter notebook: cell {index + 1}'s \"source\" is not text")
    notebook = Notebook(path, text, encoding, raw or text.encode(encoding), cells)
    _join(notebook)
    return notebook


def notebook_from_cells(path: str, cells: Sequence[tuple[int, str]]) -> Notebook:
    """A notebook an editor holds: its code cells' sources, each with its 1-based position among
    all the notebook's cells. There is no file text: fixes come back as cell sources (`fix_cells`)."""
    code_cells = [CodeCell(number, number - 1, source, True) for number, source in cells]
    notebook = Notebook(path, "", "utf-8", b"", code_cells)
    _join(notebook)
    return notebook


def split_lines(text: str) -> list[str]:
    """Lines with their "\\n" kept; the last one may lack it (nbformat's own convention)."""
    return re.findall(r"[^\n]*\n|[^\n]+", text)


def _join(notebook: Notebook) -> None:
    """Each cell is introduced by a separator comment line: it anchors the diff that maps a fixed
    module back to cells, and a fix whose span holds one would cross cells (vetoed)."""
    module: list[str] = []
    for cell in notebook.cells:
        module.append(f"{SEPARATOR}{cell.number}\n")
        notebook.original.append(None)
        notebook.owner.append(cell)
        cell.first_line = len(module) + 1
        lines = split_lines(cell.source)
        cell.line_count = len(lines)
        for line, mask in zip(lines, mask_lines(lines)):
            notebook.original.append(line)
            notebook.owner.append(cell)
            if mask is not Mask.KEEP:
                notebook.masked.add(len(module) + 1)
                line = _placeholder(line) if mask is Mask.STATEMENT else "\n"
            module.append(line if line.endswith("\n") else line + "\n")
    notebook.module = "".join(module)


def _placeholder(line: str) -> str:
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return f"{indent}{PLACEHOLDER}\n"


# ---------------------------------------------------------------------------------------------
# Masking IPython syntax


class Mask(enum.Enum):
    KEEP = "keep"  # Python: analysed as written
    STATEMENT = "statement"  # the first line of IPython syntax: becomes `pass` at its indentation
    BLANK = "blank"  # the rest of it (continuation lines, a cell magic's body): becomes a blank line


# At the start of a statement these characters begin IPython syntax, never Python: line magics (%),
# cell magics (%%), shell escapes (!), help (?), and the autocall escapes (/ , ;).
_ESCAPES = ("%", "!", "?", "/", ",", ";")
# `files = !ls`, `out = %timeit -o f()`: an assignment from a shell escape or a magic.
_ASSIGNED_ESCAPE = re.compile(r"\s*[\w.]+(\[[^\]=]*\])?(\s*,\s*[\w.]+)*\s*=\s*[%!]")


def mask_lines(lines: list[str]) -> list[Mask]:
    """Which lines of one cell are IPython syntax. Token-aware: a `%` or `?` inside a string, a
    comment or a bracket that spans lines is Python, and is kept."""
    first_code = next((line for line in lines if line.strip()), "")
    if first_code.lstrip().startswith("%%"):
        return [Mask.BLANK] * len(lines)  # a cell magic owns the whole cell (its body may not be Python)
    masks: list[Mask] = []
    scanner = _Scanner()
    masking = False
    for line in lines:
        starts_statement = scanner.at_statement_start
        stripped = line.lstrip()
        has_question = scanner.feed(line)
        if starts_statement:
            masking = bool(stripped) and (
                stripped.startswith(_ESCAPES) or has_question or _ASSIGNED_ESCAPE.match(line) is not None
            )
            masks.append(Mask.STATEMENT if masking else Mask.KEEP)
        else:
            masks.append(Mask.BLANK if masking else Mask.KEEP)
    return masks


class _Scanner:
    """Just enough of Python's tokenizer to know where statements start: open strings, brackets,
    backslash continuations, comments."""

    def __init__(self) -> None:
        self.quote = ""  # the delimiter of a string still open at the end of the last line
        self.depth = 0
        self.backslash = False

    @property
    def at_statement_start(self) -> bool:
        return not self.quote and not self.depth and not self.backslash

    def feed(self, line: str) -> bool:
        """Advance over one line; True when it holds a `?` outside strings and comments."""
        body = line.rstrip("\r\n")
        question = False
        self.backslash = False
        i, n = 0, len(body)
        while i < n:
            char = body[i]
            if self.quote:
                if char == "\\":
                    i += 2
                elif body.startswith(self.quote, i):
                    i += len(self.quote)
                    self.quote = ""
                else:
                    i += 1
                continue
            if char == "#":
                break
            if char in "'\"":
                self.quote = body[i:i + 3] if body[i:i + 3] in ('"""', "'''") else char
                i += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            elif char == "?":
                question = True
            elif char == "\\" and i == n - 1:
                self.backslash = True
            i += 1
        if len(self.quote) == 1 and i <= n:
            self.quote = ""  # a one-line string left open without a backslash: a syntax error, not ours
        return question


# ---------------------------------------------------------------------------------------------
# Where each cell's source is in the file's text


@dataclass
class _SourceLayout:
    start: int  # offsets of the "source" value in the file's text
    end: int
    items: list[tuple[int, int]]  # a list value: each string's offsets; a string value: itself


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _source_layout(text: str) -> dict[int, _SourceLayout]:
    """For each cell (by index), where its "source" value lies. The text is valid JSON already."""
    decoder = json.JSONDecoder()
    start = _WHITESPACE.match(text, 0).end()  # type: ignore[union-attr]
    layouts: dict[int, _SourceLayout] = {}
    cells = _member(text, start, "cells", decoder)
    if cells is None or text[cells[0]] != "[":
        return layouts
    for index, (cell_start, _) in enumerate(_items(text, cells[0], decoder)):
        if text[cell_start] != "{":
            continue
        source = _member(text, cell_start, "source", decoder)
        if source is None:
            continue
        value_start, value_end = source
        items = _items(text, value_start, decoder) if text[value_start] == "[" else [source]
        layouts[index] = _SourceLayout(value_start, value_end, items)
    return layouts


def _member(text: str, start: int, key: str, decoder: json.JSONDecoder) -> Optional[tuple[int, int]]:
    """The offsets of `key`'s value in the object at `start` (the last one, as json.loads keeps)."""
    found = None
    i = _WHITESPACE.match(text, start + 1).end()  # type: ignore[union-attr]
    while text[i] != "}":
        name, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = _WHITESPACE.match(text, i).end()  # type: ignore[union-attr]
        i = _WHITESPACE.match(text, i + 1).end()  # type: ignore[union-attr]  # past ':'
        _, end = decoder.raw_decode(text, i)
        if name == key:
            found = (i, end)
        i = _WHITESPACE.match(text, end).end()  # type: ignore[union-attr]
        if text[i] == ",":
            i = _WHITESPACE.match(text, i + 1).end()  # type: ignore[union-attr]
    return found


def _items(text: str, start: int, decoder: json.JSONDecoder) -> list[tuple[int, int]]:
    items = []
    i = _WHITESPACE.match(text, start + 1).end()  # type: ignore[union-attr]
    while text[i] != "]":
        _, end = decoder.raw_decode(text, i)
        items.append((i, end))
        i = _WHITESPACE.match(text, end).end()  # type: ignore[union-attr]
        if text[i] == ",":
            i = _WHITESPACE.match(text, i + 1).end()  # type: ignore[union-attr]
    return items


def _file_line(notebook: Notebook, cell: CodeCell, line: int) -> Optional[int]:
    """The 1-based line of the file holding the JSON string with `line` (1-based) of `cell`."""
    if not notebook.text:  # an editor's cells: no file
        return None
    layout = notebook.layout().get(cell.index)
    if layout is None or not layout.items:
        return None
    # The offset of the line's first character in the cell's joined source.
    offset = sum(len(part) for part in split_lines(cell.source)[: line - 1])
    chosen = layout.items[0]
    if len(layout.items) > 1:
        parts = json.loads(notebook.text[layout.start:layout.end])
        seen = 0
        for part, span in zip(parts, layout.items):
            if seen > offset:
                break
            chosen = span
            seen += len(part)
    return notebook.text.count("\n", 0, chosen[0]) + 1


# ---------------------------------------------------------------------------------------------
# Linting


def _analysable(notebook: Notebook, settings: Settings, with_fixes: bool = False,
                reparser: Optional[Reparser] = None) -> tuple[str, list[Diagnostic], set[int], Analysis]:
    """The module to analyse and its analysis. Each cell must parse on its own (IPython runs them
    one by one), so when the joined module does not parse, the cells that do not parse alone are
    reported (DEV999, as a `.py` file's syntax error) and blanked: one broken cell hides no other.
    `reparser`: the parser of the notebook's earlier versions (an editor's), for the joined module."""
    path = notebook.path
    analysis = analyze(notebook.module, path, settings, with_fixes=with_fixes, reparser=reparser)
    if analysis.module is not None or analysis.skipped or not _rejected(notebook.module):
        return notebook.module, [], set(), analysis
    lines = split_lines(notebook.module)
    broken: list[Diagnostic] = []
    blanked: set[int] = set()
    for cell in notebook.cells:
        span = range(cell.first_line - 1, cell.first_line - 1 + cell.line_count)
        text = "".join(lines[i] for i in span)
        error_report = parse_python(text, path)
        if isinstance(error_report, Diagnostic):
            line = cell.first_line - 1 + max(1, min(error_report.line, cell.line_count))
            broken.append(replace(error_report, line=line, end_line=line))
            for i in span:
                lines[i] = "\n"
                blanked.add(i + 1)
    if not broken:  # no cell is broken alone; the joined module is: report it where it fails
        return notebook.module, [], set(), analysis
    module = "".join(lines)
    analysis = analyze(module, path, settings, with_fixes=with_fixes)
    analysis.diagnostics = [d for d in analysis.diagnostics if d.code != SYNTAX_ERROR_CODE]
    if not settings.enabled(SYNTAX_ERROR_CODE, path):
        broken = []
    return module, broken, blanked, analysis


def _rejected(module: str) -> bool:
    return isinstance(parse_python(module), Diagnostic)


def lint_notebook(notebook: Notebook, settings: Settings, *, with_fixes: bool = False,
                  reparser: Optional[Reparser] = None) -> list[Diagnostic]:
    _, broken, _, analysis = _analysable(notebook, settings, with_fixes, reparser)
    diagnostics = broken + analysis.diagnostics
    return sorted((to_cell(notebook, d) for d in diagnostics), key=lambda d: d.sort_key)


def to_cell(notebook: Notebook, diagnostic: Diagnostic) -> Diagnostic:
    """A report on the joined module, re-addressed to its cell."""
    cell, line = notebook.where(diagnostic.line)
    end_cell, end_line = notebook.where(diagnostic.end_line or diagnostic.line)
    end_col = diagnostic.end_col
    if end_cell is not cell:  # cannot happen for a node of one cell; keep the report inside it
        end_line, end_col = cell.line_count, len(notebook.original[cell.first_line + cell.line_count - 2]) + 1
    fix = diagnostic.fix
    if fix is not None and fix.edits:
        fix = replace(fix, edits=_cell_edits(notebook, cell, fix.edits))
    return replace(
        diagnostic, line=line, end_line=end_line, end_col=end_col, cell=cell.number, fix=fix,
        notebook_line=_file_line(notebook, cell, line),
    )


def _cell_edits(notebook: Notebook, cell: CodeCell, edits: tuple[Edit, ...]) -> tuple[Edit, ...]:
    """Edits re-addressed to the cell's source: offsets into it, lines within it. No edits at all
    when one leaves the cell (an `import torch` added to an earlier cell): that fix spans cells."""
    starts = [0]
    for line in split_lines(cell.source):
        starts.append(starts[-1] + len(line))
    mapped = []
    for edit in edits:
        start_cell, start_line = notebook.where(edit.start_line)
        end_cell, end_line = notebook.where(edit.end_line)
        if start_cell is not cell or end_cell is not cell:
            return ()
        mapped.append(replace(
            edit, start=starts[start_line - 1] + edit.start_col - 1, end=starts[end_line - 1] + edit.end_col - 1,
            start_line=start_line, end_line=end_line,
        ))
    return tuple(mapped)


# ---------------------------------------------------------------------------------------------
# Fixing


class _Unmappable(Exception):
    """A fix that touches masked IPython lines or spans cells: the notebook is left as it is."""


def fix_notebook(notebook: Notebook, settings: Settings, *, unsafe: bool = False) -> tuple[str, FixResult]:
    """The file's new text and what was fixed / is left. Only changed cells' sources change."""
    sources, result = fix_cells(notebook, settings, unsafe=unsafe)
    if not sources:
        return notebook.text, result
    return rewrite_cells(notebook, sources), result


def fix_cells(notebook: Notebook, settings: Settings, *, unsafe: bool = False) -> tuple[dict[int, str], FixResult]:
    """The new source of each code cell the fixes changed (by cell number), and what was fixed /
    is left (the result's `source` is the notebook's file text, unchanged)."""
    module, broken, blanked, _ = _analysable(notebook, settings)
    result = fix_text(module, notebook.path, settings, unsafe=unsafe, keep=_within_one_cell)
    remaining = sorted((to_cell(notebook, d) for d in broken + result.remaining), key=lambda d: d.sort_key)
    if result.source == module:
        return {}, FixResult(notebook.text, {}, remaining)
    try:
        sources = _cell_sources(notebook, module, result.source, notebook.masked | blanked)
    except _Unmappable:
        return {}, FixResult(notebook.text, {}, lint_notebook(notebook, settings))
    if not sources:
        return {}, FixResult(notebook.text, {}, remaining)
    return sources, FixResult(notebook.text, result.fixed, remaining, result.unparsable,
                              converged=result.converged)


def _within_one_cell(text: str, start: int, end: int) -> bool:
    """A fix may not cross a cell boundary nor touch a masked IPython line (whole lines compared)."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    lines = text[first:last if last >= 0 else len(text)]
    return SEPARATOR not in lines and PLACEHOLDER not in lines


def _cell_sources(notebook: Notebook, old: str, new: str, frozen: set[int]) -> dict[int, str]:
    """The new source of each changed cell (by cell number), from the fixed module."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    lines_of: dict[int, list[str]] = {cell.number: [] for cell in notebook.cells}

    def add(number: int, line: str) -> None:
        lines = lines_of[number]
        if lines and not lines[-1].endswith("\n"):  # a cell's last line, no longer last
            lines[-1] += "\n"
        lines.append(line)

    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(i2 - i1):
                cell, _ = notebook.where(i1 + offset + 1)
                original = notebook.original[i1 + offset]
                if original is not None:  # None: a separator line
                    add(cell.number, original)
            continue
        if any(number in frozen or notebook.original[number - 1] is None for number in range(i1 + 1, i2 + 1)):
            raise _Unmappable()
        if i2 > i1:
            cells = {notebook.where(number)[0].number for number in range(i1 + 1, i2 + 1)}
            if len(cells) > 1:
                raise _Unmappable()
            owner = cells.pop()
        else:  # an insertion belongs with the line before it (`import torch` after the last import)
            owner = notebook.where(max(i1, 1))[0].number
        for line in new_lines[j1:j2]:
            add(owner, line)
    changed: dict[int, str] = {}
    for cell in notebook.cells:
        source = "".join(lines_of[cell.number])
        if not cell.source.endswith("\n") and source.endswith("\n"):
            source = source[:-1]  # the joined module ends every cell with a newline; the cell did not
        if source != cell.source:
            changed[cell.number] = source
    return changed


def rewrite_cells(notebook: Notebook, sources: dict[int, str]) -> str:
    """The file's text with the given cells' "source" values replaced, in the file's own style."""
    layout = notebook.layout()
    ensure_ascii = _escapes_non_ascii(notebook.text)
    pieces: list[str] = []
    position = 0
    for cell in notebook.cells:
        if cell.number not in sources:
            continue
        span = layout.get(cell.index)
        if span is None:
            raise SourceError(notebook.path, f"cannot locate cell {cell.number}'s source in the file; not fixed")
        pieces.append(notebook.text[position:span.start])
        pieces.append(_source_value(notebook.text, span, sources[cell.number], cell.as_list, ensure_ascii))
        position = span.end
    pieces.append(notebook.text[position:])
    return "".join(pieces)


def _escapes_non_ascii(text: str) -> bool:
    """Did whoever wrote the file escape non-ASCII text (`json.dumps`' default) or write it as is
    (nbformat's default)? Written as is unless the file shows escapes and no raw non-ASCII."""
    if any(ord(char) > 127 for char in text):
        return False
    return re.search(r"\\u(00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})",
                     text) is not None


def _source_value(text: str, span: _SourceLayout, source: str, as_list: bool, ensure_ascii: bool) -> str:
    """A new "source" value laid out like the old one. Unchanged lines keep their exact old text."""
    if not as_list:
        return json.dumps(source, ensure_ascii=ensure_ascii)
    old_items = {json.loads(text[start:end]): text[start:end] for start, end in span.items}
    items = [old_items.get(line) or json.dumps(line, ensure_ascii=ensure_ascii) for line in split_lines(source)]
    if span.items:
        opening = text[span.start + 1:span.items[0][0]]
        closing = text[span.items[-1][1]:span.end - 1]
        separator = text[span.items[0][1]:span.items[1][0]] if len(span.items) > 1 else (
            "," + opening if "\n" in opening else ", ")
    else:
        opening, closing, separator = "", "", ", "
    return "[" + opening + separator.join(items) + closing + "]"
