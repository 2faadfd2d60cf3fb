"""Parse successive versions of one text with LibCST, parsing again only what an edit touched; parse a
large text a piece at a time.

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
not spliced.

Two edits are cut finer. One inside the body of a top-level class, between two of its statements
whose gaps hold only empty lines and comments at the body's indent, parses only the statements it
touched: their lines (the gap before them included) below a stand-in `class _:` line, so that LibCST
reads them at the depth they have in the file (their strings, indents and comment lines exactly as
written; before, an edit in a one-class model file re-parsed the whole class). One after the last
statement only (a comment typed at the end) parses those lines alone: they are the module's footer.

The same chunks let a whole file be parsed a piece at a time (`parse_in_pieces`, the engine's parse of a
large text; a large class's body as the edit inside a class is): LibCST's native parser holds memory in
proportion to the text it is given, and the process keeps it, so a 2 MB module took 616 MiB to parse whole for a
tree of 48 MiB, and takes 54 MiB in pieces of 64 KB.
`benchmarks/pieces_check.py` compares the two trees over the corpus with a piece at every boundary.

Anything unusual (a region that does not parse, a region without statements, a
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
# What an edit changed: the first and last old lines (1-based; last < first where lines only came in after
# line first - 1), and how many lines the new text has more than the old one.
Change = tuple[int, int, int]
# How far a region grows, a chunk at a time, to end on boundaries the new text keeps.
MAX_GROWTH = 4
# A whole file is parsed in pieces of about this many characters (`parse_in_pieces`): LibCST's parser then
# holds about 16 MB at a time, whatever the file's size.
PIECE_CHARS = 64 * 1024


@dataclass
class _Parsed:
    text: str
    lines: list[str]
    module: cst.Module
    chunks: list[Chunk]  # cover every line of the text, in order
    tree: ast.Module  # the text's `ast`: where the statements inside a class are


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
        tree = _tree(text) if tree is None else tree
        chunks = _chunks(text, lines, tree) if tree is not None else None
        module = None
        if last is not None and chunks is not None:
            change = _change(last.lines, lines)
            module = (_splice_footer(last, lines, tree, change)  # type: ignore[arg-type]
                      or _splice_in_class(last, lines, chunks, tree, change)  # type: ignore[arg-type]
                      or _splice(last, lines, chunks, change))
        if module is None:
            module = parse_module(text)  # raises as LibCST does: the caller reports it
        else:
            self.spliced += 1
        # The chunks are trusted only when they count the module's statements exactly.
        if chunks is not None and sum(count for _, _, count in chunks) == len(module.body):
            self._last = _Parsed(text, lines, module, chunks, tree)  # type: ignore[arg-type]
        return module


def _change(old_lines: Sequence[str], lines: Sequence[str]) -> Change:
    prefix, suffix = common_ends(old_lines, lines)
    suffix = min(suffix, min(len(old_lines), len(lines)) - prefix)
    return prefix + 1, len(old_lines) - suffix, len(lines) - len(old_lines)


def _touched(spans: Sequence[Sequence[int]], change: Change) -> list[int]:
    """The indexes of the spans (first line, last line, ...) the change touched: changed lines in them, or
    lines come in right after one (they may belong to it)."""
    first, last, _ = change
    return [i for i, (start, end, *_) in enumerate(spans) if start <= max(last, first) and end >= first - 1]


def _tree(text: str) -> Optional[ast.Module]:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None


def _chunks(text: str, lines: Sequence[str], tree: ast.Module) -> Optional[list[Chunk]]:
    """The text's chunks; None where lines are not what `ast` counts or LibCST keeps something of its
    own that a chunk would cut (a byte-order mark, a form feed)."""
    if text.startswith("\ufeff") or "\f" in text or text.count("\r") != text.count("\r\n"):
        return None  # (a lone "\r" ends a line for `ast` and LibCST, not for our split)
    units = _units(tree.body, lines)
    if units is None:
        return None
    chunks = _runs(units, lines)
    if not chunks:
        return [(1, len(lines), 0)]
    chunks[0] = (1, *chunks[0][1:])  # the module's header goes with the first chunk
    start, _, count = chunks[-1]
    chunks[-1] = (start, len(lines), count)  # and its footer with the last
    return chunks


def _runs(units: Sequence[Sequence[int]], lines: Sequence[str], indent: str = "") -> list[Chunk]:
    """The units (first line, last line, statements) of one block, joined into runs that each begin after a clean
    gap (`_clean_gap` at `indent`): a run holds the gap before its first statement; the first run begins at its
    first statement."""
    runs: list[Chunk] = []
    for index, (first, last, count) in enumerate(units):
        if runs and not _clean_gap(lines, units[index - 1][1], first, indent):
            start, _, counted = runs[-1]
            runs[-1] = (start, last, counted + count)
        else:
            runs.append((units[index - 1][1] + 1 if runs else first, last, count))
    return runs


def _units(statements: Sequence[ast.stmt], lines: Sequence[str]) -> Optional[list[list[int]]]:
    """[first line, last line, statements] of each of LibCST's statements among `statements` (decorators
    included; `a = 1; b = 2` on one line is one); None where a decorator's `@` is not on its first line."""
    units: list[list[int]] = []
    for statement in statements:
        decorators = getattr(statement, "decorator_list", None) or []
        first = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
        if decorators and not lines[first - 1].lstrip().startswith("@"):
            return None  # `@` and its expression on different lines (a backslash): not worth it
        last = statement.end_lineno or statement.lineno
        if units and first <= units[-1][1]:  # `a = 1; b = 2`: one statement for LibCST
            units[-1][1] = max(units[-1][1], last)
        else:
            units.append([first, last, 1])
    return units


def _splice_in_class(last: _Parsed, lines: list[str], chunks: list[Chunk], tree: ast.Module,
                     change: Change) -> Optional[cst.Module]:
    """An edit inside the body of one top-level class, between two of its statements' boundaries: only the
    statements it touched are parsed, inside a stand-in `class _:` written at column 0, so that they are
    read at the depth and with the indents they have in the file (strings and comments as they are), and
    they replace the old ones in the old class; None where any of that does not hold (the caller then
    splices whole top-level statements)."""
    old_lines = last.lines
    changed_first, changed_last, delta = change
    found = _class_around(last.tree, changed_first, changed_last)
    if found is None or len(last.chunks) != len(chunks):
        return None
    index, old_class = found
    new_class = tree.body[index] if index < len(tree.body) else None
    if not isinstance(new_class, ast.ClassDef) or new_class.lineno != old_class.lineno:
        return None
    old_units, new_units = _units(old_class.body, old_lines), _units(new_class.body, lines)
    if old_units is None or new_units is None or len(old_units) < 3:
        return None
    # the touched statements, never the first (the header's gap) nor the last (the class's footer)
    touched = _touched(old_units, change)
    if not touched or touched[0] == 0 or touched[-1] >= len(old_units) - 1:
        return None
    a, b = touched[0], touched[-1]
    region_first = old_units[a - 1][1] + 1  # the gap before the first touched statement belongs to it
    region_last = old_units[b][1] + delta
    if changed_first < region_first or changed_last > old_units[b][1]:
        return None
    after = old_units[b + 1][0] + delta  # the next statement, moved by the edit
    new_starts = {unit[0]: i for i, unit in enumerate(new_units)}
    new_ends = {unit[1]: i for i, unit in enumerate(new_units)}
    if region_last not in new_ends or after not in new_starts or new_ends[region_last] + 1 != new_starts[after]:
        return None
    if old_units[a - 1][1] not in new_ends:
        return None
    first_new, last_new = new_ends[old_units[a - 1][1]] + 1, new_ends[region_last]
    indent = _body_indent(lines, new_units)
    if indent is None or not (_clean_gap(lines, old_units[a - 1][1], new_units[first_new][0], indent)
                              and _clean_gap(lines, region_last, after, indent)):
        return None
    newline = last.module.default_newline
    # (each line keeps its own ending: only the stand-in's is the file's default)
    text = "class _:" + newline + "\n".join(lines[region_first - 1:region_last]) + "\n"
    try:
        stand_in = parse_module(text)
    except Exception:  # noqa: BLE001 - whatever the failure, the whole text decides
        return None
    body = stand_in.body[0].body if stand_in.body and isinstance(stand_in.body[0], cst.ClassDef) else None
    statements = sum(unit[2] for unit in new_units[first_new:last_new + 1])
    if (not isinstance(body, cst.IndentedBlock) or len(body.body) != statements or body.footer
            or stand_in.default_newline != newline or stand_in.default_indent != last.module.default_indent
            or body.indent is not None or stand_in.footer or stand_in.header):
        return None
    top = _units(last.tree.body, old_lines)
    if top is None or len(top) != len(last.module.body):
        return None
    position = next(i for i, (first, end, _) in enumerate(top) if first <= old_class.lineno <= end)
    old_node = last.module.body[position]
    if not isinstance(old_node, cst.ClassDef) or not isinstance(old_node.body, cst.IndentedBlock):
        return None
    old_body = old_node.body
    if old_body.indent is not None or len(old_body.body) != sum(unit[2] for unit in old_units):
        return None
    before = sum(unit[2] for unit in old_units[:a])
    replaced = sum(unit[2] for unit in old_units[a:b + 1])
    new_body = (*old_body.body[:before], *body.body, *old_body.body[before + replaced:])
    new_node = old_node.with_changes(body=old_body.with_changes(body=new_body))
    return last.module.with_changes(body=(*last.module.body[:position], new_node, *last.module.body[position + 1:]))


def _splice_footer(last: _Parsed, lines: list[str], tree: ast.Module, change: Change) -> Optional[cst.Module]:
    """An edit after the last statement only (a comment typed at the end of the file): the lines there are
    the module's footer, parsed on their own; None where the edit reaches a statement, or a line there is
    not empty nor a comment at column 0 (an indented comment belongs to the block above)."""
    old = last.module
    if not (last.tree.body and tree.body):
        return None
    end = last.tree.body[-1].end_lineno or 0
    if change[0] <= end or len(tree.body) != len(last.tree.body) or (tree.body[-1].end_lineno or 0) != end:
        return None
    if not _clean_gap(lines, end, len(lines) + 1) or not any(line.startswith("#") for line in lines[end:]):
        return None  # (without a comment there, only the last line's newline changed: the whole text decides)
    if not old.has_trailing_newline and ("\r\n" if lines[end - 1].endswith("\r") else "\n") != old.default_newline:
        return None  # the last line had no newline: LibCST gave it the default one, which the edit's must be
    tail_text = "\n".join(lines[end:])
    try:
        tail = parse_module(tail_text)
    except Exception:  # noqa: BLE001 - whatever the failure, the whole text decides
        return None
    if tail.body or tail.footer or ("\n" in tail_text and tail.default_newline != old.default_newline):
        return None
    return old.with_changes(footer=tail.header, has_trailing_newline=tail.has_trailing_newline)


def _class_around(tree: ast.Module, first: int, last: int) -> Optional[tuple[int, ast.ClassDef]]:
    """The top-level class (by its index in the module) whose lines hold lines `first`..`last`."""
    for index, statement in enumerate(tree.body):
        if isinstance(statement, ast.ClassDef) and statement.lineno < first and last <= (statement.end_lineno or 0):
            return index, statement
    return None


def _body_indent(lines: Sequence[str], units: list[list[int]]) -> Optional[str]:
    """The indent every statement of a class body starts its first line with."""
    first = lines[units[0][0] - 1]
    indent = first[:len(first) - len(first.lstrip(" \t"))]
    if not indent or any(not lines[unit[0] - 1].startswith(indent) or lines[unit[0] - 1][len(indent)] in " \t"
                         for unit in units):
        return None
    return indent


def _clean_gap(lines: Sequence[str], after: int, before: int, indent: str = "") -> bool:
    """Whether the lines between `after` and `before` (1-based) are all empty or comments written at `indent`
    (column 0 at the top level, a class body's indent in it): LibCST gives such lines to the next statement (a
    comment indented further may belong to the block above)."""
    for number in range(after + 1, before):
        line = lines[number - 1].rstrip("\r")
        if line and not (line.startswith(indent) and line[len(indent):].startswith("#")):
            return False
    return True


def parse_in_pieces(text: str, tree: Optional[ast.Module], piece: int = PIECE_CHARS) -> cst.Module:
    """`cst.parse_module(text)` (`tree`: the text's `ast`), parsed a piece of about `piece` characters at a
    time. LibCST's native parser holds about 250 bytes per character of the text it parses while it parses
    (its tokens and its own tree), and the process keeps that memory once freed: a 2 MB generated or
    concatenated module took 616 MiB for a tree of 48. The pieces are whole chunks (`_chunks`), joined as
    `_splice` joins a region, and a class, function, `with`, `if`, `for` or `while` larger than two pieces has its
    body cut the same way (`_block_in_pieces`); where anything does not hold (a piece that does not parse alone,
    newlines or indents a piece would store otherwise), the whole text is parsed, errors included."""
    if tree is None or len(text) < 2 * piece:
        return parse_module(text)
    lines = text.split("\n")
    chunks = _chunks(text, lines, tree)
    module = _in_pieces(lines, _pieces(lines, chunks, piece), tree, piece) if chunks is not None else None
    return module if module is not None else parse_module(text)


def _pieces(lines: Sequence[str], chunks: list[Chunk], piece: int) -> list[Chunk]:
    """The chunks (first line, last line, statements) joined, in order, into runs of at least `piece`
    characters (the last may be shorter)."""
    pieces: list[Chunk] = []
    size = piece
    for first, last, count in chunks:
        if size < piece:
            start, _, counted = pieces[-1]
            pieces[-1] = (start, last, counted + count)
        else:
            pieces.append((first, last, count))
            size = 0
        size += _characters(lines, first, last)
    return pieces


def _characters(lines: Sequence[str], first: int, last: int) -> int:
    return sum(len(line) + 1 for line in lines[first - 1:last])


def _in_pieces(lines: list[str], pieces: list[Chunk], tree: ast.Module, piece: int) -> Optional[cst.Module]:
    """The module of `lines`, parsed a piece at a time; None where the pieces would not give LibCST's tree.
    A piece that is one class, function, `with`, `if`, `for` or `while` larger than two pieces has its body parsed
    in pieces too."""
    body: list[cst.BaseStatement] = []
    head: Optional[cst.Module] = None  # the first piece's module: the file's header, newline and encoding
    indent: Optional[str] = None  # the default indent: the file's first indented block's
    region: Optional[cst.Module] = None
    ends = {statement.end_lineno: statement for statement in tree.body}
    for index, (first, last, statements) in enumerate(pieces):
        at_end = index == len(pieces) - 1
        statement = (tree.body[-1] if at_end else ends.get(last)) if statements == 1 else None
        region = None
        if _body_last(statement) and _characters(lines, first, last) >= 2 * piece:
            region = _block_in_pieces(lines, first, last, at_end, statement, piece)  # type: ignore[arg-type]
        if region is None:
            region = _parse_region(lines, first, last, at_end, statements)
        if region is None or (not at_end and region.footer):
            return None
        if head is None:
            head = region
        elif region.default_newline != head.default_newline:
            return None  # its nodes' newlines, stored as its default, would mean another one
        if _first_block(region.body) is not None:
            if indent is None:
                indent = region.default_indent
            elif region.default_indent != indent:
                return None  # and so would its indents
        parsed = list(region.body)
        if first > 1 and region.header:  # a whole-file parse gives these lines to the statement after them
            parsed[0] = parsed[0].with_changes(leading_lines=(*region.header, *parsed[0].leading_lines))
        body.extend(parsed)
    if head is None or region is None:
        return None
    return head.with_changes(body=body, footer=region.footer, has_trailing_newline=region.has_trailing_newline,
                             default_indent=indent if indent is not None else head.default_indent)


# The compound statements whose body is the last thing they hold (no `else`, `except` or `finally` after it).
_BODY_LAST = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.With, ast.AsyncWith, ast.If, ast.For,
              ast.AsyncFor, ast.While)
_CST_BODY_LAST = (cst.ClassDef, cst.FunctionDef, cst.With, cst.If, cst.For, cst.While)


def _body_last(node: Optional[ast.stmt]) -> bool:
    return isinstance(node, _BODY_LAST) and not getattr(node, "orelse", None)


def _block_in_pieces(lines: list[str], first: int, last: int, at_end: bool, node: ast.stmt,
                     piece: int) -> Optional[cst.Module]:
    """Lines `first`..`last`, which hold one class, function, `with`, `if`, `for` or `while` whose body is the
    last thing it holds (`node`) and the lines around it, parsed as a module whose body is parsed a piece at a time:
    the first piece with the statement's header, each other one below a stand-in `class _:` line (read at the
    depth it has in the file, as `_splice_in_class` reads an edit: LibCST's grammar reads a block's statements
    alike in any block); None where its statements' gaps or indents do not allow it, or a piece would store them
    otherwise."""
    units = _units(node.body, lines)
    indent = _body_indent(lines, units) if units is not None and len(units) > 1 else None
    if units is None or indent is None:
        return None
    parts = _pieces(lines, _runs(units, lines, indent), piece)
    if len(parts) < 2:
        return None
    header_part = _parse_region(lines, first, parts[0][1], False, 1)
    compound = header_part.body[0] if header_part is not None else None
    if (header_part is None or header_part.footer or not isinstance(compound, _CST_BODY_LAST)
            or getattr(compound, "orelse", None) is not None
            or not isinstance(compound.body, cst.IndentedBlock) or compound.body.footer
            or compound.body.indent is not None or len(compound.body.body) != parts[0][2]):
        return None
    statements = list(compound.body.body)
    tail: Optional[cst.Module] = None
    for index, (start, end, count) in enumerate(parts[1:], 1):
        part_at_end = at_end and index == len(parts) - 1
        if index == len(parts) - 1:
            end = last  # the lines after the class: its block's footer, or the next statement's (or the module's)
        text = "class _:" + header_part.default_newline + "\n".join(lines[start - 1:end])  # (lines keep their endings)
        try:
            stand_in = parse_module(text + ("" if part_at_end else "\n"))
        except Exception:  # noqa: BLE001 - whatever the failure, the class is parsed whole
            return None
        block = stand_in.body[0].body if len(stand_in.body) == 1 and isinstance(stand_in.body[0], cst.ClassDef) \
            else None
        if (not isinstance(block, cst.IndentedBlock) or len(block.body) != count or block.indent is not None
                or stand_in.header or stand_in.default_indent != header_part.default_indent
                or stand_in.default_newline != header_part.default_newline
                or (block.footer or stand_in.footer) and index != len(parts) - 1):
            return None
        statements.extend(block.body)
        tail = stand_in
    assert tail is not None
    block = tail.body[0].body
    body = compound.body.with_changes(body=statements, footer=block.footer)  # type: ignore[union-attr]
    joined = compound.with_changes(body=body)  # type: ignore[union-attr]
    return header_part.with_changes(body=[joined], footer=tail.footer, has_trailing_newline=tail.has_trailing_newline)


def _parse_region(lines: Sequence[str], first: int, last: int, at_end: bool,
                  statements: int) -> Optional[cst.Module]:
    """Lines `first`..`last` (1-based, whole chunks) parsed as a text of their own; None where they do not
    parse, or not into `statements` statements."""
    region_text = "\n".join(lines[first - 1:last]) + ("" if at_end else "\n")
    try:
        region = parse_module(region_text)
    except Exception:  # noqa: BLE001 - whatever the failure, the whole text decides (and reports it)
        return None
    return region if region.body and len(region.body) == statements else None


def _splice(last: _Parsed, lines: list[str], chunks: list[Chunk], change: Change) -> Optional[cst.Module]:
    """The module of the text of `lines` (cut into `chunks`) from `last`'s, parsing only the
    chunks the edit touched; None to parse the whole text."""
    old_chunks = last.chunks
    delta = change[2]
    touched = _touched(old_chunks, change)
    if not touched:
        return None
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
    region = _parse_region(lines, region_first, region_last, at_end, statements)
    if region is None:
        return None
    old = last.module
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
