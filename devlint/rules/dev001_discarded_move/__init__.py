"""DEV001 — result of a tensor move discarded."""

from __future__ import annotations

import ast
from typing import Any, Callable, Iterator, Optional, Union

from devlint.analysis.prefilter import method_call
from devlint.analysis.screen import SyntaxFacts
from devlint.analysis.vocabulary import MODULE_METHODS, TENSOR_METHODS, TENSOR_ONLY_ATTRIBUTES, TENSOR_VALUED_ATTRIBUTES
from devlint.rules.rule import FixSafety, Rule, any_candidate

MOVES = ("to", "cuda", "cpu", "pin_memory")

_Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def _candidates(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """A move that is a statement of its own (`R.to(...)`) whose receiver may be a tensor; or
    `Parameter(...).to(...)`. The rule reports a receiver only where the type oracle shows a tensor, and
    module evidence always wins there: so `self` of a class that is no tensor, a parameter or local name of
    the enclosing function that it calls or uses as a module (`model(x)`, `y = model.parameters()`), and a
    `self.<attr>` that the class calls or uses so (`self.vae(...)`, `self.vae.config`) are never reported;
    nor are a `self.<attr>` the class neither binds nor uses as a tensor (`self.safety_checker`, registered by
    a library: no evidence either way), and an attribute of anything else unless tensors are what it names
    (`p.data`, `layer.weight`): unless an `isinstance` or `is_tensor` test in the function may say otherwise."""
    yield from facts.parameter_moves()
    if facts.methods_discarded.isdisjoint(MOVES):
        return
    evidence = _ModuleEvidence()
    yield from (found[0] for found in _discarded_moves(facts.tree) if not evidence.surely_not_a_tensor(*found))


# A move statement, its innermost function, its outermost function and its innermost class.
_Found = tuple[ast.Call, Optional[_Function], Optional[_Function], Optional[ast.ClassDef]]


def _discarded_moves(tree: ast.Module) -> Iterator[_Found]:
    """Each `R.to(...)` (any of MOVES) that is a statement of its own, with where it is."""
    stack: list[tuple[ast.AST, Optional[_Function], Optional[_Function], Optional[ast.ClassDef]]] = [
        (tree, None, None, None)]
    while stack:
        node, function, outermost, cls = stack.pop()
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            function = node  # type: ignore[assignment]
            outermost = outermost or function
        elif kind is ast.ClassDef:
            cls = node  # type: ignore[assignment]
        elif kind is ast.Expr:
            value = node.value  # type: ignore[attr-defined]
            if type(value) is ast.Call and type(value.func) is ast.Attribute and value.func.attr in MOVES:
                yield value, function, outermost, cls
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                stack.append((child, function, outermost, cls))


class _ModuleEvidence:
    """What a function or class shows, read once however many moves it holds."""

    def __init__(self) -> None:
        self._read: dict[tuple[Callable[[Any], set[str]], int], set[str]] = {}

    def surely_not_a_tensor(self, move: ast.Call, function: Optional[_Function], outermost: Optional[_Function],
                            cls: Optional[ast.ClassDef]) -> bool:
        receiver = move.func.value  # type: ignore[attr-defined]
        if function is None or outermost is None:
            return False
        if ast.unparse(receiver) in self._once(_tested_with_isinstance, outermost):
            return False  # (an `isinstance` test around it may make it a tensor there)
        if type(receiver) is ast.Name:
            if receiver.id == "self":
                return cls is not None and not any("Tensor" in ast.unparse(base) for base in cls.bases)
            return (receiver.id in self._once(_names_bound, function)
                    and receiver.id in self._once(_names_used_as_modules, function))
        if type(receiver) is ast.Attribute:
            if type(receiver.value) is ast.Name and receiver.value.id == "self":  # type: ignore[attr-defined]
                if cls is None:
                    return False
                return (receiver.attr in self._once(_attributes_used_as_modules, cls)  # type: ignore[attr-defined]
                        or receiver.attr not in self._once(_attributes_that_may_be_tensors, cls))  # type: ignore
            return receiver.attr not in TENSOR_VALUED_ATTRIBUTES  # type: ignore[attr-defined]
        return False

    def _once(self, question: Callable[[Any], set[str]], node: ast.AST) -> set[str]:
        key = (question, id(node))
        if key not in self._read:
            self._read[key] = question(node)
        return self._read[key]


def _tested_with_isinstance(function: ast.AST) -> set[str]:
    """The text of every value the function tests with `isinstance(value, ...)` or `is_tensor(value)`."""
    return {ast.unparse(node.args[0]) for node in ast.walk(function)  # type: ignore[attr-defined]
            if type(node) is ast.Call and node.args and (  # type: ignore[attr-defined]
                (type(node.func) is ast.Name and node.func.id in ("isinstance", "is_tensor"))  # type: ignore
                or (type(node.func) is ast.Attribute and node.func.attr == "is_tensor"))}  # type: ignore


def _attributes_that_may_be_tensors(cls: ast.ClassDef) -> set[str]:
    """A superset of the `<attr>` of `self.<attr>` that the type oracle may find a tensor (its class index): bound
    in the class (assigned, unpacked into, annotated, registered as a buffer or parameter), or used through a
    tensor's method or attribute (`self.<attr>.shape`, `self.<attr>.view(...)`)."""
    found: set[str] = set()
    for statement in cls.body:
        if type(statement) is ast.AnnAssign and type(statement.target) is ast.Name:  # type: ignore[attr-defined]
            found.add(statement.target.id)  # type: ignore[attr-defined]
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(statement):
            kind = type(node)
            if kind is ast.Attribute and type(node.value) is ast.Name and node.value.id == "self":  # type: ignore
                if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                    found.add(node.attr)  # type: ignore[attr-defined]  # bound, or unpacked into
            elif kind is ast.Attribute and node.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                attribute = _self_attribute(node.value)  # type: ignore[attr-defined]
                if attribute is not None:
                    found.add(attribute)
            elif kind is ast.Call and type(node.func) is ast.Attribute and node.func.attr in (  # type: ignore
                    "register_buffer", "register_parameter") and node.args:  # type: ignore[attr-defined]
                first = node.args[0]  # type: ignore[attr-defined]
                if type(first) is ast.Constant and type(first.value) is str:
                    found.add(first.value)
    return found


_TENSOR_EVIDENCE = TENSOR_METHODS | TENSOR_ONLY_ATTRIBUTES


def _own_nodes(function: _Function) -> Iterator[ast.AST]:
    """The nodes of the function's body, without those of nested functions and classes (their own scopes)."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in ast.iter_child_nodes(node)
                     if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def _names_bound(function: _Function) -> set[str]:
    """The function's parameters and the names its own statements assign or bind with `with ... as` (a subset of
    the type oracle's bindings there: where a name is bound, its usages there decide). Not loop variables: the
    rule reports one of `for p in model.parameters()` whatever else it is used as."""
    arguments = function.args
    found = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                             *(a for a in (arguments.vararg, arguments.kwarg) if a))}
    for node in _own_nodes(function):
        kind = type(node)
        targets: list[ast.AST] = []
        if kind is ast.Assign:
            targets = node.targets  # type: ignore[attr-defined]
        elif kind is ast.AnnAssign or kind is ast.AugAssign:
            targets = [node.target]  # type: ignore[attr-defined]
        elif kind is ast.With or kind is ast.AsyncWith:
            targets = [item.optional_vars for item in node.items if item.optional_vars is not None]  # type: ignore
        for target in targets:
            found.update(n.id for n in ast.walk(target) if type(n) is ast.Name)  # type: ignore[attr-defined]
    return found


def _bare_callees(nodes: list[ast.AST]) -> set[int]:
    """The functions of calls that are statements of their own (`model.eval()`): no evidence either way."""
    return {id(node.value.func) for node in nodes  # type: ignore[attr-defined]
            if type(node) is ast.Expr and type(node.value) is ast.Call}  # type: ignore[attr-defined]


def _names_used_as_modules(function: _Function) -> set[str]:
    """The names the function (not its nested ones) calls (`name(...)`), indexes by a string (`name["key"]`), or
    asks a module's method or attribute of, not as a statement (`name.parameters()`)."""
    nodes = list(_own_nodes(function))
    bare = _bare_callees(nodes)
    called = {id(node.func) for node in nodes if type(node) is ast.Call}  # type: ignore[attr-defined]
    found: set[str] = set()
    for node in nodes:
        kind = type(node)
        if kind is ast.Call and type(node.func) is ast.Name:  # type: ignore[attr-defined]
            found.add(node.func.id)  # type: ignore[attr-defined]
        elif (kind is ast.Subscript and type(node.value) is ast.Name  # type: ignore[attr-defined]
                and type(node.slice) is ast.Constant and type(node.slice.value) is str):  # type: ignore[attr-defined]
            found.add(node.value.id)  # type: ignore[attr-defined]
        elif (kind is ast.Attribute and type(node.value) is ast.Name  # type: ignore[attr-defined]
                and node.attr in MODULE_METHODS and id(node) not in bare  # type: ignore[attr-defined]
                # (a tensor method read, not called, is no evidence either way: the oracle's `_uncalled_method`)
                and (node.attr not in TENSOR_METHODS or node.attr in TENSOR_ONLY_ATTRIBUTES  # type: ignore
                     or id(node) in called)):
            found.add(node.value.id)  # type: ignore[attr-defined]
    return found


def _attributes_used_as_modules(cls: ast.ClassDef) -> set[str]:
    """The `<attr>` of every `self.<attr>(...)` in the class's methods, and of `self.<attr>.config` /
    `self.<attr>.parameters()` not as a statement."""
    nodes = [node for method in cls.body if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
             for node in ast.walk(method)]
    bare = _bare_callees(nodes)
    found: set[str] = set()
    for node in nodes:
        kind = type(node)
        if kind is ast.Call and _self_attribute(node.func) is not None:  # type: ignore[attr-defined]
            found.add(_self_attribute(node.func))  # type: ignore[arg-type,attr-defined]
        elif (kind is ast.Attribute and node.attr in MODULE_METHODS and id(node) not in bare  # type: ignore
                and _self_attribute(node.value) is not None):  # type: ignore[attr-defined]
            found.add(_self_attribute(node.value))  # type: ignore[arg-type,attr-defined]
    return found


def _self_attribute(expr: ast.AST) -> Optional[str]:
    """`attr` of `self.attr`."""
    if type(expr) is ast.Attribute and type(expr.value) is ast.Name and expr.value.id == "self":  # type: ignore
        return expr.attr  # type: ignore[attr-defined]
    return None


RULE = Rule(
    code="DEV001",
    name="discarded-tensor-move",
    summary="The result of `tensor.to(...)` / `.cuda()` / `.cpu()` / `.pin_memory()` is thrown away",
    why="""
        Tensor moves are not in place: `x.to(device)` returns a new tensor and leaves `x` where it was.
        The statement does nothing but copy data, and the code after it still runs on the old device,
        failing later with "Expected all tensors to be on the same device" or silently running on the CPU.
        `nn.Module.to()` *is* in place, which is why the mistake is easy to make. The loop variable of
        `for p in model.parameters()` (`buffers()`, `named_parameters()`, `named_buffers()`,
        `state_dict().values()` / `.items()`) is such a tensor: moving it changes nothing, and no
        assignment to `p` can either; only `model.to(device)` moves the module's tensors. The same
        mistake with the opposite outcome is reported too: `self.w = nn.Parameter(t).cuda()` keeps the
        moved copy, which is a plain tensor, no longer a Parameter, so it is not registered with the
        module, not in its `parameters()` or state dict, and never trained. It is reported under this
        code, with its own message, because its cause is the same (a move returns a new tensor). A move
        inside `with pytest.raises(...)` / `self.assertRaises(...)` is made for its error: not reported;
        nor is a `.to(...)` that asks only for the dtype and device a tensor was made with, where the file
        shows it (bound once in the function, by a factory given that `dtype=`/`device=`): it returns the
        tensor itself, so nothing is lost (`attn_bias.to(query.dtype)` in PyTorch's reference attention).
        A value made by a function of the file (`kernel = make_kernel(...)`) is a tensor where that function,
        defined once and undecorated, gives one at every `return` and cannot end without one.
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
        statement had no effect, and the value now has the device the code asked for. Unsafe where the
        function converts a tensor to NumPy after the move (`.numpy()`, or `np.asarray(...)` of a value
        shown to be a tensor; not through `.cpu()` first; anywhere in it when the move is in a loop),
        unless the move is to the CPU: the code ran with the tensor on the host, and on a device that
        conversion raises. No fix is offered
        for other receivers, nor for attributes that are or may be an `nn.Parameter` (bound to one, named
        `weight` or `bias`, or an attribute of a module): assigning a plain tensor to a parameter raises
        `TypeError`. No fix for the loop variable over a module's tensors: no rebinding reaches the
        module, and whether to move the whole module is the author's call. No fix for a moved
        Parameter: `nn.Parameter(t.cuda())` is right only where CUDA is certain, and `.to(device)` of a
        tensor already there returns the Parameter itself; what device was meant is for the author to
        say. A `.to(...)` whose arguments are all the `device=` / `dtype=` the wrapped tensor was
        made with moves nothing and is not reported.
    """,
    tokens=("torch", method_call(*MOVES)),
    screen=any_candidate(_candidates),
    candidates=_candidates,
)
