"""`--output-format json` / `json-lines`: the stable, documented schema (docs/output-formats.md).

One object per report; keys never change meaning within a major version. `fix` is null when the
rule offers no fix for this report; `cell` and `notebook_line` are null unless the file is a notebook.
Each object also carries ruff's JSON keys (`filename`, `location`, `end_location`, `noqa_row`,
`fix.message`; `code`, `message`, `url`, `cell` and the edits are shared), so tools written for
`ruff check --output-format json` read devlint's output as it is. Paths are shown as `display_path`
shows them: a name that is not UTF-8 has `\\xe9`-style escapes, and the JSON stays valid."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Optional, Sequence

from devlint.contract.diagnostics import Diagnostic, Edit, FixInfo
from devlint.contract.display import display_path
from devlint.frontends.report.meta import rule_name, rule_url

if TYPE_CHECKING:  # pragma: no cover
    from devlint.frontends.report import Context


def report_object(diagnostic: Diagnostic) -> dict[str, Any]:
    d = diagnostic
    return {
        "code": d.code,
        "name": rule_name(d.code),
        "message": d.message,
        "path": display_path(d.path),
        "line": d.line,
        "column": d.col,
        "end_line": d.end_line or d.line,
        "end_column": d.end_col or d.col,
        "cell": d.cell,
        "notebook_line": d.notebook_line,
        "fix": _fix_object(d.fix),
        "url": rule_url(d.code),
        # ruff's keys: an absolute file name, positions as {row, column}, the line a `# noqa` goes on
        "filename": display_path(os.path.abspath(d.path)),
        "location": _position(d.line, d.col),
        "end_location": _position(d.end_line or d.line, d.end_col or d.col),
        "noqa_row": d.line,
    }


def _position(row: int, column: int) -> dict[str, int]:
    return {"row": row, "column": column}


def _fix_object(fix: Optional[FixInfo]) -> Optional[dict[str, Any]]:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "description": fix.description,
        "edits": [_edit_object(edit) for edit in fix.edits],
        "message": fix.description,  # ruff's name for it
    }


def _edit_object(edit: Edit) -> dict[str, Any]:
    return {
        "content": edit.content,
        "location": _position(edit.start_line, edit.start_col),
        "end_location": _position(edit.end_line, edit.end_col),
    }


def render(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    return json.dumps([report_object(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


def render_lines(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    return "".join(json.dumps(report_object(d), ensure_ascii=False) + "\n" for d in diagnostics)
