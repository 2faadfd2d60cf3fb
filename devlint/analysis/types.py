"""Is this receiver a tensor, a module, or something else? Decided from evidence in the file.

Policy (documented in the README): a receiver is a TENSOR only with positive evidence —
what it was bound to (a torch function, a tensor method, arithmetic on tensors, an element
of an unpacked batch, a buffer), its annotation, an `isinstance(x, torch.Tensor)` test
around it, or how it is used (`x.shape`, `x.view(...)`). Evidence that it is a module
(an `nn.*` layer, a Module class of the file, a model factory, `m.parameters()`, being
called) or an object with its own in-place `.to()` (a tokenizer's `BatchEncoding`, a
PyTorch Geometric `Data`, an object of any class constructed by name) wins over tensor
evidence. No evidence means UNKNOWN, and rules do not report UNKNOWN receivers.

A method called as a statement of its own that is a move or a conversion (`x.to(d)`, `x.half()`,
`x.long()`) is no evidence: whether its result is thrown away on a tensor is what DEV001 and DEV007
ask, and an author who writes it bare may well hold a module (`m.half()` is in place).

Two conventions give *weak* evidence, which stands only where nothing in the file speaks
against it: an input of `forward` of an nn.Module class (`def forward(self, inp)`), and a
value of `for k, v in batch.items()` over a plain name. It is void for names that say
"model" / "batch" / "data" (`_MODULE_WORDS`), names used as containers (iterated, unpacked,
`len()`-ed, `isinstance`-tested, indexed with an int), names used for what a tensor does not
have (`inp.input_ids`), annotations that are not tensors, and in files that define a class
with its own `to()`.

Which bindings count: all bindings of the name in its scope (flow-insensitive, as usages
are), except those in a branch of an `if` that excludes the use's branch (`if a: x = cls(x)`
/ `elif b: x.to(d)`), when no loop around the `if` carries the binding over. A rebinding that
does reach the use decides by its kind: a constructed object (`Wrapper(x)`, `cls(x)`) is
OTHER and silences; a call of unknown type (`x = helper(x)`) does not erase the evidence of
the other bindings.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

import libcst as cst

from devlint.analysis.classes import ClassTable
from devlint.analysis.names import dotted_name, string_value, target_names
from devlint.analysis.terminating import terminating
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.vocabulary import (
    CONVERSIONS, MODULE_METHODS, TENSOR_METHODS, TENSOR_ONLY_ATTRIBUTES, TENSOR_VALUED_ATTRIBUTES, names_a_device,
)
from devlint.analysis.walk import children, own_nodes, parents


class Kind(enum.Enum):
    TENSOR = "tensor"
    MODULE = "module"  # nn.Module: .to() is in place
    OTHER = "other"  # something else, possibly with an in-place .to()
    UNKNOWN = "unknown"


# torch.<name>(...) calls that do not return a tensor.
_TORCH_NON_TENSOR = {
    "load", "device", "dtype", "Generator", "no_grad", "enable_grad", "inference_mode", "compile", "save",
    "manual_seed", "get_default_dtype", "is_tensor", "is_floating_point", "set_grad_enabled", "Size",
    "finfo", "iinfo", "get_rng_state", "set_default_dtype", "set_default_device", "autocast", "is_grad_enabled",
    "cuda", "backends", "distributed", "jit", "utils", "hub", "onnx", "fx", "export", "package", "profiler",
    "numel", "typename", "broadcast_shapes", "use_deterministic_algorithms", "get_default_device",
    "is_complex", "is_nonzero", "result_type", "promote_types", "can_cast", "stream", "accelerator",
}
_BARE_NOT_EVIDENCE = CONVERSIONS | {"to", "cuda", "cpu", "pin_memory"}
# Iterating these yields modules.
_MODULE_ITERATORS = {"modules", "named_modules", "children", "named_children"}
# Names that by convention hold models, or objects whose .to() is in place.
_MODULE_WORDS = re.compile(
    r"model|net|module|layer|encoder|decoder|backbone|head|classifier|critic|actor|policy|pipe|vae|unet|"
    r"transformer|teacher|student|ema|optimizer|optim|tokenizer|processor|extractor|collator|graph|data$|"
    r"batch$|sample$|inputs$|encoding|features$|trainer|engine|wrapper|loss|criterion|metric",
    re.IGNORECASE,
)
# Calls whose result has an in-place .to() (BatchEncoding, PyG Data/Batch, ...) or is a model.
_INPLACE_CALL_WORDS = re.compile(
    r"tokenizer|processor|extractor|collat|Data|Batch|HeteroData|from_pretrained|model|Model|net$|Net|"
    r"build|create|load_model|get_model|make_model|Trainer|Pipeline|pipeline", re.IGNORECASE,
)


# Builtins whose first argument is a container (or a value of several possible types).
_CONTAINER_CALLS = frozenset({"len", "isinstance", "hasattr", "iter", "list", "tuple", "dict", "set", "sorted",
                              "reversed", "enumerate", "zip", "map", "filter", "vars", "any", "all", "sum", "max",
                              "min", "type"})
# torch functions whose first argument is not (necessarily) a tensor: data, sizes, sequences, objects.
_FIRST_ARGUMENT_NOT_A_TENSOR = frozenset({
    "tensor", "as_tensor", "asarray", "from_numpy", "frombuffer", "cat", "concat", "concatenate", "stack",
    "hstack", "vstack", "dstack", "column_stack", "row_stack", "block_diag", "broadcast_tensors", "meshgrid",
    "is_tensor", "is_storage", "numel", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm",
    "arange", "range", "linspace", "logspace", "eye", "tril_indices", "triu_indices", "empty_strided",
    "sparse_coo_tensor", "sparse_csr_tensor", "einsum", "Size", "Generator", "set_printoptions",
})
# What a tensor input is used for. A `forward` input used for anything else (`inp.input_ids`,
# `inp.items()`) is some other object: the weak evidence of the convention is vetoed.
_TENSOR_VOCABULARY = TENSOR_METHODS | TENSOR_ONLY_ATTRIBUTES | frozenset({
    "to", "cuda", "cpu", "device", "dtype", "clone", "double", "float", "half", "bfloat16", "type", "data", "new",
    "is_sparse", "layout",
    "unfold", "masked_scatter", "index_fill", "index_add", "index_copy", "repeat_interleave", "add", "mul", "sub",
    "div", "neg", "sin", "cos", "floor", "ceil", "round", "sign", "square", "rsqrt", "reciprocal", "lerp",
    "log1p", "expm1", "erf", "exp_", "addmm", "baddbmm", "is_floating_point", "is_complex", "real", "imag",
    "conj", "angle", "cumprod", "logsumexp", "var", "median", "mode", "unique", "bincount", "diff", "diag",
    "diagonal", "tril", "triu", "isnan", "isinf", "isfinite", "nan_to_num", "amax", "amin", "logical_not",
    "logical_and", "logical_or", "logical_xor", "clamp_min", "clamp_max", "clip", "to_dense", "to_sparse",
    "coalesce", "is_meta", "untyped_storage", "record_stream", "share_memory_", "is_shared", "get_device",
    "nelement", "ndimension", "nbytes", "itemsize", "sigmoid_", "tanh_", "relu_", "softplus", "fmod",
    "remainder", "floor_divide", "bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor", "take",
    "take_along_dim", "movedim", "moveaxis", "swapaxes", "swapdims", "squeeze_", "unsqueeze_", "t_",
    "transpose_", "as_strided",
})


@dataclass
class ScopeIndex:
    """What one function (or the module body) says about its names."""

    bindings: dict[str, list[tuple[str, cst.CSTNode]]] = field(default_factory=dict)
    attributes_used: dict[str, set[str]] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)
    string_subscripted: set[str] = field(default_factory=set)
    torch_arg: set[str] = field(default_factory=set)  # passed positionally to a torch function
    # `container[key] = value`, `container.append(value)`, `container.insert(i, value)`: what a container's
    # elements were set to, by container name
    element_bindings: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # `layer.weight = value` (not `self.x`, which the class index reads): what an attribute was set to, by its
    # dotted name
    attribute_bindings: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)
    # Used the way containers and polymorphic values are: iterated, unpacked, `len()`-ed,
    # `isinstance`-tested, indexed with an int literal. Vetoes the weak evidence of a `forward` input.
    container_used: set[str] = field(default_factory=set)

    def bind(self, name: str, how: str, node: cst.CSTNode) -> None:
        self.bindings.setdefault(name, []).append((how, node))


@dataclass
class ClassIndex:
    """What the methods of one class say about `self.<attr>`."""

    bindings: dict[str, list[tuple[str, cst.CSTNode, Optional[cst.FunctionDef]]]] = field(default_factory=dict)
    attributes_used: dict[str, set[str]] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)


# The node types `_build_scope_index` and `class_index` look at; the others are only walked through.
_SCOPE_INDEX_NODES = frozenset({
    cst.Call, cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.WithItem, cst.Import,
    cst.ImportFrom, cst.NamedExpr, cst.Expr, cst.Attribute, cst.Subscript, cst.StarredElement,
})
_CLASS_INDEX_NODES = frozenset({cst.Expr, cst.Assign, cst.AnnAssign, cst.Call, cst.Attribute})


def _added_element(call: cst.Call) -> Optional[tuple[str, cst.BaseExpression]]:
    """`xs.append(v)` / `xs.insert(i, v)`: the container's name and the element it is given."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in ("append", "insert"):
        return None
    container = dotted_name(func.value)
    wanted = 1 if func.attr.value == "append" else 2
    if container is None or len(call.args) != wanted or any(arg.star or arg.keyword for arg in call.args):
        return None
    return container, call.args[-1].value


def _children_in_scope(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    for child in children(node):  # node.children would rebuild the node
        # Nested functions and classes have their own bindings; lambdas and comprehensions
        # are read for usages only (their targets do not leak).
        if type(child) in (cst.FunctionDef, cst.ClassDef):
            continue
        yield child


class TypeOracle:
    """Answers `kind_of(expr)` for a position in the file. One per file; memoised."""

    def __init__(self, module: cst.Module, torch: TorchNames, classes: Optional[ClassTable] = None) -> None:
        self.module = module
        self.torch = torch
        self.classes = classes if classes is not None else ClassTable(module, torch)
        self._scope_cache: dict[int, ScopeIndex] = {}
        self._class_cache: dict[int, ClassIndex] = {}
        self._resolving: set[tuple] = set()  # (scope, name) of names, ("[]", container, functions) of elements
        self._attr_cache: dict[tuple[int, str], Kind] = {}
        self._returns_tensor: dict[int, bool] = {}  # id(function) -> does every return give a tensor
        self._module_functions: Optional[dict[str, list[cst.FunctionDef]]] = None  # by name, read once
        self._parents: dict[int, dict[int, cst.CSTNode]] = {}  # per scope: id(node) -> parent
        # A class of the file with its own `to()` (usually in place, returning self): any object
        # of unknown type may be one of them.
        self.defines_to = any(
            isinstance(statement, cst.FunctionDef) and statement.name.value == "to"
            for cls in self.classes.classes.values() if isinstance(cls.body, cst.IndentedBlock)
            for statement in cls.body.body
        )

    # -- indexes --------------------------------------------------------------------
    def scope_index(self, scope: cst.Module | cst.FunctionDef) -> ScopeIndex:
        key = id(scope)
        index = self._scope_cache.get(key)
        if index is None:
            index = self._build_scope_index(scope)
            self._scope_cache[key] = index
        return index

    def _build_scope_index(self, scope: cst.Module | cst.FunctionDef) -> ScopeIndex:
        index = ScopeIndex()
        if type(scope) is cst.FunctionDef:
            params = scope.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                index.bind(param.name.value, "param", param)
            for star in (params.star_arg, params.star_kwarg):
                if type(star) is cst.Param:
                    index.bind(star.name.value, "star-param", star)
            stack: list[cst.CSTNode] = [scope.body]
        else:
            stack = [scope]
        judged: set[int] = set()  # ids of `x.float` in a bare `x.float()`: not evidence (see CONVERSIONS)
        called: set[int] = set()  # ids of the `x.dim` of `x.dim()` (a call is seen before its function)
        while stack:
            node = stack.pop()
            if type(node) not in _SCOPE_INDEX_NODES:  # (exact types: isinstance is slow on LibCST's classes)
                stack.extend(_children_in_scope(node))
                continue
            if type(node) is cst.Call:
                called.add(id(node.func))
            if type(node) is cst.Assign:
                for target in node.targets:
                    if type(target.target) is cst.Subscript:
                        container = dotted_name(target.target.value)
                        if container is not None:
                            index.element_bindings.setdefault(container, []).append(node.value)
                    if type(target.target) is cst.Attribute:
                        attribute = dotted_name(target.target)
                        if attribute is not None:
                            index.attribute_bindings.setdefault(attribute, []).append(node.value)
                    if type(target.target) is cst.Name:
                        index.bind(target.target.value, "value", node.value)
                    elif _same_shape(target.target, node.value):
                        for name, value in _pairs(target.target, node.value):  # a, b = f(), g()
                            index.bind(name.value, "value", value)
                    else:
                        for name in target_names(target.target):
                            index.bind(name.value, "unpack", node.value)
            elif type(node) is cst.AnnAssign and type(node.target) is cst.Name:
                index.bind(node.target.value, "annotation", node.annotation.annotation)
                if node.value is not None:
                    index.bind(node.target.value, "value", node.value)
            elif type(node) is cst.AugAssign and type(node.target) is cst.Name:
                index.bind(node.target.value, "aug", node.value)
            elif type(node) in (cst.For, cst.CompFor):
                _bind_loop_target(index, node.target, node.iter)
                if type(node.iter) is cst.Name:
                    index.container_used.add(node.iter.value)
            elif type(node) is cst.WithItem and node.asname is not None:
                for name in target_names(node.asname.name):
                    index.bind(name.value, "with", node.item)
            elif type(node) in (cst.Import, cst.ImportFrom):
                if type(node.names) is not cst.ImportStar:
                    for alias in node.names:
                        local = alias.asname.name if alias.asname else alias.name
                        if type(local) is cst.Name:
                            index.bind(local.value, "import", node)
            elif type(node) is cst.NamedExpr and type(node.target) is cst.Name:
                index.bind(node.target.value, "value", node.value)
            elif type(node) is cst.Expr and _bare_call(node) is not None:
                judged.add(id(_bare_call(node).func))  # type: ignore[union-attr]
            elif (type(node) is cst.Attribute and type(node.value) is cst.Name
                  and id(node) not in judged and not _uncalled_method(node, called)):
                index.attributes_used.setdefault(node.value.value, set()).add(node.attr.value)
            elif type(node) is cst.Call:
                first = node.args[0].value if node.args and not node.args[0].star else None
                if type(node.func) is cst.Name:
                    index.called.add(node.func.value)
                    if node.func.value in _CONTAINER_CALLS and type(first) is cst.Name:
                        index.container_used.add(first.value)
                for arg in node.args:
                    if arg.star and type(arg.value) is cst.Name:
                        index.container_used.add(arg.value.value)  # f(*xs), f(**kw)
                full = self.torch.qualify(node.func)
                if full is not None and type(first) is cst.Name and _takes_a_tensor(full):
                    index.torch_arg.add(first.value)
                element = _added_element(node)
                if element is not None:
                    index.element_bindings.setdefault(element[0], []).append(element[1])
            elif type(node) is cst.Subscript and type(node.value) is cst.Name:
                if len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
                    key = node.slice[0].slice.value
                    if string_value(key) is not None:
                        index.string_subscripted.add(node.value.value)
                    elif type(key) is cst.Integer:
                        index.container_used.add(node.value.value)  # xs[0]: a sequence, most likely
            elif type(node) is cst.StarredElement and type(node.value) is cst.Name:
                index.container_used.add(node.value.value)  # [*xs]
            stack.extend(_children_in_scope(node))
        return index

    def class_index(self, cls: cst.ClassDef) -> ClassIndex:
        """What the class's methods bind to `self.<attr>` and do with it (read once per class)."""
        key = id(cls)
        index = self._class_cache.get(key)
        if index is not None:
            return index
        index = ClassIndex()
        for statement in cls.body.body if type(cls.body) is cst.IndentedBlock else ():
            if type(statement) is cst.SimpleStatementLine:
                for small in statement.body:
                    if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                        index.bindings.setdefault(small.target.value, []).append(
                            ("annotation", small.annotation.annotation, None))
            if type(statement) is not cst.FunctionDef:
                continue
            stack: list[cst.CSTNode] = [statement.body]
            judged: set[int] = set()  # ids of bare `self.x.float()` calls: not evidence (see CONVERSIONS)
            while stack:
                node = stack.pop()
                kind = type(node)  # (exact types: LibCST's node classes are never subclassed; isinstance is slow)
                if kind not in _CLASS_INDEX_NODES:
                    stack.extend(children(node))
                    continue
                if kind is cst.Expr and _bare_call(node) is not None:
                    judged.add(id(node.value.func))  # type: ignore[attr-defined]
                if type(node) in (cst.Assign, cst.AnnAssign):
                    targets = [t.target for t in node.targets] if type(node) is cst.Assign else [node.target]
                    for target in targets:
                        if _is_self_attr(target) and node.value is not None:
                            index.bindings.setdefault(target.attr.value, []).append(("value", node.value, statement))
                        elif type(target) in (cst.Tuple, cst.List) and node.value is not None:
                            for element in target.elements:
                                if _is_self_attr(element.value):
                                    index.bindings.setdefault(element.value.attr.value, []).append(
                                        ("unpack", node.value, statement))
                    if type(node) is cst.AnnAssign and _is_self_attr(node.target):
                        index.bindings.setdefault(node.target.attr.value, []).append(
                            ("annotation", node.annotation.annotation, statement))
                elif type(node) is cst.Call and type(node.func) is cst.Attribute:
                    func = node.func
                    if (func.attr.value in ("register_buffer", "register_parameter") and _is_self(func.value)
                            and node.args):
                        name = string_value(node.args[0].value)
                        if name is not None:
                            index.bindings.setdefault(name, []).append(("buffer", node, statement))
                    if _is_self_attr(func.value) and id(func) not in judged:
                        index.attributes_used.setdefault(func.value.attr.value, set()).add(func.attr.value)
                    elif _is_self(func.value):
                        index.called.add(func.attr.value)  # self.encoder(...): called, so a module
                elif type(node) is cst.Call and _is_self_attr(node.func):
                    index.called.add(node.func.attr.value)
                elif type(node) is cst.Attribute and _is_self_attr(node.value) and id(node) not in judged:
                    index.attributes_used.setdefault(node.value.attr.value, set()).add(node.attr.value)
                stack.extend(children(node))
        self._class_cache[key] = index
        return index

    # -- questions --------------------------------------------------------------------
    @terminating(Kind.UNKNOWN)
    def kind_of(
        self,
        expr: cst.BaseExpression,
        functions: list[cst.FunctionDef],
        cls: Optional[cst.ClassDef],
        narrowed: Optional[dict[str, Kind]] = None,
    ) -> Kind:
        """The kind of `expr` evaluated inside `functions` (innermost first) of class `cls`."""
        if narrowed:
            name = dotted_name(expr)
            if name in narrowed:
                return narrowed[name]
        if isinstance(expr, cst.Name):
            if expr.value == "self" and cls is not None:
                return Kind.MODULE if self.classes.node_is_module_class(cls) else Kind.OTHER
            return self._name_kind(expr.value, functions, cls, at=expr)
        if isinstance(expr, cst.Attribute):
            if _is_self(expr.value) and cls is not None:
                return self._self_attr_kind(expr.attr.value, cls)
            if expr.attr.value in TENSOR_VALUED_ATTRIBUTES:
                # `p.data`, `layer.weight`: parameters and their data are tensors, unless the code sets the attribute
                # to an object of some class (`layer.weight = bnb.nn.Params4bit(...)`, whose `.cuda()` is its own)
                return Kind.UNKNOWN if self._attribute_set_to_an_object(expr, functions, cls) else Kind.TENSOR
            return Kind.UNKNOWN
        if isinstance(expr, cst.Subscript):
            return self._element_kind(expr, functions, cls)
        return self.value_kind(expr, functions, cls)

    def _attribute_set_to_an_object(self, expr: cst.Attribute, functions: list[cst.FunctionDef],
                                    cls: Optional[cst.ClassDef]) -> bool:
        """The enclosing functions (or the module) assign `expr`'s dotted name a module or an object of a class."""
        attribute = dotted_name(expr)
        key = ("attr", attribute, *(id(function) for function in functions))
        if attribute is None or key in self._resolving:
            return False
        self._resolving.add(key)
        try:
            return any(self.value_kind(value, functions, cls) in (Kind.MODULE, Kind.OTHER)
                       for scope in [*functions, self.module]
                       for value in self.scope_index(scope).attribute_bindings.get(attribute, ()))
        finally:
            self._resolving.discard(key)

    def value_kind(self, expr: cst.BaseExpression, functions: list[cst.FunctionDef],
                   cls: Optional[cst.ClassDef]) -> Kind:
        """The kind of a value expression (right-hand side of an assignment)."""
        if isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript)):
            return self.kind_of(expr, functions, cls)
        if isinstance(expr, cst.Call):
            return self._call_kind(expr, functions, cls)
        if isinstance(expr, cst.BinaryOperation):
            kinds = {self.kind_of(expr.left, functions, cls), self.kind_of(expr.right, functions, cls)}
            return Kind.TENSOR if Kind.TENSOR in kinds and Kind.MODULE not in kinds else Kind.UNKNOWN
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            return self.kind_of(expr.expression, functions, cls)
        if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString,
                             cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp,
                             cst.Lambda, cst.Comparison, cst.Imaginary)):
            return Kind.OTHER
        if isinstance(expr, cst.IfExp):
            kinds = {self.kind_of(expr.body, functions, cls), self.kind_of(expr.orelse, functions, cls)}
            return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN
        return Kind.UNKNOWN

    def narrowed_kinds(self, narrowing: dict[str, cst.BaseExpression]) -> dict[str, Kind]:
        """`{"x": <torch.Tensor>}` from `isinstance(x, torch.Tensor)` -> `{"x": Kind.TENSOR}`."""
        kinds = {}
        for name, tested in narrowing.items():
            if isinstance(tested, cst.Tuple):  # isinstance(x, (A, B)): only when A and B agree
                found = {self.annotation_kind(element.value) for element in tested.elements}
                kinds[name] = found.pop() if len(found) == 1 else Kind.UNKNOWN
            else:
                kinds[name] = self.annotation_kind(tested)
        return kinds

    def annotation_kind(self, annotation: cst.BaseExpression) -> Kind:
        optional = _optional_of(annotation)
        if optional is not None:  # Optional[Tensor], Union[Tensor, None], Tensor | None
            return self.annotation_kind(optional)
        full = self.torch.qualify(annotation)
        name = full or dotted_name(annotation) or ""
        last = name.rsplit(".", 1)[-1]
        if full in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.nn.Parameter") or last == "Tensor":
            return Kind.TENSOR
        if isinstance(annotation, cst.SimpleString):  # "torch.Tensor" as a string annotation
            text = string_value(annotation) or ""
            try:
                parsed = cst.parse_expression(text)
            except Exception:  # not an expression: not an annotation we read
                return Kind.OTHER
            if isinstance(parsed, cst.SimpleString):
                return Kind.OTHER
            return self.annotation_kind(parsed)
        if (full and full.startswith("torch.nn.")) or self.classes.is_module_class(last) or last in ("Module",):
            return Kind.MODULE
        return Kind.OTHER

    # -- internals ---------------------------------------------------------------------
    def _call_kind(self, call: cst.Call, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef]) -> Kind:
        full = self.torch.qualify(call.func)
        if full is not None and full.startswith("torch."):
            rest = full[6:]
            head, _, tail = rest.partition(".")
            last = rest.rsplit(".", 1)[-1]
            if rest in ("nn.Parameter", "nn.parameter.Parameter", "nn.Buffer", "Tensor", "from_numpy", "as_tensor",
                        "tensor", "autograd.Variable", "autograd.variable.Variable"):
                return Kind.TENSOR
            if head == "nn":
                if tail.startswith("functional.") or tail.startswith("init."):
                    return Kind.TENSOR
                return Kind.MODULE if last[:1].isupper() else Kind.UNKNOWN
            if head in ("jit", "compile") or rest in ("compile",):
                return Kind.MODULE if last in ("script", "trace", "load", "compile") else Kind.UNKNOWN
            if head in ("fft", "linalg", "special"):
                return Kind.TENSOR
            if "." not in rest:
                if last.endswith("Tensor") or (rest not in _TORCH_NON_TENSOR and rest[:1].islower()):
                    return Kind.TENSOR
            return Kind.UNKNOWN
        name = dotted_name(call.func)
        if name is not None:
            last = name.rsplit(".", 1)[-1]
            if "." not in name and self.classes.is_module_class(name):
                return Kind.MODULE
            if "." not in name and name in self.classes.classes:
                return Kind.OTHER
            if _INPLACE_CALL_WORDS.search(last):
                return Kind.OTHER
            if name in ("cls", "self.__class__"):
                return Kind.OTHER  # an object of the enclosing class (a tensor subclass's `to()` is its own)
            if last[:1].isupper() and not last.endswith(("Tensor", "Parameter", "Variable", "Buffer")):
                return Kind.OTHER  # `Wrapper(x)`: an object of some class, not a plain tensor
            if "." not in name and type(call.func) is cst.Name and self._returns_a_tensor(name, functions):
                return Kind.TENSOR
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            receiver = call.func.value
            if method in ("to", "cuda", "cpu", "pin_memory", "clone", "type", "requires_grad_", "contiguous",
                          "detach", "float", "half", "double", "bfloat16"):
                return self.kind_of(receiver, functions, cls)
            if method in TENSOR_METHODS and method not in ("float", "half", "double", "bfloat16", "type", "apply"):
                return Kind.TENSOR
        return Kind.UNKNOWN

    def _returns_a_tensor(self, name: str, functions: list[cst.FunctionDef]) -> bool:
        """Is `name(...)` a call of a function the file defines once, undecorated, at its top level (no other binding
        of the name in scope), every `return` of which gives a tensor (`def make_kernel(k): ... return k / k.sum()`)?
        A generator, a bare `return` or a function that may fall off its end without one: no."""
        if any(name in self.scope_index(scope).bindings for scope in [*functions, self.module]):
            return False
        if self._module_functions is None:  # (every definition at module scope, in a branch too: read once)
            self._module_functions = {}
            for node in own_nodes(self.module):
                if type(node) is cst.FunctionDef:
                    self._module_functions.setdefault(node.name.value, []).append(node)
        defined = self._module_functions.get(name, [])
        if len(defined) != 1 or defined[0] not in self.module.body or defined[0].decorators or defined[0].asynchronous:
            return False
        return self._every_return_a_tensor(defined[0], None)

    def module_output_is_a_tensor(self, expr: cst.BaseExpression, functions: list[cst.FunctionDef],
                                  cls: Optional[cst.ClassDef]) -> bool:
        """Is `expr` (a name, or `self.<attr>`) bound only to modules of one class of the file whose own `forward`
        returns a tensor on every path (`model = Net().to(device)`, `class Net(nn.Module)` whose `forward` ends
        `return self.fc(x)`)? Then calling it gives one tensor (not a tuple, a dict or a model's output object)."""
        if type(expr) is cst.Name:
            scope = functions[0] if functions else self.module
            bound = self.scope_index(scope).bindings.get(expr.value, [])
            if {how for how, _node in bound} != {"value"}:
                return False  # (a parameter, an unpacked or imported name: not known here)
            values = [node for _how, node in bound]
        elif _is_self_attr(expr) and cls is not None:
            bindings = self.class_index(cls).bindings.get(expr.attr.value, [])  # type: ignore[attr-defined]
            if {how for how, _node, _method in bindings} != {"value"}:
                return False
            values = [node for _how, node, _method in bindings]
        else:
            return False
        made = {_made_by_class(value) for value in values}
        if len(made) != 1 or None in made:
            return False
        name = made.pop()
        definition = self.classes.classes.get(name)  # type: ignore[arg-type]
        if definition is None or not self.classes.is_module_class(name) or type(definition.body) is not (  # type: ignore
                cst.IndentedBlock):
            return False
        forward = [s for s in definition.body.body if type(s) is cst.FunctionDef and s.name.value == "forward"]
        if len(forward) != 1 or forward[0].decorators or forward[0].asynchronous:
            return False
        return self._every_return_a_tensor(forward[0], definition)

    def _every_return_a_tensor(self, function: cst.FunctionDef, cls: Optional[cst.ClassDef]) -> bool:
        """Does every `return` of `function` give a tensor? A generator, a bare `return` or a function that may
        fall off its end without one: no."""
        known = self._returns_tensor.get(id(function))
        if known is not None:
            return known
        key = ("returns", id(function))
        if key in self._resolving:
            return False
        self._resolving.add(key)
        try:
            returned = False
            body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
            if body and type(body[-1]) is cst.SimpleStatementLine and type(body[-1].body[-1]) is cst.Return:
                values = []
                for node in own_nodes(function.body):
                    if type(node) in (cst.Yield, cst.Await):
                        values = []
                        break
                    if type(node) is cst.Return:
                        if node.value is None:
                            values = []
                            break
                        values.append(node.value)
                returned = bool(values) and all(self.kind_of(value, [function], cls) is Kind.TENSOR for value in values)
        finally:
            self._resolving.discard(key)
        self._returns_tensor[id(function)] = returned
        return returned

    def _element_kind(self, expr: cst.Subscript, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef]) -> Kind:
        container_name = dotted_name(expr.value) or ""
        if container_name == "self":
            return Kind.UNKNOWN  # elements of a container class of the file: whatever it holds
        container = self.kind_of(expr.value, functions, cls)
        if container in (Kind.MODULE, Kind.TENSOR):
            return container  # self.layers[i] of a ModuleList; x[0] of a tensor
        # Its elements' bindings, read once at a time: `x[k] = g(x[k])` asks about the elements again while they
        # are being read, through other nodes each time (the node-keyed guard of `kind_of` does not see it as the
        # same question, and every binding was a branch down to `terminating.MAX_DEPTH`)
        key = ("[]", container_name, *(id(function) for function in functions))
        if key not in self._resolving:
            self._resolving.add(key)
            try:
                for scope in [*functions, self.module]:
                    for value in self.scope_index(scope).element_bindings.get(container_name, []):
                        if self.value_kind(value, functions, cls) in (Kind.MODULE, Kind.OTHER):
                            return Kind.UNKNOWN  # `metrics[key] = SomeMetric(...)`: elements are not tensors
                built = self._built_list_elements(container_name, functions)
                if built is not None:
                    # `rears = []; rears.append(model[a:b])`: the file shows every element; tensors only if each is
                    if not built or any(self.value_kind(value, functions, cls) is not Kind.TENSOR for value in built):
                        return Kind.UNKNOWN
                    return Kind.TENSOR
            finally:
                self._resolving.discard(key)
        for element in expr.slice:
            if isinstance(element.slice, cst.Index):
                key = string_value(element.slice.value) or dotted_name(element.slice.value) or ""
                if key and _MODULE_WORDS.search(key.rsplit(".", 1)[-1]) and not key.endswith(("inputs", "features")):
                    return Kind.UNKNOWN  # hparams["model"]
        if re.search(r"model|module|layer|net|optim|tokenizer|processor", container_name, re.IGNORECASE):
            return Kind.UNKNOWN
        # An element of a batch, a tuple of outputs, a dict of inputs: a tensor by every convention.
        return Kind.TENSOR

    def _built_list_elements(self, name: str, functions: list[cst.FunctionDef]) -> Optional[list[cst.BaseExpression]]:
        """Every element of a list the scope builds from displays and fills by `append` / `insert` / `[i] =`; None
        where the scope does not build it so (a parameter, a call's result, a list extended with another)."""
        for scope in [*functions, self.module]:
            index = self.scope_index(scope)
            bindings = index.bindings.get(name)
            if bindings is None:
                continue
            if "extend" in index.attributes_used.get(name, ()) or not all(
                    how == "value" and type(node) is cst.List for how, node in bindings):
                return None
            elements: list[cst.BaseExpression] = []
            for _, display in bindings:
                for element in display.elements:  # type: ignore[attr-defined]
                    if type(element) is not cst.Element:
                        return None  # [*xs]
                    elements.append(element.value)
            return elements + index.element_bindings.get(name, [])
        return None

    def _name_kind(self, name: str, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef],
                   at: Optional[cst.CSTNode] = None) -> Kind:
        kind = self._bound_kind(name, functions, cls, at)
        if kind is Kind.TENSOR and names_a_device(name):
            # `device, offload = _init()`, `device = devices[0].split("/")[1]`: read by the conventions that make an
            # element a tensor, but a name that names a device holds one (as `.to(device)` is read everywhere)
            return Kind.UNKNOWN
        return kind

    def _bound_kind(self, name: str, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef],
                    at: Optional[cst.CSTNode]) -> Kind:
        for depth, scope in enumerate([*functions, self.module]):
            index = self.scope_index(scope)
            if name in index.bindings:
                key = (id(scope), name)
                if key in self._resolving:
                    return Kind.UNKNOWN
                self._resolving.add(key)
                try:
                    outer = functions[depth + 1:] if depth < len(functions) else []
                    return self._decide(name, index, outer, cls, scope, at)
                finally:
                    self._resolving.discard(key)
        return Kind.UNKNOWN

    def _decide(self, name: str, index: ScopeIndex, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef],
                scope: cst.Module | cst.FunctionDef, at: Optional[cst.CSTNode] = None) -> Kind:
        scope_functions = [scope, *functions] if isinstance(scope, cst.FunctionDef) else functions
        bindings = index.bindings[name]
        if at is not None and len(bindings) > 1:
            bindings = [b for b in bindings if not self._cannot_reach(b[1], at, scope)]
        kinds: set[Kind] = set()
        strong = weak = False  # is there tensor evidence from a binding? only from a convention?
        for how, node in bindings:
            kind = self._binding_kind(how, node, scope, scope_functions, cls)
            if kind is Kind.TENSOR and how == "dict-value":
                weak, kind = True, Kind.UNKNOWN
            elif how == "param" and kind is Kind.UNKNOWN and self._is_forward_input(node, scope, cls):
                weak = True  # `def forward(self, inp)`: a tensor by convention
            elif kind is Kind.TENSOR:
                strong = True
            kinds.add(kind)
        used = index.attributes_used.get(name, set())
        if used & MODULE_METHODS or name in index.called or name in index.string_subscripted:
            kinds.add(Kind.MODULE if used & MODULE_METHODS else Kind.OTHER)
        if used & (TENSOR_METHODS | TENSOR_ONLY_ATTRIBUTES):
            kinds.add(Kind.TENSOR)
        if name in index.torch_arg:
            kinds.add(Kind.TENSOR)
        if weak and not strong and self._convention_holds(name, index):
            kinds.add(Kind.TENSOR)
        result = _combine(kinds)
        if result is Kind.TENSOR and _MODULE_WORDS.search(name) and not strong:
            return Kind.UNKNOWN  # a name that says "model" or "batch" needs a binding, not only a usage
        return result

    def _convention_holds(self, name: str, index: ScopeIndex) -> bool:
        """The weak evidence of a convention (a `forward` input, a value of a batch dict) stands
        unless the file says otherwise: the name is a container's or a model's, it is used as a
        container or for what tensors do not have, or the file has classes of its own with a `to()`."""
        if self.defines_to or _MODULE_WORDS.search(name) or name in index.container_used:
            return False
        return index.attributes_used.get(name, set()) <= _TENSOR_VOCABULARY

    def _is_forward_input(self, param: cst.CSTNode, scope: cst.CSTNode, cls: Optional[cst.ClassDef]) -> bool:
        """A parameter (not `self`, without a default other than None) of `forward` of an nn.Module class."""
        if cls is None or not isinstance(scope, cst.FunctionDef) or scope.name.value != "forward":
            return False
        if not isinstance(param, cst.Param) or param.star:
            return False
        params = scope.params
        first = (*params.posonly_params, *params.params)[:1]
        if first and first[0] is param:
            return False  # self
        if param.default is not None and not (isinstance(param.default, cst.Name) and param.default.value == "None"):
            return False
        body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
        return any(statement is scope for statement in body) and self.classes.node_is_module_class(cls)

    def _cannot_reach(self, binding: cst.CSTNode, at: cst.CSTNode, scope: cst.CSTNode) -> bool:
        """Can the binding not reach the use `at`, with no loop around both to carry it over? It sits in a branch of
        an `if` that excludes the use's branch (`if a: x = f(x)` / `elif b: x.to(d)`), or it comes after the use in
        the source (`encoder.to(device)` then `encoder, _ = load(encoder)`), where the use is not in a closure
        (run when it is called) nor inside the binding itself (`x = x.to(d)`)."""
        meeting = self._meeting(binding, at, scope)
        if meeting is None:
            return False
        ancestor, on_binding_side, on_use_side, in_closure = meeting
        if on_binding_side is on_use_side:
            return False  # the use is inside the binding
        exclusive = isinstance(ancestor, cst.If) and \
            {id(on_binding_side), id(on_use_side)} == {id(ancestor.body), id(ancestor.orelse)}
        if not exclusive:
            if in_closure:
                return False
            order = [id(child) for child in children(ancestor)]
            if id(on_binding_side) not in order or id(on_use_side) not in order or \
                    order.index(id(on_binding_side)) < order.index(id(on_use_side)):
                return False
        parent_of = self._parent_map(scope)
        node: Optional[cst.CSTNode] = ancestor
        while node is not None:  # a loop around both carries a binding to the next round
            if isinstance(node, (cst.For, cst.While)):
                return False
            node = parent_of.get(id(node))
        return True

    def _meeting(self, binding: cst.CSTNode, at: cst.CSTNode, scope: cst.CSTNode
                 ) -> Optional[tuple[cst.CSTNode, cst.CSTNode, cst.CSTNode, bool]]:
        """(the lowest common ancestor of `binding` and `at` in `scope`, its child on the way to the binding, its child
        on the way to `at`, whether a function or lambda lies between it and `at`); None where either is not in it."""
        parent_of = self._parent_map(scope)
        if id(at) not in parent_of or id(binding) not in parent_of:
            return None
        use_path: dict[int, tuple[cst.CSTNode, bool]] = {}  # id(ancestor) -> (its child towards `at`, in a closure)
        node, in_closure = at, False
        while id(node) in parent_of:
            parent = parent_of[id(node)]
            in_closure = in_closure or isinstance(node, (cst.FunctionDef, cst.Lambda))
            use_path[id(parent)] = (node, in_closure)
            node = parent
        node = binding
        while id(node) in parent_of:
            parent = parent_of[id(node)]
            if id(parent) in use_path:
                other, closure = use_path[id(parent)]
                return parent, node, other, closure
            node = parent
        return None

    def _parent_map(self, scope: cst.CSTNode) -> dict[int, cst.CSTNode]:
        found = self._parents.get(id(scope))
        if found is None:
            found = self._parents[id(scope)] = parents(scope)
        return found

    def _binding_kind(self, how: str, node: cst.CSTNode, scope: cst.CSTNode, functions: list[cst.FunctionDef],
                      cls: Optional[cst.ClassDef]) -> Kind:
        if how == "param":
            assert isinstance(node, cst.Param)
            if node.annotation is not None:
                return self.annotation_kind(node.annotation.annotation)
            if node.name.value == "self":
                return Kind.MODULE if cls is not None and self.classes.node_is_module_class(cls) else Kind.OTHER
            return Kind.UNKNOWN
        if how == "annotation":
            return self.annotation_kind(node)  # type: ignore[arg-type]
        if how in ("value", "aug"):
            return self.value_kind(node, functions, cls)  # type: ignore[arg-type]
        if how == "unpack":
            value_kind = self.value_kind(node, functions, cls)  # type: ignore[arg-type]
            if value_kind in (Kind.MODULE, Kind.OTHER) and not isinstance(node, (cst.Tuple, cst.List)):
                return Kind.UNKNOWN
            if isinstance(node, (cst.Tuple, cst.List)):
                return Kind.UNKNOWN  # a, b = b, a: the elements say, not the tuple
            # `x, y = batch`: elements of a batch are tensors
            return Kind.TENSOR if not _calls_module_iterator(node) else Kind.UNKNOWN
        if how == "dict-value":
            return self._dict_value_kind(node, functions, cls)  # type: ignore[arg-type]
        if how == "iterate-unpack":
            if _calls_module_iterator(node) or _is_items_call(node) or _is_zip_or_enumerate_of_non_loader(node):
                return Kind.UNKNOWN
            if self._literal_container(node, functions):
                return Kind.UNKNOWN  # for net, opt in [(a, b), ...]: the elements say, not the loop
            return Kind.TENSOR  # for x, y in loader
        return Kind.UNKNOWN

    def _literal_container(self, expr: cst.CSTNode, functions: list[cst.FunctionDef]) -> bool:
        """A list, tuple, set or dict display (or comprehension), or a name bound to one."""
        displays = (cst.List, cst.Tuple, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp)
        if isinstance(expr, displays):
            return True
        if isinstance(expr, cst.Name):
            for scope in [*functions, self.module]:
                bindings = self.scope_index(scope).bindings.get(expr.value)
                if bindings:
                    return any(how == "value" and isinstance(node, displays) for how, node in bindings)
        return False

    def _dict_value_kind(self, container: cst.BaseExpression, functions: list[cst.FunctionDef],
                         cls: Optional[cst.ClassDef]) -> Kind:
        """A value of `for k, v in batch.items()`: a tensor by convention (weak evidence), unless
        the dict is one the file built or typed (its values say), a module's, or `**kwargs`."""
        if not isinstance(container, cst.Name) or container.value == "self":
            return Kind.UNKNOWN  # an object's attribute (a cache, a registry, `__dict__`): anything
        name = container.value
        if re.search(r"model|module|layer|net|optim|tokenizer|processor|metric|callback|hook", name, re.IGNORECASE):
            return Kind.UNKNOWN
        bindings = next((self.scope_index(scope).bindings[name] for scope in [*functions, self.module]
                         if name in self.scope_index(scope).bindings), [])
        if bindings and all(how == "value" and isinstance(node, cst.Dict) for how, node in bindings):
            # a dict display of the file: its values say
            values = [e for how, node in bindings for e in node.elements]  # type: ignore[attr-defined]
            if values and all(isinstance(e, cst.DictElement)
                              and self.value_kind(e.value, functions, cls) is Kind.TENSOR for e in values):
                return Kind.TENSOR
            return Kind.UNKNOWN
        if self.kind_of(container, functions, cls) is not Kind.UNKNOWN:
            return Kind.UNKNOWN
        for how, node in bindings:
            if how == "star-param":
                return Kind.UNKNOWN
            if how in ("iterate", "iterate-unpack") and self._literal_container(node, functions):
                return Kind.UNKNOWN  # `for d in [self.models, self.losses]`: a dict of whatever those hold
        for scope in [*functions, self.module]:
            index = self.scope_index(scope)
            for value in index.element_bindings.get(name, []):
                if self.value_kind(value, functions, cls) is not Kind.TENSOR:
                    return Kind.UNKNOWN
        return Kind.TENSOR

    def _self_attr_kind(self, attr: str, cls: cst.ClassDef) -> Kind:
        key = (id(cls), f"self.{attr}")
        if key in self._resolving:
            return Kind.UNKNOWN  # `self.x = self.x.to(d)`: the other bindings decide
        cached = self._attr_cache.get(key)
        if cached is not None:
            return cached
        self._resolving.add(key)
        try:
            result = self._self_attr_evidence(attr, cls)
        finally:
            self._resolving.discard(key)
        self._attr_cache[key] = result
        return result

    def _self_attr_evidence(self, attr: str, cls: cst.ClassDef) -> Kind:
        index = self.class_index(cls)
        kinds: set[Kind] = set()
        for how, node, method in index.bindings.get(attr, []):
            functions = [method] if method is not None else []
            if how == "buffer":
                kinds.add(Kind.TENSOR)  # register_buffer / register_parameter hold tensors
            elif how == "annotation":
                kinds.add(self.annotation_kind(node))  # type: ignore[arg-type]
            elif how == "unpack":
                kinds.add(Kind.UNKNOWN)
            else:
                kinds.add(self.value_kind(node, functions, cls))  # type: ignore[arg-type]
        used = index.attributes_used.get(attr, set())
        if used & MODULE_METHODS or attr in index.called:
            kinds.add(Kind.MODULE)
        if used & (TENSOR_METHODS | TENSOR_ONLY_ATTRIBUTES):
            kinds.add(Kind.TENSOR)
        result = _combine(kinds)
        if result is Kind.TENSOR and _MODULE_WORDS.search(attr) and not index.bindings.get(attr):
            return Kind.UNKNOWN  # `self.model` used like a tensor but never bound here: not enough
        return result


def _combine(kinds: set[Kind]) -> Kind:
    """Module or other evidence wins; tensor needs every piece of evidence to agree."""
    if kinds - {Kind.UNKNOWN} == {Kind.TENSOR}:
        kinds.discard(Kind.UNKNOWN)  # unknown bindings (parameters) do not veto tensor evidence
    if not kinds:
        return Kind.UNKNOWN
    if kinds == {Kind.TENSOR}:
        return Kind.TENSOR
    if Kind.MODULE in kinds:
        return Kind.MODULE
    if Kind.OTHER in kinds:
        return Kind.OTHER
    return Kind.UNKNOWN


def _made_by_class(value: cst.CSTNode) -> Optional[str]:
    """`Net` of `Net(...)`, `Net(...).to(device)`, `Net(...).cuda().eval()`: the class a value is an object of."""
    while type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in (  # type: ignore
            "to", "cuda", "eval", "train", "float", "half", "double", "bfloat16", "requires_grad_"):
        value = value.func.value  # type: ignore[attr-defined]
    if type(value) is cst.Call and type(value.func) is cst.Name:  # type: ignore[attr-defined]
        return value.func.value  # type: ignore[attr-defined]
    return None


def _bare_call(statement: cst.Expr) -> Optional[cst.Call]:
    """`R.m(...)` as a statement of its own, `m` a move or a conversion: the call, else None."""
    call = statement.value
    if (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in _BARE_NOT_EVIDENCE):
        return call
    return None


def _uncalled_method(node: cst.Attribute, called: set[int]) -> bool:
    """`f.dim` read, not called: a tensor's `dim` is a method, so an object whose `dim` is a value is
    not a tensor; no evidence either way."""
    return node.attr.value in TENSOR_METHODS and node.attr.value not in TENSOR_ONLY_ATTRIBUTES and id(node) not in called


def _is_self(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "self"


def _is_self_attr(expr: cst.CSTNode) -> bool:
    return isinstance(expr, cst.Attribute) and _is_self(expr.value)


def _calls_module_iterator(expr: cst.CSTNode) -> bool:
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _MODULE_ITERATORS:
            return True
        if isinstance(expr.func, cst.Name) and expr.func.value in ("zip", "enumerate"):
            return any(_calls_module_iterator(arg.value) for arg in expr.args)
    return False


def unwrap_listing(expr: cst.CSTNode) -> cst.CSTNode:
    """`d.items()` of `list(d.items())`, `sorted(...)`, `tuple(...)`, `reversed(...)`."""
    while (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name)
           and expr.func.value in ("list", "tuple", "sorted", "reversed") and expr.args and not expr.args[0].star):
        expr = expr.args[0].value
    return expr


def _is_items_call(expr: cst.CSTNode) -> bool:
    expr = unwrap_listing(expr)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return expr.func.attr.value == "items"
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("zip", "enumerate"):
        return any(_is_items_call(arg.value) for arg in expr.args)
    return False


def _is_zip_or_enumerate_of_non_loader(expr: cst.CSTNode) -> bool:
    """`for i, x in enumerate(xs)` binds an int and an element: not a batch."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name):
        if expr.func.value in ("range", "zip", "enumerate", "sorted", "reversed", "map", "filter"):
            return True
    return False


def _takes_a_tensor(full: str) -> bool:
    """Is the first argument of torch function `full` a tensor by its signature?"""
    if not full.startswith("torch."):
        return False
    rest = full[6:]
    if rest in _FIRST_ARGUMENT_NOT_A_TENSOR or rest.endswith("Tensor") or rest in _TORCH_NON_TENSOR:
        return False
    head = rest.partition(".")[0]
    if head == "nn":
        return rest.startswith(("nn.functional.", "nn.init.")) or rest in ("nn.Parameter", "nn.parameter.Parameter")
    return head not in ("cuda", "distributed", "utils", "jit", "onnx", "fx", "export", "hub", "backends", "compile",
                        "autograd", "profiler", "testing", "multiprocessing", "package", "sparse", "ao", "quantization")


def _same_shape(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    """`a, (b, c) = x, (y, z)`: element for element, no starred element on either side."""
    if isinstance(target, cst.Name):
        return True
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
        return False
    if len(target.elements) != len(value.elements):
        return False
    return all(isinstance(t, cst.Element) and isinstance(v, cst.Element) and _same_shape(t.value, v.value)
               for t, v in zip(target.elements, value.elements))


def _pairs(target: cst.BaseExpression, value: cst.BaseExpression) -> Iterable[tuple[cst.Name, cst.BaseExpression]]:
    if isinstance(target, cst.Name):
        yield target, value
        return
    for t, v in zip(target.elements, value.elements):  # type: ignore[attr-defined]
        yield from _pairs(t.value, v.value)


def _method_call(expr: cst.BaseExpression, *methods: str) -> Optional[cst.BaseExpression]:
    """The receiver `D` of `D.m()` (no arguments) for `m` in `methods`, else None."""
    if (isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in methods):
        return expr.func.value
    return None


def _bind_loop_target(index: ScopeIndex, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
    """What a `for` target binds: `for v in d.values()`, `for k, v in d.items()` (the values of a
    dict), `for i, (x, y) in enumerate(loader)` (as `for x, y in loader`), else the elements."""
    iterable = unwrap_listing(iterable)  # type: ignore[assignment]
    if isinstance(target, cst.Name):
        container = _method_call(iterable, "values")
        if container is not None:
            index.bind(target.value, "dict-value", container)
        else:
            index.bind(target.value, "iterate", iterable)
        return
    pair = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
    if len(pair) == 2 and all(isinstance(e, cst.Element) for e in pair):
        first, second = pair[0].value, pair[1].value
        container = _method_call(iterable, "items")
        if container is not None and isinstance(second, cst.Name):
            for name in target_names(first):
                index.bind(name.value, "iterate", iterable)
            index.bind(second.value, "dict-value", container)
            return
        if (isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)
                and iterable.func.value == "enumerate" and iterable.args and not iterable.args[0].star
                and iterable.args[0].keyword is None):
            for name in target_names(first):
                index.bind(name.value, "iterate", iterable)  # the count
            _bind_loop_target(index, second, iterable.args[0].value)
            return
    for name in target_names(target):
        index.bind(name.value, "iterate-unpack", iterable)


def _optional_of(annotation: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`X` of `Optional[X]`, `Union[X, None]`, `X | None`; else None."""
    def is_none(expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Name) and expr.value == "None"

    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        if is_none(annotation.right):
            return annotation.left
        if is_none(annotation.left):
            return annotation.right
        return None
    if not isinstance(annotation, cst.Subscript):
        return None
    base = (dotted_name(annotation.value) or "").rsplit(".", 1)[-1]
    elements = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
    if len(elements) != len(annotation.slice):
        return None
    if base == "Optional" and len(elements) == 1:
        return elements[0]
    if base == "Union":
        rest = [e for e in elements if not is_none(e)]
        if len(rest) == 1 and len(elements) == 2:
            return rest[0]
    return None
