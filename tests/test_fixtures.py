"""The fixtures are the shared specification: linted, fixed and (in the runtime tests) executed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import RULE_DIRS, ROOT, expected_fix
from devlint import fix_source, lint_source
from devlint.engine.settings import Settings

# Every rule's fixtures, the rules in preview included
PREVIEW = Settings(preview=True)


def _code(rule_dir) -> str:
    return rule_dir.name.split("-", 1)[0]


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_bad_is_reported_with_several_variants(rule_dir):
    """At least three places of the bug: reports, or the fixes `--fix` applies (DEV009 reports one cause once, at
    its first placement, and `--fix` indexes each placement in turn)."""
    text = (rule_dir / "bad.py").read_text()
    reports = [d for d in lint_source(text, "bad.py", PREVIEW) if d.code == _code(rule_dir)]
    fixed = fix_source(text, str(rule_dir / "bad.py"), PREVIEW, unsafe=True).fixed.get(_code(rule_dir), 0)
    assert max(len(reports), fixed) >= 3


@pytest.mark.parametrize("name", ["good.py", "fixed.py"])
@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_good_and_fixed_are_clean(rule_dir, name):
    assert lint_source((rule_dir / name).read_text(), name, PREVIEW) == []


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_fix_of_bad_is_exactly_the_expected_fix(rule_dir):
    # the fixture's own path: the line limit is read from the configuration above it, as the CLI does
    result = fix_source((rule_dir / "bad.py").read_text(), str(rule_dir / "bad.py"), PREVIEW, unsafe=True)
    assert result.source == expected_fix(rule_dir, preview=True)
    fixed_by_hand = result.source == (rule_dir / "bad.py").read_text()
    # a rule without a fix leaves its reports; fixed.py is then the correction written by hand
    assert {d.code for d in result.remaining} == ({_code(rule_dir)} if fixed_by_hand else set())


@pytest.mark.parametrize("name", ["good.py", "fixed.py"])
@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_fix_changes_nothing_on_clean_files(rule_dir, name):
    text = (rule_dir / name).read_text()
    assert fix_source(text, name, PREVIEW, unsafe=True).source == text


def test_every_rule_has_a_fixture_directory():
    from devlint.rules import all_rules

    assert sorted(_code(d) for d in RULE_DIRS) == [e.rule.code for e in all_rules()]
    for entry in all_rules():
        assert (ROOT / "fixtures" / f"{entry.rule.code}-{entry.rule.name}").is_dir()


def test_flake8_and_devlint_agree_on_every_fixture():
    files = sorted(str(p) for d in RULE_DIRS for p in d.glob("*.py"))
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--devlint-preview", "--select", "DEV", "--format", "%(path)s:%(row)d:%(col)d: %(code)s",
         *files], capture_output=True, text=True, cwd=ROOT,
    )
    assert flake8.returncode in (0, 1), flake8.stderr
    flake8_reports = sorted(flake8.stdout.splitlines())
    ours = sorted(
        f"{path}:{d.line}:{d.col}: {d.code}"
        for path in files
        for d in lint_source(open(path).read(), path, PREVIEW)
    )
    assert ours and flake8_reports == ours
