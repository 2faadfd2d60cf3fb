"""Which local names mean torch: `import torch as th`, `from torch import zeros, nn`, ...

Names are recorded as the traversal meets import statements, so a name means torch from
its import on. A file that never imports torch still resolves a plainly written `torch.x`
(DESIGN: DEV003/DEV004 may fire there), but `imports_torch` stays False.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.names import dotted_name


def _module_dotted(node: cst.BaseExpression) -> str:
    name = dotted_name(node)  # type: ignore[arg-type]
    return name or ""


class TorchNames:
    """Maps local names to fully qualified torch names."""

    def __init__(self) -> None:
        # local name -> qualified name ("th" -> "torch", "nn" -> "torch.nn", "zeros" -> "torch.zeros")
        self.aliases: dict[str, str] = {}
        self.imports_torch = False

    def record(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _module_dotted(alias.name)
                if not (full == "torch" or full.startswith("torch.")):
                    continue
                self.imports_torch = True
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self.aliases[alias.asname.name.value] = full
                else:
                    # `import torch.nn` binds `torch`
                    self.aliases["torch"] = "torch"
            return
        if node.relative or node.module is None:
            return
        module = _module_dotted(node.module)
        if not (module == "torch" or module.startswith("torch.")):
            return
        self.imports_torch = True
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            local = alias.name.value
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{module}.{alias.name.value}"

    def record_torch_by_star(self) -> None:
        """A star import of a project module binds `torch` (the project index: `star_brings_torch`)."""
        self.imports_torch = True
        self.aliases.setdefault("torch", "torch")

    def qualify(self, expr: cst.BaseExpression) -> Optional[str]:
        """`th.nn.Linear` -> "torch.nn.Linear" when the head is a torch name, else None."""
        name = dotted_name(expr)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        full = self.aliases.get(head)
        if full is None:
            if head != "torch":
                return None
            full = "torch"  # plainly written torch, imported or not
        return f"{full}.{rest}" if rest else full

    def is_call_to(self, node: cst.BaseExpression, *names: str) -> bool:
        """Is `node` a call of one of `torch.<name>` (names given without the `torch.` prefix)?"""
        if not isinstance(node, cst.Call):
            return False
        full = self.qualify(node.func)
        return full is not None and full.startswith("torch.") and full[6:] in names

    def torch_module_name(self) -> Optional[str]:
        """The local name bound to the `torch` module itself, if any (for building fixes)."""
        for local, full in self.aliases.items():
            if full == "torch":
                return local
        return None
