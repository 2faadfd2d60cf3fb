"""A rule's fix (a rewrite of LibCST's tree) as text edits: computed on the innermost statement that holds it,
laid out as black would (devlint/engine/layout.py), with the `import torch` it needs; and the edits applied
to the text, where Python still parses the result."""

from __future__ import annotations

import ast
import bisect
from typing import Callable, Iterable, NamedTuple, Optional, Sequence

import libcst as cst

from devlint.analysis.libcst_internals import CodegenState, codegen, is_removable
from devlint.analysis.walk import parents
from devlint.contract.diagnostics import Edit
from devlint.engine.layout import Refused, lay_out, smallest
from devlint.engine.lines import Lines
from devlint.engine.placing import Placing
from devlint.engine.positions import first_lines, lines_before
from devlint.engine.reparse import parse_in_pieces
from devlint.engine.result import Analysis
from devlint.engine.stand_ins import one_line_stand_ins
from devlint.rules.base import Fix


def edits_for(result: Analysis, fix: Fix, first: int, statements: Optional[Statements], lines: Lines,
               limit: int) -> Optional[tuple[Edit, ...]]:
    """The fix (whose first replaced node is on line `first`) as text edits (the rewrite laid out within
    `limit`; `import torch` if it adds one), or None when it cannot be laid out."""
    assert result.module is not None
    text = result.text if result.text is not None else result.source
    to_source = TextMap(text, result.source)
    edit = to_source.edit(fix_edit(result.module, text, fix, limit, statements, first))
    if edit is None:
        return None
    found = [smallest(result.source, *edit)]  # whole lines for applying; the changed span to show
    if fix.needs_torch_import:
        added = to_source.edit(_whole_edit(text, _add_torch_import(result.module).code))
        if added is None:
            return None
        found.append(added)
    edits = []
    for start, end, content in sorted(found):
        (sl, sc), (el, ec) = lines.position(start), lines.position(end)
        edits.append(Edit(start, end, content, sl, sc, el, ec))
    return tuple(edits)


def fix_edit(module: cst.Module, source: str, fix: Fix, limit: int, statements: Optional[Statements] = None,
             first: int = 0) -> Optional[tuple[int, int, str]]:
    """The fix (its `import torch` aside) as one text edit of whole lines, laid out as black
    would within `limit` (devlint/engine/layout.py); None when it cannot be. With the file's
    `statements` and the line of the fix's first replaced node, the rewrite, its code and its layout are
    those of the innermost statement that holds the fix, where that statement can be told."""
    window = statements.holding(fix, first) if statements is not None else None
    if window is None:
        offset, text, rewritten = 0, source, apply_fixes(module, [fix], with_import=False)
        if rewritten is None:
            return None
        new = rewritten
    else:
        offset, text, new = window
    start, end, content = _whole_edit(text, new)
    try:
        start, end, content = lay_out(text, start, end, content, limit)
    except Refused:
        return None
    except (ValueError, IndexError, AssertionError):  # a layout bug must cost a fix, never the file
        return None
    return start + offset, end + offset, content


def statement_starts(module: cst.Module, tree: ast.Module) -> Optional[list[int]]:
    """The line where the code of each of the module's top-level statements starts (its leading empty lines and
    comments included): one statement's code ends where the next one's starts. None where `ast`'s statements
    do not pair up with LibCST's."""
    firsts = first_lines(module.body, tree.body)
    if firsts is None:
        return None
    starts = [first - lines_before(statement) for statement, (_, first) in zip(module.body, firsts)]
    return starts if all(a < b for a, b in zip(starts, starts[1:])) and starts and starts[0] >= 1 else None


class Statements:
    """The module's statements by line, for a fix that rewrites one of them: the rewrite of the whole tree, its code
    and a tokenizer's pass over the whole text cost a 50,000-line file 11 s per fix, and the rewrite and code of
    the whole class that holds it cost a 4,000-line class 0.3 s per fix."""

    def __init__(self, module: cst.Module, text: str | Lines, starts: list[int]) -> None:
        self.module = module
        self.lines = text if isinstance(text, Lines) else Lines(text)
        self.starts = starts
        self.alone: dict[int, Optional[tuple[int, cst.Module, str]]] = {}  # by index: `_alone`'s answer, once
        self.parents: dict[int, dict[int, cst.CSTNode]] = {}  # by index: each node's parent in that statement
        # by (fix, line): `holding`'s answer, once (a narrowed check asks it before it lays the fix out)
        self.held: dict[tuple[int, int], Optional[tuple[int, str, str]]] = {}

    def holding(self, fix: Fix, line: int) -> Optional[tuple[int, str, str]]:
        """(its offset in the text, its text, its text rewritten by `fix`) of the innermost statement that holds
        every node `fix` replaces, the first of them on `line`: a statement of a block (a method's, a loop's),
        or the top-level statement at `line`; None when its code is not the text there."""
        key = (id(fix), line)
        if key not in self.held:
            self.held[key] = self._holding(fix, line)
        return self.held[key]

    def _holding(self, fix: Fix, line: int) -> Optional[tuple[int, str, str]]:
        index = bisect.bisect_right(self.starts, line) - 1
        if index < 0:
            return None
        top = self.module.body[index]
        if index not in self.parents:
            self.parents[index] = parents(top)
        chains = _chains(top, fix.replacements, self.parents[index])
        if not chains:
            return None
        entered = {id(node) for chain in chains for node in chain}
        inner = self._inner(fix, line, index, chains, entered)
        if inner is not None:
            return inner
        # No inner window: the top-level statement is replaced itself (a removed import), or a statement's block
        # would drop it, or its code is not the text at its line: the top-level statement in a module alone.
        if index not in self.alone:
            self.alone[index] = self._alone(index)
        found = self.alone[index]
        if found is None:
            return None
        offset, alone, code = found
        new = apply_fixes(alone, [fix], with_import=False, entered=entered | {id(alone)})
        if new is None:
            return None
        without_end = _before_end_line(new, self.module.default_newline)
        return offset, code, without_end if without_end is not None else new

    def _inner(self, fix: Fix, line: int, index: int, chains: list[list[cst.CSTNode]],
               entered: set[int]) -> Optional[tuple[int, str, str]]:
        """`holding`'s answer from the innermost statement that holds the replaced nodes and is not one of them,
        generated alone inside the indents of the blocks around it (LibCST writes a statement's code from those
        alone); None when there is none, or its code is not the text at its line."""
        common = chains[0][:-1]
        for chain in chains[1:]:
            shared = 0
            while shared < min(len(common), len(chain) - 1) and common[shared] is chain[shared]:
                shared += 1
            del common[shared:]
        replaced = {id(node) for node in fix.replacements}
        # a compound statement rewritten as one (a method given a decorator) is a window itself: its class, in a
        # test class of hundreds of methods, cost each skip marker 0.8 s
        rewritten = {id(node) for node, new in fix.replacements.items()
                     if isinstance(node, cst.BaseCompoundStatement) and isinstance(new, cst.BaseCompoundStatement)}
        if len(chains) == 1 and rewritten:
            common = chains[0]
        window: Optional[tuple[cst.BaseStatement, list[str]]] = None
        indents: list[str] = []
        for depth, node in enumerate(common):
            if type(node) is cst.IndentedBlock:
                indents.append(self.module.default_indent if node.indent is None else node.indent)
            elif isinstance(node, cst.BaseStatement) and (depth == 0 or type(common[depth - 1]) is cst.IndentedBlock) \
                    and (id(node) not in replaced or id(node) in rewritten):
                window = node, list(indents)
        if window is None:
            return None
        statement, indents = window
        state = Placing(self.module, indents=indents)
        codegen(statement, state)
        code = "".join(state.tokens)
        placed = state.positions
        if any(node not in placed for node in fix.replacements):
            return None
        start = line - min(placed[node].start.line for node in fix.replacements) + 1
        if start < self.starts[index]:
            return None
        offset = self.lines.offset(start, 0)
        if not self.lines.source.startswith(code, offset):
            return None  # (the file's last statement without a line break after it, among others)
        new = apply_fixes(statement, [fix], with_import=False, entered=entered, within=(self.module, indents))
        return (offset, code, new) if new is not None else None

    def _alone(self, index: int) -> Optional[tuple[int, cst.Module, str]]:
        statement = self.module.body[index]
        alone = self.module.with_changes(header=(), body=(statement,), footer=(_END_LINE,), has_trailing_newline=True)
        code = _before_end_line(alone.code, self.module.default_newline)
        if code is None:
            return None
        offset = self.lines.offset(self.starts[index], 0)
        if not self.lines.source.startswith(code, offset):
            return None  # (the module's last statement without a line break after it, among others)
        return offset, alone, code


def _chains(root: cst.CSTNode, replaced: Iterable[cst.CSTNode],
            parent_of: dict[int, cst.CSTNode]) -> Optional[list[list[cst.CSTNode]]]:
    """For each node of `replaced`, the nodes from `root` down to it (both included; `parent_of`: `walk.parents` of
    `root`); None when one is not under `root` (walks leave token nodes out)."""
    found = []
    for node in replaced:
        chain = [node]
        while chain[-1] is not root:
            parent = parent_of.get(id(chain[-1]))
            if parent is None:
                return None
            chain.append(parent)
        chain.reverse()
        found.append(chain)
    return found


# A line after the statement in its module alone: a module whose statement a fix removes would be written as one
# empty line, where the statement's text is to be removed (a module's text is never empty).
_END_LINE = cst.EmptyLine(comment=cst.Comment("#"))


def _whole_edit(old: str, new: str) -> tuple[int, int, str]:
    """(start, end, text): `old[start:end]` replaced by `text` gives `new`, the span the smallest where they differ."""
    return smallest(old, 0, len(old), new)


def _before_end_line(code: str, newline: str) -> Optional[str]:
    """The code of a module made by `Statements._alone` without its `_END_LINE`; None when it does not end so."""
    end_line = _END_LINE.comment.value + newline  # type: ignore[union-attr]
    return code[:-len(end_line)] if code.endswith(end_line) else None


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, cst.CSTNode], entered: Optional[set[int]]) -> None:
        super().__init__()
        self.replacements = replacements
        self.entered = entered  # the nodes whose children are visited (None: all)

    def on_visit(self, node: cst.CSTNode) -> bool:
        return self.entered is None or id(node) in self.entered

    def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def,override]
        return self.replacements.get(id(original_node), updated_node)


def _on_the_way(root: cst.CSTNode, replaced: Iterable[cst.CSTNode]) -> Optional[set[int]]:
    """The ids of the nodes under `root` (itself included) that hold a node of `replaced`: a rewrite enters no
    other (LibCST's transformer rebuilds every node it enters: a fix in a 1,500-line class rebuilt the class).
    None when a node of `replaced` is not found (walks leave token nodes out)."""
    chains = _chains(root, replaced, parents(root))
    return {id(node) for chain in chains for node in chain} if chains is not None else None


def apply_fixes(node: cst.CSTNode, fixes: Sequence[Fix], *, with_import: bool = True,
                entered: Optional[set[int]] = None,
                within: Optional[tuple[cst.Module, Sequence[str]]] = None) -> Optional[str]:
    """The text of `node` with `fixes` (non-overlapping) applied, as the rules wrote them (not laid out:
    `fix_edit` does that): a module, or with `within`, a statement of that module inside blocks of those indents
    (LibCST writes a statement's code from them alone); None when its block would drop the statement (a rewrite
    that removes all it holds: the block may then write `pass`). `entered`: `_on_the_way`'s nodes for the fixes,
    where the caller has them; `with_import`: a module gets the `import torch` a fix needs."""
    replacements: dict[int, cst.CSTNode] = {}
    for fix in fixes:
        for replaced, new in fix.replacements.items():
            replacements[id(replaced)] = new
    if entered is None:
        entered = _on_the_way(node, [replaced for fix in fixes for replaced in fix.replacements])
    rewritten = node.visit(_Replace(replacements, entered))
    if within is None:
        assert isinstance(rewritten, cst.Module)
        if with_import and any(fix.needs_torch_import for fix in fixes):
            rewritten = _add_torch_import(rewritten)
        return rewritten.code
    if not isinstance(rewritten, cst.CSTNode) or (is_removable(rewritten) and not is_removable(node)):
        return None
    module, indents = within
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens = list(indents)
    codegen(rewritten, state)
    return "".join(state.tokens)


def _add_torch_import(module: cst.Module) -> cst.Module:
    """Insert `import torch` after the last top-level import (after the docstring otherwise)."""
    body = list(module.body)
    index = 0
    for i, statement in enumerate(body):
        if isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body
        ):
            index = i + 1
        elif index == 0 and i == 0 and isinstance(statement, cst.SimpleStatementLine) and isinstance(
            statement.body[0], cst.Expr
        ) and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            index = 1  # after the module docstring
    line = cst.SimpleStatementLine([cst.Import([cst.ImportAlias(cst.Name("torch"))])])
    body.insert(index, line)
    return module.with_changes(body=body)


def apply_parsable(module: cst.Module, source: str, chosen: list[tuple[str, Fix, int]], limit: int,
                   unparsable: list[str], keep: Optional[Callable[[str, int, int], bool]] = None,
                   original: Optional[str] = None,
                   starts: Optional[list[int]] = None) -> Optional[tuple[str, list[str], Optional[Trees]]]:
    """The text with the chosen fixes applied (each laid out within `limit`), their codes, and the text's trees
    where they were parsed on the way (the next pass's analysis takes them). `chosen`:
    each fix with its code and the line of its first replaced node; `starts`: `statement_starts`' lines.
    A fix that cannot be laid out waits (its report stays); one whose edit overlaps another's
    lines waits for the next pass. A fix whose result does not parse is dropped and its code
    added to `unparsable` (the runner then writes nothing); the others still apply. None when
    none is left. `source` is the text `module` was parsed from; `original`, when it differs (data
    stand-ins, devlint/engine/stand_ins.py), the text the fixes are for: each edit is checked on
    `source` and made, mapped line by line, to `original`."""
    to_original = TextMap(source, original if original is not None else source)
    statements = Statements(module, source, starts) if starts is not None else None
    edits: list[tuple[str, Fix, tuple[int, int, str]]] = []
    for code, fix, first in chosen:
        edit = fix_edit(module, source, fix, limit, statements, first)
        if edit is None or to_original.edit(edit) is None:
            continue  # no layout within the line limit (or one that would rewrite data): no fix
        if keep is not None and not keep(source, edit[0], max(edit[0], edit[1] - 1)):
            continue  # (the edit's lines without the line break that ends them)
        if any(edit[0] < other[1] and other[0] < edit[1] for _, _, other in edits):
            continue  # laid out, it shares lines with another fix: next pass
        edits.append((code, fix, edit))
    if not edits:
        return None
    new = _apply_edits(source, edits, to_original)
    if new is not None:
        return new[0], [code for code, _, _ in edits], new[1]
    kept = []
    for item in edits:
        if _apply_edits(source, [item], to_original) is not None:
            kept.append(item)
        else:
            unparsable.append(item[0])
    if not kept:
        return None
    new = _apply_edits(source, kept, to_original)
    if new is None:  # each parses alone, not together
        unparsable.extend(code for code, _, _ in kept)
        return None
    return new[0], [code for code, _, _ in kept], new[1]


def _apply_edits(source: str, edits: Sequence[tuple[str, Fix, tuple[int, int, str]]],
                 to_original: Optional[TextMap] = None) -> Optional[tuple[str, Optional[Trees]]]:
    """`source` with the (non-overlapping) edits and any `import torch` they need, and its trees where it is the
    text they were parsed from; None when Python or LibCST does not parse the result. With `to_original`, the
    same edits made to the original text instead."""
    text = source
    ordered = sorted(edits, key=lambda item: item[2][0], reverse=True)
    for _, _, (start, end, content) in ordered:
        text = text[:start] + content + text[end:]
    try:
        # Python's parser first: a text only LibCST accepts would be written, then reported as DEV999. Its tree
        # lets LibCST parse a large text a piece at a time (its whole parse took a 2 MB file's --fix to 800 MB).
        tree = ast.parse(text)
        module = parse_in_pieces(text, tree)
    except Exception:  # any failure to parse: the text is not written
        return None
    needs_import = any(fix.needs_torch_import for _, fix, _ in edits)
    if to_original is None or to_original.same:
        return (_add_torch_import(module).code, None) if needs_import else (text, Trees(tree, module))
    mapped = to_original.original_text
    for _, _, edit in ordered:
        start, end, content = to_original.edit(edit)  # type: ignore[misc]  (checked by the caller)
        mapped = mapped[:start] + content + mapped[end:]
    if needs_import:  # at the top, after the docstring and `__future__`: mapped as another edit
        added = TextMap(text, mapped).edit(_whole_edit(text, _add_torch_import(module).code))
        if added is None:
            return None
        start, end, content = added
        mapped = mapped[:start] + content + mapped[end:]
    return mapped, None


class Trees(NamedTuple):
    """A text's trees: Python's and LibCST's."""

    tree: ast.Module
    module: cst.Module


class TextMap:
    """Offsets of a text with data stand-ins -> offsets of its original: the two have the same lines
    and columns outside the stand-ins (devlint/engine/stand_ins.py). An edit that touches a line of a
    one-line stand-in (`w = torch.tensor([0   ])`) is made with the display it stands for, where its content
    holds the stand-in as it was; one that touches another line where they differ maps to None (it would
    rewrite the data)."""

    def __init__(self, text: str, original: str) -> None:
        self.same = text is original or text == original
        self.original_text = original
        self.text = Lines(text) if not self.same else None
        self.original = Lines(original) if not self.same else None

    def edit(self, edit: Optional[tuple[int, int, str]]) -> Optional[tuple[int, int, str]]:
        if edit is None or self.same:
            return edit
        assert self.text is not None and self.original is not None
        start, end, content = edit
        (first, start_col), (last, end_col) = self.text.position(start), self.text.position(end)
        touched = last if end_col > 1 or last == first else last - 1  # an end at a line's start stops before it
        pairs: list[tuple[str, str]] = []
        for line in range(first, touched + 1):
            text_line, original_line = self.text.line_text(line), self.original.line_text(line)
            if text_line != original_line:
                on_line = one_line_stand_ins(text_line, original_line)
                if on_line is None:
                    return None
                pairs += on_line
        mapped = _with_displays(content, pairs) if pairs else content
        if mapped is None:
            return None
        return self.original.offset(first, start_col - 1), self.original.offset(last, end_col - 1), mapped

    def displays_in(self, words: str, first: int, last: int) -> str:
        """`words` (a message, a fix's description) with each one-line stand-in of lines `first` to `last` that it
        quotes replaced by its display."""
        assert self.text is not None and self.original is not None
        for line in range(first, last + 1):
            text_line, original_line = self.text.line_text(line), self.original.line_text(line)
            if text_line != original_line:
                for standing, display in one_line_stand_ins(text_line, original_line) or []:
                    words = words.replace(standing, display, 1)
        return words


def _with_displays(content: str, pairs: list[tuple[str, str]]) -> Optional[str]:
    """`content` with each stand-in of `pairs` (in order) replaced by its display; None where one is not in it."""
    pieces, done = [], 0
    for standing, display in pairs:
        at = content.find(standing, done)
        if at < 0:
            return None
        pieces += [content[done:at], display]
        done = at + len(standing)
    return "".join(pieces) + content[done:]
