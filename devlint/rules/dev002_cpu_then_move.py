"""DEV002 — tensor created on the CPU, then moved."""

from __future__ import annotations

from typing import Optional, Sequence, Union

import libcst as cst

from devlint.analysis.edits import append_keyword
from devlint.analysis.factories import (
    FACTORIES, RANDOM_FACTORIES, cpu_factory_name, is_plain_device, move_target, strip_casts,
)
from devlint.analysis.names import identifiers, keyword
from devlint.diagnostics import Applicability
from devlint.prefilter import method_call, words
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor
from devlint.screen import SyntaxFacts, strip_casts as strip_casts_of_ast


def _screen(facts: SyntaxFacts) -> bool:
    """A CPU factory moved in its own chain, or assigned to `x` where some `x = x.to(...)` is."""
    for move in facts.moves:
        if facts.is_cpu_factory(strip_casts_of_ast(move.func.value)):  # type: ignore[attr-defined]
            return True
    return any(name in facts.moved_in_place and facts.is_cpu_factory(call) for name, call in facts.assigned_calls)


RULE = Rule(
    code="DEV002",
    name="cpu-tensor-then-move",
    summary="A tensor is created on the CPU and then copied to a device, instead of created there",
    why="""
        `torch.zeros(n).to(device)` allocates and fills the tensor in host memory, then copies it to the
        device: an extra allocation and a host-to-device transfer (about 0.16 ms for 4 MB over PCIe 4.0)
        that `torch.zeros(n, device=device)` never does. In a training loop this adds up and
        synchronises with the GPU. Not reported: `zeros_like(x)` and the other `*_like` factories
        (they follow `x`'s device), `torch.from_numpy(a)` (the data is on the host anyway), moves to
        `"cpu"` or to a dtype only, code under `with torch.device(...)` or after
        `torch.set_default_device(...)`.
    """,
    example="""
        mask = torch.ones(batch_size, seq_len).to(device)
        noise = torch.randn(shape).cuda()
    """,
    instead="""
        mask = torch.ones(batch_size, seq_len, device=device)
        noise = torch.randn(shape, device="cuda")
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        Moves the target into the factory's `device=` and drops the move; `.cuda()` becomes
        `device="cuda"`. Safe when the target is plainly a device (a name or attribute called `device`,
        `x.device`, a string, `torch.device(...)`) and the factory is not random. Unsafe when the target
        is a name that only looks like a device (`dev`), or the factory draws random numbers (`rand`,
        `randn`, `randint`, `randperm`, ...): the device's own generator gives other values than the
        CPU's, so seeded results change. No fix when the target may be a tensor (`.to(other)` also copies
        its dtype) or the move has more arguments than the device.
    """,
    tokens=("torch", method_call("to", "cuda"), words(*FACTORIES)),
    screen=_screen,
)


class CpuTensorThenMove(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.pending: list[tuple[cst.CSTNode, str, Optional[Fix]]] = []

    def visit_Call(self, node: cst.Call) -> None:
        target = move_target(node, self.torch)
        if target is None or self.ctx.device_placed():
            return
        factory = strip_casts(node.func.value)  # type: ignore[union-attr]
        name = cpu_factory_name(factory, self.torch)
        if name is None:
            return
        assert isinstance(factory, cst.Call)
        method = node.func.attr.value  # type: ignore[union-attr]
        move = ".cuda()" if method == "cuda" else ".to(...)"
        message = (
            f"`torch.{name}(...)` is created on the CPU and then moved with `{move}`;"
            f" create it on the device: `torch.{name}(..., device=...)`"
        )
        self.pending.append((factory, message, self._inline_fix(node, factory, name, target)))

    def _inline_fix(self, move: cst.Call, factory: cst.Call, name: str, target: cst.BaseExpression) -> Optional[Fix]:
        device = _device_argument(move, target)
        if device is None:
            return None
        applicability = _applicability(device, name, factory, self.torch)
        if applicability is None:
            return None
        # Rebuild the chain with the move removed: the casts between factory and move stay.
        receiver = move.func.value  # type: ignore[union-attr]
        replaced = _replace_in_chain(receiver, factory, append_keyword(factory, "device", device))
        return Fix(applicability, "Create the tensor on the device", {move: replaced})

    # `x = torch.zeros(n)` ... `x = x.to(dev)` in the same block
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._split_moves(node.body)

    def visit_Module(self, node: cst.Module) -> None:
        self._split_moves(node.body)

    def _split_moves(self, body: Sequence[cst.BaseStatement]) -> None:
        if self.ctx.device_placed():
            return
        for i, statement in enumerate(body):
            created = _single_assign(statement)
            if created is None or not isinstance(created.targets[0].target, cst.Name):
                continue
            variable = created.targets[0].target.value
            factory = strip_casts(created.value)
            name = cpu_factory_name(factory, self.torch)
            if name is None or factory is not created.value:
                continue
            for j in range(i + 1, min(i + 8, len(body))):
                later = body[j]
                move = _self_move(later, variable, self.torch)
                if move is not None:
                    self._report_split(statement, created, factory, name, later, move,  # type: ignore[arg-type]
                                       body[i + 1:j])
                    break
                if variable in set(identifiers(later)):
                    break

    def _report_split(self, first: cst.BaseStatement, created: cst.Assign, factory: cst.Call, name: str,
                      second: cst.BaseStatement, move: cst.Call, between: Sequence[cst.BaseStatement]) -> None:
        target = move_target(move, self.torch)
        method = move.func.attr.value  # type: ignore[union-attr]
        message = (
            f"`torch.{name}(...)` is created on the CPU and moved on a later line with"
            f" `.{method}(...)`; create it on the device: `torch.{name}(..., device=...)`"
        )
        fix = None
        device = _device_argument(move, target) if target is not None else None
        applicability = _applicability(device, name, factory, self.torch) if device is not None else None
        names_in_device = set(identifiers(device)) if device is not None else set()
        movable = (
            applicability is not None
            and isinstance(second, cst.SimpleStatementLine)
            and not _has_comments(second)
            and not any(names_in_device & set(identifiers(s)) for s in between)
        )
        if movable:
            assert device is not None and applicability is not None
            fix = Fix(applicability, "Create the tensor on the device",
                      {factory: append_keyword(factory, "device", device), second: cst.RemoveFromParent()})
        self.pending.append((factory, message, fix))

    def finish(self) -> None:
        if self.ctx.sets_default_device:
            return  # factories land on the default device already
        for node, message, fix in self.pending:
            self.report(node, message, fix)


def _device_argument(move: cst.Call, target: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The expression to pass as `device=`, or None when the move says more than a device."""
    method = move.func.attr.value  # type: ignore[union-attr]
    if method == "cuda":
        return cst.SimpleString('"cuda"') if not move.args else None
    others = [a for a in move.args if a.value is not target and not (a.keyword and a.keyword.value == "non_blocking")]
    return None if others else target


def _applicability(device: cst.BaseExpression, factory_name_: str, factory: cst.Call,  # type: ignore[no-untyped-def]
                   torch) -> Optional[Applicability]:
    plain = is_plain_device(device, torch)
    looks_like_device = plain or any("dev" in word.lower() for word in identifiers(device))
    if not looks_like_device:
        return None  # may be a tensor: `.to(other)` also takes its dtype
    if factory_name_ in RANDOM_FACTORIES or keyword(factory, "generator") is not None or not plain:
        return Applicability.UNSAFE
    return Applicability.SAFE


def _replace_in_chain(expr: cst.BaseExpression, old: cst.Call, new: cst.Call) -> cst.BaseExpression:
    if expr is old:
        return new
    assert isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
    inner = _replace_in_chain(expr.func.value, old, new)
    return expr.with_changes(func=expr.func.with_changes(value=inner))


def _single_assign(statement: cst.CSTNode) -> Optional[cst.Assign]:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            return small
    return None


def _self_move(statement: cst.CSTNode, variable: str, torch) -> Optional[cst.Call]:  # type: ignore[no-untyped-def]
    """`x = x.to(dev)` / `x = x.cuda()` (a move that changes the device), else None."""
    assign = _single_assign(statement)
    if assign is None:
        return None
    target = assign.targets[0].target
    value = assign.value
    if not (isinstance(target, cst.Name) and target.value == variable):
        return None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
        return None
    receiver = value.func.value
    if not (isinstance(receiver, cst.Name) and receiver.value == variable):
        return None
    return value if move_target(value, torch) is not None else None


def _has_comments(statement: Union[cst.SimpleStatementLine, cst.CSTNode]) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return True
    if any(line.comment is not None for line in statement.leading_lines):
        return True
    return statement.trailing_whitespace.comment is not None


__all__ = ["RULE", "CpuTensorThenMove"]
