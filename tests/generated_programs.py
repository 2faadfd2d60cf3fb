"""Programs generated from Python's grammar (hypothesmith), for the properties every check must keep on code
nobody wrote by hand.

One strategy serves a whole test process: `hypothesmith.from_grammar()` compiles the grammar into a parser
(about 3 s), and a strategy made inside a test body is compiled again for every example it draws.
"""

from __future__ import annotations

import functools

import hypothesmith
from hypothesis import strategies as st


@functools.lru_cache(maxsize=None)
def _from_grammar() -> st.SearchStrategy[str]:
    return hypothesmith.from_grammar()


# Built at its first draw, so a test process that runs none of these tests never compiles the grammar.
PROGRAMS: st.SearchStrategy[str] = st.deferred(lambda: _from_grammar())
