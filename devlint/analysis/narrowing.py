"""`isinstance(x, torch.Tensor)` tests: what they say about `x` where they hold.

Only what a test proves is kept: the body of `if isinstance(x, T)` or `if torch.is_tensor(x)` (alone or in an `and`),
and, after `if not isinstance(x, T): return`, the rest of the function. An `or`, an `else`
branch or a negation inside the body prove nothing and narrow nothing.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst

from devlint.analysis.names import dotted_name

# name or dotted attribute ("x", "self.x") -> the type expression it was tested against
Narrowing = dict[str, cst.BaseExpression]


def _isinstance(expr: cst.BaseExpression) -> Iterator[tuple[str, cst.BaseExpression]]:
    if _is_tensor_test(expr):  # torch.is_tensor(x): as isinstance(x, Tensor)
        subject = dotted_name(expr.args[0].value)  # type: ignore[attr-defined]
        if subject is not None:
            yield subject, cst.Name("Tensor")
        return
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "isinstance"):
        return
    if len(expr.args) != 2 or any(arg.keyword or arg.star for arg in expr.args):
        return
    subject = dotted_name(expr.args[0].value)
    if subject is not None:
        yield subject, expr.args[1].value


def _is_tensor_test(expr: cst.BaseExpression) -> bool:
    """`torch.is_tensor(x)` under any alias of torch (`th.is_tensor`), or an imported `is_tensor(x)`."""
    if not (isinstance(expr, cst.Call) and len(expr.args) == 1 and not expr.args[0].star
            and expr.args[0].keyword is None):
        return False
    func = expr.func
    if isinstance(func, cst.Name):
        return func.value == "is_tensor"
    return isinstance(func, cst.Attribute) and func.attr.value == "is_tensor" and isinstance(func.value, cst.Name)


def holds_when_true(test: cst.BaseExpression) -> Narrowing:
    """What is known about names inside `if test:`."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return {**holds_when_true(test.left), **holds_when_true(test.right)}
    return dict(_isinstance(test))


def holds_when_false(test: cst.BaseExpression) -> Narrowing:
    """What is known where `test` was false: `not isinstance(x, T)` false means `x` is a T."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return holds_when_true(test.expression)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        return {**holds_when_false(test.left), **holds_when_false(test.right)}
    return {}
