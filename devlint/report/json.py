"""`--output-format json` / `json-lines`: the stable, documented schema (docs/output-formats.md).

One object per report; keys never change meaning within a major version. `fix` is null when the
rule offers no fix for this report; `cell` and `notebook_line` are null unless the file is a notebook."""

from __future__ import annotations

import json
from typing import Any, Optional, Sequence

from devlint.diagnostics import Diagnostic, Edit, FixInfo
from devlint.report.meta import rule_name, rule_url


def report_object(diagnostic: Diagnostic) -> dict[str, Any]:
    d = diagnostic
    return {
        "code": d.code,
        "name": rule_name(d.code),
        "message": d.message,
        "path": d.path,
        "line": d.line,
        "column": d.col,
        "end_line": d.end_line or d.line,
        "end_column": d.end_col or d.col,
        "cell": d.cell,
        "notebook_line": d.notebook_line,
        "fix": _fix_object(d.fix),
        "url": rule_url(d.code),
    }


def _fix_object(fix: Optional[FixInfo]) -> Optional[dict[str, Any]]:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "description": fix.description,
        "edits": [_edit_object(edit) for edit in fix.edits],
    }


def _edit_object(edit: Edit) -> dict[str, Any]:
    return {
        "content": edit.content,
        "location": {"row": edit.start_line, "column": edit.start_col},
        "end_location": {"row": edit.end_line, "column": edit.end_col},
    }


def render(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False) -> str:
    return json.dumps([report_object(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


def render_lines(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False) -> str:
    return "".join(json.dumps(report_object(d), ensure_ascii=False) + "\n" for d in diagnostics)
