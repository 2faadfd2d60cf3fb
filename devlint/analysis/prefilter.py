"""The text prefilter: which enabled rules could report on a text, decided before any parse.

The first of two stages (the second, devlint/analysis/screen.py, asks Python's `ast` of what is left); the
selection itself, in terms of rules, is devlint/engine/selection.py.
Each rule lists `tokens` (`Rule.tokens`): strings or compiled patterns that must *all* be
found in the text for the rule to be able to report. A file for which no rule is left is
never parsed by LibCST. The prefilter must be conservative — it may keep a rule that then finds
nothing, never drop one that would report — and `tests/test_prefilter.py` checks this by
running every rule with and without it over the fixtures and generated programs.

Why the rules' tokens are conservative (what a report needs, and so what the text holds):

- Every rule that needs torch (DEV001, DEV002, DEV005) reports only when the file imports
  torch, and DEV003/DEV004 only when it imports torch or writes `torch.` out: either way
  the identifier `torch` is in the text (identifiers are single tokens; LibCST keeps their
  text as written).
- A name the rules match exactly (`.to`, `load`, `forward`, a factory such as `zeros`) is
  one name token. Torch aliases (`from torch import zeros as z`) still write the real name
  in the import. In a file that parses, a name token is neither preceded nor followed by an
  identifier character, so the pattern `\\bname\\b` finds it.
- A method call `R.to(...)` is `.`, the name and `(`, with only whitespace, comments (inside
  brackets) or backslash continuations between them: `method_call()` allows exactly those.
- A `"cuda"` / `"cuda:N"` string (or `"mps"`, `"xpu"`: DEV003) is matched on its *value*, so it may be written
  with escapes (`"\\x63uda"`) or split into adjacent literals (`"cu" "da"`); `ACCELERATOR_STRING`
  also matches any escape that can make a letter and any literal ending in `c`, `cu`, `cud`,
  `m`, `mp`, `x` or `xp` right before its closing quote.
- DEV008 reports a name that resolves to `torch.cuda.amp.*` / `torch.cpu.amp.*`: written out, or
  bound by an import that writes the module path, so the name token `amp` is in the text, and
  so is the API's own name (`autocast`, `GradScaler`, `custom_fwd`, `custom_bwd`: an alias is
  made by an import that writes the real name).
- Backslash continuations are removed from a copy of the text before searching it too, so
  `x.\\<newline>to(d)` and `"cu\\<newline>da"` are found; a token found in either copy counts.

A file for which no rule is left is still read by Python's parser (devlint/engine/engine.py): a syntax
error is `DEV999` in every file devlint checks.
"""

from __future__ import annotations

import re
from typing import Sequence, Union

from devlint.analysis.vocabulary import ACCELERATOR_TYPES

Token = Union[str, "re.Pattern[str]"]

# Whitespace (newlines included: inside brackets) and whole comment lines between two tokens.
# Each comment ends at its line's end, so there is one way to match: no backtracking blow-up.
_GAP = r"\s*(?:#[^\r\n]*[\r\n]\s*)*"


# A `words()` pattern of a few names -> its names: a text holds one of them as a substring wherever the pattern
# matches, and `in` finds a substring many times faster than `re` finds an alternation (no literal prefix to skip
# to). Of many names (the factories) one is nearly always a substring somewhere (`ones` in `bones`): the test would
# cost more than it saves.
_FEW_NAMES = 4
_ONE_OF: dict["re.Pattern[str]", tuple[str, ...]] = {}
_PARTS: dict["re.Pattern[str]", tuple[Token, ...]] = {}  # an `any_of()` pattern -> its parts


def words(*names: str) -> "re.Pattern[str]":
    """Any of `names` as a whole name token.

    Written as `name(?<!\\wname)\\b` rather than `\\b(?:name)\\b`, which means the same: a pattern
    that starts with the name's letters lets `re` skip to where they occur, where a leading `\\b` is
    tried at every position (20 times slower over the corpus)."""
    alternatives = "|".join(f"{re.escape(name)}(?<!\\w{re.escape(name)})" for name in sorted(names))
    pattern = re.compile(rf"(?:{alternatives})\b")
    if len(names) <= _FEW_NAMES:
        _ONE_OF[pattern] = tuple(sorted(names))
    return pattern


def any_of(*parts: Token) -> "re.Pattern[str]":
    """A token found where any of `parts` is (a string as a substring, a pattern by its search): the union as one
    pattern (for a caller that searches it), looked for part by part, since `in` and a pattern that starts with
    one character are many times faster than `re` trying every branch of an alternation at every position."""
    pattern = re.compile("|".join(re.escape(part) if isinstance(part, str) else f"(?:{part.pattern})"
                                  for part in parts))
    _PARTS[pattern] = parts
    return pattern


def method_call(*names: str) -> "re.Pattern[str]":
    """`.name(` for any of `names`, allowing whitespace and comments around the name."""
    alternatives = "|".join(re.escape(name) for name in sorted(names))
    return re.compile(rf"\.{_GAP}(?:{alternatives}){_GAP}\(")


# A string literal whose value may be "cuda", "mps" or "xpu" (or "cuda:N"...): written out, made with
# escapes, or split over adjacent literals (a piece ending in "c", "cu", "cud", "m", "mp", "x" or "xp"
# just before its quote).
ESCAPE = re.compile(r"\\[xuUN0-7]")  # an escape that can make a letter
# (a piece is found by its closing quote, then what it follows: a quote is rarer than those letters)
_PIECES = ("c", "cu", "cud", "m", "mp", "x", "xp")
_PIECE_BEFORE_QUOTE = re.compile("|".join(rf"""["'](?<={piece}["'])""" for piece in _PIECES))
ACCELERATOR_STRING = any_of("cuda", "mps", "xpu", ESCAPE, _PIECE_BEFORE_QUOTE)
# The same for every accelerator a device string may name (devlint/analysis/devices.py: `shows_accelerator`),
# and `.cuda()`: text without any of these shows no accelerator anywhere.
ANY_ACCELERATOR_STRING = re.compile("|".join(ACCELERATOR_TYPES) + r"""|\\[xuUN0-7]|(?:c(?:u|ud)?|mp?|xp?|xl?|np?|hp?)["']""")


def without_continuations(text: str) -> str:
    return text.replace("\\\r\n", "").replace("\\\n", "").replace("\\\r", "")


def token_found(token: Token, texts: Sequence[str]) -> bool:
    """Is `token` in one of `texts` (the text, and the text without its backslash continuations)?"""
    if isinstance(token, str):
        return any(token in text for text in texts)
    parts = _PARTS.get(token)
    if parts is not None:
        return any(token_found(part, texts) for part in parts)
    names = _ONE_OF.get(token)
    return any((names is None or any(name in text for name in names)) and token.search(text) is not None
               for text in texts)
