"""Is this receiver a tensor, a module, or something else? Decided from evidence in the file.

Policy (documented in the README): a receiver is a TENSOR only with positive evidence —
what it was bound to (a torch function, a tensor method, arithmetic on tensors, an element
of an unpacked batch, a buffer), its annotation, an `isinstance(x, torch.Tensor)` test
around it, or how it is used (`x.shape`, `x.view(...)`). Evidence that it is a module
(an `nn.*` layer, a Module class of the file, a model factory, `m.parameters()`, being
called) or an object with its own in-place `.to()` (a tokenizer's `BatchEncoding`, a
PyTorch Geometric `Data`) wins over tensor evidence. No evidence means UNKNOWN, and
rules do not report UNKNOWN receivers.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

import libcst as cst

from devlint.analysis.classes import ClassTable
from devlint.analysis.names import dotted_name, string_value, target_names
from devlint.analysis.torch_names import TorchNames
from devlint.walk import children


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
# Tensor methods that no nn.Module has: a receiver (or result) with them is a tensor.
TENSOR_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "unsqueeze", "squeeze", "permute", "transpose", "contiguous",
    "detach", "flatten", "unflatten", "expand", "expand_as", "repeat", "numpy", "item", "tolist", "size",
    "dim", "numel", "sum", "mean", "std", "max", "min", "argmax", "argmin", "softmax", "log_softmax", "sigmoid",
    "tanh", "relu", "abs", "exp", "log", "sqrt", "pow", "clamp", "clamp_", "masked_fill", "masked_fill_",
    "index_select", "gather", "scatter", "scatter_", "narrow", "chunk", "split", "t", "matmul", "mm", "bmm",
    "float", "long", "int", "bool", "half", "bfloat16", "byte", "char", "short", "type_as", "new_zeros",
    "new_ones", "new_full", "new_empty", "new_tensor", "fill_", "zero_", "copy_", "add_", "mul_", "sub_",
    "div_", "normal_", "uniform_", "nonzero", "topk", "sort", "argsort", "cumsum", "prod", "norm", "any",
    "all", "eq", "ne", "gt", "lt", "ge", "le", "masked_select", "where", "roll", "flip", "unbind", "stride",
    "is_contiguous", "element_size", "storage", "data_ptr", "backward", "requires_grad_", "retain_grad",
    "is_pinned", "pin_memory",
})
# Attributes only tensors have (modules have none of these).
TENSOR_ATTRIBUTES = frozenset({"shape", "ndim", "T", "mT", "grad", "is_cuda", "requires_grad", "grad_fn", "is_leaf"})
# Methods and attributes that mark an nn.Module (or a model object with an in-place .to()).
MODULE_METHODS = frozenset({
    "parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules", "children",
    "named_children", "eval", "train", "state_dict", "load_state_dict", "zero_grad", "apply", "register_buffer",
    "register_parameter", "register_forward_hook", "register_forward_pre_hook", "add_module", "forward",
    "generate", "config", "save_pretrained", "to_empty",
})
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


@dataclass
class ScopeIndex:
    """What one function (or the module body) says about its names."""

    bindings: dict[str, list[tuple[str, cst.CSTNode]]] = field(default_factory=dict)
    attributes_used: dict[str, set[str]] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)
    string_subscripted: set[str] = field(default_factory=set)
    torch_arg: set[str] = field(default_factory=set)  # passed positionally to a torch function
    # `container[key] = value`: what a container's elements were set to, by container name
    element_bindings: dict[str, list[cst.BaseExpression]] = field(default_factory=dict)

    def bind(self, name: str, how: str, node: cst.CSTNode) -> None:
        self.bindings.setdefault(name, []).append((how, node))


@dataclass
class ClassIndex:
    """What the methods of one class say about `self.<attr>`."""

    bindings: dict[str, list[tuple[str, cst.CSTNode, Optional[cst.FunctionDef]]]] = field(default_factory=dict)
    attributes_used: dict[str, set[str]] = field(default_factory=dict)
    called: set[str] = field(default_factory=set)


def _children_in_scope(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    for child in children(node):  # node.children would rebuild the node
        # Nested functions and classes have their own bindings; lambdas and comprehensions
        # are read for usages only (their targets do not leak).
        if isinstance(child, (cst.FunctionDef, cst.ClassDef)):
            continue
        yield child


class TypeOracle:
    """Answers `kind_of(expr)` for a position in the file. One per file; memoised."""

    def __init__(self, module: cst.Module, torch: TorchNames) -> None:
        self.module = module
        self.torch = torch
        self.classes = ClassTable(module, torch)
        self._scope_cache: dict[int, ScopeIndex] = {}
        self._class_cache: dict[int, ClassIndex] = {}
        self._resolving: set[tuple[int, str]] = set()
        self._attr_cache: dict[tuple[int, str], Kind] = {}

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
        if isinstance(scope, cst.FunctionDef):
            params = scope.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                index.bind(param.name.value, "param", param)
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    index.bind(star.name.value, "star-param", star)
            stack: list[cst.CSTNode] = [scope.body]
        else:
            stack = [scope]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Subscript):
                        container = dotted_name(target.target.value)
                        if container is not None:
                            index.element_bindings.setdefault(container, []).append(node.value)
                    if isinstance(target.target, cst.Name):
                        index.bind(target.target.value, "value", node.value)
                    else:
                        for name in target_names(target.target):
                            index.bind(name.value, "unpack", node.value)
            elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
                index.bind(node.target.value, "annotation", node.annotation.annotation)
                if node.value is not None:
                    index.bind(node.target.value, "value", node.value)
            elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
                index.bind(node.target.value, "aug", node.value)
            elif isinstance(node, (cst.For, cst.CompFor)):
                if isinstance(node.target, cst.Name):
                    index.bind(node.target.value, "iterate", node.iter)
                else:
                    for name in target_names(node.target):
                        index.bind(name.value, "iterate-unpack", node.iter)
            elif isinstance(node, cst.WithItem) and node.asname is not None:
                for name in target_names(node.asname.name):
                    index.bind(name.value, "with", node.item)
            elif isinstance(node, (cst.Import, cst.ImportFrom)):
                if not isinstance(node.names, cst.ImportStar):
                    for alias in node.names:
                        local = alias.asname.name if alias.asname else alias.name
                        if isinstance(local, cst.Name):
                            index.bind(local.value, "import", node)
            elif isinstance(node, cst.NamedExpr) and isinstance(node.target, cst.Name):
                index.bind(node.target.value, "value", node.value)
            elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
                index.attributes_used.setdefault(node.value.value, set()).add(node.attr.value)
            elif isinstance(node, cst.Call):
                if isinstance(node.func, cst.Name):
                    index.called.add(node.func.value)
                full = self.torch.qualify(node.func)
                if full is not None and node.args and isinstance(node.args[0].value, cst.Name):
                    index.torch_arg.add(node.args[0].value.value)
            elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
                if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
                    if string_value(node.slice[0].slice.value) is not None:
                        index.string_subscripted.add(node.value.value)
            stack.extend(_children_in_scope(node))
        return index

    def class_index(self, cls: cst.ClassDef) -> ClassIndex:
        key = id(cls)
        index = self._class_cache.get(key)
        if index is not None:
            return index
        index = ClassIndex()
        for statement in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        index.bindings.setdefault(small.target.value, []).append(
                            ("annotation", small.annotation.annotation, None))
            if not isinstance(statement, cst.FunctionDef):
                continue
            stack: list[cst.CSTNode] = [statement.body]
            while stack:
                node = stack.pop()
                if isinstance(node, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                    for target in targets:
                        if _is_self_attr(target) and node.value is not None:
                            index.bindings.setdefault(target.attr.value, []).append(("value", node.value, statement))
                        elif isinstance(target, (cst.Tuple, cst.List)) and node.value is not None:
                            for element in target.elements:
                                if _is_self_attr(element.value):
                                    index.bindings.setdefault(element.value.attr.value, []).append(
                                        ("unpack", node.value, statement))
                    if isinstance(node, cst.AnnAssign) and _is_self_attr(node.target):
                        index.bindings.setdefault(node.target.attr.value, []).append(
                            ("annotation", node.annotation.annotation, statement))
                elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                    func = node.func
                    if (func.attr.value in ("register_buffer", "register_parameter") and _is_self(func.value)
                            and node.args):
                        name = string_value(node.args[0].value)
                        if name is not None:
                            index.bindings.setdefault(name, []).append(("buffer", node, statement))
                    if _is_self_attr(func.value):
                        index.attributes_used.setdefault(func.value.attr.value, set()).add(func.attr.value)
                    elif _is_self(func.value):
                        index.called.add(func.attr.value)  # self.encoder(...): called, so a module
                elif isinstance(node, cst.Call) and _is_self_attr(node.func):
                    index.called.add(node.func.attr.value)
                elif isinstance(node, cst.Attribute) and _is_self_attr(node.value):
                    index.attributes_used.setdefault(node.value.attr.value, set()).add(node.attr.value)
                stack.extend(children(node))
        self._class_cache[key] = index
        return index

    # -- questions --------------------------------------------------------------------
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
            return self._name_kind(expr.value, functions, cls)
        if isinstance(expr, cst.Attribute):
            if _is_self(expr.value) and cls is not None:
                return self._self_attr_kind(expr.attr.value, cls)
            if expr.attr.value in ("data", "grad", "T", "mT", "weight", "bias", "real", "imag"):
                # `p.data`, `layer.weight`: parameters and their data are tensors
                return Kind.TENSOR
            return Kind.UNKNOWN
        if isinstance(expr, cst.Subscript):
            return self._element_kind(expr, functions, cls)
        return self.value_kind(expr, functions, cls)

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
        full = self.torch.qualify(annotation)
        name = full or dotted_name(annotation) or ""
        last = name.rsplit(".", 1)[-1]
        if full in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.nn.Parameter") or last == "Tensor":
            return Kind.TENSOR
        if isinstance(annotation, cst.SimpleString):  # "torch.Tensor" as a string annotation
            text = string_value(annotation) or ""
            return Kind.TENSOR if text.rsplit(".", 1)[-1] == "Tensor" else Kind.OTHER
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
            if rest in ("nn.Parameter", "nn.parameter.Parameter", "Tensor", "from_numpy", "as_tensor", "tensor"):
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
        if isinstance(call.func, cst.Attribute):
            method = call.func.attr.value
            receiver = call.func.value
            if method in ("to", "cuda", "cpu", "pin_memory", "clone", "type", "requires_grad_", "contiguous",
                          "detach", "float", "half", "double", "bfloat16"):
                return self.kind_of(receiver, functions, cls)
            if method in TENSOR_METHODS and method not in ("float", "half", "double", "bfloat16", "type", "apply"):
                return Kind.TENSOR
        return Kind.UNKNOWN

    def _element_kind(self, expr: cst.Subscript, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef]) -> Kind:
        container_name = dotted_name(expr.value) or ""
        if container_name == "self":
            return Kind.UNKNOWN  # elements of a container class of the file: whatever it holds
        container = self.kind_of(expr.value, functions, cls)
        if container in (Kind.MODULE, Kind.TENSOR):
            return container  # self.layers[i] of a ModuleList; x[0] of a tensor
        for scope in [*functions, self.module]:
            for value in self.scope_index(scope).element_bindings.get(container_name, []):
                if self.value_kind(value, functions, cls) in (Kind.MODULE, Kind.OTHER):
                    return Kind.UNKNOWN  # `metrics[key] = SomeMetric(...)`: elements are not tensors
        for element in expr.slice:
            if isinstance(element.slice, cst.Index):
                key = string_value(element.slice.value) or dotted_name(element.slice.value) or ""
                if key and _MODULE_WORDS.search(key.rsplit(".", 1)[-1]) and not key.endswith(("inputs", "features")):
                    return Kind.UNKNOWN  # hparams["model"]
        if re.search(r"model|module|layer|net|optim|tokenizer|processor", container_name, re.IGNORECASE):
            return Kind.UNKNOWN
        # An element of a batch, a tuple of outputs, a dict of inputs: a tensor by every convention.
        return Kind.TENSOR

    def _name_kind(self, name: str, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef]) -> Kind:
        for depth, scope in enumerate([*functions, self.module]):
            index = self.scope_index(scope)
            if name in index.bindings:
                key = (id(scope), name)
                if key in self._resolving:
                    return Kind.UNKNOWN
                self._resolving.add(key)
                try:
                    outer = functions[depth + 1:] if depth < len(functions) else []
                    return self._decide(name, index, outer, cls, scope)
                finally:
                    self._resolving.discard(key)
        return Kind.UNKNOWN

    def _decide(self, name: str, index: ScopeIndex, functions: list[cst.FunctionDef], cls: Optional[cst.ClassDef],
                scope: cst.Module | cst.FunctionDef) -> Kind:
        scope_functions = [scope, *functions] if isinstance(scope, cst.FunctionDef) else functions
        kinds: set[Kind] = set()
        for how, node in index.bindings[name]:
            kinds.add(self._binding_kind(how, node, scope, scope_functions, cls))
        used = index.attributes_used.get(name, set())
        if used & MODULE_METHODS or name in index.called or name in index.string_subscripted:
            kinds.add(Kind.MODULE if used & MODULE_METHODS else Kind.OTHER)
        if used & (TENSOR_METHODS | TENSOR_ATTRIBUTES):
            kinds.add(Kind.TENSOR)
        if name in index.torch_arg:
            kinds.add(Kind.TENSOR)
        result = _combine(kinds)
        if result is Kind.TENSOR and _MODULE_WORDS.search(name):
            # A name that says "model" or "batch" needs a binding, not only a usage, to be a tensor.
            if not any(self._binding_kind(how, node, scope, scope_functions, cls) is Kind.TENSOR
                       for how, node in index.bindings[name]):
                return Kind.UNKNOWN
        return result

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
        if how == "iterate-unpack":
            if _calls_module_iterator(node) or _is_items_call(node) or _is_zip_or_enumerate_of_non_loader(node):
                return Kind.UNKNOWN
            return Kind.TENSOR  # for x, y in loader
        return Kind.UNKNOWN

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
        if used & (TENSOR_METHODS | TENSOR_ATTRIBUTES):
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


def _is_items_call(expr: cst.CSTNode) -> bool:
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
