"""DEV010 — a host read of a `non_blocking=True` copy to the CPU with no synchronize in between: the
visitor."""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from devlint.analysis.edits import short
from devlint.analysis.factories import cpu_factory_name, is_host
from devlint.analysis.names import dotted_name, keyword, positional
from devlint.analysis.terminating import terminating
from devlint.analysis.types import TENSOR_METHODS
from devlint.analysis.walk import nodes, own_nodes_in_order
from devlint.rules.base import RuleVisitor
from devlint.rules.dev010_unsynchronised_nonblocking_read import RULE

# A call of one of these may wait for the GPU (on a GPU tensor, reading it on the host does): the
# pending copy may be complete after it.
_WAITING_METHODS = frozenset({"synchronize", "item", "tolist", "numpy", "cpu", "wait", "wait_event"})
# Format or convert the values (`list(y)` and `tuple(y)` only make views: the values are read later).
_HOST_BUILTINS = frozenset({"print", "float", "int", "bool", "str", "repr"})
_READ_METHODS = frozenset({"numpy", "tolist", "item"})
_VIEW_READS = frozenset({"numpy", "asarray"})  # share the buffer: the read happens later (`np.array` copies)
_NUMPY_READS = frozenset({"asarray", "array"})
# Calls that take a tensor without reading its values: containers keep it, builtins look at the object
# (`list(y)` makes views), and tensor methods of another value run in stream order like the copy.
_KEEPS_OR_INSPECTS = frozenset({
    "append", "extend", "insert", "add", "put", "put_nowait", "update", "setdefault", "appendleft", "push",
    "record_stream", "wait_stream", "len", "isinstance", "type", "id", "list", "tuple", "dict", "set", "zip",
    "enumerate", "iter", "getattr", "setattr", "hasattr", "super", "partial", "register_buffer",
})


def _is_true(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "True"


def _chain_root(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`y[0].argmax(-1)` -> `y`: the value a chain of subscripts, attributes and method calls starts from."""
    while True:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            expr = expr.func.value
        elif isinstance(expr, (cst.Subscript, cst.Attribute)):
            expr = expr.value
        else:
            return expr


class UnsynchronisedNonblockingRead(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._reported: set[int] = set()
        self._definitions: Optional[set[str]] = None  # the names of the functions and classes this file defines

    # -- what is a copy to the host that has not landed yet ----------------------------------
    def _host_copy(self, call: cst.BaseExpression, scope: Optional[cst.FunctionDef] = None) -> Optional[cst.Call]:
        """`x.to("cpu", non_blocking=True)` of an `x` not shown to be on the CPU (in `scope`, else where the
        visitor is): the call."""
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "to"):
            return None
        flag = keyword(call, "non_blocking")
        if flag is None or not _is_true(flag.value):
            return None
        target = keyword(call, "device")
        if target is None:
            args = positional(call)
            target = args[0] if args else None
        if target is None or not is_host(target.value, self.torch):
            return None
        return None if self._on_host(call.func.value, scope) else call

    def _host_move(self, call: cst.BaseExpression) -> bool:
        """A copy to the CPU queued without waiting: `x.to("cpu", non_blocking=True)`, or any call given
        torch's move keywords with a host target, `self._to(device="cpu", non_blocking=True)` (a class's own
        move that hands them on to `Tensor.to`)."""
        if self._host_copy(call) is not None:
            return True
        if not isinstance(call, cst.Call):
            return False
        flag, target = keyword(call, "non_blocking"), keyword(call, "device")
        return (flag is not None and _is_true(flag.value) and target is not None
                and is_host(target.value, self.torch))

    def _pinned_copy(self, call: cst.BaseExpression) -> Optional[str]:
        """`buf.copy_(x, non_blocking=True)` into a buffer shown to be pinned: the buffer's name."""
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "copy_" and isinstance(call.func.value, cst.Name)):
            return None
        flag = keyword(call, "non_blocking")
        args = positional(call)
        if flag is None or not _is_true(flag.value) or not args or self._on_host(args[0].value):
            return None
        name = call.func.value.value
        values = self._values_of(name)
        if values and all(_is_pinned(value) for value in values):
            return name
        return None

    def _values_of(self, name: str, scope: Optional[cst.FunctionDef] = None) -> list[cst.BaseExpression]:
        """What `name` is bound to in `scope`, else in the enclosing function (empty unless every binding is a
        value)."""
        function = scope if scope is not None else self.ctx.current_function()
        where: cst.Module | cst.FunctionDef = function if function is not None else self.ctx.module
        bindings = self.ctx.types.scope_index(where).bindings.get(name, [])
        if not bindings or any(how != "value" for how, _ in bindings):
            return []
        return [value for _, value in bindings]  # type: ignore[misc]

    def _returns_copy(self, call: cst.BaseExpression) -> bool:
        """`fetch(x)` / `self.fetch(x)` of a function of this file whose every return hands back a `non_blocking=True`
        copy to the CPU (`return x.to("cpu", non_blocking=True)`, or a name bound to one with nothing between that
        waits) and that never synchronizes: its caller holds a copy that has not landed."""
        if not isinstance(call, cst.Call):
            return False
        callee = dotted_name(call.func)
        function = self._own_function(callee) if callee else None
        if function is None or _waits(function.body, frozenset()):
            return False
        returns = [node for node in own_nodes_in_order(function.body) if isinstance(node, cst.Return)]
        return bool(returns) and all(self._returned_copy(function, node) for node in returns)

    def _returned_copy(self, function: cst.FunctionDef, node: cst.Return) -> bool:
        value = node.value
        if value is None:
            return False
        if self._host_copy(value, function) is not None:
            return True
        values = self._values_of(value.value, function) if isinstance(value, cst.Name) else []
        return len(values) == 1 and self._host_copy(values[0], function) is not None

    @terminating(False)
    def _on_host(self, source: cst.BaseExpression, scope: Optional[cst.FunctionDef] = None) -> bool:
        """Shown to be on the CPU: a chain through `.cpu()`, a CPU factory, or a name bound only to those."""
        node: cst.BaseExpression = source
        while True:
            if cpu_factory_name(node, self.torch) is not None or self.torch.is_call_to(node, "from_numpy"):
                return True
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
                break
            if node.func.attr.value == "cpu":
                return True
            node = node.func.value
        if isinstance(node, cst.Name):
            values = self._values_of(node.value, scope)
            return bool(values) and all(self._on_host(value, scope) for value in values)
        return False

    # -- reads ---------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        """`x.to("cpu", non_blocking=True).numpy()`: read before the copy can have landed; `run(x.to("cpu",
        non_blocking=True))`: handed at once to a call that reads it."""
        for position, arg in enumerate(node.args):
            if arg.keyword is None and not arg.star and self._host_copy(arg.value) is not None and (
                    self._reads_handed_copy(node, position)):
                self._report_handed(arg.value, node)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _READ_METHODS:
            receiver: cst.BaseExpression = node.func.value
            while True:
                if self._host_copy(receiver) is not None or self._returns_copy(receiver):
                    self._report_read(node, f"`{self.ctx.module.code_for_node(receiver)}`")
                    return
                if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute):
                    receiver = receiver.func.value
                elif isinstance(receiver, cst.Subscript):
                    receiver = receiver.value
                else:
                    return

    def visit_Return(self, node: cst.Return) -> None:
        """`def cpu(self): return self._to(device="cpu", non_blocking=True)`: a `cpu()` promises what torch's
        `Tensor.cpu()` and `Module.cpu()` give, values its caller can read at once; a copy still queued breaks
        that promise for every caller."""
        function = self.ctx.current_function()
        if (function is None or function.name.value != "cpu" or node.value is None
                or not self._host_move(node.value)):
            return
        self.report(node.value, "`cpu()` returns this `non_blocking=True` copy to the CPU before it has landed:"
                                " its callers read it at once, as they read `Tensor.cpu()`, and may see zeros or"
                                " stale values; copy with `non_blocking=False`, or synchronize before returning")

    # A block is read when it is left: every import in the file up to there is recorded by then.
    def leave_Module(self, original_node: cst.Module) -> None:
        self._block(original_node.body)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self._block(original_node.body)

    def _block(self, statements: Sequence[cst.BaseStatement]) -> None:
        for position, statement in enumerate(statements):
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                continue
            small = statement.body[0]
            name = None
            if (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)
                    and (self._host_copy(small.value) is not None or self._returns_copy(small.value))):
                name = small.targets[0].target.value
            elif isinstance(small, cst.Expr):
                name = self._pinned_copy(small.value)
            if name is not None:
                self._follow(name, statements[position + 1:])

    def _follow(self, name: str, rest: Sequence[cst.BaseStatement]) -> None:
        """Report the first host read of `name` in `rest` that nothing before it can have waited for; or of a name
        bound to what is taken from it (`v = y[0]`, `first = y.view(-1)`, `s = y.sum()`: a view of the buffer the
        copy has not filled yet, or values computed from it)."""
        followed = {name: f"`{name}`"}  # each name that holds the copy's values -> how the message says it
        for index, statement in enumerate(rest):
            simple = isinstance(statement, cst.SimpleStatementLine)
            smalls: list[cst.CSTNode] = list(statement.body) if simple else [statement]  # type: ignore[union-attr]
            for small in smalls:
                names = frozenset(followed)
                if _waits(small, names):
                    return  # (in a statement that also reads `name`, the wait may come first)
                for held in followed:
                    read = self._read_of(held, small)
                    if read is not None:
                        # `a = y.numpy()` shares the buffer: a wait later in the block may come before `a` is used
                        if not (self._is_view_read(read) and any(_waits(s, names) for s in rest[index + 1:])):
                            self._report_read(read, followed[held])
                        return
                taken = _taken_from(small, names)
                for bound in _bound_by(small):
                    followed.pop(bound, None)
                if taken is not None:
                    followed[taken] = f"`{name}`" if taken == name else f"`{taken}` (taken from `{name}`)"
                if not followed:
                    return

    def _read_of(self, name: str, root: cst.CSTNode) -> Optional[cst.Call]:
        for node in own_nodes_in_order(root):
            if not isinstance(node, cst.Call):
                continue
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in _READ_METHODS:
                if _is_name(_chain_root(func.value), name):
                    return node
            callee = dotted_name(func) or ""
            last = callee.rsplit(".", 1)[-1]
            if callee in _HOST_BUILTINS or (last in _NUMPY_READS and callee.split(".")[0] in ("np", "numpy")) or (
                    self._hands_over(func, callee)):
                if any(_is_name(_chain_root(arg.value), name) for arg in node.args):
                    return node
        return None

    def _hands_over(self, func: cst.BaseExpression, callee: str) -> bool:
        """`plan(indptr_host)`, `self.wrapper.plan(...)`, `onp.asarray(y)`: a function of another library
        (or native code) given the host tensor reads its memory on the host now, without waiting for the
        stream. Not torch's (not followed: a copy back to a GPU is queued in stream order), not another
        tensor's method, not a function of this file (it may wait first), not a call that only keeps or
        inspects the value (`ys.append(y)`, `len(y)`)."""
        last = callee.rsplit(".", 1)[-1]
        if not callee or self.torch.qualify(func) is not None or last in _KEEPS_OR_INSPECTS:
            return False
        if "." in callee and last in TENSOR_METHODS:
            return False  # `other.copy_(y)`: a tensor method of another value
        if last in _HOST_BUILTINS or last in _READ_METHODS:
            return False  # (read above where it is one)
        return last not in self._own_names() or self._held_from_elsewhere(callee)

    def _reads_handed_copy(self, call: cst.Call, position: int) -> bool:
        """Does `call` read its argument at `position` on the host now? Another library's function (as
        `_hands_over`), or a function of this file that reads that parameter and never waits for the GPU
        (`self.run_expert_at_cpu(i, x.to("cpu", non_blocking=True))` that runs a layer on it)."""
        callee = dotted_name(call.func) or ""
        if callee in _HOST_BUILTINS or self._hands_over(call.func, callee):
            return True
        function = self._own_function(callee)
        if function is None:
            return False
        params = [*function.params.posonly_params, *function.params.params]
        if callee.startswith("self.") and params and params[0].name.value == "self":
            params = params[1:]
        if position >= len(params) or any(p.star for p in params[:position + 1]):
            return False
        name = params[position].name.value
        return not _waits(function.body, frozenset({name})) and _reads_in(function.body, name, self.torch)

    def _own_function(self, callee: str) -> Optional[cst.FunctionDef]:
        """The definition `callee` names: `self.m` in the current class, or a function of the module."""
        parts = callee.split(".")
        if len(parts) == 2 and parts[0] == "self":
            cls = self.ctx.current_class()
            body = cls.body.body if cls is not None and isinstance(cls.body, cst.IndentedBlock) else ()
        elif len(parts) == 1 and parts[0]:
            body = self.ctx.module.body
        else:
            return None
        found = [s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == parts[-1]]
        return found[0] if len(found) == 1 and not found[0].decorators else None

    def _own_names(self) -> set[str]:
        """The functions and classes this file defines (from `ast` where it is at hand: a narrowed tree leaves some
        out; else one walk of the module)."""
        syntax = self.ctx.syntax
        if self._definitions is None and syntax is not None:
            self._definitions = {f.name for f in syntax.functions} | {c.name for c in syntax.classes}
        elif self._definitions is None:
            self._definitions = {node.name.value for node in nodes(self.ctx.module)
                                 if isinstance(node, (cst.FunctionDef, cst.ClassDef))}
        return self._definitions

    def _held_from_elsewhere(self, callee: str) -> bool:
        """`self._module.plan(...)` where the class binds `self._module` only to what another module's
        functions return (`get_batch_decode_module(...)`): a method of another library's object, even
        when this file has a function of that name."""
        parts = callee.split(".")
        cls = self.ctx.current_class()
        if len(parts) != 3 or parts[0] != "self" or cls is None:
            return False
        bindings = self.ctx.types.class_index(cls).bindings.get(parts[1], [])
        makers = [dotted_name(value.func) if how == "value" and isinstance(value, cst.Call) else None
                  for how, value, _ in bindings]
        return bool(makers) and all(
            maker is not None and maker.split(".")[0] not in ("self", "cls", *self._own_names()) for maker in makers)

    @staticmethod
    def _is_view_read(read: cst.Call) -> bool:
        name = dotted_name(read.func) or ""
        return name.rsplit(".", 1)[-1] in _VIEW_READS

    def _report_read(self, read: cst.Call, what: str) -> None:
        if id(read) in self._reported:
            return
        self._reported.add(id(read))
        self.report(read, f"{what} is read on the host after a `non_blocking=True` copy to the CPU with no"
                          f" synchronize in between: it may hold zeros or stale values; call"
                          f" `torch.cuda.synchronize()` (or an event's `.synchronize()`) before reading it")

    def _report_handed(self, copy: cst.BaseExpression, call: cst.Call) -> None:
        if id(copy) in self._reported:
            return
        self._reported.add(id(copy))
        callee = short(self.ctx.module.code_for_node(call.func), 40)
        self.report(copy, f"`{callee}(...)` reads this `non_blocking=True` copy to the CPU on the host at once, with"
                          f" no synchronize in between: it may see zeros or stale values; call"
                          f" `torch.cuda.synchronize()` (or an event's `.synchronize()`) after the copy, or copy"
                          f" with `non_blocking=False`")


def _is_name(expr: cst.BaseExpression, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _is_one_of(expr: cst.BaseExpression, names: frozenset[str]) -> bool:
    return isinstance(expr, cst.Name) and expr.value in names


# What a tensor's chain may read without touching its values: its shape and where it is.
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "size", "dim", "numel", "stride",
                       "element_size", "data_ptr", "is_contiguous", "is_pinned", "nelement", "layout"})


def _taken_from(small: cst.CSTNode, names: frozenset[str]) -> Optional[str]:
    """`v` of `v = y[0]`, `v = y.view(-1)`, `v = y.sum()` with `y` one of `names`: a view of the copy's buffer or
    values computed from it on the host (a CPU operation reads at once); not its shape or device."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)):
        return None
    value: cst.BaseExpression = small.value
    while True:
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
            if value.func.attr.value in _METADATA or value.func.attr.value in _READ_METHODS:
                return None
            value = value.func.value
        elif isinstance(value, cst.Attribute):
            if value.attr.value in _METADATA:
                return None
            value = value.value
        elif isinstance(value, cst.Subscript):
            value = value.value
        else:
            break
    if value is small.value or not _is_one_of(value, names):
        return None  # (`v = y` only names it again: followed as `y`'s read would be, not here)
    return small.targets[0].target.value


def _is_pinned(value: cst.BaseExpression) -> bool:
    """`torch.empty(..., pin_memory=True)`, `x.pin_memory()`."""
    if not isinstance(value, cst.Call):
        return False
    flag = keyword(value, "pin_memory")
    if flag is not None:
        return _is_true(flag.value)
    return isinstance(value.func, cst.Attribute) and value.func.attr.value == "pin_memory"


def _waits(root: cst.CSTNode, names: frozenset[str]) -> bool:
    """May this code wait for the GPU? (A call that synchronizes, or a host read of a value other than
    `names`, which hold the pending copy's values on the host: reading a GPU tensor waits for its stream.)"""
    for node in own_nodes_in_order(root):
        if not isinstance(node, cst.Call):
            continue
        callee = dotted_name(node.func) or ""
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if _is_one_of(_chain_root(node.func.value), names) and method != "synchronize":
                continue
            if method in _WAITING_METHODS:
                return True
            if method in ("to", "copy_"):
                flag = keyword(node, "non_blocking")
                if flag is None or not _is_true(flag.value):
                    return True  # a blocking copy waits for the stream, the pending copy included
        elif callee in _HOST_BUILTINS and any(
                not isinstance(arg.value, _LITERALS) and not _is_one_of(_chain_root(arg.value), names)
                for arg in node.args):
            return True
    return False


def _reads_in(body: cst.CSTNode, name: str, torch) -> bool:  # type: ignore[no-untyped-def]
    """Is `name` read on the host in `body`: read with `.numpy()`/`.tolist()`/`.item()` or a host builtin, or
    handed to a call that is not torch's and does not only keep or inspect it (a layer run on it:
    `self.experts[i](x)`)?"""
    for node in own_nodes_in_order(body):
        if not isinstance(node, cst.Call):
            continue
        func = node.func
        if (isinstance(func, cst.Attribute) and func.attr.value in _READ_METHODS
                and _is_name(_chain_root(func.value), name)):
            return True
        callee = dotted_name(func) or ""
        if torch.qualify(func) is not None or callee.rsplit(".", 1)[-1] in _KEEPS_OR_INSPECTS:
            continue
        if isinstance(func, cst.Attribute) and not callee:
            pass  # `self.layers[i](x)`: a called element
        elif "." in callee and callee.rsplit(".", 1)[-1] in TENSOR_METHODS:
            continue
        if any(_is_name(_chain_root(arg.value), name) for arg in node.args):
            return True
    return False


_LITERALS = (cst.SimpleString, cst.Integer, cst.Float, cst.ConcatenatedString, cst.FormattedString)


def _bound_by(root: cst.CSTNode) -> set[str]:
    names: set[str] = set()
    for node in own_nodes_in_order(root):
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            names.add(node.target.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)) and isinstance(node.target, cst.Name):
            names.add(node.target.value)
    return names
