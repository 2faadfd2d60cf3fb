"""Reading and writing source files without losing a byte (encodings, BOM, CRLF, atomic writes)."""

from __future__ import annotations

import io
import os
import stat
import tokenize
from dataclasses import dataclass

NOTEBOOK_SUFFIX = ".ipynb"  # Jupyter notebooks: linted cell by cell (devlint/sources/notebook.py)


class SourceError(Exception):
    """A file that cannot be checked; the message says why (no traceback)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(frozen=True)
class SourceFile:
    path: str
    text: str
    encoding: str  # how to write it back ("utf-8-sig" keeps a BOM)
    raw: bytes  # exactly what was read, to detect changes before writing


def read_source(path: str) -> SourceFile:
    """Read and decode a file as Python does (BOM, PEP 263 coding cookie); newlines kept as-is."""
    return decode_source(path, read_bytes(path))


def read_bytes(path: str) -> bytes:
    """A file's bytes; SourceError (with the reason) when it cannot be read."""
    try:
        if os.path.isdir(path):
            raise SourceError(path, "is a directory, not a Python file")
        with open(path, "rb") as handle:
            return handle.read()
    except SourceError:
        raise
    except FileNotFoundError:
        raise SourceError(path, "file not found (deleted, or a broken symbolic link)") from None
    except PermissionError:
        raise SourceError(path, "cannot read file: permission denied") from None
    except OSError as error:
        raise SourceError(path, f"cannot read file: {error.strerror or error}") from None


def decode_source(path: str, raw: bytes) -> SourceFile:
    if b"\x00" in raw:
        raise SourceError(path, "file contains NUL bytes; not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        raise SourceError(path, f"cannot decode file: {error.msg if hasattr(error, 'msg') else error}") from None
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        reason = error.reason if isinstance(error, UnicodeDecodeError) else str(error)
        where = f" at byte {error.start}" if isinstance(error, UnicodeDecodeError) else ""
        raise SourceError(path, f"cannot decode file as {encoding}{where}: {reason}") from None
    return SourceFile(path, text, encoding, raw)


def write_source(source: SourceFile, new_text: str) -> None:
    """Write `new_text` in place of `source`, atomically, keeping the file's mode.

    Refuses (SourceError) when the file changed on disk since it was read."""
    path = source.path
    data = new_text.encode(source.encoding)
    try:
        with open(path, "rb") as handle:
            if handle.read() != source.raw:
                raise SourceError(path, "file changed on disk while being fixed; not written")
        mode = stat.S_IMODE(os.stat(path).st_mode)
        real = os.path.realpath(path)  # write through a symlink to its target
        directory = os.path.dirname(real) or "."
        import tempfile  # (only where a fix is written)

        fd, tmp = tempfile.mkstemp(prefix=".devlint-", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, real)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except SourceError:
        raise
    except OSError as error:
        raise SourceError(path, f"cannot write file: {error.strerror or error}") from None
