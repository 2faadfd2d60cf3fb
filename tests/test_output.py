"""What `devlint` prints, through the real command line: `full` and `concise`, colour, the summary,
the gitlab and junit formats, ruff's JSON keys, fix descriptions and repository-relative CI paths."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES, ROOT, run_devlint
from devlint import DOCS_URL
from devlint.rules import all_rules
from devlint.rules.rule import FixSafety

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LOAD = 'import torch\n\nmodel = torch.nn.Linear(2, 2)\nmodel.load_state_dict(torch.load("ckpt.pt"))\n'
DEV004_MESSAGE = ("`torch.load(...)` without `map_location` fails on a machine without the device the checkpoint"
                  " was saved from; pass `map_location=` (e.g. `\"cpu\"` or your device)")
SELECT_DEV004 = ("--preview",)  # DEV004 is in preview: off unless named


def devlint_in(cwd, *args: str, **env: str) -> subprocess.CompletedProcess:
    """`devlint` in `cwd` with `env` added, colour variables cleared unless given, and DEV004 (the example
    report, a rule in preview) selected."""
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    environment.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "devlint", "--isolated", "--no-cache", *SELECT_DEV004, *args],
                          cwd=cwd, capture_output=True, text=True, env=environment)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text(LOAD)
    return tmp_path


# --- full ---------------------------------------------------------------------------------------

def test_full_shows_the_line_carets_under_the_range_the_fix_and_the_page(project):
    result = devlint_in(project, "--output-format", "full", "train.py")
    assert result.returncode == 1
    assert result.stdout == (
        f"train.py:4:23: DEV004 [*] {DEV004_MESSAGE}\n"
        "  |\n"
        '4 | model.load_state_dict(torch.load("ckpt.pt"))\n'
        "  |                       ^^^^^^^^^^^^^^^^^^^^^ DEV004\n"
        "  |\n"
        '  = help: Add `map_location="cpu"`\n'
        f"  = docs: {DOCS_URL}/DEV004.md\n"
        "\n"
    )


def test_show_fixes_adds_the_fix_as_a_diff_and_no_show_fixes_removes_it(project):
    shown = devlint_in(project, "--output-format", "full", "--show-fixes", "train.py").stdout
    assert (
        "  = Safe fix\n"
        '4 - model.load_state_dict(torch.load("ckpt.pt"))\n'
        '4 + model.load_state_dict(torch.load("ckpt.pt", map_location="cpu"))\n'
    ) in shown
    hidden = devlint_in(project, "--output-format", "full", "--show-fixes", "--no-show-fixes", "train.py").stdout
    assert "Safe fix" not in hidden and "+ model" not in hidden


def test_full_marks_each_line_of_a_report_over_several_lines(tmp_path):
    (tmp_path / "m.py").write_text("import torch\nx = torch.load(\n    'a.pt',\n)\n")
    lines = devlint_in(tmp_path, "--output-format", "full", "m.py").stdout.splitlines()
    assert lines[2:8] == [
        "2 | x = torch.load(",
        "  |     ^^^^^^^^^^^",
        "3 |     'a.pt',",
        "  |     ^^^^^^^",
        "4 | )",
        "  | ^ DEV004",
    ]


def test_full_shows_a_notebook_report_with_its_cell_source():
    notebook = FIXTURES / "notebooks" / "training.ipynb"
    concise = devlint_in(ROOT, "--output-format", "concise", str(notebook)).stdout.splitlines()
    full = devlint_in(ROOT, "--output-format", "full", str(notebook)).stdout
    first = concise[0]
    line = int(first.split(":")[2])
    assert first in full
    cell_source = json.loads(notebook.read_text())["cells"][int(first.split(":")[1].split()[1]) - 1]["source"]
    cell_line = "".join(cell_source).split("\n")[line - 1]
    assert f"{line} | {cell_line}" in full


def test_piped_output_is_concise_and_a_terminal_gets_full(project):
    piped = devlint_in(project, "train.py")
    assert piped.stdout == f"train.py:4:23: DEV004 [*] {DEV004_MESSAGE}\n"
    assert devlint_in(project, "--output-format", "text", "train.py").stdout == piped.stdout  # the old name

    main, child = pty.openpty()
    env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    process = subprocess.Popen([sys.executable, "-m", "devlint", "--isolated", "--no-cache", *SELECT_DEV004,
                                "train.py"],
                               cwd=project, stdout=child, stderr=subprocess.DEVNULL,
                               env={**env, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the terminal closed: the child exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    assert process.wait() == 1
    on_terminal = b"".join(chunks).decode().replace("\r\n", "\n")
    assert "^^^^^^^^^^^^^^^^^^^^^ DEV004" in on_terminal and "= help:" in on_terminal
    assert not ANSI.search(on_terminal)  # NO_COLOR holds on a terminal too


def test_force_color_colours_full_output_and_no_color_wins(project):
    forced = devlint_in(project, "--output-format", "full", "train.py", FORCE_COLOR="1").stdout
    assert ANSI.search(forced)
    assert ANSI.sub("", forced) == devlint_in(project, "--output-format", "full", "train.py").stdout
    both = devlint_in(project, "--output-format", "full", "train.py", FORCE_COLOR="1", NO_COLOR="1").stdout
    assert not ANSI.search(both)


def test_force_color_colours_concise_output_in_a_pipe(project):
    plain = devlint_in(project, "--output-format", "concise", "train.py").stdout
    forced = devlint_in(project, "train.py", FORCE_COLOR="1").stdout  # piped: concise
    assert not ANSI.search(plain)
    assert forced == f"\x1b[1mtrain.py:4:23\x1b[0m: \x1b[1;31mDEV004\x1b[0m \x1b[1;36m[*]\x1b[0m {DEV004_MESSAGE}\n"
    assert ANSI.sub("", forced) == plain
    assert not ANSI.search(devlint_in(project, "train.py", FORCE_COLOR="1", NO_COLOR="1").stdout)


@pytest.mark.parametrize("args, env, imports_rich", [
    (["--output-format", "concise"], {"FORCE_COLOR": "1"}, False),
    (["--output-format", "full"], {}, False),
    (["--output-format", "full"], {"FORCE_COLOR": "1"}, True),
], ids=["concise", "full without colour", "full with colour"])
def test_rich_is_imported_only_for_colour(project, args, env, imports_rich):
    result = devlint_in(project, *args, "train.py", PYTHONPROFILEIMPORTTIME="1", **env)
    assert result.returncode == 1
    assert (re.search(r"\|\s+rich$", result.stderr, re.M) is not None) == imports_rich


# --- the summary --------------------------------------------------------------------------------

def test_summary_counts_reports_files_with_reports_and_files_checked(tmp_path):
    (tmp_path / "a.py").write_text(LOAD + 'torch.load("b.pt")\n')
    (tmp_path / "b.py").write_text(LOAD)
    (tmp_path / "clean.py").write_text("x = 1\n")
    result = devlint_in(tmp_path, ".")
    assert result.stderr == ("Found 3 reports in 2 files (3 checked);"
                             " 2 fixable with --fix, 1 more with --unsafe-fixes.\n")


def test_summary_is_singular_for_one_report_and_one_file(project):
    result = devlint_in(project, "train.py", "--output-format", "json")
    assert result.stderr == "Found 1 report in 1 file (1 checked); 1 fixable with --fix.\n"
    (project / "train.py").write_text("x = 1\n")
    assert devlint_in(project, "train.py").stderr == "All checks passed (1 file checked).\n"


def test_summary_hints_at_unsafe_fixes_only_when_there_are_some(tmp_path):
    (tmp_path / "unsafe.py").write_text('import torch\n\nstep = torch.load("a.pt")["step"]\n')
    assert devlint_in(tmp_path, "unsafe.py").stderr == ("Found 1 report in 1 file (1 checked);"
                                                        " 1 fixable with --unsafe-fixes.\n")
    (tmp_path / "none.py").write_text("import torch\n\ndef f(x):\n    y = x.to(\"cpu\", non_blocking=True)\n"
                                      "    return y.tolist()\n")
    assert devlint_in(tmp_path, "none.py").stderr == "Found 1 report in 1 file (1 checked).\n"


# --- json: ruff's keys --------------------------------------------------------------------------

def test_json_has_ruffs_keys_next_to_devlints(project):
    [report] = json.loads(devlint_in(project, "--output-format", "json", "train.py").stdout)
    ruff_keys = {key: report[key] for key in ("code", "message", "filename", "location", "end_location",
                                              "noqa_row", "url")}
    assert ruff_keys == {
        "code": "DEV004", "message": DEV004_MESSAGE, "filename": str(project / "train.py"),
        "location": {"row": 4, "column": 23}, "end_location": {"row": 4, "column": 44}, "noqa_row": 4,
        "url": f"{DOCS_URL}/DEV004.md",
    }
    assert report["fix"]["message"] == report["fix"]["description"] == 'Add `map_location="cpu"`'
    assert report["fix"]["applicability"] == "safe"
    assert report["fix"]["edits"] == [{"content": ', map_location="cpu"', "location": {"row": 4, "column": 43},
                                       "end_location": {"row": 4, "column": 43}}]


def test_noqa_row_is_the_line_a_noqa_comment_silences(tmp_path):
    (tmp_path / "m.py").write_text("import torch\nx = torch.load(\n    'a.pt',\n)\n")
    [report] = json.loads(devlint_in(tmp_path, "--output-format", "json", "m.py").stdout)
    lines = (tmp_path / "m.py").read_text().splitlines()
    lines[report["noqa_row"] - 1] += "  # noqa: DEV004"
    (tmp_path / "m.py").write_text("\n".join(lines) + "\n")
    assert devlint_in(tmp_path, "m.py").returncode == 0


def _apply(text: str, edits: list[dict]) -> str:
    starts = [0]
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    for edit in sorted(edits, key=lambda e: (e["location"]["row"], e["location"]["column"]), reverse=True):
        start = starts[edit["location"]["row"] - 1] + edit["location"]["column"] - 1
        end = starts[edit["end_location"]["row"] - 1] + edit["end_location"]["column"] - 1
        text = text[:start] + edit["content"] + text[end:]
    return text


def test_every_fix_description_quotes_code_the_fix_writes():
    """Each rule's fixtures: the code a description shows in backticks (`x = ...`: the part before
    ` ...`) is in the file once that fix alone is applied, character for character."""
    reports = json.loads(devlint_in(ROOT, "--output-format", "json", "--unsafe-fixes", "--preview", *(
        str(path / "bad.py") for path in sorted(FIXTURES.iterdir()) if path.name.startswith("DEV"))).stdout)
    codes_with_quoted_fixes = set()
    for report in reports:
        if report["fix"] is None:
            continue
        quoted = re.findall(r"`([^`]+)`", report["fix"]["description"])
        text = open(report["filename"], encoding="utf-8").read()
        fixed = _apply(text, report["fix"]["edits"])
        for code in quoted:
            assert code.removesuffix(" ...") in fixed, (report["code"], report["fix"]["description"])
        if quoted:
            codes_with_quoted_fixes.add(report["code"])
    assert codes_with_quoted_fixes == {entry.rule.code for entry in all_rules()
                                       if entry.rule.fix_safety is not FixSafety.NONE}


# --- gitlab -------------------------------------------------------------------------------------

def git_repository(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "sub" / "train.py").write_text(LOAD)
    return tmp_path


def test_gitlab_issues_have_code_quality_fields_and_repository_paths(tmp_path):
    root = git_repository(tmp_path)
    result = devlint_in(root / "pkg", "--output-format", "gitlab", "sub")
    assert result.returncode == 1
    [issue] = json.loads(result.stdout)
    assert {key: issue[key] for key in ("description", "check_name", "severity", "location")} == {
        "description": f"DEV004 {DEV004_MESSAGE}", "check_name": "DEV004", "severity": "major",
        "location": {"path": "pkg/sub/train.py", "lines": {"begin": 4, "end": 4}},
    }
    assert re.fullmatch(r"[0-9a-f]{32}", issue["fingerprint"])


def test_gitlab_fingerprint_is_stable_across_runs_and_line_shifts_and_distinct_per_report(tmp_path):
    (tmp_path / "m.py").write_text(LOAD + 'torch.load("ckpt.pt")\n')

    def fingerprints() -> list[str]:
        return [issue["fingerprint"] for issue in json.loads(devlint_in(tmp_path, "--output-format", "gitlab",
                                                                         "m.py").stdout)]

    first = fingerprints()
    assert len(set(first)) == 2 and fingerprints() == first
    (tmp_path / "m.py").write_text("# a comment\n\n" + LOAD + 'torch.load("ckpt.pt")\n')
    assert fingerprints() == first


# --- junit --------------------------------------------------------------------------------------

def test_junit_is_one_testsuite_per_file_with_a_failed_testcase_per_report(tmp_path):
    root = git_repository(tmp_path)
    (root / "pkg" / "clean.py").write_text("x = 1\n")
    result = devlint_in(root / "pkg", "--output-format", "junit", ".")
    assert result.returncode == 1 and result.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    tree = ET.fromstring(result.stdout)
    assert (tree.tag, tree.get("tests"), tree.get("failures")) == ("testsuites", "1", "1")
    [suite] = tree
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == ("pkg/sub/train.py", "1", "1")
    [case] = suite
    assert {key: case.get(key) for key in ("name", "classname", "line", "column")} == {
        "name": "devlint.DEV004", "classname": "pkg/sub/train", "line": "4", "column": "23"}
    failure = case.find("failure")
    assert failure.get("message") == DEV004_MESSAGE
    assert failure.text == f"line 4, col 23, {DEV004_MESSAGE}"


def test_junit_without_reports_is_one_passing_testcase(tmp_path):
    (tmp_path / "clean.py").write_text("x = 1\n")
    result = devlint_in(tmp_path, "--output-format", "junit", ".")
    tree = ET.fromstring(result.stdout)
    assert result.returncode == 0
    [suite] = tree
    [case] = suite
    assert (case.get("name"), case.find("failure")) == ("No reports found", None)


# --- CI paths relative to the repository root ---------------------------------------------------

def test_annotation_and_sarif_paths_are_relative_to_the_git_top_level_from_a_subfolder(tmp_path):
    root = git_repository(tmp_path)
    annotations = devlint_in(root / "pkg" / "sub", "--output-format", "github", "train.py").stdout
    assert annotations.startswith("::error file=pkg/sub/train.py,line=4,col=23,")
    sarif = json.loads(devlint_in(root / "pkg", "--output-format", "sarif", "sub").stdout)
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg/sub/train.py", "uriBaseId": "%SRCROOT%"}


def test_without_git_paths_are_relative_to_the_config_files_folder(tmp_path):
    (tmp_path / "proj" / "src").mkdir(parents=True)
    (tmp_path / "proj" / "pyproject.toml").write_text('[tool.devlint]\npreview = true\n')
    (tmp_path / "proj" / "src" / "train.py").write_text(LOAD)
    result = subprocess.run([sys.executable, "-m", "devlint", "--no-cache", "--output-format", "github", "train.py"],
                            cwd=tmp_path / "proj" / "src", capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.stdout.startswith("::error file=src/train.py,line=4,")


# --- rule pages and SARIF help ------------------------------------------------------------------

@pytest.mark.parametrize("entry", all_rules(), ids=lambda entry: entry.rule.code)
def test_rule_page_states_the_summary_once_under_what_it_does(entry):
    page = run_devlint("rule", entry.rule.code).stdout
    assert page.count(entry.rule.summary) == 1
    assert page.split("## What it does\n\n", 1)[1].startswith(entry.rule.summary)


def test_dev004_page_says_how_it_relates_to_weights_only():
    page = run_devlint("rule", "DEV004").stdout
    assert "`weights_only`" in page and "torch 2.6" in page and "neither reports it nor changes it" in page


def test_sarif_help_text_is_plain_and_markdown_is_the_page(project):
    sarif = json.loads(devlint_in(project, "--output-format", "sarif", "train.py").stdout)
    for rule in sarif["runs"][0]["tool"]["driver"]["rules"]:
        text = rule["help"]["text"]
        assert "`" not in text and "```" not in text and not re.search(r"^#", text, re.M), rule["id"]
    dev004 = next(rule for rule in sarif["runs"][0]["tool"]["driver"]["rules"] if rule["id"] == "DEV004")
    assert dev004["help"]["markdown"] == run_devlint("rule", "DEV004").stdout
    assert "What it does\n\ntorch.load without map_location fails" in dev004["help"]["text"]
    assert '    state = torch.load("checkpoint.pt")\n' in dev004["help"]["text"]  # code indented, not fenced
