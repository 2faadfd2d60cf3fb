"""Where the CLI's output goes, whatever the locale.

Machine formats (JSON, SARIF, JUnit, GitLab, GitHub annotations) and diffs are UTF-8 bytes, as
ruff writes them: a Windows runner with a cp1252 console, or a C locale, must not turn a "—" in a
message or a `张量` in a source line into bytes another tool cannot read (or into a traceback).
Text meant for people degrades instead: a character the console cannot show becomes "?".
Neither ever raises: the formats show file names through `display_path` (a byte that is not UTF-8
as `\\xe9`), and the streams show any name that slips past them the same way.
"""

from __future__ import annotations

import codecs
import sys
from typing import TextIO

from devlint.contract.display import display_path

# Formats other tools parse: always UTF-8 bytes.
UTF8_FORMATS = frozenset({"json", "json-lines", "sarif", "github", "gitlab", "junit"})
# The encoding error handler of stdout and stderr (registered by `tolerate_unencodable_text`).
SHOW_UNENCODABLE = "devlint.show-unencodable"


def _show_unencodable(error: UnicodeError) -> tuple[str, int]:
    """A file name's escaped bytes as `display_path` shows them, and "?" for characters the stream's
    encoding cannot hold (where "strict" raises, and Python's C-locale "surrogateescape" too)."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    shown = display_path(error.object[error.start:error.end])
    return shown.encode(error.encoding, "replace").decode(error.encoding), error.end


def tolerate_unencodable_text() -> None:
    """stdout and stderr show what the locale's encoding cannot hold (`_show_unencodable`) instead of raising."""
    codecs.register_error(SHOW_UNENCODABLE, _show_unencodable)
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) != SHOW_UNENCODABLE and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=SHOW_UNENCODABLE)


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
        buffer.write(text.encode("utf-8", "replace"))  # (names come escaped: a "?" keeps JSON valid)

    def flush(self) -> None:
        buffer = getattr(self.stream, "buffer", None)
        self.stream.flush()
        if buffer is not None:
            buffer.flush()


def output_for(format_name: str, stream: TextIO) -> "TextIO | Utf8Output":
    """The stream a format writes to: UTF-8 bytes for the machine formats, `stream` for people."""
    return Utf8Output(stream) if format_name in UTF8_FORMATS else stream
