"""A rule made to fail on purpose: how the tests of failure isolation (tests/test_isolation.py) break one rule and
show that only its reports are lost. Nothing in a normal run installs one; the engine hands the installed fault, if
any, to its LibCST stage with the rest of a check's options, so the hot path never reads the environment for it."""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import libcst as cst

    from devlint.rules.base import RuleVisitor


@dataclass(frozen=True)
class RuleFault:
    """Rule `code` raises in its `finish` ("raise"), or recurses without end in its first callback ("recursion")."""

    code: str
    kind: str = "raise"

    def inject(self, rule_visitors: Sequence[RuleVisitor]) -> None:
        for visitor in rule_visitors:
            if visitor.rule.code != self.code:
                continue
            if self.kind == "recursion":
                for name in visitor.get_visitors():
                    setattr(visitor, name, types.MethodType(_recurse_forever(name), visitor))
            else:
                def fail() -> None:
                    raise RuntimeError(f"a test's fault made {self.code} fail")

                visitor.finish = fail  # type: ignore[method-assign]


def _recurse_forever(name: str) -> Callable[..., None]:
    def callback(self: object, node: cst.CSTNode) -> None:
        callback(self, node)

    callback.__name__ = name  # LibCST lists a visitor's callbacks by their names
    return callback


_installed: Optional[RuleFault] = None


def install(fault: Optional[RuleFault]) -> None:
    """Make every later check in this process break `fault`'s rule (None: stop)."""
    global _installed
    _installed = fault


def installed() -> Optional[RuleFault]:
    return _installed
