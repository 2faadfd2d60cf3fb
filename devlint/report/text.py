"""flake8's text form: `path:line:col: CODE message`, `[*]` before fixable messages."""

from __future__ import annotations

from typing import Sequence

from devlint.diagnostics import Applicability, Diagnostic


def marker(diagnostic: Diagnostic, unsafe_fixes: bool) -> str:
    fix = diagnostic.fix
    if fix is None:
        return ""
    if fix.applicability is Applicability.SAFE or unsafe_fixes:
        return "[*] "
    return ""


def render(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False) -> str:
    return "".join(
        f"{d.location}: {d.code} {marker(d, unsafe_fixes)}{d.message}\n" for d in diagnostics
    )
