"""devlint/engine/parsing.py: LibCST's parse without per-node validation gives LibCST's tree, and every
node built elsewhere is still validated."""

from __future__ import annotations

import pathlib
import threading

import libcst as cst
import pytest

from devlint.engine import parsing
from devlint.engine.parsing import parse_module

ROOT = pathlib.Path(__file__).resolve().parent.parent
TEXTS = sorted((ROOT / "fixtures").rglob("*.py")) + sorted((ROOT / "devlint" / "engine").glob("*.py"))


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_tree_is_libcsts(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    tree = parse_module(text)
    assert tree.deep_equals(cst.parse_module(text))
    assert tree.code == text


def test_a_syntax_error_is_libcsts() -> None:
    with pytest.raises(cst.ParserSyntaxError) as ours:
        parse_module("def f(:\n    pass\n")
    with pytest.raises(cst.ParserSyntaxError) as libcsts:
        cst.parse_module("def f(:\n    pass\n")
    assert str(ours.value) == str(libcsts.value)


def _invalid_node() -> cst.CSTNode:
    # a name with parentheses on one side only: LibCST's validation refuses it
    return cst.Name("x", lpar=[cst.LeftParen()])


def test_nodes_built_outside_a_parse_are_validated() -> None:
    parse_module("x = (1)\n")
    with pytest.raises(cst.CSTValidationError):
        _invalid_node()


def test_the_parse_calls_libcsts_native_parser_as_libcst_does() -> None:
    if parsing._parse is cst.parse_module:
        pytest.skip("this LibCST has no native parser, or is told to use its pure-Python one")
    assert parsing._parse("x = 1\r\n").deep_equals(cst.parse_module("x = 1\r\n"))
    assert parsing._parse("x = 1\r\n").encoding == cst.parse_module("x = 1\r\n").encoding


def test_nodes_another_thread_builds_during_a_parse_are_validated() -> None:
    errors: list[BaseException] = []
    started, done = threading.Event(), threading.Event()

    def build() -> None:
        started.wait()
        try:
            _invalid_node()
        except cst.CSTValidationError as error:
            errors.append(error)
        done.set()

    def parse_slowly(text: str) -> cst.Module:  # the other thread builds its node while this parse runs
        started.set()
        done.wait(5)
        return original(text)

    original = parsing._parse
    thread = threading.Thread(target=build)
    thread.start()
    parsing._parse = parse_slowly  # type: ignore[assignment]  (LibCST's parser, as `parse_module` calls it)
    try:
        parse_module("x = 1\n")
    finally:
        parsing._parse = original  # type: ignore[assignment]
        started.set()  # (never left waiting, whatever happened)
        thread.join()
    assert len(errors) == 1
