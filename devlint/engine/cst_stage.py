"""The engine's LibCST stage: one parse (devlint/engine/narrowed_parse.py where the rules need only some
statements), every rule left after the prefilter and the screen in one batched traversal, a rule that fails
losing only its own reports, then positions (positions.py), noqa, and the fixes as text edits (fix_edits.py).

devlint/engine/engine.py imports this module only when a file reaches it: LibCST's import is a third of a
one-file run, and most files never need it (tests/test_startup.py).
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import libcst as cst

from devlint.analysis.context import ContextEnter, ContextExit, FileContext
from devlint.analysis.libcst_internals import CodeRange
from devlint.analysis.project_index import IndexReads
from devlint.analysis.walk import visit_batched
from devlint.contract.diagnostics import Diagnostic, FixInfo
from devlint.engine.deep_stack import caused_by_recursion, on_deep_stack
from devlint.engine.fix_edits import Statements, TextMap, edits_for, statement_starts
from devlint.engine.line_length import line_limit
from devlint.engine.lines import Lines
from devlint.engine.narrowed_parse import laid_out_alike, parse_needed
from devlint.engine.noqa import Suppressions
from devlint.engine.options import CheckOptions, FileInputs
from devlint.engine.positions import node_positions
from devlint.engine.project import index_for
from devlint.engine.reparse import parse_in_pieces
from devlint.engine.result import Analysis
from devlint.engine.settings import INTERNAL_ERROR_CODE
from devlint.engine.syntax import internal_error
from devlint.engine.target_torch import target_torch
from devlint.rules import RuleEntry
from devlint.rules.base import RawReport


def check(inputs: FileInputs, path: str, rules: Sequence[RuleEntry], options: CheckOptions, *,
          narrow: bool = False) -> Analysis:
    """Parse the file, run `rules` in one traversal and return their reports (and fixes). `narrow`: LibCST may
    leave out the definitions the rules do not need (devlint/analysis/needed.py), where each lists its candidates.
    """
    source, syntax, text, module = inputs.source, inputs.syntax, inputs.text, inputs.module
    settings, reparser = options.settings, options.reparser
    result = Analysis(source, text=text)
    tree = syntax.tree if syntax is not None else None
    lines = placing = Lines(source)  # (`placing`: the text a statement's code is checked in, for its positions)
    if module is None and reparser is not None:
        module = reparser.parse(source, tree)
    elif module is None:
        whole = text if text is not None else source
        if narrow and syntax is not None and all(entry.rule.candidates is not None for entry in rules):
            module, tree, placing = parse_needed(whole, syntax, rules) or (None, tree, placing)
            result.narrowed = module is not None
        if module is None:
            # Python parsed it (engine.py): a failure here is LibCST's, DEV998. A large text is parsed a piece at
            # a time, into the same tree: LibCST's parser holds memory in proportion to what it is given.
            module = parse_in_pieces(whole, tree)
    result.module = module
    ctx = FileContext(module, path, target_torch(settings.target_torch, path), syntax=syntax,
                      preview=settings.preview, project=IndexReads(index_for(path)))
    if result.narrowed:
        ctx.narrowed_tree = tree
    rule_visitors = [entry.visitor(ctx) for entry in rules]
    failures = _Failures(rule_visitors)
    if options.fault is not None:
        options.fault.inject(rule_visitors)
    # LibCST's callbacks in LibCST's order, without rebuilding every node (devlint/analysis/walk.py).
    visit_batched(module, [ContextEnter(ctx), *rule_visitors, ContextExit(ctx)], on_error=failures.visiting)
    for visitor in rule_visitors:
        if visitor.rule.code not in failures.by_code:
            try:
                visitor.finish()
            except Exception as error:
                failures.visiting(visitor, None, error)
    result.index_reads = ctx.project.reads
    raw = sorted((report for visitor in rule_visitors if visitor.rule.code not in failures.by_code
                  and (ctx.torch.imports_torch or not visitor.needs_torch_import) for report in visitor.reports),
                 key=lambda report: report.order)
    if not raw and not failures.by_code:
        return result
    wanted = [node for report in raw for node in (report.node, *(report.fix.replacements if report.fix else ()))]
    wanted += [node for node, _ in failures.by_code.values() if node is not None]
    # a fix is offered (`[*]`, the counts) only where `--fix` can lay it out: laid out here, on a whole tree, or on
    # a narrowed one where a statement kept whole holds it (the same statement, its code checked against the text);
    # else the caller checks the file again whole (devlint/engine/engine.py)
    limit = line_limit(settings.line_length, path)
    if tree is not None and any(report.fix is not None for report in raw):
        result.statement_starts = statement_starts(module, tree)
    alike = not result.narrowed or not any(report.fix is not None for report in raw) or (
        syntax is not None and laid_out_alike(module, text if text is not None else source))
    try:
        positions = node_positions(module, wanted, placing, tree)
        _resolve(result, lines, positions, raw, path, options.ignore_noqa, limit, inputs.suppressions,
                 narrowed=result.narrowed, alike=alike)
        if result.needs_whole:
            return result
    except Exception as error:
        if caused_by_recursion(error) and not isinstance(error, RecursionError):
            raise RecursionError(str(error)) from error  # LibCST's position records hide it: retried deep
        raise
    for code, (node, error) in sorted(failures.by_code.items()):
        where = positions.get(node) if node is not None else None
        line, col = (where.start.line, where.start.column + 1) if where is not None else (1, 1)
        if settings.enabled(INTERNAL_ERROR_CODE, path):
            result.diagnostics.append(internal_error(
                path, line, col, f"rule {code} failed here; its reports for this file are dropped", error))
    result.diagnostics.sort(key=lambda d: d.sort_key)
    return result


class _Failures:
    """The rules that raised while checking this file, each with the node it was at (None: in `finish`).
    A RecursionError off the large stack is not the rule's failure yet: the whole file is tried again
    on a large stack (devlint/engine/deep_stack.py), where a rule that still recurses has failed."""

    def __init__(self, rule_visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
        self.rule_visitors = {id(visitor) for visitor in rule_visitors}
        self.by_code: dict[str, tuple[Optional[cst.CSTNode], Exception]] = {}

    def visiting(self, visitor: cst.BatchableCSTVisitor, node: Optional[cst.CSTNode], error: Exception) -> None:
        if id(visitor) not in self.rule_visitors:
            raise error  # the shared context's visitors: the file cannot be analysed (engine.py: DEV998)
        if isinstance(error, RecursionError) and not on_deep_stack():
            raise error
        self.by_code.setdefault(visitor.rule.code, (node, error))  # type: ignore[attr-defined]


def _resolve(result: Analysis, lines: Lines, positions: Mapping[cst.CSTNode, CodeRange], raw: list[RawReport],
             path: str, ignore_noqa: bool, limit: int, suppressions: Suppressions, *,
             narrowed: bool = False, alike: bool = True) -> None:
    """The reports as diagnostics, each fix laid out. On a narrowed tree (`narrowed`; `alike`: its default indent
    and line break are the file's) a fix is laid out only within a statement kept whole that holds it; where one
    cannot be, `result.needs_whole` is set and nothing more is done."""
    seen: set[tuple[int, int, str]] = set()
    statements: Optional[Statements] = None  # built at the first fix whose edits are computed
    standing = TextMap(result.text, result.source) if result.text not in (None, result.source) else None
    for report in raw:
        where = positions[report.node]
        line, col = where.start.line, where.start.column + 1
        key = (line, col, report.rule.code)
        if key in seen:
            continue  # one report per code and position, however many routes led there
        seen.add(key)
        code = report.rule.code
        # flake8 applies its own `# noqa`; `# devlint: noqa: CODES` is devlint's to apply.
        if suppressions.by_devlint_directive(code) if ignore_noqa else suppressions.suppresses(code, line):
            continue
        fix_info = None
        message = report.message
        if standing is not None:  # what a message or a fix's description quotes of a table's line is the table
            spans = [where, *(positions[node] for node in (report.fix.replacements if report.fix else ()))]
            first_line, last_line = min(s.start.line for s in spans), max(s.end.line for s in spans)
            message = standing.displays_in(message, first_line, last_line)
        if report.fix is not None:
            first = min(positions[node].start.line for node in report.fix.replacements)
            if statements is None and result.statement_starts is not None:
                text = result.text if result.text is not None and result.text is not result.source else lines
                statements = Statements(result.module, text, result.statement_starts)
            if narrowed and (not alike or report.fix.needs_torch_import or statements is None
                             or statements.holding(report.fix, first) is None):
                result.needs_whole = True  # only the whole tree can lay it out
                return
            edits = edits_for(result, report.fix, first, statements, lines, limit)
            if edits is not None:  # None: the fix cannot be laid out within the line limit
                description = report.fix.description
                if standing is not None:
                    description = standing.displays_in(description, first_line, last_line)
                fix_info = FixInfo(report.fix.applicability, description, edits)
        diagnostic = Diagnostic(
            path, line, col, report.rule.code, message, where.end.line, where.end.column + 1, fix_info,
            statement=lines.line_text(line).strip(),
        )
        result.diagnostics.append(diagnostic)
        if report.fix is not None:
            spans = [positions[node] for node in report.fix.replacements]
            start = min(lines.offset(s.start.line, s.start.column) for s in spans)
            end = max(lines.offset(s.end.line, s.end.column) for s in spans)
            result.fixes.append((diagnostic, report.fix, (start, end)))
    result.diagnostics.sort(key=lambda d: d.sort_key)
