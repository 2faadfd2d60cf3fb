"""`# noqa` comments, read exactly as flake8 reads them, and devlint's file-level directive.

flake8 (7.x; flake8/defaults.py, violation.py, processor.py):

- `# noqa` must be written so, one space after `#` (`#noqa` is no noqa); the word's case does
  not matter. `# noqa:CODES` or `# noqa: CODES` (one space at most) lists codes, separated by
  commas and/or whitespace, each letters then digits; a code matches its own reports and, as a
  prefix, longer codes (`DEV00` silences DEV001-DEV009). Codes compare case-sensitively
  (`# noqa: dev004` silences nothing).
- A `# noqa` whose list does not parse (`# noqa : DEV004`, `# noqa:  DEV004`, `# noqa:DEV`) is a
  bare `# noqa`: it silences every code on its line.
- The line searched is the report's line, widened to every line of the tokens around it that no
  line break token separates: a statement spread over brackets is one line per physical line,
  but a triple-quoted string (or a backslash continuation) joins its lines.
- `# flake8: noqa` (or `flake8=`; any case; a comment alone on its line) skips the whole file,
  also when codes follow it (`# flake8: noqa: E501`).

devlint adds `# devlint: noqa` (the whole file) and `# devlint: noqa: DEV004,DEV001` (those codes
in the whole file), as ruff reads `# ruff: noqa`; the flake8 plugin honours them too.

`noqa_edit` writes one: where `# noqa: CODE` must go so that flake8 (and devlint) read it for a
report, for `devlint --add-noqa` and the editor's "Disable DEVnnn for this line" alike.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from typing import Optional, Sequence

# flake8's own patterns, character for character.
INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
FLAKE8_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
DEVLINT_FILE = re.compile(r"\s*#\s*devlint:\s*noqa(?P<list>:\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?"
                          r"[,\s]*$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[,\s]")
_MENTION = re.compile("noqa", re.IGNORECASE)


def parse_codes(text: str) -> frozenset[str]:
    """flake8's `utils.parse_comma_separated_list`: items split at commas and whitespace."""
    return frozenset(item.strip() for item in _SEPARATORS.split(text) if item.strip())


def _matches(code: str, codes: frozenset[str]) -> bool:
    return code in codes or code.startswith(tuple(codes))


def noqa_codes(text: str) -> Optional[frozenset[str]]:
    """The codes a `# noqa` in `text` lists: None where there is none, empty for a bare one (all)."""
    match = INLINE.search(text)
    if match is None:
        return None
    codes = match.group("codes")
    return frozenset() if codes is None else parse_codes(codes)


def inline_suppresses(code: str, text: str) -> bool:
    """Whether a `# noqa` in `text` (flake8's noqa line) silences `code`."""
    codes = noqa_codes(text)
    return codes is not None and (not codes or _matches(code, codes))


def codes_end(match: "re.Match[str]") -> int:
    """Where the code list of an `INLINE` match with codes ends (to extend it with more)."""
    return match.start("codes") + len(match.group("codes").rstrip(", \t"))


class Suppressions:
    """What the comments of one module's text suppress, read once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.whole_file = False  # `# flake8: noqa`, or a bare `# devlint: noqa`
        self.devlint_whole_file = False
        self.file_codes: frozenset[str] = frozenset()  # `# devlint: noqa: CODES`
        self._ranges: Optional[dict[int, tuple[int, int]]] = None
        self._comments: "Optional[_Comments | bool]" = None  # False: the text does not tokenize
        self.has_inline = INLINE.search(source) is not None
        self.lines: list[str] = []
        if not _MENTION.search(source):  # most files: nothing more to read
            return
        self.lines = source.split("\n")
        codes: set[str] = set()
        for line in self.lines:
            if FLAKE8_FILE.match(line):
                self.whole_file = True
            directive = DEVLINT_FILE.match(line)
            if directive is not None:
                if directive.group("codes"):
                    codes |= parse_codes(directive.group("codes"))
                else:
                    self.whole_file = self.devlint_whole_file = True
        self.file_codes = frozenset(codes)

    def by_devlint_directive(self, code: str) -> bool:
        """Suppressed by a `# devlint: noqa` comment (what flake8 does not know)."""
        return self.devlint_whole_file or (bool(self.file_codes) and _matches(code, self.file_codes))

    def suppresses(self, code: str, line: int) -> bool:
        """Suppressed on `line` (1-based) by any comment: inline, flake8's or devlint's file-level."""
        if self.whole_file or self.by_devlint_directive(code):
            return True
        return self.has_inline and inline_suppresses(code, self.noqa_line(line))

    def noqa_line(self, line: int) -> str:
        """The text flake8 searches for a report on `line`: its token range's lines, joined."""
        first, last = self.line_range(line)
        return "\n".join(self.lines[first - 1:last])

    def line_range(self, line: int) -> tuple[int, int]:
        """The first and last line of the tokens around `line` that no line break separates (as
        flake8's `_noqa_line_mapping`); `(line, line)` where the text does not tokenize."""
        if self._ranges is None:
            self._ranges = _token_ranges(self.source)
        return self._ranges.get(line, (line, line))

    def comments(self) -> Optional["_Comments"]:
        """Where comments start and which lines end inside a string, read once; None where the
        text does not tokenize."""
        if self._comments is None:
            self._comments = _scan_comments(self.source) or False
        return self._comments or None


def _token_ranges(source: str) -> dict[int, tuple[int, int]]:
    ranges: dict[int, tuple[int, int]] = {}
    total = len(source.split("\n"))
    first, last = total + 2, -1
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, (start, _), (end, _) = token.type, token.start, token.end
            if start > total:
                break
            if kind in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            first, last = min(first, start), max(last, end)
            if kind in (tokenize.NL, tokenize.NEWLINE):
                for number in range(first, last + 1):
                    ranges[number] = (first, last)
                first, last = total + 2, -1
    except (tokenize.TokenError, SyntaxError):
        return {}  # flake8 then searches the report's own physical line
    return ranges


@dataclass(frozen=True)
class NoqaEdit:
    """Replace characters `start`..`end` of the 1-based `line` with `text`."""

    line: int
    start: int
    end: int
    text: str


def noqa_edit(suppressions: Suppressions, line: int, codes: Sequence[str]) -> Optional[NoqaEdit]:
    """The edit that makes flake8 (and devlint) read `# noqa` for `codes` on a report on `line`
    (1-based) of `suppressions.source`; None where nothing needs adding or nothing can be added.

    flake8 reads the first `# noqa` of the report's line widened to its token range
    (`Suppressions.line_range`: every line of a triple-quoted string or a backslash continuation).
    Where that range has a `# noqa: CODES` comment, the codes are added to its list; otherwise
    `  # noqa: CODES` goes at the end of the range's last line (trailing blanks dropped, a CRLF's
    `\r` kept), after any comment already there. Nothing is written where the text does not
    tokenize, where the first `# noqa` of the range is inside a string (flake8 reads it all the same,
    and no comment after it counts), where the last line ends inside a string, or where every code
    is suppressed already."""
    comments = suppressions.comments()
    if comments is None:
        return None
    first, last = suppressions.line_range(line)
    lines = suppressions.source.split("\n")[first - 1:last]
    missing = [code for code in codes if not inline_suppresses(code, "\n".join(lines))]
    if not missing:
        return None
    added = ", ".join(missing)
    for number, text in enumerate(lines, first):
        match = INLINE.search(text)
        if match is None:
            continue
        if comments.starts.get(number, len(text)) > match.start():
            return None  # in a string
        end = codes_end(match)
        return NoqaEdit(number, end, end, f", {added}")
    if last in comments.inside_strings:
        return None
    text = lines[-1][:-1] if lines[-1].endswith("\r") else lines[-1]
    body = text.rstrip(" \t")
    return NoqaEdit(last, len(body), len(text), f"  # noqa: {added}")


@dataclass(frozen=True)
class _Comments:
    starts: dict[int, int]  # 1-based line -> column where its comment starts
    inside_strings: frozenset[int]  # 1-based lines whose end is inside a string


def _scan_comments(source: str) -> Optional[_Comments]:
    starts: dict[int, int] = {}
    inside: set[int] = set()
    open_fstrings: list[int] = []
    fstring_start = getattr(tokenize, "FSTRING_START", None)  # Python 3.12: f-strings are tokens
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                starts[token.start[0]] = token.start[1]
            elif token.type == tokenize.STRING:
                inside.update(range(token.start[0], token.end[0]))
            elif fstring_start is not None and token.type == fstring_start:
                open_fstrings.append(token.start[0])
            elif fstring_end is not None and token.type == fstring_end and open_fstrings:
                inside.update(range(open_fstrings.pop(), token.end[0]))
    except (tokenize.TokenError, SyntaxError):
        return None
    return _Comments(starts, frozenset(inside))
