"""DEV004 — `torch.load` without `map_location`: the visitor and its fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.analysis.classes import makes_host_data
from devlint.analysis.devices import DeviceNameTracker, DeviceVariable
from devlint.analysis.edits import append_keyword, code_of
from devlint.analysis.names import dotted_name, has_star_kwargs, identifiers, keyword, positional, string_value
from devlint.analysis.project_index import path_keys_of_code
from devlint.analysis.walk import children, nodes as _nodes
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev004_load_without_map_location import LOADS, RULE


class LoadWithoutMapLocation(RuleVisitor, DeviceNameTracker):
    rule = RULE
    needs_torch_import = False  # `torch.load(...)` written out is checked in any file

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.into_load_state_dict: set[int] = set()
        self.returned: set[int] = set()  # `return torch.load(...)`: the caller decides where the tensors go
        self.assigned: dict[int, str] = {}  # id(value) -> the one name it is assigned to
        # loads in the CUDA branch of an `if` whose `else` loads with `map_location` (the CPU twin)
        self.with_cpu_twin: set[int] = set()

    def visit_If(self, node: cst.If) -> None:
        if not isinstance(node.orelse, cst.Else) or not self.ctx.guarded_branches(node.test)[0]:
            return
        if any(keyword(load, "map_location") is not None or len(positional(load)) >= 2
               for load in self._loads_in(node.orelse.body)):
            self.with_cpu_twin.update(id(load) for load in self._loads_in(node.body))

    def _loads_in(self, root: cst.CSTNode) -> list[cst.Call]:
        return [node for node in _nodes(root) if isinstance(node, cst.Call) and self.torch.is_call_to(node, *LOADS)]

    def _saves_before(self, root: cst.CSTNode, load: cst.Call, *, any_save: bool = False) -> list[cst.Call]:
        """The `torch.save(...)` / `torch.jit.save(...)` calls in `root` that come before `load` in the source;
        with `any_save`, every call of a function or method whose name starts with `save` too
        (`trainer.save(path=...)`, `model.save_pretrained(out)`)."""
        found: list[cst.Call] = []
        stack: list[cst.CSTNode] = [root]
        while stack:
            node = stack.pop()
            if node is load:
                break
            if isinstance(node, cst.Call) and (self.torch.is_call_to(node, "save", "jit.save") or (
                    any_save and (dotted_name(node.func) or "").rsplit(".", 1)[-1].startswith("save"))):
                found.append(node)
            stack.extend(reversed(children(node)))
        return found

    def _writes_there_first(self, load: cst.Call, source: cst.BaseExpression, names: set[str]) -> bool:
        """Earlier in the same function, a save given the path the load reads from, or a directory it
        reads in (`trainer.save(path="out/")` ... `torch.load("out/model.pt")`, `save(path=save_path)` ...
        `torch.load(os.path.join(save_path, name))`): written on this machine by this run. `names`: the
        identifiers of the load's `source`."""
        function = self.ctx.current_function()
        if function is None:
            return False
        strings = [text for node in _nodes(source) if (text := string_value(node)) is not None]
        for save in self._saves_before(function, load, any_save=True):
            for arg in save.args:
                text = string_value(arg.value)
                if text and any(found.startswith(text) for found in strings):
                    return True
                if isinstance(arg.value, cst.Name) and arg.value.value in names:
                    return True
        return False

    def _reloads_what_it_saved(self, load: cst.Call) -> bool:
        """The same function (else class, else module) saves to the file the load reads, before it
        (in the source): a save-and-reload on one machine, where every device the file names exists."""
        source = positional(load)[0].value
        target = _normalised(code_of(source))
        names = set(identifiers(source))
        scope: cst.CSTNode = self.ctx.current_function() or self.ctx.current_class() or self.ctx.module
        scopes = [scope]
        cls = self.ctx.current_class()
        if isinstance(scope, cst.FunctionDef) and cls is not None:
            scopes.append(cls)  # a test class's `setUp` saves, a test loads; a constructor saves, a method loads
        for where in scopes:
            for save in self._saves_before(where, load):
                if where is cls and _saves_module_state(save) and not (
                        _is_test_class(cls) or makes_host_data(cls) or _in_constructor(cls, save)):
                    # `save()` and `restore()` of a library class: separate runs, maybe other machines, and
                    # what is saved is a module's state (on its device)
                    continue
                written = _saved_path(save)
                if written is None:
                    continue
                if _normalised(code_of(written)) == target:
                    return True
                if isinstance(written, cst.Name) and written.value in names and _is_buffer_read(source, written.value):
                    return True  # `torch.save(x, buffer)` ... `torch.load(io.BytesIO(buffer.getvalue()))`
        return self._writes_there_first(load, source, names)

    def _written_from_host_data(self, load: cst.Call) -> bool:
        """The project writes the file (by a file name or constant in its path) only from host data."""
        keys = path_keys_of_code(code_of(positional(load)[0].value))
        answers = [self.ctx.project.saved_from_host(key) for key in sorted(keys)]
        return True in answers and False not in answers

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assigned[id(node.value)] = node.targets[0].target.value

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.returned.add(id(node.value))

    def _only_returned(self, load: cst.Call) -> bool:
        """`return torch.load(...)`, or `x = torch.load(...)` whose only other use is `return x`."""
        if id(load) in self.returned:
            return True
        name = self.assigned.get(id(load))
        function = self.ctx.current_function()
        if name is None or function is None:
            return False
        total, returned = _uses(function.body, name)
        return returned > 0 and total == returned + 1

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "load_state_dict" and node.args:
            self.into_load_state_dict.add(id(node.args[0].value))
        if not self.torch.is_call_to(node, *LOADS):
            return
        given = keyword(node, "map_location")
        if given is not None and not _is_none(given.value):
            return
        if has_star_kwargs(node) or len(positional(node)) >= 2:
            return
        if not node.args or not positional(node):
            return
        if id(node) in self.with_cpu_twin or self._reloads_what_it_saved(node) or self._written_from_host_data(node):
            return
        fix = None
        if not any(arg.star == "*" for arg in node.args):  # `*args` may hold map_location already
            safe = id(node) in self.into_load_state_dict
            # Into load_state_dict "cpu" always works (the values are copied to the module's device).
            # the file's device variable might be an int rank, which map_location rejects: it is used
            # only when shown to hold a device string or a torch.device (`strict`)
            found = DeviceVariable() if safe else self.device_variable(strict=True)
            variable = found.name
            value = cst.parse_expression(variable) if variable else cst.SimpleString('"cpu"')
            # Returned as it is, the loaded tensors go where the file does not show: a caller may use
            # them as GPU tensors, so moving them to the CPU could break it. Only the function's own
            # device is used there.
            if not found.blocked and (safe or variable is not None or not (self._only_returned(node)
                                                                             or self._used_on_its_device(node))):
                fix = Fix(
                    Applicability.SAFE if safe else Applicability.UNSAFE,
                    f"Add `map_location={code_of(value)}`",
                    {given.value: value} if given is not None else {node: append_keyword(node, "map_location", value)},
                )
        name = self.ctx.module.code_for_node(node.func)
        self.report(
            node,
            f"`{name}(...)` without `map_location` fails on a machine without the device the checkpoint"
            f" was saved from;"
            f" pass `map_location=` (e.g. `\"cpu\"` or your device)",
            fix,
        )


    def _used_on_its_device(self, load: cst.Call) -> bool:
        """`m = torch.load(...)` then `m(x)`, or compared with other tensors (`==`,
        `torch.equal(m, ...)`, `assert_close`): the value is used where it was saved from, and
        `map_location="cpu"` alone would move it away from the tensors it meets."""
        name = self.assigned.get(id(load))
        scope = self.ctx.current_function() or self.ctx.module
        if name is None:
            return False
        for node in _nodes(scope):
            if isinstance(node, cst.Call):
                func = node.func
                if isinstance(func, cst.Name) and func.value == name:
                    return True  # a module (or function) run on the tensors it meets
                called = (dotted_name(func) or "").rsplit(".", 1)[-1]
                if called in _COMPARISONS and any(name in identifiers(arg.value) for arg in node.args):
                    return True
            elif isinstance(node, cst.Comparison) and all(
                    isinstance(c.operator, _ORDERINGS) for c in node.comparisons):  # not `in`, `is`
                operands = [node.left, *(c.comparator for c in node.comparisons)]
                if any(isinstance(operand, cst.Name) and operand.value == name for operand in operands):
                    return True
        return False


_ORDERINGS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)
# Calls that compare tensors: they need both on one device
_COMPARISONS = frozenset({"equal", "allclose", "isclose", "assert_close", "assert_allclose", "assertEqual",
                          "assert_equal", "assert_array_equal", "assertTrue", "eq"})


def _saves_module_state(save: cst.Call) -> bool:
    """`torch.save(model.state_dict(), path)` (also inside a dict or list): a module's or an optimizer's
    state, whose tensors are on the device the module was on."""
    args = positional(save)
    return bool(args) and any(isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                              and node.func.attr.value == "state_dict" for node in _nodes(args[0].value))


def _is_test_class(cls: cst.ClassDef) -> bool:
    """A test case (`class TestX(unittest.TestCase)`, `class XTest`): its methods run in one process."""
    name = cls.name.value
    return name.startswith("Test") or name.endswith(("Test", "Tests")) or any(
        "TestCase" in (dotted_name(base.value) or "") for base in cls.bases)


def _in_constructor(cls: cst.ClassDef, node: cst.CSTNode) -> bool:
    """`node` is in the class's `__init__`, which runs before any other method of the object."""
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return any(isinstance(method, cst.FunctionDef) and method.name.value == "__init__"
               and any(found is node for found in _nodes(method)) for method in body)


def _saved_path(save: cst.Call) -> Optional[cst.BaseExpression]:
    args = positional(save)
    if len(args) >= 2:
        return args[1].value
    given = keyword(save, "f")
    return given.value if given is not None else None


def _normalised(code: str) -> str:
    return "".join(code.split()).replace("'", '"')


def _is_buffer_read(source: cst.BaseExpression, buffer: str) -> bool:
    """`source` reads what was written into `buffer`: `buffer` itself, `io.BytesIO(buffer.getvalue())`."""
    if isinstance(source, cst.Name):
        return source.value == buffer
    return any(isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
               and node.func.attr.value in ("getvalue", "getbuffer") and isinstance(node.func.value, cst.Name)
               and node.func.value.value == buffer for node in _nodes(source))


def _uses(root: cst.CSTNode, name: str) -> tuple[int, int]:
    """(every `name` in `root`, those that are a `return name`)."""
    total = returned = 0
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == name:
            returned += 1
        if isinstance(node, cst.Name) and node.value == name:
            total += 1
        stack.extend(children(node))
    return total, returned


def _is_none(expr: cst.BaseExpression) -> bool:
    """`map_location=None` is the default spelled out: it maps nothing."""
    return isinstance(expr, cst.Name) and expr.value == "None"
