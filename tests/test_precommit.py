"""The pre-commit hooks, run by the real `pre-commit` against a snapshot of this checkout.

One test only: pre-commit builds a virtualenv and pip-installs devlint into it (about a minute)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, git, snapshot_of_checkout

BAD = "import torch\n\nx = torch.zeros(3)\nx.to('cpu')\n"
FIXED = "import torch\n\nx = torch.zeros(3)\nx = x.to('cpu')\n"


def _pre_commit_command() -> list[str] | None:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        return [shutil.which("pre-commit")] if shutil.which("pre-commit") else None
    return [sys.executable, "-m", "pre_commit"]


PRE_COMMIT = _pre_commit_command()
GIT = shutil.which("git")


def test_hook_definitions():
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"devlint", "devlint-fix"}
    assert hooks["devlint-fix"]["entry"].startswith("devlint --fix")
    assert all("--force-exclude" in hook["entry"].split() for hook in hooks.values())
    for hook in hooks.values():
        assert hook["entry"].startswith("devlint")
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is True and hook.get("pass_filenames", True) is True


@pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed (pip install 'devlint[test]')")
@pytest.mark.skipif(GIT is None, reason="git is not installed")
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout: no file list to snapshot")
def test_hooks_fail_on_a_bad_file_fix_it_and_pass_on_no_files(tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PRE_COMMIT", "GIT_"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL=os.devnull)
    hooks_repo = snapshot_of_checkout((tmp_path / "devlint").resolve(), env)
    user = tmp_path / "user"
    user.mkdir()
    git("init", "-q", cwd=user, env=env)
    (user / "train.py").write_text(BAD)
    (user / "notes.txt").write_text("not python\n")
    git("add", "-A", cwd=user, env=env)

    def pre_commit(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*PRE_COMMIT, *args], cwd=user, env=env, capture_output=True, text=True, timeout=600)

    # try-repo builds a fresh environment on every call, so it runs both hooks at once.
    first = pre_commit("try-repo", str(hooks_repo), "--files", "train.py")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "train.py:4:1: DEV001" in first.stdout  # the check hook failed with the report
    assert "files were modified by this hook" in first.stdout  # the fix hook rewrote the file
    assert (user / "train.py").read_text() == FIXED

    # What users write: a .pre-commit-config.yaml naming the repository and a revision.
    rev = git("rev-parse", "HEAD", cwd=hooks_repo, env=env).strip()
    config = {"repos": [{"repo": str(hooks_repo), "rev": rev, "hooks": [{"id": "devlint"}, {"id": "devlint-fix"}]}]}
    (user / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git("add", "-A", cwd=user, env=env)
    fixed = pre_commit("run", "--files", "train.py")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    # The hooks obey the project's excludes for the files pre-commit names (--force-exclude).
    (user / "vendored").mkdir()
    (user / "vendored" / "lib.py").write_text(BAD)
    (user / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["vendored/"]\n')
    git("add", "-A", cwd=user, env=env)
    excluded = pre_commit("run", "--files", "vendored/lib.py")
    assert excluded.returncode == 0, excluded.stdout + excluded.stderr
    assert (user / "vendored" / "lib.py").read_text() == BAD
    no_python = pre_commit("run", "--files", "notes.txt")
    assert no_python.returncode == 0, no_python.stdout + no_python.stderr
    no_files = pre_commit("run", "devlint", "--files")
    assert no_files.returncode == 0, no_files.stdout + no_files.stderr
