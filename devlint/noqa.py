"""`# noqa` and `# noqa: DEV001,DEV002` exactly as flake8 reads them.

flake8 matches a bare `# noqa` anywhere in a comment of the reported line, and a code
list by prefix (`# noqa: DEV` silences every DEV code). Codes are separated by commas
and/or whitespace; case of the word `noqa` does not matter.
"""

from __future__ import annotations

import re
from typing import Optional

# flake8's own pattern (flake8/defaults.py), reproduced by meaning.
_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)
_SEPARATOR = re.compile(r"[,\s]+")


def noqa_codes(line: str) -> Optional[frozenset[str]]:
    """None: no noqa. Empty set: a bare noqa (everything). Else the listed codes."""
    if "#" not in line:
        return None
    match = _NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return frozenset()
    return frozenset(code.upper() for code in _SEPARATOR.split(codes.strip()) if code)


def is_suppressed(code: str, line: str) -> bool:
    codes = noqa_codes(line)
    if codes is None:
        return False
    return not codes or code in codes or code.startswith(tuple(codes))


def noqa_codes_end(line: str) -> Optional[int]:
    """Where the code list of the line's `# noqa: CODES` comment ends (to extend it); None when
    the line has no such comment (none at all, or a bare `# noqa`)."""
    if "#" not in line:
        return None
    match = _NOQA.search(line)
    if match is None or not match.group("codes"):
        return None
    return match.end("codes")
