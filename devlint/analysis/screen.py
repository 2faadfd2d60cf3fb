"""The syntax screen: which rules have a candidate in a module, asked of Python's own parser.

The second stage of the prefilter (the first is the text search of devlint/analysis/prefilter.py). A
file that holds a rule's words often holds nothing the rule could report: `torch.zeros` in a
docstring, a `.to(device)` whose result is used, factories only in `__init__`. LibCST's parse
costs about twelve times `ast.parse`, and the rules' analysis as much again, so each rule
declares a cheap `screen` over the facts gathered here from one `ast` walk, and a file for
which no rule is left is never parsed by LibCST.

A screen must be *conservative*: it answers "could the rule report here?", and may say yes
where the rule then finds nothing, never no where it would report. So every fact below is a
superset of what the LibCST analysis uses: torch aliases from every import anywhere in the file
(the analysis records them in order), every class with a `forward` (the analysis wants an
`nn.Module`), a function's extent by lines (decorators included). `tests/test_prefilter.py` runs
every rule with and without both stages over the fixtures and generated programs and asserts the
same reports; `benchmarks/prefilter_check.py` does the same over a corpus of real code.

When `ast` cannot parse the text (a newer grammar than this Python's, null bytes, nesting that
CPython refuses), nothing is screened: LibCST decides, and reports a syntax error if it must.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Callable, Iterable, Iterator, Optional

from devlint.analysis.prefilter import ANY_ACCELERATOR_STRING, without_continuations
from devlint.analysis.torch_operations import SAME_DEVICE_FUNCTIONAL, SAME_DEVICE_FUNCTIONS, SAME_DEVICE_METHODS
from devlint.analysis.vocabulary import (
    ACCELERATOR_TYPES, CAST_METHODS, DTYPE_NAMES, ELEMENTWISE, FACTORIES, JOINING, LIKE_FACTORIES, NON_TENSOR_METHODS,
    device_backend, is_cuda_runtime_value,
)

# The factories that may make a tensor on the host (the like-factories follow their argument)
CPU_FACTORIES = frozenset(f"torch.{name}" for name in FACTORIES - LIKE_FACTORIES)
# The methods that move a tensor to a device; `.to(...)` also when it only casts (a superset).
MOVE_METHODS = ("to", "cuda")
# `.numpy()` and NumPy's functions that convert a tensor (DEV006's candidates)
NUMPY_CONVERSIONS = ("numpy", "asarray", "array")
# NumPy functions that read their first argument's values through `__array__` (ufuncs, and functions that
# begin with `asanyarray`): given a CUDA tensor they raise as `.numpy()` does. Not the reductions and
# reshapes (`np.sum`, `np.mean`, `np.argmax`, `np.transpose`, ...): they call the tensor's own method.
# Those asked of values a model computed (checks and summaries); NumPy's math on NumPy data is left out.
NUMPY_READERS = frozenset({
    "isnan", "isinf", "isfinite", "isneginf", "isposinf", "nan_to_num", "unique", "percentile", "quantile",
    "median", "nanmean", "nansum", "nanmax", "nanmin", "nanstd", "allclose", "isclose", "array_equal",
    "ascontiguousarray", "asanyarray", "histogram", "bincount", "count_nonzero",
})
# scikit-learn's metrics: each reads its first two arguments (`y_true`, `y_pred` / `y_score`, `X`, `labels`) with
# `np.asarray` (through `check_array` / `column_or_1d`), which raises on a CUDA tensor as `.numpy()` does.
SKLEARN_READERS = frozenset({
    "accuracy_score", "balanced_accuracy_score", "confusion_matrix", "multilabel_confusion_matrix", "f1_score",
    "fbeta_score", "precision_score", "recall_score", "precision_recall_fscore_support", "classification_report",
    "roc_auc_score", "roc_curve", "precision_recall_curve", "average_precision_score", "matthews_corrcoef",
    "cohen_kappa_score", "log_loss", "mean_squared_error", "mean_absolute_error", "r2_score", "top_k_accuracy_score",
    "jaccard_score", "hamming_loss", "explained_variance_score", "adjusted_rand_score", "normalized_mutual_info_score",
    "silhouette_score",
})
# Where values meet on one device (joining calls, elementwise math, same-device functions and methods): the
# screens' and DEV005's (its screen: devlint/rules/dev005_host_tensor_meets_input/screen.py).
MEETING_CALLS = JOINING | ELEMENTWISE | SAME_DEVICE_FUNCTIONS | SAME_DEVICE_METHODS | SAME_DEVICE_FUNCTIONAL
# After these a tensor is placed (DEV005's `_moves`): on a device, or on the host on purpose.
_PLACING_METHODS = ("cpu", "cuda", "type_as", "numpy", "tolist", "item")


# Fields that never hold a node the screens look for: names and numbers, and the `ctx`/operator
# leaves that `ast.walk` yields (a third of its nodes).
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "module", "level", "kind",
                          "conversion", "is_async", "type_comment", "type_ignores"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
# What binds a name to a value, besides assignments and functions: `_accelerator_names` reads their values.
_OTHER_BINDERS = frozenset({ast.AugAssign, ast.NamedExpr, ast.For, ast.comprehension})


# The environment variable that says which GPUs a process sees (DEV013 reads where it is set)
VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES"


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under `node` (itself included) but the leaves above, depth first: `ast.walk`'s
    nodes for every question the screens ask, at a quarter of its cost."""
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        yield node
        kind = type(node)
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _CHILD_FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        push(item)
            elif isinstance(value, ast.AST):
                push(value)


class SyntaxFacts:
    """What one walk over a module's `ast` tells the rules' screens."""

    def __init__(self, tree: ast.Module, preview: bool = True, source: Optional[str] = None) -> None:
        self.tree = tree
        # Preview is on: a screen keeps the rule for its preview shapes too (a rule may screen for fewer without).
        self.preview = preview
        self.source = source  # the file's text (None: not given), for what only its words can tell
        self._names_an_accelerator: Optional[bool] = None
        self._accelerator_bound: Optional[set[str]] = None  # names bound to what may name an accelerator
        self._binders: list[ast.AST] = []  # every node that binds a name to a value (for `_accelerator_names`)
        # local name -> every torch name it is bound to by some import (plain `torch` always)
        self.aliases: dict[str, set[str]] = {"torch": {"torch"}}
        self.calls: list[ast.Call] = []  # calls of a name or a dotted name
        self.moves: list[ast.Call] = []  # `R.to(...)`, `R.cuda(...)`
        self.methods_called: set[str] = set()  # `m` of every `R.m(...)`
        self.methods_discarded: set[str] = set()  # `m` of `R.m(...)` as a statement of its own
        self.discarded_calls: list[ast.Call] = []  # each such `R.m(...)`
        self.assigned_calls: list[tuple[str, ast.Call]] = []  # `x = f(...)`
        self.moved_in_place: set[str] = set()  # `x` of `x = x.to(...)` / `x = x.cuda(...)` (not to a dtype only)
        self.moved_callees: set[str] = set()  # `f` of every `f(...).to(...)` / `m.f(...).cuda(...)`
        self.classes: list[ast.ClassDef] = []
        self.torch_imports: list[ast.Import | ast.ImportFrom] = []  # every import of torch, anywhere
        # every import of numpy or scikit-learn, anywhere (DEV006 reads their names as the file's)
        self.numpy_imports: list[ast.Import | ast.ImportFrom] = []
        self.globals: list[ast.Global] = []
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        # A `"cuda"` / `"cuda:N"` (or `"mps"`, `"xpu:N"`) literal where DEV003 looks: a call's first
        # argument, `device=` or `map_location=`, a dict's value, an assigned value, a parameter's default.
        self.accelerator_string = False
        self.device_calls: list[ast.Call] = []  # calls given `device=`
        self.conversions: list[ast.Call] = []  # `R.numpy(...)`, `R.asarray(...)`, `R.array(...)`
        self.numpy_conversions: set[str] = set()  # local names of `from numpy import asarray, array, isnan`
        self.numpy_modules: set[str] = set()  # `np` of `import numpy as np`
        self._numpy_reads: list[ast.Call] = []  # `R.isnan(...)`: a conversion where `R` is NumPy
        self.sklearn_modules: set[str] = set()  # `metrics` of `from sklearn import metrics`, `sklearn`
        self._sklearn_reads: list[ast.Call] = []  # `R.f1_score(...)`: a conversion where `R` is scikit-learn's
        self.bare_cuda_string = False  # a `"cuda"` literal anywhere, without an index (DEV009)
        self.local_rank_string = False  # a `"LOCAL_RANK"` literal anywhere (DEV009)
        # `"cuda:N"` and `VISIBLE_DEVICES` literals, in the order of the walk (DEV013)
        self.indexed_cuda_strings: list[ast.Constant] = []
        # `m` of every `R.m(..., non_blocking=...)` (DEV010); `to` only where the target may be the host:
        # a literal or a call (`"cpu"`, `torch.device("cpu")`), never a name (the rule needs to see "cpu")
        self.nonblocking_methods: set[str] = set()
        # ids of calls whose value only passes through methods that meet nothing (`.view()`, `.float()`)
        # to one that places it or reads a Python value from it (`.to(device)`, `.item()`, `.size()`)
        self.spent: set[int] = set()
        # DEV005's screen, for each function in the order of the source (as LibCST visits them): may a
        # factory's tensor meet an input there? None until asked (devlint/rules/dev005_*/visitor.py).
        self.host_meeting_functions: Optional[list[bool]] = None
        # DEV005's screen: the names of the classes that may start an attribute on the host and concatenate onto it
        self.accumulating_classes: set[str] = set()
        # a rule's candidates (`Rule.candidates`), found so far, and what finds the rest
        self._candidates: dict[object, tuple[list[ast.AST], Iterator[ast.AST]]] = {}
        # what a rule's own analysis read from `tree`, once for its screen and its visitor (key: the rule's)
        self.memo: dict[object, object] = {}
        self._functions_in_order: Optional[list[ast.FunctionDef | ast.AsyncFunctionDef]] = None
        self._every_call: Optional[list[ast.Call]] = None
        self._with_forward: Optional[dict[str, ast.ClassDef]] = None
        self._nodes_in: dict[int, list[ast.AST]] = {}
        self._gather(tree)

    def candidates_of(self, candidates: Callable[["SyntaxFacts"], Iterable[ast.AST]]) -> Iterator[ast.AST]:
        """`candidates(self)`, each found once however often asked: the screen asks for one, the LibCST stage
        for all of them (devlint/analysis/needed.py)."""
        found, rest = self._candidates.setdefault(candidates, ([], iter(candidates(self))))
        index = 0
        while True:
            if index == len(found):
                following = next(rest, None)
                if following is None:
                    return
                found.append(following)
            yield found[index]
            index += 1

    def functions_in_order(self) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """Every function, in the order of the source (as LibCST visits them): the order of DEV005's screen."""
        if self._functions_in_order is None:
            self._functions_in_order = sorted(self.functions, key=lambda f: (f.lineno, f.col_offset))
        return self._functions_in_order

    def nodes_in(self, node: ast.AST) -> list[ast.AST]:
        """`walk(node)`, kept: a class or function that several questions read is walked once. A class's nodes
        are in no set order."""
        found = self._nodes_in.get(id(node))
        if found is None:
            if type(node) is ast.ClassDef:  # (its methods' nodes from their own lists: in another order)
                found = [node]
                for child in ast.iter_child_nodes(node):
                    method = type(child) in (ast.FunctionDef, ast.AsyncFunctionDef)
                    found += self.nodes_in(child) if method else walk(child)
            else:
                found = list(walk(node))
            self._nodes_in[id(node)] = found
        return found

    def every_call(self) -> list[ast.Call]:
        """Every call of the file (`calls` leaves out calls on a call, `a.b().c()`), walked for once when asked."""
        if self._every_call is None:
            self._every_call = [node for node in walk(self.tree) if type(node) is ast.Call]  # type: ignore[misc]
        return self._every_call

    def calls_by_name(self, names: set[str]) -> Iterator[ast.Call]:
        """Every call of one of `names` by its name: `f(...)`, `obj.f(...)`, on any receiver."""
        for call in self.every_call():
            func = call.func
            name = func.id if type(func) is ast.Name else func.attr if type(func) is ast.Attribute else None  # type: ignore
            if name in names:
                yield call

    def classes_with_forward(self) -> dict[str, ast.ClassDef]:
        """The classes that define a `forward`, by name (the last definition of a name wins, as in the class table)."""
        if self._with_forward is None:
            self._with_forward = {cls.name: cls for cls in self.classes if any(
                type(member) in (ast.FunctionDef, ast.AsyncFunctionDef) and member.name == "forward"  # type: ignore
                for member in cls.body)}
        return self._with_forward

    def _gather(self, tree: ast.Module) -> None:
        for node in walk(tree):
            kind = type(node)
            if kind is ast.Call:
                self._call(node)
            elif kind is ast.Expr:
                value = node.value
                if type(value) is ast.Call and type(value.func) is ast.Attribute:
                    self.methods_discarded.add(value.func.attr)
                    self.discarded_calls.append(value)
            elif kind is ast.Assign:
                self._assign(node)
                self._cuda_in(node.value)
                self._binders.append(node)
            elif kind is ast.AnnAssign:
                self._cuda_in(node.value)
                self._binders.append(node)
            elif kind is ast.Dict:
                for value in node.values:
                    self._cuda_in(value)
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.Lambda:
                for value in (*node.args.defaults, *node.args.kw_defaults):
                    self._cuda_in(value)
                if kind is not ast.Lambda:
                    self.functions.append(node)
                self._binders.append(node)
            elif kind is ast.ClassDef:
                self.classes.append(node)
            elif kind is ast.Constant:
                if type(node.value) is str:
                    stripped = node.value.strip()
                    if stripped == "cuda":
                        self.bare_cuda_string = True
                    elif stripped.startswith("cuda:") or node.value == VISIBLE_DEVICES:
                        self.indexed_cuda_strings.append(node)
                    elif node.value == "LOCAL_RANK":
                        self.local_rank_string = True
            elif kind is ast.Import or kind is ast.ImportFrom:
                self._import(node)
            elif kind is ast.Global:
                self.globals.append(node)
            elif kind in _OTHER_BINDERS:
                self._binders.append(node)

    @property
    def parameter_moved(self) -> bool:
        """`nn.Parameter(...).to(...)` / `.cuda(...)` somewhere, the class under any name it was imported as."""
        return any(self._names_parameter(callee) for callee in self.moved_callees)

    def parameter_moves(self) -> list[ast.Call]:
        """Each `nn.Parameter(...).to(...)` / `.cuda(...)` (the moves `parameter_moved` tells of)."""
        return [move for move in self.moves if type(move.func.value) is ast.Call  # type: ignore[attr-defined]
                and self._names_parameter(call_name(move.func.value))]  # type: ignore[attr-defined]

    def _names_parameter(self, callee: str) -> bool:
        return callee == "Parameter" or any(name.endswith(".Parameter") for name in self.aliases.get(callee, ()))

    def _cuda_in(self, value: Optional[ast.expr]) -> None:
        kind = type(value)
        if kind is ast.Constant:
            if type(value.value) is str and device_backend(value.value):  # type: ignore[union-attr]
                self.accelerator_string = True
        elif kind is ast.JoinedStr or kind is ast.BinOp or kind is ast.Call:
            # a device string built at run time: f"cuda:{i}", "cuda:%d" % i, "cuda:" + str(i), "cuda:{}".format(i)
            if kind is ast.JoinedStr:  # (`f""` has no parts)
                template = value.values[0] if value.values else None  # type: ignore[union-attr]
            else:
                template = value.left if kind is ast.BinOp else getattr(value.func, "value", None)  # type: ignore[union-attr]
            if (type(template) is ast.Constant and type(template.value) is str  # type: ignore[union-attr]
                    and is_cuda_runtime_value(template.value)):  # type: ignore[union-attr]
                self.accelerator_string = True

    def _call(self, node: ast.Call) -> None:
        if node.args:
            self._cuda_in(node.args[0])
        for keyword in node.keywords:
            if keyword.arg == "device" or keyword.arg == "map_location":
                self._cuda_in(keyword.value)
                if keyword.arg == "device":
                    self.device_calls.append(node)
            elif keyword.arg == "non_blocking" and type(node.func) is ast.Attribute:
                if node.func.attr != "to" or _may_name_the_host(node):  # type: ignore[attr-defined]
                    self.nonblocking_methods.add(node.func.attr)  # type: ignore[attr-defined]
        func = node.func
        if type(func) is ast.Name:
            self.calls.append(node)
        elif type(func) is ast.Attribute:
            self.methods_called.add(func.attr)
            if func.attr in MOVE_METHODS:
                self.moves.append(node)
                wrapped = func.value
                if type(wrapped) is ast.Call:
                    self.moved_callees.add(call_name(wrapped))
            elif func.attr in NUMPY_CONVERSIONS:
                self.conversions.append(node)
            elif func.attr in NUMPY_READERS and type(func.value) is ast.Name:
                self._numpy_reads.append(node)
            elif func.attr in SKLEARN_READERS:
                self._sklearn_reads.append(node)
            if func.attr in _PLACING_METHODS or (func.attr == "to" and self._surely_not_dtype_only(node)):
                self._spend(func.value)
            elif func.attr in NON_TENSOR_METHODS:
                self._spend(func.value)
            receiver = func.value
            if type(receiver) is ast.Name:
                self.calls.append(node)
            elif type(receiver) is ast.Attribute:
                self.calls.append(node)

    def _spend(self, receiver: ast.expr) -> None:
        while type(receiver) is ast.Call:
            func = receiver.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and func.attr in MEETING_CALLS:
                return  # the value meets the arguments here, before it is placed
            self.spent.add(id(receiver))
            if type(func) is not ast.Attribute:
                return
            receiver = func.value

    def _assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1 or type(node.targets[0]) is not ast.Name or type(node.value) is not ast.Call:
            return
        name = node.targets[0].id
        self.assigned_calls.append((name, node.value))
        func = node.value.func
        if type(func) is ast.Attribute and func.attr in MOVE_METHODS and not dtype_only(node.value):
            if type(func.value) is ast.Name and func.value.id == name:
                self.moved_in_place.add(name)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            of_torch = False
            for alias in node.names:
                if alias.name == "numpy":
                    self.numpy_modules.add(alias.asname or "numpy")
                    self.numpy_imports.append(node)
                if alias.name in ("sklearn", "sklearn.metrics"):
                    self.sklearn_modules.add(alias.asname or "sklearn")
                    self.numpy_imports.append(node)
                if alias.name == "torch" or alias.name.startswith("torch."):
                    # `import torch.nn` binds `torch`; `import torch.nn as nn` binds `nn`
                    local, full = (alias.asname, alias.name) if alias.asname else ("torch", "torch")
                    self.aliases.setdefault(local, set()).add(full)
                    of_torch = True
            if of_torch:
                self.torch_imports.append(node)
            return
        module = node.module
        if not node.level and module in ("numpy", "sklearn", "sklearn.metrics"):
            self.numpy_imports.append(node)
        if not node.level and module == "numpy":
            self.numpy_conversions.update(alias.asname or alias.name for alias in node.names
                                          if alias.name in NUMPY_CONVERSIONS or alias.name in NUMPY_READERS
                                          or alias.name == "*")
        if not node.level and module in ("sklearn", "sklearn.metrics"):
            self.sklearn_modules.update(alias.asname or alias.name for alias in node.names if alias.name == "metrics")
            self.numpy_conversions.update(alias.asname or alias.name for alias in node.names
                                          if alias.name in SKLEARN_READERS)
        if node.level or not module or not (module == "torch" or module.startswith("torch.")):
            return
        self.torch_imports.append(node)
        for alias in node.names:
            if alias.name != "*":
                self.aliases.setdefault(alias.asname or alias.name, set()).add(f"{module}.{alias.name}")

    def _surely_not_dtype_only(self, call: ast.Call) -> bool:
        """A `.to(...)` that `is_dtype_only_move` certainly calls a move (as aliases go: any of them)."""
        if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
            return False  # where the positional arguments stop is LibCST's call, not ours
        keywords = {k.arg for k in call.keywords}
        if "device" in keywords:
            return True
        if not call.args:
            return "dtype" not in keywords
        if len(call.args) > 1:
            return True
        return not self._may_be_dtype(call.args[0])

    def _may_be_dtype(self, expr: ast.expr) -> bool:
        """`analysis.factories.is_dtype`, true under any of the name's aliases."""
        parts = dotted(expr)
        if parts is None:
            return False
        return "dtype" in parts[-1].lower() or any(
            full.startswith("torch.") and full[6:] in DTYPE_NAMES for full in self._qualify(parts))

    # -- questions -------------------------------------------------------------------------

    def torch_names(self, call: ast.Call) -> list[str]:
        """Every torch name the callee may be: `th.zeros` -> ["torch.zeros"]; [] when not torch."""
        return self.names_of(call.func)

    def names_of(self, expr: ast.expr) -> list[str]:
        """Every torch name a (dotted) name may be; [] when not torch."""
        parts = dotted(expr)
        return [] if parts is None else self._qualify(parts)

    def decorators(self) -> Iterable[ast.expr]:
        """Every function's decorators, as written (`@torch.cuda.amp.custom_fwd`, `@f(...)`)."""
        return (decorator for function in self.functions for decorator in function.decorator_list)

    def _qualify(self, parts: list[str]) -> list[str]:
        """Every torch name `a.b.c` may be (`TorchNames.qualify` under each alias of `a`)."""
        heads = self.aliases.get(parts[0])
        if not heads:
            return []
        rest = ".".join(parts[1:])
        return [f"{head}.{rest}" if rest else head for head in heads]

    @property
    def may_name_an_accelerator(self) -> bool:
        """Could the text name an accelerator anywhere: `.cuda()`, a `"cuda"`/`"mps"`/`"xpu"`/`"npu"`/`"hpu"`/`"xla"`
        string, written out, with escapes or split over adjacent literals? (True when the text is not known.)
        Without one, a device the code chooses is never shown to be an accelerator."""
        if self._names_an_accelerator is None:
            self._names_an_accelerator = self.source is None or any(
                ANY_ACCELERATOR_STRING.search(text) is not None
                for text in (self.source, without_continuations(self.source)))
        return self._names_an_accelerator

    def may_show_accelerator(self, expr: ast.AST) -> bool:
        """Could the analysis show that the device `expr` names is an accelerator (`shows_accelerator` in
        devlint/analysis/devices.py)? A string in it that names one, or a name (or `self.<name>`) in it that
        some statement of the file binds to such a value (or to another such name), or a parameter's default."""
        named, read = _accelerator_text_and_names(expr)
        return named or bool(read) and not read.isdisjoint(self._accelerator_names())  # (read no name: none bound)

    def _accelerator_names(self) -> set[str]:
        if self._accelerator_bound is None:
            bindings: list[tuple[list[str], ast.AST]] = []
            for node in self._binders:  # (gathered in the one walk: a second walk cost a large file 6%)
                kind = type(node)
                if kind is ast.Assign:
                    bindings.append(([n for t in node.targets for n in _bound_names(t)], node.value))  # type: ignore
                elif kind in (ast.AnnAssign, ast.AugAssign, ast.NamedExpr) and node.value is not None:  # type: ignore
                    bindings.append((_bound_names(node.target), node.value))  # type: ignore[attr-defined]
                elif kind is ast.For or kind is ast.comprehension:
                    bindings.append((_bound_names(node.target), node.iter))  # type: ignore[attr-defined]
                elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.Lambda:
                    arguments = node.args  # type: ignore[attr-defined]
                    positional = [*arguments.posonlyargs, *arguments.args]
                    for arg, default in zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults):
                        bindings.append(([arg.arg], default))
                    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
                        if default is not None:
                            bindings.append(([arg.arg], default))
            found: set[str] = set()
            pending: list[tuple[list[str], set[str]]] = []  # bindings to names: (their names, the names read)
            for names, value in bindings:
                named, read = _accelerator_text_and_names(value)
                if named:
                    found.update(names)
                elif read:
                    pending.append((names, read))
            changed = True
            while changed:  # `device = "cuda"`, then `dev = device`
                changed = False
                for names, read in pending:
                    if not read.isdisjoint(found) and not found.issuperset(names):
                        found.update(names)
                        changed = True
            self._accelerator_bound = found
        return self._accelerator_bound

    def numpy_conversions_made(self) -> list[ast.Call]:
        """Calls that may convert a tensor to NumPy: `R.numpy()`, `R.asarray(...)`, `R.array(...)`, `np.isnan(...)`
        (NUMPY_READERS of an imported NumPy), and plain calls of a name imported from numpy as one of those (any
        name after `from numpy import *`)."""
        named = [call for call in self.calls if type(call.func) is ast.Name and (  # type: ignore[attr-defined]
            call.func.id in self.numpy_conversions or "*" in self.numpy_conversions)]  # type: ignore[attr-defined]
        read = [call for call in self._numpy_reads if call.func.value.id in self.numpy_modules]  # type: ignore
        metrics = [call for call in self._sklearn_reads if (dotted(call.func) or [""])[0] in self.sklearn_modules]
        return self.conversions + read + metrics + named

    def is_cpu_factory(self, node: ast.expr) -> bool:
        """A torch factory call that may create a CPU tensor (mirrors `cpu_factory_name`)."""
        return (type(node) is ast.Call and not places_tensor(node)  # type: ignore[arg-type]
                and any(name in CPU_FACTORIES for name in self.torch_names(node)))  # type: ignore[arg-type]


# An accelerator's name in a string (`"cuda"`, `"cuda:0"`, `f"cuda:{i}"`'s text, `"mps"`): as
# devlint/analysis/devices.py reads device strings, and any text around it.
_ACCELERATOR_WORD = re.compile("|".join(ACCELERATOR_TYPES))


def _accelerator_text_and_names(expr: ast.AST) -> tuple[bool, set[str]]:
    """(a string in `expr` names an accelerator, the names and attribute names `expr` reads)."""
    read: set[str] = set()
    for node in walk(expr):
        kind = type(node)
        if kind is ast.Constant:
            if type(node.value) is str and _ACCELERATOR_WORD.search(node.value):  # type: ignore[attr-defined]
                return True, read
        elif kind is ast.Name:
            read.add(node.id)  # type: ignore[attr-defined]
        elif kind is ast.Attribute:
            read.add(node.attr)  # type: ignore[attr-defined]
    return False, read


def _bound_names(target: ast.AST) -> list[str]:
    """`x`, `self.x` (as `x`), each name of `a, (b, *c)`."""
    kind = type(target)
    if kind is ast.Name:
        return [target.id]  # type: ignore[attr-defined]
    if kind is ast.Attribute:
        return [target.attr]  # type: ignore[attr-defined]
    if kind is ast.Tuple or kind is ast.List:
        return [name for element in target.elts for name in _bound_names(element)]  # type: ignore[attr-defined]
    if kind is ast.Starred:
        return _bound_names(target.value)  # type: ignore[attr-defined]
    return []


def call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if type(func) is ast.Attribute else (func.id if type(func) is ast.Name else "")  # type: ignore


def _may_name_the_host(call: ast.Call) -> bool:
    """Could `analysis.factories.is_host` hold of the call's target (`device=`, else the first
    positional argument)? Only a string or a call can spell the host; a name or attribute cannot."""
    target = next((k.value for k in call.keywords if k.arg == "device"), None)
    if target is None and call.args and type(call.args[0]) is not ast.Starred:
        target = call.args[0]
    return target is not None and not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript))


def dotted(expr: ast.expr) -> Optional[list[str]]:
    """`a.b.c` -> ["a", "b", "c"]; None when `expr` is not a chain of names."""
    parts: list[str] = []
    while type(expr) is ast.Attribute:
        parts.append(expr.attr)  # type: ignore[attr-defined]
        expr = expr.value  # type: ignore[attr-defined]
    if type(expr) is not ast.Name:
        return None
    parts.append(expr.id)  # type: ignore[attr-defined]
    parts.reverse()
    return parts


def extent(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    """First and last line of a function, its decorators included (LibCST's node holds them)."""
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    return first, function.end_lineno or function.lineno


def contains(function: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.expr) -> bool:
    first, last = extent(function)
    return first <= node.lineno and (node.end_lineno or node.lineno) <= last


def places_tensor(call: ast.Call) -> bool:
    """`device=`, `out=` or `**kwargs` (mirrors `analysis.factories.places_tensor`)."""
    return any(k.arg in ("device", "out") or k.arg is None for k in call.keywords)


def dtype_only(move: ast.Call) -> bool:
    """`.to(dtype)`, `.to(x.dtype)`, `.to(dtype=d)`: a move that `is_dtype_only_move` surely calls no move (the
    name alone says so; `.to(torch.float16)` is left to the rule, which knows what `torch` is bound to)."""
    if move.func.attr != "to" or any(k.arg in ("device", None) for k in move.keywords):  # type: ignore[attr-defined]
        return False
    if not move.args:
        return any(k.arg == "dtype" for k in move.keywords)
    if len(move.args) != 1 or type(move.args[0]) is ast.Starred:
        return False
    target = move.args[0]
    if type(target) is ast.Name:
        return "dtype" in target.id.lower()  # type: ignore[attr-defined]
    # (`x.dtype`, `self.config.torch_dtype`: names only, as `dotted_name` reads them in LibCST)
    return (type(target) is ast.Attribute and "dtype" in target.attr.lower()  # type: ignore[attr-defined]
            and dotted(target) is not None)


def strip_casts(expr: ast.expr) -> ast.expr:
    """The receiver under dtype casts; strips every `.to(...)` and `.type(x)` (more than
    `analysis.factories.strip_casts` does, which is conservative: a factory is never stripped)."""
    while type(expr) is ast.Call and type(expr.func) is ast.Attribute:  # type: ignore[attr-defined]
        call: ast.Call = expr  # type: ignore[assignment]
        method = call.func.attr  # type: ignore[attr-defined]
        arguments = len(call.args) + len(call.keywords)
        if (method in CAST_METHODS and not arguments) or method == "to" or (method == "type" and arguments == 1):
            expr = call.func.value  # type: ignore[attr-defined]
        else:
            break
    return expr


def parse(source: str) -> Optional[ast.Module]:
    """Python's own tree of `source`, or None when this Python cannot parse it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            return ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return None
