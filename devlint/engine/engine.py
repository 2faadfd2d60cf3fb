"""One parse per file, every enabled rule in one batched traversal, noqa, positions, fixes.

The pipeline for one module's text:
1. the text prefilter drops rules whose tokens are absent, then the syntax screen (Python's
   own `ast`, a fraction of LibCST's cost) drops rules with no candidate node; a file with no
   rule left is never parsed by LibCST;
2. LibCST parses once (an editor's document: only what an edit touched, devlint/engine/reparse.py);
   the context visitors and every enabled rule share one traversal;
3. rules' `finish()` decide what needed the whole file;
4. positions are resolved only when there is something to report;
5. `# noqa` lines drop their reports (and are never rewritten).

Steps 2-5 are devlint/engine/cst_stage.py, imported (with LibCST, a third of a one-file run) only when
a file gets that far: this module, the prefilter, the screen and the rule table import no LibCST
(tests/test_startup.py).
"""

from __future__ import annotations

import ast
import sys
import threading
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Optional, TypeVar

from devlint.analysis.prefilter import prefilter
from devlint.analysis.screen import screen_with_facts
from devlint.contract.diagnostics import Applicability, Diagnostic, FixResult
from devlint.engine.line_length import line_limit
from devlint.engine.lines import Lines
from devlint.engine.noqa import Suppressions
from devlint.engine.settings import DEFAULT_SETTINGS, SYNTAX_ERROR_CODE, Settings
from devlint.rules import RuleEntry, all_rules

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from devlint.engine.reparse import Reparser
    from devlint.rules.base import Fix

# `--fix` re-checks and fixes again until nothing changes (a fix may make another report: DEV001's
# `x = x.to(d)` after `x = torch.randn(...)` is DEV002's two-statement pair); ruff's bound.
MAX_FIX_PASSES = 100
# LibCST's parser, its metadata providers and our visitors recurse once per level of nesting, so
# deeply nested but valid code can exhaust Python's default limits. Such files are analysed again
# in a thread with a large stack and a raised recursion limit (only they pay for it).
DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 100_000
_DEEP_THREAD = "devlint-deep-analysis"
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
    # What the rules asked the project index and its answers (devlint/analysis/project_index.py):
    # the reports hold only while the index answers the same (the result cache checks it).
    index_reads: dict[str, object] = field(default_factory=dict)


def _cst_stage() -> ModuleType:
    """devlint/engine/cst_stage.py, imported (with LibCST) the first time a file gets past the screen."""
    from devlint.engine import cst_stage

    return cst_stage


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
            *, with_fixes: bool = False, ignore_noqa: bool = False, tree: Optional[ast.AST] = None,
            reparser: Optional[Reparser] = None) -> Analysis:
    """Lint `source`. `with_fixes` computes each fix's text edits (for output formats);
    `ignore_noqa` keeps suppressed reports (flake8 applies `# noqa` itself); `tree` is the
    text's `ast` when the caller has it (flake8), saving the screen its own parse; `reparser`
    parses successive versions of one document (an editor's), re-parsing only what changed."""
    settings = settings or DEFAULT_SETTINGS
    try:
        return _with_deep_stack(_analyze, source, path, settings, with_fixes, ignore_noqa, tree, reparser)
    except RecursionError as error:
        result = Analysis(source)
        if settings.enabled(SYNTAX_ERROR_CODE, path):
            result.diagnostics.append(_cst_stage().syntax_error(path, source, error))
        return result


def _analyze(source: str, path: str, settings: Settings, with_fixes: bool, ignore_noqa: bool,
             tree: Optional[ast.AST] = None, reparser: Optional[Reparser] = None) -> Analysis:
    suppressions = Suppressions(source)
    if suppressions.devlint_whole_file or (suppressions.whole_file and not ignore_noqa):
        return Analysis(source, skipped=True)  # `# flake8: noqa` / `# devlint: noqa`: as flake8, not even parsed
    rules = prefilter(source, enabled_rules(settings, path))
    facts = None
    if rules:
        rules, facts = screen_with_facts(source, rules, tree)
    result = Analysis(source)
    if not rules:
        result.skipped = True
        return result
    _cst_stage().check(result, path, settings, rules, with_fixes, ignore_noqa, suppressions, facts, reparser)
    return result


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
        lines = Lines(current)
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
        new = _cst_stage().apply_parsable(analysis.module, current, chosen, limit, unparsable, keep)
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


def _touches_noqa(code: str, lines: Lines, suppressions: Suppressions, start: int, end: int) -> bool:
    first, last = lines.position(start)[0], lines.position(end)[0]
    return any(suppressions.suppresses(code, line) for line in range(first, last + 1))
