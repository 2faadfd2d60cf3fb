"""`visit_batched` without LibCST's per-node rebuild: the same callbacks, in the same order.

LibCST's visitor API calls `_visit_and_replace_children` on every node, which builds (and
validates) a new copy of each node even when the visitors change nothing; with the attribute
callbacks (`visit_If_body`) that is most of the cost of a traversal, more than the parse. This
walker reads each node's fields in the order LibCST visits them (recorded once per node class
from LibCST itself) and calls the same `visit_*`, `visit_<Node>_<field>`, `leave_<Node>_<field>`
and `leave_*` methods, visitors in list order, on the original nodes. It only reads the
tree. `tests/test_walk.py` checks the callback sequence against LibCST's on the fixtures
and on generated programs.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import libcst as cst

_Methods = dict[str, list[Callable[..., object]]]
_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}  # (field, visited only when it holds nodes)


class _FieldRecorder(cst.CSTVisitor):
    """Records which fields of `root` LibCST visits, in order, without descending further."""

    def __init__(self, root: cst.CSTNode) -> None:
        super().__init__()
        self.root = root
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node is self.root

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        if node is self.root and attribute not in self.fields:
            self.fields.append(attribute)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass


def _fields(node: cst.CSTNode) -> tuple[tuple[str, bool], ...]:
    cls = type(node)
    fields = _FIELDS.get(cls)
    if fields is None:
        recorder = _FieldRecorder(node)
        node.visit(recorder)
        # A field LibCST skips when it is None on this instance (FormattedStringExpression's
        # format_spec) comes last in every class that has one: keep it, at the end.
        others = [(f.name, True) for f in dataclasses.fields(cls) if f.name not in recorder.fields]
        fields = _FIELDS[cls] = (*((field, False) for field in recorder.fields), *others)
    return fields


def visit_batched(module: cst.Module, visitors: Sequence[cst.BatchableCSTVisitor]) -> None:
    """Run `visitors` over `module` as `MetadataWrapper.visit_batched` would (visitors that
    declare no metadata)."""
    methods: _Methods = {}
    for visitor in visitors:
        for name, function in visitor.get_visitors().items():
            methods.setdefault(name, []).append(function)
    plans: dict[type, tuple] = {}

    def plan(node: cst.CSTNode) -> tuple:
        name = type(node).__name__
        fields = []
        for field, extra in _fields(node):
            fields.append((field, extra, methods.get(f"visit_{name}_{field}", ()),
                           methods.get(f"leave_{name}_{field}", ())))
        result = plans[type(node)] = (methods.get(f"visit_{name}", ()), tuple(fields), methods.get(f"leave_{name}", ()))
        return result

    CSTNode = cst.CSTNode

    def walk(node: cst.CSTNode) -> None:
        visits, fields, leaves = plans.get(type(node)) or plan(node)
        for function in visits:
            function(node)
        for field, extra, visit_field, leave_field in fields:
            value = getattr(node, field)
            if extra and not isinstance(value, (CSTNode, tuple, list)):
                continue  # not a child (a string, a flag, a missing format spec): LibCST skips it
            for function in visit_field:
                function(node)
            if isinstance(value, CSTNode):
                walk(value)
            elif isinstance(value, (tuple, list)):
                for child in value:
                    if isinstance(child, CSTNode):
                        walk(child)
            for function in leave_field:
                function(node)
        for function in leaves:
            function(node)

    walk(module)


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node.children` (in the same order) without rebuilding `node`."""
    result: list[cst.CSTNode] = []
    for field, _extra in _fields(node):
        value = getattr(node, field)
        if isinstance(value, cst.CSTNode):
            result.append(value)
        elif isinstance(value, (tuple, list)):
            result.extend(child for child in value if isinstance(child, cst.CSTNode))
    return result
