"""One parse per file, every enabled rule in one batched traversal, noqa, positions, fixes.

The pipeline for one module's text:
1. the text prefilter drops rules whose tokens are absent, then the syntax screen (Python's
   own `ast`, a fraction of LibCST's cost) drops rules with no candidate node; a file with no
   rule left is never parsed by LibCST;
2. LibCST parses once; the context visitors and every enabled rule share one traversal;
3. rules' `finish()` decide what needed the whole file;
4. positions are resolved only when there is something to report;
5. `# noqa` lines drop their reports (and are never rewritten).
"""

from __future__ import annotations

import ast
import bisect
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence, TypeVar

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from devlint.analysis.context import ContextEnter, ContextExit, FileContext, RawReport
from devlint.diagnostics import Applicability, Diagnostic, Edit, FixInfo, FixResult
from devlint.layout import Refused, lay_out, smallest
from devlint.line_length import line_limit
from devlint.noqa import Suppressions
from devlint.prefilter import prefilter
from devlint.rules import RuleEntry, all_rules
from devlint.rules.base import Fix
from devlint.screen import screen
from devlint.settings import DEFAULT_SETTINGS, SYNTAX_ERROR_CODE, Settings
from devlint.target_torch import target_torch
from devlint.walk import visit_batched

# `--fix` re-checks and fixes again until nothing changes (a fix may make another report: DEV001's
# `x = x.to(d)` after `x = torch.randn(...)` is DEV002's two-statement pair); ruff's bound.
MAX_FIX_PASSES = 100
# LibCST's parser, its metadata providers and our visitors recurse once per level of nesting, so
# deeply nested but valid code can exhaust Python's default limits. Such files are analysed again
# in a thread with a large stack and a raised recursion limit (only they pay for it).
DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 100_000
_DEEP_THREAD = "devlint-deep-analysis"
# CPython refuses more than 200 nested brackets ("too many nested parentheses"); LibCST accepts
# them but takes minutes on a few thousand, so such files get CPython's own syntax error.
MAX_BRACKET_DEPTH = 200
_BRACKETS = re.compile(r"[][(){}]")
_Result = TypeVar("_Result")


def enabled_rules(settings: Settings, path: Optional[str]) -> list[RuleEntry]:
    return [entry for entry in all_rules() if settings.enabled(entry.rule.code, path)]


@dataclass
class Analysis:
    """Everything one lint pass learned about one module's text."""

    source: str
    module: Optional[cst.Module] = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fixes: list[tuple[Diagnostic, Fix, tuple[int, int]]] = field(default_factory=list)  # with char ranges
    skipped: bool = False  # no enabled rule could report here (prefilter, screen): never parsed


class _Lines:
    """Line/column <-> offset conversions for one text."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0]
        for i, char in enumerate(source):
            if char == "\n":
                self.starts.append(i + 1)
        # Python's lines end at "\n" only; str.splitlines() also splits at "\f", "\x1c" and others,
        # which put `# noqa` checks and report statements on the wrong line.
        self.lines = [line.rstrip("\r") for line in source.split("\n")]

    def offset(self, line: int, column: int) -> int:
        """1-based line, 0-based column -> offset."""
        return self.starts[min(line, len(self.starts)) - 1] + column

    def line_text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def position(self, offset: int) -> tuple[int, int]:
        """offset -> 1-based line, 1-based column."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1


def _syntax_error(path: str, source: str, error: Exception) -> Diagnostic:
    line, col = 1, 1
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, cst.ParserSyntaxError):
        line, col = error.raw_line, error.raw_column + 1
        message = error.message
    elif isinstance(error, SyntaxError):
        line, col = error.lineno or 1, error.offset or 1
        message = str(error.msg)
    elif isinstance(error, RecursionError):
        message = "too deeply nested to analyse (recursion limit)"
    return Diagnostic(path, line, col, SYNTAX_ERROR_CODE, f"syntax error: {message}", line, col)


def _nesting_error(source: str) -> Optional[SyntaxError]:
    """CPython's error for brackets nested deeper than it allows, if there are such.

    The regex count is a cheap upper bound (brackets in strings count too); only when it is
    over the limit does CPython's own parser decide."""
    depth = deepest = 0
    for match in _BRACKETS.finditer(source):
        depth = depth + 1 if match.group() in "([{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    if deepest <= MAX_BRACKET_DEPTH:
        return None
    try:
        compile(source, "<devlint>", "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
    except SyntaxError as error:
        return error if "nested parentheses" in str(error.msg) else None
    except (RecursionError, MemoryError, ValueError):
        return None
    return None


def _with_deep_stack(function: Callable[..., _Result], *args: object, **kwargs: object) -> _Result:
    """`function(*args, **kwargs)`; on RecursionError, once more in a thread with a large stack."""
    try:
        return function(*args, **kwargs)
    except RecursionError:
        if threading.current_thread().name == _DEEP_THREAD:
            raise
    outcome: dict[str, object] = {}

    def target() -> None:
        try:
            outcome["value"] = function(*args, **kwargs)
        except BaseException as error:  # handed back to the calling thread
            outcome["error"] = error

    old_limit = sys.getrecursionlimit()
    old_size = threading.stack_size(DEEP_STACK_BYTES)
    try:
        thread = threading.Thread(target=target, name=_DEEP_THREAD)
        thread.start()
    finally:
        threading.stack_size(old_size)
    sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
    try:
        thread.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def analyze(source: str, path: str = "<string>", settings: Optional[Settings] = None,
            *, with_fixes: bool = False, ignore_noqa: bool = False, tree: Optional[ast.AST] = None) -> Analysis:
    """Lint `source`. `with_fixes` computes each fix's text edits (for output formats);
    `ignore_noqa` keeps suppressed reports (flake8 applies `# noqa` itself); `tree` is the
    text's `ast` when the caller has it (flake8), saving the screen its own parse."""
    settings = settings or DEFAULT_SETTINGS
    try:
        return _with_deep_stack(_analyze, source, path, settings, with_fixes, ignore_noqa, tree)
    except RecursionError as error:
        result = Analysis(source)
        if settings.enabled(SYNTAX_ERROR_CODE, path):
            result.diagnostics.append(_syntax_error(path, source, error))
        return result


def _analyze(source: str, path: str, settings: Settings, with_fixes: bool, ignore_noqa: bool,
             tree: Optional[ast.AST] = None) -> Analysis:
    suppressions = Suppressions(source)
    if suppressions.devlint_whole_file or (suppressions.whole_file and not ignore_noqa):
        return Analysis(source, skipped=True)  # `# flake8: noqa` / `# devlint: noqa`: as flake8, not even parsed
    rules = prefilter(source, enabled_rules(settings, path))
    if rules:
        rules = screen(source, rules, tree)
    result = Analysis(source)
    if not rules:
        result.skipped = True
        return result
    nesting = _nesting_error(source)
    try:
        if nesting is not None:
            raise nesting
        module = cst.parse_module(source)
    except (cst.ParserSyntaxError, SyntaxError, MemoryError, ValueError) as error:
        if settings.enabled(SYNTAX_ERROR_CODE, path):
            result.diagnostics.append(_syntax_error(path, source, error))
        return result
    result.module = module
    ctx = FileContext(module, path, target_torch(settings.target_torch, path))
    rule_visitors = [entry.visitor(ctx) for entry in rules]
    # LibCST's callbacks in LibCST's order, without rebuilding every node (devlint/walk.py).
    # A RecursionError propagates to _with_deep_stack, which retries on a large stack.
    visit_batched(module, [ContextEnter(ctx), *rule_visitors, ContextExit(ctx)])
    for visitor in rule_visitors:
        visitor.finish()
    raw = [r for r in ctx.reports if ctx.torch.imports_torch or not _needs_torch_import(r, rules)]
    if not raw:
        return result
    wanted = [node for report in raw for node in (report.node, *(report.fix.replacements if report.fix else ()))]
    limit = line_limit(settings.line_length, path) if with_fixes else 0
    _resolve(result, _positions(module, wanted), raw, path, with_fixes, ignore_noqa, limit, suppressions)
    return result


def _needs_torch_import(report: RawReport, rules: Sequence[RuleEntry]) -> bool:
    for entry in rules:
        if entry.rule is report.rule:
            return entry.visitor.needs_torch_import
    return True


class _PositionsUpTo(PositionProvidingCodegenState):
    """LibCST's position-recording codegen, stopped once every wanted node is placed."""

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


def _positions(module: cst.Module, wanted: Sequence[cst.CSTNode]) -> Mapping[cst.CSTNode, CodeRange]:
    """The positions of `wanted` (and of what comes before them): LibCST's PositionProvider, run
    on its own and only as far into the file as the last wanted node. Through a MetadataWrapper
    it would cost more than twice as much: the codegen runs to the end of the file, and
    `resolve` also walks (and rebuilds) the whole tree for an empty batch of batchable
    providers. `_computed` and the codegen state are the interface LibCST gives providers."""
    provider = PositionProvider()
    state = _PositionsUpTo(default_indent=module.default_indent, default_newline=module.default_newline,
                           provider=provider)
    state.wanted, state.done = set(wanted), False
    try:
        module._codegen(state)
    except Exception:
        # Stopping unwinds through LibCST's position records of the enclosing nodes, which may
        # fail for want of a child's position: nothing wanted is lost by that.
        if not state.done:
            raise
    return provider._computed  # type: ignore[return-value]


def _resolve(result: Analysis, positions: Mapping[cst.CSTNode, CodeRange], raw: list[RawReport], path: str,
             with_fixes: bool, ignore_noqa: bool, limit: int, suppressions: Suppressions) -> None:
    lines = _Lines(result.source)
    seen: set[tuple[int, int, str]] = set()
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
        if report.fix is not None:
            edits: Optional[tuple[Edit, ...]] = ()
            if with_fixes:
                edits = _edits_for(result, report.fix, lines, limit)
            if edits is not None:  # None: the fix cannot be laid out within the line limit
                fix_info = FixInfo(report.fix.applicability, report.fix.description, edits)
        diagnostic = Diagnostic(
            path, line, col, report.rule.code, report.message, where.end.line, where.end.column + 1, fix_info,
            statement=lines.line_text(line).strip(),
        )
        result.diagnostics.append(diagnostic)
        if report.fix is not None:
            spans = [positions[node] for node in report.fix.replacements]
            start = min(lines.offset(s.start.line, s.start.column) for s in spans)
            end = max(lines.offset(s.end.line, s.end.column) for s in spans)
            result.fixes.append((diagnostic, report.fix, (start, end)))
    result.diagnostics.sort(key=lambda d: d.sort_key)


def _edits_for(result: Analysis, fix: Fix, lines: _Lines, limit: int) -> Optional[tuple[Edit, ...]]:
    """The fix as text edits (the rewrite laid out within `limit`; `import torch` if it adds
    one), or None when it cannot be laid out."""
    assert result.module is not None
    edit = fix_edit(result.module, result.source, fix, limit)
    if edit is None:
        return None
    found = [smallest(result.source, *edit)]  # whole lines for applying; the changed span to show
    if fix.needs_torch_import:
        found.append(_smallest_edit(result.source, _add_torch_import(result.module).code))
    edits = []
    for start, end, content in sorted(found):
        (sl, sc), (el, ec) = lines.position(start), lines.position(end)
        edits.append(Edit(start, end, content, sl, sc, el, ec))
    return tuple(edits)


def fix_edit(module: cst.Module, source: str, fix: Fix, limit: int) -> Optional[tuple[int, int, str]]:
    """The fix (its `import torch` aside) as one text edit of whole lines, laid out as black
    would within `limit` (devlint/layout.py); None when it cannot be."""
    start, end, content = _smallest_edit(source, apply_fixes(module, [fix], with_import=False))
    try:
        return lay_out(source, start, end, content, limit)
    except Refused:
        return None
    except (ValueError, IndexError, AssertionError):  # a layout bug must cost a fix, never the file
        return None


def _smallest_edit(old: str, new: str) -> tuple[int, int, str]:
    """(start, end, text): `old[start:end]` replaced by `text` gives `new`, with the span the
    smallest where the texts differ."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return start, end_old, new[start:end_new]


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[int, cst.CSTNode]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def,override]
        return self.replacements.get(id(original_node), updated_node)


def apply_fixes(module: cst.Module, fixes: Sequence[Fix], *, with_import: bool = True) -> str:
    """The module's text with `fixes` (non-overlapping) applied, as the rules wrote them (not laid
    out: `fix_edit` does that)."""
    replacements: dict[int, cst.CSTNode] = {}
    for fix in fixes:
        for node, new in fix.replacements.items():
            replacements[id(node)] = new
    new_module = module.visit(_Replace(replacements))
    if with_import and any(fix.needs_torch_import for fix in fixes):
        new_module = _add_torch_import(new_module)
    return new_module.code


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


def fix_text(source: str, path: str = "<string>", settings: Optional[Settings] = None, *,
             unsafe: bool = False, keep: Optional[Callable[[str, int, int], bool]] = None) -> FixResult:
    """Apply fixes until none applies (bounded); return the text and what is left.

    `keep(text, start, end)` may veto a fix by the span it replaces (a notebook vetoes fixes that
    would cross cells or touch masked IPython lines); a vetoed fix's report stays in `remaining`."""
    settings = settings or DEFAULT_SETTINGS
    try:
        return _with_deep_stack(_fix_text, source, path, settings, unsafe, keep)
    except RecursionError:  # even the large stack was not enough: nothing is fixed
        return FixResult(source, {}, analyze(source, path, settings).diagnostics)


def _fix_text(source: str, path: str, settings: Settings, unsafe: bool,
              keep: Optional[Callable[[str, int, int], bool]]) -> FixResult:
    allowed = {Applicability.SAFE, Applicability.UNSAFE} if (unsafe or settings.unsafe_fixes) else {Applicability.SAFE}
    fixed: dict[str, int] = {}
    unparsable: list[str] = []
    current = source
    seen = {source}
    limit: Optional[int] = None
    for _ in range(MAX_FIX_PASSES):
        analysis = analyze(current, path, settings)
        lines = _Lines(current)
        suppressions = Suppressions(current)
        chosen: list[tuple[str, Fix]] = []
        taken: list[tuple[int, int]] = []
        for diagnostic, fix, (start, end) in sorted(analysis.fixes, key=lambda item: item[2]):
            if fix.applicability not in allowed or (keep is not None and not keep(current, start, end)):
                continue
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue  # overlaps a fix taken this pass: next pass
            if _touches_noqa(diagnostic.code, lines, suppressions, start, end):
                continue  # a `# noqa` line is never rewritten, even by a report on another line
            chosen.append((diagnostic.code, fix))
            taken.append((start, end))
        if not chosen or analysis.module is None:
            return FixResult(current, fixed, analysis.diagnostics, unparsable)
        if limit is None:
            limit = line_limit(settings.line_length, path)
        new = _apply_parsable(analysis.module, current, chosen, limit, unparsable, keep)
        if new is None or new[0] == current:
            return FixResult(current, fixed, analysis.diagnostics, unparsable)
        new_text, codes = new
        for code in codes:
            fixed[code] = fixed.get(code, 0) + 1
        current = new_text
        if current in seen:  # fixes that undo each other: stop, and say so
            return FixResult(current, fixed, analyze(current, path, settings).diagnostics, unparsable,
                             converged=False)
        seen.add(current)
    return FixResult(current, fixed, analyze(current, path, settings).diagnostics, unparsable,
                     converged=False)


def _touches_noqa(code: str, lines: _Lines, suppressions: Suppressions, start: int, end: int) -> bool:
    first, last = lines.position(start)[0], lines.position(end)[0]
    return any(suppressions.suppresses(code, line) for line in range(first, last + 1))


def _apply_parsable(module: cst.Module, source: str, chosen: list[tuple[str, Fix]], limit: int,
                    unparsable: list[str], keep: Optional[Callable[[str, int, int], bool]] = None,
                    ) -> Optional[tuple[str, list[str]]]:
    """The text with the chosen fixes applied (each laid out within `limit`), and their codes.
    A fix that cannot be laid out waits (its report stays); one whose edit overlaps another's
    lines waits for the next pass. A fix whose result does not parse is dropped and its code
    added to `unparsable` (the runner then writes nothing); the others still apply. None when
    none is left."""
    edits: list[tuple[str, Fix, tuple[int, int, str]]] = []
    for code, fix in chosen:
        edit = fix_edit(module, source, fix, limit)
        if edit is None:
            continue  # no layout within the line limit: no fix
        if keep is not None and not keep(source, edit[0], max(edit[0], edit[1] - 1)):
            continue  # (the edit's lines without the line break that ends them)
        if any(edit[0] < other[1] and other[0] < edit[1] for _, _, other in edits):
            continue  # laid out, it shares lines with another fix: next pass
        edits.append((code, fix, edit))
    if not edits:
        return None
    new = _apply_edits(source, edits)
    if new is not None:
        return new, [code for code, _, _ in edits]
    kept = []
    for item in edits:
        if _apply_edits(source, [item]) is not None:
            kept.append(item)
        else:
            unparsable.append(item[0])
    if not kept:
        return None
    new = _apply_edits(source, kept)
    if new is None:  # each parses alone, not together
        unparsable.extend(code for code, _, _ in kept)
        return None
    return new, [code for code, _, _ in kept]


def _apply_edits(source: str, edits: Sequence[tuple[str, Fix, tuple[int, int, str]]]) -> Optional[str]:
    """`source` with the (non-overlapping) edits and any `import torch` they need; None when the
    result does not parse."""
    text = source
    for _, _, (start, end, content) in sorted(edits, key=lambda item: item[2][0], reverse=True):
        text = text[:start] + content + text[end:]
    try:
        module = cst.parse_module(text)
    except Exception:  # any failure to parse: the text is not written
        return None
    if any(fix.needs_torch_import for _, fix, _ in edits):
        text = _add_torch_import(module).code
    return text
