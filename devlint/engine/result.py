"""What one lint pass learned about one module's text: the engine's result, filled by its LibCST stage
(devlint/engine/cst_stage.py) where a file gets that far."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from devlint.contract.diagnostics import Diagnostic

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from devlint.rules.base import Fix


@dataclass
class Analysis:
    """Everything one lint pass learned about one module's text."""

    source: str
    module: Optional[cst.Module] = None
    # The text `module` was parsed from: `source`, or `source` with data stand-ins (the same lines and
    # columns outside them, devlint/engine/stand_ins.py); fixes are computed on it and mapped back.
    text: Optional[str] = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    fixes: list[tuple[Diagnostic, Fix, tuple[int, int]]] = field(default_factory=list)  # with char ranges
    skipped: bool = False  # no enabled rule could report here (prefilter, screen): never parsed by LibCST
    # What the rules asked the project index and its answers (devlint/analysis/project_index.py):
    # the reports hold only while the index answers the same (the result cache checks it).
    index_reads: dict[str, object] = field(default_factory=dict)
    # Where the code of each top-level statement of `module` starts (when a report has a fix): a fix's edit is
    # computed on its statement (devlint/engine/fix_edits.py: Statements).
    statement_starts: Optional[list[int]] = None
    narrowed: bool = False  # `module` holds only the statements the rules need (devlint/analysis/needed.py)
    # a fix on a narrowed tree that only the whole tree can lay out (it adds an import, or no statement kept whole
    # holds it): the caller checks the file again whole
    needs_whole: bool = False
