"""One parse per file, every enabled rule in one batched traversal, noqa, positions, fixes.

The pipeline for one module's text:
1. the text prefilter drops rules whose tokens are absent, then the syntax screen (Python's
   own `ast`, a fraction of LibCST's cost) drops rules with no candidate node; a file with no
   rule left is never parsed by LibCST (Python's parser still reads it: a syntax error is DEV999);
2. LibCST parses once (a large text a piece at a time, an editor's document only what an edit touched:
   devlint/engine/reparse.py);
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
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Optional

from devlint.contract.diagnostics import Applicability, Diagnostic, FixResult
from devlint.engine.collector import collector_paused
from devlint.engine.deep_stack import caused_by_recursion, with_deep_stack
from devlint.engine.libcst_loader import load_libcst
from devlint.engine.line_length import line_limit
from devlint.engine.lines import Lines
from devlint.engine import faults
from devlint.engine.noqa import Suppressions
from devlint.engine.options import CheckOptions, FileInputs
from devlint.engine.result import Analysis
from devlint.engine.selection import enabled_rules, prefilter, screen_with_facts
from devlint.engine.settings import (
    DEFAULT_SETTINGS, INTERNAL_ERROR_CODE, SYNTAX_ERROR_CODE, TOO_LARGE_CODE, Settings,
)
from devlint.engine.stand_ins import data_stand_ins
from devlint.engine.syntax import internal_error, parse_python

if TYPE_CHECKING:  # pragma: no cover
    from devlint.engine.fix_edits import Trees
    from devlint.engine.reparse import Reparser
    from devlint.rules.base import Fix

# `--fix` re-checks and fixes again until nothing changes (a fix may make another report: DEV001's
# `x = x.to(d)` after `x = torch.randn(...)` is DEV002's two-statement pair); ruff's bound.
MAX_FIX_PASSES = 100


def _cst_stage() -> ModuleType:
    """devlint/engine/cst_stage.py, imported (with LibCST) the first time a file gets past the screen."""
    load_libcst()  # (only what devlint uses of LibCST, where nothing imported it before)
    if "devlint.engine.cst_stage" not in sys.modules:
        from devlint.engine.compiled_dataclasses import compiled_dataclasses

        with compiled_dataclasses():  # (LibCST's node classes, their methods compiled once per machine)
            import devlint.engine.cst_stage  # noqa: F401
    from devlint.engine import cst_stage

    return cst_stage


def _fix_edits() -> ModuleType:
    """devlint/engine/fix_edits.py (with LibCST), for `fix_text`: a file with a fix has been through the LibCST stage."""
    _cst_stage()
    from devlint.engine import fix_edits

    return fix_edits


def analyze(source: str, path: str = "<string>", settings: Optional[Settings] = None,
            *, with_fixes: bool = False, ignore_noqa: bool = False, tree: Optional[ast.AST] = None,
            reparser: Optional[Reparser] = None, stand_ins: bool = True, trees: Optional[Trees] = None,
            whole: bool = False) -> Analysis:
    """Lint `source`. `with_fixes` computes each fix's text edits (for output formats);
    `ignore_noqa` keeps suppressed reports (flake8 applies `# noqa` itself); `tree` is the
    text's `ast` when the caller has it (flake8), saving the screen its own parse; `reparser`
    parses successive versions of one document (an editor's), re-parsing only what changed; `trees`: the
    text's `ast` and LibCST tree where the caller parsed both (a fix's pass), used where no stand-in changes it;
    `whole`: LibCST parses every statement (`fix_text` rewrites the tree), where otherwise it may leave out
    definitions no rule needs (devlint/analysis/needed.py; never with fixes' edits nor for an editor).

    Large tables of constants are parsed as stand-ins (devlint/engine/stand_ins.py; not with
    `stand_ins=False` nor for an editor's document, whose parser keeps its trees); a file whose code
    is still over `max_file_size` gets DEV997 and no rule is run on it.

    Text that Python rejects gets DEV999 (Python's line and message) and nothing else, also where the
    prefilter leaves no rule (Python's parse is then the whole check, a fraction of a file's); a file that
    devlint cannot analyse although Python parses it gets DEV998, and a rule that fails loses only
    its own reports (devlint/engine/cst_stage.py).

    Python's cyclic garbage collector is off meanwhile (devlint/engine/collector.py)."""
    with collector_paused():
        return _analyze(source, path, settings or DEFAULT_SETTINGS, with_fixes, ignore_noqa, tree, reparser,
                        stand_ins, trees, whole)


def _analyze(source: str, path: str, settings: Settings, with_fixes: bool, ignore_noqa: bool,
             tree: Optional[ast.AST], reparser: Optional[Reparser], stand_ins: bool, trees: Optional[Trees],
             whole: bool) -> Analysis:
    suppressions = Suppressions(source)
    if suppressions.devlint_whole_file or (suppressions.whole_file and not ignore_noqa):
        return Analysis(source, skipped=True)  # `# flake8: noqa` / `# devlint: noqa`: as flake8, not even parsed
    rules = prefilter(source, enabled_rules(settings, path))
    if not rules and (isinstance(tree, ast.Module) or not settings.enabled(SYNTAX_ERROR_CODE, path)):
        return Analysis(source, skipped=True)  # (a caller's tree: Python parsed the text)
    standing = data_stand_ins(source) if stand_ins and reparser is None else None
    text, code_size = (standing.text, standing.code_size) if standing is not None else (source, len(source))
    if code_size > settings.max_file_size:
        return _too_large(source, code_size, path, settings, len(rules)) if rules else Analysis(source, skipped=True)
    module = None
    if trees is not None and text is source and reparser is None:
        tree, module = trees
    if not isinstance(tree, ast.Module):
        parsed = parse_python(text, path)  # in the caller's thread: at the recursion limit `python` has
        if isinstance(parsed, Diagnostic):
            rejected = Analysis(source)
            if settings.enabled(SYNTAX_ERROR_CODE, path):
                rejected.diagnostics.append(parsed)
            return rejected
        tree = parsed
    if not rules:  # no rule can report here, and Python parses it (ruff's `invalid-syntax` is said of every file)
        return Analysis(source, skipped=True)
    rules, facts = screen_with_facts(source, rules, tree, preview=settings.preview)
    if not rules:
        return Analysis(source, skipped=True)

    inputs = FileInputs(source, suppressions, facts, text, module)
    options = CheckOptions(settings, with_fixes, ignore_noqa, reparser, faults.installed())

    def attempt() -> Analysis:
        result = _cst_stage().check(inputs, path, rules, options, narrow=not (whole or with_fixes))
        if result.narrowed and result.needs_whole:
            # a fix is offered only where `--fix` can lay it out: one the narrowed tree cannot, checked again whole
            result = _cst_stage().check(inputs, path, rules, options, narrow=False)
        return result

    try:
        return with_deep_stack(attempt)
    except Exception as error:  # nothing a file holds may cost more than that file's reports
        failed = Analysis(source)
        if settings.enabled(INTERNAL_ERROR_CODE, path):
            what = ("this file is nested too deeply for devlint to analyse; no rule checked it"
                    if caused_by_recursion(error) else "devlint could not analyse this file; no rule checked it")
            failed.diagnostics.append(internal_error(path, 1, 1, what, error))
        return failed


def _too_large(source: str, code_size: int, path: str, settings: Settings, rules: int) -> Analysis:
    """DEV997 for a file whose code is over the limit: the prefilter's rules were not run."""
    result = Analysis(source)
    if settings.enabled(TOO_LARGE_CODE, path):
        size, limit = _size(code_size), _size(settings.max_file_size)
        result.diagnostics.append(Diagnostic(
            path, 1, 1, TOO_LARGE_CODE,
            f"not checked: this file's code ({size}) is over max-file-size ({limit}); {rules} "
            f"{'rule' if rules == 1 else 'rules'} not run (raise max-file-size, or exclude the file)", 1, 1))
    return result


def _size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    return f"{size / 1024:.1f} KiB" if size >= 1024 else f"{size} characters"


def fix_text(source: str, path: str = "<string>", settings: Optional[Settings] = None, *,
             unsafe: bool = False, keep: Optional[Callable[[str, int, int], bool]] = None) -> FixResult:
    """Apply fixes until none applies (bounded); return the text and what is left.

    `keep(text, start, end)` may veto a fix by the span it replaces (a notebook vetoes fixes that
    would cross cells or touch masked IPython lines); a vetoed fix's report stays in `remaining`."""
    settings = settings or DEFAULT_SETTINGS
    return _fix_text(source, path, settings, unsafe, keep)


def _fix_text(source: str, path: str, settings: Settings, unsafe: bool,
              keep: Optional[Callable[[str, int, int], bool]]) -> FixResult:
    allowed = {Applicability.SAFE, Applicability.UNSAFE} if (unsafe or settings.unsafe_fixes) else {Applicability.SAFE}
    fixed: dict[str, int] = {}
    unparsable: list[str] = []
    current = source
    seen = {source}
    limit: Optional[int] = None
    trees: Optional[Trees] = None  # the trees of `current`, where the last pass parsed them checking its fixes
    for _ in range(MAX_FIX_PASSES):
        # (stand-ins off where a veto reads offsets of `current`)
        analysis = analyze(current, path, settings, stand_ins=keep is None, trees=trees, whole=True)
        lines = Lines(current)
        suppressions = Suppressions(current)
        chosen: list[tuple[str, Fix, int]] = []
        taken: list[tuple[int, int]] = []
        for diagnostic, fix, (start, end) in sorted(analysis.fixes, key=lambda item: item[2]):
            if fix.applicability not in allowed or (keep is not None and not keep(current, start, end)):
                continue
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue  # overlaps a fix taken this pass: next pass
            if _touches_noqa(diagnostic.code, lines, suppressions, start, end):
                continue  # a `# noqa` line is never rewritten, even by a report on another line
            chosen.append((diagnostic.code, fix, lines.position(start)[0]))
            taken.append((start, end))
        if not chosen or analysis.module is None:
            return FixResult(current, fixed, analysis.diagnostics, unparsable)
        if limit is None:
            limit = line_limit(settings.line_length, path)
        try:
            new = with_deep_stack(_fix_edits().apply_parsable, analysis.module, analysis.text or current, chosen,
                                  limit, unparsable, keep, current, analysis.statement_starts)
        except RecursionError:  # too deep to rewrite even on the large stack: the text stays as it is
            new = None
        if new is None or new[0] == current:
            return FixResult(current, fixed, analysis.diagnostics, unparsable)
        new_text, codes, trees = new
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
