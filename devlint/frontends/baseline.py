"""Baselines: adopt devlint on an existing codebase by recording today's reports and
reporting only new ones.

An entry is (path, code, stripped statement text) with a count, never a line number, so it
survives edits elsewhere in the file; changing the reported statement makes it a new report.
Paths are stored relative to the baseline file's directory, so the file works from any
working directory."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Iterable, Sequence

from devlint.contract.diagnostics import Diagnostic
from devlint.contract.display import display_path
from devlint.runner.errors import UsageError

VERSION = 1
Key = tuple[str, str, str]  # (path relative to the baseline, code, statement)


class BaselineError(UsageError):
    pass


def _key(d: Diagnostic, base_dir: str) -> Key:
    rel = os.path.relpath(os.path.abspath(d.path), base_dir).replace(os.sep, "/")
    return (display_path(rel), d.code, d.statement)  # (as the JSON file holds it: a name that is not UTF-8 escaped)


def write_baseline(path: str, diagnostics: Iterable[Diagnostic]) -> int:
    """Record `diagnostics` in `path`; returns the number of entries written."""
    base_dir = os.path.dirname(os.path.abspath(path))
    counts = Counter(_key(d, base_dir) for d in diagnostics)
    entries = [{"path": p, "code": c, "statement": s, "count": n} for (p, c, s), n in sorted(counts.items())]
    data = {"tool": "devlint", "version": VERSION, "entries": entries}
    try:
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
    except OSError as error:
        raise BaselineError(f"{path}: cannot write baseline: {error.strerror or error}") from None
    return len(entries)


def read_baseline(path: str) -> Counter[Key]:
    """The recorded (path, code, statement) -> count; BaselineError says what is wrong with the file."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline file not found (create it with --write-baseline)") from None
    except OSError as error:
        raise BaselineError(f"{path}: cannot read baseline: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BaselineError(f"{path}: not a devlint baseline (invalid JSON: {error})") from None
    if not isinstance(data, dict) or data.get("tool") != "devlint" or not isinstance(data.get("entries"), list):
        raise BaselineError(f"{path}: not a devlint baseline (expected an object with 'tool' and 'entries')")
    if data.get("version") != VERSION:
        raise BaselineError(f"{path}: baseline version {data.get('version')!r} is not supported (expected {VERSION})")
    counts: Counter[Key] = Counter()
    for number, entry in enumerate(data["entries"], 1):
        if not _valid_entry(entry):
            raise BaselineError(f"{path}: entry {number} must have string 'path', 'code', 'statement'"
                                " and a positive integer 'count'")
        counts[(entry["path"], entry["code"], entry["statement"])] += entry["count"]
    return counts


def _valid_entry(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(key), str) for key in ("path", "code", "statement"))
        and isinstance(entry.get("count"), int) and not isinstance(entry.get("count"), bool)
        and entry["count"] > 0
    )


class Baseline:
    """A loaded baseline: `new(diagnostics)` keeps the reports it does not record."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.counts = read_baseline(path)
        self.base_dir = os.path.dirname(os.path.abspath(path))

    def new(self, diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
        """Each entry absorbs at most `count` reports (in file order), so a further copy of a
        recorded statement is reported."""
        budget = Counter(self.counts)
        fresh = []
        for d in diagnostics:
            key = _key(d, self.base_dir)
            if budget[key] > 0:
                budget[key] -= 1
            else:
                fresh.append(d)
        return fresh
