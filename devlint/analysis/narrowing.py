"""`isinstance(x, torch.Tensor)` tests: what they say about `x` where they hold.

Only what a test proves is kept: the body of `if isinstance(x, T)` (alone or in an `and`),
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
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "isinstance"):
        return
    if len(expr.args) != 2 or any(arg.keyword or arg.star for arg in expr.args):
        return
    subject = dotted_name(expr.args[0].value)
    if subject is not None:
        yield subject, expr.args[1].value


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
