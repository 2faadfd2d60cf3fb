"""DEV001 — result of a tensor move discarded."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.edits import shown_code
from devlint.analysis.names import dotted_name, target_names
from devlint.analysis.narrowing import Narrowing
from devlint.analysis.types import Kind, unwrap_listing
from devlint.diagnostics import Applicability
from devlint.prefilter import method_call
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor
from devlint.screen import SyntaxFacts
from devlint.walk import children

_MOVES = ("to", "cuda", "cpu", "pin_memory")


def _screen(facts: SyntaxFacts) -> bool:
    """A move that is a statement of its own: `R.to(...)`, whatever `R` is."""
    return not facts.methods_discarded.isdisjoint(_MOVES)


RULE = Rule(
    code="DEV001",
    name="discarded-tensor-move",
    summary="The result of `tensor.to(...)` / `.cuda()` / `.cpu()` / `.pin_memory()` is thrown away",
    why="""
        Tensor moves are not in place: `x.to(device)` returns a new tensor and leaves `x` where it was.
        The statement does nothing but copy data, and the code after it still runs on the old device,
        failing later with "Expected all tensors to be on the same device" or silently running on the CPU.
        `nn.Module.to()` *is* in place, which is why the mistake is easy to make.
    """,
    example="""
        for images, labels in loader:
            images.to(device)
            labels.to(device)
    """,
    instead="""
        for images, labels in loader:
            images = images.to(device)
            labels = labels.to(device)
    """,
    fix_safety=FixSafety.SAFE,
    fix="""
        Assigns the result back: `x = x.to(device)`, for a name, an attribute or a subscript; for the
        value of `for k, v in batch.items()`, stores it in the dict (`batch[k] = v.to(device)`) when `v` is
        not used again in the loop (otherwise, and for `.values()`, no fix). No fix for a local name that
        is not read again: the assignment would be dead, and what was meant is for the author to say. The
        call is kept as written: its arguments and its line breaks. Safe: the
        statement had no effect, and the value now has the device the code asked for. No fix is offered
        for other receivers, nor for attributes that are or may be an `nn.Parameter` (bound to one, named
        `weight` or `bias`, or an attribute of a module): assigning a plain tensor to a parameter raises
        `TypeError`.
    """,
    tokens=("torch", method_call(*_MOVES)),
    screen=_screen,
)


class DiscardedTensorMove(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.candidates: list[tuple[cst.Expr, cst.Call, list[cst.FunctionDef], Optional[cst.ClassDef],
                                    Narrowing, Optional[cst.For], tuple[cst.For | cst.While, ...]]] = []
        self.loops: list[cst.For] = []
        self.repeats: list[cst.For | cst.While] = []  # every enclosing loop, for reads in a later round

    def visit_For(self, node: cst.For) -> None:
        self.loops.append(node)
        self.repeats.append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self.loops.pop()
        self.repeats.pop()

    def visit_While(self, node: cst.While) -> None:
        self.repeats.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self.repeats.pop()

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
            return
        if call.func.attr.value not in _MOVES:
            return
        loop = _binding_loop(call.func.value, self.loops)
        self.candidates.append((node, call, self.ctx.enclosing_functions(), self.ctx.current_class(),
                                self.ctx.narrowed(), loop, tuple(self.repeats)))

    def finish(self) -> None:
        for statement, call, functions, cls, narrowing, loop, repeats in self.candidates:
            receiver = call.func.value  # type: ignore[union-attr]
            narrowed = self.ctx.types.narrowed_kinds(narrowing)
            if self.ctx.types.kind_of(receiver, functions, cls, narrowed) is not Kind.TENSOR:
                continue
            method = call.func.attr.value  # type: ignore[union-attr]
            text = _short(self.ctx.module.code_for_node(receiver))
            read_after = isinstance(receiver, cst.Name) and (
                not functions  # a module's global may be read by whoever imports it
                or _read_after(statement, receiver.value, functions[0], repeats))
            entry = None if read_after else _dict_entry(receiver, loop)
            if entry is not None:
                # `for k, v in batch.items(): v.to(d)`, `v` not used again: what was meant is the dict's entry
                slot = _short(f"{entry[0].value}[{entry[1].value}]")
                advice = f"store it: `{slot} = {text}.{method}(...)`"
            elif not read_after and loop is not None and _is_dict_value(receiver, loop):  # type: ignore[arg-type]
                advice = "store it back in the dict it came from"  # `for v in batch.values()`
            elif isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript)):
                advice = f"assign it: `{text} = {text}.{method}(...)`"
            else:
                advice = "use the tensor it returns"
            message = f"`{text}.{method}(...)` result is discarded; tensors are not moved in place — {advice}"
            if entry is not None:
                fix: Optional[Fix] = _store_fix(statement, entry)
            elif isinstance(receiver, cst.Name) and not read_after:
                fix = None  # `x = x.to(d)` with `x` never read again: a dead store, not a fix
            else:
                fix = self._fix(statement, receiver, functions, cls)
            self.report(call, message, fix)

    def _fix(self, statement: cst.Expr, receiver: cst.BaseExpression, functions: list[cst.FunctionDef],
             cls: Optional[cst.ClassDef]) -> Optional[Fix]:
        if not isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript)):
            return None
        if isinstance(receiver, cst.Attribute) and (
            (cls is not None and _is_parameter_attr(self, receiver, cls))
            or _may_be_parameter(self, receiver, functions, cls)
        ):
            return None
        assign = cst.Assign(
            targets=[cst.AssignTarget(receiver)], value=statement.value, semicolon=statement.semicolon
        )
        description = shown_code("Assign the moved tensor back", receiver, " = ...")
        return Fix(Applicability.SAFE, description, {statement: assign})


# Assigning a plain tensor to a module's parameter raises TypeError: these attributes of a
# module (or of anything, for the usual parameter names) get no fix.
_PARAMETER_NAMES = ("weight", "bias")


def _may_be_parameter(visitor: RuleVisitor, receiver: cst.Attribute, functions: list[cst.FunctionDef],
                      cls: Optional[cst.ClassDef]) -> bool:
    if receiver.attr.value in _PARAMETER_NAMES:
        return True
    if dotted_name(receiver.value) == "self":
        return False  # decided from the class's own bindings
    return visitor.ctx.types.kind_of(receiver.value, functions, cls) is Kind.MODULE


def _is_parameter_attr(visitor: RuleVisitor, receiver: cst.Attribute, cls: cst.ClassDef) -> bool:
    if dotted_name(receiver.value) != "self":
        return False
    index = visitor.ctx.types.class_index(cls)
    for how, node, _method in index.bindings.get(receiver.attr.value, []):
        if how == "buffer" and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "register_parameter":
                return True
        if how == "value" and isinstance(node, cst.Call):
            full = visitor.torch.qualify(node.func) or ""
            if full.endswith("Parameter"):
                return True
    return False


def _store_fix(statement: cst.Expr, entry: tuple[cst.Name, cst.Name]) -> Fix:
    """`v.to(d)` -> `batch[k] = v.to(d)`: assigning an existing key while iterating is allowed."""
    target = cst.Subscript(entry[0], [cst.SubscriptElement(cst.Index(entry[1]))])
    assign = cst.Assign(targets=[cst.AssignTarget(target)], value=statement.value, semicolon=statement.semicolon)
    description = shown_code("Store the moved tensor in the dict", target, " = ...")
    return Fix(Applicability.SAFE, description, {statement: assign})


def _binding_loop(receiver: cst.BaseExpression, loops: list[cst.For]) -> Optional[cst.For]:
    """The innermost enclosing `for` whose target binds the receiver's name."""
    if isinstance(receiver, cst.Name):
        for loop in reversed(loops):
            if any(name.value == receiver.value for name in target_names(loop.target)):
                return loop
    return None


def _is_dict_value(name: cst.Name, loop: cst.For) -> bool:
    """Is `name` the value target of `for ... in d.items()` / `for v in d.values()` (or under `enumerate`)?"""
    target, iterable = loop.target, unwrap_listing(loop.iter)
    if (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate"
            and isinstance(target, cst.Tuple) and len(target.elements) == 2 and iterable.args):
        target, iterable = target.elements[1].value, iterable.args[0].value
    if not (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute)):
        return False
    if iterable.func.attr.value == "values":
        return isinstance(target, cst.Name) and target.value == name.value
    if iterable.func.attr.value == "items" and isinstance(target, cst.Tuple) and len(target.elements) == 2:
        value = target.elements[1].value
        return isinstance(value, cst.Name) and value.value == name.value
    return False


def _dict_entry(receiver: cst.BaseExpression, loop: Optional[cst.For]) -> Optional[tuple[cst.Name, cst.Name]]:
    """(`batch`, `k`) for `v` of `for k, v in batch.items()`, else None."""
    if loop is None or not isinstance(receiver, cst.Name) or not _is_dict_value(receiver, loop):
        return None
    target, iterable = loop.target, unwrap_listing(loop.iter)
    if not (isinstance(target, cst.Tuple) and isinstance(iterable, cst.Call) and not iterable.args
            and isinstance(iterable.func, cst.Attribute) and iterable.func.attr.value == "items"):
        return None
    key, container = target.elements[0].value, iterable.func.value
    if isinstance(key, cst.Name) and isinstance(container, cst.Name):
        return container, key
    return None


def _read_after(statement: cst.Expr, name: str, scope: cst.CSTNode,
                repeats: tuple[cst.For | cst.While, ...]) -> bool:
    """Is `name` read after `statement`: later in `scope`, or anywhere in a loop around it
    (the next round) that does not rebind it? A plain assignment to it is not a read."""
    for loop in reversed(repeats):
        if isinstance(loop, cst.For) and any(n.value == name for n in target_names(loop.target)):
            break  # the next round rebinds it
        if _reads(loop, name, skip=statement):
            return True
    seen = False
    stack: list[tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(scope, None)]
    while stack:
        node, parent = stack.pop()
        if node is statement:
            seen = True
            continue
        if seen and isinstance(node, cst.Name) and node.value == name and not _stored(node, parent):
            return True
        stack.extend((child, node) for child in reversed(children(node)))
    return False


def _reads(node: cst.CSTNode, name: str, skip: cst.CSTNode) -> bool:
    stack: list[tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(node, None)]
    while stack:
        current, parent = stack.pop()
        if current is skip:
            continue
        if isinstance(current, cst.Name) and current.value == name and not _stored(current, parent):
            return True
        stack.extend((child, current) for child in children(current))
    return False


def _stored(name: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    """`name = ...`, `for name in ...`: a plain store, not a read."""
    return (isinstance(parent, cst.AssignTarget) and parent.target is name) or (
        isinstance(parent, cst.For) and parent.target is name)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = ["RULE", "DiscardedTensorMove"]
