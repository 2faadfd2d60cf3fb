"""Where the nodes the rules report at (and their fixes replace) are in the text: LibCST's position-recording
codegen, stopped once every wanted node is placed, or run on the top-level statements that hold them only."""

from __future__ import annotations

import ast
from typing import Mapping, Optional, Sequence

import libcst as cst

from devlint.analysis.libcst_internals import CodeRange, codegen
from devlint.analysis.needed import first_line
from devlint.analysis.walk import nodes
from devlint.engine.lines import Lines
from devlint.engine.placing import Placing


class _PositionsUpTo(Placing):
    """The position-recording codegen, stopped once every wanted node is placed."""

    wanted: set[cst.CSTNode]
    done: bool

    def after_codegen(self, node: cst.CSTNode) -> None:
        super().after_codegen(node)
        if node in self.wanted:
            self.wanted.discard(node)
            if not self.wanted:
                self.done = True
                raise _Placed


class _Placed(Exception):
    pass


def node_positions(module: cst.Module, wanted: Sequence[cst.CSTNode], lines: Optional[Lines] = None,
               tree: Optional[ast.Module] = None) -> Mapping[cst.CSTNode, CodeRange]:
    """The positions of `wanted` (and of other nodes near them). With the text and its `ast`, only
    the top-level statements that hold a wanted node are generated again, each from the line `ast`
    gives it (checked against the text); otherwise, or where that does not hold, the whole file up
    to the last wanted node."""
    if lines is not None and tree is not None:
        found = positions_by_statement(module, set(wanted), lines, tree)
        if found is not None:
            return found
    return positions_up_to(module, wanted)


def positions_up_to(module: cst.Module, wanted: Sequence[cst.CSTNode]) -> Mapping[cst.CSTNode, CodeRange]:
    """The positions LibCST's PositionProvider gives (devlint/engine/placing.py), only as far into the file as the
    last wanted node. Through a MetadataWrapper it would cost more than twice as much: the codegen runs to the
    end of the file, and `resolve` also walks (and rebuilds) the whole tree for an empty batch of
    batchable providers."""
    state = _PositionsUpTo(module)
    state.wanted, state.done = set(wanted), False
    try:
        codegen(module, state)
    except Exception:
        # Stopping unwinds through LibCST's position records of the enclosing nodes, which may
        # fail for want of a child's position: nothing wanted is lost by that.
        if not state.done:
            raise
    return state.positions


def positions_by_statement(module: cst.Module, wanted: set[cst.CSTNode], lines: Lines,
                            tree: ast.Module) -> Optional[Mapping[cst.CSTNode, CodeRange]]:
    """Positions from the codegen of each statement that holds a wanted node, started at the
    statement's first line: a top-level statement, or, for a compound statement (class, function,
    loop, `with`, `if`, `try`) whose header and other clauses hold none, each statement of its body that
    holds one (a report in one method generates that statement, not the whole class).
    None when a statement's line cannot be told, or its generated text is not the text at that line
    (the caller then generates the file from its start)."""
    statements = first_lines(module.body, tree.body)
    if statements is None:
        return None
    positions: dict[cst.CSTNode, CodeRange] = {}
    for statement, (node, first) in zip(module.body, statements):
        if not wanted:
            break
        held = {found for found in nodes(statement) if found in wanted}
        if held and not _place(statement, held, node, first, [], module, wanted, lines, positions):
            return None
    return positions if not wanted else None


def _place(statement: cst.BaseStatement, held: set[cst.CSTNode], node: ast.stmt, first: int, indents: list[str],
           module: cst.Module, wanted: set[cst.CSTNode], lines: Lines, positions: dict[cst.CSTNode, CodeRange]) -> bool:
    """Record the positions of the wanted nodes `statement` holds (`held`; its first token is on line
    `first`, inside blocks indented by `indents`) and take them out of `wanted`; False when the
    generated text is not the text there."""
    block, statements = getattr(statement, "body", None), getattr(node, "body", None)
    if isinstance(statement, cst.BaseCompoundStatement) and isinstance(block, cst.IndentedBlock) \
            and isinstance(statements, list):  # a class, function, loop, `with`, `if` or `try` and its body
        members = first_lines(block.body, statements)
        in_members = [{found for found in nodes(member) if found in held} for member in block.body]
        if members is not None and sum(map(len, in_members)) == len(held):  # none in the header or clauses
            inner = [*indents, block.indent if block.indent is not None else module.default_indent]
            return all(_place(member, member_held, member_node, member_first, inner, module, wanted, lines, positions)
                       for member, member_held, (member_node, member_first) in zip(block.body, in_members, members)
                       if member_held)
    start = first - lines_before(statement)
    if start < 1:
        return False
    state = Placing(module, line=start, indents=indents, positions=positions)
    codegen(statement, state)
    code = "".join(state.tokens).rstrip("\r\n")  # the file's last line may have no line break
    if not lines.source.startswith(code, lines.offset(start, 0)):
        return False
    wanted -= held
    return True


def lines_before(statement: cst.BaseStatement) -> int:
    """The lines LibCST writes before the statement's first token (its empty lines and comments)."""
    before = len(statement.leading_lines)
    decorators = getattr(statement, "decorators", ())
    if decorators:
        before += len(decorators[0].leading_lines)
    return before


def first_lines(body: Sequence[cst.BaseStatement],
                 statements: Sequence[ast.stmt]) -> Optional[list[tuple[ast.stmt, int]]]:
    """For each LibCST statement of a block, its first `ast` statement and the line of its first token
    (a decorator's `@`): LibCST's line of small statements joined by `;` is one `ast` statement each.
    None when they do not pair up."""
    found: list[tuple[ast.stmt, int]] = []
    index = 0
    for statement in body:
        if index >= len(statements):
            return None
        node = statements[index]
        found.append((node, first_line(node)))
        index += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
    return found if index == len(statements) else None
