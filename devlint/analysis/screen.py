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
import bisect
import re
import warnings
from typing import Callable, Iterable, Iterator, Optional, Union

from devlint.analysis.prefilter import ANY_ACCELERATOR_STRING, without_continuations
from devlint.analysis.torch_operations import (
    INDEX_ARGUMENTS, SAME_DEVICE_FUNCTIONAL, SAME_DEVICE_FUNCTIONS, SAME_DEVICE_METHODS,
)
from devlint.analysis.vocabulary import (
    ACCELERATOR_TYPES, CAST_METHODS, CONCATENATIONS, DTYPE_NAMES, ELEMENTWISE, FACTORIES, HOST_VALUE_METHODS, JOINING,
    LEGACY_CONSTRUCTORS, LIKE_FACTORIES, LOOP_WRAPPERS, NO_SCALARS, NON_TENSOR_METHODS, NUMBER_CALLS, SPARSE_FACTORIES,
    PLACED_ATTRIBUTES, TENSOR_ATTRIBUTES, TENSOR_ONLY_METHODS, TO_HOST_METHODS, TORCH_ONLY_METHODS,
    device_backend, is_cuda_runtime_value,
)

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CPU_FACTORIES = frozenset(f"torch.{name}" for name in FACTORIES - LIKE_FACTORIES)
# Factories whose tensor never carries an input's, whatever their arguments (sizes, ranges)
_SIZED_FACTORIES = _CPU_FACTORIES - {"torch.tensor", "torch.as_tensor"}
_LEGACY = frozenset(f"torch.{name}" for name in LEGACY_CONSTRUCTORS)
_SPARSE = frozenset(f"torch.{name}" for name in SPARSE_FACTORIES)
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
# After these a tensor is placed (DEV005's `_moves`): on a device, or on the host on purpose.
_PLACING_METHODS = ("cpu", "cuda", "type_as", "numpy", "tolist", "item")


# Fields that never hold a node the screens look for: names and numbers, and the `ctx`/operator
# leaves that `ast.walk` yields (a third of its nodes).
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "asname", "module", "level", "kind",
                          "conversion", "is_async", "type_comment", "type_ignores"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
# What binds a name to a value, besides assignments and functions: `_accelerator_names` reads their values.
_OTHER_BINDERS = frozenset({ast.AugAssign, ast.NamedExpr, ast.For, ast.comprehension})


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
        # `m` of every `R.m(..., non_blocking=...)` (DEV010); `to` only where the target may be the host:
        # a literal or a call (`"cpu"`, `torch.device("cpu")`), never a name (the rule needs to see "cpu")
        self.nonblocking_methods: set[str] = set()
        self.placed: set[int] = set()  # ids of receivers of a surely placing call, down the chain
        # ids of calls whose value only passes through methods that meet nothing (`.view()`, `.float()`)
        # to one that places it or reads a Python value from it (`.to(device)`, `.item()`, `.size()`)
        self.spent: set[int] = set()
        # DEV005's screen, for each function in the order of the source (as LibCST visits them): may a
        # factory's tensor meet an input there? None until asked (devlint/rules/dev005_*/visitor.py).
        self.host_meeting_functions: Optional[list[bool]] = None
        # DEV005's screen: the names of the classes that may start an attribute on the host and concatenate onto it
        self.accumulating_classes: set[str] = set()
        self._local_calls: list[tuple[int, str]] = []  # (line, name) of `f(...)` and `self.f(...)`
        # a rule's candidates (`Rule.candidates`), found so far, and what finds the rest
        self._candidates: dict[object, tuple[list[ast.AST], Iterator[ast.AST]]] = {}
        # what a rule's own analysis read from `tree`, once for its screen and its visitor (key: the rule's)
        self.memo: dict[object, object] = {}
        self._gather(tree)
        self._local_calls.sort()

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
                    if node.value.strip() == "cuda":
                        self.bare_cuda_string = True
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
            template = value.values[0] if kind is ast.JoinedStr and value.values else (  # type: ignore[union-attr]
                value.left if kind is ast.BinOp else getattr(value.func, "value", None))  # type: ignore[union-attr]
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
            self._local_calls.append((node.lineno, func.id))
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
                chained: ast.expr = func.value
                while True:
                    self.placed.add(id(chained))
                    if not (type(chained) is ast.Call and type(chained.func) is ast.Attribute):  # type: ignore
                        break
                    chained = chained.func.value  # type: ignore[attr-defined]
                self._spend(func.value)
            elif func.attr in NON_TENSOR_METHODS:
                self._spend(func.value)
            receiver = func.value
            if type(receiver) is ast.Name:
                self.calls.append(node)
                if receiver.id == "self":
                    self._local_calls.append((node.lineno, func.attr))
            elif type(receiver) is ast.Attribute:
                self.calls.append(node)

    def _spend(self, receiver: ast.expr) -> None:
        while type(receiver) is ast.Call:
            func = receiver.func  # type: ignore[attr-defined]
            if type(func) is ast.Attribute and func.attr in _MEETING_CALLS:
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
        parts = _dotted(expr)
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
        parts = _dotted(expr)
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
        metrics = [call for call in self._sklearn_reads if (_dotted(call.func) or [""])[0] in self.sklearn_modules]
        return self.conversions + read + metrics + named

    def calls_to(self, names: Iterable[str], *, with_arguments: bool = False) -> bool:
        """Is some call (with arguments, if asked) a call of one of the torch `names`?"""
        wanted = set(names)
        for call in self.calls:
            if with_arguments and not (call.args or call.keywords):
                continue
            if any(name in wanted for name in self.torch_names(call)):
                return True
        return False

    def is_cpu_factory(self, node: ast.expr) -> bool:
        """A torch factory call that may create a CPU tensor (mirrors `cpu_factory_name`)."""
        return (type(node) is ast.Call and not places_tensor(node)  # type: ignore[arg-type]
                and any(name in _CPU_FACTORIES for name in self.torch_names(node)))  # type: ignore[arg-type]

    def host_tensor_calls(self, is_scalar: Callable[[ast.Call, str], bool]) -> list[ast.Call]:
        """Calls that may create a tensor on the host, whatever the input's device: a CPU
        factory that `is_scalar` does not excuse, a legacy constructor with arguments, a sparse
        constructor without `device=`."""
        found = []
        for call in self.calls:
            if id(call) in self.placed:
                continue  # DEV005 sees it moved, or used on the host, in the same chain
            for name in self.torch_names(call):
                if name in _CPU_FACTORIES:
                    host = not places_tensor(call) and not is_scalar(call, name[6:])
                elif name in _LEGACY:
                    host = bool(call.args or call.keywords)
                else:
                    host = name in _SPARSE and not places_tensor(call)
                if host:
                    found.append(call)
                    break
        return found

    def reached_from_forward(self) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
        """A superset of the functions that run in some class's `forward` (devlint/analysis/calls.py):
        `forward`, and what it calls as `self.m(...)` or `f(...)`, transitively."""
        module_functions = {s.name: s for s in self.tree.body if isinstance(s, _FUNCTIONS)}
        reached: dict[ast.FunctionDef | ast.AsyncFunctionDef, None] = {}  # in the order found
        for cls in self.classes:
            methods = {s.name: s for s in cls.body if isinstance(s, _FUNCTIONS)}
            if "forward" not in methods:
                continue
            work = [methods["forward"]]
            while work:
                function = work.pop()
                if function in reached:
                    continue
                reached[function] = None
                first, last = extent(function)
                lo = bisect.bisect_left(self._local_calls, (first, ""))
                hi = bisect.bisect_right(self._local_calls, (last, "\U0010ffff"))
                for _line, name in self._local_calls[lo:hi]:
                    for table in (methods, module_functions):
                        if name in table:
                            work.append(table[name])
        return list(reached)


# Where DEV005's data flow sees devices meet: operators, joining calls, returns, `self.m(...)`.
_MEETING_NODES = (ast.BinOp, ast.Compare, ast.AugAssign)
_MEETING_CALLS = JOINING | ELEMENTWISE | SAME_DEVICE_FUNCTIONS | SAME_DEVICE_METHODS | SAME_DEVICE_FUNCTIONAL
# where a 0-dim CPU tensor is refused too: joined, or given as an index or mask
_SCALAR_REFUSING = NO_SCALARS | frozenset(INDEX_ARGUMENTS)
# a subscript's index that may be a tensor (not a number, a slice or a string)
_TENSOR_INDEX = (ast.Name, ast.Call, ast.Attribute, ast.Compare, ast.BinOp, ast.Subscript, ast.UnaryOp)


def host_meetings_possible(facts: SyntaxFacts) -> bool:
    """DEV005's screen: a factory that may make a host tensor (0-dim ones too: they meet in
    `stack` and returns), in a function that holds a construct where devices may meet, beside a
    value that may come from the function's inputs. Records the answer for each function too."""
    functions = sorted(facts.functions, key=lambda f: (f.lineno, f.col_offset))
    by_extent = sorted(((extent(f), f) for f in functions), key=lambda pair: pair[0])
    verdicts: dict[int, bool] = {}
    screens: dict[int, Optional[_FunctionScreen]] = {}
    returning: set[int] = set()  # the functions whose factory (one that may make a host tensor) may be returned
    readers: dict[int, _FunctionScreen] = {}  # (each function read once for that)
    for call in facts.calls:
        if id(call) in facts.spent or not _may_make_host_tensor(facts, call):
            continue
        inner = None
        for (first, last), function in by_extent:
            if first <= call.lineno and (call.end_lineno or call.lineno) <= last:
                inner = function  # sorted by first line: the last one holding it is the innermost
        if inner is None:
            continue
        if id(inner) not in returning:
            if id(inner) not in readers:
                readers[id(inner)] = screens.get(id(inner)) or _FunctionScreen(facts, inner)
            if readers[id(inner)].may_return(call):
                returning.add(id(inner))
        if verdicts.get(id(inner)):
            continue
        if id(inner) not in screens:
            screens[id(inner)] = (readers[id(inner)]
                                  if _has_meeting(inner) and _may_have_inputs(facts, inner) else None)
        function_screen = screens[id(inner)]
        if function_screen is not None and function_screen.may_meet(call):
            verdicts[id(inner)] = True
    for method in _host_attribute_readers(facts):
        verdicts[id(method)] = True
    for method in _accumulator_readers(facts):
        verdicts[id(method)] = True
    for method in _callers_of_makers(facts, returning):
        verdicts[id(method)] = True
    facts.host_meeting_functions = [verdicts.get(id(f), False) for f in functions]
    return bool(verdicts)


def _host_attribute_readers(facts: SyntaxFacts) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of a class with a base that read `self.X` where the class's `__init__` binds `self.X` to
    a factory's host tensor (directly, through a method chain, or through a name bound to one): a plain
    attribute, which `Module.to()` leaves on the CPU (a superset of what `flow.ModuleFacts` keeps)."""
    readers = []
    for cls in facts.classes:
        if not cls.bases:
            continue
        methods = [s for s in cls.body if type(s) in (ast.FunctionDef, ast.AsyncFunctionDef)]
        init = next((m for m in methods if m.name == "__init__"), None)
        if init is None:
            continue
        assigned: list[tuple[ast.expr, ast.expr]] = []
        for node in walk(init):
            if type(node) is ast.Assign and len(node.targets) == 1:  # type: ignore[attr-defined]
                value = node.value  # type: ignore[attr-defined]
                while type(value) is ast.Call and type(value.func) is ast.Attribute \
                        and not _may_make_host_tensor(facts, value):  # type: ignore[attr-defined]
                    value = value.func.value  # type: ignore[attr-defined]  (`pe.unsqueeze(0)`)
                assigned.append((node.targets[0], value))  # type: ignore[attr-defined]
        local = {target.id: value for target, value in assigned if type(target) is ast.Name}  # type: ignore
        attributes = set()
        for target, value in assigned:
            if type(target) is ast.Attribute and type(target.value) is ast.Name and \
                    target.value.id == "self":  # type: ignore[attr-defined]
                made = local.get(value.id, value) if type(value) is ast.Name else value  # type: ignore
                if type(made) is ast.Call and _may_make_host_tensor(facts, made):  # type: ignore[arg-type]
                    attributes.add(target.attr)  # type: ignore[attr-defined]
        if attributes:
            readers.extend(_methods_reading(methods, attributes, init))
    return readers


_Function = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def _methods_reading(methods: list[_Function], attributes: set[str], init: Optional[_Function]) -> list[_Function]:
    """The methods, but `init`, that mention `self.<attribute>` for one of `attributes`."""
    return [method for method in methods if method is not init and any(
        type(node) is ast.Attribute and node.attr in attributes and type(node.value) is ast.Name  # type: ignore
        and node.value.id == "self" for node in walk(method))]  # type: ignore[attr-defined]


def _accumulator_readers(facts: SyntaxFacts) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods (not `__init__`) of any class that mention `self.X`, where the class concatenates onto `self.X`
    (`self.X = torch.cat([self.X, ...])`) and binds it somewhere to a call that may make a host tensor: its
    start may reach that concatenation on the CPU (a superset of what `flow.accumulated_attributes` keeps). Only
    a class that holds a concatenation given `self.<attribute>` (among the screen's calls) is walked."""
    onto_self = [call for call in facts.calls if call_name(call) in CONCATENATIONS and call.args
                 and type(call.args[0]) in (ast.List, ast.Tuple) and any(
                     type(e) is ast.Attribute and type(e.value) is ast.Name and e.value.id == "self"  # type: ignore
                     for e in call.args[0].elts)]  # type: ignore[attr-defined]
    readers: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for cls in facts.classes if onto_self else ():
        first, last = cls.lineno, cls.end_lineno or cls.lineno
        if not any(first <= call.lineno <= last for call in onto_self):
            continue  # nothing in it is concatenated onto an attribute
        grown, started = set(), set()
        for node in walk(cls):
            if type(node) is ast.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
                targets = [node.target]  # type: ignore[attr-defined]
            elif type(node) is ast.Assign:
                targets = node.targets  # type: ignore[attr-defined]
            else:
                continue
            value = node.value  # type: ignore[attr-defined]
            while type(value) is ast.Call and type(value.func) is ast.Attribute \
                    and value.func.attr not in CONCATENATIONS and not _may_make_host_tensor(facts, value):  # type: ignore
                value = value.func.value  # type: ignore[attr-defined]  (`torch.cat([...]).to(x.dtype)`)
            if type(value) is not ast.Call:
                continue
            for target in targets:
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":  # type: ignore
                    if call_name(value) in CONCATENATIONS:  # type: ignore[arg-type]
                        grown.add(target.attr)  # type: ignore[attr-defined]
                    elif _may_make_host_tensor(facts, value):  # type: ignore[arg-type]
                        started.add(target.attr)  # type: ignore[attr-defined]
        attributes = grown & started
        if not attributes:
            continue
        facts.accumulating_classes.add(cls.name)
        methods = [s for s in cls.body if type(s) in (ast.FunctionDef, ast.AsyncFunctionDef)]
        init = next((m for m in methods if m.name == "__init__"), None)  # type: ignore[attr-defined]
        readers.extend(_methods_reading(methods, attributes, init))  # type: ignore[arg-type]
    return readers


def _callers_of_makers(facts: SyntaxFacts, returning: set[int]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The methods of a class that call `self.m(...)`, where `m` is an undecorated method of it that may return
    a factory's host tensor (`returning`: ids) or returns something and calls such a method: what `m` returns
    may be that factory's tensor (a superset of what `flow.FlowReader._returned_by` follows: in a module, a
    class with a base, or without one where it binds an `nn.Parameter` or registers a buffer)."""
    callers = []
    for cls in facts.classes:
        if not cls.bases and not any(type(n) is ast.Call and call_name(n) in _MODULE_STATE for n in walk(cls)):  # type: ignore
            continue  # not a module: neither a base nor a parameter or buffer of its own
        methods = [s for s in cls.body if type(s) in (ast.FunctionDef, ast.AsyncFunctionDef)]
        called = {id(m): {n.func.attr for n in walk(m) if _is_self_call(n)} for m in methods}  # type: ignore
        returns = {id(m) for m in methods if any(type(n) is ast.Return and n.value is not None for n in walk(m))}
        makers = {m.name for m in methods if id(m) in returning and not m.decorator_list}  # (as the flow's)
        changed = bool(makers)
        while changed:  # a method that returns what a maker returns is one too
            changed = False
            for m in methods:
                if m.name not in makers and id(m) in returns and not m.decorator_list and not called[id(m)].isdisjoint(makers):
                    makers.add(m.name)
                    changed = True
        callers.extend(m for m in methods if not called[id(m)].isdisjoint(makers))
    return callers


class _Span:
    """An expression's extent and the names in it: what "mentions" asks, without walking it again."""

    __slots__ = ("node", "start", "end", "names")

    def __init__(self, node: ast.AST) -> None:
        self.node = node
        self.start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
        self.end = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        self.names = {n.id for n in walk(node) if type(n) is ast.Name}  # type: ignore[attr-defined]

    def holds(self, call: ast.Call) -> bool:
        return self.start <= (call.lineno, call.col_offset) and (call.end_lineno, call.end_col_offset) <= self.end


class _FunctionScreen:
    """One function read once for DEV005's screen: its bindings, its meeting constructs, and (when
    asked) which of its values may come from its inputs."""

    def __init__(self, facts: SyntaxFacts, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.facts = facts
        self.function = function
        self.nodes = nodes = list(walk(function))
        # (the expressions a binding reads, the names it binds): assignments, loops, comprehensions,
        # and `append`/`extend`/`insert` into a list
        self.bindings: list[tuple[list[ast.AST], set[str]]] = []
        for node in nodes:
            kind = type(node)
            read: list[ast.AST] = []
            bound: list[ast.AST] = []
            if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign or kind is ast.NamedExpr:
                if node.value is not None:  # type: ignore[attr-defined]
                    read = [node.value]  # type: ignore[attr-defined]
                    bound = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
            elif kind is ast.For or kind is ast.AsyncFor or kind is ast.comprehension:
                read, bound = [node.iter], [node.target]  # type: ignore[attr-defined]
            elif kind is ast.Call and type(node.func) is ast.Attribute and (  # type: ignore[attr-defined]
                    node.func.attr in ("append", "extend", "insert")):  # type: ignore[attr-defined]
                read, bound = list(node.args), [node.func.value]  # type: ignore[attr-defined]
            if read:
                names = {n.id for target in bound for n in walk(target) if type(n) is ast.Name}  # type: ignore
                if names:
                    self.bindings.append((read, names))
        # names that may hold a list, and so both kinds of tensor at once (a superset of the flow's `is_list`)
        self.list_names: set[str] = set()
        for node in nodes:
            kind = type(node)
            if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign or kind is ast.NamedExpr:
                if type(node.value) in _MAY_BE_LISTS:  # type: ignore[attr-defined]
                    targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
                    self.list_names.update(n.id for t in targets for n in walk(t) if type(n) is ast.Name)  # type: ignore
            elif kind is ast.Call and type(node.func) is ast.Attribute and (  # type: ignore[attr-defined]
                    node.func.attr in ("append", "extend", "insert")):  # type: ignore[attr-defined]
                if type(node.func.value) is ast.Name:  # type: ignore[attr-defined]
                    self.list_names.add(node.func.value.id)  # type: ignore[attr-defined]
        self.returns = [n for n in nodes if type(n) is ast.Return and n.value is not None]  # type: ignore
        self.several_returns = len(self.returns) > 1 or any(type(r.value) is ast.IfExp for r in self.returns)  # type: ignore
        self.constructs = [node for node in nodes if type(node) in _CONSTRUCTS or _is_indexing(node) or (
            type(node) is ast.Call and call_name(node) in _MEETING_CALLS or _is_self_call(node))]  # type: ignore
        self.spans: dict[int, _Span] = {}
        self._inputs: Optional[_InputTrace] = None

    def span(self, node: ast.AST) -> _Span:
        found = self.spans.get(id(node))
        if found is None:
            found = self.spans[id(node)] = _Span(node)
        return found

    @property
    def inputs(self) -> "_InputTrace":
        if self._inputs is None:
            self._inputs = _InputTrace(self.facts, self.function, self.nodes, self.bindings)
        return self._inputs

    def _mentions(self, call: ast.Call) -> Callable[[ast.AST], bool]:
        """Does an expression mention the factory's value: hold the call, or a name bound (transitively) to an
        expression that mentions it?"""
        names: set[str] = set()

        def mentions(node: ast.AST) -> bool:
            span = self.span(node)
            return span.holds(call) or not names.isdisjoint(span.names)

        changed = True
        while changed:  # the names bound to what mentions the factory, until nothing changes
            changed = False
            for read, bound in self.bindings:
                if not bound <= names and any(mentions(expr) for expr in read):
                    names |= bound
                    changed = True
        return mentions

    def may_return(self, call: ast.Call) -> bool:
        """May the factory's value leave the function through a `return`?"""
        mentions = self._mentions(call)
        return any(mentions(node.value) for node in self.returns)  # type: ignore[attr-defined]

    def may_meet(self, call: ast.Call) -> bool:
        """Does the factory's value, or a name bound (transitively) to an expression that mentions it,
        sit inside a construct where devices meet, beside a value that may come from the inputs? (A
        superset of what DEV005's flow follows: a meeting needs both.)"""
        mentions = self._mentions(call)
        inputs = self.inputs
        scalar = _surely_scalar(self.facts, call)  # a 0-dim tensor mixes with any device in arithmetic
        for node in self.constructs:
            kind = type(node)
            if scalar and kind is not ast.Return and kind is not ast.Call and kind is not ast.AugAssign:
                continue
            # operators meet their operands two by two: the factory's tensor in one, an input's in the other
            if kind is ast.BinOp:
                if _meet_in_pairs([(node.left, node.right)], mentions, inputs):  # type: ignore[attr-defined]
                    return True
            elif kind is ast.Compare:
                operands = [node.left, *node.comparators]  # type: ignore[attr-defined]
                if _meet_in_pairs(list(zip(operands, operands[1:])), mentions, inputs):
                    return True
            elif kind is ast.AugAssign:
                if scalar:  # a 0-dim host tensor written in place from an input's: the output cannot move
                    if mentions(node.target) and inputs.carries(node.value):  # type: ignore[attr-defined]
                        return True
                elif _meet_in_pairs([(node.target, node.value)], mentions, inputs):  # type: ignore[attr-defined]
                    return True
            elif kind is ast.Subscript:
                # a host tensor indexed by an input's index
                if mentions(node.value) and inputs.carries(node.slice):  # type: ignore[attr-defined]
                    return True
            elif kind is ast.Assign:
                # `x[mask] = host`, and a host buffer (or list) written from an input's tensor
                for target in node.targets:  # type: ignore[attr-defined]
                    if type(target) is ast.Subscript and _meet_in_pairs(
                            [(target.value, node.value)], mentions, inputs):  # type: ignore[attr-defined]
                        return True
            elif kind is ast.Return:
                # a return meets the values the function's other returns give
                if self.several_returns and mentions(node):
                    paths = [path for r in self.returns for path in _return_paths(r.value)]  # type: ignore
                    if any(mentions(a) and inputs.carries(b) for a in paths for b in paths if a is not b):
                        return True
            else:
                func = node.func  # type: ignore[attr-defined]
                if _is_self_call(node) and func.attr in inputs.module_attributes and mentions(node):
                    return True  # a submodule's call: it meets the submodule's parameters
                if call_name(node) in (_SCALAR_REFUSING if scalar else _MEETING_CALLS) and mentions(node) and (  # type: ignore
                        _joined_meet(self.facts, node, mentions, inputs, self.list_names)):  # type: ignore[arg-type]
                    return True
        return False


_CONSTRUCTS = (ast.BinOp, ast.Compare, ast.AugAssign, ast.Return)
# Values a name bound to may be a list (a literal, a comprehension, either of two, another name's)
_MAY_BE_LISTS = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.IfExp, ast.Name, ast.BinOp)


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


def _is_indexing(node: ast.AST) -> bool:
    """`t[idx]` with an index that may be a tensor, or `t[k] = v` with one."""
    kind = type(node)
    if kind is ast.Subscript:
        return type(node.slice) in _TENSOR_INDEX  # type: ignore[attr-defined]
    return kind is ast.Assign and any(type(t) is ast.Subscript for t in node.targets)  # type: ignore[attr-defined]


def _meet_in_pairs(pairs: list[tuple[ast.AST, ast.AST]], mentions: Callable[[ast.AST], bool],
                   inputs: "_InputTrace") -> bool:
    return any((mentions(a) and inputs.carries(b)) or (mentions(b) and inputs.carries(a)) for a, b in pairs)


def _joined_meet(facts: SyntaxFacts, call: ast.Call, mentions: Callable[[ast.AST], bool],
                 inputs: "_InputTrace", list_names: set[str]) -> bool:
    """A joining call (`torch.cat([h, x])`, `x.masked_fill(h, 0)`) meets the factory's tensor in one
    of the values it joins with an input's in another (a list literal's elements count one by one);
    or in one name that may be a list holding both (`parts.append(h)`, `parts.append(x)`)."""
    joined: list[ast.AST] = []
    if type(call.func) is ast.Attribute and not facts.torch_names(call):
        joined.append(call.func.value)  # type: ignore[attr-defined]
    for argument in _arguments(call):
        if type(argument) in (ast.List, ast.Tuple):
            joined.extend(argument.elts)  # type: ignore[attr-defined]
        else:
            joined.append(argument)
    for a in joined:
        if mentions(a) and any(inputs.carries(b) for b in joined if b is not a):
            return True
        if type(a) is ast.Name and a.id in list_names and mentions(a) and inputs.carries(a):  # type: ignore
            return True
    return False


def _return_paths(value: ast.AST) -> list[ast.AST]:
    """`a if c else b` returns `a` or `b` (DEV005's flow reads each as a return of its own)."""
    if type(value) is ast.IfExp:
        return [*_return_paths(value.body), *_return_paths(value.orelse)]  # type: ignore[attr-defined]
    return [value]


def call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if type(func) is ast.Attribute else (func.id if type(func) is ast.Name else "")  # type: ignore


def _is_self_call(node: ast.AST) -> bool:
    func = getattr(node, "func", None)
    return type(node) is ast.Call and type(func) is ast.Attribute and type(func.value) is ast.Name and (  # type: ignore
        func.value.id == "self")  # type: ignore[union-attr]


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(k.value for k in call.keywords)]


_NOT_SCALAR_DATA = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Call, ast.Compare, ast.Subscript)


def _surely_scalar(facts: SyntaxFacts, call: ast.Call) -> bool:
    """A 0-dim tensor under every name the callee may be (mirrors `analysis.flow._is_scalar`; data
    that is a name may be a sequence: not surely)."""
    names = facts.torch_names(call)
    data = call.args
    if not names or not data or any(type(a) is ast.Starred for a in data):
        return False
    first = data[0]
    for name in names:
        if name in ("torch.tensor", "torch.as_tensor", "torch.scalar_tensor"):
            if type(first) is ast.Name:
                return False
            if isinstance(first, _NOT_SCALAR_DATA) and not (
                    type(first) is ast.Call and (_dotted(first.func) or [""])[-1] in NUMBER_CALLS):  # type: ignore
                return False
        elif name not in _CPU_FACTORIES or not (  # legacy constructors always make a sized tensor
                len(data) == 1 and type(first) in (ast.List, ast.Tuple) and not first.elts):  # type: ignore
            return False
    return True


class _InputTrace:
    """Which expressions of a function may carry a tensor from its inputs, as DEV005's flow sees them
    (a superset): the parameters and the names bound to what may carry them; `self.<attr>` and calls
    of `self.<m>(...)` and `super().<m>(...)` (parameters, buffers, submodules' outputs, what the class's
    methods return); through
    operators, subscripts, `.T`/`.data`, tensor methods of such a value, and torch functions given one.
    Not through plain functions, sizes (`.shape`, `.size()`) or Python values (`.item()`, `len()`)."""

    _DROPPED = TO_HOST_METHODS | HOST_VALUE_METHODS | NON_TENSOR_METHODS

    def __init__(self, facts: SyntaxFacts, function: ast.FunctionDef | ast.AsyncFunctionDef, nodes: list[ast.AST],
                 bindings: list[tuple[list[ast.AST], set[str]]]) -> None:
        """`nodes`: the function's nodes (`walk(function)`); `bindings`: `_FunctionScreen.bindings`."""
        self.facts = facts
        every = _every_parameter(function, nodes)  # a closure's too: it meets this function's tensors
        parameters = {a.arg for a in every} - {"self", "cls"}
        # the parameters shown to be tensors: a `Tensor` annotation, or a tensor attribute or method
        self.names = {a.arg for a in every if a.annotation is not None and "Tensor" in ast.unparse(a.annotation)}
        self.names |= _arrays_made_tensors(function, parameters)
        self.holders: set[str] = set()  # parameters with a tensor inside (`batch["mask"].float()`, `data.x.size()`)
        for node in nodes:
            if type(node) is ast.Attribute and type(node.value) is ast.Name:  # type: ignore[attr-defined]
                if node.value.id in parameters and node.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                    self.names.add(node.value.id)  # type: ignore[attr-defined]
            elif type(node) is ast.Attribute and node.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                holder = _holder(node.value, parameters)  # type: ignore[attr-defined]
                if holder is not None:
                    self.holders.add(holder)
            elif type(node) is ast.For or type(node) is ast.AsyncFor:
                if any(type(n) is ast.Name and n.id in parameters for n in walk(node.iter)) or (  # type: ignore
                        _steps_parameters(node, nodes)):  # type: ignore[arg-type]
                    # the elements of the caller's sequences: tensors where the loop uses them so; and the
                    # parameters an optimizer steps
                    self.names.update(n.id for n in walk(node.target) if type(n) is ast.Name)  # type: ignore
        aliases = _aliases_of_items(nodes, parameters)
        if aliases:
            self.holders.update(aliases[n.value.id] for n in nodes if type(n) is ast.Attribute  # type: ignore
                                and n.attr in _TENSOR_EVIDENCE and type(n.value) is ast.Name  # type: ignore
                                and n.value.id in aliases)  # type: ignore[attr-defined]
        # `self.<attr>` and `self.<m>(...)` are the module's tensors and submodules only in its methods,
        # and not while `__init__` builds them (the flow reads those with no module)
        owner = None if function.name == "__init__" else next(
            (cls for cls in facts.classes if function in cls.body), None)
        self.module_attributes = _module_attributes(facts, owner) if owner is not None else set()
        # the class's plain methods: what one returns may be the module's tensors (`lower = self.factors()`)
        self.methods = {s.name for s in owner.body if type(s) is ast.FunctionDef and not s.decorator_list} if (
            owner is not None) else set()
        # calls whose result the function uses as a torch tensor, and the parameters a method may hand one
        self.tensor_results = _tensor_results(nodes)
        self.method_parameters = parameters if owner is not None else set()
        changed = True
        while changed:  # the names bound to what may carry an input's tensor, until nothing changes
            changed = False
            for read, bound in bindings:
                if not bound <= self.names and any(self.carries(expr) for expr in read):
                    self.names |= bound
                    changed = True

    def carries(self, expr: Optional[ast.AST]) -> bool:
        kind = type(expr)
        if kind is ast.Name:
            return expr.id in self.names or expr.id in self.holders  # type: ignore[union-attr]
        if kind is ast.Attribute:
            value = expr.value  # type: ignore[union-attr]
            if type(value) is ast.Name and value.id == "self":  # type: ignore[attr-defined]
                return expr.attr in self.module_attributes  # type: ignore[union-attr]
            if type(value) is ast.Name and value.id in self.holders:  # type: ignore[attr-defined]
                return True
            return expr.attr in PLACED_ATTRIBUTES and self.carries(value)  # type: ignore[union-attr]
        if kind is ast.Subscript or kind is ast.Starred:
            return self.carries(expr.value)  # type: ignore[union-attr]
        if kind is ast.BinOp:
            return self.carries(expr.left) or self.carries(expr.right)  # type: ignore[union-attr]
        if kind is ast.Compare:
            return any(self.carries(e) for e in (expr.left, *expr.comparators))  # type: ignore[union-attr]
        if kind is ast.UnaryOp:
            return type(expr.op) is not ast.Not and self.carries(expr.operand)  # type: ignore[union-attr]
        if kind is ast.IfExp:
            return self.carries(expr.body) or self.carries(expr.orelse)  # type: ignore[union-attr]
        if kind is ast.List or kind is ast.Tuple:
            return any(self.carries(e) for e in expr.elts)  # type: ignore[union-attr]
        if kind is ast.ListComp or kind is ast.GeneratorExp:
            return any((type(n) is ast.Name and (n.id in self.names or n.id in ("self", "super")))  # type: ignore
                       for n in walk(expr))  # type: ignore[arg-type]
        if kind is ast.NamedExpr:
            return self.carries(expr.value)  # type: ignore[union-attr]
        if kind is ast.Call:
            return self._call_carries(expr)  # type: ignore[arg-type]
        return False

    def _call_carries(self, call: ast.Call) -> bool:
        names = self.facts.torch_names(call)
        if names and any(name not in _SIZED_FACTORIES for name in names) and any(
                self.carries(a) for a in _arguments(call)):
            return True  # a torch function given an input's tensor (`torch.cat`, `torch.tensor(x)`, ...)
        if call in self.tensor_results and any(
                self.carries(a) or (type(a) is ast.Name and a.id in self.method_parameters) for a in _arguments(call)):
            return True  # used as a torch tensor, computed from the inputs (`adj = to_dense_adj(edge_index)`)
        func = call.func
        if type(func) is ast.Name and func.id in LOOP_WRAPPERS:  # type: ignore[attr-defined]
            return any(self.carries(a) for a in call.args)  # a loop over the caller's sequences
        if type(func) is not ast.Attribute:
            return False  # a plain function: the flow does not follow its result
        receiver = func.value  # type: ignore[attr-defined]
        if type(receiver) is ast.Name and receiver.id == "self":  # type: ignore[attr-defined]
            # a submodule's output, or what a method of the class returns of the module's tensors
            return func.attr in self.module_attributes or func.attr in self.methods  # type: ignore[attr-defined]
        if type(receiver) is ast.Call and type(receiver.func) is ast.Name and receiver.func.id == "super":  # type: ignore
            return True  # `super().forward(x)`
        method = func.attr  # type: ignore[attr-defined]
        if method in self._DROPPED or method in ("append", "extend", "insert"):
            return False
        if method in _MEETING_CALLS and any(self.carries(a) for a in _arguments(call)):
            return True
        return self.carries(receiver)


def _tensor_results(nodes: Iterable[ast.AST]) -> set[ast.Call]:
    """The calls whose result the function uses as a torch tensor: with a method only a torch tensor has, on the
    call itself or on a name it is bound to (a superset of DEV005's flow: analysis/flow.py, `tensor_results`)."""
    bound: dict[str, list[ast.Call]] = {}
    shown: set[str] = set()
    found: set[ast.Call] = set()
    for node in nodes:
        kind = type(node)
        if kind is ast.Assign and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target) is ast.Name:
                    bound.setdefault(target.id, []).append(node.value)  # type: ignore[attr-defined]
        elif kind is ast.Call and type(node.func) is ast.Attribute and (  # type: ignore[attr-defined]
                node.func.attr in TORCH_ONLY_METHODS):  # type: ignore[attr-defined]
            receiver = node.func.value  # type: ignore[attr-defined]
            if type(receiver) is ast.Name:
                shown.add(receiver.id)
            elif type(receiver) is ast.Call:
                found.add(receiver)
    found.update(call for name in shown for call in bound.get(name, ()))
    return found


def _every_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef, nodes: Iterable[ast.AST]) -> list[ast.arg]:
    """The parameters of `function` and of the functions and lambdas inside it (`nodes`: its nodes)."""
    every: list[ast.arg] = []
    for node in nodes:
        if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            args = node.args  # type: ignore[attr-defined]
            every += [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]
    return every


def _arrays_made_tensors(function: ast.FunctionDef | ast.AsyncFunctionDef, parameters: set[str]) -> set[str]:
    """The parameters `x` of `if isinstance(x, np.ndarray): x = torch.from_numpy(x)` (`tensor`, `as_tensor`):
    tensors after it, the caller's own where it gave one (a superset of DEV005's flow: analysis/flow.py)."""
    found: set[str] = set()
    for node in walk(function):
        test = node.test if type(node) is ast.If else None  # type: ignore[attr-defined]
        if not (type(test) is ast.Call and type(test.func) is ast.Name and test.func.id == "isinstance"  # type: ignore
                and len(test.args) == 2 and type(test.args[0]) is ast.Name):  # type: ignore[union-attr]
            continue
        name = test.args[0].id  # type: ignore[union-attr,attr-defined]
        if name in parameters and "ndarray" in ast.unparse(test.args[1]):  # type: ignore[union-attr]
            found.add(name)
    return found


def _aliases_of_items(nodes: Iterable[ast.AST], parameters: set[str]) -> dict[str, str]:
    """`ids = batch["ids"]`, `x = data.x`: the name bound to an item of a parameter -> the parameter."""
    found = {}
    for node in nodes:
        if type(node) is ast.Assign and len(node.targets) == 1 and type(node.targets[0]) is ast.Name:  # type: ignore
            holder = _holder(node.value, parameters)  # type: ignore[attr-defined]
            if holder is not None:
                found[node.targets[0].id] = holder  # type: ignore[attr-defined]
    return found


def _holder(expr: ast.AST, parameters: set[str]) -> Optional[str]:
    """`batch` of `batch["mask"]` / `data` of `data.x`, for a parameter of `parameters`; else None."""
    if type(expr) is ast.Subscript or type(expr) is ast.Attribute:
        inner = expr.value  # type: ignore[attr-defined]
        if type(inner) is ast.Name and inner.id in parameters:  # type: ignore[attr-defined]
            return inner.id  # type: ignore[attr-defined]
    return None


def _may_make_host_tensor(facts: SyntaxFacts, call: ast.Call) -> bool:
    for name in facts.torch_names(call):
        if name in _CPU_FACTORIES:
            return not places_tensor(call) and not any(k.arg == "generator" for k in call.keywords)
        if name in _LEGACY:
            return bool(call.args or call.keywords)
    return False


# What DEV005's flow reads as a parameter shown to be a tensor (a superset: analysis/flow.py).
_TENSOR_EVIDENCE = TENSOR_ATTRIBUTES | TENSOR_ONLY_METHODS
_MODULE_STATE = frozenset({"Parameter", "register_buffer", "register_parameter"})


def _may_have_inputs(facts: SyntaxFacts, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A parameter annotated or used as a tensor, or `self` of a class that may hold parameters,
    buffers or submodules (an attribute bound to a call, a `torch.nn` base)."""
    args = function.args
    every = _every_parameter(function, walk(function))  # a closure's too
    params = {a.arg for a in every} - {"self", "cls"}
    used_as_tensors: set[str] = set()  # names of locals with a tensor attribute or method
    for a in every:
        if a.annotation is not None and "Tensor" in ast.unparse(a.annotation):
            return True
    if _arrays_made_tensors(function, params):
        return True
    for node in walk(function):
        if type(node) is ast.Attribute and type(node.value) is ast.Name:  # type: ignore[attr-defined]
            if node.value.id in params and node.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                return True
        if type(node) is ast.Attribute and node.attr in _TENSOR_EVIDENCE and (  # type: ignore[attr-defined]
                _holder(node.value, params) is not None):  # type: ignore[attr-defined]
            return True  # `batch["mask"].float()`, `data.x.size(0)`
        if type(node) is ast.Attribute and node.attr in _TENSOR_EVIDENCE and (  # type: ignore[attr-defined]
                type(node.value) is ast.Name):  # type: ignore[attr-defined]
            used_as_tensors.add(node.value.id)  # type: ignore[attr-defined]
        elif type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "super":  # type: ignore
            return True  # `super().forward(x)`: the output of the module's own layer
        elif type(node) is ast.For and _steps_parameters(node, walk(function)):  # type: ignore[arg-type]
            return True  # `for p in group["params"]`: an optimizer's parameters
        elif type(node) is ast.For and _iterates_parameters(node.iter, params):  # type: ignore[attr-defined]
            targets = {n.id for n in walk(node.target) if type(n) is ast.Name}  # type: ignore[attr-defined]
            for inner in walk(node):
                if type(inner) is ast.Attribute and type(inner.value) is ast.Name:  # type: ignore[attr-defined]
                    if inner.value.id in targets and inner.attr in _TENSOR_EVIDENCE:  # type: ignore[attr-defined]
                        return True  # `for p in preds: p.numel()`: elements of the caller's tensors
    if not used_as_tensors.isdisjoint(_aliases_of_items(walk(function), params)):
        return True  # `ids = batch["ids"]`, `ids.size(0)`
    if not (args.args and args.args[0].arg == "self"):
        return False
    for cls in facts.classes:
        if contains(cls, function):  # type: ignore[arg-type]
            if _holds_module_state(facts, cls):
                return True
    return False


def _module_attributes(facts: SyntaxFacts, cls: ast.ClassDef) -> set[str]:
    """A superset of the attributes of `self` that DEV005's flow reads as the module's tensors or
    submodules (`ModuleFacts`): those bound to a call, the registered ones, and `weight`/`bias` of a
    class that subclasses a `torch.nn` layer."""
    found: set[str] = set()
    for node in walk(cls):
        if type(node) is ast.Assign and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                    found.add(target.attr)
        elif type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr in (  # type: ignore
                "register_buffer", "register_parameter"):
            first = node.args[0] if node.args else None  # type: ignore[attr-defined]
            if type(first) is ast.Constant and type(first.value) is str:  # type: ignore[union-attr]
                found.add(first.value)  # type: ignore[union-attr]
    if any(name.startswith("torch.nn.") for base in cls.bases for name in facts.names_of(base)):
        found.update(("weight", "bias"))
    return found | _layers_called(cls)


def _layers_called(cls: ast.ClassDef) -> set[str]:
    """`X` of every `self.X(...)` in a class with a `forward`, `X` no method of it (a superset of what
    DEV005's flow reads as the layers of a module known by its shape)."""
    methods = {s.name for s in cls.body if isinstance(s, _FUNCTIONS)}
    if "forward" not in methods:
        return set()
    return {node.func.attr for node in walk(cls) if _is_self_call(node)  # type: ignore[attr-defined]
            and node.func.attr not in methods}  # type: ignore[attr-defined]


def _steps_parameters(loop: ast.For, nodes: Iterable[ast.AST]) -> bool:
    """`for p in group["params"]` in a function (`nodes`) that reads `self.param_groups` (a superset of
    `flow.FlowReader._optimised_parameters`)."""
    iterated = loop.iter
    if not (type(iterated) is ast.Subscript and type(iterated.slice) is ast.Constant  # type: ignore[attr-defined]
            and iterated.slice.value == "params"):  # type: ignore[attr-defined]
        return False
    return any(type(n) is ast.Attribute and n.attr == "param_groups" for n in nodes)  # type: ignore[attr-defined]


def _iterates_parameters(iterated: ast.expr, params: set[str]) -> bool:
    """`preds`, `zip(preds, targets)`, `enumerate(preds)`: a loop over the caller's sequences."""
    return any(type(n) is ast.Name and n.id in params for n in walk(iterated))  # type: ignore[attr-defined]


def _holds_module_state(facts: SyntaxFacts, cls: ast.ClassDef) -> bool:
    if cls.bases and _layers_called(cls):
        return True  # a module by its shape (`analysis.flow._layers_of_a_module_by_shape`)
    if cls.bases:
        for base in cls.bases:
            if any(name.startswith("torch.nn.") and not name.endswith(".Module") for name in facts._qualify(
                    _dotted(base) or ["?"])):
                return True
    for node in walk(cls):
        if type(node) is ast.Call:
            func = node.func  # type: ignore[attr-defined]
            name = func.attr if type(func) is ast.Attribute else (func.id if type(func) is ast.Name else "")
            if name in _MODULE_STATE:
                return True
        elif type(node) is ast.Assign and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            for target in node.targets:  # type: ignore[attr-defined]
                if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":
                    return True  # `self.proj = Something(...)`: maybe a submodule
    return False


def _has_meeting(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    returns = 0
    for node in walk(function):
        if isinstance(node, _MEETING_NODES) or _is_indexing(node):
            return True
        if type(node) is ast.Return and node.value is not None:
            returns += 1
            if returns > 1 or type(node.value) is ast.IfExp:
                return True
        elif type(node) is ast.Call:
            func = node.func
            if type(func) is ast.Attribute:
                if func.attr in _MEETING_CALLS:  # type: ignore[attr-defined]
                    return True
                if type(func.value) is ast.Name and func.value.id == "self":  # type: ignore[attr-defined]
                    return True  # a submodule's call
            elif type(func) is ast.Name and func.id in _MEETING_CALLS:  # type: ignore[attr-defined]
                return True
    return False


def _may_name_the_host(call: ast.Call) -> bool:
    """Could `analysis.factories.is_host` hold of the call's target (`device=`, else the first
    positional argument)? Only a string or a call can spell the host; a name or attribute cannot."""
    target = next((k.value for k in call.keywords if k.arg == "device"), None)
    if target is None and call.args and type(call.args[0]) is not ast.Starred:
        target = call.args[0]
    return target is not None and not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript))


def _dotted(expr: ast.expr) -> Optional[list[str]]:
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
            and _dotted(target) is not None)


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
