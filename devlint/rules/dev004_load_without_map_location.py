"""DEV004 — `torch.load` without `map_location`."""

from __future__ import annotations

import libcst as cst

from devlint.analysis.devices import device_variable
from devlint.analysis.edits import append_keyword
from devlint.analysis.names import has_star_kwargs, keyword, positional
from devlint.diagnostics import Applicability
from devlint.prefilter import words
from devlint.rules.base import Fix, FixSafety, Rule, RuleVisitor

RULE = Rule(
    code="DEV004",
    name="load-without-map-location",
    summary="`torch.load` without `map_location` fails on machines without the device the file was saved from",
    why="""
        A checkpoint remembers the device of every tensor in it. Saved from a GPU, it fails to load on a
        CPU-only machine ("Attempting to deserialize object on a CUDA device but
        torch.cuda.is_available() is False"), and on a multi-GPU machine every process loads it onto
        `cuda:0`, filling that GPU's memory.
    """,
    example="""
        state = torch.load("checkpoint.pt")
        model.load_state_dict(torch.load(path))
    """,
    instead="""
        state = torch.load("checkpoint.pt", map_location=device)
        model.load_state_dict(torch.load(path, map_location="cpu"))
    """,
    fix_safety=FixSafety.SOMETIMES,
    fix="""
        Adds `map_location=` with the file's device variable in scope, else `"cpu"`. Safe when the result
        goes straight into `load_state_dict(...)`, which copies the values into the module's own tensors
        wherever they are. Unsafe otherwise: code that used the loaded tensors directly may now get them
        on another device.
    """,
    tokens=("torch", words("load")),
)

_LOADS = ("load", "serialization.load", "jit.load")


class LoadWithoutMapLocation(RuleVisitor):
    rule = RULE
    needs_torch_import = False  # `torch.load(...)` written out is checked in any file

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.into_load_state_dict: set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "load_state_dict" and node.args:
            self.into_load_state_dict.add(id(node.args[0].value))
        if not self.torch.is_call_to(node, *_LOADS):
            return
        if keyword(node, "map_location") is not None or has_star_kwargs(node) or len(positional(node)) >= 2:
            return
        if not node.args:
            return
        safe = id(node) in self.into_load_state_dict
        variable = device_variable(self.ctx) or None
        value = cst.parse_expression(variable) if variable else cst.SimpleString('"cpu"')
        fix = Fix(
            Applicability.SAFE if safe else Applicability.UNSAFE,
            f"Add `map_location={variable or 'cpu'}`",
            {node: append_keyword(node, "map_location", value)},
        )
        name = self.ctx.module.code_for_node(node.func)
        self.report(
            node,
            f"`{name}(...)` without `map_location` fails where the saving device is missing;"
            f" pass `map_location=` (e.g. `\"cpu\"` or your device)",
            fix,
        )
