"""The shape of every rule's specification case: a snippet and the reports expected on it."""

from __future__ import annotations

from typing import Callable

import pytest

from conftest import lint


def cases_for(code: str) -> Callable[[str, str, list[tuple[int, int]]], object]:
    """`case(name, snippet, [(line, col), ...])` for rule `code`; the snippet's first line is line 1."""

    def case(name: str, snippet: str, expected: list[tuple[int, int]]):
        return pytest.param(snippet.removeprefix("\n"), [(line, col, code) for line, col in expected], id=name)

    return case


def reports(code: str, snippet: str) -> list[tuple[int, int, str]]:
    """(line, col, code) of the reports of rule `code` on the snippet."""
    return [report for report in lint(snippet) if report[2] == code]


def counted_calls(monkeypatch: pytest.MonkeyPatch, owner: type, method: str) -> Callable[[], int]:
    """Count the calls of `owner.method` for the rest of the test: how much a resolver reads, which must stay
    bounded however a value is defined (a count, never a time). Returns the count so far."""
    calls = 0
    original = getattr(owner, method)

    def counted(self: object, *args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(owner, method, counted)
    return lambda: calls
