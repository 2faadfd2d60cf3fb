"""`--output-format github`: workflow commands that GitHub Actions turns into annotations.

`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::message`, escaped as the
runner unescapes them: `%`, CR and LF everywhere, and also `:` and `,` in property values."""

from __future__ import annotations

from typing import Sequence

from devlint.diagnostics import Diagnostic


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    properties = [("file", d.path)]
    message = d.message
    if d.cell is None:
        properties += [("line", d.line), ("col", d.col)]
        if d.end_line:
            properties += [("endLine", d.end_line), ("endColumn", d.end_col)]
    else:  # a cell's line is no line of the file: annotate the JSON line of the source, say the cell
        if d.notebook_line:
            properties.append(("line", d.notebook_line))
        message = f"cell {d.cell}, line {d.line}: {message}"
    properties.append(("title", d.code))
    props = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties)
    return f"::error {props}::{escape_data(f'{d.code} {message}')}\n"


def render(diagnostics: Sequence[Diagnostic], unsafe_fixes: bool = False) -> str:
    return "".join(annotation(d) for d in diagnostics)
