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
import importlib
import typing
from typing import Callable, Iterator, Optional, Sequence

import libcst as cst

from devlint.analysis.libcst_internals import NODE_MODULES

_Methods = dict[str, list[Callable[..., object]]]
# What `visit_batched` does with a callback that raised: (its visitor, the node, the error).
OnError = Callable[[cst.BatchableCSTVisitor, Optional[cst.CSTNode], Exception], None]
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


# What a field's value is, by its type: 1 a node, 2 a sequence (of nodes), 0 anything else.
# A dict lookup: `isinstance(value, CSTNode)` goes through ABC machinery and costs far more.
_KIND: dict[type, int] = {}
# Names of the visit_*/leave_* methods of a visitor class (`get_visitors()` inspects every member).
_METHOD_NAMES: dict[type, tuple[str, ...]] = {}


def _concrete_nodes() -> tuple[type, ...]:
    """LibCST's node classes that trees are made of: the public classes of the modules that define its nodes (those
    `libcst/__init__.py` exports; read from the modules, the package's other names are never imported:
    devlint/engine/libcst_loader.py), less those with abstract methods or with a class of them below.
    (Subclass questions here read `__mro__`: `issubclass` of LibCST's abstract classes walks every subclass.)"""
    classes = {value for module in NODE_MODULES for name, value in vars(importlib.import_module(module)).items()
               if not name.startswith("_") and isinstance(value, type) and cst.CSTNode in value.__mro__}
    below = {base for cls in classes for base in cls.__mro__[1:]}
    return tuple(sorted((cls for cls in classes if cls not in below and not getattr(cls, "__abstractmethods__", None)),
                        key=lambda cls: cls.__name__))


# No class among them is a subclass of another (tests/test_walk.py): for them, the analysis's hot paths ask
# `type(node) is cst.Name` rather than `isinstance(node, cst.Name)`, the same answer without ABCMeta's
# `__instancecheck__` (a fifth of the rules' `finish`).
_CONCRETE_NODES = _concrete_nodes()


def _token_types() -> frozenset[type]:
    """LibCST's whitespace, comment, punctuation and operator nodes: their subtrees hold only
    nodes of these kinds. About half of a tree's nodes, and no rule looks at them."""
    bases = (cst.BaseParenthesizableWhitespace, cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp,
             cst.BaseUnaryOp, cst.BaseAugOp)
    found = {cst.TrailingWhitespace, cst.EmptyLine, cst.Comment, cst.Newline, cst.Comma, cst.Dot,
             cst.Colon, cst.Semicolon, cst.AssignEqual, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket,
             cst.RightSquareBracket, cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.ImportStar}
    found.update(cls for cls in _CONCRETE_NODES if any(base in cls.__mro__ for base in bases))
    return frozenset(found)


_TOKEN_TYPES = _token_types()
_TOKEN_NAMES = frozenset(cls.__name__ for cls in _TOKEN_TYPES)
# A token node's kind when no visitor has a callback on tokens: 3, a node that is not walked.
_TOKENS_UNWALKED = {cls: 3 for cls in _TOKEN_TYPES}


def _kind(value: object) -> int:
    kind = _KIND.get(type(value))
    if kind is None:
        kind = _KIND[type(value)] = (1 if isinstance(value, cst.CSTNode)
                                     else 2 if isinstance(value, (tuple, list)) else 0)
    return kind


def _visitor_methods(visitor: cst.BatchableCSTVisitor) -> dict[str, Callable[..., object]]:
    names = _METHOD_NAMES.get(type(visitor))
    if names is None:
        names = _METHOD_NAMES[type(visitor)] = tuple(visitor.get_visitors())
    return {name: getattr(visitor, name) for name in names}


def visit_batched(module: cst.Module, visitors: Sequence[cst.BatchableCSTVisitor],
                  on_error: Optional[OnError] = None) -> None:
    """Run `visitors` over `module` as `MetadataWrapper.visit_batched` would (visitors that
    declare no metadata). With `on_error`, a callback that raises is handed to it (the visitor, the
    node, the error); unless it raises in turn, that visitor's callbacks are not called again and
    the others go on."""
    methods: _Methods = {}
    owners: dict[int, cst.BatchableCSTVisitor] = {}
    for visitor in visitors:
        for name, function in _visitor_methods(visitor).items():
            methods.setdefault(name, []).append(function)
            owners[id(function)] = visitor
    plans: dict[type, tuple] = {}
    # No callback on a token node: its subtree (tokens only) is not walked; the callbacks of the
    # field that holds it still run, as they would.
    kinds = _KIND
    if not any(name.split("_")[1] in _TOKEN_NAMES for name in methods):
        kinds = {**_KIND, **_TOKENS_UNWALKED}

    def plan(node: cst.CSTNode) -> tuple:
        name = type(node).__name__
        fields = []
        for field, extra in _fields(node):
            fields.append((field, extra, methods.get(f"visit_{name}_{field}", ()),
                           methods.get(f"leave_{name}_{field}", ())))
        result = plans[type(node)] = (methods.get(f"visit_{name}", ()), tuple(fields), methods.get(f"leave_{name}", ()))
        return result

    def failed(function: Callable[..., object], node: cst.CSTNode, error: Exception) -> None:
        visitor = owners.get(id(function))
        if on_error is None or visitor is None:
            raise error
        on_error(visitor, node, error)
        for functions in methods.values():  # replaced, not removed: a loop may be iterating this list
            for index, other in enumerate(functions):
                if owners.get(id(other)) is visitor:
                    functions[index] = _skip

    # The callbacks are called inline, each in its own `try` (free until something raises): this
    # loop runs for every node of every file that reaches LibCST.
    def walk(node: cst.CSTNode) -> None:
        visits, fields, leaves = plans.get(type(node)) or plan(node)
        for function in visits:
            try:
                function(node)
            except Exception as error:
                failed(function, node, error)
        for field, extra, visit_field, leave_field in fields:
            value = getattr(node, field)
            kind = kinds.get(type(value))
            if kind is None:
                kind = kinds[type(value)] = _kind(value)
            if extra and not kind:
                continue  # not a child (a string, a flag, a missing format spec): LibCST skips it
            for function in visit_field:
                try:
                    function(node)
                except Exception as error:
                    failed(function, node, error)
            if kind == 1:
                walk(value)
            elif kind == 2:
                for child in value:
                    if (kinds.get(type(child)) or _kind(child)) == 1:
                        walk(child)
            for function in leave_field:
                try:
                    function(node)
                except Exception as error:
                    failed(function, node, error)
        for function in leaves:
            try:
                function(node)
            except Exception as error:
                failed(function, node, error)

    try:
        walk(module)
    finally:
        walk = None  # type: ignore[assignment]  (it calls itself through its closure: a cycle that would hold the tree)


def _skip(node: cst.CSTNode) -> None:
    """A failed visitor's callback, from then on."""


# `children`'s kinds: token nodes (whitespace, comments, punctuation, operators) are not children.
_CHILD_KIND: dict[type, int] = dict(_TOKENS_UNWALKED)
# The fields `children` reads, by node class: those whose type can hold a node that is no token.
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _holds_nodes(annotation: object) -> bool:
    """Can a field of this type hold a node that is no token? `Sequence[LeftParen]`, `SimpleWhitespace`,
    `Union[Comma, MaybeSentinel]`, `str` cannot; a base class can when one of LibCST's classes below it is no token."""
    arguments = typing.get_args(annotation)
    if typing.get_origin(annotation) is not None:
        return any(_holds_nodes(argument) for argument in arguments if not isinstance(argument, str))
    if not isinstance(annotation, type) or cst.CSTNode not in annotation.__mro__:
        return False
    return any(annotation in cls.__mro__ and cls not in _TOKEN_TYPES for cls in _CONCRETE_NODES)


def _node_fields(node: cst.CSTNode) -> tuple[str, ...]:
    """The fields of `node`'s class that `children` reads, in LibCST's order (every field where the
    class's types cannot be read)."""
    cls = type(node)
    fields = _NODE_FIELDS.get(cls)
    if fields is None:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # noqa: BLE001 - a type LibCST's module cannot resolve: read every field
            hints = {}
        fields = _NODE_FIELDS[cls] = tuple(field for field, _extra in _fields(node)
                                           if field not in hints or _holds_nodes(hints[field]))
    return fields


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node.children` (in the same order) without rebuilding `node`, and without its token nodes
    (whitespace, comments, punctuation, operators: about half of a tree's nodes). No question the
    analysis asks is answered by walking to them: an operator is read from its field (`node.operator`).
    Fields whose type holds only tokens (`lpar`, `whitespace_after`) are not read at all."""
    result: list[cst.CSTNode] = []
    kinds = _CHILD_KIND
    fields = _NODE_FIELDS.get(type(node))
    for field in fields if fields is not None else _node_fields(node):
        value = getattr(node, field)
        kind = kinds.get(type(value))
        if kind is None:
            kind = kinds[type(value)] = _kind(value)
        if kind == 1:
            result.append(value)
        elif kind == 2:
            for child in value:
                child_kind = kinds.get(type(child))
                if child_kind is None:
                    child_kind = kinds[type(child)] = _kind(child)
                if child_kind == 1:
                    result.append(child)
    return result


def nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and every node below it."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(children(node))


def parents(root: cst.CSTNode) -> dict[int, cst.CSTNode]:
    """The parent of each node below `root`, by the node's id (token nodes left out, as `children` leaves them)."""
    found: dict[int, cst.CSTNode] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in children(node):
            found[id(child)] = node
            stack.append(child)
    return found


def own_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and the nodes below it, without those of nested functions, classes and lambdas (they
    run later, if at all); `root` itself is entered whatever it is."""
    return _own_nodes(root, enter_root=True, in_order=False)


def own_nodes_in_order(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and the nodes below it that run when it runs, in source order: a function, class or
    lambda, `root` included, is given but not entered."""
    return _own_nodes(root, enter_root=False, in_order=True)


_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _own_nodes(root: cst.CSTNode, *, enter_root: bool, in_order: bool) -> Iterator[cst.CSTNode]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if (node is root and enter_root) or type(node) not in _SCOPES:
            below = children(node)
            stack.extend(reversed(below) if in_order else below)
