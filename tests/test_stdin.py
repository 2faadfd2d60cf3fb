"""`devlint -` and `devlint --stdin-filename PATH -`: a buffer piped in, reports (or the fixed source) out."""

from __future__ import annotations

import json

from conftest import run_devlint

SOURCE = "import torch\nx = torch.load(p)\nmodel.load_state_dict(torch.load(q))\n"  # unsafe fix, safe fix
SAFE_FIXED = "import torch\nx = torch.load(p)\nmodel.load_state_dict(torch.load(q, map_location=\"cpu\"))\n"
NAME_DEV004 = ("--preview",)  # DEV004 is in preview: off unless named


def test_dash_reads_stdin_and_reports_under_dash(tmp_path):
    result = run_devlint(*NAME_DEV004, "-", cwd=tmp_path, input=SOURCE)
    assert result.returncode == 1
    assert [line.split(" ")[:2] for line in result.stdout.splitlines()] == [["-:2:5:", "DEV004"], ["-:3:23:", "DEV004"]]


def test_stdin_filename_names_the_reports_and_picks_its_per_file_ignores(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nper-file-ignores = { "tests/*" = ["DEV004"] }\n')
    (tmp_path / "tests").mkdir()
    reported = run_devlint(*NAME_DEV004, "--stdin-filename", "src/model.py", "-", cwd=tmp_path, input=SOURCE)
    ignored = run_devlint(*NAME_DEV004, "--stdin-filename", "tests/test_model.py", "-", cwd=tmp_path, input=SOURCE)
    assert reported.stdout.startswith("src/model.py:2:5: DEV004")
    assert (ignored.returncode, ignored.stdout) == (0, "")


def test_stdin_filename_alone_reads_stdin(tmp_path):
    result = run_devlint(*NAME_DEV004, "--stdin-filename", "model.py", cwd=tmp_path, input=SOURCE)
    assert result.stdout.startswith("model.py:2:5: DEV004")


def test_the_configuration_is_found_from_the_stdin_filename(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "setup.cfg").write_text("[devlint]\nignore = DEV004\n")
    result = run_devlint(*NAME_DEV004, "--stdin-filename", "project/model.py", "-", cwd=tmp_path, input=SOURCE)
    assert (result.returncode, result.stdout) == (0, "")


def test_an_excluded_stdin_filename_is_passed_through_unchecked(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nextend-exclude = ["generated"]\n')
    checked = run_devlint(*NAME_DEV004, "--stdin-filename", "generated/model.py", "-", cwd=tmp_path, input=SOURCE)
    fixed = run_devlint(*NAME_DEV004, "--fix", "--stdin-filename", "generated/model.py", "-", cwd=tmp_path,
                        input=SOURCE)
    assert (checked.returncode, checked.stdout) == (0, "")
    assert (fixed.returncode, fixed.stdout) == (0, SOURCE)


def test_fix_writes_the_fixed_source_to_stdout_and_what_is_left_to_stderr(tmp_path):
    result = run_devlint(*NAME_DEV004, "--fix", "-", cwd=tmp_path, input=SOURCE)
    assert result.stdout == SAFE_FIXED
    assert "-:2:5: DEV004" in result.stderr
    assert "1 fixed, 1 remaining" in result.stderr
    assert result.returncode == 1


def test_unsafe_fixes_apply_to_stdin_too(tmp_path):
    result = run_devlint(*NAME_DEV004, "--fix", "--unsafe-fixes", "-", cwd=tmp_path, input=SOURCE)
    assert result.stdout.count('map_location="cpu"') == 2
    assert result.returncode == 0


def test_fix_of_unparsable_input_gives_the_input_back(tmp_path):
    broken = "import torch\nx = torch.load(p)\ndef f(:\n"
    result = run_devlint(*NAME_DEV004, "--fix", "-", cwd=tmp_path, input=broken)
    assert result.stdout == broken
    assert "DEV999" in result.stderr


def test_diff_prints_the_patch(tmp_path):
    result = run_devlint(*NAME_DEV004, "--diff", "--stdin-filename", "model.py", "-", cwd=tmp_path, input=SOURCE)
    assert "+model.load_state_dict(torch.load(q, map_location=\"cpu\"))" in result.stdout
    assert result.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert result.returncode == 1


def test_output_formats_apply_to_stdin(tmp_path):
    result = run_devlint(*NAME_DEV004, "--output-format", "json", "--stdin-filename", "model.py", "-", cwd=tmp_path,
                         input=SOURCE)
    assert [report["path"] for report in json.loads(result.stdout)] == ["model.py", "model.py"]


def test_a_notebook_on_stdin_is_checked_by_cell(tmp_path):
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Load"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["import torch\n", "x = torch.load(p)"]}]}
    result = run_devlint(*NAME_DEV004, "--stdin-filename", "train.ipynb", "-", cwd=tmp_path, input=json.dumps(notebook))
    assert result.stdout.startswith("train.ipynb:cell 2:2:5: DEV004")


def test_dash_cannot_be_mixed_with_paths(tmp_path):
    result = run_devlint(*NAME_DEV004, "-", "other.py", cwd=tmp_path, input=SOURCE)
    assert result.returncode == 2
    assert "cannot be combined" in result.stderr
