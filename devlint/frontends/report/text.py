"""`--output-format concise`: flake8's one-line form, `path:line:col: CODE message`, `[*]` before
fixable messages. The default when stdout is not a terminal (pipes, editors, CI logs); coloured
(location, code, `[*]`) where colour is wanted (`FORCE_COLOR` in a pipe, a terminal without `NO_COLOR`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from devlint.contract.diagnostics import Applicability, Diagnostic

if TYPE_CHECKING:  # pragma: no cover
    from devlint.frontends.report import Context


def marker(diagnostic: Diagnostic, unsafe_fixes: bool) -> str:
    fix = diagnostic.fix
    if fix is None:
        return ""
    if fix.applicability is Applicability.SAFE or unsafe_fixes:
        return "[*] "
    return ""


def headline(d: Diagnostic, unsafe_fixes: bool) -> str:
    return f"{d.location}: {d.code} {marker(d, unsafe_fixes)}{d.message}"


def coloured_headline(d: Diagnostic, unsafe_fixes: bool) -> str:
    from devlint.frontends.report.colour import paint

    mark = marker(d, unsafe_fixes)
    return (f"{paint(d.location, 'location')}: {paint(d.code, 'code')} "
            f"{paint(mark.strip(), 'fixable') + ' ' if mark else ''}{d.message}")


def render(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    line = coloured_headline if context.colour else headline
    return "".join(line(d, context.unsafe_fixes) + "\n" for d in diagnostics)
