"""Data stand-ins: a large display of constants (a generated table, a vendored weight dump) is
replaced, for the parsers only, by a one-element display of the same kind laid out over the same
lines, so that a 10 MB table costs a tokenizer's pass in bounded memory instead of a tree of millions
of nodes (the `ast` of a 10 MB table is over 1 GB, LibCST's several times that).

Only what no rule can read is replaced: the whole value of an assignment (`TABLE = [...]`, followed
by the end of the statement), or a one-line display given first to a call that is an assignment's value
(`W_3 = torch.tensor([...])`, the rows of a generated module), made only of numbers, strings that name
no device and no torch, `None`, `True`, `False`, signs and nested displays, of at least STAND_IN_MIN_CHARS
characters (NUMBERS_MIN_CHARS for displays of numbers only). Every token in it is checked against
Python's grammar for such displays, so the text with stand-ins parses exactly when the original does,
and every line and column outside the displays is unchanged: positions, `# noqa` comments and fixes
outside them hold as they are (a fix on a display's own line is not made). A rewrite (`--fix`, fix
edits) needs the whole text and never uses stand-ins.

A stand-in's padding (the spaces and line breaks that keep what follows in its place) is data, not code:
`max-file-size` counts the code (`StandIns.code_size`).

Displays of numbers only (the bulk of generated tables) are found by one regular expression, which is
Python's grammar for them, instead of the tokenizer (a pure-Python pass, 1 s per MB); the tokenizer then
reads the text with them stood in, to check that each is where a stand-in may be (an assignment's
value, not inside a string or a call's keyword), and to find the displays of other constants.
"""

from __future__ import annotations

import functools
import io
import re
import tokenize
import keyword
from typing import Iterator, NamedTuple, Optional

# Texts shorter than this are parsed whole: a tokenizer's pass costs more than it saves there.
STAND_INS_FROM_CHARS = 256 * 1024
# A display shorter than this is left as it is.
STAND_IN_MIN_CHARS = 4 * 1024
# The same for a display of numbers only: found without the tokenizer, it costs nearly nothing to replace.
NUMBERS_MIN_CHARS = 64

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
_DISPLAY_OPENING = re.compile(r"(?<![=<>!:+\-*/%&|^@~])=[ \t\f]*(?:\\\r?\n[ \t\f]*)*"
                              r"(?P<call>[A-Za-z_][\w.]*[ \t\f]*\((?:[ \t\f\r\n]|\\\r?\n)*)?[\[({]")
_STRINGS = (r"'''(?:[^\\]|\\.)*?'''", r'"""(?:[^\\]|\\.)*?"""',  # (a backslash escapes any character)
            r"'(?:[^'\\\r\n]|\\\r\n|\\.)*'", r'"(?:[^"\\\r\n]|\\\r\n|\\.)*"')
# Displays that may make up less than this share of the text (1 / _WORTH_A_PASS) are not looked for.
_WORTH_A_PASS = 8
_DATA_TEXT = re.compile(r"(?:[\w.+\-,:()\[\]{}\s\\]+|#[^\r\n]*|" + "|".join(_STRINGS) + ")*", re.DOTALL)


def _numbers_grammar(levels: int) -> str:
    """Python's grammar for a list or tuple display of numbers (signed ints and floats, no `_`, `j`, `0x`),
    nested up to `levels` deep, with the whitespace, comments and continued lines Python allows in brackets
    (no lone `\\r`: the tokenizer would count lines otherwise). Each text it matches has one match, so a
    display it does not match fails in linear time."""
    gap = r"(?:[ \t\f\n]|\r\n|\\\r?\n|#[^\r\n]*(?![^\r\n]))*"  # (a comment runs to its line's end)
    number = (rf"(?:[+-]{gap})*(?:[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?"
              r"|[0-9]+[eE][+-]?[0-9]+|0+|[1-9][0-9]*)(?![\w.])")  # (`07` is not Python's, `00` and `07.5` are)
    element = number
    for _ in range(levels):
        listed = rf"\[{gap}(?:{element}{gap},{gap})*(?:{element}{gap})?\]"
        tupled = rf"\({gap}(?:\)|(?:{element}{gap},{gap})+(?:{element}{gap})?\))"  # `(x)` is x, not a tuple
        element = rf"(?:{number}|{listed}|{tupled})"
    return element


@functools.lru_cache(maxsize=None)
def _numbers() -> re.Pattern[str]:
    """The grammar, compiled when a text is first large enough to look for stand-ins: compiling its 23,000
    characters costs 0.1-0.2 s, more than the start-up of a run that checks one file."""
    return re.compile(_numbers_grammar(3))


class StandIns(NamedTuple):
    """A text with data stand-ins, and how many of its characters are their padding (data, not code)."""

    text: str
    padding: int

    @property
    def code_size(self) -> int:
        """The characters of code: the text without the stand-ins' padding."""
        return len(self.text) - self.padding


# A display to replace: (start offset, end offset, rows it spans, column after it, opening bracket).
Region = tuple[int, int, int, int, str]


def with_stand_ins(source: str) -> Optional[str]:
    """`source` with each large display of constants replaced by a stand-in (same lines, same
    column after it), or None when there is none (or the text cannot be tokenized: the parser
    reports that)."""
    found = data_stand_ins(source)
    return found.text if found is not None else None


def data_stand_ins(source: str) -> Optional[StandIns]:
    """`with_stand_ins`'s text and how much of it is padding; None where there is no stand-in."""
    if len(source) < STAND_INS_FROM_CHARS or ("\r" in source and "\r\n" not in source):
        return None  # old Mac line ends: the tokenizer would number lines otherwise than Python
    numbers = _looked_for(source)
    if numbers is None:
        return None  # no display, or too little of one to pay for the tokenizer's pass
    try:
        reduced, padding, others = _checked_by_the_tokenizer(source, numbers)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    if reduced is source and not others:
        return None
    text, more = _replaced(reduced, others)
    return StandIns(text, padding + more)


def _checked_by_the_tokenizer(source: str, numbers: list[Region]) -> tuple[str, int, list[Region]]:
    """`source` with the displays of `numbers` that the tokenizer finds where a stand-in may be replaced, their
    padding, and the other displays it finds there (offsets in that text). A display of numbers it does not
    find there (in a string, a keyword's value) is put back and the text read again: at most twice, then
    the text is read with none (a stand-in put back may change how the text around it reads)."""
    for attempt in range(3):
        chosen = numbers if attempt < 2 else []
        reduced, padding = _replaced(source, chosen)
        placed = _starts_after(source, chosen)
        places = set(placed)
        regions = list(_data_displays(reduced, _line_starts(reduced), places))
        found = {region[0] for region in regions}
        if places <= found:
            return reduced, padding, [region for region in regions if region[0] not in places]
        numbers = [region for region, start in zip(chosen, placed) if start in found]
    raise AssertionError("unreachable: the last attempt places nothing")  # pragma: no cover


def _starts_after(source: str, regions: list[Region]) -> list[int]:
    """Where each region starts once the regions before it are stood in."""
    starts, shift = [], 0
    for region in regions:
        starts.append(region[0] - shift)
        shift += (region[1] - region[0]) - len(_stand_in(source, region))
    return starts


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for line in io.StringIO(text, newline=""):
        starts.append(starts[-1] + len(line))
    return starts


def _replaced(source: str, regions: list[Region]) -> tuple[str, int]:
    """`source` with a stand-in for each region, and the characters of their padding."""
    if not regions:
        return source, 0
    pieces: list[str] = []
    done = padding = 0
    for region in regions:
        stand_in = _stand_in(source, region)
        pieces += [source[done:region[0]], stand_in]
        padding += len(stand_in) - len(_STAND_IN[region[4]]) - 1
        done = region[1]
    pieces.append(source[done:])
    return "".join(pieces), padding


def _stand_in(source: str, region: Region) -> str:
    """A one-element display of the region's kind over the same lines, its closing bracket where the display's is."""
    start, end, rows, end_col, opening = region
    head = _STAND_IN[opening]
    if rows == 0:
        return head + " " * (end - start - len(head) - 1) + _OPENING[opening]
    newline = "\r\n" if "\r\n" in source[start:end] else "\n"
    return head + newline * rows + " " * (end_col - 1) + _OPENING[opening]


# A one-line stand-in as `_stand_in` writes it.
_ONE_LINE_STAND_IN = re.compile(r"\[0 *\]|\(0, *\)|\{0: 0 *\}")


def one_line_stand_ins(line: str, original: str) -> Optional[list[tuple[str, str]]]:
    """(stand-in, the display it stands for) of each one-line stand-in on `line`, a line of a text with stand-ins
    whose original is `original`, in order; None where the two lines differ otherwise (a display over lines)."""
    if len(line) != len(original):
        return None
    pairs, done = [], 0
    for found in _ONE_LINE_STAND_IN.finditer(line):
        if line[done:found.start()] != original[done:found.start()]:
            return None
        pairs.append((found.group(), original[found.start():found.end()]))
        done = found.end()
    return pairs if line[done:] == original[done:] else None


def _looked_for(source: str) -> Optional[list[Region]]:
    """The displays of numbers only (`_numbers()`) after an `=` or given first to a call after one, found
    without the tokenizer; None where no display, of numbers or not, is worth the tokenizer's pass (False only
    where `_data_displays` could find none to replace that is). The pass costs about a fifth of what parsing and
    checking the same text costs, so displays that make up less than an eighth of the text save less than the
    pass costs, unless one of them is as large as a text that is tried for stand-ins at all (LibCST parses a
    statement whole: its memory follows the display)."""
    worth = len(source) / _WORTH_A_PASS
    candidates = 0  # the characters looks from each opening span: at least the displays' (looks may overlap)
    worth_a_pass = False
    numbers: list[Region] = []
    grammar = _numbers()
    for opening in _DISPLAY_OPENING.finditer(source):
        start = opening.end() - 1
        found = grammar.match(source, start)
        length = found.end() - start if found is not None else 0
        rows = source.count("\n", start, start + length)
        if length >= NUMBERS_MIN_CHARS and not (rows and opening.group("call")):  # (in a call: one line only)
            end = start + length
            end_col = end - (source.rfind("\n", 0, end) + 1)
            numbers.append((start, end, rows, end_col, source[start]))
        else:
            length = _DATA_TEXT.match(source, start).end() - start
            if length < STAND_IN_MIN_CHARS:
                continue
        candidates += length
        worth_a_pass = worth_a_pass or candidates >= worth or length >= STAND_INS_FROM_CHARS
    return numbers if worth_a_pass else None


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


def _data_displays(source: str, starts: list[int], placed: frozenset[int] | set[int] = frozenset()) -> Iterator[Region]:
    """Each display to replace, in order: of at least STAND_IN_MIN_CHARS characters, or starting at an offset
    in `placed` (a stand-in for numbers, whose place this checks)."""
    tokens = _Tokens(source)
    previous: Optional[tokenize.TokenInfo] = None
    depth = 0
    while (token := tokens.next()) is not None:
        if depth == 0 and _is_op(previous, "=") and (
                _is_op(token, *_OPENING) or (token.type == tokenize.NAME and not keyword.iskeyword(token.string))):
            called = token.type == tokenize.NAME
            if called:  # `= torch.tensor([...], ...)`: a one-line display, the call's first argument
                last = _dotted_name(token, tokens)
                if not _is_op(tokens.peek(), "("):
                    previous = last
                    continue
                tokens.next()
                token = tokens.peek()  # type: ignore[assignment]
                if _is_op(token, *_OPENING):
                    tokens.next()
            if _is_op(token, *_OPENING):
                end = _display_end(token, tokens)
                after = tokens.peek()
                if end is not None and after is not None and (
                        _is_op(after, ")", ",") and end[0] == token.start[0] if called
                        else after.type in (tokenize.NEWLINE, tokenize.ENDMARKER)):
                    start_offset = starts[token.start[0] - 1] + token.start[1]
                    end_offset = starts[end[0] - 1] + end[1]
                    if end_offset - start_offset >= STAND_IN_MIN_CHARS or start_offset in placed:
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


def _dotted_name(name: tokenize.TokenInfo, tokens: _Tokens) -> tokenize.TokenInfo:
    """The last token of `name.name...` (read up to it)."""
    last = name
    while _is_op(tokens.peek(), ".") and last.type == tokenize.NAME:
        last = tokens.next()  # type: ignore[assignment]
        following = tokens.peek()
        if following is not None and following.type == tokenize.NAME:
            last = tokens.next()  # type: ignore[assignment]
    return last


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
