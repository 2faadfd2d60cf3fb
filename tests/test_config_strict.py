"""Settings are checked as ruff checks its own: an unknown key (`line_length` for `line-length`) or a
value of the wrong type (`unsafe-fixes = "yes"`) is an error naming the file and the key's line,
exit 2 from `devlint`, and a visible error from `flake8 --select DEV` (never silence)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT, run_devlint

BUG = 'import torch\n\nstate = torch.jit.load("a.pt")\n'  # DEV004, a preview rule: `select = DEV` alone leaves it off
# The line under test is line 7 of pyproject.toml, line 6 of setup.cfg.
PYPROJECT = '[project]\nname = "demo"\nversion = "0"\n\n[tool.devlint]\nselect = ["DEV"]\n{line}\n'
SETUP_CFG = "[metadata]\nname = demo\n\n[devlint]\nselect = DEV\n{line}\n"

CASES = [
    ("pyproject.toml", "line_length = 100", 7, "unknown key 'line_length' in devlint configuration"
                                               " (did you mean 'line-length'?)"),
    ("pyproject.toml", 'target_torch = "2.6"', 7, "unknown key 'target_torch'"),
    ("pyproject.toml", 'unsafe-fixes = "yes"', 7, "'unsafe-fixes' must be true or false, not 'yes'"
                                                  " (TOML writes it without quotes)"),
    ("pyproject.toml", "respect-gitignore = 1", 7, "'respect-gitignore' must be true or false, not 1"),
    ("pyproject.toml", 'line-length = "100"', 7, "'line-length' must be a whole number from 1 to 320, not '100'"),
    ("pyproject.toml", 'extend-exclude = "build2"', 7, "'extend-exclude' must be a list of strings"),
    ("pyproject.toml", 'per-file-ignores = "tests/*:DEV003"', 7, "'per-file-ignores' must be a table"),
    ("pyproject.toml", "target-torch = 2.6", 7, "'target-torch' must be a torch version as a string"),
    ("setup.cfg", "line_length = 100", 6, "unknown key 'line_length'"),
    ("setup.cfg", "unsafe-fixes = maybe", 6, "'unsafe-fixes' must be true or false, not 'maybe'"),
    ("setup.cfg", "line-length = wide", 6, "'line-length' must be a whole number"),
]


def project(tmp_path, name: str, line: str):
    template = PYPROJECT if name == "pyproject.toml" else SETUP_CFG
    (tmp_path / name).write_text(template.format(line=line))
    (tmp_path / "a.py").write_text(BUG)
    return tmp_path


@pytest.mark.parametrize("name, line, number, message", CASES)
def test_devlint_names_the_file_and_line_and_exits_2(tmp_path, name, line, number, message):
    result = run_devlint("--no-cache", "a.py", cwd=project(tmp_path, name, line))
    assert result.returncode == 2
    assert result.stdout == ""
    [error] = result.stderr.splitlines()
    assert error.startswith(f"devlint: error: {tmp_path / name}:{number}: ")
    assert message in error


@pytest.mark.parametrize("name, line, number, message", CASES[:3] + CASES[-3:-2])
def test_flake8_shows_the_same_error_and_fails(tmp_path, name, line, number, message):
    result = subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV", "a.py"],
                            cwd=project(tmp_path, name, line), capture_output=True, text=True,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert result.returncode != 0
    shown = result.stdout + result.stderr
    assert f"{tmp_path / name}:{number}: " in shown and message in shown
    assert "Traceback" not in shown


def test_the_values_ini_spells_as_words_are_booleans_in_setup_cfg(tmp_path):
    """In setup.cfg every value is text: `yes`/`no`, `on`/`off`, `1`/`0` are booleans there, as
    configparser reads them."""
    lines = "unsafe-fixes = yes\nextend-select = DEV004"
    result = run_devlint("--no-cache", "a.py", cwd=project(tmp_path, "setup.cfg", lines))
    assert result.returncode == 1, result.stderr


def test_a_good_table_still_works(tmp_path):
    table = ('line-length = 100\ntarget-torch = "2.6"\nunsafe-fixes = true\nper-file-ignores = { "x/*" = ["DEV003"] }\n'
             'preview = true')
    result = run_devlint("--no-cache", "a.py", cwd=project(tmp_path, "pyproject.toml", table))
    assert result.returncode == 1, result.stderr
    assert "DEV004" in result.stdout
