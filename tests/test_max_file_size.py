"""`max-file-size`: a file with more code than the limit (its tables of constants aside) is checked by the
text prefilter only and reported as DEV997, never skipped silently, through every front end."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT
from devlint.engine import stand_ins
from devlint.engine.engine import analyze
from devlint.engine.settings import DEFAULT_MAX_FILE_SIZE, Settings
from devlint.frontends.cli import main
from devlint.runner.config import ConfigError, parse_file_size, settings_from
from devlint.rules import rule_codes

CODE = "import torch\n" + "".join(f"def f{i}_step(device):\n    return torch.zeros(3).to(device)\n\n" for i in range(200))
TABLE = "T = [\n" + "".join(f"    ({i}.5, {i}.25, -{i}.125),\n" for i in range(400)) + "]\n"


def test_code_over_the_limit_is_one_dev997_naming_sizes_and_rules_not_run():
    reports = analyze(CODE, "big.py", Settings(max_file_size=2000)).diagnostics
    assert [(d.code, d.line, d.col) for d in reports] == [("DEV997", 1, 1)]
    assert f"this file's code ({len(CODE) / 1024:.1f} KiB) is over max-file-size (2.0 KiB)" in reports[0].message
    assert "rules not run" in reports[0].message


def test_under_the_limit_the_rules_run():
    assert {d.code for d in analyze(CODE, "big.py", Settings(max_file_size=len(CODE))).diagnostics} == {"DEV002"}


def test_a_text_without_the_rules_keywords_is_fully_checked_by_the_prefilter():
    text = "x = 1\n" * 1000
    assert analyze(text, "plain.py", Settings(max_file_size=100)).diagnostics == []


def test_tables_of_constants_do_not_count(monkeypatch):
    monkeypatch.setattr(stand_ins, "STAND_INS_FROM_CHARS", 0)
    source = "import torch\n" + TABLE + "x = [torch.zeros(3).to('cuda') for _ in T]\n"
    assert len(source) > 8000
    reports = analyze(source, "table.py", Settings(max_file_size=4000)).diagnostics
    assert [d.code for d in reports] == ["DEV002"]


def test_dev997_is_ignored_only_by_name():
    assert Settings(select=("DEV001",)).enabled("DEV997")
    assert not Settings(ignore=("DEV997",)).enabled("DEV997")
    assert analyze(CODE, "big.py", Settings(max_file_size=2000, ignore=("DEV997",))).diagnostics == []


def test_the_default_is_a_few_megabytes():
    assert Settings().max_file_size == DEFAULT_MAX_FILE_SIZE == 3 * 1024 * 1024


@pytest.mark.parametrize("value, expected", [
    (3000000, 3000000), ("3000000", 3000000), ("8MB", 8_000_000), ("512 KiB", 512 * 1024), ("2mib", 2 * 1024 ** 2),
    ("1.5MB", 1_500_000),
])
def test_sizes_are_bytes_or_a_number_with_a_unit(value, expected):
    assert parse_file_size(value, "'max-file-size'") == expected
    assert settings_from({"max-file-size": value}, "pyproject.toml", ".", rule_codes()).max_file_size == expected


@pytest.mark.parametrize("value", ["big", "8XB", 0, -5, True, "MB", [8]])
def test_a_size_that_is_not_one_is_a_configuration_error(value):
    with pytest.raises(ConfigError, match="'max-file-size' must be a size"):
        settings_from({"max-file-size": value}, "pyproject.toml", ".", rule_codes())


def test_the_command_line_reports_dev997_and_takes_the_option(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.py").write_text(CODE)
    main(["--no-cache", "--output-format", "concise", "--max-file-size", "2KB", "big.py"])
    out = capsys.readouterr().out
    assert "big.py:1:1: DEV997 not checked" in out and "DEV002" not in out
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nmax-file-size = "2KB"\n')
    main(["--no-cache", "--output-format", "concise", "big.py"])
    assert "DEV997" in capsys.readouterr().out
    assert main(["--no-cache", "--output-format", "concise", "--max-file-size", "1MB", "big.py"]) == 1
    assert "DEV997" not in capsys.readouterr().out


def test_dev997_alone_is_a_notice_that_exits_0(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.py").write_text(CODE)
    (tmp_path / "bug.py").write_text("import torch\ntorch.zeros(3).to('cuda')\n")
    assert main(["--no-cache", "--max-file-size", "2KB", "big.py"]) == 0
    assert "big.py:1:1: DEV997 not checked" in capsys.readouterr().out
    assert main(["--no-cache", "--max-file-size", "2KB", "--preview", "big.py", "bug.py"]) == 1  # a finding fails it
    assert "bug.py:2:1: DEV002" in capsys.readouterr().out


@pytest.mark.parametrize("asked", [["--extend-select", "DEV997"], ["--select", "DEV002,DEV997"]])
def test_dev997_fails_the_run_where_its_code_is_selected(tmp_path, monkeypatch, capsys, asked):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.py").write_text(CODE)
    assert main(["--no-cache", "--max-file-size", "2KB", *asked, "big.py"]) == 1
    assert "DEV997" in capsys.readouterr().out
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nextend-select = ["DEV997"]\nmax-file-size = "2KB"\n')
    assert main(["--no-cache", "big.py"]) == 1


def test_dev997_alone_on_stdin_exits_0():
    result = subprocess.run([sys.executable, "-m", "devlint", "--isolated", "--max-file-size", "2KB", "-"], input=CODE,
                            capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)})
    assert result.returncode == 0 and "DEV997 not checked" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("output_format, notice", [
    ("github", "::notice file=big.py,line=1,col=1"), ("sarif", '"level": "note"'), ("gitlab", '"severity": "info"')])
def test_the_ci_formats_show_dev997_as_a_notice(tmp_path, monkeypatch, capsys, output_format, notice):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.py").write_text(CODE)
    assert main(["--no-cache", "--max-file-size", "2KB", "--output-format", output_format, "big.py"]) == 0
    out = capsys.readouterr().out
    assert notice in out and "::error" not in out and '"severity": "major"' not in out


def _one_table_a_line(size: int, numbers: int) -> str:
    """A generated module of `size` characters: `W_i = [...]` and `W_i = torch.tensor([...])` lines, one table a
    line."""
    row = ", ".join(f"{(i * 7919 % 2000 - 1000) / 997:.6f}" for i in range(numbers))
    lines, total = ["import torch\n"], 0
    while total < size:
        line = f"W_{len(lines)} = [{row}]\n" if len(lines) % 2 else f"W_{len(lines)} = torch.tensor([{row}])\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)


def test_a_10_mb_module_of_one_table_a_line_is_checked_without_dev997_and_exits_0(tmp_path, monkeypatch, capsys):
    source = _one_table_a_line(10_000_000, 600)
    # (a move the rules read, and no bug: a table moved once, at load time, is no repeated copy)
    (tmp_path / "weights.py").write_text(source + "\n\ndef load(device):\n    return W_2.to(device)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["--no-cache", "weights.py"]) == 0
    captured = capsys.readouterr()
    assert "DEV997" not in captured.out and "All checks passed (1 file checked)." in captured.err


def test_one_table_a_line_does_not_count_and_the_code_around_it_is_checked(monkeypatch):
    monkeypatch.setattr(stand_ins, "STAND_INS_FROM_CHARS", 0)
    tables = _one_table_a_line(20_000, 40)  # rows of 40 numbers: under STAND_IN_MIN_CHARS, over NUMBERS_MIN_CHARS
    source = tables + "\n\ndef train_step(device):\n    return torch.zeros(3).to(device)\n"
    reports = analyze(source, "weights.py", Settings(max_file_size=4000)).diagnostics
    assert [(d.code, d.line) for d in reports] == [("DEV002", source.count("\n"))]


def test_the_cache_keeps_results_under_different_limits_apart(tmp_path):
    from devlint.runner.cache import Cache

    cache = Cache(str(tmp_path))
    keys = {cache.key("big.py", b"x", Settings(max_file_size=size), False) for size in (2000, 4000)}
    assert len(keys) == 2


def test_flake8_shows_dev997(tmp_path):
    (tmp_path / "big.py").write_text(CODE)
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nmax-file-size = 2000\n')
    result = subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV", "big.py"], cwd=tmp_path,
                            capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)})
    assert result.returncode == 1 and "big.py:1:1: DEV997 not checked" in result.stdout, result.stderr
