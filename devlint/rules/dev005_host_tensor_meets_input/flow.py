"""Where does a value go, and what does it meet? A small forward data flow over one function.

DEV005's question: a tensor made on the CPU by a factory without `device=`, does it meet, in the
same function, a tensor that came from the function's inputs, in an operation where the devices
must match? Inputs are the parameters the function shows to be tensors (`.shape`, `.size()`,
`.device`, tensor methods, a `Tensor` annotation) and, in a method of an `nn.Module`, the
module's parameters and buffers read through `self` and the outputs of its submodules.

Each statement is read once, in order (a loop body twice, the branches of an `if` each from the
state before it, then merged). A value is what it may carry: host factories, input roots, and
whether it is a list or was sent to the host on purpose (`.cpu()`). What is not shown is nothing:
a plain function's result, a loop variable over Python data, a closure's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Optional

import libcst as cst

from devlint.analysis.classes import ClassTable
from devlint.analysis.edits import code_of, short
from devlint.analysis.factories import (
    LEGACY_CONSTRUCTORS, LIKE_FACTORIES, RANDOM_FACTORIES, cpu_factory_name, factory_name, is_dtype_only_move,
    is_host, legacy_constructor_name, move_target,
)
from devlint.analysis.forward import ForwardReader
from devlint.analysis.guards import guarded_branches
from devlint.analysis.names import dotted_name, keyword, named_parameters, positional
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.torch_operations import (
    INDEX_ARGUMENTS, SAME_DEVICE_FUNCTIONAL, SAME_DEVICE_FUNCTIONS, SAME_DEVICE_METHODS, SUBSCRIPT_INDICES,
)
from devlint.analysis.vocabulary import (
    CAST_METHODS, CONCATENATIONS, ELEMENTWISE, HOST_VALUE_METHODS, JOINING, LOOP_WRAPPERS, NO_SCALARS,
    NON_TENSOR_METHODS, NUMBER_CALLS,
    PLACED_ATTRIBUTES, RESHAPING_METHODS, TENSOR_ATTRIBUTES, TENSOR_ONLY_METHODS, TO_HOST_METHODS, TORCH_ONLY_METHODS,
    UNARY_ELEMENTWISE, names_a_device,
)
from devlint.analysis.walk import children, nodes

# The shapes read only with `FlowReader(preview=True)`, the preview tier: their share of false reports on
# code nobody tuned to is above what a default rule may have (the caller is often a DataLoader's worker).
PREVIEW_SHAPES = (
    "a host buffer written from an input's tensor (`buf[a:b] = x`) and returned as it is",
    "a list of host tensors given an input's tensor (`outs[0] = x`) and returned",
)
# Where an empty start value meets the tensors it is joined with (`vocabulary.CONCATENATIONS`).
_CONCATENATED = frozenset(f"torch.{name}" for name in CONCATENATIONS)
# How deep `self.m()` is followed into the class's methods to learn what each returns.
_METHOD_DEPTH = 4
# Methods after which a value is placed: on a device, or (`cpu`, `numpy`) on the host on purpose.
_MOVES = frozenset({"cuda", "type_as", "to"})


def _takes_a_tensors_type(call: cst.Call) -> bool:
    """`x.type(other.type())`, `x.type(dtype)`, `x.type("torch.cuda.FloatTensor")`: a tensor type (written out, or
    one the code holds, a type string of a tensor) names its device too, so the result may be elsewhere; only a torch
    dtype (`x.type(torch.float16)`) or a host type's name casts where it is."""
    args = positional(call)
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "type" and len(args) == 1):
        return False
    value = args[0].value
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return "cuda" in code_of(value)
    name = dotted_name(value)
    if name is not None and "." in name:
        return "cuda" in name  # `torch.float16`, `torch.FloatTensor` (host); `torch.cuda.FloatTensor`
    return True  # `other.type()`, `dtype`: maybe a device's tensor type


# Builtins that turn a tensor into a Python value.
# `torch.tensor(data)` and the legacy constructors given data: what they are given is not a tensor
_DATA_CONSTRUCTORS = frozenset({"tensor", *LEGACY_CONSTRUCTORS})
_HOST_BUILTINS = frozenset({"int", "float", "bool", "range", "len", "round", "list", "tuple", "str", "complex"})
# torch.<name> that are not tensor operations.
_TORCH_NON_TENSOR = frozenset({
    "is_tensor", "numel", "device", "dtype", "Size", "finfo", "iinfo", "manual_seed", "no_grad", "load", "save",
    "Generator", "get_default_dtype", "is_floating_point", "is_complex", "set_grad_enabled", "autocast",
    "broadcast_shapes", "typename", "compile", "jit.script", "jit.trace",
})
# Evidence that an element of a sequence parameter is a tensor: calls NumPy arrays and Python
# numbers do not have (`.size` and `.shape` are NumPy's too), and `.device`.
_ELEMENT_TENSOR_METHODS = frozenset({
    "numel", "dim", "size", "float", "long", "half", "unsqueeze", "view", "detach", "to", "cuda", "cpu",
    "masked_fill", "index_select", "new_zeros", "new_ones", "new_full", "type_as", "expand_as",
})
_SEQUENCE_ANNOTATION = ("list", "List", "Sequence", "Tuple", "tuple", "Iterable")
_NOT_TENSOR_ANNOTATION = ("list", "List", "Sequence", "Dict", "dict", "Tuple", "tuple", "Iterable", "Mapping",
                          "Iterator", "str", "int", "float", "bool")
# torch.nn layers without parameters: calling one on a CPU tensor works, whatever the model's device.
_PARAMETERLESS = frozenset({
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "ReLU", "ReLU6", "GELU", "SiLU", "Mish",
    "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Softplus", "LeakyReLU", "ELU", "SELU", "CELU", "Hardswish",
    "Hardsigmoid", "Hardtanh", "Identity", "Flatten", "Unflatten", "Upsample", "PixelShuffle", "PixelUnshuffle",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "Fold", "Unfold", "ChannelShuffle", "Softmin", "Tanhshrink",
    "Softsign", "Threshold", "GLU", "LogSigmoid", "Hardshrink", "Softshrink", "ModuleList", "ModuleDict",
})


# torch.nn layers that always have a `weight` parameter: where a submodule's parameters are.
_WEIGHTED = frozenset({"Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                       "ConvTranspose3d", "Embedding", "EmbeddingBag"})


@dataclass(frozen=True)
class Value:
    """What an expression may carry."""

    host: frozenset = frozenset()  # factory calls (cst.Call) whose CPU tensor may be in it
    inputs: frozenset = frozenset()  # roots: "x", "self.weight", "the output of `self.proj`"
    wide: frozenset = frozenset()  # those of `host` that may have dimensions (the rest are 0-dim)
    is_list: bool = False
    on_cpu: bool = False  # sent to the host on purpose (`.cpu()`, `.numpy()`)

    @property
    def scalar(self) -> bool:
        """Every host part is 0-dim: it mixes with tensors on any device."""
        return not self.wide

    def __or__(self, other: "Value") -> "Value":
        if not other.host and not other.inputs and not other.on_cpu:
            return self if not other.is_list or self.is_list else replace(self, is_list=True)
        if not self.host and not self.inputs and not self.on_cpu:
            return other if not self.is_list or other.is_list else replace(other, is_list=True)
        return Value(self.host | other.host, self.inputs | other.inputs, self.wide | other.wide,
                     self.is_list or other.is_list, self.on_cpu or other.on_cpu)


NOTHING = Value()


@dataclass
class Meeting:
    """A host factory's value meets an input-derived tensor."""

    factory: cst.Call
    root: str  # what it meets: "features", "self.transitions", "the output of `self.proj`"
    where: str  # "torch.cat", "arithmetic", "`self.rnn`", "a return", ...
    roots: tuple = ()  # everything it meets there, `root` first


@dataclass
class FunctionFlow:
    """The result for one function."""

    factories: dict[cst.Call, str] = field(default_factory=dict)  # host factory -> its name
    meetings: dict[cst.Call, list[Meeting]] = field(default_factory=dict)
    moved: set[cst.Call] = field(default_factory=set)  # carried into a move or onto the host on purpose
    host_used: set[cst.Call] = field(default_factory=set)  # read as a Python value: sizes, bounds, .item()
    meets_cpu: set[cst.Call] = field(default_factory=set)  # met a value the file shows to be on the CPU
    # (a, b, b may have dimensions): host tensors of two factories that meet each other
    host_pairs: set[tuple[cst.Call, cst.Call, bool]] = field(default_factory=set)
    tensor_params: set[str] = field(default_factory=set)  # parameters shown to be tensors (fix sources)
    # factories of another method (`__init__`) read here through the plain attribute that holds them
    attributes: dict[cst.Call, str] = field(default_factory=dict)
    # factories of another method of the class that it returns to this one (`h = self.init_hidden(n)`): the method
    returned_by: dict[cst.Call, str] = field(default_factory=dict)
    # empty start values (`torch.empty(0)`, `torch.tensor([])`): they meet only where they are concatenated
    placeholders: set[cst.Call] = field(default_factory=set)
    # factories that start an attribute the class only ever concatenates onto (`accumulated_attributes`), by attribute
    accumulators: dict[cst.Call, str] = field(default_factory=dict)
    # the tensors `torch.as_tensor(p)` makes of a parameter `p` (roots, by what they meet) -> `p`
    converted: dict[str, str] = field(default_factory=dict)

    def reportable(self) -> list[tuple[cst.Call, str, Meeting]]:
        """(factory, name, its first meeting), in the order of the source."""
        found = []
        for call, name in self.factories.items():
            meetings = self.meetings.get(call)
            if meetings and call in self.placeholders:
                meetings = [meeting for meeting in meetings if meeting.where in _CONCATENATED]
            if not meetings or call in self.moved:
                continue
            if name in RANDOM_FACTORIES and call in self.host_used:
                continue  # a random draw used as a number on the host (coin flips, sizes, bounds)
            found.append((call, name, meetings[0]))
        return found


class ModuleFacts:
    """What a class of the file says about `self.<attr>`: tensors that move with the module
    (parameters, buffers) and submodules with parameters."""

    def __init__(self, cls: Optional[cst.ClassDef], classes: ClassTable, torch: TorchNames, *,
                 accumulating: bool = True, registers: bool = True) -> None:
        """`accumulating`: the class may start an attribute on the host and concatenate onto it (the screen's
        answer; False spares reading every binding of the class for `accumulated_attributes`). `registers`: the
        file's text names `Parameter`, `register_buffer` or `register_parameter` (False spares walking a class
        that is not a module for them)."""
        self.tensors: set[str] = set()
        self.submodules: set[str] = set()
        self.weighted: set[str] = set()  # submodules that always have a `.weight` (Linear, Conv, Embedding)
        # layers a module known only by its shape calls: their outputs are the module's (no parameters known)
        self.called_layers: set[str] = set()
        # plain attributes `__init__` binds to a factory's host tensor (`self.pe = torch.zeros(n, d)`): the
        # factory, by attribute. `Module.to()` moves parameters and buffers, never these.
        self.host_attributes: dict[str, cst.Call] = {}
        # the class's plain methods, by name (defined once, undecorated), and what each returns of the
        # module's own tensors once read (`returned_by`)
        self.methods: dict[str, cst.FunctionDef] = {}
        self.returned: dict[str, Value] = {}
        # the host factories those methods return, each with its name and the method that makes it
        self.returned_factories: dict[cst.Call, tuple[str, str]] = {}
        # what each position of a method's returned tuple holds of those (`return h, c`), by method
        self.returned_elements: dict[str, list[Value]] = {}
        self.reading = 0  # how many of those are being read, one inside another (at most _METHOD_DEPTH)
        # attributes of any class that start as host tensors and are only ever concatenated onto: their starts
        self.accumulated: dict[str, tuple[cst.Call, ...]] = {}
        if cls is not None and accumulating:
            self.accumulated = accumulated_attributes(cls, torch)
        self.is_module = cls is not None and classes.node_is_module_class(cls)
        if cls is not None and not self.is_module:
            self.called_layers = _layers_of_a_module_by_shape(cls, classes)
            # a class whose base is defined elsewhere that binds `self.w = nn.Parameter(...)`: only a Module
            # registers (and moves) what it is given so
            self.is_module = bool(self.called_layers) or registers and _binds_parameters(cls, torch)
        if cls is None or not self.is_module:
            return
        for base in cls.bases:
            full = torch.qualify(base.value) or ""
            if full.startswith("torch.nn.") and full.rsplit(".", 1)[-1] not in ("Module", *_PARAMETERLESS):
                self.tensors.update(("weight", "bias"))  # `class NoisyLinear(nn.Linear)`
        methods = _methods_of(cls)
        # One walk of the class, a part at a time (its header, each statement of its body): what each method
        # binds to `self.<attr>`, and what `__init__` binds to a plain name, are kept for `_host_attributes`.
        # A class that moves things itself (`_apply`, `to`, `cuda`) has no host attributes: nothing is kept.
        moves_itself = any(m.name.value in ("_apply", "to", "cuda") for m in methods)
        init = None if moves_itself else next((m for m in methods if m.name.value == "__init__"), None)
        bound: dict[str, list[tuple[cst.FunctionDef, Optional[cst.BaseExpression]]]] = {}
        local: dict[str, list[cst.BaseExpression]] = {}  # `__init__`'s `name = value`
        parts = [*(c for c in children(cls) if c is not cls.body), *cls.body.body] if methods else [cls]
        for part in parts:
            method = part if init is not None and type(part) is cst.FunctionDef else None
            for node in nodes(part):
                kind = type(node)
                if kind is cst.Assign and len(node.targets) == 1:
                    target = node.targets[0].target
                    if type(target) is cst.Attribute and type(target.value) is cst.Name and (
                            target.value.value == "self"):
                        self._bound(target.attr.value, node.value, classes, torch)
                    elif method is not None and method is init and type(target) is cst.Name:
                        local.setdefault(target.value, []).append(node.value)
                elif kind is cst.Call and type(node.func) is cst.Attribute and (
                        node.func.attr.value in ("register_buffer", "register_parameter")):
                    args = positional(node)
                    if args and type(args[0].value) is cst.SimpleString:
                        self.tensors.add(args[0].value.raw_value)
                if method is not None and (kind is cst.Assign or kind is cst.AnnAssign or kind is cst.AugAssign):
                    for target in node.targets if kind is cst.Assign else (node,):
                        where = target.target
                        if type(where) is cst.Attribute and type(where.value) is cst.Name and (
                                where.value.value == "self"):
                            bound.setdefault(where.attr.value, []).append(
                                (method, node.value if kind is not cst.AugAssign else None))
        if init is not None:
            self.host_attributes = _host_attributes(init, bound, local, torch, self.tensors | self.submodules)
        for method in methods:
            if not method.decorators and sum(other.name.value == method.name.value for other in methods) == 1:
                self.methods[method.name.value] = method

    def _bound(self, attr: str, value: cst.BaseExpression, classes: ClassTable, torch: TorchNames) -> None:
        if not isinstance(value, cst.Call):
            return
        full = torch.qualify(value.func) or ""
        if full in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            self.tensors.add(attr)
        elif full.startswith("torch.nn.") and full.rsplit(".", 1)[-1][:1].isupper():
            if full.rsplit(".", 1)[-1] not in _PARAMETERLESS and "Loss" not in full:
                self.submodules.add(attr)
            if full.rsplit(".", 1)[-1] in _WEIGHTED:
                self.weighted.add(attr)
        elif isinstance(value.func, cst.Name) and value.func.value in classes.classes:
            callee = classes.classes.get(value.func.value)
            if classes.is_module_class(value.func.value) and _holds_parameters(callee, classes, torch) and (
                    not _places_its_inputs(callee, torch)):
                self.submodules.add(attr)
        elif classes.base_is_module(value.func) and not full:
            self.submodules.add(attr)  # `self.encoder = BertModel(config)`: a model, by its name


# Methods whose result is their receiver's tensor on its device: reshaped, cast, computed element by element.
_SAME_PLACE_METHODS = RESHAPING_METHODS | CAST_METHODS | UNARY_ELEMENTWISE | {"transpose", "permute"}


def _methods_of(cls: cst.ClassDef) -> list[cst.FunctionDef]:
    """The functions written directly in a class's body."""
    return [s for s in cls.body.body if type(s) is cst.FunctionDef] if type(cls.body) is cst.IndentedBlock else []


def _host_attributes(init: cst.FunctionDef,
                     bound: dict[str, list[tuple[cst.FunctionDef, Optional[cst.BaseExpression]]]],
                     local: dict[str, list[cst.BaseExpression]], torch: TorchNames,
                     registered: set[str]) -> dict[str, cst.Call]:
    """The plain attributes of a module class that only its `__init__` binds, once, each to a factory's host
    tensor (`self.pe = torch.zeros(n, d)`, `self.mask = torch.tril(...)` through `.unsqueeze(0)`, or through a
    name `__init__` binds once to one): the factory, by attribute. `bound`: each binding of `self.<attr>` in the
    class's methods, with its method and value (None for `+=`); `local`: `__init__`'s bindings of plain names, as
    `ModuleFacts` reads them. None registered as a buffer or parameter (`registered`)."""
    found = {}
    for attribute, bindings in bound.items():
        if attribute in registered or len(bindings) != 1 or bindings[0][0] is not init or bindings[0][1] is None:
            continue
        value = _under_same_place_methods(bindings[0][1])
        if type(value) is cst.Name and len(local.get(value.value, [])) == 1:
            value = _under_same_place_methods(local[value.value][0])
        name = cpu_factory_name(value, torch) if type(value) is cst.Call else None
        if name is not None and keyword(value, "generator") is None and not _is_placeholder(name, positional(value)):  # type: ignore
            found[attribute] = value
    return found  # type: ignore[return-value]


def accumulated_attributes(cls: cst.ClassDef, torch: TorchNames) -> dict[str, tuple[cst.Call, ...]]:
    """The attributes of a class that start as a factory's host tensor and are only ever grown by
    concatenation onto themselves (`self.losses = torch.tensor([])` in one method, `self.losses =
    torch.cat([self.losses, loss])` in another): their starts, by attribute. Such a start is where the
    attribute is on every path into the first concatenation: nothing moves a plain attribute (neither an
    object, nor `Module.to()`, which moves parameters and buffers), and `torch.cat` checks the device of
    every tensor it is given, empty ones too. Every binding of the attribute in the class must be one of
    the two (a start, or a concatenation that holds the attribute itself, through casts and dtype-only
    moves); anything else (`self.x = self.x.to(d)`, `self.x += y`, a tuple target, `self.x.data = ...`,
    `setattr`, a start given `device=`), a registered buffer or state, or a class that moves things itself
    (`_apply`, `to`, `cuda`) leaves the attribute out."""
    if not isinstance(cls.body, cst.IndentedBlock) or any(
            isinstance(s, cst.FunctionDef) and s.name.value in ("_apply", "to", "cuda") for s in cls.body.body):
        return {}
    starts: dict[str, list[cst.Call]] = {}
    grown: set[str] = set()
    spoiled: set[str] = set()
    for node in nodes(cls):
        if isinstance(node, cst.Call) and isinstance(node.func, (cst.Attribute, cst.Name)):
            called = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value
            if called in ("register_buffer", "register_parameter", "add_state", "setattr", "register_state"):
                spoiled.update(arg.value.raw_value for arg in node.args if isinstance(arg.value, cst.SimpleString))
            continue
        if isinstance(node, cst.Assign):
            targets = [target.target for target in node.targets]
            value: Optional[cst.BaseExpression] = node.value
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets, value = [node.target], node.value if isinstance(node, cst.AnnAssign) else None
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets, value = [node.target], None
        elif isinstance(node, cst.AsName):
            targets, value = [node.name], None
        elif isinstance(node, cst.Del):
            targets, value = [node.target], None
        else:
            continue
        for target in targets:
            for attribute, whole in _self_attributes_bound(target):
                if not whole or value is None or len(targets) != 1:
                    spoiled.add(attribute)
                    continue
                bound = _under_same_place_methods(value, torch)
                if isinstance(bound, cst.Call) and _concatenates_itself(bound, attribute, torch):
                    grown.add(attribute)
                elif isinstance(bound, cst.Call) and cpu_factory_name(bound, torch) is not None and (
                        keyword(bound, "generator") is None):
                    starts.setdefault(attribute, []).append(bound)
                else:
                    spoiled.add(attribute)
    return {attribute: tuple(calls) for attribute, calls in starts.items()
            if attribute in grown and attribute not in spoiled}


def _self_attributes_bound(target: cst.BaseExpression) -> Iterable[tuple[str, bool]]:
    """(attribute, bound as a whole) for each `self.<attribute>` a target binds: as a whole (`self.x = ...`),
    inside a tuple or list target, or through it (`self.x.data = ...`; `self.x[i] = ...` writes into it)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            for attribute, _ in _self_attributes_bound(element.value):
                yield attribute, False
    elif isinstance(target, cst.StarredElement):
        for attribute, _ in _self_attributes_bound(target.value):
            yield attribute, False
    elif isinstance(target, cst.Attribute):
        if isinstance(target.value, cst.Name) and target.value.value == "self":
            yield target.attr.value, True
        elif isinstance(target.value, cst.Attribute) and isinstance(target.value.value, cst.Name) and (
                target.value.value.value == "self"):
            yield target.value.attr.value, False


def _concatenates_itself(call: cst.Call, attribute: str, torch: TorchNames) -> bool:
    """`torch.cat([self.<attribute>, ...])`, or another of PyTorch's concatenations, given the attribute as it is."""
    if torch.qualify(call.func) not in _CONCATENATED:
        return False
    args = positional(call)
    return bool(args) and isinstance(args[0].value, (cst.List, cst.Tuple)) and any(
        isinstance(e.value, cst.Attribute) and isinstance(e.value.value, cst.Name) and e.value.value.value == "self"
        and e.value.attr.value == attribute for e in args[0].value.elements)


def _under_same_place_methods(expr: cst.BaseExpression, torch: Optional[TorchNames] = None) -> cst.BaseExpression:
    """The call under casts, views and element-wise methods (`pe.unsqueeze(0)`); given `torch`, under moves to a
    dtype only too (`torch.cat([...]).to(x.dtype)`)."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and (
            expr.func.attr.value in _SAME_PLACE_METHODS
            or torch is not None and expr.func.attr.value == "to" and is_dtype_only_move(expr, torch)):
        expr = expr.func.value
    return expr


def _layers_of_a_module_by_shape(cls: cst.ClassDef, classes: ClassTable) -> set[str]:
    """A class whose base is defined in another file and whose `forward` calls `self.<layer>(...)`, a layer
    that is no method of the class: a module by its shape. Its layers (empty when it is none)."""
    bases = [dotted_name(arg.value) for arg in cls.bases if arg.keyword is None]
    if not bases or any(base is None or base in classes.classes or base in ("object", "ABC", "Protocol")
                        for base in bases):
        return set()
    methods = {s.name.value for s in cls.body.body if isinstance(s, cst.FunctionDef)}
    if "forward" not in methods:
        return set()
    forward = next(s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward")
    layers = set()
    for node in _walk_own(forward.body):
        if type(node) is cst.Call and type(node.func) is cst.Attribute:
            receiver = node.func.value
            if type(receiver) is cst.Name and receiver.value == "self" and node.func.attr.value not in methods:
                layers.add(node.func.attr.value)
    return layers


def _binds_parameters(cls: cst.ClassDef, torch: TorchNames) -> bool:
    """`self.<attr> = nn.Parameter(...)` in the class, or `self.register_buffer(...)` / `register_parameter`."""
    for node in nodes(cls):
        if type(node) is cst.Assign and type(node.value) is cst.Call and any(
                type(t.target) is cst.Attribute and type(t.target.value) is cst.Name
                and t.target.value.value == "self" for t in node.targets):
            if (torch.qualify(node.value.func) or "") in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                return True
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and type(
                node.func.value) is cst.Name and node.func.value.value == "self" and node.func.attr.value in (
                "register_buffer", "register_parameter"):
            return True
    return False


def _places_its_inputs(cls: Optional[cst.ClassDef], torch: TorchNames) -> bool:
    """Does the class's `forward` move one of its parameters (`frame_indices.to(device=device)`)?"""
    forward = next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "forward"),
                   None) if cls is not None else None
    if forward is None:
        return False
    params = {p.name.value for p in forward.params.params}
    for node in _walk_own(forward.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MOVES:
            receiver = node.func.value
            if isinstance(receiver, cst.Name) and receiver.value in params and not (
                    node.func.attr.value == "to" and is_dtype_only_move(node, torch)):
                return True
    return False


def _holds_parameters(cls: Optional[cst.ClassDef], classes: ClassTable, torch: TorchNames,
                      depth: int = 0, seen: Optional[set[str]] = None) -> bool:
    """Does a Module class of the file show parameters or buffers of its own (or a layer with some)?
    `seen`: the classes being asked already (a cycle answers no)."""
    if cls is None or depth > 3:
        return False
    seen = set() if seen is None else seen
    if cls.name.value in seen:
        return False
    seen.add(cls.name.value)
    for node in nodes(cls):
        if isinstance(node, cst.Call):
            full = torch.qualify(node.func) or ""
            if full in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                return True
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("register_buffer",
                                                                                 "register_parameter"):
                return True
            last = full.rsplit(".", 1)[-1]
            if full.startswith("torch.nn.") and last[:1].isupper() and last not in _PARAMETERLESS and (
                    "Loss" not in last):
                return True
            if isinstance(node.func, cst.Name) and node.func.value != cls.name.value and (
                    classes.is_module_class(node.func.value)):
                if _holds_parameters(classes.classes.get(node.func.value), classes, torch, depth + 1, seen):
                    return True
    for base in cls.bases:
        full = torch.qualify(base.value) or ""
        if full.startswith("torch.nn.") and full.rsplit(".", 1)[-1] not in ("Module", *_PARAMETERLESS):
            return True
    return False


def _walk_own(root: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """The nodes of a function's body, without nested functions, classes and lambdas."""
    stack = list(children(root))
    while stack:
        node = stack.pop()
        yield node
        kind = type(node)
        if kind is not cst.FunctionDef and kind is not cst.ClassDef and kind is not cst.Lambda:
            stack.extend(children(node))


def tensor_parameters(function: cst.FunctionDef,
                      own: Optional[list[cst.CSTNode]] = None) -> tuple[set[str], set[str]]:
    """The parameters the function shows to be tensors, and never shows to be Python containers;
    and the names it shows to be sequences (iterated, `len()`-ed, bound to a list). `own`: the nodes of its body
    (`_walk_own`), where the caller has them."""
    own = list(_walk_own(function.body)) if own is None else own
    names = {name: p for name, p in named_parameters(function).items() if name not in ("self", "cls")}
    shown: set[str] = set()
    refused: set[str] = set()
    sequences: set[str] = set()
    for name, param in names.items():
        if param.annotation is not None:
            text = code_of(param.annotation.annotation)
            if any(word in text for word in _NOT_TENSOR_ANNOTATION) and "Tensor]" not in text.replace(" ", "")[-7:]:
                refused.add(name)
                if any(word in text for word in _SEQUENCE_ANNOTATION):
                    sequences.add(name)
            if "Tensor" in text and not any(f"{word}[" in text for word in _NOT_TENSOR_ANNOTATION):
                shown.add(name)
    listed: set[str] = set()  # bound to a list or tuple: sequences even where also shown as tensors
    normalised = _arrays_made_tensors(function, names, own)
    shown.update(normalised.values())
    for node in own:
        kind = type(node)  # exact types: LibCST's node classes are never subclassed, and isinstance is slow
        if kind is cst.Call and id(node) in normalised:
            continue  # `if isinstance(x, np.ndarray): x = torch.from_numpy(x)`: a tensor either way
        if kind is cst.Attribute:
            if type(node.value) is cst.Name and node.value.value in names:
                attr = node.attr.value
                if attr in TENSOR_ATTRIBUTES or attr in TENSOR_ONLY_METHODS:
                    shown.add(node.value.value)
                elif attr in ("items", "keys", "values", "append", "extend", "get", "split", "format", "astype"):
                    refused.add(node.value.value)
        elif kind is cst.For or kind is cst.CompFor:
            if type(node.iter) is cst.Name:
                refused.add(node.iter.value)
                sequences.add(node.iter.value)
        elif kind is cst.Call:
            callee = dotted_name(node.func) or ""
            if _numpy_call(callee):
                refused.update(_names_given(node))  # NumPy data
            elif "." in callee and callee.rsplit(".", 1)[-1] in _DATA_CONSTRUCTORS and node.args \
                    and type(node.args[0].value) is cst.Name:
                refused.add(node.args[0].value.value)  # `torch.tensor(xs)`: data (lists, numbers) made a tensor
            elif type(node.func) is cst.Name and callee in (
                    "len", "list", "tuple", "zip", "enumerate", "dict", "sorted", "isinstance"):
                for arg in node.args:
                    if type(arg.value) is cst.Name and callee != "isinstance":
                        if callee != "len":  # a tensor has a length too: `len(x)` refuses nothing shown
                            refused.add(arg.value.value)
                        sequences.add(arg.value.value)
        elif kind is cst.Subscript:
            if type(node.value) is cst.Name and node.value.value in names:
                element = node.slice[0].slice if len(node.slice) == 1 else None
                if type(element) is cst.Index and type(element.value) is cst.SimpleString:
                    refused.add(node.value.value)  # `batch["x"]`
        elif kind is cst.Assign and type(node.value) in (cst.List, cst.ListComp, cst.Tuple):
            listed.update(n for t in node.targets for n in _target_names(t.target))
    sequences = (sequences - shown) | listed
    return shown - refused, sequences


def _numpy_call(callee: str) -> bool:
    """`np.asarray`, `numpy.stack`, `torch.from_numpy`: what it is given is a NumPy array, not a tensor."""
    return callee.startswith(("np.", "numpy.")) or callee.endswith("from_numpy")


def _names_given(call: cst.Call) -> list[str]:
    return [arg.value.value for arg in call.args if type(arg.value) is cst.Name]


def _numpy_data(own: list[cst.CSTNode]) -> set[str]:
    """The names given to NumPy (`np.asarray(p)`) or to `torch.from_numpy`: arrays, not tensors."""
    return {name for node in own if type(node) is cst.Call and _numpy_call(dotted_name(node.func) or "")
            for name in _names_given(node)}


def _arrays_made_tensors(function: cst.FunctionDef, names: "dict[str, cst.Param]",
                         own: Optional[list[cst.CSTNode]] = None) -> dict[int, str]:
    """`if isinstance(x, np.ndarray): x = torch.from_numpy(x)` (or `torch.tensor(x)`, `torch.as_tensor(x)`) of a
    parameter `x`: the function takes an array or a tensor and goes on with a tensor, the caller's own where it
    was given one. The conversion calls (by id), each with the parameter it converts."""
    found: dict[int, str] = {}
    for node in _walk_own(function.body) if own is None else own:
        if type(node) is not cst.If or type(node.test) is not cst.Call:
            continue
        test = node.test
        if dotted_name(test.func) != "isinstance" or len(test.args) != 2 or type(test.args[0].value) is not cst.Name:
            continue
        name = test.args[0].value.value
        if name not in names or "ndarray" not in (dotted_name(test.args[1].value) or ""):
            continue
        for statement in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
            for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
                value = small.value if type(small) is cst.Assign and len(small.targets) == 1 and type(
                    small.targets[0].target) is cst.Name and small.targets[0].target.value == name else None
                if (type(value) is cst.Call and value.args and type(value.args[0].value) is cst.Name
                        and value.args[0].value.value == name and (dotted_name(value.func) or "").rsplit(".", 1)[-1]
                        in ("from_numpy", "tensor", "as_tensor")):
                    found[id(value)] = name
    return found


def tensor_items(function: cst.FunctionDef, tensors: set[str], own: Optional[list[cst.CSTNode]] = None) -> set[str]:
    """The tensors the caller hands over inside a parameter: `batch["mask"]` and `data.x` (as written,
    quotes as in the source) where the function uses that very item as a tensor (`batch["mask"].float()`,
    `data.x.size(0)`), or every string key of a parameter annotated `Dict[str, Tensor]` (then the
    parameter's name followed by `[`); used so through a name bound to it (`ids = batch["ids"]`, `ids.size(0)`)
    too. Never of a parameter the function binds again, or of a tensor."""
    params = {name: p for name, p in named_parameters(function).items() if name not in ("self", "cls")}
    candidates = set(params) - tensors
    if not candidates:
        return set()
    found: set[str] = set()
    for name in candidates:
        annotation = params[name].annotation
        if annotation is not None:
            text = code_of(annotation.annotation).replace(" ", "")
            if text.startswith(("Dict[str,", "dict[str,")) and text.endswith("Tensor]"):
                found.add(f"{name}[")
    rebound: set[str] = set()
    aliases: dict[str, str] = {}  # `ids = batch["ids"]`: ids -> batch["ids"]
    shown: set[str] = set()  # names used as tensors
    for node in _walk_own(function.body) if own is None else own:
        kind = type(node)
        if kind is cst.Assign or kind is cst.AugAssign or kind is cst.AnnAssign:
            for target in (node.targets if kind is cst.Assign else [node]):
                rebound.update(_target_names(target.target))
            if kind is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
                item = _item_name(node.value, candidates)
                if item is not None:
                    aliases[node.targets[0].target.value] = item
        elif kind is cst.For or kind is cst.CompFor:
            rebound.update(_target_names(node.target))
        elif kind is cst.Attribute and (node.attr.value in TENSOR_ATTRIBUTES or node.attr.value in TENSOR_ONLY_METHODS):
            item = _item_name(node.value, candidates)
            if item is not None:
                found.add(item)
            elif type(node.value) is cst.Name:
                shown.add(node.value.value)
    found.update(aliases[name] for name in shown if name in aliases)
    return {item for item in found if item.split("[")[0].split(".")[0] not in rebound}


def tensor_results(function: cst.FunctionDef, own: Optional[list[cst.CSTNode]] = None) -> set[cst.Call]:
    """The calls in `function` whose result it uses as a torch tensor: with a method only a torch tensor has, on
    the call itself (`f(x).detach()`) or on the one name it is bound to (`adj = f(x)`, then `adj.size(1)`)."""
    bound: dict[str, list[cst.Call]] = {}
    shown: set[str] = set()
    found: set[cst.Call] = set()
    for node in _walk_own(function.body) if own is None else own:
        kind = type(node)
        if kind is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name and (
                type(node.value) is cst.Call):
            bound.setdefault(node.targets[0].target.value, []).append(node.value)
        elif kind is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in TORCH_ONLY_METHODS:
            receiver = node.func.value
            if type(receiver) is cst.Name:
                shown.add(receiver.value)
            elif type(receiver) is cst.Call:
                found.add(receiver)
    found.update(call for name in shown for call in bound.get(name, ()))
    return found


def _item_name(expr: cst.BaseExpression, params: set[str]) -> Optional[str]:
    """`batch["mask"]` / `data.x` of a parameter of `params`, as written; else None."""
    if type(expr) is cst.Subscript and type(expr.value) is cst.Name and expr.value.value in params:
        if len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
            key = expr.slice[0].slice.value
            if type(key) is cst.SimpleString:
                return f"{expr.value.value}[{key.value}]"
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value in params:
        attr = expr.attr.value
        if attr not in TENSOR_ATTRIBUTES and attr not in TENSOR_ONLY_METHODS and attr not in NON_TENSOR_METHODS:
            return f"{expr.value.value}.{attr}"
    return None


class FlowReader(ForwardReader[dict[str, Value]]):
    """Reads one function; `read()` gives its `FunctionFlow`."""

    def __init__(self, function: cst.FunctionDef, torch: TorchNames, module: ModuleFacts, *,
                 placed: bool = False, flags: "frozenset[str] | set[str]" = frozenset(), preview: bool = False,
                 outer: Optional[dict[str, Value]] = None, defined: "frozenset[str] | set[str]" = frozenset()) -> None:
        """`flags`: names the file binds to a CUDA availability check; `preview`: read the shapes that are
        not yet precise enough to report by default too (`PREVIEW_SHAPES`); `outer`: the host tensors of
        the enclosing function, by name, when `function` is a closure read as part of it; `defined`: the names
        of the functions and methods the file defines (what one returns is not taken on trust: `_output_of`)."""
        super().__init__()
        self.function = function
        self.torch = torch
        self.module = module
        self.placed = placed  # under `with torch.device(...)` / after set_default_device / in a CPU-only branch
        self.flags = flags
        self.preview = preview
        self.outer = outer or {}
        self.defined = defined
        self.flow = FunctionFlow()
        self.returns: list[Value] = []
        # beside each of `returns`, the values of its elements where it is a tuple written out (`return h, c`)
        self.returned_tuples: list[Optional[list[Value]]] = []
        own = list(_walk_own(function.body))  # read by the four questions below
        self.params, self.sequences = tensor_parameters(function, own)
        self.parameters = set(named_parameters(function)) - {"self", "cls"}
        self.items = tensor_items(function, self.params, own)
        self.flow.tensor_params = self.params
        self.own = own
        self._numpy_data: Optional[set[str]] = None  # `_numpy_data` of the function, when first asked
        self.filled: dict[cst.Call, str] = {}  # host buffers written from an input's tensor: the input
        self.filled_lists: set[cst.Call] = set()  # host tensors of a list given an input's tensors too
        self.steps_parameters: Optional[bool] = None  # reads `self.param_groups` (an optimizer's step); once asked
        self.keyed: set[str] = set()  # names of dicts with a value kept by key in `env` (`state["row"]`)
        self.tensor_results = tensor_results(function, own)

    def read(self) -> FunctionFlow:
        env: dict[str, Value] = dict(self.outer)
        env.update({name: Value(inputs=frozenset({name})) for name in self.params})
        for name in self.parameters - self.params:
            env.pop(name, None)  # a parameter hides the enclosing function's name
        self.suite(self.function.body, env)
        self._meet_returns()
        return self.flow

    def _returned_by(self, method: str) -> Value:
        """`self.factors()` of a method of the class whose every return is made of the module's own tensors
        (`self.lower.new_zeros(...)`, `self.weight.t()`): those tensors, on the module's device. The host
        tensors of the factories it makes and returns as they are (`return torch.zeros(n, self.hidden)`, in
        one branch or all): those, made on the CPU for this caller. NOTHING for anything else: a return made
        of the method's own inputs (the caller's arguments), or not read (a cycle of methods reads NOTHING
        for the call being read)."""
        function = self._other_method(method)
        return NOTHING if function is None else self._handed_over(self._read_returns(method, function))

    def _other_method(self, method: str) -> Optional[cst.FunctionDef]:
        """The class's plain method of that name, when it is not the function being read."""
        function = self.module.methods.get(method)
        return None if function is self.function else function

    def _returned_elements(self, expr: cst.BaseExpression, count: int) -> Optional[list[Value]]:
        """`h, c = self.init_state(n)` of a method whose every return is a tuple of `count` written out: what
        each position may hold of the host factories it makes (`_made_and_returned`); else None."""
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
                and isinstance(expr.func.value, cst.Name) and expr.func.value.value == "self"):
            return None
        method = expr.func.attr.value
        function = self._other_method(method)
        if function is None:
            return None
        self._read_returns(method, function)
        elements = self.module.returned_elements.get(method)
        if elements is None or len(elements) != count:
            return None
        return [self._handed_over(element) for element in elements]

    def _handed_over(self, value: Value) -> Value:
        """What a method returns, as this function gets it: its host factories are reported here if they meet."""
        if not value.host:
            return value
        if self.placed:
            return replace(value, host=frozenset(), wide=frozenset())  # made where no device is in use
        for call in value.host:
            name, maker = self.module.returned_factories[call]
            self.flow.factories.setdefault(call, name)
            self.flow.returned_by.setdefault(call, maker)
        return value

    def _read_returns(self, method: str, function: cst.FunctionDef) -> Value:
        if method not in self.module.returned:
            if self.module.reading >= _METHOD_DEPTH:
                return NOTHING  # (not kept: read from a shallower call, it may say more)
            self.module.returned[method] = NOTHING  # (while it is read: a cycle back here reads NOTHING)
            self.module.reading += 1
            try:
                reader = FlowReader(function, self.torch, self.module, flags=self.flags, preview=self.preview,
                                    defined=self.defined)
                reader.read()
            finally:
                self.module.reading -= 1
            self.module.returned[method] = _of_the_module(reader.returns) | self._made_and_returned(method, reader)
        return self.module.returned[method]

    def _made_and_returned(self, method: str, reader: "FlowReader") -> Value:
        """The host factories `method` (read by `reader`) makes, or gets from another method, and returns
        unmoved and unmixed (`if h is None: h = torch.zeros(...)`, `return h`): what the caller is handed.
        A tuple written out (`return x, idx, mask`) hands over nothing as a whole; where every return is one
        of the same length, what each position holds is kept for a caller that unpacks it
        (`ModuleFacts.returned_elements`)."""
        flow = reader.flow

        def made(values: list[Value]) -> Value:
            host: set[cst.Call] = set()
            wide: set[cst.Call] = set()
            is_list = False
            for value in values:
                mine = {call for call in value.host if call in flow.factories and call not in flow.moved
                        and call not in flow.meets_cpu and call not in flow.attributes and call not in flow.meetings}
                host |= mine
                wide |= mine & value.wide
                is_list = is_list or (value.is_list and bool(mine))
            for call in host:
                maker = flow.returned_by.get(call, method)
                self.module.returned_factories.setdefault(call, (flow.factories[call], maker))
            return Value(host=frozenset(host), wide=frozenset(wide), is_list=is_list) if host else NOTHING

        tuples = reader.returned_tuples
        lengths = {len(elements) for elements in tuples if elements is not None}
        if tuples and all(elements is not None for elements in tuples) and len(lengths) == 1:
            positions = [made([elements[i] for elements in tuples if elements is not None])  # type: ignore[index]
                         for i in range(lengths.pop())]
            if any(position.host for position in positions):
                self.module.returned_elements[method] = positions
        return made([value for value, elements in zip(reader.returns, tuples) if elements is None])

    def _host_attribute(self, attribute: str, call: cst.Call) -> Value:
        """`self.pe` of a module whose `__init__` bound it to `torch.zeros(...)`: that factory's host tensor,
        wherever the module was moved (reported at the factory, in `__init__`)."""
        name = cpu_factory_name(call, self.torch) or "tensor"
        self.flow.factories.setdefault(call, name)
        self.flow.attributes[call] = attribute
        wide = frozenset() if _is_scalar(call, name, positional(call), set()) else frozenset({call})
        return Value(host=frozenset({call}), wide=wide)

    def _accumulator(self, attribute: str, starts: tuple[cst.Call, ...]) -> Value:
        """`self.losses` of a class that starts it as a host tensor and only concatenates onto it: the starts'
        host tensors, reported where they are concatenated with an input's (at the start, in its method)."""
        for call in starts:
            self.flow.factories.setdefault(call, cpu_factory_name(call, self.torch) or "tensor")
            self.flow.accumulators[call] = attribute
            self.flow.placeholders.add(call)
        return Value(host=frozenset(starts), wide=frozenset(starts))

    # -- statements (the skeleton: analysis/forward.py) --------------------------------
    def if_statement(self, node: cst.If, env: dict[str, Value]) -> None:
        self._expr(node.test, env)
        body_on_host, else_on_host = self._host_only_branches(node.test)
        then = dict(env)
        if not _never_true(node.test):
            self._read_placed(body_on_host, lambda: self.suite(node.body, then))
        other = dict(env)
        if node.orelse is not None:
            self._read_placed(else_on_host, lambda: self.orelse(node, other))
        _merge(env, then, other)

    def definition(self, node: cst.FunctionDef | cst.ClassDef, env: dict[str, Value]) -> None:
        # nested functions and classes are read on their own (a closure also with this function's host tensors)
        if type(node) is cst.FunctionDef and not self.outer:
            self._closure(node, env)

    def loop(self, node: cst.For | cst.While, env: dict[str, Value]) -> None:
        if type(node) is cst.For:
            source = self._expr(node.iter, env)
            element = _element(source)
            if source.host and not source.is_list:
                self.flow.host_used |= set(source.host)  # a tensor iterated on the host
            for name in _target_names(node.target):
                env[name] = element
            for name in self._tensor_elements(node) | self._optimised_parameters(node):
                env[name] = Value(inputs=frozenset({name}))
        else:
            self._expr(node.test, env)
        with self.inside_loop() as rounds:
            for _ in rounds:
                before = dict(env)
                self.suite(node.body, env)
                _merge(env, before, env)
        if node.orelse is not None:
            self.suite(node.orelse.body, env)

    def with_statement(self, node: cst.With, env: dict[str, Value]) -> None:
        for item in node.items:
            self._expr(item.item, env)
        self.suite(node.body, env)

    def try_statement(self, node: cst.Try, env: dict[str, Value]) -> None:
        self.suite(node.body, env)
        for handler in node.handlers:
            self.suite(handler.body, env)
        if node.orelse is not None:
            self.suite(node.orelse.body, env)
        if node.finalbody is not None:
            self.suite(node.finalbody.body, env)

    def _host_only_branches(self, test: cst.BaseExpression) -> tuple[bool, bool]:
        """(the body of `if test` runs only without CUDA, its `else` does): the other branch of an
        availability test (`if torch.cuda.is_available(): ... else: <CPU path>`, devlint/analysis/guards.py)."""
        body_on_cuda, else_on_cuda = guarded_branches(test, self.flags)
        return else_on_cuda and not body_on_cuda, body_on_cuda and not else_on_cuda

    def _read_placed(self, on_host_only: bool, read):  # type: ignore[no-untyped-def]
        """Read a branch (what `read()` gives); one that runs only without CUDA makes no tensor that could
        meet a device's."""
        if not on_host_only or self.placed:
            return read()
        self.placed = True
        try:
            return read()
        finally:
            self.placed = False

    def _closure(self, nested: cst.FunctionDef, env: dict[str, Value]) -> None:
        """A nested function's tensor parameters meeting this function's host tensors (`w = torch.ones(n)`,
        `def inner(x): return x @ w`): read it with them; what it records of this function's factories counts."""
        hosts = {name: value for name, value in env.items() if value.host and not value.inputs}
        if not hosts:
            return
        inner = FlowReader(nested, self.torch, self.module, placed=self.placed, flags=self.flags,
                           preview=self.preview, outer=hosts, defined=self.defined)
        inner.flow.factories = dict(self.flow.factories)  # its own are read on their own
        flow = inner.read()
        mine = set().union(*(value.host for value in hosts.values()))
        for call in mine:
            for meeting in flow.meetings.get(call, []):
                self.flow.meetings.setdefault(call, []).append(meeting)
        self.flow.moved |= flow.moved & mine
        self.flow.host_used |= flow.host_used & mine
        self.flow.meets_cpu |= flow.meets_cpu & mine

    def _tensor_elements(self, loop: cst.For) -> set[str]:
        """`for p, t in zip(preds, targets): ... p.numel()` (or `F.mse_loss(p, t)`): the elements of the caller's
        sequences that the loop uses as tensors are inputs too (on the caller's device). Not fix sources: they
        are not parameters."""
        iterated = loop.iter
        while type(iterated) is cst.Call and dotted_name(iterated.func) in LOOP_WRAPPERS:
            names = [arg.value for arg in iterated.args]
            if dotted_name(iterated.func) == "zip":
                if not all(type(name) is cst.Name and name.value in self.parameters for name in names):
                    return set()
                break
            iterated = names[0] if names else None
        else:
            if not (type(iterated) is cst.Name and iterated.value in self.parameters):
                return set()
        targets = set(_target_names(loop.target))
        shown: set[str] = set()
        for node in _walk_own(loop.body):
            if type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value in targets:
                if node.attr.value == "device":
                    shown.add(node.value.value)
            elif type(node) is cst.Call and type(node.func) is cst.Attribute and type(
                    node.func.value) is cst.Name and node.func.value.value in targets:
                if node.func.attr.value in _ELEMENT_TENSOR_METHODS:
                    shown.add(node.func.value.value)
            full = (self.torch.qualify(node.func) or "") if type(node) is cst.Call else ""
            if full.startswith("torch.nn.functional.") and full.rsplit(".", 1)[-1] in SAME_DEVICE_FUNCTIONAL:
                # `F.mse_loss(out, t)`: a functional that takes several tensors refuses anything else
                shown.update(arg.value.value for arg in positional(node)[:2]  # type: ignore[arg-type]
                             if type(arg.value) is cst.Name and arg.value.value in targets)
        return shown

    def _optimised_parameters(self, loop: cst.For) -> set[str]:
        """`for p in group["params"]` in a function that reads `self.param_groups`: the parameters an
        optimizer steps, on the model's device (their gradients and state go with them)."""
        if not (isinstance(loop.target, cst.Name) and _constant_key(loop.iter) == "params"):
            return set()
        if self.steps_parameters is None:
            self.steps_parameters = any(
                isinstance(node, cst.Attribute) and node.attr.value == "param_groups" and isinstance(
                    node.value, cst.Name) and node.value.value == "self" for node in _walk_own(self.function.body))
        return {loop.target.value} if self.steps_parameters else set()

    def small(self, node: cst.BaseSmallStatement, env: dict[str, Value]) -> None:
        if type(node) is cst.Assign:
            value = self._expr(node.value, env)
            for target in node.targets:
                self._bind(target.target, node.value, value, env)
        elif type(node) is cst.AnnAssign and node.value is not None:
            self._bind(node.target, node.value, self._expr(node.value, env), env)
        elif type(node) is cst.AugAssign:
            left = self._expr(node.target, env)
            right = self._expr(node.value, env)
            self._binary(left, right, "arithmetic")
            if left.host and right.inputs and not left.is_list and not right.is_list:
                # `total += loss`: the host tensor is the output, and a CPU output takes no device input,
                # 0-dim or not (a 0-dim CPU tensor mixes with device tensors only as an input)
                self._meet(left, right, "an in-place operation into it", scalars_mix=False)
            if type(node.target) is cst.Name:
                env[node.target.value] = left | right
        elif type(node) is cst.Expr:
            self._expr(node.value, env)
        elif type(node) is cst.Return and node.value is not None:
            for path in _paths(node.value):
                if type(path) is cst.Tuple and len(path.elements) > 1 and not any(
                        type(element) is cst.StarredElement for element in path.elements):
                    elements = [self._expr(element.value, env) for element in path.elements]
                    self.returns.append(_combine_listed(elements))
                    self.returned_tuples.append(elements)
                else:
                    self.returns.append(self._expr(path, env))
                    self.returned_tuples.append(None)

    def _bind(self, target: cst.BaseExpression, expr: cst.BaseExpression, value: Value,
              env: dict[str, Value]) -> None:
        if isinstance(target, cst.Name):
            env[target.value] = value
            if target.value in self.keyed:  # another dict: its keys are not the old one's
                self.keyed.discard(target.value)
                for key in [key for key in env if key.startswith(f"{target.value}[")]:  # (every `_keyed` of it)
                    del env[key]
        elif isinstance(target, (cst.Tuple, cst.List)):
            if isinstance(expr, (cst.Tuple, cst.List)) and len(expr.elements) == len(target.elements):
                for element, part in zip(target.elements, expr.elements):
                    self._bind(element.value, part.value, self._expr(part.value, env), env)
                return
            if not any(isinstance(element, cst.StarredElement) for element in target.elements):
                elements = self._returned_elements(expr, len(target.elements))
                if elements is not None:  # `x, idx, mask = self.split(x)`: each name what its position holds
                    for element, part in zip(target.elements, elements):
                        self._bind(element.value, element.value, part | _other_than_host(value), env)
                    return
            element = replace(value, is_list=False)
            for name in _target_names(target):
                env[name] = element
        elif isinstance(target, cst.Subscript):
            self._store(target, value, env)

    def _store(self, target: cst.Subscript, value: Value, env: dict[str, Value]) -> None:
        """`out[k] = v`. Basic indexing copies across devices (`buf[a:b] = x`, `x[:, 0] = host`), but an
        advanced index (a tensor, a mask) takes `v` where `out` is: a host `v` with dimensions raises. A
        host buffer written from an input's tensor is remembered: if it leaves the function as it is,
        the caller gets a CPU tensor (`_meet_returns`)."""
        into = self._expr(target.value, env)
        key = _constant_key(target)
        if key is not None and isinstance(target.value, cst.Name) and not (into.host or into.inputs or into.is_list):
            # `state["row"] = torch.zeros(n)` into a dict: kept by its key, read back as it was stored
            env[_keyed(target.value.value, key)] = value
            self.keyed.add(target.value.value)
            return
        advanced = any(index is not None and (index.host or index.inputs or index.on_cpu)
                       for index in self._indexes(target, env))
        if into.is_list:
            if self.preview and value.inputs and into.host and isinstance(target.value, cst.Name):
                # a list of host tensors given the input's tensors too (PREVIEW_SHAPES)
                env[target.value.value] = into | replace(value, is_list=True)
                self.filled_lists |= set(into.wide)
            return
        if advanced and into.inputs and not value.is_list:
            self._meet(value, into, f"an indexed assignment into `{_code(target.value)}`")
        if into.wide and value.inputs and not value.on_cpu:
            for call in into.wide:
                self.filled.setdefault(call, sorted(value.inputs)[0])

    # -- expressions -----------------------------------------------------------------
    def _expr(self, node: cst.BaseExpression, env: dict[str, Value]) -> Value:
        if type(node) is cst.Name:
            return env.get(node.value, NOTHING)
        if type(node) is cst.Attribute:
            if self.items and self._item(node) is not None:
                return Value(inputs=frozenset({self._item(node)}))
            if type(node.value) is cst.Name and node.value.value == "self":
                if node.attr.value in self.module.tensors:
                    return Value(inputs=frozenset({f"self.{node.attr.value}"}))
                call = self.module.host_attributes.get(node.attr.value)
                if call is not None and self.function.name.value != "__init__":
                    return self._host_attribute(node.attr.value, call)
                starts = self.module.accumulated.get(node.attr.value)
                if starts and self.function.name.value != "__init__":
                    return self._accumulator(node.attr.value, starts)
                return NOTHING
            inner = self._expr(node.value, env)
            return inner if node.attr.value in PLACED_ATTRIBUTES else NOTHING
        if type(node) is cst.Subscript:
            return self._subscript(node, env)
        if type(node) is cst.BinaryOperation:
            left, right = self._expr(node.left, env), self._expr(node.right, env)
            if left.is_list and right.is_list:
                return left | right  # `[x] + hs`: one list holding both
            self._binary(left, right, "matmul" if type(node.operator) is cst.MatrixMultiply else "arithmetic")
            return _combine([left, right])
        if type(node) is cst.Comparison:
            values = [self._expr(node.left, env)] + [self._expr(c.comparator, env) for c in node.comparisons]
            if any(type(c.operator) in (cst.In, cst.NotIn, cst.Is, cst.IsNot) for c in node.comparisons):
                return NOTHING
            for left, right in zip(values, values[1:]):
                self._binary(left, right, "a comparison")
            return _combine(values)
        if type(node) is cst.UnaryOperation:
            value = self._expr(node.expression, env)
            return NOTHING if type(node.operator) is cst.Not else value
        if type(node) is cst.BooleanOperation:
            self._expr(node.left, env)
            self._expr(node.right, env)
            return NOTHING  # truth tests: Python bools (or one operand; not followed)
        if type(node) is cst.IfExp:
            self._expr(node.test, env)
            body_on_host, else_on_host = self._host_only_branches(node.test)
            return (self._read_placed(body_on_host, lambda: self._expr(node.body, env))
                    | self._read_placed(else_on_host, lambda: self._expr(node.orelse, env)))
        if type(node) in (cst.List, cst.Tuple):
            return _combine_listed([self._expr(element.value, env) for element in node.elements])
        if type(node) is cst.StarredElement:
            return self._expr(node.value, env)
        if type(node) in (cst.ListComp, cst.GeneratorExp):
            inner = dict(env)
            loop: Optional[cst.CompFor] = node.for_in
            while loop is not None:
                source = self._expr(loop.iter, inner)
                for name in _target_names(loop.target):
                    inner[name] = _element(source)
                loop = loop.inner_for_in
            value = self._expr(node.elt, inner)
            return replace(value, is_list=True)
        if type(node) is cst.Call:
            return self._call(node, env)
        return NOTHING

    def _indexes(self, node: cst.Subscript, env: dict[str, Value]) -> list[Optional[Value]]:
        """The value of each index of a subscript; None for a slice (its bounds are numbers: host uses)."""
        found: list[Optional[Value]] = []
        for element in node.slice:
            part = element.slice
            if isinstance(part, cst.Index):
                found.append(self._expr(part.value, env))
                continue
            found.append(None)
            for bound in (part.lower, part.upper, part.step):
                if bound is not None:
                    self.flow.host_used |= set(self._expr(bound, env).host)
        return found

    def _item(self, node: cst.BaseExpression) -> Optional[str]:
        """`batch["mask"]`, `data.x`: an input's tensor inside a parameter (`tensor_items`), or None."""
        item = _item_name(node, self.parameters)
        if item is None or (item not in self.items and f"{item.split('[')[0]}[" not in self.items):
            return None
        return item

    def _subscript(self, node: cst.Subscript, env: dict[str, Value]) -> Value:
        if self.items and self._item(node) is not None:
            return Value(inputs=frozenset({self._item(node)}))
        if self.keyed and isinstance(node.value, cst.Name) and node.value.value in self.keyed:
            key = _constant_key(node)
            if key is not None and _keyed(node.value.value, key) in env:
                return env[_keyed(node.value.value, key)]
        value = self._expr(node.value, env)
        scalar_index = True
        for element, index in zip(node.slice, self._indexes(node, env)):
            part = element.slice
            if index is not None and isinstance(part, cst.Index):
                if value.wide and index.inputs and not value.is_list and not index.is_list and not index.on_cpu:
                    # a host tensor indexed by a device's index: "indices should be either on cpu or on the
                    # same device as the indexed tensor"
                    self._meet(value, index, f"the subscript `{_code(node)}`")
                if index.host:
                    # an index, never a device mix (PyTorch accepts CPU indices); a number as an index is
                    # a host use of a random draw
                    if index.scalar:
                        self.flow.host_used |= set(index.host)
                if isinstance(part.value, (cst.Name, cst.Integer, cst.UnaryOperation, cst.BinaryOperation)) and (
                        not index.host and not index.inputs):
                    continue
                scalar_index = False
            else:
                scalar_index = False
        if value.is_list:
            return replace(value, is_list=False)
        if value.host and scalar_index:
            return replace(value, wide=frozenset())  # maybe one element: 0-dim
        return value

    def _binary(self, left: Value, right: Value, where: str) -> None:
        if left == right:
            return  # one name that is either a host tensor or an input's, never both at once
        for host, other in ((left, right), (right, left)):
            if host.is_list or other.is_list:
                continue
            if host.wide and other.inputs:
                self._meet(host, other, where)
            if host.host and other.on_cpu and not other.inputs:
                self.flow.meets_cpu |= set(host.host)
            if host.host and other.host:
                # two host tensors: moving one to a device (a fix) breaks this unless the other is 0-dim
                self.flow.host_pairs |= {(a, b, b in other.wide) for a in host.host for b in other.host if a is not b}

    def _meet(self, host: Value, other: Value, where: str, *, scalars_mix: bool = True) -> None:
        roots = tuple(sorted(other.inputs))
        for call in host.wide if scalars_mix else host.host:
            self.flow.meetings.setdefault(call, []).append(Meeting(call, roots[0], where, roots))
        if other.on_cpu:
            self.flow.meets_cpu |= set(host.host)

    def _join(self, values: list[Value], where: str, scalars_mix: bool, strict: tuple[Value, ...] = ()) -> None:
        """Tensors given to one operation that needs them on one device (the elements of a list
        literal given separately). A list built by `append` may hold both kinds itself. `strict`: the
        values given as an index or mask, where a 0-dim CPU tensor is refused too."""
        inputs = [v for v in values if v.inputs]
        cpu = any(v.on_cpu and not v.inputs for v in values)
        hosts = [v for v in values if v.host]
        for value in hosts:
            for other in hosts:
                if other is not value and other != value:
                    self.flow.host_pairs |= {(a, b, True) for a in value.host for b in other.host if a is not b}
        for value in values:
            indexes = any(value is index for index in strict)
            mix = scalars_mix and not indexes
            if not value.host or (mix and value.scalar):
                continue
            if cpu:
                self.flow.meets_cpu |= set(value.host)
            others = [v for v in inputs if v != value] or ([value] if value.inputs and value.is_list else [])
            if others:
                met = Value(inputs=frozenset().union(*(v.inputs for v in others)))
                self._meet(value, met, f"{where} (as its index or mask)" if indexes else where, scalars_mix=mix)

    def _indices(self, node: cst.Call, name: str, values: list[Value], offset: int) -> tuple[Value, ...]:
        """The values of the call's index and mask arguments (torch/operations: `INDEX_ARGUMENTS`);
        `offset` 1 for a method (its receiver is the first argument)."""
        found = []
        for position, word in INDEX_ARGUMENTS.get(name, ()):
            for at, arg in enumerate(node.args):
                if (arg.keyword is not None and arg.keyword.value == word) or (
                        arg.keyword is None and not arg.star and at == position - offset):
                    found.append(values[at])
        return tuple(found)

    def _arguments(self, node: cst.Call, env: dict[str, Value], name: Optional[str] = None,
                   offset: int = 0) -> tuple[list[Value], list[Value]]:
        """The values of the arguments, and of the tensors they give (a list literal's elements one by one),
        but the indices of a subscript's own operation (`x.index_put_((idx,), v)`: CPU indices are fine);
        `name` and `offset` say which operation (`offset` 1 for a method, `_indices`)."""
        values, tensors = [], []
        skipped = SUBSCRIPT_INDICES.get(name, ()) if name is not None else ()
        for at, arg in enumerate(node.args):
            if any((arg.keyword is not None and arg.keyword.value == word) or (
                    arg.keyword is None and at == position - offset) for position, word in skipped):
                values.append(self._expr(arg.value, env))
                continue
            if isinstance(arg.value, (cst.List, cst.Tuple)) and not arg.star:
                elements = [self._expr(e.value, env) for e in arg.value.elements]
                tensors.extend(elements)
                value = Value(is_list=True)
                for element in elements:
                    value = value | element
                values.append(value)
            else:
                values.append(self._expr(arg.value, env))
                tensors.append(values[-1])
        return values, tensors

    def _call(self, node: cst.Call, env: dict[str, Value]) -> Value:
        func = node.func
        full = self.torch.qualify(func)
        if full is not None and full.startswith("torch."):
            return self._torch_call(node, full[6:], env)
        args, tensors = self._arguments(node, env, func.attr.value if type(func) is cst.Attribute else None, 1)
        if type(func) is cst.Attribute:
            method = func.attr.value
            receiver = func.value
            if type(receiver) is cst.Name and receiver.value == "self":
                if method in self.module.submodules:
                    for value in tensors:
                        if value.host:
                            others = [v for v in tensors if v.inputs and v != value]
                            parameters = Value(inputs=frozenset({f"the parameters of `self.{method}`"}))
                            self._meet(value, others[0] if others else parameters, f"a call of `self.{method}`",
                                       scalars_mix=False)
                    return Value(inputs=frozenset({f"the output of `self.{method}`"}))
                if method in self.module.called_layers:
                    return Value(inputs=frozenset({f"the output of `self.{method}`"}))
                # `self.loss_fn(out, y).detach()`: a callable the object holds
                return self._output_of(node, tensors) or self._returned_by(method)
            if (type(receiver) is cst.Call and type(receiver.func) is cst.Name
                    and receiver.func.value == "super" and method == "forward" and self.module.is_module):
                return Value(inputs=frozenset({"the output of `super().forward`"}))
            before = self._meeting_counts() if self._moves_to_a_device(node, method) else None
            value = self._expr(receiver, env)
            if before is not None and _computed_here(receiver, self.torch):
                # `x.index_select(0, idx).cuda()`: the code moves what the operation made to a device, so its
                # tensors were on the host, where the host tensor meets them (SentEval keeps its data there)
                self._forget_meetings_since(before)
            if not (value.host or value.inputs or value.on_cpu) and method in TENSOR_ONLY_METHODS and \
                    _arithmetic_of(receiver, self.parameters - self.sequences):
                # `(preds - target).abs()`: a tensor method of what the inputs make, so a tensor of the inputs
                # (as `preds.abs()` shows `preds` is one), wherever the caller's tensors are
                value = Value(inputs=frozenset({f"the tensor `{short(_code(receiver), 40)}`"}))
            output = None if value.host or value.inputs else self._output_of(node, tensors)
            if output is not None:
                return output  # `utils.to_dense_adj(edge_index)`: a function of another module
            if method == "append" and type(receiver) is cst.Name and args:
                env[receiver.value] = env.get(receiver.value, Value(is_list=True)) | replace(args[0], is_list=True)
                return NOTHING
            if method == "extend" and type(receiver) is cst.Name and args:
                env[receiver.value] = env.get(receiver.value, Value(is_list=True)) | args[0]
                return NOTHING
            if (method in _MOVES and not (method == "to" and is_dtype_only_move(node, self.torch))
                    or _takes_a_tensors_type(node)):
                self.flow.moved |= set(value.host)
                if method == "to" and value.host and _to_host(node):
                    return Value(on_cpu=True)
                return NOTHING
            if method in TO_HOST_METHODS:
                self.flow.moved |= set(value.host)
                return Value(on_cpu=True)
            if method in HOST_VALUE_METHODS:
                self.flow.host_used |= set(value.host)
                return NOTHING
            if method in NON_TENSOR_METHODS or value.is_list:
                return NOTHING
            if not value.host and not value.inputs and not value.on_cpu:
                return NOTHING
            if method in SAME_DEVICE_METHODS or method in JOINING or method in ELEMENTWISE:
                self._join([value, *tensors], f"`.{method}`", method not in NO_SCALARS,
                           self._indices(node, method, args, 1))
                return _combine([value, *tensors])
            return _combine([value])
        if type(func) is cst.Name and func.value in _HOST_BUILTINS:
            for value in args:
                self.flow.host_used |= set(value.host)
        return self._output_of(node, tensors) or NOTHING  # a plain function: it may place what it is given

    def _moves_to_a_device(self, node: cst.Call, method: str) -> bool:
        """`.cuda()`, `.to("cuda")`, `.to(device)`: not to a dtype, the host, or an input's device (`.to(x)`,
        `.to(x.device)`, which says nothing of where the value was)."""
        target = move_target(node, self.torch)  # (None: a dtype only, or the host)
        if target is None or target is node:  # (`node` itself: `.cuda()`)
            return target is node
        if isinstance(target, cst.IfExp):  # `"cuda" if torch.cuda.is_available() else device`
            target = target.body
        if isinstance(target, cst.SimpleString):
            return not is_host(target, self.torch)
        name = dotted_name(target)
        return name is not None and names_a_device(name) and not (
            "." in name and name.split(".")[0] in self.parameters)  # `x.device` of an input `x`

    def _meeting_counts(self) -> dict[cst.Call, int]:
        return {call: len(found) for call, found in self.flow.meetings.items()}

    def _forget_meetings_since(self, counts: dict[cst.Call, int]) -> None:
        for call in list(self.flow.meetings):
            kept = self.flow.meetings[call][:counts.get(call, 0)]
            if kept:
                self.flow.meetings[call] = kept
            else:
                del self.flow.meetings[call]

    def _output_of(self, node: cst.Call, tensors: list[Value]) -> Optional[Value]:
        """The result of a function the file does not define, given the caller's tensors (an input's tensor, or, in a
        module's method, one of the method's own parameters as it is: `to_dense_adj(edge_index)` in `forward`), where
        this function uses it as a torch tensor (`tensor_results`): computed from them, on their device. None
        otherwise; a function of the file is there to be read, and may build its result on the host."""
        name = node.func.value if isinstance(node.func, cst.Name) else node.func.attr.value if isinstance(
            node.func, cst.Attribute) else None
        if name is None or name in self.defined or node not in self.tensor_results:
            return None
        if any(value.inputs and not value.host for value in tensors) or self.module.is_module and any(
                type(arg.value) is cst.Name and arg.value.value in self.parameters for arg in node.args):
            return Value(inputs=frozenset({f"the output of `{short(_code(node.func), 40)}`"}))
        return None

    def _torch_call(self, node: cst.Call, name: str, env: dict[str, Value]) -> Value:
        args, tensors = self._arguments(node, env, name)
        device = keyword(node, "device")
        if device is not None and not is_host(device.value, self.torch) and factory_name(node, self.torch) is None:
            # `torch.sparse_coo_tensor(i, v, device=x.device)`: it places what it is given
            for value in tensors:
                self.flow.moved |= set(value.host)
            return NOTHING
        if name == "load":
            target = keyword(node, "map_location")
            return Value(on_cpu=True) if target is not None and is_host(target.value, self.torch) else NOTHING
        if name in LEGACY_CONSTRUCTORS:
            if legacy_constructor_name(node, self.torch) is None or self.placed:
                return NOTHING
            if args and (args[0].inputs or args[0].host or args[0].on_cpu):
                return _combine(args[:1])
            self.flow.factories.setdefault(node, name)
            return Value(host=frozenset({node}), wide=frozenset({node}))
        if name == "from_numpy":
            return Value(on_cpu=True)
        if factory_name(node, self.torch) is not None:
            if name in LIKE_FACTORIES:
                if device is not None:  # `torch.randint_like(idx, n, device=x.device)`: there, not where idx is
                    return Value(on_cpu=True) if is_host(device.value, self.torch) else NOTHING
                return _combine(args[:1])
            if cpu_factory_name(node, self.torch) is None or self.placed or keyword(node, "generator") is not None:
                if name in ("tensor", "as_tensor") and device is not None and not is_host(device.value, self.torch):
                    self.flow.moved |= set(args[0].host) if args else set()  # `torch.as_tensor(t, device=d)`
                return NOTHING
            data = positional(node)
            converted = self._converted_parameter(name, data, env)
            if converted is not None:
                root = f"the tensor `torch.as_tensor({converted})` makes of the caller's `{converted}`"
                self.flow.converted[root] = converted
                return Value(inputs=frozenset({root}))
            if name in ("tensor", "as_tensor") and args and (args[0].inputs or args[0].on_cpu):
                return Value(inputs=args[0].inputs, on_cpu=args[0].on_cpu)  # already a tensor: it follows it
            if name in ("tensor", "as_tensor") and data and _may_hold_a_tensor(data[0].value, env):
                return NOTHING  # `torch.as_tensor(self.m(x))`: perhaps a tensor already, wherever it is
            if _is_placeholder(name, data):
                # `torch.empty(0)`: an empty start value, replaced before any other use; but `torch.cat` checks the
                # device of every tensor it is given, empty ones too (`acc = torch.cat([acc, x])` raises on a GPU)
                self.flow.factories.setdefault(node, name)
                self.flow.placeholders.add(node)
                return Value(host=frozenset({node}), wide=frozenset({node}))
            for value in args[1:] if name in ("tensor", "as_tensor") else args:
                self.flow.host_used |= set(value.host)  # sizes
            self.flow.factories.setdefault(node, name)
            wide = frozenset() if _is_scalar(node, name, data, self.sequences) else frozenset({node})
            return Value(host=frozenset({node}), wide=wide)
        if name in _TORCH_NON_TENSOR or name.startswith(("cuda.", "distributed.", "backends.", "jit.", "utils.")):
            return NOTHING
        short = name.rsplit(".", 1)[-1]
        if name.startswith("nn.functional.") and short in SAME_DEVICE_FUNCTIONAL:
            self._join(tensors, f"torch.{name}", True)  # `F.cross_entropy(logits, torch.tensor(labels))`
        elif name in SAME_DEVICE_FUNCTIONS or short in JOINING or short in ELEMENTWISE:
            self._join(tensors, f"torch.{short}", short not in NO_SCALARS,
                       self._indices(node, name, args, 0) if name == short else ())
        return _combine(tensors)

    def _converted_parameter(self, name: str, data: list[cst.Arg], env: dict[str, Value]) -> Optional[str]:
        """`p` of `torch.as_tensor(p)` (no `device=`), a parameter not shown to be a tensor, a sequence or NumPy data,
        and not bound again: given a tensor, `as_tensor` returns it where it is (the caller's device); given a list
        or an array, a CPU tensor. Code that takes either goes on with the caller's tensor on the tensor path."""
        if name != "as_tensor" or len(data) != 1 or type(data[0].value) is not cst.Name:
            return None
        param = data[0].value.value
        if param not in self.parameters or param in self.params or param in self.sequences or param in env:
            return None
        if self._numpy_data is None:
            self._numpy_data = _numpy_data(self.own)
        return None if param in self._numpy_data else param

    def _meet_returns(self) -> None:
        """A host tensor returned where other paths return the input's tensors: the caller gets
        either device. A host buffer written from an input's tensor and returned as it is: the caller
        gets the input's data on the CPU."""
        if self.preview:
            for value in self.returns:
                for call in value.wide:
                    if call in self.filled:
                        source = self.filled[call] if " " in self.filled[call] else f"`{self.filled[call]}`"
                        where = f"a return (written from {source}, it stays on the CPU)"
                        self._meet(Value(host=frozenset({call}), wide=frozenset({call})),
                                   Value(inputs=frozenset({self.filled[call]})), where)
                if value.is_list and value.inputs and not value.host.isdisjoint(self.filled_lists):
                    listed = Value(host=value.host & self.filled_lists, wide=value.wide & self.filled_lists)
                    self._meet(listed, value, "a returned list that also holds the input's tensors")
        inputs = [v for v in self.returns if v.inputs and not v.host and not v.is_list]
        if not inputs:
            return
        for value in self.returns:
            if value.host and not value.inputs and not value.is_list:
                self._meet(value, inputs[0], "a return (other paths return the input's device)", scalars_mix=False)


def _computed_here(expr: cst.BaseExpression, torch: TorchNames) -> bool:
    """A tensor operation written here (a tensor method, a torch function, arithmetic), under `Variable(...)` and
    reshapes and casts: not a call of a function or a module, which may place what it returns."""
    while True:
        if type(expr) is cst.Call and (dotted_name(expr.func) or "").rsplit(".", 1)[-1] == "Variable" and expr.args:
            expr = expr.args[0].value
        elif (type(expr) is cst.Call and type(expr.func) is cst.Attribute
              and expr.func.attr.value in RESHAPING_METHODS | CAST_METHODS):
            expr = expr.func.value
        else:
            break
    if type(expr) is cst.BinaryOperation:
        return True
    if type(expr) is not cst.Call:
        return False
    full = torch.qualify(expr.func)
    if full is not None:
        return full.startswith("torch.")
    return type(expr.func) is cst.Attribute and (
        expr.func.attr.value in SAME_DEVICE_METHODS or expr.func.attr.value in JOINING
        or expr.func.attr.value in ELEMENTWISE)


def _arithmetic_of(expr: cst.BaseExpression, parameters: "set[str]") -> bool:
    """`preds - target`, `-(x * 2)`: arithmetic whose operands are the function's parameters and numbers only, one
    parameter at least."""
    leaves: list[cst.BaseExpression] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is cst.BinaryOperation and type(node.operator) is not cst.MatrixMultiply:
            stack.extend((node.left, node.right))
        elif type(node) is cst.UnaryOperation and type(node.operator) is not cst.Not:
            stack.append(node.expression)
        else:
            leaves.append(node)
    if len(leaves) < 2 and type(expr) is not cst.UnaryOperation:
        return False  # a name alone: `tensor_parameters` reads it
    names = [leaf.value for leaf in leaves if type(leaf) is cst.Name]
    return bool(names) and all(name in parameters for name in names) and all(
        type(leaf) is cst.Name or _is_number(leaf) for leaf in leaves)


def _of_the_module(returns: list[Value]) -> Value:
    """The module's tensors that every one of `returns` carries, when each carries only those."""
    if not returns or any(value.host or value.on_cpu or not value.inputs for value in returns):
        return NOTHING
    roots = frozenset().union(*(value.inputs for value in returns))
    if not all(root.startswith(("self.", "the output of `self.", "the parameters of `self.")) for root in roots):
        return NOTHING
    return Value(inputs=roots, is_list=any(value.is_list for value in returns))


def _other_than_host(value: Value) -> Value:
    """`value` without host factories: what a call gives beside them (the module's tensors, say)."""
    return replace(value, host=frozenset(), wide=frozenset(), is_list=False) if value.host or value.is_list else value


def _combine_listed(elements: list[Value]) -> Value:
    """The value of a list or tuple literal of `elements`."""
    result = Value(is_list=True)
    for element in elements:
        result = result | element
    return result


def _element(source: Value) -> Value:
    """What a loop over `source` binds: an element of a list of tensors is one of them (sizes kept); a
    row of a tensor, or of what is not shown to be a list, is taken as 0-dim (a number, often)."""
    if not source.host and not source.inputs:
        return NOTHING
    return Value(host=source.host, inputs=source.inputs, wide=source.wide if source.is_list else frozenset())


def _combine(values: list[Value]) -> Value:
    """The value of an operation on `values`: an operand that is only a host tensor ends up where the
    inputs are once another operand is an input's (or the operation failed, and was reported). An
    operand that is either (one name, two branches) stays either."""
    any_input = any(v.inputs for v in values)
    result = NOTHING
    for value in values:
        if any_input and value.host and not value.inputs:
            value = replace(value, host=frozenset(), wide=frozenset())
        result = result | value
    return replace(result, is_list=False) if result.is_list else result


def _may_hold_a_tensor(data: cst.BaseExpression, env: dict[str, Value]) -> bool:
    """Data that may already be a tensor: it names an input, or calls something with one, or `self`."""
    for node in nodes(data):
        if isinstance(node, cst.Name) and (node.value == "self" or env.get(node.value, NOTHING).inputs):
            return True
    return False


def _is_placeholder(name: str, args: list[cst.Arg]) -> bool:
    """`torch.empty(0)`, `torch.empty([0])`, `torch.zeros(0)`, `torch.tensor([])`: one empty dimension."""
    if len(args) != 1:
        return False
    value = args[0].value
    if name in ("tensor", "as_tensor"):
        return isinstance(value, (cst.List, cst.Tuple)) and not value.elements
    if isinstance(value, (cst.List, cst.Tuple)) and len(value.elements) == 1:
        value = value.elements[0].value
    return isinstance(value, cst.Integer) and value.value == "0"


def _to_host(call: cst.Call) -> bool:
    args = positional(call)
    target = keyword(call, "device")
    expr = target.value if target is not None else (args[0].value if args else None)
    return isinstance(expr, cst.SimpleString) and expr.raw_value.startswith("cpu")


def _is_scalar(call: cst.Call, name: str, args: list[cst.Arg], sequences: set[str]) -> bool:
    """A 0-dim tensor: `torch.tensor(0.5)`, `torch.tensor(n)` of a number, `torch.rand([])`."""
    if not args:
        return False
    value = args[0].value
    if name in ("tensor", "as_tensor", "scalar_tensor"):
        if isinstance(value, cst.Name) and value.value in sequences:
            return False
        return not isinstance(value, (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.Call, cst.Comparison,
                                      cst.Subscript)) or _is_number_call(value)
    return len(args) == 1 and isinstance(value, (cst.List, cst.Tuple)) and not value.elements


def _is_number(expr: cst.BaseExpression) -> bool:
    """`2`, `-1`, `0.5`."""
    if isinstance(expr, cst.UnaryOperation):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def _is_number_call(value: cst.BaseExpression) -> bool:
    if not isinstance(value, cst.Call):
        return False
    name = (dotted_name(value.func) or "").rsplit(".", 1)[-1]
    return name in NUMBER_CALLS


def _code(expr: cst.BaseExpression) -> str:
    """The source of a short expression, for a message (long ones end in `...`)."""
    text = code_of(expr)
    return text if len(text) <= 40 else text[:37] + "..."


def _never_true(test: cst.BaseExpression) -> bool:
    """`if False:`, `if 0:`, `if TYPE_CHECKING:`, and a `torch.Size` compared equal to a number
    (`if u.size() == 1:`, `x.shape == 2`): a branch that never runs."""
    if isinstance(test, cst.Name):
        return test.value in ("False", "TYPE_CHECKING")
    if isinstance(test, cst.Integer):
        return test.value == "0"
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comparison = test.comparisons[0]
        if not isinstance(comparison.operator, cst.Equal) or not isinstance(comparison.comparator, cst.Integer):
            return False
        left = test.left
        if isinstance(left, cst.Call) and isinstance(left.func, cst.Attribute) and not left.args:
            return left.func.attr.value == "size"
        return isinstance(left, cst.Attribute) and left.attr.value == "shape"
    return False


def _paths(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(expr, cst.IfExp):
        return [*_paths(expr.body), *_paths(expr.orelse)]
    return [expr]


def _constant_key(expr: cst.BaseExpression) -> Optional[str]:
    """`"row"` of `state["row"]`: a subscript by one plain string; else None."""
    if not (isinstance(expr, cst.Subscript) and len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)):
        return None
    key = expr.slice[0].slice.value
    return key.raw_value if isinstance(key, cst.SimpleString) and key.prefix in ("", "u") else None


def _keyed(name: str, key: str) -> str:
    """The name in `env` of what dict `name` holds under `key` (`state['row']`)."""
    return f"{name}[{key!r}]"


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in _target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _merge(env: dict[str, Value], first: dict[str, Value], second: dict[str, Value]) -> None:
    merged = {}
    for name in first.keys() | second.keys():
        a, b = first.get(name), second.get(name)
        merged[name] = a | b if a is not None and b is not None else (a or b)  # type: ignore[operator]
    env.clear()
    env.update(merged)


class CallSites:
    """The calls of each function name in the file (`f(...)`, `obj.f(...)`), with the function they are in."""

    def __init__(self, module: cst.Module) -> None:
        self.calls: dict[str, list[tuple[cst.Call, Optional[cst.FunctionDef]]]] = {}
        stack: list[tuple[cst.CSTNode, Optional[cst.FunctionDef]]] = [(module, None)]
        pop, push = stack.pop, stack.append
        while stack:
            node, function = pop()
            kind = type(node)  # (not isinstance: see walk._CONCRETE_NODES)
            if kind is cst.FunctionDef:
                function = node
            elif kind is cst.Call:
                func = node.func
                name = func.attr.value if type(func) is cst.Attribute else (
                    func.value if type(func) is cst.Name else None)
                if name is not None:
                    self.calls.setdefault(name, []).append((node, function))
            for child in children(node):
                push((child, function))

    def only_host_or_default(self, function: cst.FunctionDef, param: str, torch: TorchNames,
                             data_too: bool = False) -> bool:
        """Does every call of `function` in the file (one at least) leave `param` to its default or pass
        a tensor made on the CPU by a factory? Then the file shows it never holds an input's tensor. `data_too`:
        host data counts too (a list or tuple written out, a number, a NumPy call), for `torch.as_tensor(param)`."""
        sites = self.calls.get(function.name.value, [])
        if not sites:
            return False
        params = [*function.params.posonly_params, *function.params.params]
        names = [p.name.value for p in params]
        target = next((p for p in [*params, *function.params.kwonly_params] if p.name.value == param), None)
        if target is None:
            return False
        for call, caller in sites:
            if call is function or any(arg.star for arg in call.args):
                return False
            offset = 1 if isinstance(call.func, cst.Attribute) and names[:1] in (["self"], ["cls"]) else 0
            given: Optional[cst.BaseExpression] = None
            for index, arg in enumerate(positional(call)):
                if index + offset < len(names) and names[index + offset] == param:
                    given = arg.value
            passed = keyword(call, param)
            if passed is not None:
                given = passed.value
            if given is None:
                if target.default is None:
                    return False  # a call that does not match this function
                continue
            if not (_made_on_host(given, caller, torch) or data_too and _host_data(given)):
                return False
        return True


def _host_data(expr: cst.BaseExpression) -> bool:
    """A list, tuple or number written out, or a NumPy call's array: never a device tensor."""
    if type(expr) in (cst.List, cst.Tuple, cst.ListComp, cst.Integer, cst.Float) or _is_number(expr):
        return True
    return type(expr) is cst.Call and (dotted_name(expr.func) or "").startswith(("np.", "numpy."))


def _made_on_host(expr: cst.BaseExpression, caller: Optional[cst.FunctionDef], torch: TorchNames,
                  depth: int = 0, seen: Optional[set[str]] = None) -> bool:
    """A tensor the caller shows to be on the host: a factory's CPU tensor, maybe through tensor methods
    (`torch.tensor(s).repeat(n)`), a value sent there (`logits.float().cpu()`), one loaded there
    (`torch.load(f, map_location="cpu")["w"]`), a plain function of such, or a name (or attribute) the
    caller binds only to such (and `None`). `seen`: the names being resolved (a cycle is no answer)."""
    if depth > 4:
        return False
    seen = set() if seen is None else seen
    if type(expr) is cst.BinaryOperation:  # `torch.arange(n).flip(0) * -1 - 1`: a host tensor and numbers
        sides = [side for side in (expr.left, expr.right) if not _is_number(side)]
        return bool(sides) and all(_made_on_host(side, caller, torch, depth + 1, seen) for side in sides)
    while type(expr) in (cst.Call, cst.Subscript):
        if type(expr) is cst.Call and (cpu_factory_name(expr, torch) or legacy_constructor_name(expr, torch)):
            return True
        if type(expr) is cst.Call and torch.is_call_to(expr, "load"):
            target = keyword(expr, "map_location")
            return target is not None and is_host(target.value, torch)
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute:
            if expr.func.attr.value in TO_HOST_METHODS:
                return True
            if expr.func.attr.value in _MOVES:
                return False
            expr = expr.func.value
        elif type(expr) is cst.Call and type(expr.func) is cst.Name:
            args = positional(expr)
            return bool(args) and _made_on_host(args[0].value, caller, torch, depth + 1, seen)
        elif type(expr) is cst.Subscript:
            expr = expr.value
        else:
            return False
    name = dotted_name(expr)
    if name is not None and caller is not None and name not in seen:
        seen.add(name)
        values = [node.value for node in _walk_own(caller) if type(node) is cst.Assign
                  and any(dotted_name(t.target) == name for t in node.targets)]
        values = [v for v in values if not (type(v) is cst.Name and v.value == "None")]
        found = bool(values) and all(_made_on_host(v, caller, torch, depth + 1, seen) for v in values)
        seen.discard(name)
        return found
    return False
