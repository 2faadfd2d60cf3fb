"""Effective settings for a run: which codes are enabled (per file), excludes, fix policy."""

from __future__ import annotations

import fnmatch
import functools
import os
from dataclasses import dataclass
from typing import Iterable, Optional

SYNTAX_ERROR_CODE = "DEV999"  # text that Python itself cannot parse
# devlint failed on a file Python parses (a rule raised, or the code is deeper than LibCST can take):
# that rule's reports for the file are dropped, the others stand, and the run exits 2.
INTERNAL_ERROR_CODE = "DEV998"
# A file whose code (its large tables of constants aside, devlint/engine/stand_ins.py) is over
# `max-file-size`: only the text prefilter checked it, and the rules it left were not run.
TOO_LARGE_CODE = "DEV997"
# Codes no rule owns: reported unless ignored by name.
ENGINE_CODES = (TOO_LARGE_CODE, INTERNAL_ERROR_CODE, SYNTAX_ERROR_CODE)
# Notices: what devlint did not do, not what the code does wrong. They are shown (a note in the editor and the
# CI formats) and fail a run only where named by their full code (`extend-select = ["DEV997"]`): a generated
# module with no bug does not fail CI.
NOTICE_CODES = (TOO_LARGE_CODE,)
# LibCST's tree of a module takes about 300 MB per MB of code (a 2 MB module peaks near 700 MB).
DEFAULT_MAX_FILE_SIZE = 3 * 1024 * 1024

# gitignore patterns (devlint/runner/ignores.py). Virtual environments are skipped by what they hold
# (`pyvenv.cfg`, `conda-meta/`), not by name: a source folder called `env` is checked.
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", "build", "dist", "__pycache__", ".tox", ".nox", ".eggs", "*.egg-info",
    "node_modules", "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".devlint_cache",
    ".ipynb_checkpoints",
)


def _matches(code: str, prefixes: Iterable[str]) -> int:
    """Length of the longest prefix of `code` in `prefixes` (0: none)."""
    best = 0
    for prefix in prefixes:
        if prefix == "ALL" and best == 0:
            best = 1
        elif code.startswith(prefix) and len(prefix) > best:
            best = len(prefix)
    return best


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ("DEV",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, codes)
    exclude: tuple[str, ...] = ()  # gitignore patterns relative to `root`; () means DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True  # skip what git ignores (.gitignore files, .git/info/exclude)
    force_exclude: bool = False  # files named on the command line obey `exclude` too
    unsafe_fixes: bool = False
    # The line limit fixes keep to; None: the project's formatter setting nearest to each file,
    # else 88 (devlint/engine/line_length.py).
    line_length: Optional[int] = None
    # The torch version fixes write code for, as (major, minor); None: the project's own dependency
    # on torch nearest to each file, else unknown (devlint/engine/target_torch.py).
    target_torch: Optional[tuple[int, int]] = None
    root: str = "."  # directory per-file-ignores and excludes are relative to
    # Preview: rules in preview run when selected (by `DEV`, `ALL`, a prefix), and rules' preview
    # shapes report (a visitor asks `self.preview`). Off, a preview rule runs only where its full
    # code is selected (`--select DEV004`): naming the rule is asking for it, at the shapes it would report
    # by default (its best measured); its preview shapes stay off.
    preview: bool = False
    # Characters of code (tables of constants aside) above which a file is only prefiltered (DEV997).
    max_file_size: int = DEFAULT_MAX_FILE_SIZE

    def enabled(self, code: str, path: Optional[str] = None) -> bool:
        """flake8's rule: the most specific of select/ignore wins; a tie goes to ignore."""
        ignores: list[str] = list(self.ignore)
        if path is not None:
            ignores.extend(self.file_ignores(path))
        selected = _matches(code, (*self.select, *self.extend_select))
        if code in ENGINE_CODES:
            selected = max(selected, 1)  # syntax and internal errors are reported unless ignored by name
        ignored = _matches(code, ignores)
        if code in preview_codes() and not self.preview and code not in (*self.select, *self.extend_select):
            return False
        return selected > 0 and selected > ignored

    def fails_on(self, code: str) -> bool:
        """Whether a report of `code` fails the run (exit 1): any but a notice's, and a notice's where its full
        code is selected."""
        return code not in NOTICE_CODES or code in (*self.select, *self.extend_select)

    def file_ignores(self, path: str) -> list[str]:
        if not self.per_file_ignores:
            return []
        rel = _relative(path, self.root)
        codes: list[str] = []
        for pattern, pattern_codes in self.per_file_ignores:
            if _glob_match(rel, pattern) or _glob_match(os.path.basename(path), pattern):
                codes.extend(pattern_codes)
        return codes


@functools.lru_cache(maxsize=1)
def preview_codes() -> frozenset[str]:
    """The codes of the rules in preview (from the rule table, read without LibCST)."""
    from devlint.rules import all_rules

    return frozenset(entry.rule.code for entry in all_rules() if entry.rule.preview)


def _relative(path: str, root: str) -> str:
    try:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    except ValueError:  # another drive on Windows
        return path
    return rel.replace(os.sep, "/")


def _glob_match(rel: str, pattern: str) -> bool:
    pattern = pattern.replace(os.sep, "/")
    if pattern.startswith("./"):
        pattern = pattern[2:]
    return fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern.rstrip("/") + "/*")


DEFAULT_SETTINGS = Settings()
