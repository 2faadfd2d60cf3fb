"""The torch version fixes write code for: `target-torch`, else the project's own dependency on torch.

`target-torch = "2.6"` in devlint's configuration (or `--target-torch 2.6`) wins. Without it, the
nearest `pyproject.toml` above the file that has a `[project]` table is read: the lowest version
its requirements on torch allow (`[project] dependencies`; the optional dependencies where those
do not name torch). `torch>=2.6` means 2.6, `torch~=2.5.1` 2.5, `torch==2.4.*` 2.4; a requirement
without a lower bound, a pre-release bound (`>=2.6.0a0`), dependencies declared `dynamic`, or no
requirement on torch at all mean unknown (None), and fixes then write what runs on every torch
from 2.1. `packaging` is not a dependency of devlint, so the simple specifier forms are read here,
and anything else counts as no lower bound: a wrong guess would write code the project's oldest
torch cannot run.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from typing import Any, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TorchVersion = tuple[int, int]  # (major, minor)

_TARGET = re.compile(r"(\d+)\.(\d+)")
# `name [extras] specifiers ; marker`, the PEP 508 forms pyproject files use (no URLs)
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?([^;()]*)\)?\s*(;.*)?$")
# A lower bound: `>=2.6`, `>2.6`, `~=2.5.1`, `==2.4.*`, `===2.4.1`, with an optional local label (`+cu121`)
_LOWER_BOUND = re.compile(r"(>=|>|~=|===|==)\s*v?(\d+)\.(\d+)(?:\.\d+)*(?:\.\*)?(?:\+[A-Za-z0-9.]+)?")


def parse_target_torch(value: str) -> Optional[TorchVersion]:
    """`"2.6"` -> (2, 6); None when `value` is not MAJOR.MINOR."""
    match = _TARGET.fullmatch(value.strip())
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def format_version(version: Optional[TorchVersion]) -> str:
    return "unknown" if version is None else f"{version[0]}.{version[1]}"


def target_torch(configured: Optional[TorchVersion], path: Optional[str]) -> Optional[TorchVersion]:
    """`configured` (devlint's `target-torch`), else the lowest torch the project nearest to `path`
    (a file) declares, else None (unknown)."""
    if configured is not None:
        return configured
    if path is None or not os.path.isfile(path):
        return None
    return _declared_in(os.path.dirname(os.path.abspath(path)))


@functools.lru_cache(maxsize=1024)
def _declared_in(directory: str) -> Optional[TorchVersion]:
    project = _project_table(os.path.join(directory, "pyproject.toml"))
    if project is not None:
        return declared_torch(project)
    parent = os.path.dirname(directory)
    return None if parent == directory else _declared_in(parent)


def _project_table(path: str) -> Optional[dict[str, Any]]:
    """The `[project]` table of a pyproject.toml, or None (no file, unreadable, no such table)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            project = tomllib.load(handle).get("project")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError):
        return None
    return project if isinstance(project, dict) else None


def declared_torch(project: dict[str, Any]) -> Optional[TorchVersion]:
    """The lowest torch a `[project]` table's requirements allow, or None."""
    dependencies = project.get("dependencies")
    if "dependencies" in (project.get("dynamic") or ()):
        return None  # declared elsewhere (setup.py, a requirements file): not read
    groups: list[list[Any]] = []
    if isinstance(dependencies, list) and _torch_requirements(dependencies):
        groups = [dependencies]
    else:
        optional = project.get("optional-dependencies")
        if isinstance(optional, dict):
            groups = [group for group in optional.values() if isinstance(group, list)]
    bounds = [_lower_bound(specifiers) for group in groups for specifiers in _torch_requirements(group)]
    if not bounds or None in bounds:
        return None  # some way of installing the project allows any torch
    return min(bound for bound in bounds if bound is not None)


def _torch_requirements(requirements: list[Any]) -> list[str]:
    """The specifier parts of the requirements that name torch."""
    found = []
    for requirement in requirements:
        if not isinstance(requirement, str):
            continue
        match = _REQUIREMENT.match(requirement)
        if match is not None and match.group(1).lower().replace("_", "-") == "torch":
            found.append(match.group(3))
    return found


def _lower_bound(specifiers: str) -> Optional[TorchVersion]:
    """The highest lower bound among comma-separated specifiers; None when none is one we read."""
    bounds = []
    for specifier in specifiers.split(","):
        specifier = specifier.strip()
        if not specifier:
            continue
        match = _LOWER_BOUND.fullmatch(specifier)
        if match is not None:
            bounds.append((int(match.group(2)), int(match.group(3))))
    return max(bounds) if bounds else None
