"""Where the CLI's output goes, whatever the locale.

Machine formats (JSON, SARIF, JUnit, GitLab, GitHub annotations) and diffs are UTF-8 bytes, as
ruff writes them: a Windows runner with a cp1252 console, or a C locale, must not turn a "—" in a
message or a `张量` in a source line into bytes another tool cannot read (or into a traceback).
Text meant for people degrades instead: a character the console cannot show becomes "?".
"""

from __future__ import annotations

import sys
from typing import TextIO

# Formats other tools parse: always UTF-8 bytes.
UTF8_FORMATS = frozenset({"json", "json-lines", "sarif", "github", "gitlab", "junit"})


def tolerate_unencodable_text() -> None:
    """stdout and stderr replace what the locale's encoding cannot hold, instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")


class Utf8Output:
    """Text written as UTF-8 bytes to the binary stream under `stream` (the text stream itself when it
    has none, as a test's StringIO)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> None:
        buffer = getattr(self.stream, "buffer", None)
        if buffer is None:
            self.stream.write(text)
            return
        self.stream.flush()  # what the text layer holds goes first
        buffer.write(text.encode("utf-8"))

    def flush(self) -> None:
        buffer = getattr(self.stream, "buffer", None)
        self.stream.flush()
        if buffer is not None:
            buffer.flush()


def output_for(format_name: str, stream: TextIO) -> "TextIO | Utf8Output":
    """The stream a format writes to: UTF-8 bytes for the machine formats, `stream` for people."""
    return Utf8Output(stream) if format_name in UTF8_FORMATS else stream
