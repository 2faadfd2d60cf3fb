"""Data stand-ins: a large display of constants (a generated table, a vendored weight dump) is
replaced, for the parsers only, by a one-element display of the same kind laid out over the same
lines, so that a 10 MB table costs a tokenizer's pass in bounded memory instead of a tree of millions
of nodes (the `ast` of a 10 MB table is over 1 GB, LibCST's several times that).

Only what no rule can read is replaced: the whole value of an assignment (`TABLE = [...]`, followed
by the end of the statement), made only of numbers, strings that name no device and no torch, `None`,
`True`, `False`, signs and nested displays, of at least STAND_IN_MIN_CHARS characters. Every token in
it is checked against Python's grammar for such displays, so the text with stand-ins parses exactly
when the original does, and every line and column outside the displays is unchanged: positions,
`# noqa` comments and fixes outside them hold as they are. A rewrite (`--fix`, fix edits) needs the
whole text and never uses stand-ins.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Iterator, Optional

# Texts shorter than this are parsed whole: a tokenizer's pass costs more than it saves there.
STAND_INS_FROM_CHARS = 256 * 1024
# A display shorter than this is left as it is.
STAND_IN_MIN_CHARS = 4 * 1024

_OPENING = {"[": "]", "(": ")", "{": "}"}
_CONSTANT_NAMES = {"None", "True", "False"}
# A string holding one of these may be read by a rule (a device, an option, a torch name): kept.
_READ_WORDS = ("cuda", "cpu", "mps", "xpu", "hpu", "npu", "gpu", "device", "torch", "accelerat")
_SKIPPED = {tokenize.NL, tokenize.COMMENT}
_STAND_IN = {"[": "[0", "(": "(0,", "{": "{0: 0"}

# Before the tokenizer's pass (it costs a large file's check more than Python's parser): where a display of data
# may be. Every display `_data_displays` replaces is an opening bracket after `=` (spaces and continued lines
# between) from which `_DATA_TEXT` matches at least as far as its closing bracket: its numbers, constant names,
# signs, commas, colons, brackets, line breaks and comments are in the first two alternatives, each string is one
# of the next four, read from its opening quote as the tokenizer reads it. (Names and more are let through: a text
# they pass is tokenized, and the tokenizer decides.)
_DISPLAY_OPENING = re.compile(r"=[ \t\f]*(?:\\\r?\n[ \t\f]*)*[\[({]")
_STRINGS = (r"'''(?:[^\\]|\\.)*?'''", r'"""(?:[^\\]|\\.)*?"""',  # (a backslash escapes any character)
            r"'(?:[^'\\\r\n]|\\\r\n|\\.)*'", r'"(?:[^"\\\r\n]|\\\r\n|\\.)*"')
# Displays that may make up less than this share of the text (1 / _WORTH_A_PASS) are not looked for.
_WORTH_A_PASS = 8
_DATA_TEXT = re.compile(r"(?:[\w.+\-,:()\[\]{}\s\\]+|#[^\r\n]*|" + "|".join(_STRINGS) + ")*", re.DOTALL)


def with_stand_ins(source: str) -> Optional[str]:
    """`source` with each large display of constants replaced by a stand-in (same lines, same
    column after it), or None when there is none (or the text cannot be tokenized: the parser
    reports that)."""
    if len(source) < STAND_INS_FROM_CHARS or ("\r" in source and "\r\n" not in source):
        return None  # old Mac line ends: the tokenizer would number lines otherwise than Python
    if not _may_hold_a_display(source):
        return None  # no display, or too little of one to pay for the tokenizer's pass
    starts = [0]
    for line in io.StringIO(source, newline=""):
        starts.append(starts[-1] + len(line))
    try:
        regions = list(_data_displays(source, starts))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    if not regions:
        return None
    pieces: list[str] = []
    done = 0
    for start, end, rows, end_col, opening in regions:
        newline = "\r\n" if "\r\n" in source[start:end] else "\n"
        head = _STAND_IN[opening]
        padding = " " * (end - start - len(head) - 1) if rows == 0 else newline * rows + " " * (end_col - 1)
        pieces += [source[done:start], head, padding, _OPENING[opening]]
        done = end
    pieces.append(source[done:])
    return "".join(pieces)


def _may_hold_a_display(source: str) -> bool:
    """Could `_data_displays` find displays to replace in `source` that are worth its pass? (False only where it
    could not.) The pass costs about a fifth of what parsing and checking the same text costs, so displays that
    make up less than an eighth of the text save less than the pass costs, unless one of them is as large as a
    text that is tried for stand-ins at all (LibCST parses a statement whole: its memory follows the display)."""
    worth = len(source) / _WORTH_A_PASS
    candidates = 0  # the characters looks from each opening span: at least the displays' (looks may overlap)
    for opening in _DISPLAY_OPENING.finditer(source):
        start = opening.end() - 1
        length = _DATA_TEXT.match(source, start).end() - start
        if length >= STAND_IN_MIN_CHARS:
            candidates += length
            if candidates >= worth or length >= STAND_INS_FROM_CHARS:
                return True
    return False


class _Tokens:
    """The significant tokens of a text, one at a time, with a look at the next."""

    def __init__(self, source: str) -> None:
        every = tokenize.generate_tokens(io.StringIO(source, newline="").readline)
        self._tokens = (token for token in every if token.type not in _SKIPPED)
        self._ahead: Optional[tokenize.TokenInfo] = None

    def next(self) -> Optional[tokenize.TokenInfo]:
        if self._ahead is not None:
            token, self._ahead = self._ahead, None
            return token
        return next(self._tokens, None)

    def peek(self) -> Optional[tokenize.TokenInfo]:
        if self._ahead is None:
            self._ahead = next(self._tokens, None)
        return self._ahead


def _is_op(token: Optional[tokenize.TokenInfo], *strings: str) -> bool:
    return token is not None and token.type == tokenize.OP and token.string in strings


def _data_displays(source: str, starts: list[int]) -> Iterator[tuple[int, int, int, int, str]]:
    """(start offset, end offset, rows spanned, end column, opening bracket) of each display to
    replace, in order."""
    tokens = _Tokens(source)
    previous: Optional[tokenize.TokenInfo] = None
    depth = 0
    while (token := tokens.next()) is not None:
        if _is_op(token, *_OPENING) and depth == 0 and _is_op(previous, "="):
            end = _display_end(token, tokens)
            if end is not None and tokens.peek() is not None \
                    and tokens.peek().type in (tokenize.NEWLINE, tokenize.ENDMARKER):  # type: ignore[union-attr]
                start_offset = starts[token.start[0] - 1] + token.start[1]
                end_offset = starts[end[0] - 1] + end[1]
                if end_offset - start_offset >= STAND_IN_MIN_CHARS:
                    yield start_offset, end_offset, end[0] - token.start[0], end[1], token.string
            while token is not None and token.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
                token = tokens.next()  # on to the end of the statement (newlines in brackets are NL)
            previous, depth = None, 0
            continue
        if token.type == tokenize.OP:
            depth += token.string in _OPENING
            depth -= token.string in (")", "]", "}")
        elif token.type == tokenize.NEWLINE:
            depth = 0
        previous = token


class _NotData(Exception):
    """The display holds something other than constants (or is not one Python accepts)."""


def _display_end(opening: tokenize.TokenInfo, tokens: _Tokens) -> Optional[tuple[int, int]]:
    """The end (row, column) of the display `opening` starts when it is data, else None (the
    tokens read so far are consumed)."""
    try:
        return _rest_of_display(opening.string, tokens)
    except _NotData:
        return None


def _rest_of_display(opening: str, tokens: _Tokens) -> tuple[int, int]:
    closing = _OPENING[opening]
    elements = 0
    is_dict: Optional[bool] = None
    while True:
        token = tokens.next()
        if _is_op(token, closing):  # empty, or after a trailing comma
            return _closed(opening, elements, True, is_dict, token)
        _value(token, tokens)
        if opening == "{":
            has_value = _is_op(tokens.peek(), ":")
            if is_dict is not None and has_value != is_dict:
                raise _NotData
            is_dict = has_value
            if has_value:
                tokens.next()
                _value(tokens.next(), tokens)
        elements += 1
        separator = tokens.next()
        if _is_op(separator, closing):
            return _closed(opening, elements, False, is_dict, separator)
        if not _is_op(separator, ","):
            raise _NotData


def _closed(opening: str, elements: int, trailing_comma: bool, is_dict: Optional[bool],
            token: Optional[tokenize.TokenInfo]) -> tuple[int, int]:
    assert token is not None
    if opening == "(" and elements == 1 and not trailing_comma:
        raise _NotData  # `(x)` is x, not a tuple
    if opening == "{" and elements and not is_dict:
        raise _NotData  # a set: sets of data are rare, and `{0}` is not `{}`
    return token.end


def _value(token: Optional[tokenize.TokenInfo], tokens: _Tokens) -> None:
    """One constant: a number (with signs), strings (implicitly joined), a constant name, a display.
    Raises _NotData at anything else."""
    while _is_op(token, "-", "+"):
        token = tokens.next()
        if not (_is_op(token, "-", "+") or (token is not None and token.type == tokenize.NUMBER)):
            raise _NotData
    if token is None:
        raise _NotData
    if token.type == tokenize.NUMBER:
        _check_number(token.string)
    elif token.type == tokenize.NAME and token.string in _CONSTANT_NAMES:
        pass
    elif token.type == tokenize.STRING:
        _check_string(token.string)
        while (following := tokens.peek()) is not None and following.type == tokenize.STRING:
            _check_string(following.string)
            tokens.next()
    elif _is_op(token, *_OPENING):
        _rest_of_display(token.string, tokens)
    else:
        raise _NotData


def _check_number(text: str) -> None:
    """`0777` and `0_7`: Python rejects a decimal integer with a leading zero, the tokenizer does not."""
    if len(text) > 1 and text[0] == "0" and (text[1].isdigit() or text[1] == "_") \
            and not any(mark in text for mark in ".eEjJ") and text.replace("_", "").strip("0"):
        raise _NotData


def _check_string(text: str) -> None:
    """A string no rule reads: no f-string (it holds code), no device or torch word, and no byte
    string with other than ASCII (Python rejects it)."""
    quote = min(i for i in (text.find("'"), text.find('"')) if i >= 0)
    prefix = text[:quote].lower()
    if "f" in prefix or ("b" in prefix and not text.isascii()):
        raise _NotData
    lowered = text.lower()
    if any(word in lowered for word in _READ_WORDS):
        raise _NotData
