"""Positions of reported nodes: LibCST's PositionProvider, run only as far as the last wanted node.

The engine stops LibCST's position-recording codegen once every node it needs is placed
(devlint/engine/positions.py `node_positions`). These tests compare what it gives with the PositionProvider
run in full through a MetadataWrapper, for wanted nodes taken from the start, the middle and
the end of the fixtures and of the prefilter's snippet programs.
"""

from __future__ import annotations

import ast

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from devlint.engine.positions import node_positions, positions_by_statement
from devlint.engine.lines import Lines
from devlint.engine.placing import Placing
from devlint.analysis.walk import children

from conftest import RULE_DIRS
from test_prefilter import SNIPPETS

SOURCES = [path.read_text() for directory in RULE_DIRS for path in sorted(directory.glob("*.py"))]
SOURCES += ["\n".join(SNIPPETS[i::7]) + "\n" for i in range(7)]


def _nodes(module: cst.Module) -> list[cst.CSTNode]:
    found, stack = [], [module]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(children(node)))
    return found


@pytest.mark.parametrize("by_statement", [False, True], ids=["up-to-the-last", "by-statement"])
@pytest.mark.parametrize("source", SOURCES, ids=range(len(SOURCES)))
def test_positions_of_wanted_nodes_equal_the_full_providers(source, by_statement):
    module = cst.parse_module(source)
    tree = ast.parse(source) if by_statement else None
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = _nodes(module)
    calls = [node for node in nodes if isinstance(node, cst.Call)]
    for wanted in ([nodes[1]], [nodes[-1]], calls[: len(calls) // 2], calls, nodes[::5], nodes):
        got = node_positions(module, wanted, Lines(source), tree)
        assert {id(n): got[n] for n in wanted} == {id(n): full[n] for n in wanted}


# Top-level statements whose first line `ast` and LibCST see differently, or that share a line.
AWKWARD = [
    "# header\n\n@decorate\n# between\n@again(1)\ndef f(x):\n    return x.cuda()\n",
    "import torch; x = torch.zeros(3); x.to(d)\ny = 1\n",
    "(\n    x\n).to(d)\nz = x.cuda()\n",
    "x = 1\n@\\\nd\nclass C:\n    y = torch.zeros(2).cuda()\n",
    "if x:\n    pass\n# trailing comment\n    # indented comment\nx.cuda()",
    "async def f():\n    async with a:\n        x.cuda()\n",
    # inside classes and functions: each statement of a body is generated alone, at its indentation
    "class C:\n    \"\"\"doc\"\"\"\n    # a comment\n\n    @staticmethod\n    # between\n    def f(x):\n"
    "        return x.cuda()\n    class D:\n        def g(self): y = 1; return y.to(d)\n",
    "def f(x):\n\tif x:\n\t\tx = x.cuda()\n\t# trailing\n\treturn x; y.to(d)\n",
    "class E(torch.nn.Module, metaclass=M):\n    x: int = 1\n    def forward(self, x):\n"
    "        return (\n            x.cuda()\n        )\n",
    "def outer():\n    def inner(\n        x,\n    ):\n        return x.cuda()\n    return inner\n",
    "def f(x):\n    if x:\n        # why\n        x.cuda()\n    elif y:\n        y.to(d)\n    else:\n        z.cpu()\n",
    "for x in xs:\n    with a as b, c:\n        x.cuda()\nelse:\n    y.to(d)\n",
    "try:\n    x.cuda()\nexcept E as e:\n    e.to(d)\nelse:\n    pass\nfinally:\n    z.cpu()\n",
    "while x:\n    if y: y.cuda()\n    x = x.to(d)\n",
]


@pytest.mark.parametrize("source", AWKWARD, ids=range(len(AWKWARD)))
def test_statement_positions_hold_where_lines_are_awkward(source):
    module = cst.parse_module(source)
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = _nodes(module)
    for wanted in ([nodes[-1]], nodes[::3], nodes):
        got = node_positions(module, wanted, Lines(source), ast.parse(source))
        assert {id(n): got[n] for n in wanted} == {id(n): full[n] for n in wanted}


def test_a_module_without_a_trailing_newline():
    module = cst.parse_module("import torch\nx = torch.zeros(3).to(d)")
    last = _nodes(module)[-1]
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert node_positions(module, [last])[last] == full[last]


@pytest.mark.parametrize("source", SOURCES[:8], ids=range(8))
def test_ordinary_files_are_placed_statement_by_statement(source):
    module = cst.parse_module(source)
    inside = {node for statement in module.body for node in _nodes(statement)}
    assert positions_by_statement(module, inside, Lines(source), ast.parse(source)) is not None


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("source", SOURCES + AWKWARD, ids=range(len(SOURCES + AWKWARD)))
def test_placing_gives_every_node_the_range_libcsts_provider_gives(source, newline):
    # devlint/engine/placing.py records what LibCST's PositionProvider does, without importing `libcst.metadata`.
    source = source.replace("\n", newline)
    module = cst.parse_module(source)
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    state = Placing(module)
    module._codegen(state)
    assert {id(node): state.positions[node] for node in full} == {id(node): full[node] for node in full}
