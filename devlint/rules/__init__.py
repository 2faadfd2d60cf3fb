"""Every package in this folder whose `__init__` defines `RULE` is a rule; its `visitor` module holds
the one `RuleVisitor` subclass for it.

No list to keep in sync: adding a rule is adding a package. The table is read without LibCST
(`RULE`, its page, tokens and screen are in the package's `__init__`): the CLI, config validation
and the cache key need it, and a file that the prefilter or the screen drops never needs more. A
rule's visitor, and LibCST with it, is imported the first time a file reaches it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from devlint.rules.rule import Rule

if TYPE_CHECKING:  # pragma: no cover
    from devlint.rules.base import RuleVisitor


@dataclass(frozen=True)
class RuleEntry:
    rule: Rule
    visitor_module: str  # the module that holds the rule's visitor: `devlint.rules.<package>.visitor`

    @functools.cached_property
    def visitor(self) -> type[RuleVisitor]:
        """The rule's visitor class (importing it imports LibCST)."""
        return _visitor_in(importlib.import_module(self.visitor_module), self.rule)


def _visitor_in(module: ModuleType, rule: Rule) -> type[RuleVisitor]:
    """The one visitor class of `module` for `rule`."""
    from devlint.rules.base import RuleVisitor

    visitors = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type) and issubclass(obj, RuleVisitor) and getattr(obj, "rule", None) is rule
    ]
    if len(visitors) != 1:
        raise RuntimeError(f"rule module {module.__name__} must define exactly one visitor for {rule.code}")
    return visitors[0]


@functools.lru_cache(maxsize=None)
def all_rules() -> tuple[RuleEntry, ...]:
    entries = []
    for info in pkgutil.iter_modules(__path__):
        if not info.ispkg or info.name.startswith("_"):
            continue  # base, rule, _discarded, _factory_moves: what the rules are made of
        package = importlib.import_module(f"{__name__}.{info.name}")
        rule = getattr(package, "RULE", None)
        if isinstance(rule, Rule):
            entries.append(RuleEntry(rule, f"{package.__name__}.visitor"))
    return tuple(sorted(entries, key=lambda e: e.rule.code))


def rule_codes() -> tuple[str, ...]:
    return tuple(entry.rule.code for entry in all_rules())


def get_rule(code: str) -> Rule | None:
    for entry in all_rules():
        if entry.rule.code == code.upper():
            return entry.rule
    return None
