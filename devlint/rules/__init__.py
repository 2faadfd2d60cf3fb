"""Every module in this package that defines `RULE` and a `RuleVisitor` subclass is a rule.

No list to keep in sync: adding a rule is adding a module.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass

from devlint.rules.base import Rule, RuleVisitor


@dataclass(frozen=True)
class RuleEntry:
    rule: Rule
    visitor: type[RuleVisitor]


@functools.lru_cache(maxsize=None)
def all_rules() -> tuple[RuleEntry, ...]:
    entries = []
    for info in pkgutil.iter_modules(__path__):
        if info.name == "base" or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        rule = getattr(module, "RULE", None)
        if not isinstance(rule, Rule):
            continue
        visitors = [
            obj
            for obj in vars(module).values()
            if isinstance(obj, type) and issubclass(obj, RuleVisitor) and getattr(obj, "rule", None) is rule
        ]
        if len(visitors) != 1:
            raise RuntimeError(f"rule module {module.__name__} must define exactly one visitor for {rule.code}")
        entries.append(RuleEntry(rule, visitors[0]))
    return tuple(sorted(entries, key=lambda e: e.rule.code))


def rule_codes() -> tuple[str, ...]:
    return tuple(entry.rule.code for entry in all_rules())


def get_rule(code: str) -> Rule | None:
    for entry in all_rules():
        if entry.rule.code == code.upper():
            return entry.rule
    return None
