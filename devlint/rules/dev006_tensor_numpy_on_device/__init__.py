"""DEV006 — `.numpy()` / `np.asarray` on a tensor that may be on a device."""

from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from devlint.analysis.prefilter import words
from devlint.analysis.screen import SKLEARN_READERS, SyntaxFacts, contains, walk
from devlint.rules.rule import FixSafety, Rule, any_candidate


def _candidates(facts: SyntaxFacts) -> Iterator[ast.AST]:
    """The conversions the rule may report: a conversion (`.numpy()`, `<numpy>.asarray/array(...)`, an imported
    `asarray`/`array`, a scikit-learn metric) that does not come back through `.cpu()` first, in a function that
    shows a sign of a device: it holds a way onto one (a `.to(...)`/`.cuda(...)` call or a call given `device=`),
    converts another value through `.cpu()`, or calls the method it overrides through `super()`; with preview on
    also a method of a class with a base (a module's method: its inputs and state), a function that reads a
    `.device` or calls an input named like a module (`model(x)`). Outside every function: in a file that holds a
    way onto a device. Without preview, a `.to(...)` or `device=` is a way onto a device only where its target
    may be shown to be an accelerator (a device the caller chooses is not: `.to(device)`, `.to(args.device)`)."""
    conversions = []  # each left to the rule, with the functions it is in and the innermost of them
    for conversion in facts.numpy_conversions_made():
        if _comes_back_first(conversion):
            continue
        functions = [f for f in facts.functions if contains(f, conversion)]
        innermost = max(functions, key=lambda f: f.lineno) if functions else None  # (nested ones start later)
        if not _converts_no_tensor(conversion, innermost):
            conversions.append((conversion, functions, innermost))
    if not conversions:
        return
    if facts.preview:
        placing = facts.moves + facts.device_calls
    elif facts.may_name_an_accelerator:
        placing = [call for call in facts.moves + facts.device_calls if _may_place_on_an_accelerator(facts, call)]
    else:
        placing = []
    methods = {id(statement) for cls in facts.classes if cls.bases for statement in cls.body
               if type(statement) in (ast.FunctionDef, ast.AsyncFunctionDef)}
    places: dict[int, bool] = {}  # a function's answer, asked once however many conversions it holds
    for conversion, functions, innermost in conversions:
        if not functions:
            if placing:
                yield conversion
                yield from _module_classes_called(facts, conversion, None)
            continue
        for f in functions:
            if id(f) not in places:
                places[id(f)] = any(contains(f, call) for call in placing) or _copies_to_host(f) or (
                    id(f) in methods and _calls_itself_in_super(f))
        if any(places[id(f)] for f in functions) or facts.preview and any(
                id(f) in methods or _shows_a_device_sign(f) for f in functions):
            yield conversion
            yield from _module_classes_called(facts, conversion, innermost)


def _module_classes_called(facts: SyntaxFacts, conversion: ast.Call, innermost: Optional[ast.AST]) -> Iterator[ast.AST]:
    """`Net` of `np.asarray(model(x))` where the function binds `model = Net(...)` (or the class `self.model = Net()`),
    `Net` a class of the file with a `forward`: the rule reads what its `forward` returns (one tensor, or an object of
    any shape), so LibCST parses the class too (a superset: any such binding, any class of that name)."""
    args = conversion.args
    if type(conversion.func) is ast.Attribute and conversion.func.attr == "numpy" or not args:  # type: ignore
        return
    called = args[0].func if type(args[0]) is ast.Call else None  # type: ignore[attr-defined]
    if type(called) is ast.Name:
        name, scopes = called.id, [innermost] if innermost is not None else [facts.tree]  # type: ignore[attr-defined]
    elif type(called) is ast.Attribute and type(called.value) is ast.Name and called.value.id == "self":  # type: ignore
        name, scopes = f"self.{called.attr}", [cls for cls in facts.classes if innermost is not None  # type: ignore
                                               and contains(cls, innermost)]  # type: ignore[arg-type]
    else:
        return
    with_forward = facts.classes_with_forward()
    if not with_forward:
        return
    for scope in scopes:
        for node in facts.nodes_in(scope):  # type: ignore[arg-type]
            if type(node) is ast.Assign and any(_bound_name(target) == name for target in node.targets):  # type: ignore
                value = node.value  # type: ignore[attr-defined]
                while type(value) is ast.Call and type(value.func) is ast.Attribute:  # type: ignore[attr-defined]
                    value = value.func.value  # type: ignore[attr-defined]  (`Net().to(device)`)
                if type(value) is ast.Call and type(value.func) is ast.Name and value.func.id in with_forward:  # type: ignore
                    yield with_forward[value.func.id]  # type: ignore[attr-defined]


def _bound_name(target: ast.expr) -> Optional[str]:
    """`model` of `model = ...`, `self.model` of `self.model = ...`; else None."""
    if type(target) is ast.Name:
        return target.id  # type: ignore[attr-defined]
    if type(target) is ast.Attribute and type(target.value) is ast.Name and target.value.id == "self":  # type: ignore
        return f"self.{target.attr}"  # type: ignore[attr-defined]
    return None


def _converts_no_tensor(conversion: ast.Call, innermost: Optional[ast.FunctionDef | ast.AsyncFunctionDef]) -> bool:
    """A NumPy function or metric (not `.numpy()`) whose every converted argument is a display, a constant, a
    comprehension, or a parameter of the function around it (`innermost`) that nothing there rebinds: the rule
    answers for one tensor only, and those are never one (an input is a sign of a device, not a tensor shown)."""
    converted = _converted_arguments(conversion)
    return bool(converted) and all(_never_a_tensor(value, innermost) for value in converted)  # type: ignore[union-attr]


_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant, ast.JoinedStr, ast.ListComp, ast.SetComp,
             ast.DictComp, ast.GeneratorExp)


def _never_a_tensor(value: ast.expr, function: Optional[ast.FunctionDef | ast.AsyncFunctionDef]) -> bool:
    if isinstance(value, _DISPLAYS):
        return True
    if type(value) is not ast.Name or function is None:
        return False
    arguments = function.args
    parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    if value.id not in parameters:  # type: ignore[attr-defined]
        return False
    return not any(type(node) is ast.Name and node.id == value.id and type(node.ctx) is not ast.Load  # type: ignore
                   for node in ast.walk(function))


def _may_place_on_an_accelerator(facts: SyntaxFacts, call: ast.Call) -> bool:
    """`.cuda()`, or a `.to(...)` / `device=` whose target may be shown to name an accelerator. (`.to(y.device)`
    and `.to(other)` place only where `y` is placed already: by another such call in the function.)"""
    if type(call.func) is ast.Attribute and call.func.attr == "cuda":
        return True
    values = [*call.args, *(keyword.value for keyword in call.keywords)]
    return any(facts.may_show_accelerator(value) for value in values)


def _copies_to_host(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Another tensor converted through `.cpu()` anywhere down its chain (`y.detach().cpu().numpy()`, and as the
    rule reads it also `y.cpu().to(torch.float32).numpy()`: the code copies its tensors to the host first)."""
    return any(type(node) is ast.Call and type(node.func) is ast.Attribute and node.func.attr == "numpy"  # type: ignore
               and "cpu" in _methods_down_the_chain(node.func.value) for node in walk(function))  # type: ignore


def _calls_itself_in_super(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`super().process(...)` in `process`: the base's method may copy to the host."""
    return any(type(node) is ast.Attribute and node.attr == function.name  # type: ignore[attr-defined]
               and type(node.value) is ast.Call  # type: ignore[attr-defined]
               and type(node.value.func) is ast.Name and node.value.func.id == "super"  # type: ignore[attr-defined]
               for node in walk(function))


# An input named like a module (`model(x)`): its output is on the module's device.
_MODULE_INPUT = re.compile(r"model|net$|module|encoder|decoder|backbone|classifier", re.IGNORECASE)


def _shows_a_device_sign(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """`x.device` read, or an input named like a module called (`model(x)`)."""
    inputs = {arg.arg for arg in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)
              if _MODULE_INPUT.search(arg.arg)}
    for node in ast.walk(function):
        if type(node) is ast.Attribute and node.attr == "device":  # type: ignore[attr-defined]
            return True
        if type(node) is ast.Call and type(node.func) is ast.Name and node.func.id in inputs:  # type: ignore
            return True
    return False


def _comes_back_first(conversion: ast.Call) -> bool:
    """`x.detach().cpu().numpy()`, `np.asarray(y.cpu()[0])`: the converted chain goes through `.cpu()` (or
    `.tolist()`, `.item()`) with no `.to(...)`/`.cuda(...)` after it. Such a value is on the host whatever
    `x` was (a `.to(...)` of any target might move it back, so it ends the walk). A scikit-learn metric
    converts its first two arguments: both must."""
    converted = _converted_arguments(conversion)
    if converted is None:
        return _through_host(conversion.func.value)  # type: ignore[attr-defined]
    return bool(converted) and all(_through_host(value) for value in converted)


def _converted_arguments(conversion: ast.Call) -> Optional[list[ast.expr]]:
    """What a NumPy function converts (its first argument) or a scikit-learn metric (its first two; a plain
    name may be a metric imported under another name); None for `.numpy()`, which converts its receiver."""
    func = conversion.func
    if type(func) is ast.Attribute and func.attr == "numpy":
        return None
    metric = type(func) is not ast.Attribute or func.attr in SKLEARN_READERS
    return conversion.args[:2] if metric else conversion.args[:1]


def _through_host(value: ast.expr) -> bool:
    for method in _methods_down_the_chain(value):
        if method in ("cpu", "tolist", "item"):
            return True
        if method in ("to", "cuda"):
            return False
    return False


def _methods_down_the_chain(value: ast.expr) -> Iterator[str]:
    """The methods called down a chain, last first, through indexing: `x.cpu()[0].float()` gives float, cpu."""
    while True:
        if type(value) is ast.Subscript:
            value = value.value  # type: ignore[attr-defined]
        elif type(value) is ast.Call and type(value.func) is ast.Attribute:  # type: ignore[attr-defined]
            yield value.func.attr  # type: ignore[attr-defined]
            value = value.func.value  # type: ignore[attr-defined]
        else:
            return


RULE = Rule(
    code="DEV006",
    name="tensor-numpy-on-device",
    summary="`.numpy()` / `np.asarray(...)` of a tensor that may be on a device raises there",
    why="""
        NumPy arrays live in host memory: `x.numpy()`, `np.asarray(x)` and `np.array(x)` of a tensor on a GPU
        raise `TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the
        tensor to host memory first`; so do the NumPy functions that read their argument as an array (`np.isnan`,
        `np.isfinite`, `np.unique`, `np.percentile`, `np.allclose`, ...; not the reductions such as `np.sum`,
        which call the tensor's own method), and scikit-learn's metrics, which read their first two arguments
        with `np.asarray` (`metrics.confusion_matrix(y_true, y_pred)`, `f1_score`, `roc_auc_score`, ...).
        On a CPU-only machine the same code runs, so the bug ships and fails on
        the first machine with a GPU. The rule reports a tensor that the code shows may be on a device:
        one it placed itself (moved with `.cuda()` or `.to(target)`, made by a torch factory with
        `device=target` where the code shows the target may be an accelerator, the output of a model the
        function moved, or of a module given such a tensor: known as a module by the file or named like one,
        `self.net(x)` after `x = x.cuda()`; also a method of such a module given such a tensor,
        `model.embed(x.cuda())` after `model = model.cuda()`), an input of a function that itself copies another tensor to the
        host before converting it (`y.detach().cpu().numpy()` beside `x.numpy()`: the code expects its
        tensors on a device; also where the method it overrides and calls through `super()` does), and what
        tensor methods, torch functions, arithmetic, indexing and unpacking make
        of it, with no `.cpu()`, `.to("cpu")` or rebinding between. With preview on, also tensors that
        come from the caller with a sign of a device (see "In preview"). Left alone: values
        built on the host in the function (a factory without `device=`, `torch.from_numpy`, `torch.load`
        with any `map_location`), anything in a class that builds host data for a DataLoader (a `Dataset`, sampler, collator, tokenizer), a module
        given an input the function makes on the host (then the module is there too), a private helper of
        a module (its class may copy to the host before calling it), an attribute of an input of unknown
        kind (`x.meta`), an input annotated as something that is not a tensor (`action: np.ndarray`), the
        result of a method a NumPy array has too (`x.reshape(...)`) when nothing shows `x` is a tensor, an
        input of `__init__`, and what a tokenizer or a plain function returns. `.to(dtype)` is not a move, and
        `.numpy(force=True)` copies to the host itself. Nor is a conversion in a branch of a test that
        asks where things are (`if x.device.type == "cpu":`, `x.is_cuda`, `device != "cpu"`, `use_gpu`),
        and `np.asarray(...)` only of a value shown to be one tensor (a module's output is one where the module is
        an object of a class of the file whose `forward` returns a tensor on every path: `np.asarray(model(x))`;
        a module's output may otherwise be a tuple or a dict, of which NumPy makes an object array). Where the
        sign is that the function copies
        another value to the host, an entry of an input taken by a string key (`batch["meta"]`) is left alone:
        trainers move a batch's entries one key at a time and keep some on the host (`if k != "meta"`).
    """,
    example="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        with torch.no_grad():
            logits = model(images.to(device))
        predictions = logits.argmax(1).numpy()
    """,
    instead="""
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = Net().to(device)
        with torch.no_grad():
            logits = model(images.to(device))
        predictions = logits.argmax(1).cpu().numpy()
    """,
    fix_safety=FixSafety.SAFE,
    fix="""
        Inserts `.cpu()` before the conversion: `x.numpy()` becomes `x.cpu().numpy()`, `np.asarray(x)`
        becomes `np.asarray(x.cpu())` (parenthesised where `x` is an operation). Where the tensor may require
        grad (a model's output outside `torch.no_grad()` / `torch.inference_mode()`, or what is computed from
        one) it inserts `.detach().cpu()`, and a `.detach()` already there is kept once
        (`x.detach().numpy()` becomes `x.detach().cpu().numpy()`). Safe: on the CPU `.cpu()` returns the
        tensor itself and `.detach()` only drops the graph that `.numpy()` refuses anyway, so the array has
        the same values; on a device the call now works. No fix for `np.asarray(...)` of a value that is not
        shown to be one tensor (a model's output object, a list of tensors): `.cpu()` may not exist there.
    """,
    tokens=("torch", words("numpy", "sklearn")),
    screen=any_candidate(_candidates),
    candidates=_candidates,
    preview_shapes="""
        tensors that come from the caller with a sign of a device: an input of a function that asks where
        its inputs are (`x.device`) and moves none of them itself; an input of a public method of an
        nn.Module class (`forward`, `training_step(self, batch, ...)`: `batch["labels"]`; an attribute of one
        where the code uses it as a tensor, `output.probs.detach()`, `output.probs.data`), or what the
        module holds outside its `__init__` (a parameter or buffer, `self.crf.transitions`, a metric's
        accumulated state `self.preds`); the output of a module handed in or held (`model(x)`,
        `self.encoder(x)`, called and named like a module); and `.to(device)` with a `device` from the
        caller (it may be a GPU; `args.device` reads as the `.device` of `args`). These signs are not yet
        measured on code nobody tuned to.
    """,
)
