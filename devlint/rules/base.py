"""What a rule's visitor is: the LibCST side of a rule (its metadata is devlint/rules/rule.py)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import ClassVar, Optional

import libcst as cst

from devlint.analysis.context import FileContext
from devlint.contract.diagnostics import Applicability
from devlint.rules.rule import Rule


@dataclass
class Fix:
    """A rewrite of the tree: each original node (by identity) replaced by a new node."""

    applicability: Applicability
    description: str
    replacements: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    # `import torch` is added when the rewrite names torch and the file has no module alias.
    needs_torch_import: bool = False


@dataclass
class RawReport:
    """A rule's report before positions are known."""

    rule: Rule
    node: cst.CSTNode
    message: str
    fix: Optional[Fix] = None
    # Where it came in the traversal, among every rule's reports: the reports of one file are read in this order.
    order: int = 0


_ORDER = itertools.count()


class RuleVisitor(cst.BatchableCSTVisitor):
    """Base of every rule's visitor. Subclasses set `rule` and implement `visit_*` methods;
    decisions that need the whole file go in `finish()`."""

    rule: ClassVar[Rule]
    # Does the rule apply to files that never import torch? (DESIGN: only DEV003 and DEV004.)
    needs_torch_import: ClassVar[bool] = True

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.reports: list[RawReport] = []  # a rule that fails loses only these (devlint/engine/cst_stage.py)

    @property
    def torch(self):  # type: ignore[no-untyped-def]
        return self.ctx.torch

    @property
    def preview(self) -> bool:
        """Is preview on? A shape of a rule not yet measured to the default bar reports only then:
        `if not self.preview: return` before reporting it."""
        return self.ctx.preview

    def report(self, node: cst.CSTNode, message: str, fix: Optional[Fix] = None) -> None:
        self.reports.append(RawReport(self.rule, node, message, fix, next(_ORDER)))

    def finish(self) -> None:
        """Called once after the traversal, for decisions that need the whole file."""
