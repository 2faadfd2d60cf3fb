"""How a file's name is shown in any output: as text every stream and format can hold.

On POSIX a file name is bytes; Python holds the bytes that are not UTF-8 as surrogate escapes
(U+DC80..U+DCFF), which no encoder accepts. Every format, and the CLI's streams, show a name
through `display_path`, so a `caf\\xe9.py` on disk never turns into a traceback."""

from __future__ import annotations


def display_path(path: str) -> str:
    """`path` with each byte that is not UTF-8 written as a `\\xe9`-style escape (as ruff and
    Python's `backslashreplace` show it); a name that is UTF-8 (or, under an ASCII file system
    encoding, was UTF-8 on disk) is returned as its characters, unchanged."""
    if path.isascii():
        return path
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte (a broken name on Windows)
        return path.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")
