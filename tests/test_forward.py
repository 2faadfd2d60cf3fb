"""The forward readers' skeleton (devlint/analysis/forward.py): statements are read in the order they run, each kind
handed to its method; a one-line suite is read as the block it is; an `elif` is read as the `else` of its `if`; a
method that answers True stops the reading; a loop's body is read twice, once deep in a nest."""

from __future__ import annotations

import textwrap

import libcst as cst

from devlint.analysis.forward import ForwardReader, last_small_statement, loop_head
from devlint.analysis.terminating import LOOP_NESTING_WALKED_TWICE


class Recorder(ForwardReader[list[str]]):
    """Writes down each simple statement it reads; stops at `stop()`; reads both branches of an `if`."""

    def small(self, node: cst.BaseSmallStatement, seen: list[str]) -> bool:
        seen.append(cst.Module([]).code_for_node(node).rstrip("; "))
        return seen[-1] == "stop()"

    def if_statement(self, node: cst.If, seen: list[str]) -> bool:
        return self.suite(node.body, seen) or self.orelse(node, seen)

    def loop(self, node: cst.For | cst.While, seen: list[str]) -> bool:
        with self.inside_loop() as rounds:
            return any(self.suite(node.body, seen) for _ in rounds)

    def with_statement(self, node: cst.With, seen: list[str]) -> bool:
        return self.suite(node.body, seen)


def read(source: str) -> list[str]:
    seen: list[str] = []
    Recorder().block(cst.parse_module(textwrap.dedent(source)).body, seen)
    return seen


def test_statements_are_read_in_order_one_line_suites_and_elif_chains_included() -> None:
    assert read("""
        a = 1
        if a: b = 2
        elif c: d = 3; e = 4
        else:
            f = 5
        with g: h = 6
    """) == ["a = 1", "b = 2", "d = 3", "e = 4", "f = 5", "h = 6"]


def test_an_answer_of_true_stops_the_reading_inside_any_nesting() -> None:
    assert read("""
        a = 1
        with g:
            if a:
                stop()
                b = 2
        c = 3
    """) == ["a = 1", "stop()"]


def test_definitions_and_kinds_a_reader_says_nothing_of_are_passed_over() -> None:
    assert read("""
        def f():
            a = 1
        class C:
            b = 2
        try:
            c = 3
        except E:
            d = 4
        e = 5
    """) == ["e = 5"]


def test_a_loop_body_is_read_twice_and_once_past_the_nesting_walked_twice() -> None:
    assert read("for x in xs: a = 1") == ["a = 1", "a = 1"]
    nest = "".join("    " * depth + f"for x{depth} in xs:\n" for depth in range(LOOP_NESTING_WALKED_TWICE + 1))
    body = "    " * (LOOP_NESTING_WALKED_TWICE + 1) + "a = 1\n"
    assert len(read(nest + body)) == 2 ** LOOP_NESTING_WALKED_TWICE  # the innermost loop: read once per round


def test_the_loop_depth_is_restored_when_a_loop_stops_the_reading() -> None:
    reader, seen = Recorder(), []
    reader.block(cst.parse_module("while t:\n    stop()\n").body, seen)
    assert (seen, reader.loop_depth) == (["stop()"], 0)


def test_the_last_simple_statement_of_a_suite_and_the_head_of_a_loop() -> None:
    function = cst.parse_module("def f():\n    a = 1\n    return a\n").body[0]
    assert isinstance(last_small_statement(function.body), cst.Return)  # type: ignore[attr-defined]
    one_line = cst.parse_module("if a: b = 1; raise E\n").body[0]
    assert isinstance(last_small_statement(one_line.body), cst.Raise)  # type: ignore[attr-defined]
    nested = cst.parse_module("if a:\n    if b:\n        return\n").body[0]
    assert last_small_statement(nested.body) is None  # type: ignore[attr-defined]
    loop = cst.parse_module("while x > 0:\n    pass\n").body[0]
    assert cst.Module([]).code_for_node(loop_head(loop)) == "x > 0"  # type: ignore[arg-type]
