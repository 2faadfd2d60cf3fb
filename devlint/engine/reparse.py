"""Parse successive versions of one text with LibCST, parsing again only what an edit touched.

An editor sends a new version of the buffer after each keystroke; parsing a 2,000-line file is
most of a check. `Reparser` keeps the last version's tree and cuts the text into *chunks* at
top-level statement boundaries where LibCST's parse is sure to split the same way: between two
top-level statements whose gap holds only empty lines and comments written at column 0 (LibCST
gives every such line to the next statement's `leading_lines`, or to the module's footer at the
end; an indented comment line may belong to the block above, so such a gap is no boundary).
After an edit, the chunks the edit touched are parsed as a text of their own (grown a chunk at a
time until both ends are boundaries of the new text as well) and their statements replace the
old ones; every other statement is the old node, not parsed again.

The text before the re-parsed region is unchanged and ends at such a boundary, so the tokenizer
reaches the region exactly as a whole-file parse would; a region that parses ends with every
bracket, string and block closed, so the unchanged text after it is read as before. What a
region parsed alone gets differently is moved to where a whole-file parse puts it: its leading
lines (the region's header) belong to its first statement, its trailing lines (the region's
footer) to the module at the end of the file. A module's `default_indent` and `default_newline`
decide how nodes store their whitespace, so a region whose own would differ from the file's is
not spliced. Anything unusual (a region that does not parse, a region without statements, a
text that `ast` cannot read, old Mac newlines) falls back to parsing the whole text: the result
is then exactly `cst.parse_module(text)`, errors included. `tests/test_reparse.py` compares the
two on edits of the fixtures and of generated programs.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional, Sequence

import libcst as cst

from devlint.analysis.walk import children
from devlint.engine.lines import common_ends
from devlint.engine.parsing import parse_module

# One chunk: (first line, last line), 1-based and inclusive, and its number of top-level statements.
Chunk = tuple[int, int, int]
# How far a region grows, a chunk at a time, to end on boundaries the new text keeps.
MAX_GROWTH = 4


@dataclass
class _Parsed:
    text: str
    lines: list[str]
    module: cst.Module
    chunks: list[Chunk]  # cover every line of the text, in order


class Reparser:
    """`parse(text)` is `cst.parse_module(text)`, faster for a text close to the previous one."""

    def __init__(self) -> None:
        self._last: Optional[_Parsed] = None
        self.spliced = 0  # how many parses were splices (for tests and benchmarks)

    def parse(self, text: str, tree: Optional[ast.Module] = None) -> cst.Module:
        """The module of `text` (`tree`: its `ast`, when the caller has it)."""
        last = self._last
        if last is not None and last.text == text:
            return last.module
        self._last = None
        lines = text.split("\n")
        chunks = _chunks(text, lines, tree)
        module = _splice(last, lines, chunks) if last is not None and chunks is not None else None
        if module is None:
            module = parse_module(text)  # raises as LibCST does: the caller reports it
        else:
            self.spliced += 1
        # The chunks are trusted only when they count the module's statements exactly.
        if chunks is not None and sum(count for _, _, count in chunks) == len(module.body):
            self._last = _Parsed(text, lines, module, chunks)
        return module


def _chunks(text: str, lines: Sequence[str], tree: Optional[ast.Module]) -> Optional[list[Chunk]]:
    """The text's chunks; None when `ast` cannot read it, or where lines are not what `ast` counts
    or LibCST keeps something of its own that a chunk would cut (a byte-order mark, a form feed)."""
    if text.startswith("\ufeff") or "\f" in text or text.count("\r") != text.count("\r\n"):
        return None  # (a lone "\r" ends a line for `ast` and LibCST, not for our split)
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
            return None
    units: list[list[int]] = []  # [first line, last line, statements]: LibCST's top-level statements
    for statement in tree.body:
        decorators = getattr(statement, "decorator_list", None) or []
        first = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
        if decorators and not lines[first - 1].lstrip().startswith("@"):
            return None  # `@` and its expression on different lines (a backslash): not worth it
        last = statement.end_lineno or statement.lineno
        if units and first <= units[-1][1]:  # `a = 1; b = 2`: one statement for LibCST
            units[-1][1] = max(units[-1][1], last)
        else:
            units.append([first, last, 1])
    chunks: list[Chunk] = []
    for index, (first, last, count) in enumerate(units):
        if chunks and _clean_gap(lines, units[index - 1][1], first):
            chunks.append((units[index - 1][1] + 1, last, count))
        elif chunks:
            start, _, counted = chunks[-1]
            chunks[-1] = (start, last, counted + count)
        else:
            chunks.append((1, last, count))  # the module's header goes with the first chunk
    if not chunks:
        return [(1, len(lines), 0)]
    start, _, count = chunks[-1]
    chunks[-1] = (start, len(lines), count)  # and its footer with the last
    return chunks


def _clean_gap(lines: Sequence[str], after: int, before: int) -> bool:
    """Whether the lines between `after` and `before` (1-based) are all empty or comments at column 0."""
    for number in range(after + 1, before):
        line = lines[number - 1].rstrip("\r")
        if line and not line.startswith("#"):
            return False
    return True


def _splice(last: _Parsed, lines: list[str], chunks: list[Chunk]) -> Optional[cst.Module]:
    """The module of the text of `lines` (cut into `chunks`) from `last`'s, parsing only the
    chunks the edit touched; None to parse the whole text."""
    old_lines, old_chunks = last.lines, last.chunks
    prefix, suffix = common_ends(old_lines, lines)
    suffix = min(suffix, min(len(old_lines), len(lines)) - prefix)
    # Old lines prefix+1 .. len(old)-suffix changed; with none, lines came in after line `prefix`.
    changed_first, changed_last = prefix + 1, len(old_lines) - suffix
    touched = [i for i, (start, end, _) in enumerate(old_chunks)
               if start <= max(changed_last, changed_first) and end >= changed_first - 1]
    if not touched:
        return None
    delta = len(lines) - len(old_lines)
    new_starts = {start: i for i, (start, _, _) in enumerate(chunks)}
    new_ends = {end: i for i, (_, end, _) in enumerate(chunks)}
    first, final = touched[0], touched[-1]
    for _ in range(MAX_GROWTH):
        # The region: whole chunks of the old text, and of the new one (its lines moved by `delta`).
        start_ok = old_chunks[first][0] in new_starts
        end_ok = old_chunks[final][1] + delta in new_ends
        if start_ok and end_ok:
            break
        first = first if start_ok else max(first - 1, 0)
        final = final if end_ok else min(final + 1, len(old_chunks) - 1)
    else:
        return None
    region_first, region_last = old_chunks[first][0], old_chunks[final][1] + delta
    at_end = final == len(old_chunks) - 1
    if region_last < region_first:
        return None
    statements = sum(count for _, _, count in chunks[new_starts[region_first]:new_ends[region_last] + 1])
    region_text = "\n".join(lines[region_first - 1:region_last]) + ("" if at_end else "\n")
    try:
        region = parse_module(region_text)
    except Exception:  # noqa: BLE001 - whatever the failure, the whole text decides (and reports it)
        return None
    old = last.module
    if not region.body or len(region.body) != statements:
        return None
    if region.default_newline != old.default_newline:
        return None  # the old nodes' newlines, stored as the file's default, would mean another one
    if _first_block(region.body) is not None and region.default_indent != old.default_indent:
        return None  # and so would indents
    before = sum(count for _, _, count in old_chunks[:first])
    replaced = sum(count for _, _, count in old_chunks[first:final + 1])
    body = list(region.body)
    changes: dict[str, object] = {}
    if region_first == 1:
        changes["header"] = region.header
    elif region.header:  # a whole-file parse gives these lines to the statement after them
        body[0] = body[0].with_changes(leading_lines=(*region.header, *body[0].leading_lines))
    if at_end:
        changes["footer"] = region.footer
        changes["has_trailing_newline"] = region.has_trailing_newline
    elif region.footer:
        return None
    module = old.with_changes(body=(*old.body[:before], *body, *old.body[before + replaced:]), **changes)
    block = _first_block(module.body)
    if block is not None and block.indent is not None and block.indent != old.default_indent:
        return None  # the file's first indented block is its default indent: it changed
    return module


def _first_block(statements: Sequence[cst.CSTNode]) -> Optional[cst.IndentedBlock]:
    """The first indented block in the source order of `statements` (its indent is the default)."""
    stack = list(reversed(statements))
    while stack:
        node = stack.pop()
        if isinstance(node, cst.IndentedBlock):
            return node
        if isinstance(node, (cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
                             cst.Finally, cst.MatchCase)):
            stack.extend(reversed(children(node)))
    return None
