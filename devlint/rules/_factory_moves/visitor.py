"""DEV002 and DEV011's shared visitor and fix (the screen they share is this package's `__init__`)."""

from __future__ import annotations

from typing import Callable, ClassVar, Optional, Sequence

import libcst as cst

from devlint.analysis.edits import append_keyword, shown_code
from devlint.analysis.factories import (
    EXACT_IN_EVERY_DTYPE, LEGACY_CONSTRUCTORS, LEGACY_DTYPES, RANDOM_FACTORIES, cpu_factory_name,
    is_dtype, is_plain_device, legacy_constructor_name, legacy_kind, move_target, strip_casts,
)
from devlint.analysis.guards import is_test_code
from devlint.analysis.project_index import repeating_function
from devlint.analysis.names import dotted_name, identifiers, integer_value, keyword, named_parameters, positional
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.types import Kind
from devlint.analysis.vocabulary import CAST_METHODS, RESHAPING_METHODS, UNARY_ELEMENTWISE, names_a_device
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor

ALLOCATION = "allocation"  # DEV002: made on the host for nothing
HOST_DATA = "host data"  # DEV011: host data that crosses once either way
# Factories whose argument is data (elsewhere: sizes, ranges)
_DATA_FACTORIES = frozenset({"tensor", "as_tensor"})
# `tensor.new_<name>(...)`: made on `tensor`'s device with its dtype
_NEW_FACTORIES = frozenset({"zeros", "ones", "empty"})


class FactoryMoveVisitor(RuleVisitor):
    """Finds factories moved at once; a subclass reports the findings of its kind (`finds`)."""

    finds: ClassVar[str]
    # The report's message, with {name} (the factory), {when} ("then moved with" or "moved on a later
    # line with"), {move} (`.to(...)`, `.cuda()`) and {suggestion} (the factory with `device=`)
    message: ClassVar[str]

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.pending: list[tuple[cst.CSTNode, str, Optional[Fix]]] = []
        self.repeats: dict[int, str] = {}  # id(factory) -> where the copy is paid over and over (`repeating`)
        self._loops: list[Optional[cst.FunctionDef]] = []  # the function each enclosing loop body is in
        # the function each enclosing block that ends with a `raise` is in (`except ...: ...; raise`)
        self._raising: list[Optional[cst.FunctionDef]] = []

    def _pend(self, finding: tuple[cst.CSTNode, str, Optional[Fix]], target: Optional[cst.BaseExpression]) -> None:
        self.pending.append(finding)
        where = self.repeating(target)
        if where is not None:
            self.repeats[id(finding[0])] = where

    def repeating(self, target: Optional[cst.BaseExpression] = None) -> Optional[str]:
        """Where the code here runs over and over, said for a message: a loop's body in this function, a
        `forward` or a step, a function the project calls so (the project index), or a function that moves the
        copy to where a tensor it is given is (`target`, the move's: `x.device`, `x`): it runs once per input,
        so on the data path; None: maybe once."""
        if is_test_code(self.ctx.path):
            return None  # a test's inputs are made for the test's run, however often it repeats them: not a hot path
        function = self.ctx.current_function()
        if any(where is function for where in self._raising):
            return None  # an error path (a block that ends by raising): paid once, when it fails
        if any(loop is function for loop in self._loops):
            return "in a loop: the copy is paid on every iteration"
        if function is None:
            return None
        name = function.name.value
        if repeating_function(name):
            return f"in `{name}`: the copy is paid on every call"
        if self.ctx.project.called_repeatedly(name):
            return f"in `{name}`, which the project calls in a loop or per step: the copy is paid on every call"
        given = _given_tensor(target, function) if target is not None and not name.startswith("test") and (
            not isinstance(target, cst.Name) or self._is_tensor(target)) else None  # `.to(rank)`: an index
        if given is not None:  # (a test function's input is made once, for the test)
            return f"in `{name}`, which runs for each `{given}` it is given: the copy is paid on every call"
        return None

    def _enter_loop(self) -> None:
        self._loops.append(self.ctx.current_function())

    def _leave_loop(self) -> None:
        self._loops.pop()

    def visit_For_body(self, node: cst.For) -> None:
        self._enter_loop()

    def leave_For_body(self, node: cst.For) -> None:
        self._leave_loop()

    def visit_While_body(self, node: cst.While) -> None:
        self._enter_loop()

    def leave_While_body(self, node: cst.While) -> None:
        self._leave_loop()

    def visit_ListComp_elt(self, node: cst.ListComp) -> None:
        self._enter_loop()

    def leave_ListComp_elt(self, node: cst.ListComp) -> None:
        self._leave_loop()

    def visit_GeneratorExp_elt(self, node: cst.GeneratorExp) -> None:
        self._enter_loop()

    def leave_GeneratorExp_elt(self, node: cst.GeneratorExp) -> None:
        self._leave_loop()

    def visit_DictComp_value(self, node: cst.DictComp) -> None:
        self._enter_loop()

    def leave_DictComp_value(self, node: cst.DictComp) -> None:
        self._leave_loop()

    def describe(self, name: str, move: str, suggestion: str, later: bool, computed: bool = False) -> str:
        """The report's message for factory `name` moved with `move` (`computed`: what is computed from
        it with numbers is moved)."""
        when = ("what is computed from it is then moved with" if computed
                else "moved on a later line with" if later else "then moved with")
        return self.message.format(name=name, when=when, move=move, suggestion=suggestion)

    def _finding(self, factory: cst.Call, name: str) -> Optional[str]:
        """The kind of finding a moved factory is, or None where there is none."""
        if _empty(factory, name):
            return None  # a 0-element placeholder: nothing is allocated or copied
        arguments_kind = legacy_kind(factory) if name in LEGACY_CONSTRUCTORS else None
        if name in LEGACY_CONSTRUCTORS and arguments_kind is None:
            # `torch.LongTensor(ids)`: sizes or data, the file does not show which; but
            # `torch.Tensor(torch.zeros(n))` wraps a host allocation made for nothing
            args = positional(factory)
            wrapped = len(factory.args) == 1 and args and cpu_factory_name(args[0].value, self.torch)
            return ALLOCATION if wrapped and wrapped not in _DATA_FACTORIES else None
        data = name in _DATA_FACTORIES or arguments_kind == "tensor"
        if not data:
            return ALLOCATION
        args = positional(factory)
        if args and self._is_tensor(args[0].value):
            return None  # `torch.tensor(t)` copies `t` where it is: no host copy to avoid
        return HOST_DATA

    def _is_tensor(self, expr: cst.BaseExpression) -> bool:
        kind = self.ctx.types.kind_of(expr, self.ctx.enclosing_functions(), self.ctx.current_class(),
                                      self.ctx.types.narrowed_kinds(self.ctx.narrowed()))
        return kind is Kind.TENSOR

    def visit_Call(self, node: cst.Call) -> None:
        target = move_target(node, self.torch)
        if target is None or self.ctx.device_placed():
            return
        factory = strip_casts(node.func.value)  # type: ignore[union-attr]
        name = cpu_tensor_name(factory, self.torch)
        computed: Optional[cst.BaseExpression] = None
        if name is None:
            found = lone_factory(factory, self.torch, self._bindings)
            if found is None:
                return
            computed, factory = factory, found
            name = cpu_tensor_name(factory, self.torch)
            if name is None:
                return
        assert isinstance(factory, cst.Call)
        if self._finding(factory, name) != self.finds:
            return
        method = node.func.attr.value  # type: ignore[union-attr]
        move = ".cuda()" if method == "cuda" else ".to(...)"
        tensor_target = self._tensor_target(target) if method == "to" else None
        if computed is not None:
            if tensor_target is None:  # (`.to(other)` also casts to other's dtype: computed in the factory's)
                message = self.describe(name, move, _suggestion(factory, name), later=False, computed=True)
                self._pend((factory, message, self._computed_fix(node, computed, factory, name, target)), target)
            return
        if tensor_target is not None:
            self._pend((factory, self._tensor_target_message(factory, name, tensor_target),
                        self._new_factory_fix(node, factory, name, tensor_target)), target)
            return
        message = self.describe(name, move, _suggestion(factory, name), later=False)
        self._pend((factory, message, self._inline_fix(node, factory, name, target)), target)

    def _tensor_target(self, target: cst.BaseExpression) -> Optional[str]:
        """The target's code when it is shown to be a tensor (`.to(other)`: its device and dtype)."""
        if isinstance(target, (cst.Name, cst.Attribute)) and self._is_tensor(target):
            return self.ctx.module.code_for_node(target)
        return None

    def _tensor_target_message(self, factory: cst.Call, name: str, other: str) -> str:
        # A legacy constructor takes neither `device=` nor `dtype=`: its modern factory does.
        modern = (legacy_kind(factory) or "tensor") if name in LEGACY_CONSTRUCTORS else name
        instead = (f"`{other}.new_{name}(...)`" if name in _NEW_FACTORIES
                   else f"`torch.{modern}(..., device={other}.device, dtype={other}.dtype)`")
        return (f"`torch.{name}(...)` is created on the CPU and then moved with `.to({other})`, which also"
                f" converts it to `{other}`'s dtype; create it there: {instead}")

    def _new_factory_fix(self, move: cst.Call, factory: cst.Call, name: str, other: str) -> Optional[Fix]:
        """`torch.zeros(n).to(other)` -> `other.new_zeros(n)` (its device and dtype); only for the
        factories whose values are the same in every dtype and a call with no casts between."""
        receiver = move.func.value  # type: ignore[union-attr]
        if receiver is not factory or name not in _NEW_FACTORIES or len(move.args) != 1:
            return None
        if any(arg.star or (arg.keyword is not None and arg.keyword.value not in ("dtype", "requires_grad"))
               for arg in factory.args):
            return None
        args = [arg for arg in factory.args if arg.keyword is None or arg.keyword.value != "dtype"]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new = cst.Call(func=cst.Attribute(value=cst.parse_expression(other), attr=cst.Name(f"new_{name}")),
                       args=args)
        return Fix(Applicability.SAFE, shown_code("Create the tensor on the device", new), {move: new})

    def _inline_fix(self, move: cst.Call, factory: cst.Call, name: str, target: cst.BaseExpression) -> Optional[Fix]:
        receiver = move.func.value  # type: ignore[union-attr]
        if _type_cast_between(receiver, factory, self.torch):
            return None
        placed = self._placed_factory(move, target, factory, name, cast_between=receiver is not factory)
        if placed is None:
            return None
        new_factory, applicability = placed
        # Rebuild the chain with the move removed: the casts between factory and move stay.
        replaced = _replace_in_chain(receiver, factory, new_factory)
        return Fix(applicability, shown_code("Create the tensor on the device", new_factory), {move: replaced})

    def _computed_fix(self, move: cst.Call, computed: cst.BaseExpression, factory: cst.Call, name: str,
                      target: cst.BaseExpression) -> Optional[Fix]:
        """`exp(c * torch.arange(n) / k).to(d)` -> `exp(c * torch.arange(n, device=d) / k)`: unsafe where the
        values are then computed by the device's kernels (which may round otherwise in the last bit); as
        safe as the plain fix where the factory's tensor is only reshaped (`torch.arange(n).view(-1, 1)`)."""
        folded = _move_arguments(move, target, self.torch)
        if folded is None or folded[1] is not None or name in LEGACY_CONSTRUCTORS:
            return None
        receiver = move.func.value  # type: ignore[union-attr]
        applicability = _applicability(folded[0], name, self.torch)
        if applicability is None or _type_cast_between(receiver, computed, self.torch):
            return None
        if not _only_reshaped(computed, factory):
            applicability = Applicability.UNSAFE
        new_factory = append_keyword(factory, "device", folded[0])
        replaced = _replace_in_chain(receiver, computed, computed.deep_replace(factory, new_factory))
        return Fix(applicability, shown_code("Create the tensor on the device", new_factory), {move: replaced})

    def _bindings(self) -> dict[str, list[cst.CSTNode]]:
        """What each name of the enclosing function (else the module) is bound to (nothing for a name
        bound otherwise than by a plain assignment somewhere)."""
        functions = self.ctx.enclosing_functions()
        scope = functions[0] if functions else self.ctx.module
        return {name: [value for how, value in bindings if how == "value"] if all(
                    how == "value" for how, _ in bindings) else []
                for name, bindings in self.ctx.types.scope_index(scope).bindings.items()}

    def _placed_factory(self, move: cst.Call, target: cst.BaseExpression, factory: cst.Call, name: str,
                        cast_between: bool) -> Optional[tuple[cst.Call, Applicability]]:
        """The factory call that creates on the move's device what the move produced, and how
        safe that is; None when the move says something the factory cannot (a fix never drops
        an argument of the call it rewrites)."""
        folded = _move_arguments(move, target, self.torch)
        if folded is None:
            return None
        device, dtype = folded
        applicability = _applicability(device, name, self.torch)
        if applicability is None:
            return None
        if name in LEGACY_CONSTRUCTORS:
            if dtype is not None:
                return None
            placed = _from_legacy(factory, name, device, self.torch)
            return None if placed is None else (placed, applicability)
        if dtype is not None:
            # `zeros(n).to(d, torch.half)` is `zeros(n, dtype=torch.half, device=d)`: its values are
            # the same in every dtype. Elsewhere the cast may round otherwise (`full`, `arange`,
            # `tensor`, random draws), or a cast between would come after it: no fix.
            if cast_between or name not in EXACT_IN_EVERY_DTYPE or keyword(factory, "dtype") is not None:
                return None
            factory = append_keyword(factory, "dtype", dtype)
        return append_keyword(factory, "device", device), applicability

    # `x = torch.zeros(n)` ... `x = x.to(dev)` in the same block
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if _ends_by_raising(node.body):
            self._raising.append(self.ctx.current_function())
        self._split_moves(node.body)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        if _ends_by_raising(original_node.body):
            self._raising.pop()

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
            name = cpu_tensor_name(factory, self.torch)
            if name is None or factory is not created.value or self._finding(factory, name) != self.finds:
                continue
            for j in range(i + 1, min(i + 8, len(body))):
                later = body[j]
                move = _self_move(later, variable, self.torch)
                if move is not None:
                    self._report_split(body, i, factory, name, j, move)  # type: ignore[arg-type]
                    break
                if variable in set(identifiers(later)):
                    break

    def _report_split(self, body: Sequence[cst.BaseStatement], i: int, factory: cst.Call, name: str, j: int,
                      move: cst.Call) -> None:
        method = move.func.attr.value  # type: ignore[union-attr]
        message = self.describe(name, f".{method}(...)", _suggestion(factory, name), later=True)
        self._pend((factory, message, self._split_fix(body, i, factory, name, j, move)), move_target(move, self.torch))

    def _split_fix(self, body: Sequence[cst.BaseStatement], i: int, factory: cst.Call, name: str, j: int,
                   move: cst.Call) -> Optional[Fix]:
        """The device goes into the factory and the move's line goes; its comments and blank
        lines stay where a reader expects them (see `_without_statement`)."""
        target = move_target(move, self.torch)
        if target is None:
            return None
        placed = self._placed_factory(move, target, factory, name, cast_between=False)
        if placed is None:
            return None
        new_factory, applicability = placed
        # the move's arguments are evaluated later: names they read must not change in between
        read = {n for arg in move.args for n in identifiers(arg.value)}
        if any(read & set(identifiers(s)) for s in body[i + 1:j]):
            return None
        replacements = _without_statement(body, i, j)
        if replacements is None:
            return None
        first = replacements.pop(body[i], body[i])
        # `with_changes` keeps a statement's children, so the factory is still found in it
        replacements[body[i]] = first.deep_replace(factory, new_factory)  # type: ignore[arg-type]
        return Fix(applicability, shown_code("Create the tensor on the device", new_factory), replacements)

    def finish(self) -> None:
        if not self.pending or self.ctx.follows_a_default_device():
            return  # nothing to report, or factories land on the default device already
        for node, message, fix in self.pending:
            self.report(node, message, fix)


def cpu_tensor_name(node: cst.BaseExpression, torch: TorchNames) -> Optional[str]:
    """A factory that creates on the CPU (`cpu_factory_name`), or a legacy constructor with
    arguments and no keywords (`torch.LongTensor(ids)`): always a CPU tensor."""
    name = cpu_factory_name(node, torch)
    if name is not None:
        return name
    legacy = legacy_constructor_name(node, torch)
    if legacy is None or any(arg.keyword is not None or arg.star == "**" for arg in node.args):  # type: ignore
        return None
    return legacy


_NUMBER_BUILTINS = frozenset({"int", "float", "len", "round"})  # their result is a number (`abs`, `max`: maybe not)


def lone_factory(expr: cst.BaseExpression, torch: TorchNames,
                 bindings_of: Callable[[], dict[str, list[cst.CSTNode]]]) -> Optional[cst.Call]:
    """The one CPU factory an expression is computed from with numbers only (`-c * torch.arange(n) / k`,
    `torch.exp(...)` of that, `.unsqueeze(0)` of it): the result is a host tensor as the factory's is,
    and giving the factory the device computes the same values there. None when anything else may be a
    tensor: every other operand must be shown to be a number (a literal, `math.*`, `int(...)`, a name
    bound only to those, or a name the factory itself takes as a size)."""
    factories = [node for node in _operands(expr, torch) if isinstance(node, cst.Call) and
                 cpu_tensor_name(node, torch) is not None]
    if len(factories) != 1:
        return None
    factory = factories[0]
    name = cpu_tensor_name(factory, torch)
    # the names it is given as sizes or a range (`torch.tensor(xs)` and a legacy constructor may be given data)
    sizes = set() if name in _DATA_FACTORIES or name in LEGACY_CONSTRUCTORS else {
        arg.value.value for arg in factory.args if isinstance(arg.value, cst.Name)
        and (arg.keyword is None or arg.keyword.value in ("start", "end", "step", "size"))}
    others = [node for node in _operands(expr, torch) if node is not factory]
    bindings = bindings_of() if others else {}
    return factory if all(_is_number(node, bindings, sizes, 0) for node in others) else None


def _only_reshaped(expr: cst.BaseExpression, factory: cst.Call) -> bool:
    """`factory.view(-1, 1).float()`: a chain of reshaping and casting methods, no arithmetic."""
    while expr is not factory:
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in RESHAPING_METHODS | CAST_METHODS):
            return False
        expr = expr.func.value
    return True


def _operands(expr: cst.BaseExpression, torch: TorchNames) -> list[cst.BaseExpression]:
    """The leaves of an expression made of arithmetic, element-wise torch functions and reshaping
    methods (a factory is a leaf); a call of anything else is a leaf too (it is no number)."""
    if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
        return _operands(expr.left, torch) + _operands(expr.right, torch)
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        return _operands(expr.expression, torch)
    if isinstance(expr, cst.Call) and cpu_tensor_name(expr, torch) is None:
        full = torch.qualify(expr.func)
        if full is not None and full.startswith("torch.") and full[6:] in UNARY_ELEMENTWISE and len(expr.args) == 1 \
                and expr.args[0].keyword is None and not expr.args[0].star:
            return _operands(expr.args[0].value, torch)
        if isinstance(expr.func, cst.Attribute) and full is None and (
                (expr.func.attr.value in UNARY_ELEMENTWISE | CAST_METHODS and not expr.args)
                or expr.func.attr.value in RESHAPING_METHODS):
            return _operands(expr.func.value, torch) + [arg.value for arg in expr.args]
    return [expr]


def _is_number(expr: cst.BaseExpression, bindings: dict[str, list[cst.CSTNode]], sizes: set[str], depth: int) -> bool:
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        return _is_number(expr.expression, bindings, sizes, depth)
    if isinstance(expr, cst.BinaryOperation):
        return all(_is_number(side, bindings, sizes, depth) for side in (expr.left, expr.right))
    if isinstance(expr, cst.Call):
        callee = dotted_name(expr.func) or ""
        return callee.startswith("math.") or callee in _NUMBER_BUILTINS
    if isinstance(expr, cst.Name):
        if expr.value in sizes:
            return True
        values = bindings.get(expr.value, [])
        return depth < 4 and bool(values) and all(
            isinstance(value, cst.BaseExpression) and _is_number(value, bindings, sizes, depth + 1) for value in values)
    return False


def _suggestion(factory: cst.Call, name: str) -> str:
    if name not in LEGACY_CONSTRUCTORS:
        return f"`torch.{name}(..., device=...)`"
    dtype = f"torch.{LEGACY_DTYPES[name]}" if name in LEGACY_DTYPES else "..."
    kind = legacy_kind(factory)
    if kind is not None:
        return f"`torch.{kind}(..., dtype={dtype}, device=...)`"
    return f"`torch.tensor(data, dtype={dtype}, device=...)` or `torch.empty(size, dtype={dtype}, device=...)`"


def _from_legacy(factory: cst.Call, name: str, device: cst.BaseExpression, torch: TorchNames) -> Optional[cst.Call]:
    """`torch.LongTensor([1, 2])` -> `torch.tensor([1, 2], dtype=torch.long, device=d)`; None
    unless the file shows data or sizes, the dtype is known (`torch.Tensor` follows the default
    dtype), and torch is reached through its module name."""
    kind = legacy_kind(factory)
    func = factory.func
    if kind is None or name not in LEGACY_DTYPES or not isinstance(func, cst.Attribute):
        return None
    if not isinstance(func.value, cst.Name) or torch.qualify(func.value) != "torch":
        return None
    dtype = cst.Attribute(value=cst.Name(func.value.value), attr=cst.Name(LEGACY_DTYPES[name]))
    call = factory.with_changes(func=func.with_changes(attr=cst.Name(kind)))
    return append_keyword(append_keyword(call, "dtype", dtype), "device", device)


def _move_arguments(move: cst.Call, target: cst.BaseExpression,
                    torch: TorchNames) -> Optional[tuple[cst.BaseExpression, Optional[cst.BaseExpression]]]:
    """The move's device (as the expression to pass as `device=`) and dtype, or None when it
    passes more: `non_blocking=`, `copy=`, `memory_format=` have no place in a factory, and a
    fix never drops an argument (for `torch.tensor(data)` the device form would even copy
    without `non_blocking`)."""
    method = move.func.attr.value  # type: ignore[union-attr]
    if method == "cuda":
        return (cst.SimpleString('"cuda"'), None) if not move.args else None
    if any(arg.star for arg in move.args):
        return None
    dtype: Optional[cst.BaseExpression] = None
    positional_ = [arg for arg in move.args if arg.keyword is None]
    for arg in move.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value == "dtype":
            dtype = arg.value
        elif arg.keyword.value != "device":
            return None
    device_by_keyword = keyword(move, "device") is not None
    # `.to(device, dtype)`; with `device=` a lone positional is the dtype
    positional_dtypes = positional_ if device_by_keyword else positional_[1:]
    if len(positional_dtypes) > 1 or (positional_dtypes and dtype is not None):
        return None
    if positional_dtypes:
        dtype = positional_dtypes[0].value
    if not device_by_keyword and (not positional_ or positional_[0].value is not target):
        return None
    return target, dtype


def _applicability(device: cst.BaseExpression, factory_name_: str, torch: TorchNames) -> Optional[Applicability]:
    plain = is_plain_device(device, torch)
    looks_like_device = plain or any("dev" in word.lower() for word in identifiers(device))
    if not looks_like_device:
        return None  # may be a tensor: `.to(other)` also takes its dtype
    if factory_name_ in RANDOM_FACTORIES or not plain:
        return Applicability.UNSAFE
    return Applicability.SAFE


def _type_cast_between(expr: cst.BaseExpression, factory: cst.Call, torch: TorchNames) -> bool:
    """A `.type(T)` between factory and move whose `T` may name a device (`"torch.FloatTensor"`,
    `x.type()`): after the move is gone it would take the tensor back to T's device."""
    while expr is not factory and isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        if expr.func.attr.value == "type" and not all(is_dtype(arg.value, torch) for arg in expr.args):
            return True
        expr = expr.func.value
    return False


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


def _without_statement(body: Sequence[cst.BaseStatement], i: int,
                       j: int) -> Optional[dict[cst.CSTNode, cst.CSTNode]]:
    """Replacements that remove `body[j]` (the move) and keep what it carried:
    - a comment at its end goes to the end of `body[i]` (the factory's line), if that has none;
    - comment lines above it go above `body[i]` when nothing stands between the two;
    - blank lines above it go to the statement after it (the paragraph break stays), unless
      that one starts with a blank line already or there is none.
    None where a comment has nowhere sensible to go."""
    first, second = body[i], body[j]
    assert isinstance(first, cst.SimpleStatementLine) and isinstance(second, cst.SimpleStatementLine)
    replacements: dict[cst.CSTNode, cst.CSTNode] = {second: cst.RemoveFromParent()}
    comment = second.trailing_whitespace.comment
    new_first = first
    if comment is not None:
        if first.trailing_whitespace.comment is not None:
            return None
        new_first = new_first.with_changes(trailing_whitespace=first.trailing_whitespace.with_changes(
            whitespace=cst.SimpleWhitespace("  "), comment=comment))
    leading = list(second.leading_lines)
    comments = [line for line in leading if line.comment is not None]
    if comments:
        if j != i + 1:
            return None
        new_first = new_first.with_changes(leading_lines=[*first.leading_lines, *comments])
    blanks = [line for line in leading if line.comment is None]
    if blanks and j + 1 < len(body):
        after = body[j + 1]
        after_leading = list(getattr(after, "leading_lines", ()))
        if not (after_leading and after_leading[0].comment is None):
            replacements[after] = after.with_changes(leading_lines=[blanks[0], *after_leading])
    if new_first is not first:
        replacements[first] = new_first
    return replacements


def _empty(factory: cst.Call, name: str) -> bool:
    """A 0-element tensor written out: `torch.zeros(0)`, `torch.empty(0, 3)`, `torch.tensor([])`, `torch.arange(0, 0)`
    (an `arange` whose literal bounds hold no step)."""
    args = [arg.value for arg in factory.args if arg.keyword is None and not arg.star]
    if name == "arange":
        bounds = [integer_value(arg) for arg in args]
        if not bounds or None in bounds or any(arg.keyword is not None and arg.keyword.value in (
                "start", "end", "step") for arg in factory.args):
            return False
        start, end, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds[:2], bounds[2] if len(bounds) > 2 else 1)
        return step > 0 and end <= start or step < 0 and end >= start  # type: ignore[operator]
    if name in _DATA_FACTORIES or name in LEGACY_CONSTRUCTORS:
        return bool(args) and isinstance(args[0], (cst.List, cst.Tuple)) and not args[0].elements
    if name not in ("zeros", "ones", "empty", "full", "rand", "randn", "randint"):
        return False
    sizes = args[:1] if name == "full" else args[-1:] if name == "randint" else args
    if len(sizes) == 1 and isinstance(sizes[0], (cst.List, cst.Tuple)):
        sizes = [element.value for element in sizes[0].elements]
    return any(integer_value(size) == 0 for size in sizes)


def _given_tensor(target: cst.BaseExpression, function: cst.FunctionDef) -> Optional[str]:
    """The parameter of `function` whose device the move's `target` is (`x.device`, `x.weight.device`, `x` itself in
    `.to(x)`, where the caller shows `x` is a tensor, `x[0].device`); None for a device the function is given as such
    (`device`) or its own (`self.device`)."""
    expr = target.value if isinstance(target, cst.Attribute) and target.attr.value == "device" else target
    if expr is target and not isinstance(target, cst.Name):
        return None  # `.to(x.dtype)`, `.to(get_device())`: no tensor's place
    while isinstance(expr, (cst.Attribute, cst.Subscript)):
        expr = expr.value
    if not isinstance(expr, cst.Name) or expr.value in ("self", "cls") or names_a_device(expr.value):
        return None
    return expr.value if expr.value in named_parameters(function) else None


def _ends_by_raising(body: Sequence[cst.BaseStatement]) -> bool:
    last = body[-1] if body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)
