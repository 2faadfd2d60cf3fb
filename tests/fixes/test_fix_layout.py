"""Every fixture's fix survives a change of layout: CRLF line endings, tab indentation."""

from __future__ import annotations

import re

import pytest

from conftest import RULE_DIRS
from fixing import fixed


def _tabs(text: str) -> str:
    return re.sub(r"^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), text, flags=re.MULTILINE)


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_crlf_fixture_fixes_to_crlf_fixed(rule_dir):
    bad = (rule_dir / "bad.py").read_text().replace("\n", "\r\n")
    expected = (rule_dir / "fixed.py").read_text().replace("\n", "\r\n")
    assert fixed(bad, unsafe=True, dedent=False) == expected


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_tab_indented_fixture_fixes_to_tab_indented_fixed(rule_dir):
    bad = _tabs((rule_dir / "bad.py").read_text())
    expected = _tabs((rule_dir / "fixed.py").read_text())
    assert fixed(bad, unsafe=True, dedent=False) == expected
