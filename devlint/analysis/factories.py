"""Torch tensor factories, dtype casts and device moves: shared by DEV002 and DEV005."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.names import dotted_name, keyword, positional, string_value
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.vocabulary import (
    CAST_METHODS, DTYPE_NAMES, FACTORIES, LEGACY_CONSTRUCTORS, LIKE_FACTORIES,
)

# The dtype each typed legacy constructor makes, as a maintainer writes it (`torch.long`).
LEGACY_DTYPES = {
    "FloatTensor": "float", "DoubleTensor": "double", "HalfTensor": "half", "BFloat16Tensor": "bfloat16",
    "LongTensor": "long", "IntTensor": "int", "ShortTensor": "short", "CharTensor": "int8",
    "ByteTensor": "uint8", "BoolTensor": "bool",
}
# Factories whose values are the same whatever dtype they are made in (0, 1, uninitialised):
# `zeros(n).to(torch.half)` is `zeros(n, dtype=torch.half)` exactly.
EXACT_IN_EVERY_DTYPE = frozenset({"zeros", "ones", "empty", "eye"})
# Factories whose values come from the random number generator of the device they run on:
# creating them on another device gives other numbers.
RANDOM_FACTORIES = frozenset({"rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like"})
# Devices that are the host: moving there from a CPU factory is no move at all.
HOST_DEVICES = ("cpu",)


def factory_name(node: cst.BaseExpression, torch: TorchNames) -> Optional[str]:
    """"zeros" for `torch.zeros(...)` (any alias), else None."""
    if not isinstance(node, cst.Call):
        return None
    full = torch.qualify(node.func)
    if full is None or not full.startswith("torch."):
        return None
    name = full[6:]
    return name if name in FACTORIES else None


def legacy_constructor_name(node: cst.BaseExpression, torch: TorchNames) -> Optional[str]:
    """"LongTensor" for `torch.LongTensor(...)` with arguments (any alias), else None. Without
    arguments (`torch.Tensor()`) it is an empty placeholder, usually replaced before use."""
    if not isinstance(node, cst.Call) or not node.args:
        return None
    full = torch.qualify(node.func)
    if full is None or not full.startswith("torch."):
        return None
    return full[6:] if full[6:] in LEGACY_CONSTRUCTORS else None


def cpu_factory_name(node: cst.BaseExpression, torch: TorchNames) -> Optional[str]:
    """The factory's name when `node` certainly creates a tensor on the CPU (the default device).

    `zeros_like(x)` and friends follow `x`'s device, and a factory given `device=` (or
    `**kwargs` that may carry it) is placed already: those are not CPU tensors. Nor is a
    random factory given `generator=`: it draws where its generator lives, and a CPU
    generator makes the CPU draw the point (`device=` of another device would raise)."""
    name = factory_name(node, torch)
    if name is None or name in LIKE_FACTORIES or places_tensor(node):  # type: ignore[arg-type]
        return None
    if not node.args:  # type: ignore[attr-defined]
        return None  # `torch.rand()`: every factory wants a size or data (TypeError on any device), none is made
    if keyword(node, "generator") is not None:  # type: ignore[arg-type]
        return None
    return name


def places_tensor(call: cst.Call) -> bool:
    """The factory call already says where the tensor goes (or we cannot know). A starred
    positional (`torch.zeros(*shape)`) is only sizes or data: `device=` is keyword-only."""
    return (
        keyword(call, "device") is not None
        or keyword(call, "out") is not None
        or any(arg.star == "**" for arg in call.args)  # **factory_kwargs usually carries device=
    )


def strip_casts(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`torch.tensor(v).float().contiguous()` -> `torch.tensor(v)`; dtype-only `.to(...)` too."""
    while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        method = expr.func.attr.value
        if method in CAST_METHODS and not expr.args:
            expr = expr.func.value
        elif method == "to" and is_dtype_only_move(expr):
            expr = expr.func.value
        elif method == "type" and len(expr.args) == 1:
            expr = expr.func.value
        else:
            break
    return expr


def is_dtype(expr: cst.BaseExpression, torch: TorchNames) -> bool:
    full = torch.qualify(expr)
    if full is not None and full.startswith("torch.") and full[6:] in DTYPE_NAMES:
        return True
    name = dotted_name(expr)
    if name is not None:
        last = name.rsplit(".", 1)[-1].lower()
        return "dtype" in last
    return False


def is_dtype_only_move(call: cst.Call, torch: Optional[TorchNames] = None) -> bool:
    """`.to(torch.float16)`, `.to(dtype=x)`, `.to(x.dtype)`: no device change."""
    torch = torch or TorchNames()
    if keyword(call, "device") is not None:
        return False
    args = positional(call)
    if not args:
        return keyword(call, "dtype") is not None
    return len(args) == 1 and is_dtype(args[0].value, torch)


def move_target(call: cst.Call, torch: TorchNames) -> Optional[cst.BaseExpression]:
    """For a move `R.to(target)` / `R.to(device=target)` the target expression; for `.cuda()`
    the call itself; None when the call does not change the device (dtype only, `"cpu"`)."""
    if not isinstance(call.func, cst.Attribute):
        return None
    method = call.func.attr.value
    if method == "cuda":
        return call
    if method != "to":
        return None
    device_kw = keyword(call, "device")
    if device_kw is not None:
        target = device_kw.value
    else:
        args = positional(call)
        if not args or is_dtype(args[0].value, torch):
            return None
        target = args[0].value
    if is_host(target, torch):
        return None
    return target


def is_host(expr: cst.BaseExpression, torch: TorchNames) -> bool:
    """`"cpu"`, `torch.device("cpu")`."""
    value = string_value(expr)
    if value is not None:
        return value.split(":")[0].strip() in HOST_DEVICES
    if isinstance(expr, cst.Call) and torch.is_call_to(expr, "device") and expr.args:
        return is_host(expr.args[0].value, torch)
    return False


def is_plain_device(expr: cst.BaseExpression, torch: TorchNames) -> bool:
    """A target that is plainly a device: a name or attribute called `device`, `x.device`,
    a string, `torch.device(...)`."""
    if string_value(expr) is not None:
        return True
    if isinstance(expr, cst.Call):
        return torch.is_call_to(expr, "device")
    name = dotted_name(expr)
    if name is None:
        return False
    last = name.rsplit(".", 1)[-1]
    return last == "device" or last.lower() == "device" or last.endswith("_device") or last.startswith("device")


def legacy_kind(factory: cst.Call) -> Optional[str]:
    """What a legacy constructor's arguments are, where the file shows it: "tensor" for one
    list (`LongTensor([1, 2])`, `LongTensor([a] + rest)` is data), "empty" for sizes
    (`FloatTensor(2, 3)`, `LongTensor(n, m)`: the data form takes one argument), else None."""
    if any(arg.keyword is not None or arg.star for arg in factory.args):
        return None
    values = [arg.value for arg in factory.args]
    if len(values) == 1 and is_sequence_display(values[0]):
        return "tensor"
    if len(values) > 1 or (values and isinstance(values[0], cst.Integer)):
        return "empty"
    return None


def is_sequence_display(expr: cst.BaseExpression) -> bool:
    """`[...]`, `(a, b)`, `[x for ...]`, and `+`/`*` with a list display (`[a] + rest`, `[0] * n`),
    which is a list or an error."""
    if isinstance(expr, (cst.List, cst.Tuple, cst.ListComp)):
        return True
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Multiply)):
        return isinstance(expr.left, cst.List) or isinstance(expr.right, cst.List) or (
            isinstance(expr.operator, cst.Add)
            and (is_sequence_display(expr.left) or is_sequence_display(expr.right)))
    return False


# Loss modules' arguments that are tensors (class weights): given one, the module holds it
_LOSS_TENSORS = frozenset({"weight", "pos_weight"})


def holds_no_tensor(receiver: cst.BaseExpression, torch: TorchNames) -> bool:
    """A loss module made here with no tensor given to it (`nn.CrossEntropyLoss()`, `nn.MSELoss(reduction="sum")`):
    it has no parameters or buffers, so moving it touches no device (a `weight=` tensor would)."""
    if not isinstance(receiver, cst.Call):
        return False
    full = torch.qualify(receiver.func) or ""
    return (full.startswith("torch.nn.") and full.endswith("Loss") and not positional(receiver)
            and all(arg.keyword is not None and arg.keyword.value not in _LOSS_TENSORS and not arg.star
                    for arg in receiver.args))
