"""LibCST's node classes without compiling their dataclass methods again in every process.

LibCST's ~200 node classes are frozen dataclasses. Building each one, `dataclasses` writes the source of its
`__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` and `__delattr__` and compiles it with `exec`: about
1,000 small compilations, most of what importing the node classes costs, which is most of the start-up of a run that
reaches LibCST (benchmarks/README.md). The source `dataclasses` writes is the same text in every process (the
fields' names, never an address), so its compiled code is too. While the LibCST stage is imported (engine.py,
the editor's reparser), `compiled_dataclasses()` hands `exec` the code kept for a text it has seen, as Python keeps
a module's bytecode in `__pycache__`: one file per Python bytecode format, optimisation level and installation of
LibCST, under the user's cache folder (`$XDG_CACHE_HOME/devlint`, else `~/.cache/devlint`). What runs is what
`exec` would have compiled (the same text, file name `<string>`, flags and optimisation level;
tests/test_compiled_dataclasses.py compares every method with a plain import's). A file that cannot be read, or
holds anything but texts and their code, is ignored and written again; nothing is written where Python writes no
bytecode (`PYTHONDONTWRITEBYTECODE`) or the folder cannot be made. Each new environment (a CI virtualenv, another
release of LibCST) writes a file of its own, about 700 KB: writing one removes all but the `KEPT_FILES` newest, as
a file still in use costs one slow start to write again, never a wrong method.
"""

from __future__ import annotations

import builtins
import dataclasses
import importlib.util
import marshal
import os
import sys
import threading
from contextlib import contextmanager
from types import CodeType
from typing import Any, Iterator, Optional

_lock = threading.RLock()
_depth = 0  # imports served at once (nested, or in two threads)
_kept: dict[str, CodeType] = {}  # text -> its code: read from the file, then what this process compiled
_used: set[str] = set()  # the texts this process asked for: all the file keeps
_compiled = 0  # texts compiled here that the file did not hold
_written = 0  # of them, how many the file holds now
_path: Optional[str] = None
_MISSING = object()
KEPT_FILES = 8  # files of other environments kept beside the one written
_shadowed: object = _MISSING  # a global `exec` of `dataclasses` itself (none in the releases read), put back after


def cache_path() -> Optional[str]:
    """Where the compiled methods are kept for this Python and this installation of LibCST (its folder and the
    time its `__init__` was written: another release, or another environment, keeps its own file); None where
    there is no home folder or no LibCST."""
    base = os.environ.get("XDG_CACHE_HOME") or (os.environ.get("LOCALAPPDATA") if os.name == "nt" else None)
    if not base:
        home = os.path.expanduser("~")
        if home == "~":
            return None
        base = os.path.join(home, ".cache")
    try:
        spec = importlib.util.find_spec("libcst")
        origin = spec.origin if spec is not None else None
        written = os.stat(origin).st_mtime_ns if origin else None
    except (ImportError, ValueError, OSError):
        return None
    if written is None:
        return None
    import hashlib  # (here: a run that never reaches LibCST imports none of this)

    installation = hashlib.sha256(f"{origin}\0{written}".encode()).hexdigest()[:16]
    tag = sys.implementation.cache_tag or sys.implementation.name
    name = f"dataclasses-{tag}-{importlib.util.MAGIC_NUMBER.hex()}-O{sys.flags.optimize}-{installation}.marshal"
    return os.path.join(base, "devlint", name)


@contextmanager
def compiled_dataclasses() -> Iterator[None]:
    """While LibCST (and devlint's LibCST stage) is imported: `dataclasses` gets each method's code from the kept
    file, and what it had to compile is written back when the outermost import ends."""
    global _depth, _path, _shadowed
    with _lock:
        if _depth == 0:
            if _path is None:
                _path = cache_path()
                if _path is not None:
                    _kept.update(_read(_path))
            _shadowed = dataclasses.__dict__.get("exec", _MISSING)
            dataclasses.exec = _exec  # type: ignore[attr-defined]  # (a module global shadows the builtin)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                if _shadowed is _MISSING:
                    del dataclasses.exec  # type: ignore[attr-defined]
                else:
                    dataclasses.exec = _shadowed  # type: ignore[attr-defined]
                _write_back()


def _exec(source: Any, globals: Optional[dict] = None, locals: Optional[dict] = None, /) -> None:
    """`exec` as `dataclasses` calls it, given the kept code for a text it has seen."""
    if globals is None:  # as `exec` does: the caller's namespaces (`dataclasses`')
        caller = sys._getframe(1)
        globals = caller.f_globals
        if locals is None:
            locals = caller.f_locals
    if isinstance(source, str):
        source = _code_for(source)
    builtins.exec(source, globals, globals if locals is None else locals)


def _code_for(text: str) -> CodeType:
    global _compiled
    code = _kept.get(text)
    if code is None:
        # as `exec(text)` compiles it from `dataclasses`, which has no `from __future__` import
        code = compile(text, "<string>", "exec", dont_inherit=True)
        with _lock:
            _kept[text] = code
            _compiled += 1
    _used.add(text)
    return code


def _read(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as file:
            loaded = marshal.load(file)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(loaded, dict) or not all(
            type(text) is str and type(code) is CodeType for text, code in loaded.items()):
        return {}
    return loaded


def _write_back() -> None:
    """The texts this process used and their code, into the file at once (another process reads the old file or the
    new one), where this process compiled any the file did not hold."""
    global _written
    if _compiled == _written or _path is None or sys.dont_write_bytecode:
        return
    _written = _compiled
    import tempfile

    folder = os.path.dirname(_path)
    try:
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as file:
                marshal.dump({text: _kept[text] for text in _used}, file)
            os.replace(temporary, _path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        return  # an unwritable cache folder costs the compilations next time, nothing else
    _remove_old_files(folder, _path)


def _remove_old_files(folder: str, written: str) -> None:
    """All but the `KEPT_FILES` most recently written files of `folder` beside `written` (another process may be
    removing them too: a file already gone is no error)."""
    try:
        others = [entry for entry in os.scandir(folder) if entry.name.startswith("dataclasses-")
                  and entry.name.endswith(".marshal") and entry.path != written and entry.is_file()]
        others.sort(key=lambda entry: entry.stat().st_mtime_ns, reverse=True)
    except OSError:
        return
    for entry in others[KEPT_FILES:]:
        try:
            os.unlink(entry.path)
        except OSError:
            pass
