"""Habits ruff users bring: `devlint check PATH`, options before a subcommand, `--help` naming the
subcommands, a path with no Python files said so, the summary naming the files it could not check, and `--watch`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import queue

import pytest

from conftest import ROOT, run_devlint

BUG = 'import torch\n\nstate = torch.load("a.pt")\n'  # DEV004, a preview rule: the runs below name it
FIXED = 'import torch\n\nstate = torch.load("a.pt", map_location="cpu")\n'


def test_check_is_the_default_command(tmp_path):
    (tmp_path / "train.py").write_text(BUG)
    plain = run_devlint("--isolated", "--no-cache", "--preview", "train.py", cwd=tmp_path)
    check = run_devlint("check", "--isolated", "--no-cache", "--preview", "train.py", cwd=tmp_path)
    assert check.returncode == plain.returncode == 1
    assert check.stdout == plain.stdout and "train.py:3:9: DEV004" in check.stdout


def test_a_folder_called_check_is_still_a_path(tmp_path):
    (tmp_path / "check").mkdir()
    (tmp_path / "check" / "train.py").write_text(BUG)
    result = run_devlint("--isolated", "--no-cache", "--preview", "check", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("check/train.py:3:9: DEV004")


# --- options before a subcommand (`devlint --preview rule DEV003`) ------------------------------------

@pytest.mark.parametrize("leading", [["--preview"], ["--no-preview"], ["--isolated"], ["--config", "pyproject.toml"],
                                     ["--config=pyproject.toml"], ["--conf", "pyproject.toml", "--preview"]])
def test_config_isolated_and_preview_may_come_before_a_subcommand(tmp_path, leading):
    (tmp_path / "pyproject.toml").write_text("[tool.devlint]\npreview = true\n")
    page = run_devlint("rule", "DEV003", cwd=tmp_path)
    result = run_devlint(*leading, "rule", "DEV003", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == page.stdout and result.stdout.startswith("# DEV003 (hardcoded-cuda)")
    listed = run_devlint(*leading, "rules", cwd=tmp_path)
    assert listed.returncode == 0 and listed.stdout == run_devlint("rules", cwd=tmp_path).stdout


def test_clean_takes_the_cache_dir_and_config_given_before_it(tmp_path):
    (tmp_path / "train.py").write_text(BUG)
    run_devlint("--isolated", "--cache-dir", "elsewhere", ".", cwd=tmp_path)  # makes the cache
    assert (tmp_path / "elsewhere").is_dir()
    result = run_devlint("--isolated", "--cache-dir", "elsewhere", "clean", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "removed elsewhere\n" and not (tmp_path / "elsewhere").exists()


def test_a_check_option_before_a_subcommand_is_an_error_that_names_what_may_come(tmp_path):
    result = run_devlint("--fix", "rule", "DEV003", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("devlint: error: --fix: not an option of `devlint rule`; before it, only --config,"
                             " --isolated, --preview may come\n")
    lsp = run_devlint("--preview", "lsp", cwd=tmp_path)
    assert lsp.returncode == 2 and "--preview: not an option of `devlint lsp`" in lsp.stderr


def test_a_configuration_file_named_before_a_subcommand_must_exist(tmp_path):
    result = run_devlint("--config", "missing.toml", "rule", "DEV003", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == "devlint: error: missing.toml: configuration file not found\n"


def test_check_may_follow_options_and_a_path_named_like_a_subcommand_stays_a_path(tmp_path):
    (tmp_path / "train.py").write_text(BUG)
    checked = run_devlint("--isolated", "--no-cache", "--preview", "check", "train.py", cwd=tmp_path)
    assert checked.returncode == 1 and checked.stdout.startswith("train.py:3:9: DEV004")
    (tmp_path / "rule").mkdir()
    (tmp_path / "rule" / "train.py").write_text(BUG)
    folder = run_devlint("--isolated", "--no-cache", "--preview", "rule", cwd=tmp_path)
    assert folder.returncode == 1 and folder.stdout.startswith("rule/train.py:3:9: DEV004")


def test_help_lists_every_subcommand():
    shown = run_devlint("--help").stdout
    for command in ("check [PATH ...]", "rule CODE", "rules", "clean", "confirm", "lsp"):
        assert f"  devlint {command}" in shown


def test_a_path_without_python_files_says_so(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("no python here\n")
    result = run_devlint("--isolated", "--no-cache", "docs", cwd=tmp_path)
    assert result.returncode == 0
    assert "devlint: warning: no Python files found under docs" in result.stderr


def test_the_summary_names_the_file_it_could_not_check(tmp_path):
    (tmp_path / "good.py").write_text("import torch\n")
    (tmp_path / "latin.py").write_bytes(b"# \xff\xfe not UTF-8\nimport torch\n")
    result = run_devlint("--isolated", "--no-cache", ".", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == "1 file checked; 1 could not be checked (see above): latin.py."


def test_the_summary_never_says_all_passed_or_counts_as_checked_a_file_it_could_not_read(tmp_path):
    (tmp_path / "latin.py").write_bytes(b"# \xff\xfe not UTF-8\nimport torch\n")
    alone = run_devlint("--isolated", "--no-cache", "latin.py", cwd=tmp_path)
    assert alone.returncode == 2
    assert alone.stderr.splitlines() == [
        "devlint: error: latin.py: cannot decode file: invalid or missing encoding declaration",
        "0 files checked; 1 could not be checked (see above): latin.py."]
    (tmp_path / "bug.py").write_text(BUG)
    with_reports = run_devlint("--isolated", "--no-cache", "--preview", ".", cwd=tmp_path)
    assert with_reports.returncode == 2
    assert with_reports.stderr.splitlines()[-1] == (
        "Found 1 report in 1 file (1 checked); 1 fixable with --unsafe-fixes. 1 file could not be checked (see above):"
        " latin.py.")


def _lines(stream, into: queue.Queue) -> None:
    for line in stream:
        into.put(line)


def _next_containing(lines: queue.Queue, text: str) -> str:
    while True:
        line = lines.get(timeout=120)  # a bound for a hung child, not a timing assertion
        if text in line:
            return line


def _default_sigint() -> None:
    """In the child: Ctrl-C's default action. A suite started in the background of a shell (`pytest &`)
    ignores SIGINT, and a child inherits that: Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_watch_checks_again_on_change_and_ctrl_c_exits_0(tmp_path):
    (tmp_path / "train.py").write_text(BUG)
    process = subprocess.Popen([sys.executable, "-m", "devlint", "--isolated", "--no-cache", "--preview",
                                "--watch", "."],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_default_sigint)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, lines), daemon=True).start()
    try:
        assert "train.py:3:9: DEV004" in _next_containing(lines, "DEV004")
        _next_containing(lines, "watching for changes")
        (tmp_path / "train.py").write_text(FIXED)
        _next_containing(lines, "files changed; checking again")
        assert _next_containing(lines, "checks passed").startswith("All checks passed (1 file checked)")
        _next_containing(lines, "watching for changes")
        (tmp_path / "new.py").write_text(BUG)  # a new file is a change too
        assert "new.py:3:9: DEV004" in _next_containing(lines, "DEV004")
    finally:
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=120)
    assert status == 0


def test_watch_does_not_fix(tmp_path):
    result = run_devlint("--watch", "--fix", ".", cwd=tmp_path)
    assert result.returncode == 2 and "--watch checks" in result.stderr
