"""One document in, reports and fixes out: the API under every front end.

A *source* is what a file on disk, stdin or an editor buffer holds: Python text, or a Jupyter
notebook (its JSON text, or an editor's code cells). `check` lints it and `fix` fixes it; the
reports come back addressed as the source is (a notebook's by cell). The runner (files on disk),
stdin, the flake8 plugin and `devlint lsp` call these two and nothing below them; nothing here
knows who asked (ruff's `check_path`, see STYLE.md).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Sequence, Union

from devlint.contract.diagnostics import Diagnostic, FixResult
from devlint.engine.engine import analyze, fix_text
from devlint.sources.files import NOTEBOOK_SUFFIX, SourceFile, decode_source, read_source
from devlint.sources.notebook import (
    Notebook, fix_cells, lint_notebook, notebook_from_cells, parse_notebook, read_notebook, rewrite_cells,
)
from devlint.engine.settings import Settings

if TYPE_CHECKING:  # pragma: no cover
    from devlint.engine.reparse import Reparser


@dataclass(frozen=True)
class PythonSource:
    path: str  # where reports say they are; per-file settings are resolved for it
    text: str


@dataclass(frozen=True)
class NotebookSource:
    path: str
    notebook: Notebook


Source = Union[PythonSource, NotebookSource]


@dataclass
class Fixed:
    """What `fix` made of a source."""

    text: str  # the source's new text (a notebook file's JSON with only the changed cells rewritten)
    result: FixResult  # what was fixed and what is left (reports addressed as `check` addresses them)
    cells: dict[int, str] = field(default_factory=dict)  # notebooks: each changed code cell's new source


def from_text(path: str, text: str) -> Source:
    """The source `text` is, by `path`'s suffix: a notebook's JSON (SourceError when it is not
    one) or Python."""
    if path.endswith(NOTEBOOK_SUFFIX):
        return NotebookSource(path, parse_notebook(path, text))
    return PythonSource(path, text)


def from_cells(path: str, cells: Sequence[tuple[int, str]]) -> NotebookSource:
    """An editor's notebook: (1-based position among all cells, source) of each code cell."""
    return NotebookSource(path, notebook_from_cells(path, cells))


def read(path: str, raw: Optional[bytes] = None) -> tuple[SourceFile, Source]:
    """A file on disk (SourceError when it cannot be read): as read, to write back, and as a source.
    `raw`: the bytes of a Python file, read already (`read_bytes`)."""
    if path.endswith(NOTEBOOK_SUFFIX):
        notebook = read_notebook(path)
        return SourceFile(path, notebook.text, notebook.encoding, notebook.raw), NotebookSource(path, notebook)
    file = read_source(path) if raw is None else decode_source(path, raw)
    return file, PythonSource(path, file.text)


def text_of(source: Source) -> str:
    return source.text if isinstance(source, PythonSource) else source.notebook.text


def check(source: Source, settings: Settings, *, with_fixes: bool = False, ignore_noqa: bool = False,
          tree: Optional[ast.AST] = None, reparser: Optional[Reparser] = None,
          index_reads: Optional[dict[str, object]] = None) -> list[Diagnostic]:
    """The source's reports, sorted. `with_fixes` adds each fix's text edits; `ignore_noqa` keeps
    suppressed reports (flake8 applies `# noqa` itself); `tree`: the text's `ast`, when the
    caller has it; `reparser`: one per document that is checked again and again (an editor's
    buffer or notebook), so that a version is parsed from the last one; `index_reads`, when given,
    gets what the rules asked the project index, and its answers (a Python source's)."""
    if isinstance(source, NotebookSource):
        return lint_notebook(source.notebook, settings, with_fixes=with_fixes, reparser=reparser)
    analysis = analyze(source.text, source.path, settings, with_fixes=with_fixes, ignore_noqa=ignore_noqa,
                       tree=tree, reparser=reparser)
    if index_reads is not None:
        index_reads.update(analysis.index_reads)
    return analysis.diagnostics


def fix(source: Source, settings: Settings, *, unsafe: bool = False) -> Fixed:
    """Apply the fixes (safe ones; unsafe ones too with `unsafe` or the settings' `unsafe_fixes`)
    until none applies."""
    if isinstance(source, PythonSource):
        result = fix_text(source.text, source.path, settings, unsafe=unsafe)
        return Fixed(result.source, result)
    notebook = source.notebook
    cells, result = fix_cells(notebook, settings, unsafe=unsafe)
    text = rewrite_cells(notebook, cells) if cells and notebook.text else notebook.text
    return Fixed(text, result, cells)
