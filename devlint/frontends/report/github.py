"""`--output-format github`: workflow commands that GitHub Actions turns into annotations.

`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message`, escaped as the
runner unescapes them: `%`, CR and LF everywhere, and also `:` and `,` in property values.
`file` is relative to the repository root: GitHub places annotations by repository path. A notice
(DEV997, which does not fail the run) is `::notice`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from devlint.contract.diagnostics import Diagnostic
from devlint.engine.settings import NOTICE_CODES
from devlint.frontends.report.meta import file_message
from devlint.frontends.report.paths import shown_relative_path

if TYPE_CHECKING:  # pragma: no cover
    from devlint.frontends.report import Context


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic, root: str = ".") -> str:
    properties: list[tuple[str, object]] = [("file", shown_relative_path(d.path, root))]
    if d.cell is None:
        properties += [("line", d.line), ("col", d.col)]
        if d.end_line:
            properties += [("endLine", d.end_line), ("endColumn", d.end_col)]
    elif d.notebook_line:  # a cell's line is no line of the file: annotate the JSON line of the source
        properties.append(("line", d.notebook_line))
    properties.append(("title", d.code))
    message = file_message(d)
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    command = "notice" if d.code in NOTICE_CODES else "error"  # (a notice does not fail the run)
    return f"::{command} {props}::{escape_data(f'{d.code} {message}')}\n"


def render(diagnostics: Sequence[Diagnostic], context: "Context") -> str:
    return "".join(annotation(d, context.root) for d in diagnostics)
