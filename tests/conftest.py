"""Shared helpers for the test suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
RULE_DIRS = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and p.name.startswith("DEV"))


def expected_fix(rule_dir: Path, preview: bool = False) -> str:
    """What `devlint --fix --unsafe-fixes` (with `--preview` when `preview`) makes of the fixture's bad.py:
    fixed.py, or, for a rule without an automatic fix (whose fixed.py is written by hand) or a rule in
    preview without preview, bad.py unchanged."""
    from devlint.rules import get_rule
    from devlint.rules.rule import FixSafety

    rule = get_rule(rule_dir.name.split("-", 1)[0])
    has_fix = rule is not None and rule.fix_safety is not FixSafety.NONE and (preview or not rule.preview)
    return (rule_dir / ("fixed.py" if has_fix else "bad.py")).read_text()


def lint(code: str, path: str = "example.py", **settings) -> list[tuple[int, int, str]]:
    """(line, col, code) of every report on `code` (dedented)."""
    from devlint import lint_source
    from devlint.engine.settings import Settings

    diagnostics = lint_source(textwrap.dedent(code), path, Settings(**settings) if settings else None)
    return [(d.line, d.col, d.code) for d in diagnostics]


def lint_messages(code: str, rule: str, path: str = "example.py", **settings) -> list[str]:
    """The messages of rule `rule`'s reports on `code` (dedented)."""
    from devlint import lint_source
    from devlint.engine.settings import Settings

    diagnostics = lint_source(textwrap.dedent(code), path, Settings(**settings) if settings else None)
    return [d.message for d in diagnostics if d.code == rule]


def project_whose_tests_set_a_default_device(root: Path) -> tuple[str, str]:
    """A project at `root` whose tests/conftest.py sets the default device: (a test file's path, which
    follows it; a module's path beside the project's root, which does not)."""
    (root / "pyproject.toml").write_text("")
    (root / "tests").mkdir()
    (root / "tests" / "conftest.py").write_text("import torch\ntorch.set_default_device('cuda')\n")
    return str(root / "tests" / "test_a.py"), str(root / "model.py")


def run_devlint(*args: str, cwd: os.PathLike | str | None = None, input: str | None = None,
                env: dict[str, str] | None = None):
    """Run the real `devlint` command in a subprocess (`env`: variables to add)."""
    return subprocess.run(
        [sys.executable, "-m", "devlint", *args], cwd=cwd, capture_output=True, text=True, input=input,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def fresh_venv(root: Path, *, system_site_packages: bool = False, upgrade_deps: bool = False) -> dict[str, str]:
    """A new virtualenv at `root / "venv"`, and the environment its commands run in: its `bin` first on
    PATH, nothing from this interpreter's PYTHON*, VIRTUAL_ENV, PRE_COMMIT* or GIT_* variables, and git,
    pre-commit and HOME kept under `root`. `system_site_packages`: it sees this interpreter's packages
    (torch, libcst), though what is installed into it comes first."""
    import venv

    venv.create(root / "venv", with_pip=True, upgrade_deps=upgrade_deps, system_site_packages=system_site_packages)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "VIRTUAL_ENV", "PRE_COMMIT", "GIT_"))}
    env.update(PATH=f"{root / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(root / "venv"),
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com",
               PRE_COMMIT_HOME=str(root / "pre-commit"), HOME=str(root))
    return env


def git(*args: str, cwd: os.PathLike | str, env: dict[str, str]) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def snapshot_of_checkout(target: Path, env: dict[str, str]) -> Path:
    """This checkout's files (tracked and untracked-but-not-ignored) committed in a fresh repository at
    `target`, so that what pre-commit or pip installs from it is exactly what is on disk."""
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT, env=env)
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    git("init", "-q", cwd=target, env=env)
    git("add", "-A", cwd=target, env=env)
    git("commit", "-q", "-m", "snapshot", cwd=target, env=env)
    return target


@pytest.fixture
def rule_dirs() -> list[Path]:
    return RULE_DIRS
