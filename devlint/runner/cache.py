"""Check results keyed by what decides them: the file's bytes, devlint's code, the effective settings.

One small JSON file per result, named by its key, under `.devlint_cache/` at the project root
(where the configuration file is, else the working directory). A key never changes meaning:

- the file's exact bytes (sha256), and the path as given (reports name it);
- devlint's version and a hash of the source of every devlint module (editing a rule, or the
  engine, gives new keys);
- the codes enabled for that path (select, ignore, per-file-ignores, preview), whether preview
  shapes report, whether fix edits were computed (and the line limit they keep to), and the
  target torch version (which fixes are offered and what they write follow it).

A file's reports may also depend on other files of the project, through the project index
(devlint/analysis/project_index.py): an entry keeps the questions the rules asked it and the
answers, and is used only while the index gives the same answers. The index's answers are kept
too, one small file per project under `projects/`, with the fingerprint of the project's files they
were read from (their paths, sizes, modification times: devlint/engine/project.py); while the files
show that fingerprint, a run asks the kept answers instead of reading the project again. A
fingerprint is never taken over a file changed in the last two seconds (its time could stay the same
through another change), so a kept answer is never one of a text that has changed since.

A file's status (`os.stat`: size, modification and change times in ns, inode) is recorded to stand for the
bytes it was read with, so that a later run finds the entry without reading the file: only where the status
was the same after the read and neither time is within two seconds of it (as git treats such files), so a
status that names other bytes is never written. Writing a file moves its change time, which no tool sets back
(not on Windows, where `st_ctime` is the time of creation: there the bytes are always the key).

So the cache never has to be invalidated: stale entries are never looked up again
(`devlint clean` removes them). Writes go to a temporary file renamed into place, so
concurrent runs see a whole entry or none. An entry that cannot be read or decoded is a
miss, and a cache that cannot be written is skipped: the cache is never the reason a report
is missed. Fix runs (`--fix`, `--diff`) do not use it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict
from typing import Optional

from devlint.contract.diagnostics import Applicability, Diagnostic, Edit, FixInfo
from devlint.contract.project import __version__
from devlint.engine.settings import ENGINE_CODES, Settings

DEFAULT_DIRECTORY = ".devlint_cache"
# Present in every cache directory devlint made: `devlint clean` removes nothing else.
MARKER = "CACHEDIR.TAG"
_MARKER_TEXT = "Signature: 8a477f597d28d172789f06886806bc55\n# devlint result cache; `devlint clean` removes it\n"
FORMAT = 1


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """devlint's version and the hash of its own source files."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # devlint/, every layer
    digest = hashlib.sha256(f"{__version__}\0{FORMAT}".encode())
    for directory, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                digest.update(os.path.relpath(path, package).encode() + b"\0")
                with open(path, "rb") as handle:
                    digest.update(handle.read())
    return digest.hexdigest()


def default_directory(settings: Settings) -> str:
    return os.path.join(settings.root, DEFAULT_DIRECTORY)


@functools.lru_cache(maxsize=64)
def _enabled_codes(settings: Settings, path: Optional[str]) -> tuple[str, ...]:
    """The codes `settings` enables for `path` (for any path where no per-file-ignores apply: then
    `path` is None and the answer is computed once per run, not once per file)."""
    from devlint.rules import rule_codes

    return tuple(code for code in (*rule_codes(), *ENGINE_CODES) if settings.enabled(code, path))


class Cache:
    """Results of checking files, stored under `directory`."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        # project root -> the index's answers that hold for its files as they are (read once per process)
        self._answers: dict[str, dict[str, object]] = {}
        # project root -> (fingerprint, answers) as this process last found or wrote its file
        self._kept: dict[str, tuple[str, dict[str, object]]] = {}

    def key(self, path: str, raw: bytes, settings: Settings, with_edits: bool) -> str:
        digest = hashlib.sha256(_settings_part(path, settings, with_edits))
        digest.update(b"\0")
        digest.update(raw)
        return digest.hexdigest()

    def by_status(self, path: str, status: os.stat_result, settings: Settings,
                  with_edits: bool) -> Optional[list[Diagnostic]]:
        """The reports stored for the file whose status (`os.stat`) is `status`, found without reading it: where
        `remember_status` recorded which bytes that status stands for. None where it did not."""
        key = self._status_key(path, status, settings, with_edits)
        try:
            with open(self._entry(key), encoding="utf-8") as handle:
                data = json.load(handle)
            if data.get("key") != key:
                return None
            content = str(data["content"])
        except Exception:  # missing, truncated, corrupt: a miss
            return None
        return self.get(content, path)

    def remember_status(self, path: str, status: Optional[os.stat_result], key: str, settings: Settings,
                        with_edits: bool) -> None:
        """Record that the file's status `status`, taken before its bytes were read for `key`, stands for those
        bytes: only where the status is the same after the read, and neither its time of modification nor of
        its last change of status is within `RACY_SECONDS` (a file changed then may change again within one
        tick of the clock without its times moving). Its size, those two times (ns) and its inode make the
        status: writing a file moves its change time, whatever it does to the time of modification."""
        from devlint.engine.project import RACY_SECONDS

        if status is None or os.name == "nt" or time.time() - max(status.st_mtime, status.st_ctime) <= RACY_SECONDS:
            return  # (on Windows `st_ctime` is the file's creation time: a write does not move it)
        try:
            if _status_text(os.stat(path)) != _status_text(status):
                return
            status_key = self._status_key(path, status, settings, with_edits)
            entry = self._entry(status_key)
            self._prepare(os.path.dirname(entry))
            _write(entry, json.dumps({"key": status_key, "content": key}))
        except (OSError, TypeError, ValueError):
            pass

    @staticmethod
    def _status_key(path: str, status: os.stat_result, settings: Settings, with_edits: bool) -> str:
        digest = hashlib.sha256(_settings_part(path, settings, with_edits))
        digest.update(b"\0status\0" + _status_text(status).encode())
        return digest.hexdigest()

    def _entry(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key: str, path: str = "") -> Optional[list[Diagnostic]]:
        """The stored reports, or None when there are none (or they cannot be read, or the project
        index of `path` no longer answers what they were decided with)."""
        try:
            with open(self._entry(key), encoding="utf-8") as handle:
                data = json.load(handle)
            if data.get("key") != key:
                return None
            reads = data.get("index", {})
            if reads and not self._index_agrees(path, reads):
                return None
            return [_diagnostic(item) for item in data["diagnostics"]]
        except Exception:  # missing, truncated, corrupt or from another layout: a miss
            return None

    def put(self, key: str, diagnostics: list[Diagnostic], index_reads: Optional[dict[str, object]] = None,
            path: str = "") -> None:
        """Store the reports (and what the rules read from the project index of `path` for them, which is
        kept for the project too); any failure (read-only disk, full disk) only skips the cache."""
        entry = self._entry(key)
        try:
            self._prepare(os.path.dirname(entry))
            _write(entry, json.dumps({"key": key, "diagnostics": [asdict(d) for d in diagnostics],
                                      "index": index_reads or {}}))
        except (OSError, TypeError, ValueError):
            return
        if index_reads and path:
            self._keep_answers(path, index_reads)

    def _index_agrees(self, path: str, reads: dict[str, object]) -> bool:
        """Does the project index of `path` still give every recorded answer?"""
        from devlint.analysis.project_index import answer
        from devlint.engine.project import index_for, project_root

        root = project_root(path)
        if root is None:
            return False
        known = self._known_answers(root)
        for read, value in reads.items():
            if read not in known:
                index = index_for(path)
                if index is None:
                    return False
                known[read] = json.loads(json.dumps(answer(index, read)))
                self._keep_answers(path, {read: known[read]})
            if known[read] != value:
                return False
        return True

    def _known_answers(self, root: str) -> dict[str, object]:
        """The index's answers kept for `root` that hold for its files as they are now (asked once per process)."""
        if root not in self._answers:
            from devlint.engine.project import files_fingerprint

            now = files_fingerprint(root)
            kept = self._read_answers(root)
            self._answers[root] = dict(kept[1]) if now is not None and kept is not None and kept[0] == now else {}
        return self._answers[root]

    def _keep_answers(self, path: str, answers: dict[str, object]) -> None:
        """Keep `answers`, given by this process's index of `path`'s project, under the fingerprint of the files
        that index read (nothing where it has none); the answers already kept under it stay."""
        from devlint.engine.project import index_fingerprint, project_root

        root = project_root(path)
        fingerprint = index_fingerprint(root) if root is not None else None
        if root is None or fingerprint is None:
            return
        kept = self._kept.get(root) or self._read_answers(root)
        merged = dict(kept[1]) if kept is not None and kept[0] == fingerprint else {}
        if kept is not None and kept[0] == fingerprint and all(merged.get(r) == a for r, a in answers.items()):
            return
        merged.update(answers)
        try:
            self._prepare(os.path.join(self.directory, "projects"))
            _write(self._project_entry(root), json.dumps({"root": root, "fingerprint": fingerprint, "answers": merged}))
        except (OSError, TypeError, ValueError):
            return
        self._kept[root] = (fingerprint, merged)

    def _read_answers(self, root: str) -> Optional[tuple[str, dict[str, object]]]:
        try:
            with open(self._project_entry(root), encoding="utf-8") as handle:
                data = json.load(handle)
            if data["root"] != root or not isinstance(data["answers"], dict):
                return None
            kept = (str(data["fingerprint"]), data["answers"])
        except Exception:  # missing, truncated, corrupt: nothing kept
            return None
        self._kept[root] = kept
        return kept

    def _project_entry(self, root: str) -> str:
        name = hashlib.sha256(f"{code_fingerprint()}\0{root}".encode()).hexdigest()
        return os.path.join(self.directory, "projects", name + ".json")

    def _prepare(self, subdirectory: str) -> None:
        if os.path.isdir(subdirectory):
            return
        if not os.path.isdir(self.directory):
            os.makedirs(self.directory, exist_ok=True)
            _write_new(os.path.join(self.directory, ".gitignore"), "*\n")
            _write_new(os.path.join(self.directory, MARKER), _MARKER_TEXT)
        os.makedirs(subdirectory, exist_ok=True)


def clean(directory: str) -> bool:
    """Remove a cache directory devlint made. False when there was none; ValueError when
    `directory` is not a devlint cache (it is then left alone)."""
    if not os.path.isdir(directory):
        return False
    if not os.path.isfile(os.path.join(directory, MARKER)):
        raise ValueError(f"{directory}: not a devlint cache (no {MARKER}); not removed")
    shutil.rmtree(directory)
    return True


def _settings_part(path: str, settings: Settings, with_edits: bool) -> bytes:
    """What a key holds besides the file (which is there: it was read or looked at): devlint's code, the path,
    and what the reports depend on there."""
    from devlint.engine.line_length import line_limit
    from devlint.engine.target_torch import format_version, target_torch_in

    enabled = _enabled_codes(settings, path if settings.per_file_ignores else None)
    # fix edits are laid out within the line limit: it is part of what they depend on
    edits = str(line_limit(settings.line_length, path)) if with_edits else ""
    # which fixes are offered, and what they write, follow the target torch version
    torch_version = format_version(target_torch_in(settings.target_torch, os.path.dirname(os.path.abspath(path))))
    return "\0".join([code_fingerprint(), path, ",".join(enabled), str(with_edits), edits, torch_version,
                      f"preview={settings.preview}", f"max-file-size={settings.max_file_size}"]).encode()


def _status_text(status: os.stat_result) -> str:
    return f"{status.st_size}\0{status.st_mtime_ns}\0{status.st_ctime_ns}\0{status.st_ino}"


def _write(path: str, text: str) -> None:
    """Write `path` through a temporary file renamed into place: a concurrent reader sees all of it or none."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def _diagnostic(item: dict) -> Diagnostic:
    fix = item.get("fix")
    if fix is not None:
        edits = tuple(Edit(**edit) for edit in fix["edits"])
        item = {**item, "fix": FixInfo(Applicability(fix["applicability"]), fix["description"], edits)}
    return Diagnostic(**item)


def _write_new(path: str, text: str) -> None:
    """Write `path` unless it exists (another run may be creating it at the same time)."""
    try:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        pass


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
