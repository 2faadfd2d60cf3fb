"""The line limit a fix keeps to, read from the project's formatter configuration.

The setting nearest to the file wins, found as ruff and black find their configuration: walking
up from the file's directory. In one directory ruff's files come first (`.ruff.toml`,
`ruff.toml`: top-level `line-length`; then `[tool.ruff] line-length` in pyproject.toml), then
`[tool.black] line-length`, then flake8's `max-line-length` (`[flake8]` in setup.cfg, tox.ini,
.flake8). Files that cannot be read or parsed are passed over: they are not devlint's to judge.
`line-length` in devlint's own configuration overrides all of them; without any, 88.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Optional

from devlint.engine.config_files import load_ini, load_toml

DEFAULT_LINE_LENGTH = 88  # black's and ruff's
MAX_LINE_LENGTH = 320  # ruff's upper bound


def line_limit(configured: Optional[int], path: Optional[str]) -> int:
    """`configured` (devlint's `line-length`), else the formatter setting nearest to `path`
    (when `path` names a file), else 88."""
    if configured is not None:
        return configured
    if path is not None and os.path.isfile(path):
        found = formatter_line_length(path)
        if found is not None:
            return found
    return DEFAULT_LINE_LENGTH


def formatter_line_length(path: str) -> Optional[int]:
    """The line limit the project's formatter configuration sets for `path`, if any."""
    directory = os.path.dirname(os.path.abspath(path))
    return _line_length_in(directory)


@functools.lru_cache(maxsize=1024)
def _line_length_in(directory: str) -> Optional[int]:
    found = _own_line_length(directory)
    if found is not None:
        return found
    parent = os.path.dirname(directory)
    return None if parent == directory else _line_length_in(parent)


def _own_line_length(directory: str) -> Optional[int]:
    for name in (".ruff.toml", "ruff.toml"):
        data = _toml(os.path.join(directory, name))
        if data is not None and is_line_length(data.get("line-length")):
            return data["line-length"]
    tools = (_toml(os.path.join(directory, "pyproject.toml")) or {}).get("tool", {})
    if isinstance(tools, dict):
        for tool in ("ruff", "black"):
            section = tools.get(tool)
            if isinstance(section, dict) and is_line_length(section.get("line-length")):
                return section["line-length"]
    for name in ("setup.cfg", "tox.ini", ".flake8"):
        candidate = os.path.join(directory, name)
        if not os.path.isfile(candidate):
            continue
        try:
            parser = load_ini(candidate)
        except ValueError:
            continue
        value = parser.get("flake8", "max-line-length", fallback=None) or parser.get(
            "flake8", "max_line_length", fallback=None)
        if value is not None and value.strip().isdigit() and is_line_length(int(value.strip())):
            return int(value.strip())
    return None


def _toml(path: str) -> Optional[dict[str, Any]]:
    if not os.path.isfile(path):
        return None
    try:
        return load_toml(path)
    except (ValueError, OSError):
        return None


def is_line_length(value: Any) -> bool:
    """A whole number from 1 to 320 (ruff's bounds); not a bool."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_LINE_LENGTH
