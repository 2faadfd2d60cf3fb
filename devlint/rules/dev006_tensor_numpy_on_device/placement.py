"""Which values may be on an accelerator? A forward read of one function (or module body).

DEV006's question: at `x.numpy()` / `np.asarray(x)`, may `x` be a tensor on a device that is not the
CPU? What a value came from decides:

- a move, `.cuda()`, or `.to(target)` unless the code shows the target is the host (`"cpu"`, a name
  bound only to the CPU); `.to(dtype)` alone is no move;
- a torch factory given such a `device=` (or the `.device` of a value that may be on a device);
- the output of a model the function moved (`model = Net().to(device)`, or `model.cuda()` as a
  statement), or of a module called on such a value;
- signs that the caller's value may be on a device: the inputs of a public method of an nn.Module
  class and of a function that asks where its inputs are (`x.device`) without moving them itself, what
  a module holds (`self.weight`, `self.crf.transitions`, outside `__init__`), and the output of a
  module handed in or held (`model(x)`, `self.encoder(x)`) that is not given an input made on the host
  here. Their kind is not known (`known=False`): their attributes are not followed (`x.meta`), except
  for what a module holds (`holder`), and calling one makes an output only where it is named like a
  module or bound to one;
- what tensor methods, torch functions, arithmetic, indexing and unpacking make of any of those.

`.cpu()`, `.to("cpu")`, `.numpy()`, `.item()`, `.tolist()`, a plain function's result and any other
rebinding end it. Statements are read in order; an `if`'s branches each from the state before it, then
merged: a value placed on one path stays placed where the other path left it alone, and is forgotten
where the other path rebound it; a branch that returns (raises, breaks) does not reach the merge. A loop
body is read twice (values placed in one round reach the next). Conversions in the branches of a test
that asks where things are (`if x.device.type == "cpu":`, `x.is_cuda`, `device != "cpu"`, `use_gpu`)
are not answered for: such a branch may run only where the value is on the host.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional, Union

import libcst as cst

from devlint.analysis.classes import makes_host_data
from devlint.analysis.context import FileContext
from devlint.analysis.devices import shows_accelerator
from devlint.analysis.edits import short
from devlint.analysis.forward import ForwardReader
from devlint.analysis.guards import ends_with_exit
from devlint.analysis.factories import (
    FACTORIES, LIKE_FACTORIES, cpu_factory_name, is_dtype_only_move, is_host, is_plain_device, move_target,
)
from devlint.analysis.names import dotted_name, keyword, string_value
from devlint.analysis.types import TENSOR_METHODS, Kind
from devlint.analysis.vocabulary import PLACED_ATTRIBUTES
from devlint.analysis.walk import children, own_nodes, own_nodes_in_order

Scope = Union[cst.FunctionDef, cst.Module]

# Tensor methods whose result is not a tensor on the receiver's device.
_NOT_PLACED_RESULTS = frozenset({
    "numpy", "item", "tolist", "size", "dim", "numel", "stride", "is_contiguous", "element_size", "storage",
    "data_ptr", "backward", "retain_grad", "is_pinned", "pin_memory", "cpu", "type_as", "untyped_storage",
    "get_device", "nelement", "is_floating_point", "is_complex",
})
# Of the rest, those whose result is a tuple (of tensors on the device), not one tensor.
_TUPLE_RESULTS = frozenset({"split", "chunk", "unbind", "sort", "topk", "max", "min", "median", "mode", "kthvalue"})
# Methods whose result carries no gradient.
_NO_GRAD_RESULTS = frozenset({
    "detach", "argmax", "argmin", "argsort", "long", "int", "bool", "byte", "char", "short", "eq", "ne", "gt", "lt",
    "ge", "le", "nonzero", "sign",
})
_PLACED_METHODS = (TENSOR_METHODS - _NOT_PLACED_RESULTS) | frozenset({
    "clone", "double", "abs", "exp", "log", "sqrt", "round", "floor", "ceil", "cumsum", "squeeze", "unsqueeze",
    "contiguous", "float", "half", "view", "reshape", "permute", "transpose", "sigmoid", "softmax",
})
# Tensor attributes that are tensors on the same device; the other tensor attributes are not tensors.
_NOT_TENSOR_ATTRIBUTES = frozenset({
    "shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "layout", "is_leaf", "grad_fn", "names",
    "is_sparse", "is_quantized", "is_meta", "itemsize", "nbytes",
})
# torch functions whose result is not a tensor (or not on the device of their arguments).
_TORCH_NOT_PLACED = frozenset({
    "is_tensor", "numel", "device", "dtype", "Size", "save", "load", "from_numpy", "no_grad", "inference_mode",
    "manual_seed", "typename", "is_floating_point", "is_complex", "is_nonzero", "equal", "allclose",
    "broadcast_shapes", "result_type", "can_cast", "promote_types", "get_default_dtype", "set_grad_enabled",
})
_TORCH_TUPLE_RESULTS = frozenset({"split", "chunk", "unbind", "sort", "topk", "max", "min", "meshgrid",
                                  "broadcast_tensors", "tensor_split", "median", "mode", "kthvalue", "unique"})
_GRAD_OFF = ("no_grad", "inference_mode")
# The methods a NumPy array has too: called on an input of unknown kind, they do not show a tensor.
_NDARRAY_METHODS = frozenset({
    "all", "any", "argmax", "argmin", "argsort", "astype", "clip", "conj", "copy", "cumprod", "cumsum", "diagonal",
    "dot", "fill", "flatten", "max", "mean", "min", "nonzero", "prod", "ravel", "repeat", "reshape", "round", "sort",
    "squeeze", "std", "sum", "swapaxes", "take", "trace", "transpose", "var", "view",
})


@dataclass(frozen=True)
class Placed:
    """A value the code put on a device that may be an accelerator."""

    how: str  # "moved with `.cuda()`", "made with `device=device`", "the output of `model`, moved with ..."
    is_tensor: bool  # one tensor (not a tuple, a list or a model's output object)
    may_require_grad: bool  # it may be part of an autograd graph (a model's output outside `no_grad`)
    # False for a sign of a device whose kind is not known (an input, a module's attribute): it may be any
    # object, so its attributes are not followed (`x.meta`) and calling it makes no output unless it is
    # named as a module
    known: bool = True
    # a module, or what a module holds (`self.crf`): its attributes are its parameters, buffers and state
    holder: bool = False
    # a tuple of tensors (`x.max(1)`, `torch.sort(x)`): an element taken by a number or unpacking is one tensor
    of_tensors: bool = False
    # an attribute of a sign whose kind is not known (`output.probs` of an input): it may be anything until the
    # code uses it as a tensor (`.detach()`, `.data`); its `.numpy()` alone shows nothing
    unshown: bool = False
    # placed as a whole, by a sign about the function (it copies another value to the host): an entry taken by a
    # string key (`batch["meta"]`) is its producer's to place, one key at a time (`if k != "meta": batch[k] =
    # batch[k].to(device)`), and is not followed
    whole_only: bool = False


# What a name holds at a point: placed, or bound to something else (`OTHER`); absent: never bound here.
_Env = dict[str, object]
OTHER = object()


def _merge(before: _Env, branches: list[_Env]) -> _Env:
    """The state after branches that each started from `before`. A name placed on some path stays placed
    where every other path left it as it was, and is forgotten where another path rebound it."""
    if not branches:
        return dict(before)
    merged: _Env = {}
    for name in set().union(*branches):
        values = [branch.get(name, before.get(name)) for branch in branches]
        placed = [v for v in values if isinstance(v, Placed)]
        unchanged = [v for v in values if v is before.get(name) and not isinstance(v, Placed)]
        if placed and len(placed) + len(unchanged) == len(values):
            merged[name] = placed[0] if len(placed) == 1 else replace(
                placed[0], is_tensor=all(p.is_tensor for p in placed),
                may_require_grad=any(p.may_require_grad for p in placed))
        elif all(v is values[0] for v in values):
            if values[0] is not None:
                merged[name] = values[0]
        else:
            merged[name] = OTHER
    return merged


class Placement(ForwardReader[_Env]):
    """Where the values of one scope are: `placed(expr)` after `read()`."""

    def __init__(self, ctx: FileContext, scope: Scope, functions: list[cst.FunctionDef],
                 cls: Optional[cst.ClassDef], preview: bool = False) -> None:
        super().__init__()
        self.ctx = ctx
        self.preview = preview  # the asking rule's preview shapes are on
        self.torch = ctx.torch
        self.scope = scope
        self.functions = functions  # innermost first: `scope` itself when it is a function
        self.cls = cls
        self.found: dict[cst.CSTNode, Placed] = {}
        # values read in a branch of a test that asks where things are (`if x.device.type == "cpu":`):
        # followed, but not answered for (the branch may run only where the value is on the host)
        self.unanswered: set[cst.CSTNode] = set()
        self._grad_off = 0
        self._device_tested = 0

    def placed(self, expr: cst.CSTNode) -> Optional[Placed]:
        return None if expr in self.unanswered else self.found.get(expr)

    def read(self) -> "Placement":
        if isinstance(self.scope, cst.FunctionDef):
            if any(self._turns_grad_off(d.decorator) for d in self.scope.decorators):
                self._grad_off += 1
            self.suite(self.scope.body, self._inputs(self.scope))
        else:
            self.block(self.scope.body, {})
        return self

    # -- signs that a value may be on a device: it comes from the caller ----------------------
    def _inputs(self, function: cst.FunctionDef) -> _Env:
        """The parameters that may hold tensors on a device: every input of a public method of a module class
        (`forward`, `training_step`, a metric's `update`), or of a function that asks where its inputs are
        (`x.device`) and moves none of them itself (a function that does expects them on the host); and an
        input that is a module by its use (called, and named like one: `model(x)`). Never in a `Dataset`,
        whose items are built on the host."""
        if self.cls is not None and makes_host_data(self.cls):
            return {}
        params = [p for p in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)
                  if p.name.value not in ("self", "cls") and not _annotated_otherwise(p)]
        name = function.name.value
        if name != "__init__" and self._copies_to_host(function):
            # the code itself copies a tensor to the host before converting it: its tensors may be on a device;
            # but a function that moves what it is given is handed host tensors (and the modules it runs them on)
            moves = _moves_inputs(function, {p.name.value for p in params})
            how = f"an input of `{name}`, which copies tensors to the host before converting them elsewhere"
            called = self.ctx.types.scope_index(function).called
            made_by_callers = self._made_by_callers(function)
            return {p.name.value: Placed(f"`{p.name.value}`, {how}", False, False, known=False,
                                         holder=bool(_MODULE_NAME.search(p.name.value)), whole_only=True)
                    for p in params if p.name.value not in made_by_callers
                    and (not moves or (_MODULE_NAME.search(p.name.value) and p.name.value in called))}
        if not self.preview:
            return {}  # the other signs from the caller are in preview until measured blind
        if self._module_method() and not name.startswith("_"):
            # (a private helper is called by the class's own code, which may have copied to the host first)
            how = f"an input of `{name}` of a module, which may run on a device"
            return {p.name.value: Placed(f"`{p.name.value}`, {how}", False, False, known=False) for p in params}
        inputs: _Env = {}
        handles = _handles_devices(function, {p.name.value for p in params})
        for param in params:
            if handles:
                inputs[param.name.value] = Placed(f"`{param.name.value}`, an input of `{name}`, which asks where its inputs are",
                                                  False, False, known=False)
            elif _MODULE_NAME.search(param.name.value) and param.name.value in self.ctx.types.scope_index(
                    function).called:
                inputs[param.name.value] = Placed(f"a module handed to `{name}`, which may be on a device", False, False,
                                                  known=False, holder=True)
        return inputs

    def _made_by_callers(self, function: cst.FunctionDef) -> set[str]:
        """The parameters of a private method (`_viz`) that every call of it in its class (`self._viz(a, b)`, one at
        least) hands a value the calling method binds itself: where the callers are in view, what they make decides
        where the value is, not a copy of another value in the method."""
        name = function.name.value
        if self.cls is None or not name.startswith("_") or name.startswith("__") or not isinstance(
                self.cls.body, cst.IndentedBlock):
            return set()
        ordered = [p.name.value for p in (*function.params.posonly_params, *function.params.params)][1:]  # (self)
        found: Optional[set[str]] = None
        for method in self.cls.body.body:
            if not isinstance(method, cst.FunctionDef):
                continue
            bindings = self.ctx.types.scope_index(method).bindings
            local = {bound for bound, hows in bindings.items()
                     if all(how not in ("param", "star-param") for how, _ in hows)}
            for node in own_nodes(method.body):
                if not (isinstance(node, cst.Call) and dotted_name(node.func) == f"self.{name}"):
                    continue
                handed: set[str] = set()
                for position, arg in enumerate(node.args):
                    if arg.star:
                        return set()
                    target = arg.keyword.value if arg.keyword is not None else (
                        ordered[position] if position < len(ordered) else None)
                    if target is not None and isinstance(arg.value, cst.Name) and arg.value.value in local:
                        handed.add(target)
                found = handed if found is None else found & handed
        return found or set()

    def _copies_to_host(self, function: cst.FunctionDef) -> bool:
        """Does `function` convert a tensor through `.cpu()` (`y.detach().cpu().numpy()`), or, for a method, does the
        method of the same name in a base class of the file that it calls through `super()`?"""
        if _converts_through_cpu(function):
            return True
        if self.cls is None or not any(_calls_super(node, function.name.value) for node in own_nodes(function.body)):
            return False
        classes = self.ctx.types.classes.classes
        for base in self.cls.bases:
            found = classes.get(dotted_name(base.value) or "")
            if found is not None and found is not self.cls and isinstance(found.body, cst.IndentedBlock):
                for statement in found.body.body:
                    if isinstance(statement, cst.FunctionDef) and statement.name.value == function.name.value \
                            and _converts_through_cpu(statement):
                        return True
        return False

    def _module_method(self) -> bool:
        """Inside a method of an nn.Module class, after its construction (in `__init__` nothing is moved yet)."""
        return (self.cls is not None and bool(self.functions) and self.functions[-1].name.value != "__init__"
                and self.ctx.types.classes.node_is_module_class(self.cls))

    def _module_attribute(self, name: str) -> Optional[Placed]:
        """`self.weight`, `self.crf.transitions`, `self.preds` (a metric's state): what a module holds is on
        the device the module was moved to."""
        if not self.preview or not name.startswith("self.") or not self._module_method():
            return None
        kind = self.ctx.types.kind_of(cst.parse_expression(name), self.functions, self.cls)
        how = f"`{short(name, 30)}`, held by a module, which may be moved to a device"
        if kind is Kind.TENSOR:
            return Placed(how, True, False)
        return Placed(how, False, False, known=False, holder=True)

    # -- statements (the skeleton: analysis/forward.py) --------------------------------
    def small(self, node: cst.BaseSmallStatement, env: _Env) -> None:
        if type(node) is cst.Assign:
            value = self._expr(node.value, env)
            for target in node.targets:
                self._bind(target.target, node.value, value, env)
        elif type(node) is cst.AnnAssign:
            if node.value is not None:
                self._bind(node.target, node.value, self._expr(node.value, env), env)
        elif type(node) is cst.AugAssign:
            right = self._expr(node.value, env)
            left = self._expr(node.target, env)
            self._set(node.target, left or (right if right is not None and right.is_tensor else None), env)
        elif type(node) is cst.Expr:
            self._expr(node.value, env)
            self._moved_in_place(node.value, env)
        elif type(node) is cst.Del:
            for name in _stored_names(node.target):
                env[name] = OTHER
        elif not isinstance(node, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.Pass, cst.Break,
                                   cst.Continue)):
            self.other(node, env)  # return, raise, assert: their expressions

    def if_statement(self, node: cst.If, env: _Env) -> None:
        self._expr(node.test, env)
        tested = _tests_device(node.test)
        self._device_tested += tested
        branches = []
        body = dict(env)
        self.suite(node.body, body)
        if not ends_with_exit(node.body):
            branches.append(body)
        other = dict(env)
        self.orelse(node, other)
        if node.orelse is None or not (type(node.orelse) is cst.Else and ends_with_exit(node.orelse.body)):
            branches.append(other)
        self._device_tested -= tested
        env.update(_merge(env, branches))

    def loop(self, node: cst.For | cst.While, env: _Env) -> None:
        if type(node) is cst.For:
            iterated = self._expr(node.iter, env)
        with self.inside_loop() as rounds:
            for _round in rounds:
                body = dict(env)
                if type(node) is cst.For:
                    element = Placed(iterated.how, iterated.is_tensor, iterated.may_require_grad) if iterated else None
                    self._bind(node.target, None, element, body)
                else:
                    self._expr(node.test, body)
                self.suite(node.body, body)
                env.update(_merge(env, [env, body]))
        if node.orelse is not None:
            self.suite(node.orelse.body, env)

    def with_statement(self, node: cst.With, env: _Env) -> None:
        grad_off = 0
        for item in node.items:
            self._expr(item.item, env)
            if self._turns_grad_off(item.item):
                grad_off += 1
            if item.asname is not None:
                self._bind(item.asname.name, None, None, env)
        self._grad_off += grad_off
        self.suite(node.body, env)
        self._grad_off -= grad_off

    def try_statement(self, node: cst.Try, env: _Env) -> None:
        before = dict(env)
        self.suite(node.body, env)
        branches = [env.copy()]
        for handler in node.handlers:
            caught = dict(before)
            self.suite(handler.body, caught)
            if not ends_with_exit(handler.body):
                branches.append(caught)
        merged = _merge(before, branches)
        env.clear()
        env.update(merged)
        if node.orelse is not None:
            self.suite(node.orelse.body, env)
        if node.finalbody is not None:
            self.suite(node.finalbody.body, env)

    def definition(self, node: cst.FunctionDef | cst.ClassDef, env: _Env) -> None:
        env[node.name.value] = OTHER  # its own scope, read on its own

    def other(self, node: cst.CSTNode, env: _Env) -> None:
        """return, raise, assert, match, ...: the expressions are read; names bound inside are forgotten."""
        for child in children(node):
            if isinstance(child, cst.BaseExpression):
                self._expr(child, env)
            elif isinstance(child, (cst.BaseSuite, cst.BaseStatement, cst.BaseSmallStatement, cst.MatchCase)):
                self._forget_bound(child, env)

    def _forget_bound(self, node: cst.CSTNode, env: _Env) -> None:
        for inner in own_nodes(node):
            if isinstance(inner, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign)):
                for name in _stored_names(inner.target):
                    env[name] = OTHER
            elif isinstance(inner, cst.MatchAs) and inner.name is not None:
                env[inner.name.value] = OTHER

    def _turns_grad_off(self, expr: cst.BaseExpression) -> bool:
        """`torch.no_grad()`, `torch.inference_mode()` (or `@torch.no_grad` bare), `torch.set_grad_enabled(False)`."""
        if isinstance(expr, cst.Call):
            if self.torch.is_call_to(expr, *_GRAD_OFF):
                return True
            return (self.torch.is_call_to(expr, "set_grad_enabled") and bool(expr.args)
                    and isinstance(expr.args[0].value, cst.Name) and expr.args[0].value.value == "False")
        return self.torch.qualify(expr) in {f"torch.{name}" for name in _GRAD_OFF}

    def _moved_in_place(self, expr: cst.BaseExpression, env: _Env) -> None:
        """`model.to(device)` / `model.cuda()` as a statement moves a module (a tensor's move would be thrown
        away: DEV001); `model.cpu()` brings it back."""
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
            return
        name = dotted_name(expr.func.value)
        method = expr.func.attr.value
        if name is None or method not in ("to", "cuda", "cpu"):
            return
        kind = self.ctx.types.kind_of(expr.func.value, self.functions, self.cls)
        if kind is Kind.TENSOR or (kind is Kind.UNKNOWN and not self._called(name)):
            return  # a tensor's bare move does nothing; a name never called may be one
        how = self._move(expr, env)
        env[name] = Placed(f"the output of `{name}`, {how}", False, True) if how else OTHER

    def _called(self, name: str) -> bool:
        """Is `name` (or `self.<attr>`) called somewhere in its scope, as a module is and a tensor never?"""
        if name.startswith("self.") and name.count(".") == 1:
            return self.cls is not None and name[5:] in self.ctx.types.class_index(self.cls).called
        return "." not in name and name in self.ctx.types.scope_index(self.scope).called

    # -- bindings ----------------------------------------------------------------------
    def _bind(self, target: cst.BaseExpression, value_node: Optional[cst.BaseExpression], value: Optional[Placed],
              env: _Env) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            if isinstance(value_node, (cst.Tuple, cst.List)) and len(value_node.elements) == len(target.elements) and (
                    not any(isinstance(e, cst.StarredElement) for e in target.elements)):
                for element, given in zip(target.elements, value_node.elements):
                    self._bind(element.value, given.value, self.found.get(given.value), env)
                return
            element = Placed(value.how, value.is_tensor or value.of_tensors, value.may_require_grad) if (
                value is not None) else None
            for item in target.elements:
                inner = item.value.value if isinstance(item.value, cst.StarredElement) else item.value
                self._bind(inner, None, None if isinstance(item.value, cst.StarredElement) else element, env)
            return
        self._set(target, value, env)

    def _set(self, target: cst.BaseExpression, value: Optional[Placed], env: _Env) -> None:
        name = dotted_name(target)
        if name is None:
            return  # `batch[k] = ...`: the container stays what it was
        for known in [k for k in env if k.startswith(name + ".")]:
            env[known] = OTHER  # `self.net = ...` also replaces what `self.net.x` was
        env[name] = value if value is not None else OTHER

    # -- expressions -------------------------------------------------------------------
    def _expr(self, expr: Optional[cst.BaseExpression], env: _Env) -> Optional[Placed]:
        if expr is None:
            return None
        value = self._value(expr, env)
        if value is not None:
            self.found[expr] = value
            if self._device_tested:
                self.unanswered.add(expr)
        return value

    def _value(self, expr: cst.BaseExpression, env: _Env) -> Optional[Placed]:
        if type(expr) in (cst.Name, cst.Attribute):
            name = dotted_name(expr)
            if name is not None and name in env:
                known = env[name]
                return known if isinstance(known, Placed) else None
            if name is not None and name.count(".") == 1:
                held = self._module_attribute(name)
                if held is not None:
                    return held
            if type(expr) is cst.Attribute:
                base = self._expr(expr.value, env)
                attr = expr.attr.value
                if base is None or attr in _NOT_TENSOR_ATTRIBUTES:
                    return None
                if attr in PLACED_ATTRIBUTES:  # (`.data` is detached)
                    return replace(base, is_tensor=True, may_require_grad=base.may_require_grad and attr != "data",
                                   unshown=False)
                if not base.known and not base.holder:
                    # `x.meta` of an input of unknown kind: an object's attribute may be anything, until used as a
                    # tensor (`output.probs.detach()`, as `output["probs"].detach()` is)
                    return replace(base, is_tensor=False, unshown=True)
                return None if base.is_tensor else replace(base, is_tensor=False)  # `outputs.logits`
            return None
        if type(expr) is cst.Call:
            return self._call(expr, env)
        if type(expr) is cst.Subscript:
            base = self._expr(expr.value, env)
            for element in expr.slice:
                self._children(element, env)
            if base is not None and base.of_tensors and len(expr.slice) == 1 and type(
                    expr.slice[0].slice) is cst.Index and type(expr.slice[0].slice.value) is cst.Integer:
                return replace(base, is_tensor=True, of_tensors=False)  # `x.max(1)[1]`
            if base is not None and base.whole_only and any(
                    type(element.slice) is cst.Index and string_value(element.slice.value) is not None
                    for element in expr.slice):
                return None
            return base
        if type(expr) is cst.BinaryOperation:
            left, right = self._expr(expr.left, env), self._expr(expr.right, env)
            if string_value(expr.left) is not None or type(expr.left) is cst.FormattedString:
                return None  # "%s" % x
            return _either(left, right)
        if type(expr) is cst.UnaryOperation:
            inner = self._expr(expr.expression, env)
            return None if type(expr.operator) is cst.Not else inner
        if type(expr) is cst.Comparison:
            left = self._expr(expr.left, env)
            rights = [self._expr(t.comparator, env) for t in expr.comparisons]
            if any(type(t.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for t in expr.comparisons):
                return None
            tensors = [v for v in [left, *rights] if v is not None and v.is_tensor]
            return replace(tensors[0], may_require_grad=False) if tensors else None
        if type(expr) is cst.IfExp:
            self._expr(expr.test, env)
            tested = _tests_device(expr.test)
            self._device_tested += tested
            body, orelse = self._expr(expr.body, env), self._expr(expr.orelse, env)
            self._device_tested -= tested
            if body is not None and orelse is not None:
                return _either(body, orelse)
            return None
        if type(expr) in (cst.List, cst.Tuple, cst.Set):
            values = [self._expr(e.value, env) for e in expr.elements]
            found = next((v for v in values if v is not None), None)
            return replace(found, is_tensor=False) if found is not None else None
        if type(expr) is cst.Dict:
            values = [self._expr(e.value, env) for e in expr.elements if type(e) is cst.DictElement]
            found = next((v for v in values if v is not None), None)
            return replace(found, is_tensor=False) if found is not None else None
        if type(expr) in (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp):
            inner = dict(env)
            loop: Optional[cst.CompFor] = expr.for_in
            while loop is not None:
                iterated = self._expr(loop.iter, inner)
                element = Placed(iterated.how, iterated.is_tensor, iterated.may_require_grad) if iterated else None
                self._bind(loop.target, None, element, inner)
                for condition in loop.ifs:
                    self._expr(condition.test, inner)
                loop = loop.inner_for_in
            if type(expr) is cst.DictComp:
                self._expr(expr.key, inner)
                produced = self._expr(expr.value, inner)
            else:
                produced = self._expr(expr.elt, inner)
            return replace(produced, is_tensor=False) if produced is not None else None
        if type(expr) is cst.NamedExpr:
            value = self._expr(expr.value, env)
            self._set(expr.target, value, env)
            return value
        if type(expr) is cst.Lambda:
            return None  # its body runs later, with what its names hold then
        self._children(expr, env)
        return None

    def _children(self, node: cst.CSTNode, env: _Env) -> None:
        for child in children(node):
            if isinstance(child, cst.BaseExpression):
                self._expr(child, env)
            else:
                self._children(child, env)

    def _call(self, call: cst.Call, env: _Env) -> Optional[Placed]:
        full = self.torch.qualify(call.func)
        args = [self._expr(arg.value, env) for arg in call.args]
        if full is not None and full.startswith("torch."):
            return self._torch_call(call, full[6:], args, env)
        func = call.func
        if type(func) is cst.Attribute:
            method = func.attr.value
            receiver = self._expr(func.value, env)
            if method in ("cuda", "to"):
                if method == "to" and is_dtype_only_move(call, self.torch):
                    return receiver
                how = self._move(call, env)
                if how is None:
                    return None
                # what has `.cuda()` / `.to(device)` is a tensor, unless the file shows a module or an object
                is_tensor = (receiver.is_tensor if receiver is not None else self.ctx.types.kind_of(
                    func.value, self.functions, self.cls) not in (Kind.MODULE, Kind.OTHER))
                return Placed(how, is_tensor, receiver is not None and receiver.may_require_grad)
            if receiver is None:
                held = self._expr(func, env)  # `self.encoder(x)`: a module the module holds
                if held is not None and not held.is_tensor and self._called_module(func) and not self._host_inputs(call):
                    return self._output(dotted_name(func) or "the module", held, func)
                return self._output_on_placed_input(call, args)
            if method == "forward" and not receiver.is_tensor:
                return self._output(dotted_name(func.value) or "the model", receiver, func.value)
            if self._module_method_on_device(func, receiver, args):
                return self._output(dotted_name(func) or "the model's method", receiver, func)
            if method in _PLACED_METHODS:
                if not receiver.known and not receiver.is_tensor and method in _NDARRAY_METHODS:
                    return replace(receiver, is_tensor=False)  # `x.reshape(...)` of an input: an array's may be too
                one = method not in _TUPLE_RESULTS or not call.args
                return Placed(receiver.how, one, receiver.may_require_grad and method not in _NO_GRAD_RESULTS,
                              of_tensors=not one and receiver.is_tensor)
            return None
        callee = self._expr(func, env) if type(func) is not cst.Name or func.value in env else None
        if callee is not None and not callee.is_tensor and (callee.known or (
                self._called_module(func) and not self._host_inputs(call))):
            return self._output(dotted_name(func) or "the model", callee, func)
        return self._output_on_placed_input(call, args)

    def _module_method_on_device(self, func: cst.Attribute, receiver: Placed, args: list[Optional[Placed]]) -> bool:
        """`model.embed(x)`: a method of a module the code put on a device, given a tensor the code put there: it
        computes there with the module's parameters, and its output is there too. A module: the file says so, or
        it is named like one and the method is none of a tensor's (`model = model.cuda()` may have moved either)."""
        if not receiver.known or receiver.of_tensors or not any(arg is not None and arg.is_tensor for arg in args):
            return False
        if receiver.is_tensor and func.attr.value in TENSOR_METHODS:
            return False
        name = dotted_name(func.value) or ""
        return bool(_MODULE_NAME.search(name.rsplit(".", 1)[-1])) or (
            self.ctx.types.kind_of(func.value, self.functions, self.cls) is Kind.MODULE)

    def _output_on_placed_input(self, call: cst.Call, args: list[Optional[Placed]]) -> Optional[Placed]:
        """A module given a tensor the code put on a device runs there (or raises): its output is there too.
        The module known by the file, or named like one (`self.net(x)`, `model.forward(x)` after
        `x = x.cuda()`)."""
        placed_args = [a for a in args if a is not None and a.is_tensor]
        if not placed_args:
            return None
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value == "forward":
            func = func.value
        name = dotted_name(func)
        # (an attribute must be bound to a module or named like one: a called `self.postprocess` is no sign)
        known = self._called_module(func) if isinstance(func, cst.Attribute) else (
            self.ctx.types.kind_of(func, self.functions, self.cls) is Kind.MODULE)
        if known or (name is not None and _MODULE_NAME.search(name.rsplit(".", 1)[-1])):
            return Placed(f"the output of `{name or 'the module'}` on a tensor {placed_args[0].how}",
                          self.ctx.types.module_output_is_a_tensor(func, self.functions, self.cls), self._grad_on())
        return None

    def _host_inputs(self, call: cst.Call) -> bool:
        """Is a module given an input this function makes on the host on some path (`x = torch.randn(...)`)?
        Then the module is on the host too (it would raise otherwise), and so is its output."""
        if not isinstance(self.scope, cst.FunctionDef):
            return False
        bindings = self.ctx.types.scope_index(self.scope).bindings
        for arg in call.args:
            if isinstance(arg.value, cst.Name):
                for how, node in bindings.get(arg.value.value, []):
                    if how == "value" and isinstance(node, cst.BaseExpression) and (
                            cpu_factory_name(node, self.torch) is not None or self.torch.is_call_to(node, "from_numpy")):
                        return True
        return False

    def _called_module(self, func: cst.BaseExpression) -> bool:
        """A sign whose kind is not known, called: a module only when its name or the file says so
        (`self.encoder(x)`, `model(x)`; not `self.tokenizer(text)`, `fn(x)`)."""
        name = dotted_name(func) or ""
        if _MODULE_NAME.search(name.rsplit(".", 1)[-1]):
            return True
        if self.cls is None or not name.startswith("self.") or name.count(".") != 1:
            return False
        # `self.proj = nn.Linear(...)`: bound to a module (being called alone says nothing: a tokenizer is)
        return any(how == "value" and self.ctx.types.value_kind(node, [method] if method else [], self.cls)  # type: ignore
                   is Kind.MODULE for how, node, method in self.ctx.types.class_index(self.cls).bindings.get(name[5:], []))

    def _output(self, name: str, model: Placed, module: cst.BaseExpression) -> Placed:
        """What calling `module` (named `name`, placed as `model`) gives: one tensor where its class is the file's
        and its `forward` returns one on every path (`np.asarray(model(x))` reads it), else an object of any
        shape (a tuple, a dict, a model's output object: only `.numpy()` of it shows a tensor)."""
        starts = model.how.startswith(("the output of", f"`{short(name, 30)}`, ")) and ", " in model.how
        how = model.how.split(", ", 1)[1] if starts else model.how  # (where the model itself was placed)
        one = self.ctx.types.module_output_is_a_tensor(module, self.functions, self.cls)
        return Placed(f"the output of `{name}`, {how}", one, self._grad_on())

    def _grad_on(self) -> bool:
        return self._grad_off == 0

    def _torch_call(self, call: cst.Call, name: str, args: list[Optional[Placed]], env: _Env) -> Optional[Placed]:
        if name in FACTORIES and name not in LIKE_FACTORIES:
            device = keyword(call, "device")
            if device is None or not self._is_accelerator(device.value, env):
                return None
            grad = keyword(call, "requires_grad")
            text = self.ctx.module.code_for_node(device.value)
            return Placed(f"made with `device={short(text, 30)}`", True,
                          grad is not None and not (isinstance(grad.value, cst.Name) and grad.value.value == "False"))
        if name in LIKE_FACTORIES:
            device = keyword(call, "device")
            if device is not None:
                return Placed(f"made with `device={short(self.ctx.module.code_for_node(device.value), 30)}`", True,
                              False) if self._is_accelerator(device.value, env) else None
            return replace(args[0], may_require_grad=False) if args and args[0] is not None else None
        if name in _TORCH_NOT_PLACED or name.startswith(("cuda.", "distributed.", "jit.", "utils.", "backends.")):
            return None
        if name.startswith("nn.") and not name.startswith("nn.functional."):
            return None  # a layer's construction
        placed = [a for a in args if a is not None]
        if not placed:
            return None
        leaf = name.rsplit(".", 1)[-1]
        if name in ("tensor", "as_tensor") and not placed[0].is_tensor:
            return None  # data with tensors in it: `torch.tensor([t1, t2])` copies them to the host first
        return Placed(placed[0].how, leaf not in _TORCH_TUPLE_RESULTS,
                      any(a.may_require_grad for a in placed) and name not in ("tensor", "as_tensor"),
                      of_tensors=leaf in _TORCH_TUPLE_RESULTS and placed[0].is_tensor)

    def _move(self, call: cst.Call, env: _Env) -> Optional[str]:
        """How a `.cuda()` / `.to(...)` call moves its receiver, when its target may be an accelerator."""
        method = call.func.attr.value  # type: ignore[attr-defined]
        if method == "cuda":
            return "moved with `.cuda()`"
        if method != "to" or is_dtype_only_move(call, self.torch):
            return None
        target = move_target(call, self.torch)
        if target is None or not self._is_accelerator(target, env):
            return None
        return f"moved with `.to({short(self.ctx.module.code_for_node(target), 30)})`"

    def _is_accelerator(self, target: cst.BaseExpression, env: _Env) -> bool:
        """A device the code shows may be an accelerator, or the device of (or a tensor) placed here."""
        if isinstance(target, cst.Attribute) and target.attr.value == "device" and not (
                isinstance(target.value, cst.Name) and target.value.value == "self"):
            # `y.device`: where `y` is (`args.device` reads the same, and is not told apart)
            source = self.found.get(target.value) or self._value(target.value, env)
            return source is not None and (source.is_tensor or not source.known)
        if shows_accelerator(self.ctx, target, self.functions, self.cls):
            return True
        known = env.get(dotted_name(target) or "")
        if isinstance(known, Placed) and known.is_tensor:
            return True  # `.to(other)`: where `other` is
        # `.to(device)`, `.to(args.device)`: a device the caller chooses, unless the code shows the host (preview)
        return self.preview and is_plain_device(target, self.torch) and not self._shows_host(target)

    def _shows_host(self, target: cst.BaseExpression) -> bool:
        """`"cpu"`, `torch.device("cpu")`, or a name whose every binding in its innermost scope is one."""
        if is_host(target, self.torch):
            return True
        if not isinstance(target, cst.Name):
            return False
        for scope in [*self.functions, self.ctx.module]:
            bindings = self.ctx.types.scope_index(scope).bindings.get(target.value)
            if bindings:
                return all(how == "value" and is_host(node, self.torch) for how, node in bindings)  # type: ignore
        return False


_DEVICE_WORDS = re.compile(r"device|cuda|gpu|cpu|accelerat|mps", re.IGNORECASE)
# An input that is called and named like a module is one (`model(x)`, `self_encoder(x)`).
_MODULE_NAME = re.compile(r"model|net$|module|encoder|decoder|backbone|classifier", re.IGNORECASE)


def _handles_devices(function: cst.FunctionDef, inputs: set[str]) -> bool:
    """Does the function ask where its inputs are (`x.device`, `batch["ids"].device`: code written for
    inputs on any device), without moving any of them itself (then its callers hand it host tensors)?"""
    handles = False
    for node in own_nodes(function.body):
        if type(node) is cst.Attribute and node.attr.value == "device" and _root_name(node.value) in inputs:
            handles = True
        elif _moves_one_of(node, inputs):
            return False
    return handles


def _moves_one_of(node: cst.CSTNode, names: set[str]) -> bool:
    """`x.to(device)`, `batch["ids"].cuda()` of one of `names` (not a cast to a dtype only)."""
    return (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("to", "cuda")
            and not is_dtype_only_move(node) and _root_name(node.func.value) in names)


def _moves_inputs(function: cst.FunctionDef, inputs: set[str]) -> bool:
    """Does the function move (`.to(...)`, `.cuda()`) a value it was given, or one taken from it (`x = batch`,
    `for images, labels in loader`, `[t.to(device) for t in (images, labels)]`)? Then its callers hand it
    host tensors."""
    derived = set(inputs)
    body = list(own_nodes_in_order(function.body))
    for _ in range(2):  # (a name bound from one bound later in the text: a loop)
        for node in body:
            if type(node) is cst.Assign and _from_inputs(node.value, derived):
                derived.update(n for target in node.targets for n in _stored_names(target.target))
            elif type(node) in (cst.For, cst.CompFor) and _from_inputs(node.iter, derived):
                derived.update(_stored_names(node.target))
    return any(_moves_one_of(node, derived) for node in body)


def _from_inputs(value: cst.BaseExpression, derived: set[str]) -> bool:
    """`batch`, `batch["x"]`, `enumerate(loader)`, `zip(xs, ys)`, `(images, labels)` of a derived name."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return any(_from_inputs(element.value, derived) for element in value.elements)
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in ("enumerate", "zip"):
        return any(_from_inputs(arg.value, derived) for arg in value.args)
    return _root_name(value) in derived


def _annotated_otherwise(param: cst.Param) -> bool:
    """`action: np.ndarray`, `steps: int`: an input annotated as something that names no tensor."""
    if param.annotation is None:
        return False
    return not any(isinstance(node, cst.Name) and node.value in ("Tensor", "Any", "Module") or (
        isinstance(node, cst.Attribute) and node.attr.value in ("Tensor", "Any", "Module"))
        or isinstance(node, cst.SimpleString) and "Tensor" in node.value
        for node in own_nodes(param.annotation.annotation))


def _converts_through_cpu(function: cst.FunctionDef) -> bool:
    """`y.detach().cpu().numpy()`, `y.cpu()[0].numpy()` in the function (its nested functions aside)."""
    for node in own_nodes(function.body):
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "numpy" \
                and not node.args:
            value: cst.BaseExpression = node.func.value
            while type(value) in (cst.Subscript, cst.Call):
                if type(value) is cst.Subscript:
                    value = value.value
                elif type(value.func) is cst.Attribute:
                    if value.func.attr.value == "cpu" and not value.args:
                        return True
                    value = value.func.value
                else:
                    break
    return False


def _calls_super(node: cst.CSTNode, name: str) -> bool:
    """`super().name(...)`."""
    return (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == name
            and type(node.func.value) is cst.Call and type(node.func.value.func) is cst.Name
            and node.func.value.func.value == "super")


def _root_name(expr: cst.BaseExpression) -> Optional[str]:
    """`batch["ids"][0]` -> "batch": the name a chain of subscripts and attributes starts from."""
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


def _tests_device(test: cst.BaseExpression) -> bool:
    """Does an `if` test ask where something is (`x.is_cuda`, `x.device.type == "cpu"`, `device != "cpu"`,
    `torch.cuda.is_available()`, `use_gpu`)? Its branches may each run only where that holds."""
    for node in own_nodes(test):
        if type(node) is cst.Name and _DEVICE_WORDS.search(node.value):
            return True
        if type(node) is cst.SimpleString and _DEVICE_WORDS.search(node.value):
            return True
    return False


def _either(left: Optional[Placed], right: Optional[Placed]) -> Optional[Placed]:
    if left is None or right is None:
        return left or right
    return replace(left, is_tensor=left.is_tensor or right.is_tensor,
                   may_require_grad=left.may_require_grad or right.may_require_grad)


def _stored_names(target: cst.CSTNode) -> list[str]:
    name = dotted_name(target) if isinstance(target, cst.BaseExpression) else None
    if name is not None:
        return [name]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _stored_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _stored_names(target.value)
    return []




__all__ = ["OTHER", "Placed", "Placement"]
