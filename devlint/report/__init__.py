"""Output formats: one module each; `FORMATS` maps the `--output-format` name to a renderer.

A renderer takes the sorted diagnostics and returns the text to print on stdout."""

from __future__ import annotations

from typing import Callable, Sequence

from devlint.diagnostics import Diagnostic
from devlint.report import text

Renderer = Callable[[Sequence[Diagnostic], bool], str]

FORMATS: dict[str, Renderer] = {
    "text": text.render,
}
