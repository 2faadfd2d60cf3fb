"""Small helpers over LibCST expressions: dotted names, string values, keyword lookup."""

from __future__ import annotations

import ast
from typing import Callable, Iterable, Iterator, Optional

import libcst as cst

from devlint.analysis.vocabulary import RUNTIME_CUDA, device_backend
from devlint.analysis.walk import children


def dotted_name(expr: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` for a chain of Names and Attributes, else None."""
    parts: list[str] = []
    while type(expr) is cst.Attribute:
        parts.append(expr.attr.value)
        expr = expr.value
    if type(expr) is not cst.Name:
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


def string_value(expr: cst.BaseExpression) -> Optional[str]:
    """The value of a plain (non f-) string literal, else None (LibCST's `evaluated_value` where it is a `str`)."""
    if isinstance(expr, cst.SimpleString):
        value = _literal(expr.value)
        return value if isinstance(value, str) else None
    if isinstance(expr, cst.ConcatenatedString):  # (`"a" "b"`: its right side may be one again; an f-string is None)
        left, right = string_value(expr.left), string_value(expr.right)
        return left + right if left is not None and right is not None else None
    return None


def integer_value(expr: cst.BaseExpression) -> Optional[int]:
    """The value of an integer literal (`3`, `0x10`, `1_000`), else None."""
    value = _literal(expr.value) if isinstance(expr, cst.Integer) else None
    return value if type(value) is int else None


def _literal(code: str) -> object:
    """The value of a literal's code as Python reads it; None where Python does not (a malformed escape). What
    `ast.literal_eval` gives, without the reference cycle each of its calls leaves (its helpers refer to each
    other): the garbage collector is off while a file is analysed (devlint/engine/collector.py)."""
    try:
        body = ast.parse(code.lstrip(" \t"), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return body.value if type(body) is ast.Constant else None


def is_cuda_string(expr: cst.BaseExpression) -> bool:
    """`"cuda"` or `"cuda:N"`."""
    value = string_value(expr)
    return value is not None and is_cuda_value(value)


def is_cuda_value(value: str) -> bool:
    """A string literal's value that names CUDA: `"cuda"`, `"cuda:N"` (spaces around allowed)."""
    return device_backend(value) == "cuda"


def is_cuda_device_expr(expr: cst.BaseExpression) -> bool:
    """A CUDA device string built at run time: `"cuda:%d" % i`, `f"cuda:{i}"`, `"cuda:" + str(i)`,
    `"cuda:{}".format(i)`."""
    if isinstance(expr, cst.FormattedString):
        parts = expr.parts
        return (len(parts) == 2 and isinstance(parts[0], cst.FormattedStringText)
                and parts[0].value.strip() == "cuda:" and isinstance(parts[1], cst.FormattedStringExpression))
    if isinstance(expr, cst.BinaryOperation):
        left = string_value(expr.left)
        if isinstance(expr.operator, cst.Modulo):
            return left is not None and bool(RUNTIME_CUDA.fullmatch(left.strip()))
        if isinstance(expr.operator, cst.Add):
            return left is not None and left.strip() == "cuda:"
        return False
    if (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "format"
            and expr.args):
        template = string_value(expr.func.value)
        return template is not None and bool(RUNTIME_CUDA.fullmatch(template.strip()))
    return False


def imported_modules(statements: Iterable[cst.CSTNode]) -> Iterator[tuple[str, int]]:
    """(module, dots before it) of each module the imports among `statements` may name, other than torch's: `import
    a.b` names "a.b"; `from .x import y` names ("x.y", 1), which may be a module, then ("x", 1)."""
    for node in statements:
        if type(node) is cst.Import:
            for alias in node.names:
                full = dotted_name(alias.name) or ""
                if full and full.split(".")[0] != "torch":
                    yield full, 0
        elif type(node) is cst.ImportFrom:
            source = dotted_name(node.module) if node.module is not None else ""
            level = len(node.relative)
            if source is None or (source.split(".")[0] == "torch" and not level):
                continue
            if type(node.names) is not cst.ImportStar:
                for alias in node.names:
                    if type(alias.name) is cst.Name:
                        yield (f"{source}.{alias.name.value}" if source else alias.name.value), level
            if source or level:
                yield source, level


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def named_parameters(function: cst.FunctionDef) -> dict[str, cst.Param]:
    """The parameters a caller can name (positional-only, ordinary, keyword-only), by name; `self`
    and `cls` included."""
    params = function.params
    return {p.name.value: p for p in (*params.posonly_params, *params.params, *params.kwonly_params)}


def positional(call: cst.Call) -> list[cst.Arg]:
    """Positional arguments, stopping at the first `*args` (later positions are unknowable)."""
    result = []
    for arg in call.args:
        if arg.keyword is not None or arg.star == "**":
            break
        if arg.star == "*":
            break
        result.append(arg)
    return result


def has_star_kwargs(call: cst.Call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def has_star_args(call: cst.Call) -> bool:
    return any(arg.star == "*" for arg in call.args)


# What Tensor.cuda() and Module.cuda() accept; other `.cuda(...)` methods are someone else's.
_CUDA_KEYWORDS = frozenset({"device", "non_blocking", "memory_format"})


def has_cuda_method_signature(node: cst.Call) -> bool:
    """Does this `.cuda(...)` have Tensor.cuda's / Module.cuda's signature?"""
    args = [a for a in node.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value for a in node.args if a.keyword is not None}
    return len(args) <= 1 and keywords <= _CUDA_KEYWORDS and not any(a.star for a in node.args)


def method_call(expr: cst.BaseExpression) -> Optional[tuple[cst.BaseExpression, str, cst.Call]]:
    """For `R.m(...)` return (R, "m", the call), else None."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return expr.func.value, expr.func.attr.value, expr
    return None


def identifiers(expr: cst.CSTNode) -> Iterator[str]:
    """Every Name, attribute name and string value inside `expr` (for "does this mention cuda?")."""
    stack: list[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name:
            yield node.value
        elif type(node) is cst.SimpleString:
            yield node.value
        stack.extend(children(node))  # node.children would rebuild the node


def target_names(target: cst.BaseExpression) -> Iterator[cst.Name]:
    """The names an assignment or loop target binds: `x`, `(a, [b, *c])`."""
    if isinstance(target, cst.Name):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_names(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_names(target.value)


def single_values(scope: cst.CSTNode, *, nested: bool = False,
                  ignored: Callable[[cst.Assign], bool] = lambda assign: False
                  ) -> dict[str, Optional[cst.BaseExpression]]:
    """Each name `scope` binds, with its value where one plain assignment (`name = value`, one target) is its
    only binding; None where it is bound more than once or otherwise (unpacking, `+=`, an annotation, a loop,
    `:=`, `as`). The functions, classes and lambdas inside are left out unless `nested`; an assignment that
    `ignored` accepts binds nothing (a rule's own no-op, such as a move that keeps the value's kind)."""
    bound: dict[str, Optional[cst.BaseExpression]] = {}
    stack: list[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        if not nested and node is not scope and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Assign) and not ignored(node):
            plain = len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
            for target in node.targets:
                for name in target_names(target.target):
                    bound[name.value] = node.value if plain and name.value not in bound else None
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            for name in target_names(node.target):  # type: ignore[arg-type]
                bound[name.value] = None
        elif isinstance(node, cst.AsName):
            for name in target_names(node.name):  # type: ignore[arg-type]
                bound[name.value] = None
        stack.extend(children(node))
    return bound
