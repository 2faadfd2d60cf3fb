"""Every resolver terminates: a question asked again while it is being answered is a cycle.

Resolvers follow a name, attribute or subscript to its bindings and the bindings' values to their
names again. A value defined by itself (`x = x.to(d)`, `self.a = f(self.a)`, `a = b; b = a`,
`x[k] = g(x[k])`) would send them round for ever. `@terminating(unknown)` on a resolver remembers what
is being resolved (the resolver and the objects it was asked about: the node, its scope, `self`) and
answers `unknown` when the same question comes back inside itself, or when more questions are open
than `MAX_DEPTH` (the second guard: chains that are long rather than circular). Unknown means no
report and no fix, never an error.
"""

from __future__ import annotations

import functools
import threading
from typing import Callable, TypeVar

# Open questions, all resolvers together, before the answer is `unknown`: far beyond what real code
# chains (a name bound to a name bound to ...), well inside Python's default recursion limit.
MAX_DEPTH = 150

# A forward reader walks a loop's body twice (what one iteration binds, the next one reads), so a nest of loops
# costs 2**depth walks of its innermost body (a 10-deep nest in a generated test cost DEV006's reader 32 s): loops
# nested deeper than this are walked once.
LOOP_NESTING_WALKED_TWICE = 4

_Function = TypeVar("_Function", bound=Callable[..., object])


class _Open(threading.local):
    def __init__(self) -> None:
        self.questions: set[tuple[int, ...]] = set()


_OPEN = _Open()
_PLAIN = (int, float, str, bytes, type(None))  # bool is an int


def terminating(unknown: object) -> Callable[[_Function], _Function]:
    """Make `resolver(a, b, ...)` answer `unknown` on a cycle or past `MAX_DEPTH` open questions.
    The question is the resolver and the identities of its positional arguments that are objects
    (nodes, scopes, `self`); numbers, strings and flags (a depth, a mode) are not part of it."""

    def decorate(resolver: _Function) -> _Function:
        tag = id(resolver)

        @functools.wraps(resolver)
        def answer(*args: object, **kwargs: object) -> object:
            questions = _OPEN.questions
            key = (tag, *(id(arg) for arg in args if not isinstance(arg, _PLAIN)))
            if key in questions or len(questions) >= MAX_DEPTH:
                return unknown
            questions.add(key)
            try:
                return resolver(*args, **kwargs)
            finally:
                questions.discard(key)

        return answer  # type: ignore[return-value]

    return decorate


def loop_rounds(depth: int) -> int:
    """How many times a forward reader walks the body of a loop nested `depth` loops deep (0: outermost)."""
    return 2 if depth < LOOP_NESTING_WALKED_TWICE else 1
