"""Helpers for the before/after fix tests: every fix is checked for idempotency. Fixes are those of
every rule, the rules in preview included (DEV011 fixes DEV002's host-data shapes)."""

from __future__ import annotations

import textwrap

from devlint import fix_source
from devlint.engine.settings import Settings

PREVIEW = Settings(preview=True)


def fixed(code: str, *, unsafe: bool = False, dedent: bool = True) -> str:
    """The fixed text of `code`; asserts that fixing the result again changes nothing."""
    source = textwrap.dedent(code) if dedent else code
    result = fix_source(source, "example.py", PREVIEW, unsafe=unsafe).source
    assert fix_source(result, "example.py", PREVIEW, unsafe=unsafe).source == result, "a second fix run changed the text"
    return result


def check(before: str, after: str, *, unsafe: bool = False) -> None:
    """`before` fixes to exactly `after` (both dedented)."""
    assert fixed(before, unsafe=unsafe) == textwrap.dedent(after)


def unchanged(code: str, *, unsafe: bool = True) -> None:
    assert fixed(code, unsafe=unsafe) == textwrap.dedent(code)
