"""Whether output is coloured, and the ANSI styles of the one-line (`concise`) form.

`full` styles its output through rich (an optional dependency); `concise` needs three styles only and
writes their ANSI codes itself, so colouring it never imports anything."""

from __future__ import annotations

import os
from typing import TextIO

# ANSI Select Graphic Rendition codes: what ruff's concise output uses, as rich spells them in `full`.
ANSI = {"location": "1", "code": "1;31", "fixable": "1;36"}


def colour_wanted(stream: TextIO) -> bool:
    """Colour when the stream is a terminal, unless `NO_COLOR` is set (no-color.org); `FORCE_COLOR`
    turns it on anywhere, pipes included (force-color.org). Set and not empty counts, whatever the value."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, style: str) -> str:
    return f"\x1b[{ANSI[style]}m{text}\x1b[0m"
