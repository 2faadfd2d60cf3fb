"""Every shell command the README shows, run as written in a fresh virtualenv on a small project.

The two `    $ ` set-up commands are .ci/run's (it runs them in its own fresh virtualenv). Every other
command is extracted here from the README's ```sh blocks, its indented command blocks, the `run:` /
`script:` lines of its CI examples and its pre-commit configurations, so a command added to the
README is run without a change here; each must be run or named in SKIPPED with the reason.

What cannot be as written, and is changed the least possible:
- github.com is not reachable from CI machines without network: `https://github.com/devlint/devlint`
  in a git URL or a pre-commit `repo:` is this checkout (`file://` + its path): the same repository,
  served locally. `rev:` and `@vX.Y.Z` stay as written: the release tag of this version, this repository's
  where it has it, else a snapshot of this checkout tagged as the release steps tag it (CHANGELOG.md).
- The usage synopsis names its operands: `PATH` is `src`, `[PATH ...]` is `src`, `DIR` a folder.
- flake8's own pre-commit repository cannot be cloned offline: its hook is run as pre-commit would
  run it (flake8 at the `rev:` with the `additional_dependencies`, the hook's `args`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, fresh_venv, git, snapshot_of_checkout

README = (ROOT / "README.md").read_text(encoding="utf-8")
PROJECT_URL = "https://github.com/devlint/devlint"
GIT = shutil.which("git")
BUG = ('import torch\n\nx = torch.zeros(3)\nx.to("cuda")\nstate = torch.load("a.pt")\n')

# Commands that are not run here, and why (each is exercised elsewhere).
SKIPPED = {
    "devlint lsp": "a language server waiting on stdin: tests/test_lsp.py drives it",
    "devlint confirm": "needs torch (the `runtime` extra) and minutes: tests/test_runtime_*.py",
    "devlint --watch": "runs until Ctrl-C: tests/test_cli_habits.py drives it",
}
# The project's files hold bugs: a check exits 1, a fix 0 or 1 (what is left), and these 0.
EXIT_ZERO = ("--fix-only", "--add-noqa", "--write-baseline", "--baseline", "--exit-zero", "--show-files",
             "devlint clean", "pip install")

pytestmark = [
    pytest.mark.skipif(GIT is None, reason="git is not installed"),
    pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout: pip cannot install its git URL"),
]


def _blocks() -> list[tuple[str, list[str]]]:
    """(fence language, lines) of each fenced block; indented blocks as language 'indented'."""
    blocks: list[tuple[str, list[str]]] = []
    fence, lines = None, []
    indented: list[str] = []
    for line in README.splitlines():
        if line.startswith("```"):
            if fence is None:
                fence, lines = line[3:].strip(), []
            else:
                blocks.append((fence, lines))
                fence = None
            continue
        if fence is not None:
            lines.append(line)
        elif line.startswith("    ") and line.strip():
            indented.append(line[4:])
        elif indented:
            blocks.append(("indented", indented))
            indented = []
    return blocks


def _command(line: str) -> str:
    """A line without its trailing `# comment` (not inside quotes)."""
    return re.sub(r"\s+#\s.*$", "", line).strip()


def command_blocks() -> list[list[str]]:
    """The commands of each block, in order."""
    found = []
    for language, lines in _blocks():
        commands: list[str] = []
        if language in ("sh", "indented"):
            commands = [_command(line) for line in lines
                        if not line.startswith("$ ") and line.split(" ", 1)[0] in ("devlint", "flake8", "pip")]
        elif language == "yaml":
            data = yaml.safe_load("\n".join(lines))
            jobs = data.get("jobs", {}) if isinstance(data, dict) else {}
            for job in (*jobs.values(), *([data["devlint"]] if isinstance(data, dict) and "devlint" in data else [])):
                commands += [step["run"] for step in job.get("steps", []) if "run" in step]
                commands += list(job.get("script", []))
        if commands:
            found.append(commands)
    return found


def shell_commands() -> list[str]:
    return [command for block in command_blocks() for command in block]


def pre_commit_configs() -> list[dict]:
    return [data for language, lines in _blocks() if language == "yaml"
            for data in [yaml.safe_load("\n".join(lines))] if isinstance(data, dict) and "repos" in data]


def as_run_here(command: str, repository: Path = ROOT) -> str:
    command = command.replace(f"git+{PROJECT_URL}", f"git+file://{repository}")
    command = command.replace("[PATH ...]", "src").replace("[--verbose]", "--verbose")
    command = re.sub(r"\bPATH\b", "src", command)
    return command.replace(" DIR ", " elsewhere-cache ")


def test_every_command_is_run_or_skipped_with_a_reason():
    commands = shell_commands()
    assert any(command.startswith("pip install") for command in commands)
    assert any("--output-format sarif" in command for command in commands)
    assert len(pre_commit_configs()) == 2


@pytest.fixture(scope="module")
def environment(tmp_path_factory) -> dict:
    """A fresh virtualenv where the README's install commands ran, in the README's order."""
    root = tmp_path_factory.mktemp("readme")
    env = fresh_venv(root, upgrade_deps=True)  # an old pip refuses git+file: URLs
    for command in installs():
        done = subprocess.run(["bash", "-c", as_run_here(command)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    return env


def project(base: Path, env: dict) -> Path:
    """A git repository with buggy files under src/ (and src/x.py, the stdin example's name)."""
    path = base / "project"
    (path / "src").mkdir(parents=True)
    (path / "src" / "train.py").write_text(BUG)
    (path / "src" / "x.py").write_text(BUG)
    (path / "elsewhere-cache").mkdir()
    subprocess.run(["git", "init", "-q"], cwd=path, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=path, env=env, check=True)
    return path


def installs() -> list[str]:
    """The README's `pip install` commands, each once (the CI examples repeat the Install section's,
    `python -m pip` for `pip`), the checkout's own (`pip install .`) last: what the tests run."""
    unique = dict.fromkeys(command.replace("python -m pip ", "pip ") for command in shell_commands()
                           if "pip install" in command)
    return sorted(unique, key=lambda command: command == "pip install .")


def _run_cases() -> list[pytest.param]:
    """(command, what to run first): the commands are independent examples, but for a baseline the
    block writes (`--write-baseline`) before it reads."""
    return [pytest.param(command, [earlier for earlier in block[:position] if "--write-baseline" in earlier],
                         id=command)
            for block in command_blocks() for position, command in enumerate(block)
            if "pip install" not in command]


@pytest.mark.parametrize("command, before", _run_cases())
def test_readme_command_runs_as_written(environment, tmp_path, command, before):
    reason = next((why for start, why in SKIPPED.items() if command.startswith(start)), None)
    if reason is not None:
        pytest.skip(reason)
    where = project(tmp_path, environment)
    for earlier in before:  # (its exit code is its own test's)
        subprocess.run(["bash", "-c", as_run_here(earlier)], cwd=where, env=environment, capture_output=True,
                       stdin=subprocess.DEVNULL)
    stdin = BUG if command.endswith(" -") else None
    done = subprocess.run(["bash", "-c", as_run_here(command)], cwd=where, env=environment, capture_output=True,
                          text=True, input=stdin, timeout=300)
    shown = f"{command}\nexit {done.returncode}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
    assert "Traceback" not in done.stderr and "error:" not in done.stderr, shown
    if any(mark in command for mark in EXIT_ZERO):
        assert done.returncode == 0, shown
    elif "--fix" in command:
        assert done.returncode in (0, 1), shown
    else:
        assert done.returncode == 1, shown


@pytest.fixture(scope="module")
def release(environment, tmp_path_factory) -> tuple[Path, Path]:
    """(a git repository holding the tag the README's `rev:` names, the source at that tag): this repository
    where it has the tag (the release was made); else a snapshot of this checkout, tagged there as the release
    steps tag it (CHANGELOG.md, Releasing: the tag is made once the version's commit is in)."""
    tag = pre_commit_configs()[0]["repos"][0]["rev"]
    base = tmp_path_factory.mktemp("release")
    here = subprocess.run(["git", "rev-parse", "-q", "--verify", f"refs/tags/{tag}"], cwd=ROOT, env=environment,
                          capture_output=True)
    if here.returncode == 0:
        source = base / "source"
        source.mkdir()
        archive = subprocess.run(["git", "archive", tag], cwd=ROOT, env=environment, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
        return ROOT, source
    snapshot = snapshot_of_checkout(base / "devlint", environment)
    git("tag", tag, cwd=snapshot, env=environment)
    return snapshot, snapshot


REPORT = re.compile(r"^(\S+):(\d+):(\d+): (DEV\d{3}) ", re.MULTILINE)


def test_the_pre_commit_hook_config_runs_as_written_and_gives_the_releases_reports(environment, release, tmp_path):
    """The README's hook configuration, its `repo:` served locally: the hook installs from the tag `rev:` names,
    fails on the project's bugs and gives on the fixtures the reports that release's `devlint` gives."""
    from devlint import __version__

    repository, source = release
    config = pre_commit_configs()[0]
    [repo] = config["repos"]
    assert repo["repo"] == PROJECT_URL and repo["rev"] == f"v{__version__}"
    where = project(tmp_path, environment)
    shutil.copytree(source / "fixtures", where / "fixtures")
    text = yaml.safe_dump({"repos": [{**repo, "repo": str(repository)}]})
    (where / ".pre-commit-config.yaml").write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=where, env=environment, check=True)
    done = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=where, env=environment,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/train.py:4:1: DEV001" in done.stdout
    python = Path(environment["VIRTUAL_ENV"]) / "bin" / "python"  # (the venv the README set up: its libcst)
    released = subprocess.run([str(python), "-m", "devlint", "--no-cache", "src", "fixtures"], cwd=where,
                              env={**environment, "PYTHONPATH": str(source)}, capture_output=True, text=True)
    assert released.returncode == 1, released.stdout + released.stderr
    expected = sorted(REPORT.findall(released.stdout))
    assert len(expected) > 20 and {code for *_, code in expected} >= {"DEV001", "DEV006", "DEV010"}
    assert sorted(REPORT.findall(done.stdout)) == expected


def test_the_flake8_pre_commit_hook_runs_as_pre_commit_would(environment, release, tmp_path):
    [repo] = pre_commit_configs()[1]["repos"]
    [hook] = repo["hooks"]
    assert repo["repo"] == "https://github.com/PyCQA/flake8" and hook["id"] == "flake8"
    dependencies = [as_run_here(f"x {dependency}", release[0])[2:] for dependency in hook["additional_dependencies"]]
    requirements = [f"flake8=={repo['rev']}", *dependencies]
    installed = subprocess.run(["pip", "install", "-q", *requirements], env=environment, capture_output=True,
                               text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr[-2000:]
    where = project(tmp_path, environment)
    done = subprocess.run(["flake8", *hook["args"], "src/train.py"], cwd=where, env=environment,
                          capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/train.py:4:1: DEV001" in done.stdout
