"""devlint.analysis.walk calls the same visitor methods, in the same order, on the same nodes as LibCST."""

from __future__ import annotations

import dataclasses

import libcst as cst
import pytest
from hypothesis import HealthCheck, given, reject, settings, strategies as st
from libcst.metadata import MetadataWrapper

from devlint.analysis.walk import _CONCRETE_NODES, _TOKEN_TYPES, children, visit_batched

from conftest import RULE_DIRS
from generated_programs import PROGRAMS
from test_prefilter import SNIPPETS

NODE_TYPES = [t for t in vars(cst).values() if isinstance(t, type) and issubclass(t, cst.CSTNode)
              and dataclasses.is_dataclass(t)]


def _recorder_class() -> type:
    """A batchable visitor with a visit/leave method for every node type and every field."""
    namespace = {}
    for node_type in NODE_TYPES:
        name = node_type.__name__
        for event in ("visit", "leave"):
            namespace[f"{event}_{name}"] = (lambda e, n: lambda self, node: self.events.append((e, n, id(node))))(
                event, name)
            for field in dataclasses.fields(node_type):
                key = f"{event}_{name}_{field.name}"
                namespace[key] = (lambda k: lambda self, node: self.events.append((k, id(node))))(key)
    namespace["__init__"] = lambda self: (cst.BatchableCSTVisitor.__init__(self), setattr(self, "events", []))[0]
    return type("Recorder", (cst.BatchableCSTVisitor,), namespace)


Recorder = _recorder_class()


def _same_events(source: str) -> None:
    module = cst.parse_module(source)
    theirs, ours = Recorder(), Recorder()
    MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([theirs])
    visit_batched(module, [ours])
    assert ours.events == theirs.events


@pytest.mark.parametrize("path", sorted(p for d in RULE_DIRS for p in d.glob("*.py")), ids=lambda p: p.name)
def test_fixtures_are_walked_exactly_as_libcst_walks_them(path):
    _same_events(path.read_text())


def test_every_construct_is_walked_exactly_as_libcst_walks_it():
    _same_events('''
from . import a as b, c
from x import *
import a.b as c
@dec(1)
async def f(a, /, b: int = 2, *args, c, d=3, **kw) -> "T":
    global g
    async with a as (b, c), d:
        async for i in x: pass
    x: int = 1; y += 2; del z
    return [i async for i in y if i], {k: v for k, v in z}, {*a, *b}, (yield), lambda q=1: q
class C(B, metaclass=M):
    nonlocal_ = f"{a!r:>{w}} {b=} {c:{d}}" "plain" r'x'
    try:
        raise E from e
    except* (A, B) as e:
        pass
    else: ...
    finally: assert x, "m"
match p:
    case [1, *rest] | {"k": v, **kw} if v: pass
    case Point(x=0, y=_) as pt: pass
while not a if b else c: break
x = a[1:2, ::3] @ b ** -c; print(*a, **b); (w := 1) if False else (w := 2)
''')


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_generated_programs_are_walked_exactly_as_libcst_walks_them(data):
    source = data.draw(PROGRAMS)
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError:  # Python's grammar, LibCST's tokenizer refuses (a `\` line ending a file): no tree
        reject()
    _same_events(source)
    _same_events("\n".join(data.draw(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=6))) + "\n")


def _children_checked(module: cst.Module) -> int:
    """Check `children` against LibCST's on every node of `module`; the token nodes left out."""
    stack: list[cst.CSTNode] = [module]
    seen_tokens = 0
    while stack:
        node = stack.pop()
        expected = [child for child in node.children if type(child) not in _TOKEN_TYPES]
        seen_tokens += len(node.children) - len(expected)
        assert children(node) == expected
        stack.extend(node.children)
    return seen_tokens


def test_children_are_libcsts_children_without_the_token_nodes():
    module = cst.parse_module("def f(a, *, b=1):  # c\n    return {'k': [x async for x in y]} + -a\n")
    assert _children_checked(module) > 10  # whitespace, commas, the comment, `+` and `-` were there to leave out


@pytest.mark.parametrize("directory", RULE_DIRS, ids=lambda d: d.name)
def test_children_of_every_node_of_the_fixtures(directory):
    # `children` reads only the fields whose types can hold a node that is no token: every other field is checked
    # here to hold none, on every kind of node the fixtures and the test programs have
    for path in sorted(directory.rglob("*.py")):
        _children_checked(cst.parse_module(path.read_text(encoding="utf-8")))


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_children_of_every_node_of_generated_programs(data):
    source = data.draw(PROGRAMS)
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        reject()
    _children_checked(module)


def test_no_concrete_node_class_is_a_subclass_of_another():
    # so `type(node) is cst.Call` answers as `isinstance(node, cst.Call)` does (devlint/analysis/walk.py)
    assert len(_CONCRETE_NODES) > 150
    assert [(a, b) for a in _CONCRETE_NODES for b in _CONCRETE_NODES if a is not b and issubclass(b, a)] == []


def test_the_node_classes_are_those_libcst_exports():
    # walk.py reads them from the modules that define them (the package's other names are never imported:
    # devlint/engine/libcst_loader.py); they must be what `libcst` itself exports.
    exported = {value for value in vars(cst).values() if isinstance(value, type) and issubclass(value, cst.CSTNode)}
    assert set(_CONCRETE_NODES) == {cls for cls in exported if not getattr(cls, "__abstractmethods__", None)}
