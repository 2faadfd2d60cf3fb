"""What DEV002 and DEV011 share as rules: a tensor factory without `device=` whose tensor is moved at
once (`torch.zeros(n).to(d)`, or `x = torch.zeros(n)` then `x = x.to(d)`), and the fix that gives the
factory the move's device. Each finding is one of two kinds: an allocation on the host that the
device form never makes (DEV002), or host data that must cross anyway (`torch.tensor(data).to(d)`:
the same one copy as `torch.tensor(data, device=d)`, DEV011). No finding for `torch.tensor(t)` of a
value shown to be a tensor (it keeps `t`'s device), nor for a 0-element placeholder.

Not a rule package (its name starts with `_`: rules/__init__.py skips it): here, the screen the two rules share (over
Python's `ast`, imported with their pages); in `visitor`, their LibCST visitor and fix.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from devlint.analysis.screen import SyntaxFacts, dtype_only, strip_casts as strip_casts_of_ast
from devlint.analysis.vocabulary import CAST_METHODS, LEGACY_CONSTRUCTORS, RESHAPING_METHODS, UNARY_ELEMENTWISE

_LEGACY = frozenset(f"torch.{name}" for name in LEGACY_CONSTRUCTORS)


def moved_factories(facts: SyntaxFacts, *, data: Optional[bool] = None) -> Iterator[ast.AST]:
    """A CPU factory of the rule's kind (`data`: DEV011's `torch.tensor(...)`; False: DEV002's allocating ones; a
    legacy constructor for both: its arguments decide; None: any) moved in its own chain, or assigned to `x` where
    some `x = x.to(...)` is (the factory and those moves); or what is computed from such a factory with numbers,
    then moved. The screens of DEV002 and DEV011 (they share the premise); the candidates of both are every kind,
    as each rule's visitor reads the type oracle at a factory of the other's kind (the oracle's first answers are
    kept: they must be asked in the same places)."""
    for move in facts.moves:
        if dtype_only(move):
            continue
        receiver = strip_casts_of_ast(move.func.value)  # type: ignore[attr-defined]
        if _may_be_cpu_tensor(facts, receiver) and _of_kind(facts, receiver, data):  # type: ignore[arg-type]
            yield move
        # what is computed from a factory with numbers (`torch.exp(c * torch.arange(n)).to(d)`)
        elif any(type(node) is ast.Call and _may_be_cpu_tensor(facts, node)
                 and _of_kind(facts, node, data) for node in _operands(receiver)):  # type: ignore[arg-type]
            yield move
    paired = {name for name, call in facts.assigned_calls if name in facts.moved_in_place
              and _may_be_cpu_tensor(facts, call) and _of_kind(facts, call, data)}
    yield from (call for name, call in facts.assigned_calls if name in paired)  # (its `x = x.to(...)` too)


def moved_allocations(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """DEV002's screen's candidates: allocating factories (and legacy constructors) moved."""
    return moved_factories(facts, data=False)


def moved_host_data(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """DEV011's screen's candidates: host data factories (and legacy constructors) moved."""
    return moved_factories(facts, data=True)


def _of_kind(facts: SyntaxFacts, call: ast.Call, data: Optional[bool]) -> bool:
    return data is None or _may_be_data(facts, call) in (data, None)


def _may_be_data(facts: SyntaxFacts, call: ast.Call) -> Optional[bool]:
    """True for `torch.tensor(...)`/`as_tensor(...)`, False for the allocating factories, None for a legacy
    constructor (its arguments decide)."""
    names = facts.torch_names(call)
    if any(name in _LEGACY for name in names):
        return None
    return any(name in ("torch.tensor", "torch.as_tensor") for name in names)


def _operands(node: ast.expr) -> list[ast.expr]:
    """The leaves of arithmetic, element-wise functions (`torch.exp(...)`) and reshaping or casting methods
    (a superset of what `visitor.lone_factory` follows: any function named so)."""
    if type(node) is ast.BinOp and type(node.op) is not ast.MatMult:  # type: ignore[attr-defined]
        return _operands(node.left) + _operands(node.right)  # type: ignore[attr-defined]
    if type(node) is ast.UnaryOp and type(node.op) is not ast.Not:  # type: ignore[attr-defined]
        return _operands(node.operand)  # type: ignore[attr-defined]
    if type(node) is ast.Call and type(node.func) is ast.Attribute:  # type: ignore[attr-defined]
        attr = node.func.attr  # type: ignore[attr-defined]
        if attr in UNARY_ELEMENTWISE and len(node.args) == 1:  # type: ignore[attr-defined]
            return [node, *_operands(node.args[0])]  # type: ignore[attr-defined]
        if attr in UNARY_ELEMENTWISE | CAST_METHODS | RESHAPING_METHODS:
            return [node, *_operands(node.func.value)]  # type: ignore[attr-defined]
    return [node]


def _may_be_cpu_tensor(facts: SyntaxFacts, node: ast.expr) -> bool:
    """Mirrors `cpu_tensor_name`: a CPU factory, or a legacy constructor with arguments."""
    if facts.is_cpu_factory(node):
        return True
    return (type(node) is ast.Call and bool(node.args or node.keywords)  # type: ignore[attr-defined]
            and any(name in _LEGACY for name in facts.torch_names(node)))  # type: ignore[arg-type]
