"""The words of torch code that the LibCST analysis and the `ast` screen share: factory names, tensor
methods and attributes, device strings.

Plain data and string tests, no LibCST: the text prefilter, the screen and the rules' metadata
(devlint/rules/devNNN_*/__init__.py) use them before any file reaches LibCST, and importing
LibCST is a third of a one-file run (tests/test_startup.py). The LibCST modules of this package
import them from here, so each list is written once.
"""

from __future__ import annotations

import re
from typing import Optional

FACTORIES = frozenset({
    "tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange",
    "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
    "randn_like", "randint_like", "range", "empty_strided", "tril_indices", "triu_indices",
})
# Legacy constructors: `torch.Tensor(3)`, `torch.FloatTensor([1.0])`. Each builds a CPU tensor, from
# sizes or from data alike, and the typed ones refuse a CUDA `device=`.
LEGACY_CONSTRUCTORS = frozenset({
    "Tensor", "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
    "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
})

# Sparse constructors take their device from their indices and values unless given `device=`.
SPARSE_FACTORIES = frozenset({"sparse_coo_tensor", "sparse_csr_tensor"})
LIKE_FACTORIES = frozenset(name for name in FACTORIES if name.endswith("_like"))

# Tensor methods that only change the dtype (or nothing about placement).
CAST_METHODS = frozenset({"float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "char",
                          "contiguous", "requires_grad_", "detach", "clone"})
DTYPE_NAMES = frozenset({
    "float", "float32", "float64", "double", "float16", "half", "bfloat16", "int", "int8", "int16", "int32",
    "int64", "long", "short", "uint8", "bool", "complex64", "complex128", "cfloat", "cdouble", "float8_e4m3fn",
    "float8_e5m2", "uint16", "uint32", "uint64", "qint8", "quint8",
})

# PyTorch's concatenations: they check the device of every tensor they are given, empty ones too (measured on
# CUDA: `torch.cat([torch.empty(0), x])` raises).
CONCATENATIONS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"})
# Torch functions whose tensor arguments must share a device (as `torch.f(...)` or `t.f(...)`).
# For the element-wise ones a 0-dim CPU tensor may mix with any device.
JOINING = CONCATENATIONS | frozenset({
    "index_select", "gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill", "masked_scatter",
    "masked_select", "take_along_dim", "bmm", "mm", "matmul", "einsum", "bucketize", "searchsorted", "cdist",
    "index_put", "masked_fill", "where", "block_diag", "cartesian_prod",
})
ELEMENTWISE = frozenset({
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "maximum", "minimum", "eq", "ne", "lt", "le", "gt",
    "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "lerp", "addcmul", "addcdiv",
    "fmod", "remainder", "pow", "atan2", "hypot", "masked_fill", "where", "clamp", "clip",
})

# torch functions and tensor methods that compute element by element on their one tensor: the result
# is where that tensor is (DEV002/DEV011: what is computed from a factory with numbers).
UNARY_ELEMENTWISE = frozenset({
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin",
    "acos", "atan", "sigmoid", "sqrt", "rsqrt", "abs", "neg", "reciprocal", "square", "erf", "floor", "ceil",
    "trunc", "sign",
})

# Tensor methods that only reshape their tensor.
RESHAPING_METHODS = frozenset({"unsqueeze", "view", "reshape", "flatten", "squeeze", "t", "repeat", "expand"})

# Evidence that a parameter is a tensor: methods no list, dict, str or NumPy array has.
# DEV005's flow (devlint/rules/dev005_host_tensor_meets_input/flow.py) and its screen.
# Of the joining functions, those where a 0-dim tensor is still refused (it is joined, not broadcast).
NO_SCALARS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
                         "index_select", "gather", "scatter", "scatter_add", "take_along_dim", "bmm", "mm",
                         "matmul", "einsum", "index_add", "index_copy", "block_diag"})
# Packages whose launch sets the current device before user code runs (DEV009, and the project index's
# `group_helper`). Ray gives each worker that asks for a GPU only that GPU (CUDA_VISIBLE_DEVICES): "cuda" is it there.
DEVICE_SETTING_LAUNCHERS = frozenset({
    "accelerate", "lightning", "pytorch_lightning", "lightning_fabric", "ignite", "deepspeed", "colossalai", "ray",
})
# Methods after which a value is on the host on purpose.
TO_HOST_METHODS = frozenset({"cpu", "numpy"})
# Methods whose result is a Python value, not a tensor.
HOST_VALUE_METHODS = frozenset({"item", "tolist"})
NON_TENSOR_METHODS = frozenset({
    "size", "dim", "numel", "nelement", "stride", "element_size", "is_contiguous", "data_ptr", "get_device",
    "is_floating_point", "is_complex", "storage", "untyped_storage", "backward", "register_hook", "nbytes",
    "keys", "items", "values", "append", "extend", "index", "count",
})

TENSOR_ONLY_METHODS = frozenset({
    "size", "dim", "view", "view_as", "unsqueeze", "permute", "contiguous", "detach", "expand", "expand_as",
    "masked_fill", "masked_fill_", "index_select", "gather", "scatter", "scatter_", "narrow", "float", "long",
    "int", "bool", "half", "bfloat16", "type_as", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor",
    "numel", "softmax", "log_softmax", "sigmoid", "unbind", "masked_select", "to", "cuda", "cpu", "is_cuda",
    "unfold", "bmm", "matmul", "clamp", "clamp_min", "clamp_max", "index_add", "index_add_", "zero_", "fill_",
    "repeat_interleave", "flip", "roll", "topk", "norm", "exp", "sqrt", "log", "abs", "neg", "pow", "eq", "ne",
    "lt", "gt", "le", "ge", "logical_not", "mul", "add", "sub", "div", "square", "rsqrt", "relu", "tanh",
    "element_size", "data_ptr", "numpy", "item", "chunk", "transpose", "t", "reshape", "squeeze", "flatten",
})
# Methods a torch tensor has and a NumPy array, a list or a number has not (`reshape`, `transpose`, `sum`, `view`,
# `size` as an attribute are NumPy's too): a value used with one is a torch tensor.
TORCH_ONLY_METHODS = frozenset({
    "size", "dim", "unsqueeze", "permute", "contiguous", "detach", "expand", "expand_as", "masked_fill",
    "masked_fill_", "masked_select", "index_select", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor",
    "type_as", "view_as", "numel", "narrow", "softmax", "log_softmax",
})
TENSOR_ATTRIBUTES = frozenset({
    "shape", "device", "dtype", "is_cuda", "ndim", "T", "mT", "grad", "requires_grad", "data",
})
# Attributes that are the same tensor seen another way: wherever the tensor is, they are.
TENSOR_VIEWS = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
# Attributes on the same device as their tensor: its views, and its gradient (PyTorch refuses a `.grad` elsewhere).
PLACED_ATTRIBUTES = TENSOR_VIEWS | {"grad"}
# Calls whose result is a Python number (`torch.tensor(x.size(0))` is 0-dim).
NUMBER_CALLS = frozenset({"size", "dim", "numel", "item", "len", "int", "float", "round", "abs", "min", "max", "sum"})
# Builtins a loop wraps the caller's sequences in (`for p, t in zip(preds, targets)`).
LOOP_WRAPPERS = ("zip", "enumerate", "reversed")

ACCELERATOR_BACKENDS = ("cuda", "mps", "xpu")
# Every accelerator a device string may name (`torch.device("npu:0")`): DEV003's backends and the others.
ACCELERATOR_TYPES = (*ACCELERATOR_BACKENDS, "npu", "hpu", "xla")


def device_backend(value: str) -> Optional[str]:
    """The accelerator backend a string literal's value names as a device: `"cuda"`, `"cuda:N"`,
    `"mps"`, `"mps:0"`, `"xpu"`, `"xpu:N"` (spaces around allowed); None for anything else."""
    backend, colon, index = value.strip().partition(":")
    if backend in ACCELERATOR_BACKENDS and (not colon or index.isdigit()):
        return backend
    return None


# The template of a CUDA device string built at run time: `"cuda:%d" % i`, `"cuda:{}".format(i)`.
RUNTIME_CUDA = re.compile(r"cuda:(%[dis]|\{[A-Za-z_0-9.]*\})")


def is_cuda_runtime_value(template: str) -> bool:
    """The literal part of a run-time CUDA device string, as `ast` sees it (for the screen)."""
    template = template.strip()
    return template == "cuda:" or bool(RUNTIME_CUDA.fullmatch(template))


# Methods that return a converted copy of a tensor (DEV007); a module's `float`, `half`, `double`,
# `bfloat16` and `type` convert it in place. Called as a statement of its own, one of these (or a
# move, DEV001) is what the rules judge, so it is no evidence of what its receiver is.
CONVERSIONS = frozenset({"float", "half", "double", "bfloat16", "long", "int", "bool", "type", "contiguous",
                         "detach", "clone"})

# Tensor methods that no nn.Module has: a receiver (or result) with them is a tensor. Not
# `float`, `half`, `double`, `bfloat16`, `type`: nn.Module has them too (in place).
TENSOR_METHODS = frozenset({
    "view", "view_as", "reshape", "reshape_as", "unsqueeze", "squeeze", "permute", "transpose", "contiguous",
    "detach", "flatten", "unflatten", "expand", "expand_as", "repeat", "numpy", "item", "tolist", "size",
    "dim", "numel", "sum", "mean", "std", "max", "min", "argmax", "argmin", "softmax", "log_softmax", "sigmoid",
    "tanh", "relu", "abs", "exp", "log", "sqrt", "pow", "clamp", "clamp_", "masked_fill", "masked_fill_",
    "index_select", "gather", "scatter", "scatter_", "narrow", "chunk", "split", "t", "matmul", "mm", "bmm",
    "long", "int", "bool", "byte", "char", "short", "type_as", "new_zeros",
    "new_ones", "new_full", "new_empty", "new_tensor", "fill_", "zero_", "copy_", "add_", "mul_", "sub_",
    "div_", "normal_", "uniform_", "nonzero", "topk", "sort", "argsort", "cumsum", "prod", "norm", "any",
    "all", "eq", "ne", "gt", "lt", "ge", "le", "masked_select", "where", "roll", "flip", "unbind", "stride",
    "is_contiguous", "element_size", "storage", "data_ptr", "backward", "requires_grad_", "retain_grad",
    "is_pinned", "pin_memory",
})
# Attributes only tensors have (modules have none of these).
TENSOR_ONLY_ATTRIBUTES = frozenset({"shape", "ndim", "T", "mT", "grad", "is_cuda", "requires_grad", "grad_fn", "is_leaf"})
# Attributes that are tensors whatever they are read of: `p.data`, `layer.weight`, `x.T`.
TENSOR_VALUED_ATTRIBUTES = frozenset({"data", "grad", "T", "mT", "weight", "bias", "real", "imag"})
# Methods and attributes that mark an nn.Module (or a model object with an in-place .to()).
MODULE_METHODS = frozenset({
    "parameters", "named_parameters", "buffers", "named_buffers", "modules", "named_modules", "children",
    "named_children", "eval", "train", "state_dict", "load_state_dict", "zero_grad", "apply", "register_buffer",
    "register_parameter", "register_forward_hook", "register_forward_pre_hook", "add_module", "forward",
    "generate", "config", "save_pretrained", "to_empty",
})


# `torch.cuda` calls that need a CUDA device to run (not the queries that answer without one)
CUDA_ONLY_CALLS = frozenset({
    "synchronize", "Stream", "Event", "current_stream", "default_stream", "stream", "mem_get_info",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "reset_peak_memory_stats", "set_device", "get_device_properties", "get_device_name",
    "get_device_capability", "current_device", "CUDAGraph", "graph", "make_graphed_callables",
    "ExternalStream", "caching_allocator_alloc", "set_stream", "memory_stats", "nvtx.range_push",
    "nvtx.range_pop", "nvtx.range", "nvtx.mark",
})

_DEVICE_WORD = re.compile(r"device|^dev$|^_dev$|^dev_$", re.IGNORECASE)
_NOT_A_DEVICE_WORD = re.compile(r"(type|types|kind|name|names|index|idx|id|ids|count|map|str)$", re.IGNORECASE)


def names_a_device(name: str) -> bool:
    """`device`, `self.device`, `dev`, `target_device`; not `device_type`, `device_id`, `n_devices`."""
    last = name.rsplit(".", 1)[-1]
    return bool(_DEVICE_WORD.search(last)) and not _NOT_A_DEVICE_WORD.search(last)
