"""The project index: what the project's other files say that a file's reports may depend on.

Facts, each gathered from Python's `ast` of only the files whose text holds its word, the
first time a rule asks, and kept for the process (one index per project root):

- `saved_from_host(key)`: the files the project writes with `torch.save`, by the names in their path
  (a file name written out, `"vocab.pt"`, or a constant, `WEIGHTS_NAME`), and whether every such save
  writes host data (NumPy, lists, numbers, `.cpu()` values, a state dict moved to the CPU, tensors
  made without `device=`). A file written only from host data opens on any machine (DEV004).
- `calls_of(function)`: how every call of a function of that name in the project passes its
  arguments: which keywords, how many positional, whether `*args`/`**kwargs` (DEV003: a `device="cuda"`
  default that every caller overrides never runs); unknown (None) for a name called from more than
  `MAX_CALLER_FILES` files (`forward`, `__call__`: too common to tell one function's callers).
- `module_saves_on_host(path)`: the files nearest `path` that save a module's state (its folder's, else its
  parent's, out to the project) write host data in every such save: the checkpoints they make open on any
  machine (DEV004).
- `called_repeatedly(function)`: some call of a function of that name in the project runs over and over:
  inside a loop or a comprehension, or in a `forward` / `__call__` / `*_step` (DEV002: a copy made in it is
  paid on every call); unknown (False) past `MAX_CALLER_FILES` files.
- `default_device_for(path)`: `torch.set_default_device(...)` runs before the code of `path` does: it
  is called at the top level of a `conftest.py` in `path`'s folder or above (pytest runs it before the
  tests there), or of any other module of the project (an entry point, a package's `__init__`), so
  factories without `device=` follow it there.

- `star_brings_torch(path, module, level)`: `from <module> import *` in `path` binds `torch`: the project's module
  it names (found as Python finds it from a folder above `path`, or relative to `path`) imports torch at its top
  level and exports it (no `__all__`, or one naming `torch`), itself or through a star import of its own (a
  package's `__init__`). A file that reaches torch so (yolov5's `from models.common import *`) is torch code.

- `group_helper(path, module, level, function)`: the project's function `function` of `module` (imported in `path`)
  starts a process group in its own body (`init_process_group`, on a backend not named `"gloo"`): "pinned" where
  its module may also pin the rank to a GPU (it names `set_device`, `device_id`, `CUDA_VISIBLE_DEVICES`, a launcher
  that pins, or `torch.cuda.device`), "unpinned" where it names none of them; "pins" where it starts no group but
  may pin so (`make_data_parallel(model, device)` that calls `torch.cuda.set_device(device)`); None where it does
  neither, or is not found (DEV009: a script set up by `utils.init_distributed_mode(args)`).

- `imports_cuda_only_code(path, module, level)`: the project's module `import <module>` (or `from <module> import
  name`, with `module.name` first) names in `path` places data on CUDA where nothing asks whether CUDA is there
  (`x.cuda()`, `torch.device("cuda")`, `device="cuda"`, `.to("cuda")`, outside any branch on a CUDA check or flag
  and outside `try:`) and shows no other device anywhere (no `is_available`, `torch.accelerator`, `"cpu"` or `"mps"`):
  code the file runs needs CUDA as written, so one hard-coded `"cuda"` more makes no machine fail that did not
  (DEV003: idr's `rend_util`, latent diffusion's samplers).

A rule asks through `IndexReads` (one per checked file), which records every question and answer:
the result cache stores them with the file's reports and uses the reports again only while the
index still gives the same answers (devlint/runner/cache.py). The files come from the engine
(devlint/engine/project.py): this module reads none itself. Resolving a saved value's name stops
on a cycle and at a depth bound, answering "not shown to be host data".
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

from devlint.analysis.screen import parse, walk
from devlint.analysis.vocabulary import DEVICE_SETTING_LAUNCHERS, device_backend

# (path, text) of every project file whose text holds the given word
FilesHolding = Callable[[str], Iterator[tuple[str, str]]]
# the text of one project file by its path; None for a path outside the project or not there
TextOf = Callable[[str], Optional[str]]

_FILE_NAME = re.compile(r"[\w\-]+\.(pt|pth|bin|ckpt|tar|pkl|pickle|npy|npz|th|model|safetensors|data|dat)\Z")
_CONSTANT = re.compile(r"[A-Z][A-Z0-9_]{2,}\Z")
# What a value is built from, when it is host data by construction
_HOST_METHODS = frozenset({"cpu", "numpy", "tolist", "item"})
_HOST_CALLS = frozenset({"list", "dict", "tuple", "int", "float", "str", "bool", "len", "set", "sorted", "range"})
_HOST_TORCH = frozenset({"from_numpy", "tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn",
                         "randint", "randperm", "arange", "linspace", "logspace", "eye", "LongTensor",
                         "FloatTensor", "Tensor", "IntTensor", "BoolTensor", "ByteTensor"})
_MAX_DEPTH = 8
MAX_CALLER_FILES = 40
_MAX_STAR_DEPTH = 4  # star imports followed through this many modules


def path_keys_of_code(code: str) -> frozenset[str]:
    """`path_keys` of an expression's source text (a rule's LibCST node, written out)."""
    try:
        return path_keys(ast.parse(code.strip(), mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()


def path_keys(expr: ast.AST) -> frozenset[str]:
    """The names in a file path's expression that identify the file across the project: file names
    written out (the last part of a string: `"runs/vocab.pt"` -> `vocab.pt`) and UPPER_CASE constants."""
    keys: set[str] = set()
    for node in walk(expr):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            last = node.value.replace("\\", "/").rsplit("/", 1)[-1]
            if _FILE_NAME.match(last):
                keys.add(last)
        elif isinstance(node, ast.Name) and _CONSTANT.match(node.id):
            keys.add(node.id)
        elif isinstance(node, ast.Attribute) and _CONSTANT.match(node.attr):
            keys.add(node.attr)
    return frozenset(keys)


@dataclass(frozen=True)
class CallShape:
    """How one call passes its arguments."""

    keywords: tuple[str, ...]  # sorted
    positional: int
    star: bool  # `*args` or `**kwargs`: anything may be passed

    def as_json(self) -> list:  # type: ignore[type-arg]
        return [list(self.keywords), self.positional, self.star]


class ProjectIndex:
    """The facts of one project, gathered on first use and kept."""

    def __init__(self, files_holding: FilesHolding, text_of: Optional[TextOf] = None) -> None:
        self._files_holding = files_holding
        self._text_of = text_of
        self._star_torch: dict[str, bool] = {}  # module file -> a star import of it binds `torch` (definite answers)
        self._star_open: set[str] = set()  # the module files being read (a star import back into one: a cycle)
        self._saves: Optional[dict[str, bool]] = None  # key -> every save of it writes host data
        self._calls: dict[str, Optional[tuple[CallShape, ...]]] = {}
        self._default_device: Optional[tuple[str, ...]] = None
        self._repeated: dict[str, bool] = {}
        self._callers: dict[str, Optional[list[ast.Module]]] = {}
        self._module_saves_host: Optional[tuple[tuple[str, bool], ...]] = None  # (folder, host) per module save
        self._group_helpers: dict[tuple[str, str], Optional[str]] = {}  # (module file, function) -> answer
        self._cuda_only: dict[str, bool] = {}  # module file -> it needs CUDA as written

    def _trees(self, word: str) -> Iterator[tuple[str, ast.Module]]:
        for path, text in self._files_holding(word):
            tree = parse(text)
            if tree is not None:
                yield path, tree

    def _functions_holding(self, word: str) -> Iterator[ast.Module]:
        """The `ast` of each function that holds `word` in the project's files (its text alone: a
        5,000-line module with one save costs one function's parse), else of the whole file."""
        for _, text in self._files_holding(word):
            for chunk in _enclosing_functions(text, word):
                tree = parse(chunk)
                if tree is None and chunk is not text:  # the extent read from the lines was wrong
                    tree = parse(text)
                    if tree is not None:
                        yield tree
                    break
                if tree is not None:
                    yield tree

    # -- torch.save ---------------------------------------------------------------------
    def saved_from_host(self, key: str) -> Optional[bool]:
        """True: the project saves files named by `key`, each from host data; False: some save may
        write device tensors; None: the project saves no file by that name."""
        if self._saves is None:
            self._saves = {}
            for tree in self._functions_holding("torch.save("):
                for path_expr, host in _saves_in(tree):
                    for found in path_keys(path_expr):
                        self._saves[found] = self._saves.get(found, True) and host
        return self._saves.get(key)

    # -- calls of a function ------------------------------------------------------------
    def calls_of(self, function: str) -> Optional[tuple[CallShape, ...]]:
        """Every call `function(...)` / `x.function(...)` in the project; None when too many files call
        a function of that name to read them all."""
        if function not in self._calls:
            trees = self._caller_trees(function)
            if trees is None:
                self._calls[function] = None
                return None
            shapes = [_shape(node) for tree in trees for node in walk(tree)
                      if type(node) is ast.Call and _called_name(node.func) == function]  # type: ignore[arg-type]
            self._calls[function] = tuple(sorted(shapes, key=lambda s: (s.keywords, s.positional, s.star)))
        return self._calls[function]

    def _caller_trees(self, function: str) -> Optional[list[ast.Module]]:
        """The `ast` of every project file that may call `function` (its text holds `function(`), parsed once for
        every question about its callers; None past `MAX_CALLER_FILES` files (too common a name to tell)."""
        if function not in self._callers:
            texts = []
            for _, text in self._files_holding(f"{function}("):
                texts.append(text)
                if len(texts) > MAX_CALLER_FILES:
                    self._callers[function] = None
                    return None
            self._callers[function] = [tree for tree in map(parse, texts) if tree is not None]
        return self._callers[function]

    def module_saves_on_host(self, path: str) -> bool:
        """The files nearest `path` that save a module's state with `torch.save` (its own folder's, else its parent's,
        out to the whole project: a folder of examples saves its own checkpoints) write host data in every such save
        (`model.cpu()` first, `{k: v.cpu() ...}`, a full state dict offloaded to the CPU): those checkpoints open on
        any machine."""
        if self._module_saves_host is None:
            self._module_saves_host = tuple(
                (os.path.dirname(os.path.abspath(file)), host) for file, tree in self._trees("torch.save(")
                for _, host, module_state in _saves_with_kind(tree) if module_state)
        folder = os.path.dirname(os.path.abspath(path))
        while True:
            near = [host for where, host in self._module_saves_host
                    if where == folder or where.startswith(folder.rstrip(os.sep) + os.sep)]
            if near:
                return all(near)
            parent = os.path.dirname(folder)
            if parent == folder:
                return False
            folder = parent

    def called_repeatedly(self, function: str) -> bool:
        """Some call `function(...)` / `x.function(...)` in the project is inside a loop, a comprehension or a
        function that runs per step (`repeating_function`)."""
        if function not in self._repeated:
            trees = self._caller_trees(function)
            self._repeated[function] = trees is not None and any(_calls_repeatedly(tree, function) for tree in trees)
        return self._repeated[function]

    # -- the default device -------------------------------------------------------------
    def default_device_for(self, path: str) -> bool:
        if self._default_device is None:
            self._default_device = tuple(sorted(
                file for file, tree in self._trees("set_default_device")
                if _calls_at_top_level(tree, "set_default_device")))
        folder = os.path.dirname(os.path.abspath(path))
        for file in self._default_device:
            if os.path.basename(file) != "conftest.py":
                return True
            where = os.path.dirname(os.path.abspath(file))
            if folder == where or folder.startswith(where + os.sep):
                return True
        return False

    # -- star imports -------------------------------------------------------------------
    def star_brings_torch(self, path: str, module: str, level: int) -> bool:
        """`from <module> import *` (`level` dots before it) in the file `path` binds `torch` to the torch module."""
        found = self._module_file(path, module, level)
        return found is not None and self._exports_torch(*found, depth=0)[0]

    def _module_file(self, path: str, module: str, level: int) -> Optional[tuple[str, str]]:
        """(path, text) of the project's module `from <module> import *` names in `path`: relative to `path`'s
        folder with `level`, else the first folder up from `path`'s that holds it (a script's own folder, then the
        project's: where Python looks first)."""
        if self._text_of is None:
            return None
        parts = module.split(".") if module else []
        folder = os.path.dirname(os.path.abspath(path))
        for _ in range(level - 1):
            folder = os.path.dirname(folder)
        folders = [folder]
        while not level and os.path.dirname(folders[-1]) != folders[-1]:
            folders.append(os.path.dirname(folders[-1]))
        for base in folders:
            target = os.path.join(base, *parts)
            for candidate in ((target + ".py",) if parts else ()) + (os.path.join(target, "__init__.py"),):
                text = self._text_of(candidate)
                if text is not None:
                    return candidate, text
        return None

    def group_helper(self, path: str, module: str, level: int, function: str) -> Optional[str]:
        """Does the project's `function` of `module` (imported in `path`, `level` dots before it) start a process
        group, and may its module pin the rank ("pinned", "unpinned"; "pins": it starts none but may pin; None: it
        does neither, or is not found)?"""
        found = self._module_file(path, module, level)
        if found is None:
            return None
        key = (found[0], function)
        if key not in self._group_helpers:
            tree = parse(found[1])
            definition = next((statement for statement in tree.body if type(statement) in (
                ast.FunctionDef, ast.AsyncFunctionDef) and statement.name == function), None) if tree else None
            if definition is None:
                self._group_helpers[key] = None
            else:
                starts = _group_start_in(definition)  # type: ignore[arg-type]
                may_pin = _may_pin(tree, definition, found[1])  # type: ignore[arg-type]
                self._group_helpers[key] = ("pinned" if may_pin else "unpinned") if starts else (
                    "pins" if may_pin else None)
        return self._group_helpers[key]

    # -- code that needs CUDA as written -------------------------------------------------
    def imports_cuda_only_code(self, path: str, module: str, level: int) -> bool:
        """The project's module `module` names in `path` (`level` dots before it) places data on CUDA unguarded and
        names no other device (the module docstring)."""
        found = self._module_file(path, module, level) if module or level else None
        if found is None or os.path.abspath(found[0]) == os.path.abspath(path):
            return False
        if found[0] not in self._cuda_only:
            tree = parse(found[1]) if "cuda" in found[1] else None
            self._cuda_only[found[0]] = tree is not None and _needs_cuda_as_written(tree)
        return self._cuda_only[found[0]]

    def _exports_torch(self, path: str, text: str, depth: int) -> tuple[bool, bool]:
        """(a star import of the module binds `torch`, the answer was cut short: by the depth bound, or by a star
        import back into a module still being read). Only an answer not cut short is kept: a module reached late in
        a chain, or inside a cycle, is read again when asked from its own start."""
        if path in self._star_torch:
            return self._star_torch[path], False
        if path in self._star_open:
            return False, True
        self._star_open.add(path)
        try:
            tree = parse(text)
            found, cut = self._binds_torch(path, tree, depth) if tree is not None else (False, False)
        finally:
            self._star_open.discard(path)
        if found or not cut:
            self._star_torch[path] = found
        return found, cut

    def _binds_torch(self, path: str, tree: ast.Module, depth: int) -> tuple[bool, bool]:
        """The module binds `torch` at its top level (outside functions and classes) and a star import exports it;
        and whether a star import of its own was left unread (`_exports_torch`)."""
        exported = _all_names(tree)
        if exported is not None and "torch" not in exported:
            return False, False
        cut = False
        for node in _top_level(tree.body):
            if type(node) is ast.Import and any(alias.name.partition(".")[0] == "torch"
                                                and alias.asname in (None, "torch") for alias in node.names):
                return True, False
            if (type(node) is ast.ImportFrom and any(a.name == "*" for a in node.names)
                    and not (node.level == 0 and (node.module or "").partition(".")[0] == "torch")):
                if depth >= _MAX_STAR_DEPTH:
                    cut = True
                    continue
                found = self._module_file(path, node.module or "", node.level)
                if found is not None:
                    binds, inner_cut = self._exports_torch(*found, depth=depth + 1)
                    if binds:
                        return True, False
                    cut = cut or inner_cut
        return False, cut


# What a module that may pin its rank to a GPU names: a pinning call, the device of a process group, one visible GPU
# per rank, or a launcher that pins when it starts
_MAY_PIN = re.compile(r"set_device|device_id\b|CUDA_VISIBLE_DEVICES|cuda\.device\b|\b(%s)\b"
                      % "|".join(sorted(DEVICE_SETTING_LAUNCHERS)))


def _group_start_in(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`init_process_group(...)` (any receiver) in the function's body, some on a backend not named `"gloo"`."""
    backends = []
    for node in ast.walk(function):
        if type(node) is ast.Call and _called_name(node.func) == "init_process_group":
            given = node.args[0] if node.args else next(
                (keyword.value for keyword in node.keywords if keyword.arg == "backend"), None)
            backends.append(given.value if type(given) is ast.Constant else None)
    return any(backend != "gloo" for backend in backends)


def _may_pin(tree: ast.Module, function: ast.FunctionDef | ast.AsyncFunctionDef, text: str) -> bool:
    """The function, the module's functions it calls (by name, through each other) or the module's statements outside
    its functions and classes name what may pin the rank (`_MAY_PIN`)."""
    functions = {statement.name: statement for statement in tree.body
                 if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef)}
    read: list[ast.AST] = [s for s in tree.body if type(s) not in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)]
    stack, seen = [function], {function.name}
    while stack:
        current = stack.pop()
        read.append(current)
        for node in ast.walk(current):
            if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id in functions:
                if node.func.id not in seen:
                    seen.add(node.func.id)
                    stack.append(functions[node.func.id])  # type: ignore[arg-type]
    return any(_MAY_PIN.search(ast.get_source_segment(text, node) or "") for node in read)


class IndexReads:
    """A file's view of the project index: every question asked and its answer are recorded (the
    cache key of the file's reports). Without an index (a text with no project), nothing is known."""

    def __init__(self, index: Optional[ProjectIndex]) -> None:
        self.index = index
        self.reads: dict[str, object] = {}  # "kind:argument" -> the answer, as JSON

    def saved_from_host(self, key: str) -> Optional[bool]:
        if self.index is None:
            return None
        answer = self.index.saved_from_host(key)
        self.reads[f"saved_from_host:{key}"] = answer
        return answer

    def calls_of(self, function: str) -> Optional[tuple[CallShape, ...]]:
        if self.index is None:
            return None
        answer = self.index.calls_of(function)
        self.reads[f"calls_of:{function}"] = _calls_json(answer)
        return answer

    def module_saves_on_host(self, path: str) -> bool:
        if self.index is None:
            return False
        answer = self.index.module_saves_on_host(path)
        self.reads[f"module_saves_on_host:{path}"] = answer
        return answer

    def called_repeatedly(self, function: str) -> bool:
        if self.index is None:
            return False
        answer = self.index.called_repeatedly(function)
        self.reads[f"called_repeatedly:{function}"] = answer
        return answer

    def default_device_for(self, path: str) -> bool:
        if self.index is None:
            return False
        answer = self.index.default_device_for(path)
        self.reads[f"default_device_for:{path}"] = answer
        return answer

    def star_brings_torch(self, path: str, module: str, level: int) -> bool:
        if self.index is None:
            return False
        answer = self.index.star_brings_torch(path, module, level)
        self.reads["star_brings_torch:" + json.dumps([path, module, level])] = answer
        return answer

    def group_helper(self, path: str, module: str, level: int, function: str) -> Optional[str]:
        if self.index is None:
            return None
        answer = self.index.group_helper(path, module, level, function)
        self.reads["group_helper:" + json.dumps([path, module, level, function])] = answer
        return answer

    def imports_cuda_only_code(self, path: str, module: str, level: int) -> bool:
        if self.index is None:
            return False
        answer = self.index.imports_cuda_only_code(path, module, level)
        self.reads["imports_cuda_only_code:" + json.dumps([path, module, level])] = answer
        return answer


def answer(index: ProjectIndex, read: str) -> object:
    """The index's answer now to a recorded question (`IndexReads.reads`' keys), as JSON."""
    kind, _, argument = read.partition(":")
    if kind == "saved_from_host":
        return index.saved_from_host(argument)
    if kind == "calls_of":
        return _calls_json(index.calls_of(argument))
    if kind == "default_device_for":
        return index.default_device_for(argument)
    if kind == "module_saves_on_host":
        return index.module_saves_on_host(argument)
    if kind == "called_repeatedly":
        return index.called_repeatedly(argument)
    if kind == "star_brings_torch":
        path, module, level = json.loads(argument)
        return index.star_brings_torch(path, module, level)
    if kind == "group_helper":
        path, module, level, function = json.loads(argument)
        return index.group_helper(path, module, level, function)
    if kind == "imports_cuda_only_code":
        path, module, level = json.loads(argument)
        return index.imports_cuda_only_code(path, module, level)
    raise ValueError(f"unknown index question {read!r}")


# Words of a test that may say whether CUDA is there: `torch.cuda.is_available()`, `args.cuda`, `use_gpu`, `n_gpu > 0`
_CUDA_TEST_WORDS = ("cuda", "gpu", "is_available", "device_count")
# Names that show a module choosing among devices
_DEVICE_CHOICE_WORDS = frozenset({"is_available", "accelerator"})


def _needs_cuda_as_written(tree: ast.Module) -> bool:
    """The module places data on CUDA outside any branch on a CUDA test and outside `try:`, and names no other device
    nor a check of what the machine has (`imports_cuda_only_code`)."""
    for node in walk(tree):
        word = node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else None
        if word in _DEVICE_CHOICE_WORDS or (type(node) is ast.Constant and type(node.value) is str
                                            and node.value.partition(":")[0] in ("cpu", "mps")):
            return False
    unguarded: list[ast.AST] = [tree]
    while unguarded:
        node = unguarded.pop()
        if _places_on_cuda(node):
            return True
        if type(node) in (ast.If, ast.IfExp, ast.While) and _tests_cuda(node.test):  # type: ignore[attr-defined]
            unguarded.append(node.test)  # type: ignore[attr-defined]
        elif type(node) is ast.Try:
            unguarded.extend(node.handlers + node.orelse + node.finalbody)  # type: ignore[attr-defined,operator]
        else:
            unguarded.extend(ast.iter_child_nodes(node))
    return False


def _tests_cuda(test: ast.expr) -> bool:
    return any(any(word in name.lower() for word in _CUDA_TEST_WORDS) for node in walk(test)
               for name in ((node.id,) if type(node) is ast.Name else (node.attr,) if type(node) is ast.Attribute
                            else ()))


def _places_on_cuda(node: ast.AST) -> bool:
    """`x.cuda()` / `x.cuda(0)`, `torch.device("cuda")`, `x.to("cuda")`, `device="cuda"` (`"cuda:N"` too)."""
    if type(node) is not ast.Call:
        return False
    func = node.func  # type: ignore[attr-defined]
    if type(func) is ast.Attribute and func.attr == "cuda":
        return not node.keywords and (not node.args or (len(node.args) == 1  # type: ignore[attr-defined]
                                                        and type(node.args[0]) is ast.Constant))  # type: ignore
    if type(func) is ast.Attribute and func.attr in ("device", "to") and node.args:  # type: ignore[attr-defined]
        return _is_cuda_string(node.args[0])  # type: ignore[attr-defined]
    return any(keyword.arg == "device" and _is_cuda_string(keyword.value)
               for keyword in node.keywords)  # type: ignore[attr-defined]


def _is_cuda_string(expr: ast.expr) -> bool:
    return type(expr) is ast.Constant and type(expr.value) is str and device_backend(expr.value) == "cuda"


_DEF = re.compile(r"([ \t]*)(?:async[ \t]+)?def[ \t]")


def _enclosing_functions(text: str, word: str) -> Iterator[str]:
    """The text of the outermost function around each line holding `word`, dedented; the whole
    text where a line is outside every function (or a function's extent is unclear)."""
    lines = text.splitlines(keepends=True)
    done: set[int] = set()
    for number, line in enumerate(lines):
        if word not in line:
            continue
        start = None
        threshold = _indent(line)
        for above in range(number - 1, -1, -1):
            text_above = lines[above]
            if not text_above.strip() or text_above.lstrip().startswith("#"):
                continue
            indent = _indent(text_above)
            if indent < threshold:  # the header of a block around the line
                threshold = indent
                if _DEF.match(text_above):
                    start = above  # keep looking: the outermost function
            if threshold == 0:
                break
        if start is None:
            yield text
            return
        if start in done:
            continue
        done.add(start)
        while start > 0 and lines[start - 1].lstrip().startswith("@"):
            start -= 1
        depth = _indent(lines[start])
        end = number + 1
        while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > depth):
            end += 1
        yield "".join(l[depth:] if l[:depth].strip() == "" else l for l in lines[start:end])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _calls_json(shapes: Optional[tuple[CallShape, ...]]) -> Optional[list]:  # type: ignore[type-arg]
    return None if shapes is None else [shape.as_json() for shape in shapes]


# -- what the facts are read from ---------------------------------------------------------
def _torch_aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(local names of the torch module, local names of `torch.save` itself)."""
    modules, saves = {"torch"}, set()
    for node in walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch" and alias.asname:
                    modules.add(alias.asname)
        elif isinstance(node, ast.ImportFrom) and node.module == "torch":
            for alias in node.names:
                if alias.name == "save":
                    saves.add(alias.asname or "save")
    return modules, saves


def _saves_in(tree: ast.Module) -> Iterator[tuple[ast.expr, bool]]:
    """(the path expression, whether the saved value is host data) of every `torch.save(obj, path)`."""
    return ((path, host) for path, host, _ in _saves_with_kind(tree))


def _saves_with_kind(tree: ast.Module) -> Iterator[tuple[ast.expr, bool, bool]]:
    """`_saves_in`, and whether each save writes a module's state (a `state_dict()`, directly or through a name)."""
    modules, saves = _torch_aliases(tree)
    offloads = _offloads_to_cpu(tree)
    for scope in _scopes(tree):
        for node in _own_nodes(scope):
            if type(node) is not ast.Call:
                continue
            func = node.func
            is_save = (isinstance(func, ast.Attribute) and func.attr == "save" and isinstance(func.value, ast.Name)
                       and func.value.id in modules) or (isinstance(func, ast.Name) and func.id in saves)
            if not is_save:
                continue
            obj = node.args[0] if node.args else _keyword(node, "obj")
            path = node.args[1] if len(node.args) > 1 else _keyword(node, "f")
            if obj is None or path is None:
                continue
            bindings = _Bindings(scope, _moved_to_host(scope, offloads, modules))
            yield path, _is_host(obj, bindings, modules, set(), 0), _holds_module_state(obj, bindings, set())


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree, *(node for node in walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of `scope`, not those of the functions nested in it."""
    stack = list(scope.body) if isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else [scope]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                stack.append(child)


_FILLING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add"})


class _Bindings:
    """The values a scope assigns to each plain name (every assignment, anywhere in the scope),
    and those it puts into it (`d["k"] = v`, `d.k = v`, `d.update(v)`, `xs.append(v)`)."""

    def __init__(self, scope: ast.AST, on_host: frozenset[str] = frozenset()) -> None:
        self.values: dict[str, list[Optional[ast.expr]]] = {}
        self.on_host = on_host  # modules the scope moves to the CPU (`model.cpu()`): their `state_dict()` is host data
        self.rehosted = _rehosted(scope)  # dicts the scope moves to the CPU entry by entry
        for node in _own_nodes(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
                self.values.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in _FILLING_METHODS and isinstance(node.func.value, ast.Name):
                values = self.values.setdefault(node.func.value.id, [])
                values.extend(node.args or [None])
                values.extend(keyword.value for keyword in node.keywords)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr)):
                target = getattr(node, "target", None) or getattr(node, "optional_vars", None)
                if target is not None:
                    self._bind(target, None)  # bound to something not shown here
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = scope.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                self.values.setdefault(arg.arg, []).append(None)

    def _bind(self, target: ast.expr, value: Optional[ast.expr]) -> None:
        if isinstance(target, ast.Name):
            self.values.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            container = target.value
            while isinstance(container, (ast.Subscript, ast.Attribute)):
                container = container.value
            if isinstance(container, ast.Name):
                self.values.setdefault(container.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, None)


def _is_host(expr: Optional[ast.expr], bindings: _Bindings, torch: set[str], seen: set[str], depth: int) -> bool:
    """Is `expr` host data by construction? Names are followed through the scope's assignments
    (every one must be host data), stopping on a cycle and at a depth bound (answer: no)."""
    if expr is None or depth > _MAX_DEPTH:
        return False
    kind = type(expr)
    if kind is ast.Constant:
        return True
    if kind in (ast.List, ast.Tuple, ast.Set):
        return all(_is_host(e, bindings, torch, seen, depth + 1) for e in expr.elts)  # type: ignore[attr-defined]
    if kind is ast.Dict:
        return all(_is_host(v, bindings, torch, seen, depth + 1) for v in expr.values)  # type: ignore[attr-defined]
    if kind in (ast.ListComp, ast.SetComp, ast.GeneratorExp):
        return _is_host(expr.elt, bindings, torch, seen, depth + 1)  # type: ignore[attr-defined]
    if kind is ast.DictComp:
        return _is_host(expr.value, bindings, torch, seen, depth + 1)  # type: ignore[attr-defined]
    if kind is ast.Name:
        name = expr.id  # type: ignore[attr-defined]
        if name in bindings.rehosted:
            return True
        values = bindings.values.get(name)
        if not values or name in seen:
            return False
        inner = seen | {name}
        return all(_is_host(value, bindings, torch, inner, depth + 1) for value in values)
    if kind is ast.Call:
        func = expr.func  # type: ignore[attr-defined]
        if isinstance(func, ast.Attribute):
            if func.attr in _HOST_METHODS:
                return True
            if func.attr == "state_dict" and isinstance(func.value, ast.Name) and func.value.id in bindings.on_host:
                return True
            if func.attr == "to" and expr.args and _is_cpu_string(expr.args[0]):  # type: ignore[attr-defined]
                return True
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id in ("np", "numpy"):
                return True
            if isinstance(owner, ast.Name) and owner.id in torch and func.attr in _HOST_TORCH:
                device = _keyword(expr, "device")  # type: ignore[arg-type]
                return device is None or _is_cpu_string(device)
            return False
        if isinstance(func, ast.Name) and func.id in _HOST_CALLS:
            return True
    return False


def _offloads_to_cpu(tree: ast.Module) -> bool:
    """The file writes `offload_to_cpu=True` (a full state dict taken to the CPU, FSDP's `FullStateDictConfig`)."""
    return any(isinstance(node, ast.keyword) and node.arg == "offload_to_cpu"
               and isinstance(node.value, ast.Constant) and node.value.value is True for node in walk(tree))


def _moved_to_host(scope: ast.AST, offloads: bool, torch: set[str]) -> frozenset[str]:
    """The names a scope moves to the CPU in place as a statement (`model.cpu()`, `net.eval().cpu()`,
    `model.to("cpu")`), or binds to what a load mapped to the CPU gives (`model = torch.load(p, map_location="cpu")
    ["model"]`): a module, whose `state_dict()` is then host data. Also every name whose state the scope takes under
    a full state dict offloaded to the CPU (`with FSDP.state_dict_type(m, ..., cfg)` where the file writes
    `offload_to_cpu=True`: `offloads`)."""
    names: set[str] = set()
    for node in _own_nodes(scope):
        if isinstance(node, ast.Assign) and _loaded_to_host(node.value, torch):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if isinstance(call.func, ast.Attribute) and (call.func.attr == "cpu" or (
                    call.func.attr == "to" and call.args and _is_cpu_string(call.args[0]))):
                receiver = call.func.value
                while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
                    receiver = receiver.func.value  # `net.eval().cpu()`
                if isinstance(receiver, ast.Name):
                    names.add(receiver.id)
        elif offloads and isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call) and isinstance(
                node.context_expr.func, ast.Attribute) and node.context_expr.func.attr == "state_dict_type":
            names.update(arg.id for arg in node.context_expr.args[:1] if isinstance(arg, ast.Name))
    return frozenset(names)


def _loaded_to_host(expr: ast.expr, torch: set[str]) -> bool:
    """`torch.load(path, map_location="cpu")` (also `torch.device("cpu")`, `lambda storage, loc: storage`), or an
    entry of it (`[...]["model"]`): every tensor in it is on the host."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "load"
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id in torch):
        return False
    where = _keyword(expr, "map_location") or (expr.args[1] if len(expr.args) > 1 else None)
    if where is None:
        return False
    if isinstance(where, ast.Call) and where.args and _called_name(where.func) == "device":
        where = where.args[0]
    if isinstance(where, ast.Lambda) and where.args.args and isinstance(where.body, ast.Name):
        return where.body.id == where.args.args[0].arg  # `lambda storage, loc: storage`: left where it was read
    return _is_cpu_string(where)


def _rehosted(scope: ast.AST) -> frozenset[str]:
    """The dicts a scope moves to the CPU entry by entry (`for k, v in state.items(): state[k] = v.cpu()`, basicsr's
    `save_network`): each of their values is then host data, whatever the dict was made from."""
    names: set[str] = set()
    for node in _own_nodes(scope):
        if not (isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call)
                and isinstance(node.iter.func, ast.Attribute) and node.iter.func.attr == "items"
                and isinstance(node.iter.func.value, ast.Name) and isinstance(node.target, ast.Tuple)
                and len(node.target.elts) == 2 and all(isinstance(e, ast.Name) for e in node.target.elts)):
            continue
        owner = node.iter.func.value.id
        value = node.target.elts[1].id  # type: ignore[attr-defined]
        for statement in node.body:
            if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], ast.Subscript)
                    and isinstance(statement.targets[0].value, ast.Name) and statement.targets[0].value.id == owner
                    and _moves_to_host(statement.value, value)):
                names.add(owner)
    return frozenset(names)


def _moves_to_host(expr: ast.expr, name: str) -> bool:
    """`name.cpu()`, `name.detach().cpu()`, `name.to("cpu")`: `name`'s value, on the host."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)):
        return False
    if not (expr.func.attr == "cpu" or (expr.func.attr == "to" and expr.args and _is_cpu_string(expr.args[0]))):
        return False
    receiver = expr.func.value
    while isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Attribute):
        receiver = receiver.func.value  # `v.detach().cpu()`
    return isinstance(receiver, ast.Name) and receiver.id == name


def _holds_module_state(expr: Optional[ast.expr], bindings: _Bindings, seen: set[str]) -> bool:
    """`expr` is or holds a `state_dict()` (also through the names it is built from)."""
    for node in walk(expr) if expr is not None else ():
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "state_dict":
            return True
        if isinstance(node, ast.Name) and node.id not in seen:
            seen.add(node.id)
            if any(_holds_module_state(value, bindings, seen) for value in bindings.values.get(node.id, ())):
                return True
    return False


def _is_cpu_string(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value == "cpu"


def _called_name(func: ast.expr) -> Optional[str]:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _shape(call: ast.Call) -> CallShape:
    star = any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords)
    keywords = tuple(sorted(k.arg for k in call.keywords if k.arg is not None))
    return CallShape(keywords, sum(not isinstance(arg, ast.Starred) for arg in call.args), star)


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def repeating_function(name: str) -> bool:
    """A function that runs once per batch or step: a module's `forward`, `__call__`, a training or eval step."""
    return name in ("forward", "__call__", "step") or name.endswith("_step")


def _calls_repeatedly(tree: ast.Module, name: str) -> bool:
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, repeats = stack.pop()
        if type(node) is ast.Call and repeats and _called_name(node.func) == name:  # type: ignore[attr-defined]
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            repeats = repeating_function(node.name)  # a loop around a definition does not run its body
        elif isinstance(node, _LOOPS):
            repeats = True
        stack.extend((child, repeats) for child in ast.iter_child_nodes(node))
    return False


def _calls_at_top_level(tree: ast.Module, name: str) -> bool:
    """A call of `...name(...)` in a statement at the module's top level (or in a fixture-free
    `if __name__ == "__main__":` block, which is the top level of a script)."""
    statements: list[ast.stmt] = list(tree.body)
    while statements:
        statement = statements.pop()
        if isinstance(statement, ast.If):
            statements.extend(statement.body)
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for node in walk(statement):
            if type(node) is ast.Call and _called_name(node.func) == name:  # type: ignore[attr-defined]
                return True
    return False


def _all_names(tree: ast.Module) -> Optional[set[str]]:
    """The names a star import of the module brings where it says (`__all__ = [...]`, literal strings); None where
    it does not say (every public name then); an empty set where `__all__` is computed (nothing shown)."""
    names: Optional[set[str]] = None
    for node in _top_level(tree.body):
        targets = node.targets if type(node) is ast.Assign else [node.target] if type(node) in (
            ast.AugAssign, ast.AnnAssign) else []
        if any(type(target) is ast.Name and target.id == "__all__" for target in targets):
            value = node.value  # type: ignore[attr-defined]
            literal = type(value) in (ast.List, ast.Tuple) and all(
                type(element) is ast.Constant and isinstance(element.value, str) for element in value.elts)
            if not literal:
                return set()
            names = (names or set()) | {element.value for element in value.elts}
    return names


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The module's statements outside functions and classes, into `if`, `try` and `with` blocks."""
    for statement in body:
        yield statement
        if type(statement) in (ast.If, ast.Try, ast.With) or type(statement).__name__ == "TryStar":
            for block in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(statement, block, []))
            for handler in getattr(statement, "handlers", []):
                yield from _top_level(handler.body)
