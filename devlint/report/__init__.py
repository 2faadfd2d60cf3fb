"""Output formats: one module each; `FORMATS` maps the `--output-format` name to a renderer.

A renderer takes the sorted diagnostics and the `Context` of the run and returns the text to
print on stdout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from devlint.diagnostics import Diagnostic
from devlint.report import full, github, gitlab, json, junit, sarif, text


@dataclass(frozen=True)
class Context:
    """What a renderer needs to know of the run besides the reports."""

    unsafe_fixes: bool = False  # `[*]` marks unsafe fixes too
    show_fixes: bool = False  # `full` shows each fix as a diff (needs the edits)
    colour: bool = False  # `full` styles its output (ANSI, through rich)
    # Where paths in CI formats (github, sarif, gitlab, junit) are relative to: the repository root.
    root: str = "."


Renderer = Callable[[Sequence[Diagnostic], Context], str]

FORMATS: dict[str, Renderer] = {
    "concise": text.render,
    "full": full.render,
    "json": json.render,
    "json-lines": json.render_lines,
    "sarif": sarif.render,
    "github": github.render,
    "gitlab": gitlab.render,
    "junit": junit.render,
}
# The name of `concise` before `full` existed: scripts that pass it keep working.
ALIASES = {"text": "concise"}

# Formats that print each fix's text edits: only these make the engine compute them
# (`full` needs them with --show-fixes).
EDIT_FORMATS = frozenset({"json", "json-lines"})
# Formats whose output is one self-contained block per file: printed file by file as outcomes arrive.
STREAMED_FORMATS = frozenset({"concise", "full", "github", "json-lines"})
