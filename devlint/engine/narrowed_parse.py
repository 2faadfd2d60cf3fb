"""LibCST's tree of only the statements the rules need (devlint/analysis/needed.py says which): the others
stand for themselves as `...`, an empty line or their header, so every line and column stays where it was."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import TYPE_CHECKING, Optional, Sequence

import libcst as cst

from devlint.analysis.needed import LEFT_OUT, first_line, needed_statements, stand_in
from devlint.engine.deep_stack import caused_by_recursion
from devlint.engine.lines import Lines
from devlint.engine.reparse import parse_in_pieces
from devlint.rules import RuleEntry

if TYPE_CHECKING:  # pragma: no cover
    from devlint.analysis.screen import SyntaxFacts


_LONE_CARRIAGE_RETURN = re.compile(r"\r(?!\n)")


def parse_needed(text: str, syntax: SyntaxFacts,
                  rules: Sequence[RuleEntry]) -> Optional[tuple[cst.Module, ast.Module, Lines]]:
    """(LibCST's tree, the `ast` of its statements, its text's lines) of only the statements `rules` need
    (devlint/analysis/needed.py); None where that is every statement, or where LibCST does not take what is left
    (the whole text is then parsed, and reports its own errors)."""
    if _LONE_CARRIAGE_RETURN.search(text):  # (`ast` counts a line at a lone "\r" too)
        return None
    candidates = (node for entry in rules for node in syntax.candidates_of(entry.rule.candidates))  # type: ignore
    needed = needed_statements(syntax, text, candidates)
    return None if needed is None else parse_only(text, syntax.tree.body, needed)


def parse_only(text: str, body: list[ast.stmt],
               needed: list[tuple[ast.stmt, int]]) -> Optional[tuple[cst.Module, ast.Module, Lines]]:
    """(LibCST's tree, the `ast` of its statements, its text's lines) of `text` with only the `needed` statements
    of `body` (its top-level `ast` statements), each whole or for its header; None where LibCST does not take it."""
    what_of = {id(statement): what for statement, what in needed}
    stand_ins = [(statement, stand_in(statement, what_of.get(id(statement), LEFT_OUT))) for statement in body]
    parsed = _only(text, [(statement, standing) for statement, standing in stand_ins if standing is not statement])
    tree = ast.Module(body=[standing for _, standing in stand_ins if standing is not None], type_ignores=[])
    try:
        return parse_in_pieces(parsed, tree), tree, Lines(parsed)
    except Exception as error:  # (never seen: what is left out is whole statements, and of a header its body)
        if caused_by_recursion(error):
            raise  # tried again on a large stack (devlint/engine/deep_stack.py)
        return None


def _only(text: str, replaced: list[tuple[ast.stmt, Optional[ast.stmt]]]) -> str:
    """`text` with each top-level statement of `replaced` standing for itself as `stand_in` gives (None: its line
    left empty; a header: its body's lines): every line and line break is kept, so what is parsed keeps its
    lines and columns."""
    original = text.split("\n")
    lines = list(original)
    for statement, standing in replaced:
        stub = standing.body[0] if standing is not None and hasattr(standing, "body") else standing
        start = stub.lineno if stub is not None else first_line(statement)
        for index in range(start - 1, statement.end_lineno or statement.lineno):
            lines[index] = "\r" if lines[index].endswith("\r") else ""
        if stub is None:
            continue
        opening = original[start - 1][:stub.col_offset]  # a header's body's indent (none for a statement left out)
        if stub.end_lineno == start:
            lines[start - 1] = opening + "..." + lines[start - 1]
        else:
            lines[start - 1] = opening + '"""' + lines[start - 1]
            lines[stub.end_lineno - 1] = '"""' + lines[stub.end_lineno - 1]  # type: ignore[operator]
    return "\n".join(lines)


def laid_out_alike(module: cst.Module, text: str) -> bool:
    """Does the narrowed `module` write new code as the whole file's tree would: the same default line break (the
    text's first, as LibCST takes it) and default indent (the text's first indent, as LibCST's tokenizer finds it)?
    A left-out definition may have held the file's first indented block. False where the text cannot be read so."""
    first_break = _LINE_BREAK.search(text)
    if module.default_newline != (first_break.group(0) if first_break is not None else "\n"):
        return False
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.INDENT:
                return module.default_indent == token.string
    except (tokenize.TokenError, SyntaxError, ValueError):
        return False
    return module.default_indent == " " * 4  # (no indented block: LibCST's fallback)


_LINE_BREAK = re.compile(r"\r\n?|\n")
