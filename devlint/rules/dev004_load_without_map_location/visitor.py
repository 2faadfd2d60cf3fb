"""DEV004 — `torch.load` without `map_location`: the visitor and its fix."""

from __future__ import annotations

import re
from typing import Optional, Sequence

import libcst as cst

from devlint.analysis.classes import makes_host_data
from devlint.analysis.cuda_evidence import evidence_in
from devlint.analysis.devices import DeviceNameTracker, DeviceVariable
from devlint.analysis.edits import append_keyword, code_of
from devlint.analysis.guards import is_test_code
from devlint.analysis.names import (
    dotted_name, has_star_kwargs, identifiers, keyword, named_parameters, positional, string_value,
)
from devlint.analysis.project_index import path_keys_of_code
from devlint.analysis.walk import children, nodes as _nodes
from devlint.contract.diagnostics import Applicability
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.dev004_load_without_map_location import LOADS, MAP_LOCATION_AT, RULE


class LoadWithoutMapLocation(RuleVisitor, DeviceNameTracker):
    rule = RULE
    needs_torch_import = False  # `torch.load(...)` written out is checked in any file

    def __init__(self, ctx) -> None:  # type: ignore[no-untyped-def]
        super().__init__(ctx)
        self.into_load_state_dict: set[int] = set()
        self.returned: set[int] = set()  # `return torch.load(...)`: the caller decides where the tensors go
        self.assigned: dict[int, str] = {}  # id(value) -> the one name it is assigned to
        self.keyed_assigned: dict[int, str] = {}  # id(value) -> the name its entry is assigned to
        # loads in the CUDA branch of an `if` whose `else` loads with `map_location` (the CPU twin)
        self.with_cpu_twin: set[int] = set()
        self.state_by_key: set[int] = set()  # loads whose entry goes into `load_state_dict`
        # reports decided in `finish`: (the load, its message, its fix, the function it is in, or None)
        self.pending: list[tuple[cst.Call, str, Optional[Fix], Optional[cst.FunctionDef]]] = []
        # the file's saves' paths: their templates (`_path_template`), and their code
        self._save_paths: Optional[tuple[set[tuple[str, ...]], set[str]]] = None

    def visit_If(self, node: cst.If) -> None:
        if not isinstance(node.orelse, cst.Else) or not self.ctx.guarded_branches(node.test)[0]:
            return
        if any(keyword(load, "map_location") is not None or len(positional(load)) >= 2
               for load in self._loads_in(node.orelse.body)):
            self.with_cpu_twin.update(id(load) for load in self._loads_in(node.body))

    def _loads_in(self, root: cst.CSTNode) -> list[cst.Call]:
        return [node for node in _nodes(root) if isinstance(node, cst.Call) and self.torch.is_call_to(node, *LOADS)]

    def _saves_before(self, root: cst.CSTNode, load: Optional[cst.Call], *, any_save: bool = False) -> list[cst.Call]:
        """The `torch.save(...)` / `torch.jit.save(...)` calls in `root` that come before `load` in the source (all of
        them for None);
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

    def _resumes_its_own_save(self, load: cst.Call, function: Optional[cst.FunctionDef]) -> bool:
        """The file saves, anywhere in it, to a path written the same way (`"saved_models/G_%d.pth" % epoch` ...
        `torch.load("saved_models/G_%d.pth" % opt.epoch)`), or to the same path (`state_fpath`, not a parameter of
        the load's function: a library's `load(path)` reads what a `save(path)` call wrote in another run): a run
        resuming from what an earlier run of this script wrote, on the machine it wrote it on."""
        source = positional(load)[0].value
        if self._save_paths is None:
            written = [path for save in self._saves_before(self.ctx.module, None)
                       if (path := _saved_path(save)) is not None]
            self._save_paths = ({found for path in written if (found := _path_template(path)) is not None},
                                {_normalised(code_of(path)) for path in written})
        templates, paths = self._save_paths
        template = _path_template(source)
        if template is not None:
            return template in templates
        if isinstance(source, cst.Name) and function is not None and source.value in named_parameters(function):
            return False
        return _normalised(code_of(source)) in paths

    def _written_from_host_data(self, load: cst.Call) -> bool:
        """The project writes the file (by a file name or constant in its path) only from host data."""
        keys = path_keys_of_code(code_of(positional(load)[0].value))
        answers = [self.ctx.project.saved_from_host(key) for key in sorted(keys)]
        return True in answers and False not in answers

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assigned[id(node.value)] = node.targets[0].target.value
            inner = _keyed_value(node.value)
            if inner is not None:  # `state = torch.load(path)["model"]`
                self.keyed_assigned[id(inner)] = node.targets[0].target.value

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
        if _loads_module_state(node):
            self.into_load_state_dict.add(id(node.args[0].value))
            inner = _keyed_value(node.args[0].value)
            if inner is not None:
                self.state_by_key.add(id(inner))  # `load_state_dict(torch.load(path)["model"])`
        if not self.torch.is_call_to(node, *LOADS):
            return
        given = keyword(node, "map_location")
        if given is not None and not _is_none(given.value):
            return
        if has_star_kwargs(node) or len(positional(node)) > self._map_location_at(node):
            return  # given by position
        if not node.args or not positional(node):
            return
        if id(node) in self.with_cpu_twin or self._reloads_what_it_saved(node) or self._written_from_host_data(node):
            return
        if _in_temporary_folder(positional(node)[0].value):
            return  # `tmp_path / "model.pt"`, `tempfile.mkdtemp()`: written by this run, on this machine
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
        self.pending.append((node, f"`{name}(...)` without `map_location` fails on a machine without the device the"
                             f" checkpoint was saved from;", fix, self.ctx.current_function()))

    def _map_location_at(self, load: cst.Call) -> int:
        return MAP_LOCATION_AT[self.torch.qualify(load.func)[len("torch."):]]  # type: ignore[index]

    def finish(self) -> None:
        if not self.pending:
            return
        # a file bound to CUDA (CUDA-only by design, or CUDA written in and no sign of running without it) loads
        # its checkpoints where they were saved: preview's
        bound = evidence_in(self.ctx.syntax, self.ctx.module.code).bound_to_cuda
        for load, message, fix, function in self.pending:
            shown = self._device_state(load, function)
            if (shown is None or bound or is_test_code(self.ctx.path) or self._resumes_its_own_save(load, function)) \
                    and not self.preview:
                # nothing shows the file holds device state, a test reads what its run wrote, or a script resumes
                # from what it writes (on the machine that wrote it, but maybe not): preview's
                continue
            # (the message stays the rule's one line: the evidence is on the rule's page)
            self.report(load, f"{message} pass `map_location=` (e.g. `\"cpu\"` or your device)", fix)

    def _device_state(self, load: cst.Call, function: Optional[cst.FunctionDef]) -> Optional[str]:
        """What shows that `load` reads device state (a module's or optimizer's, or a scripted model), in words (for
        a reader of the rule's decisions, as the tests name them); None where nothing does."""
        if self.torch.is_call_to(load, "jit.load"):
            return "it loads a scripted module"
        if self.ctx.project.module_saves_on_host(self.ctx.path):
            return None  # the project writes its checkpoints from host data: they open on any machine
        if id(load) in self.into_load_state_dict or id(load) in self.state_by_key:
            return "its value goes into `load_state_dict`"
        names = {name for name in (self.assigned.get(id(load)), self.keyed_assigned.get(id(load))) if name}
        supplied = _supplied_checkpoint(positional(load)[0].value, names)
        if supplied is not None:
            return supplied
        if not names:
            return None
        scope: cst.CSTNode = function if function is not None else self.ctx.module
        # (where the name is bound again to something else, what follows reads another value: idr's `data` holds an
        # optimizer's state, then a scheduler's)
        region = _while_bound(scope, load, names)
        if _flows_into_load_state_dict(region, names):
            return f"`{sorted(names)[0]}` goes into `load_state_dict`"
        if _used_as_module(region, names):
            return f"`{sorted(names)[0]}` is used as a module"
        return None


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


_MODULE_METHODS = frozenset({"eval", "train", "parameters", "named_parameters", "modules", "named_modules", "children"})


_TEMPORARY = re.compile(r"^_*(tmp|temp)|tmpdir|tmp_?path|tempfile|mkdtemp", re.IGNORECASE)


def _in_temporary_folder(source: cst.BaseExpression) -> bool:
    """The path is in a temporary folder: a name for one (`tmp_path`, `tmpdir`, `self.temp_dir`, `tempfile`) or
    a string under `/tmp/`."""
    return any(_TEMPORARY.search(word) for word in identifiers(source)) or any(
        (text := string_value(node)) is not None and text.startswith("/tmp/") for node in _nodes(source))


# Where a path comes from the user: the command line's or the configuration's options
_OPTION_HOLDERS = frozenset({"args", "opt", "opts", "options", "FLAGS", "flags", "cfg", "config", "conf", "hparams"})
_DOWNLOADS = ("hf_hub_download", "download_url_to_file", "cached_download", "urlretrieve", "download", "cached_path")
_CHECKPOINT_WORDS = re.compile(r"ckpt|checkpoint|weight|model|resume|pretrain|state|snapshot|net", re.IGNORECASE)


def _supplied_checkpoint(source: cst.BaseExpression, names: set[str]) -> Optional[str]:
    """A checkpoint the user or a download supplies (`torch.load(args.resume)`, `torch.load(hf_hub_download(...))`),
    named as one (the path or the name the value is bound to): trained elsewhere, maybe on a GPU."""
    words = set(identifiers(source))
    if not any(_CHECKPOINT_WORDS.search(word) for word in words | names):
        return None
    for node in _nodes(source):
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value in _OPTION_HOLDERS:
            return f"`{code_of(node)}` is a checkpoint the user supplies"
        if isinstance(node, cst.Call) and (dotted_name(node.func) or "").rsplit(".", 1)[-1] in _DOWNLOADS:
            return "it loads a downloaded checkpoint"
    return None


def _keyed_value(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`value` of `value["model"]` / `value.get("model")` (also nested: `value["a"]["b"]`), else None."""
    found = None
    while True:
        if isinstance(expr, cst.Subscript):
            expr = found = expr.value
        elif (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "get"
              and expr.args):
            expr = found = expr.func.value
        else:
            return found


# Objects with a `load_state_dict` whose state holds no tensor of a device: numbers and lists
_HOST_STATE_OWNERS = re.compile(r"sched|sampler|scaler|loader|dataset|tokenizer|stopper|counter", re.IGNORECASE)


def _loads_module_state(node: cst.CSTNode) -> bool:
    """`model.load_state_dict(...)` with arguments, of anything but an object whose state is host numbers (an LR
    scheduler, a sampler, a GradScaler, a data loader)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "load_state_dict" and node.args):
        return False
    owner = dotted_name(node.func.value) or ""
    return not _HOST_STATE_OWNERS.search(owner.rsplit(".", 1)[-1])


def _while_bound(scope: cst.CSTNode, load: cst.Call, names: set[str]) -> list[cst.CSTNode]:
    """The statements that may read the value `load` binds to `names`: the load's statement and those after it, in
    the suite that holds it and then in each suite around that one, up to the first that binds one of `names` to a
    value not made from them (`data = torch.load(b)` ends it, `ckpt = ckpt["model"]` does not); the whole scope
    where the load is in no suite of it."""
    suites: list[tuple[int, Sequence[cst.CSTNode]]] = []  # (depth, body), every suite of the scope
    stack: list[tuple[int, cst.CSTNode]] = [(0, scope)]
    while stack:
        depth, node = stack.pop()
        body = getattr(node, "body", None)
        if isinstance(node, (cst.Module, cst.IndentedBlock)) and isinstance(body, (list, tuple)):
            suites.append((depth, body))
        stack.extend((depth + 1, child) for child in children(node))
    region: list[cst.CSTNode] = []
    for _, body in sorted(suites, key=lambda found: -found[0]):  # the innermost first
        at = next((i for i, statement in enumerate(body) if any(node is load for node in _nodes(statement))), None)
        if at is None:
            continue
        end = next((i for i in range(at + 1, len(body)) if _binds_anew(body[i], names)), None)
        region.extend(body[at if not region else at + 1:len(body) if end is None else end])
        if end is not None:
            break
    return region or [scope]


def _binds_anew(statement: cst.CSTNode, names: set[str]) -> bool:
    """`statement` (or one inside it) assigns one of `names` to a value that reads none of them."""
    for node in _nodes(statement):
        if isinstance(node, cst.Assign) and any(
                isinstance(target.target, cst.Name) and target.target.value in names for target in node.targets):
            if names.isdisjoint(identifiers(node.value)):
                return True
    return False


def _flows_into_load_state_dict(region: Sequence[cst.CSTNode], names: set[str]) -> bool:
    """A name in `names` reaches a `load_state_dict(...)` argument in `scope`: directly (`m.load_state_dict(ckpt)`,
    `ckpt["model"]`), or through names built from it (`state = {k[7:]: v for k, v in ckpt.items()}`, a loop that
    copies its entries into another dict), bounded by the names the scope binds."""
    targets: list[tuple[set[str], set[str]]] = []  # (names bound, names read in the value)
    into: set[str] = set()
    for node in (found for root in region for found in _nodes(root)):
        if _loads_module_state(node):
            into.update(name for arg in node.args for name in identifiers(arg.value))
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            bound = ({_root_name(t.target) for t in node.targets} if isinstance(node, cst.Assign)
                     else {_root_name(node.target)})
            targets.append(({b for b in bound if b}, set(identifiers(node.value))))
        elif isinstance(node, cst.For):
            targets.append((set(identifiers(node.target)), set(identifiers(node.iter))))
    reached = set(into)
    for _ in range(len(targets) + 1):
        grown = reached | {read for bound, values in targets if bound & reached for read in values}
        if grown == reached:
            break
        reached = grown
    return bool(reached & names)


def _used_as_module(region: Sequence[cst.CSTNode], names: set[str]) -> bool:
    """`model.eval()`, `model.parameters()`, ... of a loaded name: a pickled module, on the device it was saved from."""
    return any(isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
               and node.func.attr.value in _MODULE_METHODS and isinstance(node.func.value, cst.Name)
               and node.func.value.value in names for root in region for node in _nodes(root))


def _root_name(target: cst.BaseExpression) -> Optional[str]:
    """`x` of `x`, `x[k]`, `x.y`."""
    while isinstance(target, (cst.Subscript, cst.Attribute)):
        target = target.value
    return target.value if isinstance(target, cst.Name) else None


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


_CHECKPOINT_FILE = re.compile(r"\.[A-Za-z][A-Za-z0-9]*$")


def _path_template(path: cst.BaseExpression) -> Optional[tuple[str, ...]]:
    """The text a path expression writes out, in order (`"out/%s/G_%d.pth" % (a, b)` -> `("out/%s/G_%d.pth",)`,
    `f"{root}/best.pt"` -> `("/best.pt",)`); None where no piece names a file (`args.path`, `"out/"`)."""
    pieces: list[str] = []
    for node in _nodes(path):
        text = node.value if isinstance(node, cst.FormattedStringText) else string_value(node)
        if text:
            pieces.append(text)
    if not any(_CHECKPOINT_FILE.search(piece) for piece in pieces):
        return None
    return tuple(pieces)


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
