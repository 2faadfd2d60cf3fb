"""Each rule's screen (its side over Python's `ast`, in its package beside its visitor) says yes wherever its
visitor reports: run without the screen's decision, on the rule fixtures, the snippets of real code and generated
programs, a rule that reports on a text had its screen say yes for that text, with preview on and off.

tests/test_prefilter.py holds both stages together to the same reports; this names the rule whose screen is
wrong. `benchmarks/prefilter_check.py` asks the same of a corpus of real code."""

from __future__ import annotations

import ast
import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import RULE_DIRS
from devlint.analysis.screen import SyntaxFacts
from devlint.engine import engine, selection
from devlint.engine.settings import Settings
from devlint.rules import all_rules
from generated_programs import PROGRAMS
from test_prefilter import SNIPPETS

SCREENED = {entry.rule.code: entry for entry in all_rules() if entry.rule.screen is not None}
HEADER = "import torch\nimport torch as th\nfrom torch import nn\n"
TEXTS = [path.read_text() for directory in RULE_DIRS for path in sorted(directory.glob("*.py"))] + [
    HEADER + snippet + "\n" for snippet in SNIPPETS]


def _facts_only(text, rules, tree=None, **options):
    """The screen's facts, for the visitors that read them, without its decision: every rule is kept."""
    return list(rules), selection.screen_with_facts(text, rules, tree, **options)[1]


@functools.lru_cache(maxsize=None)
def _reported_unscreened(source: str, preview: bool) -> frozenset[str]:
    """The codes every rule reports on `source` (each named, so preview rules run too) with no rule screened out."""
    every = Settings(select=("DEV",), extend_select=tuple(SCREENED), preview=preview)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "prefilter", lambda text, rules: list(rules))
        patch.setattr(engine, "screen_with_facts", _facts_only)
        return frozenset(d.code for d in engine.analyze(source, "snippet.py", every).diagnostics)


def _screen_says_yes(code: str, source: str, preview: bool) -> bool:
    return bool(SCREENED[code].rule.screen(SyntaxFacts(ast.parse(source), preview, source)))  # type: ignore[misc]


def _assert_screened_where_reported(code: str, source: str) -> None:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return  # nothing is screened where `ast` cannot parse the text
    for preview in (False, True):
        if code in _reported_unscreened(source, preview):
            assert _screen_says_yes(code, source, preview), f"{code} reports (preview={preview}), its screen says no:\n{source}"


@pytest.mark.parametrize("code", sorted(SCREENED))
def test_a_rule_reports_only_where_its_screen_said_yes(code):
    reported = 0
    for source in TEXTS:
        _assert_screened_where_reported(code, source)
        reported += code in _reported_unscreened(source, True)
    assert reported, f"no text here makes {code} report: the property would hold of any screen"


@pytest.mark.parametrize("code", sorted(SCREENED))
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_on_generated_programs_with_real_code_spliced_in_too(code, data):
    program = data.draw(PROGRAMS)
    snippets = data.draw(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=4))
    _assert_screened_where_reported(code, HEADER + "\n".join(snippets) + "\n" + program)
