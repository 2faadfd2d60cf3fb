"""Which of the enabled rules a file needs, decided before LibCST is imported: the text prefilter (each rule's
`tokens`, devlint/analysis/prefilter.py says why they are conservative), then the syntax screen (each rule's
`screen` over the facts of Python's `ast`, devlint/analysis/screen.py). A file with no rule left is never parsed
by LibCST.

Selection lives here, not in `analysis/`: it is asked in terms of rules, and analysis is what rules are made of."""

from __future__ import annotations

import ast
from typing import Optional, Sequence

from devlint.analysis import screen as syntax
from devlint.analysis.prefilter import Token, token_found, without_continuations
from devlint.engine.settings import Settings
from devlint.rules import RuleEntry, all_rules


def enabled_rules(settings: Settings, path: Optional[str]) -> list[RuleEntry]:
    return [entry for entry in all_rules() if settings.enabled(entry.rule.code, path)]


def prefilter(source: str, rules: Sequence[RuleEntry]) -> list[RuleEntry]:
    """The rules that could report on `source`: those whose every token is in the text."""
    texts = (source, without_continuations(source)) if "\\" in source else (source,)
    found: dict[Token, bool] = {}  # rules share tokens (`torch`, the device strings): search each once

    def has(token: Token) -> bool:
        if token not in found:
            found[token] = token_found(token, texts)
        return found[token]

    return [entry for entry in rules if all(has(token) for token in entry.rule.tokens)]


def screen(source: str, rules: Sequence[RuleEntry], tree: Optional[ast.AST] = None, *,
           preview: bool = True) -> list[RuleEntry]:
    """The rules of `rules` that have a candidate in `source` (`tree`: its `ast`, if parsed already), with the
    preview shapes (`preview=False`: only the shapes rules report by default)."""
    return screen_with_facts(source, rules, tree, preview=preview)[0]


def screen_with_facts(source: str, rules: Sequence[RuleEntry], tree: Optional[ast.AST] = None, *,
                      preview: bool = True) -> tuple[list[RuleEntry], Optional[syntax.SyntaxFacts]]:
    """`screen`, and the facts it read (None when `ast` could not parse the text, or no rule asked)."""
    if not any(entry.rule.screen is not None for entry in rules):
        return list(rules), None
    if not isinstance(tree, ast.Module):
        tree = syntax.parse(source)
        if tree is None:
            return list(rules), None
    facts = syntax.SyntaxFacts(tree, preview, source)
    return [entry for entry in rules if entry.rule.screen is None or entry.rule.screen(facts)], facts
