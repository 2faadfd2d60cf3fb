"""Output formats: one module each; `FORMATS` maps the `--output-format` name to a renderer.

A renderer takes the sorted diagnostics and the `Context` of the run and returns the text to
print on stdout. A format's module is imported when the format is used: a run pays only for its
own (tests/test_startup.py)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Sequence

from devlint.contract.diagnostics import Diagnostic


@dataclass(frozen=True)
class Context:
    """What a renderer needs to know of the run besides the reports."""

    unsafe_fixes: bool = False  # `[*]` marks unsafe fixes too
    show_fixes: bool = False  # `full` shows each fix as a diff (needs the edits)
    colour: bool = False  # `full` styles its output (ANSI, through rich)
    # Where paths in CI formats (github, sarif, gitlab, junit) are relative to: the repository root.
    root: str = "."


Renderer = Callable[[Sequence[Diagnostic], Context], str]


class _Renderers(Mapping[str, Renderer]):
    """Format name -> renderer, each imported from its module (`devlint.frontends.report.<module>`) on first use."""

    def __init__(self, functions: dict[str, tuple[str, str]]) -> None:
        self._functions = functions  # name -> (module, function)

    def __getitem__(self, name: str) -> Renderer:
        module, function = self._functions[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), function)

    def __iter__(self) -> Iterator[str]:
        return iter(self._functions)

    def __len__(self) -> int:
        return len(self._functions)


FORMATS: Mapping[str, Renderer] = _Renderers({
    "concise": ("text", "render"),
    "full": ("full", "render"),
    "json": ("json", "render"),
    "json-lines": ("json", "render_lines"),
    "sarif": ("sarif", "render"),
    "github": ("github", "render"),
    "gitlab": ("gitlab", "render"),
    "junit": ("junit", "render"),
})
# The name of `concise` before `full` existed: scripts that pass it keep working.
ALIASES = {"text": "concise"}

# Formats that print each fix's text edits: only these make the engine compute them
# (`full` needs them with --show-fixes).
EDIT_FORMATS = frozenset({"json", "json-lines"})
# Formats whose output is one self-contained block per file: printed file by file as outcomes arrive.
STREAMED_FORMATS = frozenset({"concise", "full", "github", "json-lines"})
