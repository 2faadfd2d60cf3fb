"""`--output-format gitlab`: GitLab Code Quality (a JSON array in the Code Climate issue subset
that GitLab reads from a `codequality` report artifact).

Each issue: `description`, `check_name` (the code), `fingerprint` (the statement hash SARIF uses:
stable across runs and when unrelated lines move, so GitLab tells new findings from known ones),
`severity` and `location.path` (relative to the repository root) with `location.lines.begin`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Sequence

from devlint.contract.diagnostics import Diagnostic
from devlint.engine.settings import NOTICE_CODES
from devlint.frontends.report.fingerprint import statement_fingerprints
from devlint.frontends.report.meta import file_line, file_message
from devlint.frontends.report.paths import shown_relative_path

if TYPE_CHECKING:  # pragma: no cover
    from devlint.frontends.report import Context

# GitLab's scale is info, minor, major, critical, blocker; every devlint report fails the check but a notice.
SEVERITY = "major"
NOTICE_SEVERITY = "info"


def issue_object(d: Diagnostic, path: str, fingerprint: str) -> dict[str, Any]:
    begin = file_line(d) or 1
    end = (d.end_line or d.line) if d.cell is None else begin
    return {
        "description": f"{d.code} {file_message(d)}",
        "check_name": d.code,
        "fingerprint": fingerprint,
        "severity": NOTICE_SEVERITY if d.code in NOTICE_CODES else SEVERITY,
        "location": {"path": path, "lines": {"begin": begin, "end": end}},
    }


def render(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    paths = [shown_relative_path(d.path, context.root) for d in diagnostics]
    fingerprints = statement_fingerprints(diagnostics, paths)
    issues = [issue_object(*item) for item in zip(diagnostics, paths, fingerprints)]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
