"""Which classes of the file are `nn.Module`s: directly, through a base of the same file,
or through a well-known base (`LightningModule`, `PreTrainedModel`, `ModelMixin`, ...)."""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from devlint.analysis.names import dotted_name
from devlint.analysis.torch_names import TorchNames
from devlint.analysis.walk import children, nodes

# Classes that build the host data a DataLoader hands over, by their name or a base's name
_HOST_DATA_CLASS = re.compile(r"Dataset$|Sampler$|Collator|FeatureExtractor|Tokenizer")


def makes_host_data(cls: cst.ClassDef) -> bool:
    """`class Pairs(Dataset)`, `class PairsDataset(...)`, `class DataCollatorForLM(...)`, a sampler, a feature
    extractor or a tokenizer: they build tensors from lists, arrays and files, on the CPU, for a DataLoader
    (whose workers have no device)."""
    names = [cls.name.value, *((dotted_name(arg.value) or "").rsplit(".", 1)[-1] for arg in cls.bases)]
    return any(_HOST_DATA_CLASS.search(name) for name in names)


# Bases known to subclass nn.Module, matched on their last dotted component.
_KNOWN_MODULE_BASES = {
    "Module", "LightningModule", "PreTrainedModel", "ModelMixin", "Sequential", "ModuleList", "ModuleDict",
    "Metric", "HyperparametersMixin",
}
# Names of bases that, by the conventions of PyTorch code, are modules.
_MODULE_SUFFIX = re.compile(
    r"(Module|Model|Layer|Block|Net|Network|Encoder|Decoder|Head|Backbone|Embedding|Embeddings|Attention|MLP"
    r"|Classifier|Conv|Conv[123][dD])$"
)


# The statements (and parts of them) a class definition can be found in.
_HOLD_CLASSES = frozenset({cst.Module, cst.ClassDef, cst.FunctionDef, cst.IndentedBlock, cst.If, cst.Try, cst.With,
                           cst.Else, cst.ExceptHandler, cst.Finally})


class ClassTable:
    """Every class defined anywhere in the file, by name (the last definition wins)."""

    def __init__(self, module: cst.Module, torch: TorchNames) -> None:
        self.torch = torch
        self.classes: dict[str, cst.ClassDef] = {}
        self._module_cache: dict[str, bool] = {}
        stack: list[cst.CSTNode] = [module]
        while stack:
            node = stack.pop()
            kind = type(node)  # (not isinstance: see walk._CONCRETE_NODES)
            if kind is cst.ClassDef:
                self.classes.setdefault(node.name.value, node)  # type: ignore[attr-defined]
            if kind in _HOLD_CLASSES:
                stack.extend(children(node))  # node.children would rebuild the node

    def base_is_module(self, base: cst.BaseExpression, _seen: Optional[set[str]] = None) -> bool:
        full = self.torch.qualify(base)
        if full is not None:
            # torch.nn.Module and every torch.nn layer class
            return full.startswith("torch.nn.") and full.rsplit(".", 1)[-1][:1].isupper()
        name = dotted_name(base)
        if name is None:
            return False
        last = name.rsplit(".", 1)[-1]
        if "." not in name and last in self.classes:
            return self.is_module_class(last, _seen)
        return last in _KNOWN_MODULE_BASES or bool(_MODULE_SUFFIX.search(last))

    def is_module_class(self, name: str, _seen: Optional[set[str]] = None) -> bool:
        if name in self._module_cache:
            return self._module_cache[name]
        node = self.classes.get(name)
        if node is None:
            return False
        seen = _seen or set()
        if name in seen:
            return False
        seen.add(name)
        result = any(self.base_is_module(arg.value, seen) for arg in node.bases if arg.keyword is None)
        self._module_cache[name] = result
        return result

    def node_is_module_class(self, node: cst.ClassDef) -> bool:
        return any(self.base_is_module(arg.value) for arg in node.bases if arg.keyword is None)


def methods_init_calls(cls: cst.ClassDef) -> set[str]:
    """The methods `__init__` calls through `self` (`self.reset_parameters()`): they run while the module is
    being built, on the CPU, whatever device it is moved to later."""
    if type(cls.body) is not cst.IndentedBlock:
        return set()
    init = next((m for m in cls.body.body if type(m) is cst.FunctionDef and m.name.value == "__init__"), None)
    if init is None:
        return set()
    return {node.func.attr.value for node in nodes(init) if type(node) is cst.Call
            and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name
            and node.func.value.value == "self"}
