"""DEV005's screen: may a factory's host tensor meet a function's input here? Asked of Python's `ast`.

Conservative as every screen (devlint/analysis/screen.py): each answer is a superset of what DEV005's data flow
(flow.py beside this module) reads, so the flow is run only where this says yes, and never misses a report for it
(tests/rules/test_dev005.py holds the two to that)."""

from __future__ import annotations

import ast
from typing import Callable, Iterable, Optional, Union

from devlint.analysis.screen import (
    CPU_FACTORIES, MEETING_CALLS, SyntaxFacts, call_name, contains, dotted, extent, places_tensor, walk,
)
from devlint.analysis.torch_operations import INDEX_ARGUMENTS
from devlint.analysis.vocabulary import (
    CONCATENATIONS, HOST_VALUE_METHODS, LEGACY_CONSTRUCTORS, LOOP_WRAPPERS, NO_SCALARS, NON_TENSOR_METHODS, NUMBER_CALLS,
    PLACED_ATTRIBUTES, TENSOR_ATTRIBUTES, TENSOR_ONLY_METHODS, TO_HOST_METHODS, TORCH_ONLY_METHODS,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Factories whose tensor never carries an input's, whatever their arguments (sizes, ranges)
_SIZED_FACTORIES = CPU_FACTORIES - {"torch.tensor", "torch.as_tensor"}
_LEGACY = frozenset(f"torch.{name}" for name in LEGACY_CONSTRUCTORS)

# Where DEV005's data flow sees devices meet: operators, joining calls, returns, `self.m(...)`.
_MEETING_NODES = (ast.BinOp, ast.Compare, ast.AugAssign)
# where a 0-dim CPU tensor is refused too: joined, or given as an index or mask
_SCALAR_REFUSING = NO_SCALARS | frozenset(INDEX_ARGUMENTS)
# a subscript's index that may be a tensor (not a number, a slice or a string)
_TENSOR_INDEX = (ast.Name, ast.Call, ast.Attribute, ast.Compare, ast.BinOp, ast.Subscript, ast.UnaryOp)


def host_meetings_possible(facts: SyntaxFacts) -> bool:
    """DEV005's screen: a factory that may make a host tensor (0-dim ones too: they meet in
    `stack` and returns), in a function that holds a construct where devices may meet, beside a
    value that may come from the function's inputs. Records the answer for each function too."""
    functions = facts.functions_in_order()
    by_extent = sorted(((extent(f), f) for f in functions), key=lambda pair: pair[0])
    verdicts: dict[int, bool] = {}
    screens: dict[int, Optional[_FunctionScreen]] = {}
    returning: set[int] = set()  # the functions whose factory (one that may make a host tensor) may be returned
    readers: dict[int, _FunctionScreen] = {}  # (each function read once for that)
    for call in facts.calls:
        if id(call) in facts.spent or not _may_make_host_tensor(facts, call):
            continue
        inner = None
        for (first, last), function in by_extent:
            if first <= call.lineno and (call.end_lineno or call.lineno) <= last:
                inner = function  # sorted by first line: the last one holding it is the innermost
        if inner is None:
            continue
        if id(inner) not in returning:
            if id(inner) not in readers:
                readers[id(inner)] = screens.get(id(inner)) or _FunctionScreen(facts, inner)
            if readers[id(inner)].may_return(call):
                returning.add(id(inner))
        if verdicts.get(id(inner)):
            continue
        if id(inner) not in screens:
            screens[id(inner)] = (readers[id(inner)]
                                  if _has_meeting(facts, inner) and _may_have_inputs(facts, inner) else None)
        function_screen = screens[id(inner)]
        if function_screen is not None and function_screen.may_meet(call):
            verdicts[id(inner)] = True
    for method in _host_attribute_readers(facts):
        verdicts[id(method)] = True
    for method in _accumulator_readers(facts):
        verdicts[id(method)] = True
    for method in _callers_of_makers(facts, returning):
        verdicts[id(method)] = True
    facts.host_meeting_functions = [verdicts.get(id(f), False) for f in functions]
    return bool(verdicts)


def host_meeting_candidates(facts: SyntaxFacts) -> Iterable[ast.AST]:
    """What DEV005's flow reads, for the LibCST stage to parse (devlint/analysis/needed.py): each function the
    screen keeps (its reports are at the factories in it, or in another method of its class, which is parsed with
    it), the module classes they make (`_module_classes_reached`), and every call in the file of one of those
    functions by its name (`pad(x)`, `obj.pad(x)`): the flow asks whether every caller gives a host tensor
    (`CallSites`), and reads each caller's bindings for that."""
    if facts.host_meeting_functions is None:
        host_meetings_possible(facts)
    kept = [function for function, verdict in zip(facts.functions_in_order(), facts.host_meeting_functions or ())
            if verdict]
    yield from kept
    yield from _module_classes_reached(facts, kept)
    yield from facts.calls_by_name({function.name for function in kept})


def _module_classes_reached(facts: SyntaxFacts, kept: list[_Function]) -> Iterable[ast.ClassDef]:
    """The classes with a `forward` that the kept functions' top-level statements, or the module's own statements,
    call by their name (`self.encoder = GPT2Model(config)`), and those such a class calls, until none is new: the flow
    reads what such a submodule is from its class (a module's layers, what its `forward` gives)."""
    with_forward = facts.classes_with_forward()
    if not with_forward:
        return
    body = facts.tree.body
    roots: list[ast.AST] = [statement for statement in body if not isinstance(statement, (*_FUNCTIONS, ast.ClassDef))]
    roots += [statement for statement in body if isinstance(statement, (*_FUNCTIONS, ast.ClassDef)) and any(
        contains(statement, function) for function in kept)]  # type: ignore[arg-type]
    seen: set[str] = set()
    while roots:
        for node in facts.nodes_in(roots.pop()):
            if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id in with_forward and (  # type: ignore
                    node.func.id not in seen):  # type: ignore[attr-defined]
                seen.add(node.func.id)  # type: ignore[attr-defined]
                yield with_forward[node.func.id]  # type: ignore[attr-defined]
                roots.append(with_forward[node.func.id])  # type: ignore[attr-defined]


def _host_attribute_readers(facts: SyntaxFacts) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of a class with a base that read `self.X` where the class's `__init__` binds `self.X` to
    a factory's host tensor (directly, through a method chain, or through a name bound to one): a plain
    attribute, which `Module.to()` leaves on the CPU (a superset of what `flow.ModuleFacts` keeps)."""
    readers = []
    for cls in facts.classes:
        if not cls.bases:
            continue
        methods = [s for s in cls.body if type(s) in (ast.FunctionDef, ast.AsyncFunctionDef)]
        init = next((m for m in methods if m.name == "__init__"), None)
        if init is None:
            continue
        assigned: list[tuple[ast.expr, ast.expr]] = []
        for node in facts.nodes_in(init):
            if type(node) is ast.Assign and len(node.targets) == 1:  # type: ignore[attr-defined]
                value = node.value  # type: ignore[attr-defined]
                while type(value) is ast.Call and type(value.func) is ast.Attribute \
                        and not _may_make_host_tensor(facts, value):  # type: ignore[attr-defined]
                    value = value.func.value  # type: ignore[attr-defined]  (`pe.unsqueeze(0)`)
                assigned.append((node.targets[0], value))  # type: ignore[attr-defined]
        local = {target.id: value for target, value in assigned if type(target) is ast.Name}  # type: ignore
        attributes = set()
        for target, value in assigned:
            if type(target) is ast.Attribute and type(target.value) is ast.Name and \
                    target.value.id == "self":  # type: ignore[attr-defined]
                made = local.get(value.id, value) if type(value) is ast.Name else value  # type: ignore
                if type(made) is ast.Call and _may_make_host_tensor(facts, made):  # type: ignore[arg-type]
                    attributes.add(target.attr)  # type: ignore[attr-defined]
        if attributes:
            readers.extend(_methods_reading(facts, methods, attributes, init))
    return readers


_Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def _methods_reading(facts: SyntaxFacts, methods: list[_Function], attributes: set[str],
                     init: Optional[_Function]) -> list[_Function]:
    """The methods, but `init`, that mention `self.<attribute>` for one of `attributes`."""
    return [method for method in methods if method is not init and any(
        type(node) is ast.Attribute and node.attr in attributes and type(node.value) is ast.Name  # type: ignore
        and node.value.id == "self" for node in facts.nodes_in(method))]  # type: ignore[attr-defined]


def _accumulator_readers(facts: SyntaxFacts) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods (not `__init__`) of any class that mention `self.X`, where the class concatenates onto `self.X`
    (`self.X = torch.cat([self.X, ...])`) and binds it somewhere to a call that may make a host tensor: its
    start may reach that concatenation on the CPU (a superset of what `flow.accumulated_attributes` keeps). Only
    a class that holds a concatenation given `self.<attribute>` (among the screen's calls) is walked."""
    onto_self = [call for call in facts.calls if call_name(call) in CONCATENATIONS and call.args
                 and type(call.args[0]) in (ast.List, ast.Tuple) and any(
                     type(e) is ast.Attribute and type(e.value) is ast.Name and e.value.id == "self"  # type: ignore
                     for e in call.args[0].elts)]  # type: ignore[attr-defined]
    readers: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for cls in facts.classes if onto_self else ():
        first, last = cls.lineno, cls.end_lineno or cls.lineno
        if not any(first <= call.lineno <= last for call in onto_self):
            continue  # nothing in it is concatenated onto an attribute
        grown, started = set(), set()
        for node in facts.nodes_in(cls):
            if type(node) is ast.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
                targets = [node.target]  # type: ignore[attr-defined]
            elif type(node) is ast.Assign:
                targets = node.targets  # type: ignore[attr-defined]
            else:
                continue
            value = node.value  # type: ignore[attr-defined]
            while type(value) is ast.Call and type(value.func) is ast.Attribute \
                    and value.func.attr not in CONCATENATIONS and not _may_make_host_tensor(facts, value):  # type: ignore
                value = value.func.value  # type: ignore[attr-defined]  (`torch.cat([...]).to(x.dtype)`)
            if type(value) is not ast.Call:
                continue
            for target in targets:
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":  # type: ignore
                    if call_name(value) in CONCATENATIONS:  # type: ignore[arg-type]
                        grown.add(target.attr)  # type: ignore[attr-defined]
                    elif _may_make_host_tensor(facts, value):  # type: ignore[arg-type]
                        started.add(target.attr)  # type: ignore[attr-defined]
        attributes = grown & started
        if not attributes:
            continue
        facts.accumulating_classes.add(cls.name)
        methods = [s for s in cls.body if type(s) in (ast.FunctionDef, ast.AsyncFunctionDef)]
        init = next((m for m in methods if m.name == "__init__"), None)  # type: ignore[attr-defined]
        readers.extend(_methods_reading(facts, methods, attributes, init))  # type: ignore[arg-type]
    return readers


def _callers_of_makers(facts: SyntaxFacts, returning: set[int]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of a class that call `self.m(...)`, where `m` is an undecorated method of it that may return
    a factory's host tensor (`returning`: ids) or returns something and calls such a method: what `m` returns
    may be that factory's tensor (a superset of what `flow.FlowReader._returned_by` follows: in a module, a
    class with a base, or without one where it binds an `nn.Parameter` or registers a buffer)."""
    callers: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    if not returning:
        return callers
    for cls in facts.classes:
        methods = [s for s in cls.body if type(s) in (ast.FunctionDef, ast.AsyncFunctionDef)]
        makers = {m.name for m in methods if id(m) in returning and not m.decorator_list}  # (as the flow's)
        if not makers:
            continue  # (none: no method calls one; asked first, it saves walking the class)
        if not cls.bases and not any(
                type(n) is ast.Call and call_name(n) in _MODULE_STATE for n in facts.nodes_in(cls)):  # type: ignore
            continue  # not a module: neither a base nor a parameter or buffer of its own
        called = {id(m): {n.func.attr for n in facts.nodes_in(m) if _is_self_call(n)} for m in methods}  # type: ignore
        returns = {id(m) for m in methods if any(
            type(n) is ast.Return and n.value is not None for n in facts.nodes_in(m))}  # type: ignore[attr-defined]
        changed = True
        while changed:  # a method that returns what a maker returns is one too
            changed = False
            for m in methods:
                if m.name not in makers and id(m) in returns and not m.decorator_list and not called[id(m)].isdisjoint(makers):
                    makers.add(m.name)
                    changed = True
        callers.extend(m for m in methods if not called[id(m)].isdisjoint(makers))
    return callers


class _Span:
    """An expression's extent and the names in it: what "mentions" asks, without walking it again."""

    __slots__ = ("node", "start", "end", "names")

    def __init__(self, node: ast.AST) -> None:
        self.node = node
        self.start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        self.end = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        self.names = {n.id for n in walk(node) if type(n) is ast.Name}  # type: ignore[attr-defined]

    def holds(self, call: ast.Call) -> bool:
        return self.start <= (call.lineno, call.col_offset) and (call.end_lineno, call.end_col_offset) <= self.end


class _FunctionScreen:
    """One function read once for DEV005's screen: its bindings, its meeting constructs, and (when
    asked) which of its values may come from its inputs."""

    def __init__(self, facts: SyntaxFacts, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.facts = facts
        self.function = function
        self.nodes = nodes = facts.nodes_in(function)
        # (the expressions a binding reads, the names it binds): assignments, loops, comprehensions,
        # and `append`/`extend`/`insert` into a list
        self.bindings: list[tuple[list[ast.AST], set[str]]] = []
        for node in nodes:
            kind = type(node)
            read: list[ast.AST] = []
            bound: list[ast.AST] = []
            if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign or kind is ast.NamedExpr:
                if node.value is not None:  # type: ignore[attr-defined]
                    read = [node.value]  # type: ignore[attr-defined]
                    bound = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
            elif kind is ast.For or kind is ast.AsyncFor or kind is ast.comprehension:
                read, bound = [node.iter], [node.target]  # type: ignore[attr-defined]
            elif kind is ast.Call and type(node.func) is ast.Attribute and (  # type: ignore[attr-defined]
                    node.func.attr in ("append", "extend", "insert")):  # type: ignore[attr-defined]
                read, bound = list(node.args), [node.func.value]  # type: ignore[attr-defined]
            if read:
                names = {n.id for target in bound for n in walk(target) if type(n) is ast.Name}  # type: ignore
                if names:
                    self.bindings.append((read, names))
        # names that may hold a list, and so both kinds of tensor at once (a superset of the flow's `is_list`)
        self.list_names: set[str] = set()
        for node in nodes:
            kind = type(node)
            if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign or kind is ast.NamedExpr:
                if type(node.value) in _MAY_BE_LISTS:  # type: ignore[attr-defined]
                    targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
                    self.list_names.update(n.id for t in targets for n in walk(t) if type(n) is ast.Name)  # type: ignore
            elif kind is ast.Call and type(node.func) is ast.Attribute and (  # type: ignore[attr-defined]
                    node.func.attr in ("append", "extend", "insert")):  # type: ignore[attr-defined]
                if type(node.func.value) is ast.Name:  # type: ignore[attr-defined]
                    self.list_names.add(node.func.value.id)  # type: ignore[attr-defined]
        self.returns = [n for n in nodes if type(n) is ast.Return and n.value is not None]  # type: ignore
        self.several_returns = len(self.returns) > 1 or any(type(r.value) is ast.IfExp for r in self.returns)  # type: ignore
        self.constructs = [node for node in nodes if type(node) in _CONSTRUCTS or _is_indexing(node) or (
            type(node) is ast.Call and call_name(node) in MEETING_CALLS or _is_self_call(node))]  # type: ignore
        self.spans: dict[int, _Span] = {}
        self._inputs: Optional[_InputTrace] = None

    def span(self, node: ast.AST) -> _Span:
        found = self.spans.get(id(node))
        if found is None:
            found = self.spans[id(node)] = _Span(node)
        return found

    @property
    def inputs(self) -> "_InputTrace":
        if self._inputs is None:
            self._inputs = _InputTrace(self.facts, self.function, self.nodes, self.bindings)
        return self._inputs

    def _mentions(self, call: ast.Call) -> Callable[[ast.AST], bool]:
        """Does an expression mention the factory's value: hold the call, or a name bound (transitively) to an
        expression that mentions it?"""
        names: set[str] = set()

        def mentions(node: ast.AST) -> bool:
            span = self.span(node)
            return span.holds(call) or not names.isdisjoint(span.names)

        changed = True
        while changed:  # the names bound to what mentions the factory, until nothing changes
            changed = False
            for read, bound in self.bindings:
                if not bound <= names and any(mentions(expr) for expr in read):
                    names |= bound
                    changed = True
        return mentions

    def may_return(self, call: ast.Call) -> bool:
        """May the factory's value leave the function through a `return`?"""
        mentions = self._mentions(call)
        return any(mentions(node.value) for node in self.returns)  # type: ignore[attr-defined]

    def may_meet(self, call: ast.Call) -> bool:
        """Does the factory's value, or a name bound (transitively) to an expression that mentions it,
        sit inside a construct where devices meet, beside a value that may come from the inputs? (A
        superset of what DEV005's flow follows: a meeting needs both.)"""
        mentions = self._mentions(call)
        inputs = self.inputs
        scalar = _surely_scalar(self.facts, call)  # a 0-dim tensor mixes with any device in arithmetic
        for node in self.constructs:
            kind = type(node)
            if scalar and kind is not ast.Return and kind is not ast.Call and kind is not ast.AugAssign:
                continue
            # operators meet their operands two by two: the factory's tensor in one, an input's in the other
            if kind is ast.BinOp:
                if _meet_in_pairs([(node.left, node.right)], mentions, inputs):  # type: ignore[attr-defined]
                    return True
            elif kind is ast.Compare:
                operands = [node.left, *node.comparators]  # type: ignore[attr-defined]
                if _meet_in_pairs(list(zip(operands, operands[1:])), mentions, inputs):
                    return True
            elif kind is ast.AugAssign:
                if scalar:  # a 0-dim host tensor written in place from an input's: the output cannot move
                    if mentions(node.target) and inputs.carries(node.value):  # type: ignore[attr-defined]
                        return True
                elif _meet_in_pairs([(node.target, node.value)], mentions, inputs):  # type: ignore[attr-defined]
                    return True
            elif kind is ast.Subscript:
                # a host tensor indexed by an input's index
                if mentions(node.value) and inputs.carries(node.slice):  # type: ignore[attr-defined]
                    return True
            elif kind is ast.Assign:
                # `x[mask] = host`, and a host buffer (or list) written from an input's tensor
                for target in node.targets:  # type: ignore[attr-defined]
                    if type(target) is ast.Subscript and _meet_in_pairs(
                            [(target.value, node.value)], mentions, inputs):  # type: ignore[attr-defined]
                        return True
            elif kind is ast.Return:
                # a return meets the values the function's other returns give
                if self.several_returns and mentions(node):
                    paths = [path for r in self.returns for path in _return_paths(r.value)]  # type: ignore
                    if any(mentions(a) and inputs.carries(b) for a in paths for b in paths if a is not b):
                        return True
            else:
                func = node.func  # type: ignore[attr-defined]
                if _is_self_call(node) and func.attr in inputs.module_attributes and mentions(node):
                    return True  # a submodule's call: it meets the submodule's parameters
                if call_name(node) in (_SCALAR_REFUSING if scalar else MEETING_CALLS) and mentions(node) and (  # type: ignore
                        _joined_meet(self.facts, node, mentions, inputs, self.list_names)):  # type: ignore[arg-type]
                    return True
        return False


_CONSTRUCTS = (ast.BinOp, ast.Compare, ast.AugAssign, ast.Return)
# Values a name bound to may be a list (a literal, a comprehension, either of two, another name's)
_MAY_BE_LISTS = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.IfExp, ast.Name, ast.BinOp)

def _is_indexing(node: ast.AST) -> bool:
    """`t[idx]` with an index that may be a tensor, or `t[k] = v` with one."""
    kind = type(node)
    if kind is ast.Subscript:
        return type(node.slice) in _TENSOR_INDEX  # type: ignore[attr-defined]
    return kind is ast.Assign and any(type(t) is ast.Subscript for t in node.targets)  # type: ignore[attr-defined]


def _meet_in_pairs(pairs: list[tuple[ast.AST, ast.AST]], mentions: Callable[[ast.AST], bool],
                   inputs: "_InputTrace") -> bool:
    return any((mentions(a) and inputs.carries(b)) or (mentions(b) and inputs.carries(a)) for a, b in pairs)


def _joined_meet(facts: SyntaxFacts, call: ast.Call, mentions: Callable[[ast.AST], bool],
                 inputs: "_InputTrace", list_names: set[str]) -> bool:
    """A joining call (`torch.cat([h, x])`, `x.masked_fill(h, 0)`) meets the factory's tensor in one
    of the values it joins with an input's in another (a list literal's elements count one by one);
    or in one name that may be a list holding both (`parts.append(h)`, `parts.append(x)`)."""
    joined: list[ast.AST] = []
    if type(call.func) is ast.Attribute and not facts.torch_names(call):
        joined.append(call.func.value)  # type: ignore[attr-defined]
    for argument in _arguments(call):
        if type(argument) in (ast.List, ast.Tuple):
            joined.extend(argument.elts)  # type: ignore[attr-defined]
        else:
            joined.append(argument)
    for a in joined:
        if mentions(a) and any(inputs.carries(b) for b in joined if b is not a):
            return True
        if type(a) is ast.Name and a.id in list_names and mentions(a) and inputs.carries(a):  # type: ignore
            return True
    return False


def _return_paths(value: ast.AST) -> list[ast.AST]:
    """`a if c else b` returns `a` or `b` (DEV005's flow reads each as a return of its own)."""
    if type(value) is ast.IfExp:
        return [*_return_paths(value.body), *_return_paths(value.orelse)]  # type: ignore[attr-defined]
    return [value]


def _is_self_call(node: ast.AST) -> bool:
    func = getattr(node, "func", None)
    return type(node) is ast.Call and type(func) is ast.Attribute and type(func.value) is ast.Name and (  # type: ignore
        func.value.id == "self")  # type: ignore[union-attr]


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


_NOT_SCALAR_DATA = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Call, ast.Compare, ast.Subscript)


def _surely_scalar(facts: SyntaxFacts, call: ast.Call) -> bool:
    """A 0-dim tensor under every name the callee may be (mirrors `flow._is_scalar`; data
    that is a name may be a sequence: not surely)."""
    names = facts.torch_names(call)
    data = call.args
    if not names or not data or any(type(a) is ast.Starred for a in data):
        return False
    first = data[0]
    for name in names:
        if name in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor"):
            if type(first) is ast.Name:
                return False
            if isinstance(first, _NOT_SCALAR_DATA) and not (
                    type(first) is ast.Call and (dotted(first.func) or [""])[-1] in NUMBER_CALLS):  # type: ignore
                return False
        elif name not in CPU_FACTORIES or not (  # legacy constructors always make a sized tensor
                len(data) == 1 and type(first) in (ast.List, ast.Tuple) and not first.elts):  # type: ignore
            return False
    return True


class _InputTrace:
    """Which expressions of a function may carry a tensor from its inputs, as DEV005's flow sees them
    (a superset): the parameters and the names bound to what may carry them; `self.<attr>` and calls
    of `self.<m>(...)` and `super().<m>(...)` (parameters, buffers, submodules' outputs, what the class's
    methods return); through
    operators, subscripts, `.T`/`.data`, tensor methods of such a value, and torch functions given one.
    Not through plain functions, sizes (`.shape`, `.size()`) or Python values (`.item()`, `len()`)."""

    _DROPPED = TO_HOST_METHODS | HOST_VALUE_METHODS | NON_TENSOR_METHODS

    def __init__(self, facts: SyntaxFacts, function: ast.FunctionDef | ast.AsyncFunctionDef, nodes: list[ast.AST],
                 bindings: list[tuple[list[ast.AST], set[str]]]) -> None:
        """`nodes`: the function's nodes (`walk(function)`); `bindings`: `_FunctionScreen.bindings`."""
        self.facts = facts
        every = _every_parameter(function, nodes)  # a closure's too: it meets this function's tensors
        parameters = {a.arg for a in every} - {"self", "cls"}
        # the parameters shown to be tensors: a `Tensor` annotation, or a tensor attribute or method
        self.names = {a.arg for a in every if a.annotation is not None and "Tensor" in ast.unparse(a.annotation)}
        self.names |= _arrays_made_tensors(nodes, parameters)
        self.holders: set[str] = set()  # parameters with a tensor inside (`batch["mask"].float()`, `data.x.size()`)
        for node in nodes:
            if type(node) is ast.Attribute and type(node.value) is ast.Name:  # type: ignore[attr-defined]
                if node.value.id in parameters and node.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                    self.names.add(node.value.id)  # type: ignore[attr-defined]
            elif type(node) is ast.Attribute and node.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                holder = _holder(node.value, parameters)  # type: ignore[attr-defined]
                if holder is not None:
                    self.holders.add(holder)
            elif type(node) is ast.Call and _as_tensor_of(facts, node, parameters):  # type: ignore[arg-type]
                self.names.add(node.args[0].id)  # type: ignore[attr-defined]  (`torch.as_tensor(points)`)
            elif type(node) is ast.For or type(node) is ast.AsyncFor:
                if any(type(n) is ast.Name and n.id in parameters for n in walk(node.iter)) or (  # type: ignore
                        _steps_parameters(node, nodes)):  # type: ignore[arg-type]
                    # the elements of the caller's sequences: tensors where the loop uses them so; and the
                    # parameters an optimizer steps
                    self.names.update(n.id for n in walk(node.target) if type(n) is ast.Name)  # type: ignore
        aliases = _aliases_of_items(nodes, parameters)
        if aliases:
            self.holders.update(aliases[n.value.id] for n in nodes if type(n) is ast.Attribute  # type: ignore
                                and n.attr in _TENSOR_EVIDENCE and type(n.value) is ast.Name  # type: ignore
                                and n.value.id in aliases)  # type: ignore[attr-defined]
        # `self.<attr>` and `self.<m>(...)` are the module's tensors and submodules only in its methods,
        # and not while `__init__` builds them (the flow reads those with no module)
        owner = None if function.name == "__init__" else next(
            (cls for cls in facts.classes if function in cls.body), None)
        self.module_attributes = _module_attributes(facts, owner) if owner is not None else set()
        # the class's plain methods: what one returns may be the module's tensors (`lower = self.factors()`)
        self.methods = {s.name for s in owner.body if type(s) is ast.FunctionDef and not s.decorator_list} if (
            owner is not None) else set()
        # calls whose result the function uses as a torch tensor, and the parameters a method may hand one
        self.tensor_results = _tensor_results(nodes)
        self.method_parameters = parameters if owner is not None else set()
        self.parameters = parameters
        changed = True
        while changed:  # the names bound to what may carry an input's tensor, until nothing changes
            changed = False
            for read, bound in bindings:
                if not bound <= self.names and any(self.carries(expr) for expr in read):
                    self.names |= bound
                    changed = True

    def carries(self, expr: Optional[ast.AST]) -> bool:
        kind = type(expr)
        if kind is ast.Name:
            return expr.id in self.names or expr.id in self.holders  # type: ignore[union-attr]
        if kind is ast.Attribute:
            value = expr.value  # type: ignore[union-attr]
            if type(value) is ast.Name and value.id == "self":  # type: ignore[attr-defined]
                return expr.attr in self.module_attributes  # type: ignore[union-attr]
            if type(value) is ast.Name and value.id in self.holders:  # type: ignore[attr-defined]
                return True
            return expr.attr in PLACED_ATTRIBUTES and self.carries(value)  # type: ignore[union-attr]
        if kind is ast.Subscript or kind is ast.Starred:
            return self.carries(expr.value)  # type: ignore[union-attr]
        if kind is ast.BinOp:
            return self.carries(expr.left) or self.carries(expr.right)  # type: ignore[union-attr]
        if kind is ast.Compare:
            return any(self.carries(e) for e in (expr.left, *expr.comparators))  # type: ignore[union-attr]
        if kind is ast.UnaryOp:
            return type(expr.op) is not ast.Not and self.carries(expr.operand)  # type: ignore[union-attr]
        if kind is ast.IfExp:
            return self.carries(expr.body) or self.carries(expr.orelse)  # type: ignore[union-attr]
        if kind is ast.List or kind is ast.Tuple:
            return any(self.carries(e) for e in expr.elts)  # type: ignore[union-attr]
        if kind is ast.ListComp or kind is ast.GeneratorExp:
            return any((type(n) is ast.Name and (n.id in self.names or n.id in ("self", "super")))  # type: ignore
                       for n in walk(expr))  # type: ignore[arg-type]
        if kind is ast.NamedExpr:
            return self.carries(expr.value)  # type: ignore[union-attr]
        if kind is ast.Call:
            return self._call_carries(expr)  # type: ignore[arg-type]
        return False

    def _call_carries(self, call: ast.Call) -> bool:
        names = self.facts.torch_names(call)
        if names and any(name not in _SIZED_FACTORIES for name in names) and any(
                self.carries(a) for a in _arguments(call)):
            return True  # a torch function given an input's tensor (`torch.cat`, `torch.tensor(x)`, ...)
        if call in self.tensor_results and any(
                self.carries(a) or (type(a) is ast.Name and a.id in self.method_parameters) for a in _arguments(call)):
            return True  # used as a torch tensor, computed from the inputs (`adj = to_dense_adj(edge_index)`)
        func = call.func
        if type(func) is ast.Name and func.id in LOOP_WRAPPERS:  # type: ignore[attr-defined]
            return any(self.carries(a) for a in call.args)  # a loop over the caller's sequences
        if type(func) is not ast.Attribute:
            return False  # a plain function: the flow does not follow its result
        receiver = func.value  # type: ignore[attr-defined]
        if type(receiver) is ast.Name and receiver.id == "self":  # type: ignore[attr-defined]
            # a submodule's output, or what a method of the class returns of the module's tensors
            return func.attr in self.module_attributes or func.attr in self.methods  # type: ignore[attr-defined]
        if type(receiver) is ast.Call and type(receiver.func) is ast.Name and receiver.func.id == "super":  # type: ignore
            return True  # `super().forward(x)`
        method = func.attr  # type: ignore[attr-defined]
        if method in self._DROPPED or method in ("append", "extend", "insert"):
            return False
        if method in TENSOR_ONLY_METHODS and _arithmetic_of(receiver, self.parameters):
            return True  # `(preds - target).abs()`: a tensor method of what the inputs make
        if method in MEETING_CALLS and any(self.carries(a) for a in _arguments(call)):
            return True
        return self.carries(receiver)


def _arithmetic_of(expr: ast.AST, parameters: set[str]) -> bool:
    """An operator applied to a parameter (a superset of the flow's `_arithmetic_of`: any other operands)."""
    return type(expr) in (ast.BinOp, ast.UnaryOp) and any(
        type(n) is ast.Name and n.id in parameters for n in walk(expr))  # type: ignore[attr-defined]


def _tensor_results(nodes: Iterable[ast.AST]) -> set[ast.Call]:
    """The calls whose result the function uses as a torch tensor: with a method only a torch tensor has, on the
    call itself or on a name it is bound to (a superset of DEV005's flow: flow.py, `tensor_results`)."""
    bound: dict[str, list[ast.Call]] = {}
    shown: set[str] = set()
    found: set[ast.Call] = set()
    for node in nodes:
        kind = type(node)
        if kind is ast.Assign and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target) is ast.Name:
                    bound.setdefault(target.id, []).append(node.value)  # type: ignore[attr-defined]
        elif kind is ast.Call and type(node.func) is ast.Attribute and (  # type: ignore[attr-defined]
                node.func.attr in TORCH_ONLY_METHODS):  # type: ignore[attr-defined]
            receiver = node.func.value  # type: ignore[attr-defined]
            if type(receiver) is ast.Name:
                shown.add(receiver.id)
            elif type(receiver) is ast.Call:
                found.add(receiver)
    found.update(call for name in shown for call in bound.get(name, ()))
    return found


def _every_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef, nodes: Iterable[ast.AST]) -> list[ast.arg]:
    """The parameters of `function` and of the functions and lambdas inside it (`nodes`: its nodes)."""
    every: list[ast.arg] = []
    for node in nodes:
        if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            args = node.args  # type: ignore[attr-defined]
            every += [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]
    return every


def _arrays_made_tensors(nodes: Iterable[ast.AST], parameters: set[str]) -> set[str]:
    """The parameters `x` of `if isinstance(x, np.ndarray): x = torch.from_numpy(x)` (`tensor`, `as_tensor`):
    tensors after it, the caller's own where it gave one (a superset of DEV005's flow: flow.py)."""
    found: set[str] = set()
    for node in nodes:
        test = node.test if type(node) is ast.If else None  # type: ignore[attr-defined]
        if not (type(test) is ast.Call and type(test.func) is ast.Name and test.func.id == "isinstance"  # type: ignore
                and len(test.args) == 2 and type(test.args[0]) is ast.Name):  # type: ignore[union-attr]
            continue
        name = test.args[0].id  # type: ignore[union-attr,attr-defined]
        if name in parameters and "ndarray" in ast.unparse(test.args[1]):  # type: ignore[union-attr]
            found.add(name)
    return found


def _as_tensor_of(facts: SyntaxFacts, call: ast.Call, parameters: set[str]) -> bool:
    """`torch.as_tensor(p)` of a parameter `p` (a superset of what DEV005's flow reads as the caller's tensor)."""
    first = call.args[0] if call.args else None
    return type(first) is ast.Name and first.id in parameters and (  # type: ignore[union-attr]
        "torch.as_tensor" in facts.torch_names(call))


def _aliases_of_items(nodes: Iterable[ast.AST], parameters: set[str]) -> dict[str, str]:
    """`ids = batch["ids"]`, `x = data.x`: the name bound to an item of a parameter -> the parameter."""
    found = {}
    for node in nodes:
        if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:  # type: ignore
            holder = _holder(node.value, parameters)  # type: ignore[attr-defined]
            if holder is not None:
                found[node.targets[0].id] = holder  # type: ignore[attr-defined]
    return found


def _holder(expr: ast.AST, parameters: set[str]) -> Optional[str]:
    """`batch` of `batch["mask"]` / `data` of `data.x`, for a parameter of `parameters`; else None."""
    if type(expr) is ast.Subscript or type(expr) is ast.Attribute:
        inner = expr.value  # type: ignore[attr-defined]
        if type(inner) is ast.Name and inner.id in parameters:  # type: ignore[attr-defined]
            return inner.id  # type: ignore[attr-defined]
    return None


def _may_make_host_tensor(facts: SyntaxFacts, call: ast.Call) -> bool:
    for name in facts.torch_names(call):
        if name in CPU_FACTORIES:
            return not places_tensor(call) and not any(k.arg == "generator" for k in call.keywords)
        if name in _LEGACY:
            return bool(call.args or call.keywords)
    return False


# What DEV005's flow reads as a parameter shown to be a tensor (a superset: flow.py).
_TENSOR_EVIDENCE = TENSOR_ATTRIBUTES | TENSOR_ONLY_METHODS
_MODULE_STATE = frozenset({"Parameter", "register_buffer", "register_parameter"})


def _may_have_inputs(facts: SyntaxFacts, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A parameter annotated or used as a tensor, or `self` of a class that may hold parameters,
    buffers or submodules (an attribute bound to a call, a `torch.nn` base)."""
    args = function.args
    nodes = facts.nodes_in(function)
    every = _every_parameter(function, nodes)  # a closure's too
    params = {a.arg for a in every} - {"self", "cls"}
    used_as_tensors: set[str] = set()  # names of locals with a tensor attribute or method
    for a in every:
        if a.annotation is not None and "Tensor" in ast.unparse(a.annotation):
            return True
    if _arrays_made_tensors(nodes, params):
        return True
    for node in nodes:
        if type(node) is ast.Attribute and type(node.value) is ast.Name:  # type: ignore[attr-defined]
            if node.value.id in params and node.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                return True
        if type(node) is ast.Attribute and node.attr in _TENSOR_EVIDENCE and (  # type: ignore[attr-defined]
                _holder(node.value, params) is not None):  # type: ignore[attr-defined]
            return True  # `batch["mask"].float()`, `data.x.size(0)`
        if type(node) is ast.Attribute and node.attr in TENSOR_ONLY_METHODS and (  # type: ignore[attr-defined]
                _arithmetic_of(node.value, params)):  # type: ignore[attr-defined]
            return True  # `(preds - target).abs()`: a tensor the inputs make
        if type(node) is ast.Attribute and node.attr in _TENSOR_EVIDENCE and (  # type: ignore[attr-defined]
                type(node.value) is ast.Name):  # type: ignore[attr-defined]
            used_as_tensors.add(node.value.id)  # type: ignore[attr-defined]
        elif type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "super":  # type: ignore
            return True  # `super().forward(x)`: the output of the module's own layer
        elif type(node) is ast.Call and _as_tensor_of(facts, node, params):  # type: ignore[arg-type]
            return True  # `torch.as_tensor(points)`: the caller's tensor, where it gave one
        elif type(node) is ast.For and _steps_parameters(node, nodes):  # type: ignore[arg-type]
            return True  # `for p in group["params"]`: an optimizer's parameters
        elif type(node) is ast.For and _iterates_parameters(node.iter, params):  # type: ignore[attr-defined]
            targets = {n.id for n in walk(node.target) if type(n) is ast.Name}  # type: ignore[attr-defined]
            for inner in walk(node):
                if type(inner) is ast.Attribute and type(inner.value) is ast.Name:  # type: ignore[attr-defined]
                    if inner.value.id in targets and inner.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                        return True  # `for p in preds: p.numel()`: elements of the caller's tensors
                elif type(inner) is ast.Call and any(  # type: ignore[attr-defined]
                        type(a) is ast.Name and a.id in targets for a in inner.args[:2]) and any(  # type: ignore
                        name.startswith("torch.nn.functional.") for name in facts.torch_names(inner)):  # type: ignore
                    return True  # `F.mse_loss(out, t)`: a functional refuses anything but tensors
    if not used_as_tensors.isdisjoint(_aliases_of_items(nodes, params)):
        return True  # `ids = batch["ids"]`, `ids.size(0)`
    if not (args.args and args.args[0].arg == "self"):
        return False
    for cls in facts.classes:
        if contains(cls, function):  # type: ignore[arg-type]
            if _holds_module_state(facts, cls):
                return True
    return False


def _module_attributes(facts: SyntaxFacts, cls: ast.ClassDef) -> set[str]:
    """A superset of the attributes of `self` that DEV005's flow reads as the module's tensors or
    submodules (`ModuleFacts`): those bound to a call, the registered ones, and `weight`/`bias` of a
    class that subclasses a `torch.nn` layer."""
    found: set[str] = set()
    for node in facts.nodes_in(cls):
        if type(node) is ast.Assign and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                    found.add(target.attr)
        elif type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in (  # type: ignore
                "register_buffer", "register_parameter"):
            first = node.args[0] if node.args else None  # type: ignore[attr-defined]
            if type(first) is ast.Constant and type(first.value) is str:  # type: ignore[union-attr]
                found.add(first.value)  # type: ignore[union-attr]
    if any(name.startswith("torch.nn.") for base in cls.bases for name in facts.names_of(base)):
        found.update(("weight", "bias"))
    return found | _layers_called(facts, cls)


def _layers_called(facts: SyntaxFacts, cls: ast.ClassDef) -> set[str]:
    """`X` of every `self.X(...)` in a class with a `forward`, `X` no method of it (a superset of what
    DEV005's flow reads as the layers of a module known by its shape)."""
    methods = {s.name for s in cls.body if isinstance(s, _FUNCTIONS)}
    if "forward" not in methods:
        return set()
    return {node.func.attr for node in facts.nodes_in(cls) if _is_self_call(node)  # type: ignore[attr-defined]
            and node.func.attr not in methods}  # type: ignore[attr-defined]


def _steps_parameters(loop: ast.For, nodes: Iterable[ast.AST]) -> bool:
    """`for p in group["params"]` in a function (`nodes`) that reads `self.param_groups` (a superset of
    `flow.FlowReader._optimised_parameters`)."""
    iterated = loop.iter
    if not (type(iterated) is ast.Subscript and type(iterated.slice) is ast.Constant  # type: ignore[attr-defined]
            and iterated.slice.value == "params"):  # type: ignore[attr-defined]
        return False
    return any(type(n) is ast.Attribute and n.attr == "param_groups" for n in nodes)  # type: ignore[attr-defined]


def _iterates_parameters(iterated: ast.expr, params: set[str]) -> bool:
    """`preds`, `zip(preds, targets)`, `enumerate(preds)`: a loop over the caller's sequences."""
    return any(type(n) is ast.Name and n.id in params for n in walk(iterated))  # type: ignore[attr-defined]


def _holds_module_state(facts: SyntaxFacts, cls: ast.ClassDef) -> bool:
    """Whether `cls` may hold parameters, buffers or submodules, asked once per class (each method asks)."""
    known: dict[int, bool] = facts.memo.setdefault(_holds_module_state, {})  # type: ignore[assignment]
    if id(cls) not in known:
        known[id(cls)] = _reads_as_module_state(facts, cls)
    return known[id(cls)]


def _reads_as_module_state(facts: SyntaxFacts, cls: ast.ClassDef) -> bool:
    if cls.bases and _layers_called(facts, cls):
        return True  # a module by its shape (`flow._layers_of_a_module_by_shape`)
    if cls.bases:
        for base in cls.bases:
            if any(name.startswith("torch.nn.") and not name.endswith(".Module") for name in facts._qualify(
                    dotted(base) or ["?"])):
                return True
    for node in facts.nodes_in(cls):
        if type(node) is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            name = func.attr if type(func) is ast.Attribute else (func.id if type(func) is ast.Name else "")
            if name in _MODULE_STATE:
                return True
        elif type(node) is ast.Assign and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                    return True  # `self.proj = Something(...)`: maybe a submodule
    return False


def _has_meeting(facts: SyntaxFacts, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    returns = 0
    for node in facts.nodes_in(function):
        if isinstance(node, _MEETING_NODES) or _is_indexing(node):
            return True
        if type(node) is ast.Return and node.value is not None:
            returns += 1
            if returns > 1 or type(node.value) is ast.IfExp:
                return True
        elif type(node) is ast.Call:
            func = node.func
            if type(func) is ast.Attribute:
                if func.attr in MEETING_CALLS:  # type: ignore[attr-defined]
                    return True
                if type(func.value) is ast.Name and func.value.id == "self":  # type: ignore[attr-defined]
                    return True  # a submodule's call
            elif type(func) is ast.Name and func.id in MEETING_CALLS:  # type: ignore[attr-defined]
                return True
    return False
