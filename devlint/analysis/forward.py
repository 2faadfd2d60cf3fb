"""A forward reader: a scope's statements read in the order they run, with a state of what holds at each point.

DEV005's data flow (where host tensors go), DEV006's placement (where values are) and DEV009's order of pinning
(what every rank runs before it pins its GPU) are forward readers. Each says what a statement does to its state;
how statements nest, how a suite unwraps into statements, which branch an `elif` is, and how many times a loop's
body is read are said here, once.

A reader's method answers True to stop the reading there (DEV009 reads only up to the first statement that may
pin); None or False reads on.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Generic, Iterable, Iterator, Optional, Sequence, TypeVar

import libcst as cst

from devlint.analysis.terminating import loop_rounds

State = TypeVar("State")


def statements_of(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    """The statements of an indented block, or the one-line suite itself (`if x: a = 1`), read as one statement."""
    return suite.body if isinstance(suite, cst.IndentedBlock) else (suite,)


def last_small_statement(suite: cst.BaseSuite) -> Optional[cst.BaseSmallStatement]:
    """The simple statement a suite ends with (`return x` of `y = f(); return x`), None where it ends with a
    compound one."""
    statements = statements_of(suite)
    last = statements[-1] if statements else None
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and last.body:
        return last.body[-1]
    return None


class ForwardReader(Generic[State]):
    """Reads statements in order: `block` and `suite` call `statement`, which hands each kind of statement to its
    method. A subclass says what a simple statement does (`small`) and how each compound statement it follows is
    read; kinds it says nothing of are passed over (`other`)."""

    def __init__(self) -> None:
        self.loop_depth = 0  # the loops around the statement being read

    def block(self, statements: Iterable[cst.CSTNode], state: State) -> bool:
        """Read `statements` in order; True once one stopped the reading (the rest are not read)."""
        for statement in statements:
            if self.statement(statement, state):
                return True
        return False

    def suite(self, suite: cst.BaseSuite, state: State) -> bool:
        return self.block(statements_of(suite), state)

    def statement(self, node: cst.CSTNode, state: State) -> bool:
        kind = type(node)
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            return any(self.small(small, state) for small in node.body)  # type: ignore[attr-defined]
        if kind is cst.If:
            return bool(self.if_statement(node, state))  # type: ignore[arg-type]
        if kind is cst.For or kind is cst.While:
            return bool(self.loop(node, state))  # type: ignore[arg-type]
        if kind is cst.With:
            return bool(self.with_statement(node, state))  # type: ignore[arg-type]
        if kind is cst.Try:
            return bool(self.try_statement(node, state))  # type: ignore[arg-type]
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            return bool(self.definition(node, state))  # type: ignore[arg-type]
        return bool(self.other(node, state))

    def orelse(self, node: cst.If, state: State) -> bool:
        """Read what runs where `node`'s test is false: its `elif` (a statement of its own) or its `else`."""
        if isinstance(node.orelse, cst.If):
            return self.statement(node.orelse, state)
        if isinstance(node.orelse, cst.Else):
            return self.suite(node.orelse.body, state)
        return False

    @contextmanager
    def inside_loop(self) -> Iterator[range]:
        """Inside a loop: the rounds in which its body is read (what one iteration binds, the next one reads;
        once, deep in a nest: `loop_rounds`)."""
        self.loop_depth += 1
        try:
            yield range(loop_rounds(self.loop_depth - 1))
        finally:
            self.loop_depth -= 1

    # -- what a reader says of each kind of statement: by default, nothing ------------------------
    def small(self, node: cst.BaseSmallStatement, state: State) -> Optional[bool]:
        return None

    def if_statement(self, node: cst.If, state: State) -> Optional[bool]:
        return None

    def loop(self, node: cst.For | cst.While, state: State) -> Optional[bool]:
        return None

    def with_statement(self, node: cst.With, state: State) -> Optional[bool]:
        return None

    def try_statement(self, node: cst.Try, state: State) -> Optional[bool]:
        return None

    def definition(self, node: cst.FunctionDef | cst.ClassDef, state: State) -> Optional[bool]:
        """A nested function or class: its body runs when called, read on its own."""
        return None

    def other(self, node: cst.CSTNode, state: State) -> Optional[bool]:
        """`match`, `try`/`except*` and what else the reader follows no further."""
        return None


def loop_head(node: cst.For | cst.While) -> cst.BaseExpression:
    """What a loop evaluates before its body: what a `for` iterates, a `while`'s test."""
    return node.iter if isinstance(node, cst.For) else node.test
