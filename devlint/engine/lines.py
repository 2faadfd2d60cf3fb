"""Line/column <-> offset conversions for one text (the engine's reports and fixes)."""

from __future__ import annotations

import bisect
import itertools
from typing import Sequence


class Lines:
    """Line/column <-> offset conversions for one text."""

    def __init__(self, source: str) -> None:
        self.source = source
        # Python's lines end at "\n" only; str.splitlines() also splits at "\f", "\x1c" and others,
        # which put `# noqa` checks and report statements on the wrong line.
        split = source.split("\n")
        self.starts = [0, *itertools.accumulate(len(line) + 1 for line in split[:-1])]
        self.lines = [line.rstrip("\r") for line in split]

    def offset(self, line: int, column: int) -> int:
        """1-based line, 0-based column -> offset."""
        return self.starts[min(line, len(self.starts)) - 1] + column

    def line_text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def position(self, offset: int) -> tuple[int, int]:
        """offset -> 1-based line, 1-based column."""
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1


def common_ends(old: Sequence[str], new: Sequence[str]) -> tuple[int, int]:
    """How many lines two versions of a text share at the start, and at the end (each counted on
    its own, so the two may overlap where the versions repeat lines: callers bound them)."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return prefix, suffix
