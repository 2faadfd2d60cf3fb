"""Output whatever the locale: machine formats are UTF-8 bytes, text for people degrades with "?",
and nothing ends in a traceback, for the CLI and the flake8 plugin alike. A Windows runner that
redirects output is simulated with PYTHONIOENCODING=cp1252, a bare container with LC_ALL=C and
PYTHONIOENCODING=ascii."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

# A non-Latin identifier on a reported line, and messages that hold a "—".
SOURCE = 'import torch\n张量 = torch.zeros(3).cuda()\nx = torch.zeros(3)\nx.to("cuda")\n'
DASH = "—".encode("utf-8")
LOCALES = {
    "cp1252": {"PYTHONIOENCODING": "cp1252"},
    "ascii": {"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii"},
}
MACHINE_FORMATS = ("json", "json-lines", "sarif", "github", "gitlab", "junit")


def run(cwd, locale: str, *command: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items()
           if key not in ("LC_ALL", "LANG", "LC_CTYPE", "PYTHONIOENCODING", "PYTHONUTF8", "FORCE_COLOR")}
    env.update(PYTHONPATH=str(ROOT), **LOCALES[locale])
    return subprocess.run([sys.executable, *command], cwd=cwd, capture_output=True, env=env, input=stdin)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("locale", sorted(LOCALES))
@pytest.mark.parametrize("format_name", MACHINE_FORMATS)
def test_machine_formats_are_utf8_bytes_in_any_locale(project, locale, format_name):
    result = run(project, locale, "-m", "devlint", "--isolated", "--no-cache", "--output-format", format_name,
                 "train.py")
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr
    text = result.stdout.decode("utf-8")  # raises if any byte is the locale's
    assert DASH in result.stdout and "DEV001" in text


@pytest.mark.parametrize("locale", sorted(LOCALES))
@pytest.mark.parametrize("format_name", ("concise", "full"))
def test_text_output_degrades_with_replacement_never_a_traceback(project, locale, format_name):
    result = run(project, locale, "-m", "devlint", "--isolated", "--no-cache", "--output-format", format_name,
                 "--preview", "train.py")  # DEV003 (in preview) and DEV002 at module level: preview shapes
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr
    assert b"train.py:4:1: DEV001" in result.stdout
    assert b"Found 4 reports" in result.stderr
    # Text for people is in the locale's encoding, as any console program's: cp1252 has "—", ASCII has not.
    dash = "—".encode("cp1252") if locale == "cp1252" else b"?"
    assert b"moved in place " + dash + b" assign it" in result.stdout


@pytest.mark.parametrize("locale", sorted(LOCALES))
def test_diff_of_a_non_latin_line_is_utf8(project, locale):
    result = run(project, locale, "-m", "devlint", "--isolated", "--no-cache", "--diff", "--unsafe-fixes",
                 "train.py")
    assert result.returncode == 1, result.stderr
    assert "张量 = torch.zeros(3".encode("utf-8") in result.stdout


@pytest.mark.parametrize("locale", sorted(LOCALES))
def test_stdin_in_a_machine_format_is_utf8(project, locale):
    result = run(project, locale, "-m", "devlint", "--isolated", "--output-format", "sarif",
                 "--stdin-filename", "train.py", "-", stdin=SOURCE.encode("utf-8"))
    assert result.returncode == 1, result.stderr
    assert DASH in result.stdout
    result.stdout.decode("utf-8")


@pytest.mark.parametrize("locale", sorted(LOCALES))
def test_flake8_reports_a_non_latin_file_in_any_locale(project, locale):
    result = run(project, locale, "-m", "flake8", "--select", "DEV", "--devlint-preview", "train.py")
    assert b"Traceback" not in result.stderr, result.stderr
    lines = result.stdout.decode("utf-8").splitlines()
    assert [line.split(" ")[:2] for line in lines] == [
        ["train.py:2:6:", "DEV002"], ["train.py:2:6:", "DEV003"], ["train.py:4:1:", "DEV001"],
        ["train.py:4:6:", "DEV003"]]
    assert result.returncode == 1
