"""What the formats say about a code besides the report itself: its rule's name and page."""

from __future__ import annotations

from typing import Optional

from devlint.contract.diagnostics import Diagnostic
from devlint.engine.codes import ENGINE_CODE_NAMES
from devlint.rules import get_rule


def rule_name(code: str) -> str:
    rule = get_rule(code)
    return rule.name if rule is not None else ENGINE_CODE_NAMES.get(code, code)


def rule_url(code: str) -> Optional[str]:
    """The rule's page; None for DEV998 and DEV999 (their pages are `devlint rule CODE` and docs/rules/)."""
    rule = get_rule(code)
    return rule.url if rule is not None else None


def file_message(d: Diagnostic) -> str:
    """The message for formats that point into the file itself: in a notebook a cell's line is no
    line of the `.ipynb` file, so the message says the cell and the line within it."""
    return d.message if d.cell is None else f"cell {d.cell}, line {d.line}: {d.message}"


def file_line(d: Diagnostic) -> Optional[int]:
    """The line of the file itself: in a notebook, the JSON line holding the reported source line."""
    return d.line if d.cell is None else d.notebook_line
