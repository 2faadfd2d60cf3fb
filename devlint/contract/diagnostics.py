"""The records every part of devlint passes around: reports and fixes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional

from devlint.contract.display import display_path


class Applicability(str, enum.Enum):
    """How sure a fix is to keep working code working (the ruff vocabulary)."""

    SAFE = "safe"  # cannot change what correct code does
    UNSAFE = "unsafe"  # may change behaviour (e.g. which device data lands on)


@dataclass(frozen=True)
class Edit:
    """Replace source[start:end] (character offsets into the file's text) with `content`."""

    start: int
    end: int
    content: str
    # 1-based line / 1-based column of start and end, for output formats.
    start_line: int = 0
    start_col: int = 0
    end_line: int = 0
    end_col: int = 0


@dataclass(frozen=True)
class FixInfo:
    """What a report says about its fix: how safe it is, what it does, and the edits."""

    applicability: Applicability
    description: str
    edits: tuple[Edit, ...] = ()


@dataclass(frozen=True)
class Diagnostic:
    """One report: a rule's code at a position of a file.

    `line` and `col` are 1-based, as flake8 prints them; `end_line`/`end_col`
    close the reported node (end_col is exclusive, 1-based).
    """

    path: str
    line: int
    col: int
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional[FixInfo] = None
    # The text of the reported statement (stripped), used to match baselines.
    statement: str = ""
    # For notebooks: the cell's 1-based position in the notebook, counting every cell (markdown too),
    # as a reader counts them; `line`/`col`/`end_line`/`end_col` are then within that cell's source.
    cell: Optional[int] = None
    # For notebooks: the 1-based line of the .ipynb (JSON) file that holds the reported source line,
    # for formats that must point into the file itself (SARIF regions, GitHub annotations).
    notebook_line: Optional[int] = None

    @property
    def sort_key(self) -> tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.col, self.code)

    @property
    def location(self) -> str:
        """`path:line:col`, or `path:cell N:line:col` in a notebook; the path as `display_path` shows it."""
        path = display_path(self.path)
        if self.cell is not None:
            return f"{path}:cell {self.cell}:{self.line}:{self.col}"
        return f"{path}:{self.line}:{self.col}"

    @property
    def fixable(self) -> bool:
        return self.fix is not None


@dataclass
class FixResult:
    """The outcome of fixing one module's text."""

    source: str  # the fixed text (identical to the input when nothing applied)
    fixed: dict[str, int] = field(default_factory=dict)  # code -> number of fixes applied
    remaining: list[Diagnostic] = field(default_factory=list)  # reports left after fixing
    unparsable: list[str] = field(default_factory=list)  # codes of fixes dropped: their result did not parse
    # False when fixing stopped before nothing changed any more (MAX_FIX_PASSES, or fixes that
    # undo each other): the text is the last pass's, and the runner warns.
    converged: bool = True

    @property
    def fixed_count(self) -> int:
        return sum(self.fixed.values())
