"""Text arithmetic the server needs, kept free of the protocol library so it is tested on its own:
columns in the client's position encoding, the `# noqa` edit, and the smallest edit between texts.

devlint's columns count characters (code points); LSP counts UTF-16 code units unless the client
and server agreed on UTF-8 (bytes) or UTF-32 (code points). A character outside the Basic
Multilingual Plane (most emoji) is two UTF-16 units and four UTF-8 bytes; CJK is one and three.
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass
from typing import Optional

from devlint.engine.noqa import noqa_codes, noqa_codes_end

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


@dataclass(frozen=True)
class Insertion:
    line: int  # 0-based
    column: int  # 0-based, in characters
    text: str


def noqa_insertion(source: str, line: int, code: str) -> Optional[Insertion]:
    """What disables `code` on `line` (1-based): `  # noqa: CODE` at the line's end, or `, CODE`
    added to its `# noqa: ...` list. None where a comment cannot go: the line ends inside a
    string or with a backslash continuation, the text does not tokenize, or it is suppressed."""
    text = Lines(source).line(line - 1).rstrip("\r")
    codes = noqa_codes(text)
    if codes is not None and (not codes or code in codes):
        return None
    if text.rstrip().endswith("\\") or line in _lines_ending_in_strings(source):
        return None
    end = noqa_codes_end(text)
    if end is not None:
        return Insertion(line - 1, end, f", {code}")
    stripped = text.rstrip()
    return Insertion(line - 1, len(stripped), f"  # noqa: {code}")


def _lines_ending_in_strings(source: str) -> set[int]:
    """1-based lines whose end is inside a string (a triple-quoted string, an f-string spanning
    lines); every line when the source does not tokenize (nothing is known then)."""
    inside: set[int] = set()
    open_fstrings: list[int] = []
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.STRING:
                inside.update(range(token.start[0], token.end[0]))
            elif fstring_start is not None and token.type == fstring_start:
                open_fstrings.append(token.start[0])
            elif fstring_end is not None and token.type == fstring_end and open_fstrings:
                inside.update(range(open_fstrings.pop(), token.end[0]))
    except (tokenize.TokenError, SyntaxError):
        return set(range(1, source.count("\n") + 2))
    return inside


def changed_lines(old: str, new: str) -> Optional[tuple[int, int, str]]:
    """The smallest whole-line edit turning `old` into `new`: (first 0-based line replaced, line
    after the last replaced, replacement text); None when they are equal. Whole lines keep the
    editor's cursor and folds on the lines around it."""
    if old == new:
        return None
    old_lines, new_lines = old.split("\n"), new.split("\n")
    start = 0
    while start < min(len(old_lines), len(new_lines)) - 1 and old_lines[start] == new_lines[start]:
        start += 1
    old_end, new_end = len(old_lines), len(new_lines)
    while old_end - 1 > start and new_end - 1 > start and old_lines[old_end - 1] == new_lines[new_end - 1]:
        old_end -= 1
        new_end -= 1
    # Replace lines [start, old_end) including their line breaks; the last line has none.
    replacement = "\n".join(new_lines[start:new_end])
    if old_end < len(old_lines):
        replacement += "\n"
    return start, old_end, replacement
