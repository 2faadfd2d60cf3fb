"""DEV013 — a GPU index written into the code: the visitor (no fix: which GPU to use is the user's to say)."""

from __future__ import annotations

import os
from typing import Optional

import libcst as cst

from devlint.analysis.guards import is_script, is_test_code
from devlint.analysis.names import dotted_name, identifiers, integer_value, keyword, string_value
from devlint.analysis.screen import SyntaxFacts, parse
from devlint.rules.base import RuleVisitor
from devlint.rules.dev013_hardcoded_gpu_index import (
    RULE, VISIBLE_DEVICES, first_visible_index, gpu_index, indices_of,
)

_ADVICE = "take the index from the launcher (`LOCAL_RANK`), the configuration or the command line"


class HardcodedGpuIndex(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self._settings = 0  # inside a parameter's default or a command-line option: a setting the user passes
        # per enclosing `if`, `x if c else y` and `while`: 1 where its test asks how many GPUs there are
        # (`if torch.cuda.device_count() > 1:`), read once on the way in
        self._counting: list[int] = []
        self._scopes = 0  # inside a function or a class
        self._not_devices: set[int] = set()  # strings that name no device here: dict keys, compared values
        self._indices: Optional[set[int]] = None

    # -- where an index is a setting, a question, or known to exist -------------------------------------------
    def visit_Param(self, node: cst.Param) -> None:
        self._settings += 1

    def leave_Param(self, original_node: cst.Param) -> None:
        self._settings -= 1

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._not_devices.update(id(part) for part in (node.left, *(c.comparator for c in node.comparisons)))

    def visit_DictElement(self, node: cst.DictElement) -> None:
        self._not_devices.add(id(node.key))  # `map_location={"cuda:1": "cuda:0"}`: what a checkpoint names

    def visit_Expr(self, node: cst.Expr) -> None:
        self._not_devices.add(id(node.value))  # a docstring, a bare string

    def visit_If(self, node: cst.If) -> None:
        self._counting.append(_counts_gpus(node.test))

    def leave_If(self, original_node: cst.If) -> None:
        self._counting.pop()

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._counting.append(_counts_gpus(node.test))

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self._counting.pop()

    def visit_While(self, node: cst.While) -> None:
        self._counting.append(_counts_gpus(node.test))

    def leave_While(self, original_node: cst.While) -> None:
        self._counting.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._scopes += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._scopes += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes -= 1

    # -- reports ----------------------------------------------------------------------------------------------
    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = string_value(node)
        index = gpu_index(value) if value is not None else None
        if index is None or index < 1 or id(node) in self._not_devices or not self._may_report():
            return
        self.report(node, f'`"{value.strip()}"` names GPU {index}: on a machine with {_fewer(index)} it fails'  # type: ignore[union-attr]
                          f" (invalid device ordinal); {_ADVICE}")

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted_name(node.func) or ""
        if name.endswith("add_argument"):
            self._settings += 1  # `add_argument("--device", default="cuda:1")` (left in `leave_Call`)
        found = self._indexed(node)
        if found is None or found[1] < 1 or not self._may_report():
            return
        written, index = found
        self.report(node, f"`{written}` names GPU {index}: on a machine with {_fewer(index)} it fails (invalid"
                          f" device ordinal); {_ADVICE}")

    def leave_Call(self, original_node: cst.Call) -> None:
        if (dotted_name(original_node.func) or "").endswith("add_argument"):
            self._settings -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        """`os.environ["CUDA_VISIBLE_DEVICES"] = "1"` in a module others import."""
        if len(node.targets) != 1 or not _names_visible_devices(node.targets[0].target):
            return
        value = string_value(node.value)
        first = first_visible_index(value) if value is not None else None
        if first is None or first < 1 or is_test_code(self.ctx.path) or not self._in_library_code():
            return
        self.report(node, f'`{VISIBLE_DEVICES}` set to "{value}" in a module others import: every program that'
                          f" imports it sees only {_gpus(value)}, and none on a machine with {_fewer(first)}; let the"
                          " user choose the visible GPUs where the program is run")

    def _indexed(self, node: cst.Call) -> Optional[tuple[str, int]]:
        """(the call as the message shows it, the index) for `.cuda(1)`, `torch.device("cuda", 1)`,
        `torch.cuda.set_device(1)`, `torch.cuda.device(1)`."""
        func = node.func
        full = self.torch.qualify(func)
        if full in ("torch.cuda.set_device", "torch.cuda.device"):
            argument = node.args[0] if node.args else keyword(node, "device")
            index = integer_value(argument.value) if argument is not None else None
            return (f"{dotted_name(func)}({index})", index) if index is not None else None
        if full == "torch.device":
            kind = node.args[0].value if node.args else getattr(keyword(node, "type"), "value", None)
            second = node.args[1] if len(node.args) > 1 else keyword(node, "index")
            index = integer_value(second.value) if second is not None else None
            if kind is None or string_value(kind) != "cuda" or index is None:
                return None
            return f'{dotted_name(func)}("cuda", {index})', index
        if isinstance(func, cst.Attribute) and func.attr.value == "cuda" and full is None:
            argument = node.args[0] if node.args else keyword(node, "device")
            index = integer_value(argument.value) if argument is not None else None
            return (f".cuda({index})", index) if index is not None else None
        return None

    def _may_report(self) -> bool:
        if self._settings or any(self._counting) or is_test_code(self.ctx.path):
            return False
        return len(self._file_indices()) < 2  # `"cuda:0"` and `"cuda:1"`: a device map, multi-GPU by design

    def _file_indices(self) -> set[int]:
        if self._indices is None:  # (the whole file's, from the screen's `ast`: LibCST may have read only a part)
            syntax = self.ctx.syntax
            if syntax is None:
                tree = parse(self.ctx.module.code)
                syntax = SyntaxFacts(tree) if tree is not None else None
            self._indices = indices_of(syntax) if syntax is not None else set()
        return self._indices

    def _in_library_code(self) -> bool:
        """A function or class of a module that is not a script, or a package's `__init__.py`."""
        if os.path.basename(self.ctx.path or "") == "__init__.py":
            return True
        return self._scopes > 0 and not is_script(self.ctx.module)


def _fewer(index: int) -> str:
    return "one GPU" if index == 1 else f"{index} GPUs or fewer"


def _gpus(value: str) -> str:
    listed = [part.strip() for part in value.split(",") if part.strip()]
    return f"GPU {listed[0]}" if len(listed) == 1 else f"GPUs {', '.join(listed)}"


def _counts_gpus(test: cst.BaseExpression) -> int:
    """1 where `test` asks how many GPUs there are (`torch.cuda.device_count() > 1`, `n_gpu >= 2`)."""
    return int(any("device_count" in word or "n_gpu" in word or "num_gpu" in word for word in identifiers(test)))


def _names_visible_devices(target: cst.BaseExpression) -> bool:
    """`os.environ["CUDA_VISIBLE_DEVICES"]`."""
    if not isinstance(target, cst.Subscript) or not (dotted_name(target.value) or "").endswith("environ"):
        return False
    return len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index) and string_value(
        target.slice[0].slice.value) == VISIBLE_DEVICES
