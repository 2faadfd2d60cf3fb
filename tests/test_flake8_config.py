"""`flake8 --select DEV` reports what `devlint` reports on the same project: the plugin reads
`[tool.devlint]` / `[devlint]` nearest each file, as the CLI does, with every setting that changes
reports (select, ignore, per-file-ignores, excludes, git's ignores) and those that shape fixes
(the target torch, the line length)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

BUG = 'import torch\n\nx = torch.zeros(3) if torch.cuda.is_available() else torch.ones(3)\nx.to("cuda")\nstate = torch.jit.load("a.pt")\n'
# (path, line, col, code) of BUG's reports: DEV001 and DEV003 on line 4, DEV004 on line 5; DEV003 and
# DEV004 are in preview, so only where the configuration names them (NAMED)
ALL = {(4, 1, "DEV001"), (4, 6, "DEV003"), (5, 9, "DEV004")}
NAMED = 'preview = true\n'
FILES = ("pkg/model.py", "tests/test_model.py", "third_party/vendored.py", "generated.py")


def _env(home: Path) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GIT_", "XDG_"))}
    env.update(PYTHONPATH=str(ROOT), HOME=str(home), GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL=str(home / "gitconfig"), XDG_CONFIG_HOME=str(home / "xdg"))
    return env


def _reports(output: str) -> set[tuple[str, int, int, str]]:
    found = set()
    for line in output.splitlines():
        path, row, col, rest = line.split(":", 3)
        found.add((path.removeprefix("./"), int(row), int(col), rest.split()[0]))
    return found


def both(project: Path, *paths: str) -> tuple[set, set]:
    """(devlint's reports, flake8's) on `paths` (default: the project), run from the project."""
    env = _env(project.parent / "home")
    cli = subprocess.run([sys.executable, "-m", "devlint", "--no-cache", "-q", "--output-format", "concise",
                          *paths], cwd=project, capture_output=True, text=True, env=env)
    assert cli.returncode in (0, 1), cli.stderr
    flake8 = subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV", *(paths or ["."])], cwd=project,
                            capture_output=True, text=True, env=env)
    assert flake8.returncode in (0, 1), flake8.stderr
    return _reports(cli.stdout), _reports(flake8.stdout)


def make_project(root: Path, config: str, config_file: str = "pyproject.toml") -> Path:
    project = root / "project"
    for name in FILES:
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(BUG)
    (project / ".gitignore").write_text("generated.py\n")
    (project / config_file).write_text(textwrap.dedent(config))
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=_env(root / "home"))
    return project


def everywhere(*files: str, but: frozenset = frozenset()) -> set:
    return {(name, *report) for name in files for report in ALL if (name, report[2]) not in but}


# named without preview, DEV004 reports its default shapes, which leave a test's load alone (it reads what its run wrote)
TEST_LOAD = ("tests/test_model.py", "DEV004")
CHECKED = ("pkg/model.py", "tests/test_model.py", "third_party/vendored.py")  # generated.py: git ignores it

CASES = {
    # the defaults: DEV003 and DEV004, in preview, are off for both (`flake8 --select DEV` names no rule)
    "none": ("", everywhere(*CHECKED, but=frozenset((name, code) for name in CHECKED
                                                    for code in ("DEV003", "DEV004")))),
    "select": ('select = ["DEV001", "DEV004"]\n',
               everywhere(*CHECKED, but=frozenset({*((name, "DEV003") for name in CHECKED), TEST_LOAD}))),
    "extend-select": ('select = ["DEV001"]\nextend-select = ["DEV004"]\n',
                      everywhere(*CHECKED, but=frozenset({*((name, "DEV003") for name in CHECKED), TEST_LOAD}))),
    "ignore": ('ignore = ["DEV00"]\n', set()),
    "per-file-ignores": (NAMED + 'per-file-ignores = { "tests/*" = ["DEV003"], '
                                 '"vendored.py" = ["DEV001", "DEV004"] }\n',
                         everywhere(*CHECKED, but=frozenset({("tests/test_model.py", "DEV003"),
                                                             ("third_party/vendored.py", "DEV001"),
                                                             ("third_party/vendored.py", "DEV004")}))),
    "extend-exclude": (NAMED + 'extend-exclude = ["third_party/"]\n',
                       everywhere("pkg/model.py", "tests/test_model.py")),
    "exclude": (NAMED + 'exclude = ["tests", "pkg/*.py"]\n', everywhere("third_party/vendored.py")),
    "respect-gitignore": (NAMED + "respect-gitignore = false\n", everywhere(*CHECKED, "generated.py")),
    "target-torch": (NAMED + 'target-torch = "2.7"\n', everywhere(*CHECKED)),
    "line-length": (NAMED + "line-length = 40\n", everywhere(*CHECKED)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_flake8_gives_devlints_reports_with_each_setting(tmp_path, case):
    table, expected = CASES[case]
    project = make_project(tmp_path, "[tool.devlint]\n" + table)
    cli, flake8 = both(project)
    assert cli == expected
    assert flake8 == cli


def test_setup_cfg_devlint_section_is_read_by_both(tmp_path):
    project = make_project(tmp_path, """\
        [devlint]
        extend-select = DEV003, DEV004
        per-file-ignores =
            tests/*: DEV003
        extend-exclude = third_party/
        """, "setup.cfg")
    cli, flake8 = both(project)
    assert cli == everywhere("pkg/model.py", "tests/test_model.py", but=frozenset({("tests/test_model.py", "DEV003"),
                                                                                  TEST_LOAD}))
    assert flake8 == cli


def test_configuration_is_found_from_the_checked_files_folder_upwards(tmp_path):
    """flake8 run above the project finds the project's table, as `devlint project` does."""
    project = make_project(tmp_path, '[tool.devlint]\n' + NAMED + 'per-file-ignores = { "tests/*" = ["DEV003"] }\n')
    cli, flake8 = both(project.parent, "project")
    assert ("project/tests/test_model.py", 4, 6, "DEV003") not in cli
    assert ("project/pkg/model.py", 4, 6, "DEV003") in cli
    assert flake8 == cli


@pytest.mark.parametrize("key, value, attribute, expected", [
    ("target-torch", '"2.6"', "target_torch", (2, 6)),
    ("line-length", "100", "line_length", 100),
])
def test_the_plugin_checks_with_the_fix_settings_of_the_table(tmp_path, monkeypatch, key, value, attribute, expected):
    """The target torch and the line length shape fixes, which flake8 does not show; the plugin still
    checks with them (the engine gets the settings the CLI would give it)."""
    from devlint.frontends import flake8

    project = make_project(tmp_path, f"[tool.devlint]\n{key} = {value}\n")
    monkeypatch.chdir(project)
    monkeypatch.setattr(flake8, "_PROJECTS", None)
    settings = flake8._settings_for(str(project / "pkg" / "model.py"))
    assert getattr(settings, attribute) == expected
    assert os.path.samefile(settings.root, project)
