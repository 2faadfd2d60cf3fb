"""Check what `devlint --fix` did to a copy of the corpus.

    cp -a ~/.cache/devlint-dev-corpus/src /tmp/fixcorpus
    PYTHONPATH=$PWD python -m devlint --isolated --fix --unsafe-fixes /tmp/fixcorpus
    PYTHONPATH=$PWD python benchmarks/fix_corpus.py ~/.cache/devlint-dev-corpus/src /tmp/fixcorpus

For every file that changed it checks that
- only lines with a report before fixing changed (a report spans `line..end_line`; a new keyword
  may go on its own line inside that span; `import torch` may be added; the `x = x.to(d)` line
  of a split DEV002 move may go),
- the fixed file still parses (`ast.parse`),
- a second `--fix --unsafe-fixes` changes nothing,
- the text on disk is what `fix_source(..., unsafe=True)` gives (the CLI and the API agree),
- no line the fix added is over the line limit the fix read (`line-length` of ruff/black, flake8's
  `max-line-length` nearest the file, else 88), unless a line it replaced already was,
and prints the figures for benchmarks/README.md: files changed, fixes applied per rule, the
unsafe fixes a run without `--unsafe-fixes` skips, and changed hunks per rule and applicability
(a hunk counts for every report whose lines it touches). Exit 1 when any check fails.

`--black-sample N`: for up to N changed files that were black-formatted before (`black --check`
passes on the original at the limit the fix read, or at 100/119/120 where the project evidently
uses that), fix the original with that limit and check that black still passes on the result.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import os
import re
import sys
from collections import Counter
from typing import Iterator, Optional

from devlint import fix_source
from devlint.contract.diagnostics import Applicability
from devlint.engine.engine import analyze
from devlint.engine.layout import width
from devlint.engine.line_length import line_limit
from devlint.engine.settings import Settings
from devlint.sources.files import SourceError, read_source

_SPLIT_MOVE = re.compile(r"^\s*(\w+)\s*=\s*\1\.(to|cuda)\(.*\)\s*$")


def python_files(root: str) -> Iterator[str]:
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(directory, name), root)


def allowed_lines(source: str, path: str) -> set[int]:
    """1-based lines that carry (part of) a report, or that its fix rewrites, before fixing."""
    lines: set[int] = set()
    for diagnostic in analyze(source, path, with_fixes=True).diagnostics:
        lines.update(range(diagnostic.line, (diagnostic.end_line or diagnostic.line) + 1))
        for edit in diagnostic.fix.edits if diagnostic.fix is not None else ():
            # the lines the fix rewrites (a multi-line `.to(\n    device\n)` a DEV002 fix removes)
            last = edit.end_line - (edit.end_col == 1 and edit.end_line > edit.start_line)
            lines.update(range(edit.start_line, last + 1))
    return lines


def stray_changes(before: str, after: str, allowed: set[int]) -> list[str]:
    """Changes outside the reported lines, as `line: text` of the original (or the insertion)."""
    old, new = before.splitlines(), after.splitlines()
    stray = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        for number in range(i1 + 1, i2 + 1):  # replaced or deleted original lines
            text = old[number - 1]
            if number in allowed:
                continue
            if _SPLIT_MOVE.match(text) and any(n < number for n in allowed):
                continue
            stray.append(f"{number}: {text.strip()}")
        if tag == "insert":
            for text in new[j1:j2]:
                if text.strip() == "import torch" or (i1 in allowed and i1 + 1 in allowed):
                    continue
                stray.append(f"{i1}+: {text.strip()}")
    return stray


def long_lines(before: str, after: str, limit: int) -> list[str]:
    """Lines the fix added over `limit`, where no line it replaced was over it already."""
    old, new = before.splitlines(), after.splitlines()
    found = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal" or any(width(line) > limit for line in old[i1:i2]):
            continue
        found.extend(f"{j + 1}: {width(new[j])} > {limit}" for j in range(j1, j2) if width(new[j]) > limit)
    return found


def hunks_by_rule(before: str, after: str, path: str) -> Counter[tuple[str, str]]:
    """(code, applicability) -> changed hunks touching a report of that code."""
    counts: Counter[tuple[str, str]] = Counter()
    reports = [d for d in analyze(before, path).diagnostics if d.fix is not None]
    old, new = before.splitlines(), after.splitlines()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        first, last = i1 + 1, max(i2, i1 + 1)
        touched = {(d.code, d.fix.applicability.value) for d in reports  # type: ignore[union-attr]
                   if d.line <= last and (d.end_line or d.line) >= first - (tag == "insert")}
        counts.update(touched or {("import", "-")})
    return counts


def black_stable(before: str, path: str, limit: int) -> Optional[bool]:
    """None: the original is not black-formatted at any likely limit; else whether the fix of
    it (at the limit it is formatted at) still is."""
    import black

    for length in dict.fromkeys((limit, 100, 119, 120)):
        mode = black.Mode(line_length=length)
        if not _black_ok(black, before, mode):
            continue
        after = fix_source(before, path, Settings(line_length=length), unsafe=True).source
        return after == before or _black_ok(black, after, mode)
    return None


def _black_ok(black, text: str, mode) -> bool:  # type: ignore[no-untyped-def]
    try:
        black.format_file_contents(text, fast=True, mode=mode)
    except black.NothingChanged:
        return True
    except Exception:  # black cannot parse it (or fails): not formatted for our purpose
        return False
    return False


def _check_fixed(relative: str, path: str, before: str, after: str) -> list[str]:
    """The checks on one fixed text; `path` is the original's, where the CLI's run read its project."""
    failures = []
    try:
        ast.parse(after)
    except SyntaxError as error:
        failures.append(f"{relative}: does not parse after fixing: {error}")
    for line in stray_changes(before, after, allowed_lines(before, path)):
        failures.append(f"{relative}:{line}  (changed, but had no report)")
    if fix_source(after, path, unsafe=True).source != after:
        failures.append(f"{relative}: a second fix run changes it again")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("original", help="the corpus as it was")
    parser.add_argument("fixed", help="the copy `devlint --fix --unsafe-fixes` rewrote")
    parser.add_argument("--black-sample", type=int, default=0, metavar="N",
                        help="check black stays satisfied on up to N changed files it was satisfied with before")
    args = parser.parse_args()
    hunks: Counter[tuple[str, str]] = Counter()
    black_checked = black_kept = 0

    failures: list[str] = []
    applied: Counter[str] = Counter()
    applied_safe: Counter[str] = Counter()
    unsafe_skipped: Counter[str] = Counter()
    total = changed = changed_now = 0
    for relative in python_files(args.original):
        total += 1
        original_path = os.path.join(args.original, relative)
        fixed_path = os.path.join(args.fixed, relative)
        try:
            before = read_source(original_path).text
            after = read_source(fixed_path).text
        except SourceError:
            continue  # undecodable in both: devlint reports and skips it
        if before == after:
            continue
        changed += 1
        # analysed at the original's own path, so that the project index (DEV002's callers, DEV004's savers) is the
        # one the CLI's run read: the copy it fixed was that project, file for file
        where = os.path.abspath(original_path)
        unsafe = fix_source(before, where, unsafe=True)
        applied.update(unsafe.fixed)
        changed_now += unsafe.source != before
        if unsafe.source != after:
            failures.append(f"{relative}: the CLI's result differs from fix_source(unsafe=True)")
        # the checks hold for what is on disk and for what this checkout's fix_source gives
        for text in dict.fromkeys((after, unsafe.source)):
            failures.extend(_check_fixed(relative, where, before, text))
        limit = line_limit(None, fixed_path)
        failures.extend(f"{relative}:{line} (added line over the limit)" for line in long_lines(before, after, limit))
        hunks.update(hunks_by_rule(before, after, where))
        if black_checked < args.black_sample:
            stable = black_stable(before, where, limit)
            if stable is not None:
                black_checked += 1
                black_kept += stable
                if not stable:
                    failures.append(f"{relative}: black-formatted before the fix, not after")
        safe = fix_source(before, where, unsafe=False)
        applied_safe.update(safe.fixed)
        unsafe_skipped.update(
            d.code for d in safe.remaining if d.fix is not None and d.fix.applicability is Applicability.UNSAFE
        )

    print(f"files: {total}, changed by the CLI run: {changed}, changed by this checkout's fix_source: {changed_now}")
    codes = sorted(set(applied) | set(applied_safe) | set(unsafe_skipped))
    print(f"{'rule':<8}{'applied (--unsafe-fixes)':>26}{'applied (--fix)':>17}{'unsafe skipped (--fix)':>24}")
    for code in codes:
        print(f"{code:<8}{applied[code]:>26}{applied_safe[code]:>17}{unsafe_skipped[code]:>24}")
    print(f"{'total':<8}{sum(applied.values()):>26}{sum(applied_safe.values()):>17}{sum(unsafe_skipped.values()):>24}")
    print(f"{'hunks':<8}{'safe':>8}{'unsafe':>8}")
    for code in sorted({code for code, _ in hunks}):
        print(f"{code:<8}{hunks[code, 'safe']:>8}{hunks[code, 'unsafe']:>8}")
    if args.black_sample:
        print(f"black: {black_checked} changed files were black-formatted before; {black_kept} still are")
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"{len(failures)} check(s) failed" if failures else "all checks passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
