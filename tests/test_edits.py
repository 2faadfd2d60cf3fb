"""devlint.analysis.edits.code_of writes a node's code exactly as LibCST's code generation does: on every name and
dotted name of the fixtures (thousands), and on the shapes it must leave to LibCST."""

from __future__ import annotations

import libcst as cst
import pytest

from devlint.analysis.edits import _dotted_code, code_of

from conftest import RULE_DIRS


def _every_node_written_alike(module: cst.Module) -> int:
    """Checks every node of `module`; the number read off the nodes (a name or dotted name), not generated."""
    read_off = 0
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if type(node) in (cst.Name, cst.Attribute):
            assert code_of(node) == cst.Module([]).code_for_node(node)
            read_off += _dotted_code(node) is not None
        stack.extend(node.children)
    return read_off


@pytest.mark.parametrize("code, read_off", [
    ("x: Tensor", True),
    ("x: torch.Tensor", True),
    ("x: torch.cuda.FloatTensor", True),
    ("x: (Tensor)", False),
    ("x: torch . Tensor", False),
    ("x: torch.\\\n    Tensor", False),
    ("x: (torch).Tensor", False),
    ("x: torch.(Tensor)", None),
    ("x: f().Tensor", False),
])
def test_names_and_dotted_names_are_read_off_the_nodes_and_nothing_else(code, read_off):
    try:
        annotation = cst.parse_statement(code + "\n").body[0].annotation.annotation
    except cst.ParserSyntaxError:
        assert read_off is None
        return
    assert code_of(annotation) == cst.Module([]).code_for_node(annotation)
    assert (_dotted_code(annotation) is not None) == read_off


@pytest.mark.parametrize("directory", RULE_DIRS, ids=lambda d: d.name)
def test_every_name_of_the_fixtures(directory):
    read_off = sum(_every_node_written_alike(cst.parse_module(path.read_text(encoding="utf-8")))
                   for path in sorted(directory.rglob("*.py")))
    assert read_off > 0
