"""Positions of reported nodes: LibCST's PositionProvider, run only as far as the last wanted node.

The engine stops LibCST's position-recording codegen once every node it needs is placed
(devlint/cst_stage.py `_positions`). These tests compare what it gives with the PositionProvider
run in full through a MetadataWrapper, for wanted nodes taken from the start, the middle and
the end of the fixtures and of the prefilter's snippet programs.
"""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from devlint.cst_stage import _positions
from devlint.walk import children

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


@pytest.mark.parametrize("source", SOURCES, ids=range(len(SOURCES)))
def test_positions_of_wanted_nodes_equal_the_full_providers(source):
    module = cst.parse_module(source)
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = _nodes(module)
    calls = [node for node in nodes if isinstance(node, cst.Call)]
    for wanted in ([nodes[1]], [nodes[-1]], calls[: len(calls) // 2], calls, nodes[::5], nodes):
        got = _positions(module, wanted)
        assert {id(n): got[n] for n in wanted} == {id(n): full[n] for n in wanted}


def test_a_module_without_a_trailing_newline():
    module = cst.parse_module("import torch\nx = torch.zeros(3).to(d)")
    last = _nodes(module)[-1]
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert _positions(module, [last])[last] == full[last]
