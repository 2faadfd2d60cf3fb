"""Which files the real `devlint` command checks: .gitignore (in a real git repository), exclude
patterns with gitignore semantics, virtual environments by what they hold, force-exclude,
--show-files, and the paths reports are written with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from conftest import ROOT

BUG = "import torch\n\nx = torch.zeros(3)\nx.to('cpu')\n"
GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def _env(home: Path) -> dict:
    """The user's git configuration is left out: only what a test writes counts."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "XDG_"))}
    env.update(PYTHONPATH=str(ROOT), HOME=str(home), GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL=str(home / "gitconfig"), XDG_CONFIG_HOME=str(home / "xdg"))
    return env


def devlint(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "devlint", "--no-cache", *args], cwd=cwd, capture_output=True,
                          text=True, env=_env(cwd.parent / "home"))


def write(root: Path, *names: str, text: str = BUG) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def shown(result: subprocess.CompletedProcess) -> list[str]:
    return result.stdout.splitlines()


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "home").mkdir()
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def repo(project) -> Path:
    subprocess.run([GIT, "init", "-q"], cwd=project, check=True, env=_env(project.parent / "home"))
    return project


@needs_git
def test_gitignore_is_read_as_git_reads_it(repo):
    write(repo, "src/model.py", "src/generated/out.py", "logs/run.py", "scratch.py", "src/scratch.py",
          "keep/scratch.py", "tools/a.py", "tools/old.py", "tools/sub/old.py", "local.py")
    (repo / ".gitignore").write_text("src/generated/\nlogs\n/scratch.py\nkeep/*\n!keep/scratch.py\n")
    (repo / "tools" / ".gitignore").write_text("old.py\n")  # nested: relative to tools/, any depth
    (repo / ".git" / "info" / "exclude").write_text("local.py\n")
    listed = devlint(repo, "--show-files")
    assert listed.returncode == 0, listed.stderr
    assert shown(listed) == ["keep/scratch.py", "src/model.py", "src/scratch.py", "tools/a.py"]
    # What git itself would list as untracked agrees.
    git = subprocess.run([GIT, "ls-files", "--others", "--exclude-standard"], cwd=repo, capture_output=True,
                         text=True, env=_env(repo.parent / "home")).stdout.split()
    assert sorted(name for name in git if name.endswith(".py")) == shown(listed)


@needs_git
def test_the_global_excludes_file_of_git_config_is_read(repo):
    home = repo.parent / "home"
    (home / "ignore").write_text("*_local.py\n")
    (home / "gitconfig").write_text(f"[core]\n\texcludesFile = {home / 'ignore'}\n")
    write(repo, "train.py", "paths_local.py")
    assert shown(devlint(repo, "--show-files")) == ["train.py"]


@needs_git
def test_no_respect_gitignore_flag_and_setting_check_ignored_files(repo):
    write(repo, "train.py", "out/gen.py")
    (repo / ".gitignore").write_text("out/\n")
    assert shown(devlint(repo, "--show-files")) == ["train.py"]
    assert shown(devlint(repo, "--show-files", "--no-respect-gitignore")) == ["out/gen.py", "train.py"]
    (repo / "pyproject.toml").write_text("[tool.devlint]\nrespect-gitignore = false\n")
    assert shown(devlint(repo, "--show-files")) == ["out/gen.py", "train.py"]
    assert shown(devlint(repo, "--show-files", "--respect-gitignore")) == ["train.py"]


def test_gitignore_outside_a_git_repository_is_not_read(project):
    write(project, "train.py", "out/gen.py")
    (project / ".gitignore").write_text("out/\n")
    assert shown(devlint(project, "--show-files")) == ["out/gen.py", "train.py"]


def test_exclude_patterns_are_gitignore_patterns(project):
    write(project, "src/a.py", "src/deep/b.py", "vendor/x/c.py", "docs/conf.py", "docs/api/conf.py", "main.py")
    (project / "pyproject.toml").write_text(
        '[tool.devlint]\nextend-exclude = ["src/*.py", "vendor/**/c.py", "/docs/conf.py"]\n')
    # `*` stays within a segment (src/deep/b.py is kept), `**` crosses them, a leading `/` anchors.
    assert shown(devlint(project, "--show-files")) == ["docs/api/conf.py", "main.py", "src/deep/b.py"]


def test_older_exclude_spellings_keep_working(project):
    write(project, "build_tools/x.py", "third_party/lib/y.py", "gen/z.py", "main.py")
    (project / "setup.cfg").write_text("[devlint]\nextend-exclude = third_party, ./gen\n")
    assert shown(devlint(project, "--show-files")) == ["build_tools/x.py", "main.py"]


def test_a_folder_is_a_virtualenv_because_of_what_it_holds(project):
    write(project, "env/train.py", "venv/lib/site.py", "conda/lib/x.py", ".venv/a.py")
    (project / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "conda" / "conda-meta").mkdir()
    # `env/` and `.venv/` hold source here, not an environment: they are checked.
    assert shown(devlint(project, "--show-files")) == [".venv/a.py", "env/train.py"]


@needs_git
def test_show_files_verbose_says_why_each_path_is_skipped(repo):
    write(repo, "train.py", "build/x.py", "out/y.py", "venv/z.py", "tools/old.py")
    (repo / "venv" / "pyvenv.cfg").write_text("")
    (repo / ".gitignore").write_text("# generated\nout/\n")
    (repo / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["tools/old.py"]\n')
    result = devlint(repo, "--show-files", "--verbose")
    assert (result.returncode, shown(result)) == (0, ["train.py"])  # no rule runs: the bug is not reported
    assert result.stderr.splitlines() == [
        "devlint: skipped .git/: excluded by default exclude '.git'",
        "devlint: skipped build/: excluded by default exclude 'build'",
        "devlint: skipped out/: ignored by git: .gitignore:2 'out/'",
        "devlint: skipped venv/: a virtual environment (has pyvenv.cfg)",
        "devlint: skipped tools/old.py: excluded by extend-exclude 'tools/old.py'",
    ]


def test_a_named_folder_is_walked_even_when_excluded_unless_force_exclude(project):
    write(project, "build/gen/x.py")
    assert shown(devlint(project, "--show-files", "build")) == ["build/gen/x.py"]
    assert shown(devlint(project, "--show-files", "--force-exclude", "build")) == []


def test_force_exclude_makes_named_files_obey_exclude(project):
    write(project, "build/x.py", "vendor/y.py", "env/lib/site.py", "train.py")
    (project / "env" / "pyvenv.cfg").write_text("")
    (project / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["vendor/"]\n')
    named = ["build/x.py", "vendor/y.py", "env/lib/site.py", "train.py"]
    assert shown(devlint(project, "--show-files", *named)) == sorted(named)
    assert shown(devlint(project, "--show-files", "--force-exclude", *named)) == ["train.py"]
    (project / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["vendor/"]\nforce-exclude = true\n')
    assert shown(devlint(project, "--show-files", *named)) == ["train.py"]
    assert shown(devlint(project, "--show-files", "--no-force-exclude", *named)) == sorted(named)
    checked = devlint(project, "--force-exclude", "build/x.py")
    assert (checked.returncode, checked.stdout) == (0, "")


@pytest.mark.parametrize("fmt, field", [("text", None), ("json", "path"), ("json-lines", "path")])
def test_paths_are_written_without_a_leading_dot_slash(project, fmt, field):
    write(project, "src/train.py")
    for args in ([], ["."], ["./src"], ["./src/train.py"], ["src//train.py"]):
        out = devlint(project, "--output-format", fmt, *args).stdout
        if field is None:
            assert out.startswith("src/train.py:4:1: DEV001"), (args, out)
        else:
            rows = json.loads(out) if fmt == "json" else [json.loads(line) for line in out.splitlines()]
            assert {row[field] for row in rows} == {"src/train.py"}, (args, out)


@needs_git
@pytest.mark.parametrize("args", [[], ["."], ["./src"]])
def test_diff_applies_with_git_apply_from_the_project_root(repo, args):
    write(repo, "src/train.py", "top.py")
    env = _env(repo.parent / "home")
    patch = devlint(repo, "--diff", *args)
    assert patch.returncode == 1 and "a/./" not in patch.stdout
    (repo.parent / "fix.patch").write_text(patch.stdout)
    subprocess.run([GIT, "apply", str(repo.parent / "fix.patch")], cwd=repo, check=True, env=env)
    assert (repo / "src" / "train.py").read_text().endswith("x = x.to('cpu')\n")
    assert devlint(repo, *args).returncode == 0


@needs_git
def test_a_named_folder_that_git_ignores_is_walked_and_its_own_ignores_still_apply(repo):
    write(repo, "out/gen.py", "out/tmp_x.py")
    (repo / ".gitignore").write_text("out/\ntmp_*.py\n")
    assert shown(devlint(repo, "--show-files")) == []
    assert shown(devlint(repo, "--show-files", "out")) == ["out/gen.py"]


def test_verbose_check_run_says_what_it_skipped(project):
    write(project, "train.py", "build/x.py")
    result = devlint(project, "--verbose", ".")
    assert result.returncode == 1
    assert "devlint: skipped build/: excluded by default exclude 'build'" in result.stderr.splitlines()


@given(st.lists(st.sampled_from(["a", "b", ".", "..", "", "x.py", ".hidden", "..x", "a."]), min_size=1, max_size=6),
       st.booleans(), st.booleans(), st.booleans())
def test_clean_path_writes_every_path_as_purepath_does(parts, absolute, dotted, trailing):
    from pathlib import PurePath

    from devlint.runner.discovery import clean_path

    path = ("/" if absolute else "") + ("./" if dotted else "") + "/".join(parts) + ("/" if trailing else "")
    assert clean_path(path) == str(PurePath(path))
