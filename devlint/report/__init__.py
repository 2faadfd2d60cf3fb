"""Output formats: one module each; `FORMATS` maps the `--output-format` name to a renderer.

A renderer takes the sorted diagnostics and returns the text to print on stdout."""

from __future__ import annotations

from typing import Callable, Sequence

from devlint.diagnostics import Diagnostic
from devlint.report import github, json, sarif, text

Renderer = Callable[[Sequence[Diagnostic], bool], str]

FORMATS: dict[str, Renderer] = {
    "text": text.render,
    "json": json.render,
    "json-lines": json.render_lines,
    "sarif": sarif.render,
    "github": github.render,
}

# Formats that print each fix's text edits: only these make the engine compute them.
EDIT_FORMATS = frozenset({"json", "json-lines"})
