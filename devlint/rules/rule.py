"""What a rule is: its metadata, one source for `devlint rule`, the README table, SARIF, the text
prefilter and the syntax screen. No LibCST here: the CLI, config validation and the cache key
read the rule table without LibCST's import; a rule's visitor (devlint/rules/base.py) is imported
when a file first reaches LibCST."""

from __future__ import annotations

import enum
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Optional

if TYPE_CHECKING:  # pragma: no cover
    import ast

    from devlint.analysis.screen import SyntaxFacts


def any_candidate(candidates: Callable[["SyntaxFacts"], Iterable["ast.AST"]]) -> Callable[["SyntaxFacts"], bool]:
    """The screen of a rule that lists its candidates: one is enough (the list stops at the first)."""
    def screen(facts: "SyntaxFacts") -> bool:
        return next(facts.candidates_of(candidates), None) is not None

    return screen


class FixSafety(str, enum.Enum):
    """What a rule's fix can be, as its page states it."""

    NONE = "none"  # no automatic fix
    SAFE = "safe"  # always safe
    UNSAFE = "unsafe"  # always unsafe (applied only with --unsafe-fixes)
    SOMETIMES = "sometimes"  # safe in the cases the page names, unsafe otherwise


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str  # one line: what is wrong
    why: str  # Why is this bad? -- two or three concrete sentences, and what shows it (the evidence)
    example: str  # flagged code
    instead: str  # what to write
    fix_safety: FixSafety
    fix: str  # what the fix does and why it has the safety it has
    # A report needs *every* entry of `tokens` (a string, or a pattern searched for) in the
    # text; files without them are not parsed. Must be conservative: see devlint/analysis/prefilter.py.
    tokens: tuple["str | re.Pattern[str]", ...] = ("torch",)
    # Could the rule report on a module with these facts (from Python's `ast`)? Files for which
    # no rule can are not parsed by LibCST. Must be conservative too: see devlint/analysis/screen.py.
    screen: Optional[Callable[["SyntaxFacts"], bool]] = None
    # Every node (of the screen's `ast`) the rule may report at, a superset; None: the rule reads the whole
    # file. A rule that lists them reads only their top-level statements, the module's other statements that
    # are not definitions, and the headers of the definitions a name leads to: LibCST may leave the rest out
    # (devlint/analysis/needed.py says what else it keeps). Its screen is `any_candidate(candidates)`, or one of
    # fewer nodes (DEV002's and DEV011's list both rules' kinds: each reads the type oracle at the other's).
    candidates: Optional[Callable[["SyntaxFacts"], Iterable["ast.AST"]]] = None
    # A rule in preview is off unless `preview` is on (`--preview`, `preview = true`; then it is
    # selected as any other rule) or its code is selected by name (`--select DEV004`). Rules whose
    # blind FALSE share on unseen code is above the default bar ship so (DESIGN.md section 6).
    preview: bool = False
    # The shapes the rule reports only with preview on (its visitor asks `self.preview` before
    # reporting them), said for its page; "" when it has none.
    preview_shapes: str = ""
    # What counts and what does not, case by case: on the page below the example, folded
    details: str = ""

    @property
    def url(self) -> str:
        """The rule's page online (docs/rules/CODE.md, generated from `page()`)."""
        from devlint.contract.project import DOCS_URL

        return f"{DOCS_URL}/{self.code}.md"

    def page(self) -> str:
        """The rule's documentation page, with ruff's headings (and its measured precision)."""
        from devlint.rules.measured import measured_text

        safety = {
            FixSafety.NONE: "No automatic fix.",
            FixSafety.SAFE: "Fix is safe.",
            FixSafety.UNSAFE: "Fix is unsafe (applied with `--unsafe-fixes`).",
            FixSafety.SOMETIMES: "Fix is safe in some cases and unsafe in others (see below).",
        }[self.fix_safety]
        tier = (f"This rule is in **preview** (off by default): it runs with `--preview` (or `preview = true`"
                f" in the configuration) where it is selected (`DEV`, `ALL`), or when it is selected by its"
                f" code (`--select {self.code}`, `extend-select = [\"{self.code}\"]`). Its measured precision"
                f" is below.\n\n" if self.preview else "")
        return (
            f"# {self.code} ({self.name})\n\n"
            f"{tier}"
            f"## What it does\n\n{_para(self.summary)}\n\n"
            f"## Why is this bad?\n\n{_para(self.why)}\n\n"
            f"## Example\n\n```python\n{textwrap.dedent(self.example).strip()}\n```\n\n"
            f"## Use instead\n\n```python\n{textwrap.dedent(self.instead).strip()}\n```\n\n"
            + (f"<details><summary>What counts, case by case</summary>\n\n{_para(self.details)}\n\n</details>\n\n"
               if self.details else "")
            + f"## Fix safety\n\n{safety} {_para(self.fix)}\n"
            + (f"\n## In preview\n\nWith `--preview` the rule also reports: {_para(self.preview_shapes)}\n"
               if self.preview_shapes else "")
            + (f"\n## Measured precision\n\n{measured}" if (measured := measured_text(self.code)) else "")
        )


def _para(text: str) -> str:
    return " ".join(textwrap.dedent(text).split())
