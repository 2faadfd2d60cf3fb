"""Reports that survive a half-typed line: while the text does not parse, the editor keeps the reports
of the top-level statements the edit did not touch (from the last version that parsed), moved to
where those statements are now, beside the DEV999 of the broken line. ruff's error-resilient parser
gives the same experience; devlint, whose rules need a whole tree, gets it from the last good version.

Kept reports carry no fix: their edits were computed for the old text."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Sequence

from devlint.contract.diagnostics import Diagnostic
from devlint.engine.lines import common_ends
from devlint.engine.settings import SYNTAX_ERROR_CODE
from devlint.engine.syntax import parse_python


def kept_reports(old_text: str, old_reports: Sequence[Diagnostic], new_text: str) -> list[Diagnostic]:
    """The reports of `old_text` (which parses) whose top-level statement lies wholly in the lines
    `new_text` shares with it at the start or at the end, re-addressed to `new_text`."""
    tree = parse_python(old_text)
    if not isinstance(tree, ast.Module):
        return []
    old_lines, new_lines = old_text.split("\n"), new_text.split("\n")
    prefix, suffix = common_ends(old_lines, new_lines)
    shortest = min(len(old_lines), len(new_lines))
    prefix = min(prefix, shortest)
    suffix = min(suffix, shortest - prefix)
    first_changed, last_changed = prefix + 1, len(old_lines) - suffix  # 1-based, in the old text
    shift = len(new_lines) - len(old_lines)
    spans = [(_first_line(statement), statement.end_lineno or statement.lineno) for statement in tree.body]
    kept = []
    for report in old_reports:
        if report.code == SYNTAX_ERROR_CODE or report.cell is not None:
            continue
        end = report.end_line or report.line
        first, last = next(((a, b) for a, b in spans if a <= report.line <= b), (report.line, end))
        if last < first_changed:
            kept.append(replace(report, fix=None))
        elif first > last_changed:
            kept.append(replace(report, line=report.line + shift, end_line=end + shift, fix=None))
    return kept


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(d.lineno for d in decorators)])
