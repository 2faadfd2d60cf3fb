"""Writes devlint/analysis/torch_operations.py from the operator schemas of the installed torch.

    python benchmarks/generate_torch_operations.py          # rewrite the file
    python benchmarks/generate_torch_operations.py --check  # exit 1 if the file is not what it writes

DEV005 asks which operations take several tensors that must share a device, and which of their
arguments are indices or masks (a CPU index on a CUDA tensor raises there, though `x[idx]` accepts
it). A hand-written list lags PyTorch, so the list is read from `torch._C._jit_get_all_schemas()`:
every public `torch.<name>` function with two tensor arguments or more (a list of tensors counts as
several) and every public `Tensor.<name>` method with a tensor argument beside `self`, over all
their overloads, `out=` excluded; and every `torch.nn.functional.<name>` with two tensor parameters or
more (by its annotations, or the schema of the operator it is). The linter never imports torch: the result is a checked-in module
of frozensets (tests/test_torch_operations.py checks it is what this script writes).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

TARGET = pathlib.Path(__file__).resolve().parent.parent / "devlint" / "analysis" / "torch_operations.py"

# Operations whose second tensor is read for its shape, dtype or device only, or copied across
# devices on purpose: they take tensors from anywhere.
CROSS_DEVICE = frozenset({
    "to", "type_as", "copy_", "expand_as", "view_as", "reshape_as", "resize_as_", "resize_as_sparse_", "set_",
    "is_same_size", "can_cast", "result_type", "is_set_to", "new_empty", "new_zeros", "new_ones", "new_full",
    "new_empty_strided", "new_tensor", "promote_types", "broadcast_tensors", "broadcast_to", "cpu", "cuda",
    "share_memory_", "record_stream",
})
# Arguments that index or select: a CPU one next to a CUDA tensor raises (`index_select`, `gather`,
# `scatter_`, `index_add_`, `masked_fill`, `masked_select`, ...). The `indices` of `index_put_` and
# `index` are Python subscripts (`x[idx] = v`), which accept CPU indices.
INDEX_NAMES = frozenset({"index", "indices", "mask"})
SUBSCRIPT_OPERATIONS = frozenset({"index", "index_put", "index_put_", "_index_put_impl_"})


def _is_tensor(type_text: str) -> bool:
    return type_text in ("Tensor", "Optional[Tensor]")


def _is_tensor_list(type_text: str) -> bool:
    return type_text in ("List[Tensor]", "List[Optional[Tensor]]")


def read_schemas():  # type: ignore[no-untyped-def]
    """(version, functions, methods, functional, index arguments, subscript indices, tensor attributes) of the
    installed torch."""
    import inspect

    import torch
    import torch.nn.functional

    functions: set[str] = set()
    operators: set[str] = set()  # every operator with two tensors or more, public as `torch.<name>` or not
    methods: set[str] = set()
    index_arguments: dict[str, set[tuple[int, str]]] = {}
    subscript_indices: dict[str, set[tuple[int, str]]] = {}
    for schema in torch._C._jit_get_all_schemas():
        namespace, _, name = schema.name.partition("::")
        if namespace != "aten" or name.startswith("_") or name in CROSS_DEVICE or schema.overload_name.endswith("out"):
            continue
        # outputs (`out=`, `values=`/`indices=` of `sort`, ...) are keyword-only and written to
        arguments = [a for a in schema.arguments
                     if not (a.kwarg_only and a.alias_info is not None and a.alias_info.is_write)]
        types = [str(a.type) for a in arguments]
        tensors = sum(1 for t in types if _is_tensor(t)) + sum(2 for t in types if _is_tensor_list(t))
        is_method = bool(arguments) and arguments[0].name == "self" and _is_tensor(types[0])
        if tensors >= 2:
            operators.add(name)
        if tensors >= 2 and hasattr(torch, name):
            functions.add(name)
        if is_method and tensors >= 2 and hasattr(torch.Tensor, name):
            methods.add(name)
        if not (hasattr(torch, name) or hasattr(torch.Tensor, name)):
            continue
        for position, (argument, type_text) in enumerate(zip(arguments, types)):
            if name in SUBSCRIPT_OPERATIONS and argument.name == "indices":
                subscript_indices.setdefault(name, set()).add((position, argument.name))
            elif argument.name in INDEX_NAMES and _is_tensor(type_text) and tensors >= 2:
                index_arguments.setdefault(name, set()).add((position, argument.name))
    functional: set[str] = set()
    for name, value in vars(torch.nn.functional).items():
        if name.startswith("_") or not callable(value):
            continue
        if inspect.isfunction(value):
            annotations = [str(p.annotation) for p in inspect.signature(value).parameters.values() if p.name != "out"]
            if sum(1 for text in annotations if "Tensor" in text) >= 2:
                functional.add(name)
        elif name in operators:
            functional.add(name)  # `F.linear`, `F.conv2d`: the operator itself
    # every public attribute and method of a tensor and of a parameter (a parameter is the tensor a module holds)
    attributes = {name for name in (*dir(torch.Tensor), *dir(torch.nn.Parameter)) if not name.startswith("_")}
    return torch.__version__, functions, methods, functional, index_arguments, subscript_indices, attributes


def render(version: str, functions: set[str], methods: set[str], functional: set[str], index_arguments: dict[str, set[tuple[int, str]]],
           subscript_indices: dict[str, set[tuple[int, str]]], attributes: set[str]) -> str:
    def names(values: set[str]) -> str:
        lines, line = [], "   "
        for value in sorted(values):
            item = f' "{value}",'
            if len(line) + len(item) > 116:
                lines.append(line)
                line = "   "
            line += item
        lines.append(line)
        return "\n".join(lines)

    def table(arguments: dict[str, set[tuple[int, str]]]) -> str:
        return "\n".join(f'    "{name}": {tuple(sorted(arguments[name]))!r},' for name in sorted(arguments))

    return f'''"""Which torch operations take several tensors that must share a device, and which arguments index.

Generated by benchmarks/generate_torch_operations.py from the operator schemas of torch {version}:
do not edit by hand (tests/test_torch_operations.py checks it). Plain data: the linter never imports torch.
"""

TORCH_VERSION = "{version}"

# `torch.<name>(...)`: two tensors or more among the arguments (a list of tensors counts as several)
SAME_DEVICE_FUNCTIONS = frozenset({{
{names(functions)}
}})

# `x.<name>(...)`: a tensor among the arguments beside `x`
SAME_DEVICE_METHODS = frozenset({{
{names(methods)}
}})

# `torch.nn.functional.<name>(...)`: two tensor parameters or more (`F.cross_entropy(input, target, weight)`)
SAME_DEVICE_FUNCTIONAL = frozenset({{
{names(functional)}
}})

# name -> ((position in `torch.<name>(...)`, keyword), ...) of the index and mask arguments; a method
# call's positions are one less (`self` is its receiver). A CPU one next to a CUDA tensor raises.
INDEX_ARGUMENTS = {{
{table(index_arguments)}
}}

# The same for the indices of a Python subscript's own operations (`x.index_put_((idx,), v)` is `x[idx] = v`):
# CPU indices are accepted there.
SUBSCRIPT_INDICES = {{
{table(subscript_indices)}
}}

# Every public attribute and method of `torch.Tensor` and `torch.nn.Parameter`: a value whose other attribute is
# read (`prior.n_ctx`) is not a plain tensor
TENSOR_ATTRIBUTE_NAMES = frozenset({{
{names(attributes)}
}})
'''


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="compare with the checked-in file, write nothing")
    args = parser.parse_args()
    text = render(*read_schemas())
    if args.check:
        same = TARGET.read_text() == text
        print("up to date" if same else f"{TARGET} differs from what the installed torch gives")
        return 0 if same else 1
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
