"""A method call as a statement of its own whose result is a new tensor: thrown away.

DEV001 (moves: `x.to(d)`) and DEV007 (conversions: `x.float()`) ask the same questions of such a
statement, answered here once: is the receiver a tensor (the TypeOracle's evidence, `isinstance`
narrowing, or being the loop variable over a module's parameters), and what would keep the
result: assigning it back (`x = x.to(d)`), storing it in the dict it came from
(`batch[k] = v.to(d)`), or nothing the statement's own code can do (a module's parameter: only
the module's own in-place `.to()` / `.half()` changes it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from devlint.analysis.edits import code_of, short
from devlint.analysis.factories import factory_name
from devlint.analysis.names import dotted_name, named_parameters, target_names
from devlint.analysis.narrowing import Narrowing
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.torch_operations import TENSOR_ATTRIBUTE_NAMES
from devlint.analysis.types import Kind, TypeOracle, unwrap_listing
from devlint.analysis.walk import children, own_nodes_in_order

# Iterating `m.<method>()` yields a module's tensors (`named_*` as (name, tensor) pairs).
_PARAMETER_ITERATORS = ("parameters", "buffers")
_NAMED_PARAMETER_ITERATORS = ("named_parameters", "named_buffers")


@dataclass(frozen=True)
class BareCall:
    """`R.m(...)` as a statement, with where it stands (recorded during the traversal)."""

    statement: cst.Expr
    call: cst.Call
    functions: list[cst.FunctionDef]  # innermost first
    cls: Optional[cst.ClassDef]
    narrowing: Narrowing
    loop: Optional[cst.For]  # the innermost `for` whose target binds the receiver's name
    repeats: tuple["cst.For | cst.While", ...]  # every enclosing loop, innermost last

    @property
    def receiver(self) -> cst.BaseExpression:
        return self.call.func.value  # type: ignore[attr-defined]

    @property
    def method(self) -> str:
        return self.call.func.attr.value  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Discarded:
    """What was thrown away, and what would keep it."""

    text: str  # the receiver as written, shortened for a message
    # "assign": `x = x.m(...)`; "store": `d[k] = v.m(...)`; "dict": back into the dict of a `.values()`
    # loop; "parameter": a module's parameter, buffer or state-dict entry; "use": an expression to use
    keep: str
    entry: Optional[tuple[cst.Name, cst.Name]] = None  # (dict, key) for "store"
    owner: Optional[cst.BaseExpression] = None  # the module, for "parameter"
    owner_iterator: str = ""  # how the loop reads the module: "parameters", "buffers", "state_dict"
    dead_store: bool = False  # "assign" to a local name never read again: no fix
    parameter_attribute: bool = False  # "assign" to an attribute that may be an nn.Parameter: no fix


def binding_loop(receiver: cst.BaseExpression, loops: list[cst.For]) -> Optional[cst.For]:
    """The innermost enclosing `for` whose target binds the receiver's name."""
    if isinstance(receiver, cst.Name):
        for loop in reversed(loops):
            if any(name.value == receiver.value for name in target_names(loop.target)):
                return loop
    return None


def discarded_result(types: TypeOracle, bare: BareCall) -> Optional[Discarded]:
    """The result of `bare` is a tensor thrown away: how to keep it. None when the receiver is not
    shown to be a tensor (modules convert and move in place; unknowns are not judged)."""
    receiver = bare.receiver
    if _shown_no_op(types, bare):
        return None  # `t = torch.zeros(n, dtype=x.dtype)` ... `t.to(x.dtype)`: nothing to keep
    text = short(types.module.code_for_node(receiver))
    owner = parameter_owner(receiver, bare.loop)
    if owner is not None:
        if types.kind_of(owner[0], bare.functions, bare.cls) is Kind.TENSOR:
            return None  # a tensor has no `.parameters()`: not a module's loop after all
        return Discarded(text, "parameter", owner=owner[0], owner_iterator=owner[1])
    narrowed = types.narrowed_kinds(bare.narrowing)
    if types.kind_of(receiver, bare.functions, bare.cls, narrowed) is not Kind.TENSOR:
        return None
    if _reads_what_no_tensor_has(bare):
        return None  # `prior = priors[level]` ... `prior.n_ctx`: a model, moved in place
    read_after = isinstance(receiver, cst.Name) and (
        not bare.functions  # a module's global may be read by whoever imports it
        or _read_after(bare.statement, receiver.value, bare.functions[0], bare.repeats))
    entry = None if read_after else _dict_entry(receiver, bare.loop)
    if entry is not None:
        return Discarded(text, "store", entry=entry)  # `for k, v in batch.items(): v.to(d)`
    if not read_after and bare.loop is not None and _is_dict_value(receiver, bare.loop):  # type: ignore[arg-type]
        return Discarded(text, "dict")  # `for v in batch.values()`
    if isinstance(receiver, (cst.Name, cst.Attribute, cst.Subscript)):
        return Discarded(text, "assign", dead_store=isinstance(receiver, cst.Name) and not read_after,
                         parameter_attribute=may_be_parameter(types, receiver, bare.functions, bare.cls))
    return Discarded(text, "use")


def parameter_owner(receiver: cst.BaseExpression, loop: Optional[cst.For]
                    ) -> Optional[tuple[cst.BaseExpression, str]]:
    """(`model`, "parameters") when `receiver` is the loop variable of `for p in model.parameters()`
    (`buffers()`, `named_parameters()`, `named_buffers()`, `state_dict().values()` / `.items()`, under
    `enumerate` / `zip` / `list`) and the loop body never rebinds it: a tensor the module holds."""
    if loop is None or not isinstance(receiver, cst.Name):
        return None
    found = _iterated_tensor_owner(loop.target, loop.iter, receiver.value)
    if found is None or _rebinds(loop.body, receiver.value):
        return None
    return found


def _iterated_tensor_owner(target: cst.BaseExpression, iterable: cst.BaseExpression, name: str
                           ) -> Optional[tuple[cst.BaseExpression, str]]:
    iterable = unwrap_listing(iterable)  # type: ignore[assignment]
    if not isinstance(iterable, cst.Call):
        return None
    func = iterable.func
    elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else []
    if isinstance(func, cst.Name) and func.value in ("enumerate", "zip"):
        args = [arg.value for arg in iterable.args if not arg.star and arg.keyword is None]
        if len(args) != len(iterable.args) or not args:
            return None
        if func.value == "enumerate":
            return _iterated_tensor_owner(elements[1], args[0], name) if len(elements) == 2 else None
        if len(elements) != len(args):
            return None
        for element, arg in zip(elements, args):
            found = _iterated_tensor_owner(element, arg, name)
            if found is not None:
                return found
        return None
    if not isinstance(func, cst.Attribute) or iterable.args:
        return None
    method, container = func.attr.value, func.value
    if method in _PARAMETER_ITERATORS:
        return (container, method) if _is_name(target, name) else None
    if method in _NAMED_PARAMETER_ITERATORS:
        return (container, method[6:]) if len(elements) == 2 and _is_name(elements[1], name) else None
    state_dict_of = _state_dict_owner(container)
    if state_dict_of is None:
        return None
    if method == "values" and _is_name(target, name):
        return state_dict_of, "state_dict"
    if method == "items" and len(elements) == 2 and _is_name(elements[1], name):
        return state_dict_of, "state_dict"
    return None


def _state_dict_owner(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`model` of `model.state_dict()`."""
    if (isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "state_dict"):
        return expr.func.value
    return None


def _reads_what_no_tensor_has(bare: BareCall) -> bool:
    """The receiver is a name bound once in its function (or a parameter never rebound) whose attribute the
    function reads, and a tensor has no such attribute (`prior.n_ctx`, `net.encoder`): it is not a tensor."""
    receiver = bare.receiver
    if not isinstance(receiver, cst.Name) or not bare.functions:
        return False
    function, name = bare.functions[0], receiver.value
    bindings = _bindings(function.body, name)
    if len(bindings) + (name in named_parameters(function)) != 1:
        return False
    nodes = list(own_nodes_in_order(function.body))
    stored = {target.attr.value for node in nodes if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign))
              for target in ([t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target])
              if isinstance(target, cst.Attribute) and _is_name(target.value, name)}  # `x.tag = ...`: set, then read
    return any(isinstance(node, cst.Attribute) and _is_name(node.value, name) and not node.attr.value.startswith("_")
               and node.attr.value not in TENSOR_ATTRIBUTE_NAMES and node.attr.value not in stored for node in nodes)


def _shown_no_op(types: TypeOracle, bare: BareCall) -> bool:
    """`t.to(E)` where the file shows `t` is already there: every binding of `t` in its function that may reach
    the move is a torch factory given `dtype=E` (and/or `device=F`), and the move asks for nothing else. In-place
    work keeps a tensor's dtype and device, so the move returns `t` itself: throwing it away loses nothing
    (PyTorch's reference `scaled_dot_product_attention`, copied widely, has `attn_bias.to(query.dtype)`;
    pytorch_GAN_zoo makes its noise with `device=model.device` in both branches, then `.to(model.device)`)."""
    receiver, call = bare.receiver, bare.call
    if bare.method != "to" or not call.args or not isinstance(receiver, cst.Name) or not bare.functions:
        return False
    function = bare.functions[0]
    stars = (function.params.star_arg, function.params.star_kwarg)
    if receiver.value in named_parameters(function) or any(
            isinstance(star, cst.Param) and star.name.value == receiver.value for star in stars):
        return False  # a parameter reaches the move wherever the binding in the function does not
    # the bindings that may reach the move: those before it, or every one when a loop repeats it
    bindings = _bindings(function.body, receiver.value, None if bare.repeats else bare.statement)
    return bool(bindings) and all(_made_as_asked(types, binding, call) for binding in bindings)


def _made_as_asked(types: TypeOracle, binding: cst.CSTNode, call: cst.Call) -> bool:
    """`binding` is `t = <torch factory>(..., dtype=E, device=F)` giving every place and type `call` asks for."""
    if not isinstance(binding, cst.Assign) or len(binding.targets) != 1:
        return False
    factory = binding.value
    if factory_name(factory, types.torch) is None:
        return False
    given = {arg.keyword.value: code_of(arg.value) for arg in factory.args  # type: ignore[attr-defined]
             if arg.keyword is not None and arg.keyword.value in ("dtype", "device")}
    for arg in call.args:
        if arg.star or (arg.keyword is not None and arg.keyword.value not in ("dtype", "device")):
            return False  # `non_blocking=`, `copy=`, `memory_format=`: more than a place and a type
        wanted = code_of(arg.value)
        if arg.keyword is not None and given.get(arg.keyword.value) != wanted:
            return False
        if arg.keyword is None and wanted not in given.values():
            return False
    return True


def _bindings(body: cst.CSTNode, name: str, until: Optional[cst.CSTNode] = None) -> list[cst.CSTNode]:
    """Every statement or clause in `body` that binds `name`, in the order of the source, up to `until`
    when given; nested functions and classes are their own scopes (one named `name` binds it)."""
    found: list[cst.CSTNode] = []
    for node in own_nodes_in_order(body):
        if node is until:
            break
        named = isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name
        if named or any(n.value == name for target in _bound_by(node) for n in target_names(target)):
            found.append(node)
    return found


def _is_name(expr: cst.BaseExpression, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _rebinds(body: cst.CSTNode, name: str) -> bool:
    """Does `body` assign `name` (`p = p.data`, `for p in ...`, `with ... as p`, `p += 1`, `p := ...`)?"""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if any(n.value == name for target in _bound_by(node) for n in target_names(target)):
            return True
        stack.extend(children(node))
    return False


def _bound_by(node: cst.CSTNode) -> list[cst.BaseExpression]:
    """The targets `node` binds (an assignment, a loop, a comprehension, a walrus, `with ... as`)."""
    if type(node) is cst.Assign:
        return [t.target for t in node.targets]
    if type(node) in (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr):
        return [node.target]
    if type(node) is cst.WithItem and node.asname is not None:
        return [node.asname.name]
    return []


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
                repeats: tuple["cst.For | cst.While", ...]) -> bool:
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


# Assigning a plain tensor to a module's parameter raises TypeError: these attributes of a
# module (or of anything, for the usual parameter names) get no assign-back fix.
_PARAMETER_NAMES = ("weight", "bias")


def may_be_parameter(types: TypeOracle, receiver: cst.BaseExpression, functions: list[cst.FunctionDef],
                     cls: Optional[cst.ClassDef]) -> bool:
    """Could `receiver` be an `nn.Parameter` attribute of a module (`self.w` bound to one, `m.weight`)?"""
    if not isinstance(receiver, cst.Attribute):
        return False
    if receiver.attr.value in _PARAMETER_NAMES:
        return True
    if dotted_name(receiver.value) == "self":
        return cls is not None and _is_parameter_attr(types, receiver.attr.value, cls)
    return types.kind_of(receiver.value, functions, cls) is Kind.MODULE


def _is_parameter_attr(types: TypeOracle, attr: str, cls: cst.ClassDef) -> bool:
    index = types.class_index(cls)
    for how, node, _method in index.bindings.get(attr, []):
        if how == "buffer" and isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "register_parameter":
                return True
        if how == "value" and isinstance(node, cst.Call):
            full = types.torch.qualify(node.func) or ""
            if full.endswith("Parameter"):
                return True
    return False



# `nn.Parameter(t).to(d)` / `.cuda()`: a move of a Parameter returns a plain tensor (unless it moves nothing).
_PARAMETER_MOVES = ("to", "cuda")
_PARAMETER_CLASSES = ("torch.nn.Parameter", "torch.nn.parameter.Parameter")


def parameter_moved(torch: TorchNames, value: cst.BaseExpression) -> Optional[cst.Call]:
    """The `nn.Parameter(...)` call of `nn.Parameter(t).to(d)` / `.cuda()`, else None.

    A move returns a new tensor, no longer a Parameter, unless there was nothing to move: a `.to(...)`
    whose every argument is the `device=` / `dtype=` the wrapped tensor was already made with is not
    reported."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in _PARAMETER_MOVES and isinstance(value.func.value, cst.Call)):
        return None
    wrapped = value.func.value
    if torch.qualify(wrapped.func) not in _PARAMETER_CLASSES:
        return None
    if value.func.attr.value == "to" and value.args:
        already = {code_of(arg.value) for arg in _keywords_inside(wrapped) if arg.keyword is not None
                   and arg.keyword.value in ("device", "dtype")}
        if all(code_of(arg.value) in already for arg in value.args):
            return None
    return wrapped


def _keywords_inside(call: cst.Call) -> list[cst.Arg]:
    found: list[cst.Arg] = []
    stack: list[cst.CSTNode] = [call]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Arg):
            found.append(node)
        stack.extend(children(node))
    return found
