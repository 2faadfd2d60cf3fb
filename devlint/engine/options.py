"""How the engine's LibCST stage checks one file (devlint/engine/cst_stage.py): the options a caller chose, the
same for every pass over the file, and what the engine read of the text before LibCST, handed over so that
nothing is read twice."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from devlint.engine.faults import RuleFault
from devlint.engine.noqa import Suppressions
from devlint.engine.settings import Settings

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from devlint.analysis.screen import SyntaxFacts
    from devlint.engine.reparse import Reparser


@dataclass(frozen=True)
class CheckOptions:
    settings: Settings
    with_fixes: bool = False  # compute each fix's text edits (output formats, an editor's code actions)
    ignore_noqa: bool = False  # keep suppressed reports (flake8 applies `# noqa` itself)
    reparser: Optional[Reparser] = None  # the parser of a document's earlier versions (an editor's)
    fault: Optional[RuleFault] = None  # a rule broken on purpose (tests/test_isolation.py only)


@dataclass(frozen=True)
class FileInputs:
    """What is known of one file's text when it reaches LibCST."""

    source: str
    suppressions: Suppressions
    syntax: Optional[SyntaxFacts] = None  # what the screen read from the text's `ast`
    text: Optional[str] = None  # the source with data stand-ins (devlint/engine/stand_ins.py: same lines, columns)
    module: Optional[cst.Module] = None  # LibCST's tree of the text, where the caller parsed it (a fix's pass)
