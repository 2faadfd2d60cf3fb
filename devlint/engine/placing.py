"""Where LibCST writes each node: its code generation, with a state that counts lines and columns as it writes.

This is what LibCST's `PositionProvider` answers, by the same means (a provider is a codegen state, the interface
LibCST gives for it), without `libcst.metadata`, whose import loads every provider LibCST has
(devlint/engine/libcst_loader.py). A node's range is that of its syntax: a statement's leaves out the empty lines
and comments before it, a call's runs from its name to its `)`; a node whose code generation says so
(`record_syntactic_position`) gets that range, any other node the span of what it wrote.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator, Optional, Sequence

import libcst as cst

from devlint.analysis.libcst_internals import CodegenState, CodePosition, CodeRange

_LINE_BREAK = re.compile(r"\r\n?|\n")  # (as Python counts lines: a lone `\r` ends one too)


class Placing(CodegenState):
    """A codegen state that records, in `positions`, the range of every node it writes. `line`: the line its first
    token is on; `indents`: the indentation of the blocks around what it writes (a statement written alone);
    `positions`: a map it adds to (shared by several statements' states), else its own."""

    def __init__(self, module: cst.Module, *, line: int = 1, indents: Sequence[str] = (),
                 positions: Optional[dict[cst.CSTNode, CodeRange]] = None) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline,
                         indent_tokens=list(indents))
        self.line, self.column = line, 0
        self.positions: dict[cst.CSTNode, CodeRange] = {} if positions is None else positions
        self._starts: list[CodePosition] = []  # where each node being written began

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            pieces = _LINE_BREAK.split(value)
            self.line += len(pieces) - 1
            self.column = len(pieces[-1])
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        for indent in self.indent_tokens:
            self.add_token(indent)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append(CodePosition(self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        if node not in self.positions:  # (its syntactic range, recorded while it was written, stands)
            self.positions[node] = CodeRange(start, CodePosition(self.line, self.column))

    @contextmanager
    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> Iterator[None]:
        start = CodePosition(self.line, self.column)
        try:
            yield
        finally:
            end = CodePosition(self.line, self.column)
            if start_node is not None:
                start = self.positions[start_node].start
            if end_node is not None:
                end = self.positions[end_node].end
            self.positions[node] = CodeRange(start, end)
