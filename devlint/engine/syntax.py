"""What Python itself says of a text: its tree, or the DEV999 report of why it rejects the text.

DEV999 is said only here, and only for text that Python cannot parse: at the line and column Python
names, with Python's own message. Text that Python parses and devlint cannot analyse (a rule that
fails, code deeper than LibCST can take) is an internal error (DEV998), never a syntax error.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from typing import Union

from devlint.contract.diagnostics import Diagnostic
from devlint.engine.settings import INTERNAL_ERROR_CODE, SYNTAX_ERROR_CODE

# What `ast.parse` raises for text it rejects; RecursionError and MemoryError are CPython's parser
# giving up on an expression too long or deep for it ("maximum recursion depth exceeded during ast
# construction"): `python` cannot run such a file either.
_REJECTIONS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def parse_python(source: str, path: str = "<string>") -> Union[ast.Module, Diagnostic]:
    """Python's tree of `source`, or the DEV999 report of why Python rejects it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            return ast.parse(source)
    except _REJECTIONS as error:
        return python_rejection(path, source, error)


def python_rejection(path: str, source: str, error: BaseException) -> Diagnostic:
    """The DEV999 report of `error`, which Python raised parsing `source`."""
    if isinstance(error, SyntaxError):
        line = error.lineno or 1
        col = error.offset or 1
        message = str(error.msg)
    elif isinstance(error, (RecursionError, MemoryError)):
        line, col = longest_logical_line(source), 1
        message = f"too long or too deeply nested for Python's parser ({error or type(error).__name__})"
    else:  # ValueError: "source code string cannot contain null bytes"
        line, col = _null_byte_line(source), 1
        message = str(error) or type(error).__name__
    line = max(1, min(line, source.count("\n") + 1))
    return Diagnostic(path, line, max(col, 1), SYNTAX_ERROR_CODE, f"syntax error: {message}", line, max(col, 1))


def internal_error(path: str, line: int, col: int, what: str, error: BaseException) -> Diagnostic:
    """The DEV998 report: devlint failed on text that Python parses. `what` names what failed
    (a rule, or the analysis of the file) and what was dropped."""
    detail = str(error).strip().splitlines()[0] if str(error).strip() else ""
    kind = type(error).__name__ + (f": {detail}" if detail else "")
    message = (f"internal error: {what} ({kind}); please report it to the devlint developers with this file"
               " (`devlint rule DEV998`)")
    return Diagnostic(path, line, col, INTERNAL_ERROR_CODE, message, line, col)


def longest_logical_line(source: str) -> int:
    """The first line of the logical line with the most tokens (where an expression too long for
    Python's parser is); 1 when the text cannot be tokenized."""
    best_line, best_count = 1, -1
    start, count = 1, 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if count == 0:
                start = token.start[0]
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if count > best_count:
                    best_line, best_count = start, count
                count = 0
            elif token.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                count += 1
    except (tokenize.TokenError, SyntaxError, ValueError):
        if count > best_count:
            best_line = start
    return best_line


def _null_byte_line(source: str) -> int:
    index = source.find("\0")
    return source.count("\n", 0, index) + 1 if index >= 0 else 1
