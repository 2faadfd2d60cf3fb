"""DEV005 — a tensor created on the CPU meets the caller's tensor: the visitor and its fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.classes import ClassTable, makes_host_data, methods_init_calls
from devlint.analysis.edits import append_keyword, code_of
from devlint.analysis.factories import LEGACY_CONSTRUCTORS, cpu_factory_name, legacy_constructor_name
from devlint.rules.dev005_host_tensor_meets_input.flow import CallSites, FlowReader, FunctionFlow, Meeting, ModuleFacts
from devlint.analysis.names import named_parameters
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev005_host_tensor_meets_input import RULE
from devlint.analysis.walk import nodes, own_nodes


class HostTensorMeetsInput(RuleVisitor):
    rule = RULE

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.functions: dict[cst.FunctionDef, Optional[cst.ClassDef]] = {}  # with a candidate, and their class
        self.placed: set[cst.Call] = set()  # factories under `with torch.device(...)`
        self._building: dict[cst.ClassDef, set[str]] = {}  # the methods each class's `__init__` calls

    def visit_Call(self, node: cst.Call) -> None:
        if cpu_factory_name(node, self.torch) is None and legacy_constructor_name(node, self.torch) is None:
            return
        function = self.ctx.current_function()
        if function is None:
            return
        if self.ctx.device_placed():
            self.placed.add(node)
        if function not in self.functions:
            cls = self.ctx.current_class()
            # the class only counts when the function is one of its methods
            self.functions[function] = cls if cls is not None and function in cls.body.body else None

    def finish(self) -> None:
        if not self.functions or self.ctx.follows_a_default_device():
            return  # nothing to read, or factories follow the default device the file or project sets
        classes = self.ctx.classes
        facts: dict[Optional[cst.ClassDef], ModuleFacts] = {}
        may_meet = self._screened_functions()
        self._add_host_attribute_readers(classes, facts, may_meet)
        self._add_callers_of_makers(may_meet)
        reported: set[cst.Call] = set()
        # every function and method of the file (from `ast` where it is at hand: a narrowed tree leaves some out)
        syntax = self.ctx.syntax
        defined = {f.name for f in syntax.functions} if syntax is not None else {
            f.name.value for f in self.ctx.function_order}
        for function, cls in self.functions.items():
            if may_meet is not None and not may_meet[self.ctx.function_order[function]]:
                continue  # the screen saw no factory there that can meet an input
            if cls is not None and makes_host_data(cls):
                continue  # its tensors are the host data a DataLoader hands over: on the CPU by construction
            if cls is not None and (function.name.value == "__init__" or function.name.value in self._builds(cls)):
                cls = None  # the module is being built: its parameters are still on the CPU
            if cls not in facts:
                facts[cls] = self._module_facts(cls, classes)
            flow = FlowReader(function, self.torch, facts[cls], flags=self.ctx.availability_flags,
                              preview=self.preview, defined=defined).read()
            found = []
            for call, name, meeting in flow.reportable():
                if call in reported:
                    continue  # made in a method that several others call: reported where it first meets
                if call in flow.accumulators:  # started in another method, concatenated here: no input there
                    found.append((call, _accumulator_message(name, flow.accumulators[call], meeting, function), None))
                    continue
                if call in flow.attributes:  # made in `__init__`, met here: no input there to take a device from
                    found.append((call, _attribute_message(name, flow.attributes[call], meeting, function), None))
                    continue
                if call in flow.returned_by:  # made in another method and returned here: no input there
                    found.append((call, _returned_message(name, flow.returned_by[call], meeting, function), None))
                    continue
                if call in self.placed or self._callers_keep_it_on_the_host(function, meeting, flow):
                    continue
                sources = [_device_source(root, facts[cls]) for root in meeting.roots]
                usable = [i for i, source in enumerate(sources) if source and _fixable_source(source, flow, function)]
                chosen = usable[0] if usable else 0
                fix = _device_fix(call, name, sources[chosen], flow) if usable else None
                found.append((call, _message(name, meeting.roots[chosen], meeting.where, sources[chosen]), fix))
            _drop_fixes_that_split_host_tensors(found, flow)
            for call, message, fix in found:
                reported.add(call)
                self.report(call, message, fix)

    def _add_host_attribute_readers(self, classes: ClassTable, facts: dict[Optional[cst.ClassDef], ModuleFacts],
                                    may_meet: Optional[list[bool]]) -> None:
        """The methods (not `__init__`) of the file's module classes that read a plain attribute holding a
        host factory's tensor (`self.pe`): read too, though they make no tensor themselves. A class none of
        whose other methods the screen keeps (`may_meet`) is not read for that: they would not be read."""
        order = self.ctx.function_order
        for cls in classes.classes.values():
            if not isinstance(cls.body, cst.IndentedBlock) or makes_host_data(cls):
                continue
            if may_meet is not None and not any(
                    isinstance(method, cst.FunctionDef) and method not in self.functions and may_meet[order[method]]
                    for method in cls.body.body):
                continue
            if cls not in facts:
                facts[cls] = self._module_facts(cls, classes)
            attributes = {*facts[cls].host_attributes, *facts[cls].accumulated}
            if not attributes:
                continue
            building = self._builds(cls)
            for method in cls.body.body:
                if isinstance(method, cst.FunctionDef) and method.name.value not in ("__init__", *building) \
                        and method not in self.functions \
                        and any(isinstance(node, cst.Attribute) and node.attr.value in attributes
                                and isinstance(node.value, cst.Name) and node.value.value == "self" for node in nodes(method)):
                    self.functions[method] = cls

    def _add_callers_of_makers(self, may_meet: Optional[list[bool]]) -> None:
        """The methods that call `self.<m>(...)`, `m` a method with a factory of a class: what `m` returns may be
        that factory's host tensor (`h = self.init_hidden(n)`), met in the caller though it makes no tensor. Not
        those the screen drops (`may_meet`): they would not be read."""
        order = self.ctx.function_order
        makers: dict[cst.ClassDef, set[str]] = {}
        for function, cls in self.functions.items():
            if cls is not None:
                makers.setdefault(cls, set()).add(function.name.value)
        for cls, names in makers.items():
            building = self._builds(cls)
            for method in cls.body.body:
                if isinstance(method, cst.FunctionDef) and method not in self.functions \
                        and (may_meet is None or may_meet[order[method]]) \
                        and method.name.value not in ("__init__", *building) and any(
                            isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                            and node.func.attr.value in names and isinstance(node.func.value, cst.Name)
                            and node.func.value.value == "self" for node in nodes(method)):
                    self.functions[method] = cls

    def _module_facts(self, cls: Optional[cst.ClassDef], classes: ClassTable) -> ModuleFacts:
        syntax = self.ctx.syntax
        screened = syntax is not None and syntax.host_meeting_functions is not None
        accumulating = not screened or cls is not None and cls.name.value in syntax.accumulating_classes  # type: ignore
        return ModuleFacts(cls, classes, self.torch, accumulating=accumulating,
                           registers=self.ctx.mentions("Parameter", "register_buffer", "register_parameter"))

    def _builds(self, cls: cst.ClassDef) -> set[str]:
        """The methods the class's `__init__` calls (read once per class, however many of its functions ask)."""
        if cls not in self._building:
            self._building[cls] = methods_init_calls(cls)
        return self._building[cls]

    def _screened_functions(self) -> Optional[list[bool]]:
        """The screen's answer for each function LibCST visited, in the order of the source
        (devlint/analysis/screen.py); None when it has none, or when its functions cannot be matched to them."""
        syntax = self.ctx.syntax
        return self.ctx.screen_answers(syntax.host_meeting_functions if syntax is not None else None)

    def _callers_keep_it_on_the_host(self, function: cst.FunctionDef, meeting: Meeting, flow: FunctionFlow) -> bool:
        """The input it meets is a parameter that every call in the file leaves to its default or
        gives a CPU tensor (`self.embedding(torch.tensor(scale).repeat(n)).to(device)`); for a parameter made a
        tensor with `torch.as_tensor(points)`, host data too (`f([[0, 1]])`, `f(np.zeros(3))`)."""
        converted = flow.converted.get(meeting.root)
        if meeting.root not in flow.tensor_params and converted is None:
            return False
        sites = self.ctx.cache.get("call_sites")
        if sites is None:
            sites = self.ctx.cache["call_sites"] = CallSites(self.ctx.module)
        return sites.only_host_or_default(  # type: ignore[union-attr]
            function, converted or meeting.root, self.torch, data_too=converted is not None)


def _drop_fixes_that_split_host_tensors(found: list, flow: FunctionFlow) -> None:
    """A fix moves its tensor to the input's device; a host tensor it meets that stays behind (not
    0-dim) would then be on the wrong side: no fix for either, until nothing changes."""
    fixed = {call for call, _message, fix in found if fix is not None}
    changed = True
    while changed:
        changed = False
        for a, b, b_wide in flow.host_pairs:
            for moved, left in ((a, b), (b, a)):
                stays_wide = b_wide if left is b else True
                if moved in fixed and left not in fixed and stays_wide:
                    fixed.discard(moved)
                    changed = True
    found[:] = [(call, message, fix if call in fixed else None) for call, message, fix in found]


def _message(name: str, root: str, where: str, source: Optional[str]) -> str:
    advice = f"pass `device={source}.device`" if source else "pass `device=` (the input's device)"
    what = root if " " in root else f"`{root}`"
    return f"`torch.{name}(...)` is created on the CPU and meets {what} in {where}; {advice}"


def _attribute_message(name: str, attribute: str, meeting: Meeting, function: cst.FunctionDef) -> str:
    what = meeting.root if " " in meeting.root else f"`{meeting.root}`"
    return (f"`torch.{name}(...)` is kept in `self.{attribute}`, a plain attribute that `Module.to()` does not move"
            f" (only parameters and buffers move): it stays on the CPU and meets {what} in {meeting.where} in"
            f" `{function.name.value}`; register it: `self.register_buffer(\"{attribute}\", ..., persistent=False)`")


def _accumulator_message(name: str, attribute: str, meeting: Meeting, function: cst.FunctionDef) -> str:
    what = meeting.root if " " in meeting.root else f"`{meeting.root}`"
    return (f"`torch.{name}(...)` starts `self.{attribute}` on the CPU, and nothing moves it before"
            f" `{function.name.value}` concatenates it with {what} in {meeting.where}, which checks the device of"
            f" every tensor it is given, empty ones too; pass `device=` (where the values it collects are) here")


def _returned_message(name: str, maker: str, meeting: Meeting, function: cst.FunctionDef) -> str:
    what = meeting.root if " " in meeting.root else f"`{meeting.root}`"
    return (f"`torch.{name}(...)` is created on the CPU in `{maker}`, which returns it to `{function.name.value}`,"
            f" where it meets {what} in {meeting.where}; pass `device=` (the input's device) where it is made")


def _device_source(root: str, module: ModuleFacts) -> Optional[str]:
    """`x`, `self.weight`, or `self.embed.weight` for a layer that always has one: a tensor with a
    `.device` (other submodules have none to name)."""
    if root.startswith("the parameters of `self."):
        attr = root[len("the parameters of `self."):-1]
        return f"self.{attr}.weight" if attr in module.weighted else None
    return None if " " in root else root


def _fixable_source(source: str, flow: FunctionFlow, function: cst.FunctionDef) -> bool:
    """`self.<parameter or layer>.weight`, or a parameter shown to be a tensor that is never None by
    default or annotation, and not rebound to something else."""
    if source.startswith("self."):
        return True
    if source not in flow.tensor_params or _rebound(function, source):
        return False
    param = named_parameters(function)[source]
    if param.default is not None and not (isinstance(param.default, cst.Name) and param.default.value != "None"):
        return False  # `x=None`: maybe no tensor at all
    if param.annotation is not None:
        text = code_of(param.annotation.annotation)
        if "None" in text or "Optional" in text:
            return False
    return True


def _device_fix(call: cst.Call, name: str, source: Optional[str], flow: FunctionFlow) -> Optional[Fix]:
    if source is None or name in LEGACY_CONSTRUCTORS or call in flow.host_used or call in flow.meets_cpu:
        return None
    device = cst.parse_expression(f"{source}.device")
    return Fix(Applicability.UNSAFE, f"Add `device={code_of(device)}`", {call: append_keyword(call, "device", device)})


def _rebound(function: cst.FunctionDef, name: str) -> bool:
    """Is parameter `name` bound again in the function to something other than a tensor op on itself?"""
    for node in own_nodes(function.body):
        targets: list[cst.BaseExpression] = []
        value: Optional[cst.BaseExpression] = None
        if isinstance(node, cst.Assign):
            targets, value = [t.target for t in node.targets], node.value
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
            targets, value = [node.target], node.value
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets = [node.target]
        elif isinstance(node, (cst.WithItem,)) and node.asname is not None:
            targets = [node.asname.name]
        for target in targets:
            if name in _names(target) and not (isinstance(target, cst.Name) and _derives_from(value, name)):
                return True
    return False


def _derives_from(value: Optional[cst.BaseExpression], name: str) -> bool:
    """`x.view(...)`, `x.float().transpose(1, 2)`, `x * 2`: a tensor op whose receiver is `name`."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        value = value.func.value
    while isinstance(value, (cst.Subscript, cst.BinaryOperation)):
        value = value.value if isinstance(value, cst.Subscript) else value.left
    return isinstance(value, cst.Name) and value.value == name


def _names(target: cst.BaseExpression) -> set[str]:
    return {node.value for node in own_nodes(target) if isinstance(node, cst.Name)} | (
        {target.value} if isinstance(target, cst.Name) else set())

