"""Line/column <-> offset conversions for one text (the engine's reports and fixes)."""

from __future__ import annotations

import bisect


class Lines:
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
