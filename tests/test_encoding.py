"""Output whatever the locale: machine formats are UTF-8 bytes, text for people degrades with "?",
and nothing ends in a traceback, for the CLI and the flake8 plugin alike. A Windows runner that
redirects output is simulated with PYTHONIOENCODING=cp1252, a bare container with LC_ALL=C and
PYTHONIOENCODING=ascii, or with LC_ALL=C and PYTHONUTF8=0 alone (Python's own C-locale streams).
A file name that is not UTF-8 (latin-1 bytes on Linux) is shown with `\\xe9`-style escapes in
every format."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT

# A non-Latin identifier on a reported line, and messages that hold a "—".
SOURCE = 'import torch\n张量 = torch.zeros(3).cuda()\nx = torch.zeros(3)\nx.to("cuda")\n'
DASH = "—".encode("utf-8")
LOCALES = {
    "cp1252": {"PYTHONIOENCODING": "cp1252"},
    "ascii": {"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "ascii"},
    # Python's streams in a C locale when UTF-8 mode is off: ASCII, with "surrogateescape" on stdout.
    "c": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
    "utf-8": {"PYTHONIOENCODING": "utf-8"},
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


@pytest.mark.parametrize("locale", ("ascii", "c", "cp1252"))
@pytest.mark.parametrize("format_name", ("concise", "full"))
def test_text_output_degrades_with_replacement_never_a_traceback(project, locale, format_name):
    result = run(project, locale, "-m", "devlint", "--isolated", "--no-cache", "--output-format", format_name,
                 "--preview", "train.py")  # DEV003 (in preview) and DEV002 at module level: preview shapes
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr
    assert b"train.py:4:1: DEV001" in result.stdout
    assert b"Found 4 reports" in result.stderr
    # Text for people is in the locale's encoding, as any console program's: cp1252 has "—", ASCII (C) has not.
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


# --- file names: a byte that is not UTF-8 is shown escaped, in every format --------------------------

BUG = 'import torch\nx = torch.zeros(3)\nx.to("cuda")\n'
LATIN1_NAME = b"caf\xe9.py"  # "café.py" in latin-1: no UTF-8
SHOWN = "caf\\xe9.py"  # as every format shows it


@pytest.fixture
def latin1_project(tmp_path):
    if sys.platform != "linux":
        pytest.skip("only Linux file systems hold names that are not UTF-8")
    with open(os.fsencode(tmp_path) + b"/" + LATIN1_NAME, "wb") as handle:
        handle.write(BUG.encode("utf-8"))
    return tmp_path


def _shown_path(format_name: str, stdout: bytes) -> str:
    """The name of the reported file as `format_name` prints it (the output parsed as its format)."""
    text = stdout.decode("utf-8")
    if format_name in ("json", "json-lines"):
        reports = json.loads(text) if format_name == "json" else [json.loads(line) for line in text.splitlines()]
        assert [os.path.basename(report["filename"]) for report in reports] == [SHOWN]
        return reports[0]["path"]
    if format_name == "sarif":
        [result] = json.loads(text)["runs"][0]["results"]
        return result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    if format_name == "gitlab":
        [issue] = json.loads(text)
        return issue["location"]["path"]
    if format_name == "junit":
        return ET.fromstring(stdout).find("testsuite").get("name")
    if format_name == "github":
        return text.split("file=", 1)[1].split(",", 1)[0]
    return text.split(":3:1: DEV001", 1)[0].splitlines()[0]  # concise and full: the headline's location


@pytest.mark.parametrize("locale", ("utf-8", "c"))
@pytest.mark.parametrize("format_name", ("concise", "full", *MACHINE_FORMATS))
def test_a_name_that_is_not_utf8_is_reported_escaped_in_every_format(latin1_project, locale, format_name):
    result = run(latin1_project, locale, "-m", "devlint", "--isolated", "--no-cache", "--output-format", format_name,
                 ".")
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr, result.stderr
    assert result.returncode == 1, result.stderr
    # A URI names the file's own bytes, percent-encoded; everywhere else the byte is `\\xe9`.
    assert _shown_path(format_name, result.stdout) == ("caf%E9.py" if format_name == "sarif" else SHOWN)


@pytest.mark.parametrize("locale", ("utf-8", "c"))
@pytest.mark.parametrize("as_json", (False, True))
def test_statistics_of_a_name_that_is_not_utf8(latin1_project, locale, as_json):
    result = run(latin1_project, locale, "-m", "devlint", "--isolated", "--no-cache", "--statistics",
                 *(["--output-format", "json"] if as_json else []), ".")
    assert b"Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert b"DEV001" in result.stdout


@pytest.mark.parametrize("locale", ("utf-8", "c"))
def test_diff_of_a_name_that_is_not_utf8_quotes_it_as_git_does_and_applies(latin1_project, locale):
    result = run(latin1_project, locale, "-m", "devlint", "--isolated", "--no-cache", "--fix", "--diff", ".")
    assert b"Traceback" not in result.stderr, result.stderr
    assert result.returncode == 1
    assert result.stdout.startswith(b'--- "a/caf\\351.py"\n+++ "b/caf\\351.py"\n')
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", "."], cwd=latin1_project, check=True)
    applied = subprocess.run(["git", "apply", "-"], cwd=latin1_project, input=result.stdout, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    with open(os.fsencode(latin1_project) + b"/" + LATIN1_NAME, "rb") as handle:
        assert handle.read() == BUG.replace('x.to("cuda")', 'x = x.to("cuda")').encode("utf-8")


@pytest.mark.parametrize("locale", ("utf-8", "c"))
def test_fix_writes_back_a_file_whose_name_is_not_utf8(latin1_project, locale):
    result = run(latin1_project, locale, "-m", "devlint", "--isolated", "--no-cache", "--fix", ".")
    assert b"Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0
    assert result.stderr == b"1 fixed, 0 remaining (1 file checked).\n"
    with open(os.fsencode(latin1_project) + b"/" + LATIN1_NAME, "rb") as handle:
        assert handle.read() == BUG.replace('x.to("cuda")', 'x = x.to("cuda")').encode("utf-8")


@pytest.mark.parametrize("locale", ("utf-8", "c"))
def test_show_files_and_errors_on_stderr_show_a_name_that_is_not_utf8_escaped(latin1_project, locale):
    with open(os.fsencode(latin1_project) + b"/bad\xe9.py", "wb") as handle:
        handle.write(b"import torch\nname = '\xff'\n")  # cannot be decoded: an error naming the file
    shown = run(latin1_project, locale, "-m", "devlint", "--isolated", "--no-cache", "--show-files", ".")
    assert shown.stdout.decode("ascii").splitlines() == ["bad\\xe9.py", SHOWN]
    result = run(latin1_project, locale, "-m", "devlint", "--isolated", "--no-cache", ".")
    assert result.returncode == 2  # a file could not be checked
    errors = result.stderr.decode("ascii").splitlines()
    assert errors[0].startswith("devlint: error: bad\\xe9.py: cannot decode file as utf-8")
    assert errors[-1].endswith("1 file could not be checked (see above): bad\\xe9.py.")


def test_a_baseline_records_a_name_that_is_not_utf8_escaped_and_absorbs_its_report(latin1_project):
    written = run(latin1_project, "utf-8", "-m", "devlint", "--isolated", "--no-cache", "--write-baseline",
                  "baseline.json", ".")
    assert written.returncode == 0, written.stderr
    with open(latin1_project / "baseline.json", encoding="utf-8") as handle:
        assert [entry["path"] for entry in json.load(handle)["entries"]] == [SHOWN]
    checked = run(latin1_project, "utf-8", "-m", "devlint", "--isolated", "--no-cache", "--baseline", "baseline.json",
                  ".")
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize("format_name", ("concise", "full"))
def test_a_utf8_name_in_the_c_locale_is_reported_with_what_the_console_can_show(tmp_path, format_name):
    (tmp_path / "张量.py").write_text(BUG, encoding="utf-8")
    result = run(tmp_path, "c", "-m", "devlint", "--isolated", "--no-cache", "--output-format", format_name, ".")
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr, result.stderr
    assert result.returncode == 1
    # An ASCII console shows "?" for what it cannot show, in names and messages alike.
    assert b"??.py:3:1: DEV001 [*] `x.to(...)` result is discarded; tensors are not moved in place ? assign it" \
        in result.stdout


def test_a_utf8_name_in_the_c_locale_is_utf8_in_machine_formats_and_diffs(tmp_path):
    (tmp_path / "张量.py").write_text(BUG, encoding="utf-8")
    reported = run(tmp_path, "c", "-m", "devlint", "--isolated", "--no-cache", "--output-format", "json", ".")
    assert [report["path"] for report in json.loads(reported.stdout.decode("utf-8"))] == ["张量.py"]
    diff = run(tmp_path, "utf-8", "-m", "devlint", "--isolated", "--no-cache", "--diff", ".")
    assert diff.stdout.startswith("--- a/张量.py\n+++ b/张量.py\n".encode("utf-8"))  # as before: not quoted


def test_display_path_escapes_only_the_bytes_that_are_not_utf8():
    from devlint.contract.display import display_path

    assert display_path("train.py") == "train.py"
    assert display_path("张量/café.py") == "张量/café.py"
    assert display_path(os.fsdecode(b"caf\xe9.py") if sys.platform == "linux" else "caf\udce9.py") == SHOWN
    # Under an ASCII file system encoding a UTF-8 name arrives as escaped bytes: shown as its characters.
    assert display_path(b"\xe5\xbc\xa0.py".decode("ascii", "surrogateescape")) == "张.py"
