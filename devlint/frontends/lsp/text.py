"""Text arithmetic the server needs, kept free of the protocol library so it is tested on its own:
columns in the client's position encoding and the smallest edit between texts. (Where a `# noqa`
goes is the engine's: `devlint.engine.noqa.noqa_edit`, shared with `devlint --add-noqa`.)

devlint's columns count characters (code points); LSP counts UTF-16 code units unless the client
and server agreed on UTF-8 (bytes) or UTF-32 (code points). A character outside the Basic
Multilingual Plane (most emoji) is two UTF-16 units and four UTF-8 bytes; CJK is one and three.
"""

from __future__ import annotations

from typing import Optional

from devlint.engine.lines import common_ends

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def _units(text: str, encoding: str) -> int:
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


class Lines:
    """A text's lines ("\\n"-separated, as Python and devlint count them) and column conversions."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.lines = text.split("\n")
        self.encoding = encoding

    def line(self, index: int) -> str:
        """The 0-based line `index` without its "\\n" ("" past the end)."""
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def to_units(self, index: int, column: int) -> int:
        """0-based line and 0-based character column -> the column in the client's units."""
        return _units(self.line(index)[:column], self.encoding)

    def to_characters(self, index: int, units: int) -> int:
        """0-based line and a column in the client's units -> 0-based character column."""
        text = self.line(index)
        if self.encoding == UTF32 or text.isascii():
            return min(units, len(text))
        count = 0
        for position, char in enumerate(text):
            if count >= units:
                return position
            count += _units(char, self.encoding)
        return len(text)

    def end(self) -> tuple[int, int]:
        """The position just after the last character: (0-based line, column in units)."""
        last = len(self.lines) - 1
        return last, _units(self.lines[last], self.encoding)


def changed_lines(old: str, new: str) -> Optional[tuple[int, int, str]]:
    """The smallest whole-line edit turning `old` into `new`: (first 0-based line replaced, line
    after the last replaced, replacement text); None when they are equal. Whole lines keep the
    editor's cursor and folds on the lines around it."""
    if old == new:
        return None
    old_lines, new_lines = old.split("\n"), new.split("\n")
    shortest = min(len(old_lines), len(new_lines))
    prefix, suffix = common_ends(old_lines, new_lines)
    start = min(prefix, shortest - 1)  # at least one line is replaced
    suffix = min(suffix, shortest - start - 1)
    old_end, new_end = len(old_lines) - suffix, len(new_lines) - suffix
    # Replace lines [start, old_end) including their line breaks; the last line has none.
    replacement = "\n".join(new_lines[start:new_end])
    if old_end < len(old_lines):
        replacement += "\n"
    return start, old_end, replacement
