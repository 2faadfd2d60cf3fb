"""Baselines: `--write-baseline FILE` records today's reports, `--baseline FILE` reports only new ones.

Entries match on path, code and the reported statement's text, never on line numbers."""

from __future__ import annotations

import json

import pytest

from devlint.frontends.cli import main

SOURCE = "import torch\n\nx = torch.zeros(3)\nx.to('cpu')\nstate = torch.load('model.pt')\n"
NAME_DEV004 = "--preview"  # SOURCE's DEV004 is in preview: off unless named


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(SOURCE)
    assert main([NAME_DEV004, "--write-baseline", "devlint-baseline.json", "model.py"]) == 0
    return tmp_path


def new_reports(capsys, *args: str) -> tuple[int, list[str]]:
    code = main([NAME_DEV004, "--baseline", "devlint-baseline.json", *args, "model.py"])
    out = capsys.readouterr().out
    return code, [line.split(": ")[1].split()[0] + "@" + line.split(":")[1] for line in out.splitlines()]


def test_written_baseline_records_path_code_statement_and_count(project, capsys):
    data = json.loads((project / "devlint-baseline.json").read_text())
    assert data["entries"] == [
        {"path": "model.py", "code": "DEV001", "statement": "x.to('cpu')", "count": 1},
        {"path": "model.py", "code": "DEV004", "statement": "state = torch.load('model.pt')", "count": 1},
    ]


def test_write_baseline_exits_0_and_says_what_it_wrote(project, capsys):
    assert main([NAME_DEV004, "--write-baseline", "again.json", "model.py"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "Wrote 2 baseline entries (2 reports) to again.json." in err


def test_recorded_reports_are_suppressed(project, capsys):
    assert new_reports(capsys) == (0, [])


def test_summary_counts_what_the_baseline_held(project, capsys):
    main([NAME_DEV004, "--baseline", "devlint-baseline.json", "model.py"])
    assert capsys.readouterr().err == "All checks passed (1 file checked); 2 more in the baseline.\n"


def test_entries_survive_lines_inserted_above(project, capsys):
    (project / "model.py").write_text("import os\n\n\n" + SOURCE)
    assert new_reports(capsys) == (0, [])


def test_a_changed_statement_is_reported_again(project, capsys):
    (project / "model.py").write_text(SOURCE.replace("x.to('cpu')", "x.to('cpu', non_blocking=True)"))
    assert new_reports(capsys) == (1, ["DEV001@4"])


def test_a_second_copy_of_a_recorded_statement_is_new(project, capsys):
    (project / "model.py").write_text(SOURCE + "x.to('cpu')\n")
    assert new_reports(capsys) == (1, ["DEV001@6"])


def test_counts_absorb_as_many_copies_as_were_recorded(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(SOURCE + "x.to('cpu')\n")
    main([NAME_DEV004, "--write-baseline", "devlint-baseline.json", "model.py"])
    entry = json.loads((tmp_path / "devlint-baseline.json").read_text())["entries"][0]
    assert (entry["statement"], entry["count"]) == ("x.to('cpu')", 2)
    capsys.readouterr()
    assert new_reports(capsys) == (0, [])


def test_baseline_paths_are_relative_to_the_baseline_file(project, monkeypatch, capsys):
    (project / "sub").mkdir()
    monkeypatch.chdir(project / "sub")
    assert main([NAME_DEV004, "--baseline", "../devlint-baseline.json", "../model.py"]) == 0


def test_new_file_reports_are_not_in_the_baseline(project, capsys):
    (project / "other.py").write_text(SOURCE)
    assert main([NAME_DEV004, "--baseline", "devlint-baseline.json", "model.py", "other.py"]) == 1
    assert {line.split(":")[0] for line in capsys.readouterr().out.splitlines()} == {"other.py"}


def test_fix_with_baseline_reports_only_new_remaining(project, capsys):
    (project / "model.py").write_text(SOURCE + "y = torch.load('other.pt')\n")
    assert main([NAME_DEV004, "--fix", "--baseline", "devlint-baseline.json", "model.py"]) == 1
    assert [line.split(":")[1] for line in capsys.readouterr().out.splitlines()] == ["6"]


@pytest.mark.parametrize("content, fragment", [
    (None, "baseline file not found"),
    ("{not json", "invalid JSON"),
    ('{"entries": []}', "not a devlint baseline"),
    ('{"tool": "devlint", "version": 99, "entries": []}', "version 99 is not supported"),
    ('{"tool": "devlint", "version": 1, "entries": [{"path": "a.py"}]}', "entry 1 must have"),
])
def test_bad_or_missing_baseline_exits_2_with_one_line(project, capsys, content, fragment):
    target = project / "broken.json"
    if content is not None:
        target.write_text(content)
    assert main([NAME_DEV004, "--baseline", "broken.json", "model.py"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.startswith("devlint: error: broken.json: ") and err.count("\n") == 1


def test_write_baseline_cannot_be_combined_with_fix(project, capsys):
    assert main([NAME_DEV004, "--write-baseline", "b.json", "--fix", "model.py"]) == 2
