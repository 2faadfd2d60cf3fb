"""The torch version fixes write code for: `target-torch`, else the project's own dependency on torch.

`target-torch = "2.6"` in devlint's configuration (or `--target-torch 2.6`) wins. Without it, the
nearest directory above the file that declares requirements is read, as the configuration is found:
its `pyproject.toml` (`[project] dependencies`; the optional dependencies where those do not name
torch; not where dependencies are declared `dynamic`), `requirements*.txt`, `setup.py` (a literal
`install_requires=[...]`), `setup.cfg` (`[options] install_requires`) and `environment.yml` /
`environment.yaml` (conda's `pytorch=1.8` too). The target is the lowest version their requirements
on torch allow: `torch>=2.6` means 2.6, `torch~=2.5.1` 2.5, `torch==2.4.*` 2.4. A requirement without
a lower bound, a pre-release bound (`>=2.6.0a0`), or no requirement on torch in any of them mean
unknown (None), and fixes that need a newer torch than every release has are then not offered.
`packaging` is not a dependency of devlint, so the simple specifier forms are read here, and anything
else counts as no lower bound: a wrong guess would write code the project's oldest torch cannot run.
Each directory is read once per process.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from typing import Any, Optional

from devlint.engine.config_files import load_ini, load_toml

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
    return target_torch_in(None, os.path.dirname(os.path.abspath(path)))


def target_torch_in(configured: Optional[TorchVersion], directory: str) -> Optional[TorchVersion]:
    """`target_torch` of a file known to be in `directory` (absolute): a question asked once per folder."""
    return configured if configured is not None else _declared_in(directory)


def declares_requirements(directory: str) -> bool:
    """Whether `directory` itself holds a file declaring requirements: the search for a file's target
    torch stops there."""
    return _requirements_in(directory) is not None


@functools.lru_cache(maxsize=1024)
def _declared_in(directory: str) -> Optional[TorchVersion]:
    found = _requirements_in(directory)
    if found is not None:
        return _lowest(found)
    parent = os.path.dirname(directory)
    return None if parent == directory else _declared_in(parent)


def _requirements_in(directory: str) -> Optional[list[str]]:
    """The specifiers of every requirement on torch that the directory's declaration files make, or
    None when it has no declaration file (then the parent directory is asked)."""
    declared = False
    found: list[str] = []
    project = _project_table(os.path.join(directory, "pyproject.toml"))
    if project is not None:
        declared = True
        found += _project_requirements(project)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return None
    for name in names:
        path = os.path.join(directory, name)
        lines: Optional[list[str]] = None
        if name.startswith("requirements") and name.endswith(".txt"):
            lines = _requirement_lines(_read(path))
        elif name == "setup.py":
            lines = _setup_py_requirements(_read(path))
        elif name == "setup.cfg":
            lines = _setup_cfg_requirements(_read(path))
        elif name in ("environment.yml", "environment.yaml"):
            lines = _environment_requirements(_read(path))
        if lines is not None:
            declared = True
            found += _torch_requirements(lines)
    return found if declared else None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def _lowest(specifiers: list[str]) -> Optional[TorchVersion]:
    """The lowest torch that every requirement allows; None where one has no lower bound (or none)."""
    bounds = [_lower_bound(specifier) for specifier in specifiers]
    if not bounds or None in bounds:
        return None  # some way of installing the project allows any torch
    return min(bound for bound in bounds if bound is not None)


def _requirement_lines(text: str) -> list[str]:
    """The requirement lines of a requirements file (comments, options and `-r` includes dropped)."""
    lines = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith(("#", "-")):
            lines.append(line)
    return lines


def _setup_py_requirements(text: str) -> list[str]:
    """The string literals of `install_requires=[...]` in a setup.py (a list or tuple written in the call,
    or a module-level name assigned one)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    assigned = {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                for target in node.targets if isinstance(target, ast.Name)}
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for keyword in node.keywords:
            if keyword.arg != "install_requires":
                continue
            value = keyword.value
            if isinstance(value, ast.Name):
                value = assigned.get(value.id, value)
            if isinstance(value, (ast.List, ast.Tuple)):
                lines += [item.value for item in value.elts
                          if isinstance(item, ast.Constant) and isinstance(item.value, str)]
    return lines


def _setup_cfg_requirements(text: str) -> list[str]:
    try:
        parser = load_ini(text=text)
    except ValueError:
        return []
    return _requirement_lines(parser.get("options", "install_requires", fallback=""))


# `- pytorch=1.8.1`, `- torch>=2.1`, `  - torch==2.4.0` (a pip list inside), quoted or not
_ENVIRONMENT_ITEM = re.compile(r"""\s*-\s*["']?([^"'#]+?)["']?\s*(?:#.*)?$""")
# conda's package spec: `pytorch`, `pytorch=1.8` (that version), `conda-forge::pytorch>=2.1`
_CONDA_TORCH = re.compile(r"(?:[\w-]+::)?pytorch(?![\w.-])\s*(.*)")


def _environment_requirements(text: str) -> list[str]:
    """The requirements under `dependencies:` in a conda environment file (the `channels:` list names
    `pytorch` too, as a channel); conda's `pytorch` is torch, and its single `=` pins that version."""
    lines = []
    in_dependencies = False
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith(("-", "#")):
            in_dependencies = line.split("#", 1)[0].strip() == "dependencies:"
            continue
        match = _ENVIRONMENT_ITEM.match(line) if in_dependencies else None
        if match is None:
            continue
        item = match.group(1).strip()
        conda = _CONDA_TORCH.fullmatch(item)
        if conda is not None:
            rest = conda.group(1)
            item = "torch" + ("=" + rest if rest.startswith("=") and not rest.startswith("==") else rest)
        lines.append(item)
    return lines


def _project_table(path: str) -> Optional[dict[str, Any]]:
    """The `[project]` table of a pyproject.toml, or None (no file, unreadable, no such table)."""
    if not os.path.isfile(path):
        return None
    try:
        project = load_toml(path).get("project")
    except (ValueError, OSError):
        return None
    return project if isinstance(project, dict) else None


def declared_torch(project: dict[str, Any]) -> Optional[TorchVersion]:
    """The lowest torch a `[project]` table's requirements allow, or None."""
    return _lowest(_project_requirements(project))


def _project_requirements(project: dict[str, Any]) -> list[str]:
    """The specifiers of a `[project]` table's requirements on torch: its dependencies, else (where
    those do not name torch) every optional group's."""
    if "dependencies" in (project.get("dynamic") or ()):
        return []  # declared elsewhere (setup.py, a requirements file): read there
    dependencies = project.get("dependencies")
    if isinstance(dependencies, list) and _torch_requirements(dependencies):
        return _torch_requirements(dependencies)
    optional = project.get("optional-dependencies")
    if not isinstance(optional, dict):
        return []
    return [specifiers for group in optional.values() if isinstance(group, list)
            for specifiers in _torch_requirements(group)]


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
