"""`devlint lsp`, driven by a real LSP client process over stdio: what an editor sees and applies."""

from __future__ import annotations

import json
import os
import textwrap
import time

import pytest

from lsp_client import apply, capabilities, session  # skips the module without pytest-lsp / pygls
from lsprotocol import types as lsp

from conftest import FIXTURES, RULE_DIRS, expected_fix
from devlint import fix_source
from devlint.engine.line_length import line_limit
from devlint.engine.target_torch import target_torch
from devlint.rules import get_rule
from devlint.sources import document
from devlint.engine.settings import Settings

pytestmark = pytest.mark.asyncio
FIX_ALL = "source.fixAll.devlint"
LOAD = "import torch\nstate = torch.jit.load(path)\n"  # one DEV004 report, line 2 (with DEV004 named)
# Rules in preview these tests use as their example: they run where their code is named (extend-select).
# rules whose fixtures hold shapes in preview (DEV002's one-time copies; DEV003-DEV005, rules in preview): checked
# with preview on
NAMED = ("DEV002", "DEV003", "DEV004", "DEV005")
DEFAULT_RULE = "import torch\nx = torch.zeros(3)\nx.to('cpu')\n"  # one DEV001 report, line 3: a default rule


def name_rules(folder, *codes: str, table: str = "") -> None:
    """A configuration in `folder` that names `codes` (preview rules run where named), with `table`'s lines."""
    (folder / "pyproject.toml").write_text(f"[tool.devlint]\nextend-select = {json.dumps(list(codes))}\n{table}")


def preview_rules(folder, table: str = "") -> None:
    """A configuration in `folder` with preview on, and `table`'s lines."""
    (folder / "pyproject.toml").write_text(f"[tool.devlint]\npreview = true\n{table}")


def fixture_to_check(rule_dir, folder):
    """The fixture's bad.py to open: where it is, or, for a rule in NAMED, a copy in `folder` under a
    configuration naming the rule, at the fixtures' line limit and target torch (those above them)."""
    path = rule_dir / "bad.py"
    if code_of(rule_dir) not in NAMED:
        return path
    torch = target_torch(None, str(path))
    preview_rules(folder, table=f"line-length = {line_limit(None, str(path))}\n"
               + (f'target-torch = "{torch[0]}.{torch[1]}"\n' if torch else ""))
    (folder / "bad.py").write_text(path.read_text())
    return folder / "bad.py"


def code_of(rule_dir) -> str:
    return rule_dir.name.split("-", 1)[0]


def spans(diagnostics: list[lsp.Diagnostic]) -> list[tuple[str, int, int, int, int]]:
    return sorted((str(d.code), d.range.start.line, d.range.start.character, d.range.end.line,
                   d.range.end.character) for d in diagnostics)


def quick_fixes(actions: list[lsp.CodeAction]) -> list[lsp.CodeAction]:
    return [a for a in actions if a.kind == lsp.CodeActionKind.QuickFix and not a.title.startswith("Disable")]


def edits_of(action: lsp.CodeAction, uri: str) -> list[lsp.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None
    return list(action.edit.changes[uri])


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
async def test_a_bad_fixture_gets_every_report_with_its_exact_range_code_and_rule_page(rule_dir, tmp_path):
    path = rule_dir / "bad.py"
    expected = document.check(document.PythonSource(str(path), path.read_text()), Settings())
    async with session(tmp_path) as editor:
        received = await editor.diagnostics(editor.open(path))
    assert spans(received) == sorted((d.code, d.line - 1, d.col - 1, d.end_line - 1, d.end_col - 1) for d in expected)
    # a rule in preview reports only with `preview = true` (test_preview_in_the_configuration_turns_on_a_preview_rule)
    assert (code_of(rule_dir) in {d.code for d in received}) is not get_rule(code_of(rule_dir)).preview
    for diagnostic in received:
        assert diagnostic.source == "devlint"
        assert diagnostic.severity == lsp.DiagnosticSeverity.Warning
        assert diagnostic.code_description.href.endswith(f"/docs/rules/{diagnostic.code}.md")


async def test_after_each_edit_the_reports_are_those_of_the_whole_new_text(tmp_path):
    """The server parses a version from the last one (devlint/engine/reparse.py): lines typed into a
    function, a function removed, a syntax error and its repair all give the reports of the text (with a
    syntax error, also those of the statements the edit did not touch)."""
    path = FIXTURES / "DEV005-host-tensor-meets-input" / "bad.py"
    text = path.read_text()
    lines = text.split("\n")
    middle = len(lines) // 2
    indent = lines[middle][:len(lines[middle]) - len(lines[middle].lstrip())]
    versions = [
        "\n".join([*lines[:middle], indent + "# typed", *lines[middle:]]),
        "\n".join([*lines[:middle], indent + "# typed more", *lines[middle:]]),
        "\n".join([*lines[:middle], *lines[middle + 3:]]),
        text.replace("def ", "def (", 1),
        text + "\nimport torch\nstate = torch.jit.load(path)\n",
    ]
    from devlint.frontends.lsp.resilient import kept_reports

    name_rules(tmp_path, "DEV004", "DEV005")

    def check(version: str):
        return document.check(document.PythonSource(str(tmp_path / "model.py"), version),
                              Settings(preview=True))

    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", text)
        await editor.diagnostics(uri)
        parsed = (text, check(text))
        for version in versions:
            editor.replace(uri, version)
            expected = check(version)
            if any(d.code == "DEV999" for d in expected):  # with what the edit did not touch
                expected += kept_reports(*parsed, version)
            else:
                parsed = (version, expected)
            assert spans(await editor.diagnostics(uri)) == sorted(
                (d.code, d.line - 1, d.col - 1, d.end_line - 1, d.end_col - 1) for d in expected)


async def test_the_server_keeps_the_trees_of_the_last_documents_it_checked(tmp_path):
    from devlint.frontends.lsp.server import KEPT_TREES, Snapshot, build

    server = build()
    text = (FIXTURES / "DEV005-host-tensor-meets-input" / "bad.py").read_text()

    def check(name: str, version: str) -> None:
        uri = (tmp_path / name).as_uri()
        source = document.PythonSource(str(tmp_path / name), version)
        server.check(Snapshot(uri, str(tmp_path / name), source, {None: uri}, {uri: version}, {uri: 1}),
                     Settings(extend_select=("DEV005",)))

    check("a.py", text)
    check("a.py", text.replace("\n\n", "\n\n# typed\n", 1))
    assert server.reparsers[(tmp_path / "a.py").as_uri()].spliced == 1  # parsed from the last version
    for number in range(KEPT_TREES):
        check(f"other{number}.py", text)
    assert (tmp_path / "a.py").as_uri() not in server.reparsers
    assert len(server.reparsers) == KEPT_TREES


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
async def test_applying_each_quick_fix_in_turn_gives_the_fixtures_fixed_file(rule_dir, tmp_path):
    path = fixture_to_check(rule_dir, tmp_path)
    async with session(tmp_path) as editor:
        uri = editor.open(path)
        for _ in range(100):
            fixes = quick_fixes(await editor.actions(uri))
            if not fixes:
                break
            editor.replace(uri, apply(editor.texts[uri], edits_of(fixes[0], uri)))
        expected = expected_fix(rule_dir, preview=code_of(rule_dir) in NAMED)  # named: fixed as with preview
        assert editor.texts[uri] == expected
        if expected != path.read_text():  # a rule with a fix: nothing is left to report
            assert await editor.diagnostics(uri) == []


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
async def test_fix_all_applies_the_safe_fixes_as_the_cli_does(rule_dir, tmp_path):
    original, path = rule_dir / "bad.py", fixture_to_check(rule_dir, tmp_path)
    named = (code_of(rule_dir),) if code_of(rule_dir) in NAMED else ()
    safe = fix_source(original.read_text(), str(original), Settings(preview=bool(named)), unsafe=False).source
    async with session(tmp_path) as editor:
        uri = editor.open(path)
        await editor.diagnostics(uri)
        actions = await editor.actions(uri, only=[FIX_ALL])
        if safe == original.read_text():
            assert actions == []
            return
        (fix_all,) = actions
        assert fix_all.kind == FIX_ALL
        assert apply(editor.texts[uri], edits_of(fix_all, uri)) == safe


async def test_quick_fix_titles_say_what_the_fix_does_and_unsafe_ones_are_never_preferred(tmp_path):
    path = fixture_to_check(FIXTURES / "DEV004-load-without-map-location", tmp_path)
    async with session(tmp_path) as editor:
        fixes = quick_fixes(await editor.actions(editor.open(path)))
    safe = [f for f in fixes if "unsafe" not in f.title]
    unsafe = [f for f in fixes if "unsafe" in f.title]
    assert safe and unsafe
    assert all(f.is_preferred for f in safe)
    assert all(not f.is_preferred for f in unsafe)
    assert all(f.title.startswith("Add `map_location=") and "(DEV004" in f.title for f in fixes)
    assert all(f.title.endswith("(DEV004, unsafe fix: may change behaviour)") for f in unsafe)


async def test_disable_for_this_line_adds_a_noqa_comment_and_the_report_goes(tmp_path):
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", LOAD)
        assert [d.code for d in await editor.diagnostics(uri)] == ["DEV004"]
        (disable,) = [a for a in await editor.actions(uri, line=1) if a.title == "Disable DEV004 for this line"]
        assert disable.is_preferred is not True
        editor.replace(uri, apply(editor.texts[uri], edits_of(disable, uri)))
        assert editor.texts[uri] == "import torch\nstate = torch.jit.load(path)  # noqa: DEV004\n"
        assert await editor.diagnostics(uri) == []


async def test_disable_for_this_line_extends_an_existing_noqa_list(tmp_path):
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", "import torch\nstate = torch.jit.load(path)  # noqa: E501\n")
        await editor.diagnostics(uri)
        (disable,) = [a for a in await editor.actions(uri, line=1) if a.title.startswith("Disable")]
        assert apply(editor.texts[uri], edits_of(disable, uri)).splitlines()[1] == (
            "state = torch.jit.load(path)  # noqa: E501, DEV004")


async def test_disable_puts_the_noqa_after_a_string_that_spans_lines_where_flake8_reads_it(tmp_path):
    text = 'import torch\nstate = torch.jit.load(path, pickle_module=f("""\n""")); x = 1\n'
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", text)
        assert [d.code for d in await editor.diagnostics(uri)] == ["DEV004"]
        (disable,) = [a for a in await editor.actions(uri, line=1) if a.title.startswith("Disable")]
        editor.replace(uri, apply(editor.texts[uri], edits_of(disable, uri)))
        assert editor.texts[uri] == text.replace("x = 1", "x = 1  # noqa: DEV004")
        assert await editor.diagnostics(uri) == []


async def test_no_disable_action_where_the_first_noqa_flake8_reads_is_in_a_string(tmp_path):
    text = 'import torch\ns = "# noqa: E501"; state = torch.jit.load(s)\n'
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", text)
        assert [d.code for d in await editor.diagnostics(uri)] == ["DEV004"]
        assert [a.title for a in await editor.actions(uri, line=1) if a.title.startswith("Disable")] == []


async def test_utf16_columns_count_an_emoji_as_two_units_and_cjk_as_one(tmp_path):
    text = 'import torch\nnote = "😀漢字"; state = torch.jit.load(path)\n'
    before = len('note = "😀漢字"; state = ')
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        (report,) = await editor.diagnostics(editor.open(tmp_path / "model.py", text))
    assert (report.range.start.line, report.range.start.character) == (1, before + 1)  # the emoji: 2 units
    assert report.range.end.character == before + 1 + len("torch.jit.load(path)")


async def test_utf8_columns_are_negotiated_where_the_client_offers_them(tmp_path):
    text = 'import torch\nnote = "😀漢字"; state = torch.jit.load(path)\n'
    prefix = 'note = "😀漢字"; state = '
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path, capabilities(encodings=["utf-16", "utf-8"])) as editor:
        assert editor.result.capabilities.position_encoding == "utf-8"
        uri = editor.open(tmp_path / "model.py", text)
        (report,) = await editor.diagnostics(uri)
        assert report.range.start.character == len(prefix.encode("utf-8"))
        (disable,) = [a for a in await editor.actions(uri, line=1) if a.title.startswith("Disable")]
        fixed = apply(editor.texts[uri], edits_of(disable, uri), encoding="utf-8")
    assert fixed.splitlines()[1] == 'note = "😀漢字"; state = torch.jit.load(path)  # noqa: DEV004'


async def test_a_quick_fix_after_an_emoji_edits_the_right_columns(tmp_path):
    text = 'import torch\nnote = "🙂"; state = torch.jit.load(path)\nmodel.load_state_dict(torch.jit.load(p))\n'
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", text)
        for _ in range(5):
            fixes = quick_fixes(await editor.actions(uri))
            if not fixes:
                break
            editor.replace(uri, apply(editor.texts[uri], edits_of(fixes[0], uri)))
    assert editor.texts[uri] == fix_source(text, "model.py", Settings(preview=True), unsafe=True).source


async def test_a_syntax_error_is_a_dev999_error_and_the_server_keeps_serving(tmp_path):
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", LOAD + "def broken(:\n")
        (error,) = await editor.diagnostics(uri)
        assert (error.code, error.severity, error.range.start.line) == ("DEV999", lsp.DiagnosticSeverity.Error, 2)
        assert await editor.actions(uri) == []
        editor.replace(uri, LOAD)
        assert [d.code for d in await editor.diagnostics(uri)] == ["DEV004"]


async def test_configuration_is_read_for_the_files_folder_and_reread_when_it_changes(tmp_path):
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    name_rules(project, "DEV004", table='per-file-ignores = { "tests/*" = ["DEV004"] }\n')
    async with session(project, capabilities(watch=True)) as editor:
        source = editor.open(project / "model.py", LOAD)
        test = editor.open(project / "tests" / "test_model.py", LOAD)
        assert [d.code for d in await editor.diagnostics(source)] == ["DEV004"]
        assert await editor.diagnostics(test) == []

        time.sleep(0.01)  # a new modification time, even on coarse file systems
        name_rules(project, "DEV004", table='ignore = ["DEV004"]\n')  # ignored by its code: named, and off
        editor.client.diagnostics.clear()
        editor.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
            [lsp.FileEvent((project / "pyproject.toml").as_uri(), lsp.FileChangeType.Changed)]))
        assert await editor.diagnostics(source) == []


async def test_preview_in_the_configuration_turns_on_a_preview_rule(tmp_path):
    text = "import torch\nx = torch.tensor([1, 2]).to(device)\n"
    (tmp_path / "off").mkdir()
    (tmp_path / "on").mkdir()
    (tmp_path / "on" / "pyproject.toml").write_text("[tool.devlint]\npreview = true\n")
    async with session(tmp_path) as editor:
        assert await editor.diagnostics(editor.open(tmp_path / "off" / "a.py", text)) == []
        assert [d.code for d in await editor.diagnostics(editor.open(tmp_path / "on" / "a.py", text))] == ["DEV011"]


async def test_an_edited_configuration_applies_at_the_next_check_without_a_file_event(tmp_path):
    (tmp_path / "setup.cfg").write_text("[devlint]\nselect = DEV001\n")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", LOAD)
        assert await editor.diagnostics(uri) == []
        stat = os.stat(tmp_path / "setup.cfg")
        (tmp_path / "setup.cfg").write_text("[devlint]\nselect = DEV\nextend-select = DEV004\n")
        os.utime(tmp_path / "setup.cfg", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
        editor.replace(uri, LOAD + "\n")
        assert [d.code for d in await editor.diagnostics(uri)] == ["DEV004"]


async def test_an_excluded_file_gets_no_reports(tmp_path):
    name_rules(tmp_path, "DEV004", table='extend-exclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    async with session(tmp_path) as editor:
        assert await editor.diagnostics(editor.open(tmp_path / "generated" / "model.py", LOAD)) == []


async def test_a_broken_configuration_is_shown_and_the_defaults_apply(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\nselct = ["DEV"]\n')
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", DEFAULT_RULE)
        assert [(d.code, d.range.start.line) for d in await editor.diagnostics(uri)] == [("DEV001", 2)]
        assert any("unknown key 'selct'" in m.message for m in editor.client.messages)


async def test_pull_clients_get_diagnostics_on_request_and_none_pushed(tmp_path):
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path, capabilities(pull=True)) as editor:
        uri = editor.open(tmp_path / "model.py", LOAD)
        report = await editor.client.text_document_diagnostic_async(
            lsp.DocumentDiagnosticParams(lsp.TextDocumentIdentifier(uri)))
        assert [d.code for d in report.items] == ["DEV004"]
        assert uri not in editor.client.diagnostics


async def test_notebook_cells_are_checked_as_one_module_and_fixed_in_their_own_cell(tmp_path):
    cells = [
        (lsp.NotebookCellKind.Markup, "# Training"),
        (lsp.NotebookCellKind.Code, "import torch\ndevice = torch.device('cuda')"),
        (lsp.NotebookCellKind.Code, "%matplotlib inline\nweights = torch.zeros(3).to(device)\nx = torch.load(f)"),
    ]
    preview_rules(tmp_path)  # DEV002 at module level and DEV003 without evidence: preview shapes
    notebook = (tmp_path / "train.ipynb").as_uri()
    cell_uris = [f"{notebook}#cell{i}" for i in range(len(cells))]
    async with session(tmp_path, capabilities(notebooks=True)) as editor:
        assert editor.result.capabilities.notebook_document_sync is not None
        editor.client.notebook_document_did_open(lsp.DidOpenNotebookDocumentParams(
            lsp.NotebookDocument(notebook, "jupyter-notebook", 1,
                                 [lsp.NotebookCell(kind, uri) for (kind, _), uri in zip(cells, cell_uris)]),
            [lsp.TextDocumentItem(uri, "python" if kind == lsp.NotebookCellKind.Code else "markdown", 1, text)
             for (kind, text), uri in zip(cells, cell_uris)]))
        third = await editor.diagnostics(cell_uris[2])
        assert spans(third) == [("DEV002", 1, 10, 1, 24), ("DEV004", 2, 4, 2, 17)]
        assert [d.code for d in await editor.diagnostics(cell_uris[1])] == ["DEV003"]
        editor.texts[cell_uris[2]], editor.versions[cell_uris[2]] = cells[2][1], 1
        (fix,) = [a for a in quick_fixes(await editor.actions(cell_uris[2], line=1)) if "DEV002" in a.title]
        assert list(fix.edit.changes) == [cell_uris[2]]
        assert apply(cells[2][1], edits_of(fix, cell_uris[2])).splitlines()[1] == (
            "weights = torch.zeros(3, device=device)")


async def test_a_notebook_file_opened_as_text_is_not_checked_as_python(tmp_path):
    """A client without notebook sync may send the .ipynb JSON: it has no cells to put reports in."""
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["import torch\n", "x = torch.jit.load(f)"]}]}
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "train.ipynb", json.dumps(notebook))
        await editor.diagnostics(editor.open(tmp_path / "model.py", LOAD))
        assert uri not in editor.client.diagnostics


async def test_unsaved_buffers_are_checked_with_the_defaults(tmp_path):
    async with session(tmp_path) as editor:
        editor.texts["untitled:Untitled-1"] = DEFAULT_RULE
        editor.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem("untitled:Untitled-1", "python", 1, textwrap.dedent(DEFAULT_RULE))))
        received = await editor.diagnostics("untitled:Untitled-1")
        assert [(d.code, d.range.start.line) for d in received] == [("DEV001", 2)]


async def test_a_half_typed_line_keeps_the_reports_of_the_statements_it_did_not_touch(tmp_path):
    before = "import torch\n\n\ndef f(path):\n    return torch.jit.load(path)\n\n\ndef g(path):\n    return torch.jit.load(path)\n"
    name_rules(tmp_path, "DEV004")
    async with session(tmp_path) as editor:
        uri = editor.open(tmp_path / "model.py", before)
        assert [(d.code, d.range.start.line) for d in await editor.diagnostics(uri)] == [("DEV004", 4), ("DEV004", 8)]
        broken = before.replace("def g(path):\n", "x = (\n\ndef g(path):\n")  # typing between f and g
        editor.replace(uri, broken)
        received = sorted((d.code, d.range.start.line) for d in await editor.diagnostics(uri))
        assert received == [("DEV004", 4), ("DEV004", 10), ("DEV999", 7)]  # g's report moved down two lines
        editor.replace(uri, before.replace("    return torch.jit.load(path)\n\n\ndef g", "    return torch.jit.load(path\n\n\ndef g"))
        received = sorted((d.code, d.range.start.line) for d in await editor.diagnostics(uri))
        assert ("DEV004", 4) not in received and ("DEV004", 8) in received  # f was edited: its report goes
        editor.replace(uri, before)
        assert [(d.code, d.range.start.line) for d in await editor.diagnostics(uri)] == [("DEV004", 4), ("DEV004", 8)]


async def test_a_code_action_reuses_the_check_its_diagnostics_came_from(tmp_path, monkeypatch):
    """The editor's check parses the whole text, so it lays the fixes out as it reports: a code action asked of the
    version the diagnostics were published for runs no second check (issue 50: 120-350 ms per action before)."""
    from devlint.frontends.lsp import server as server_module
    from devlint.frontends.lsp.server import Snapshot, build

    server = build()
    path = tmp_path / "m.py"
    text = "import torch\nimport torch.nn as nn\nclass Net(nn.Module):\n    def forward(self, x):\n" \
           "        m = torch.zeros(3).to(x.device)\n        return x + m\n"
    uri = path.as_uri()
    snapshot = Snapshot(uri, str(path), document.PythonSource(str(path), text), {None: uri}, {uri: text}, {uri: 1})
    monkeypatch.setattr(server, "snapshot", lambda key: snapshot)
    monkeypatch.setattr(server, "key_of", lambda found: found)
    calls = []
    real_check = server_module.document.check
    monkeypatch.setattr(server_module.document, "check", lambda *a, **k: calls.append(1) or real_check(*a, **k))
    published = await server.checked_now(uri, snapshot)
    [report] = published.diagnostics
    assert report.fix is not None and report.fix.edits  # laid out with the reports
    assert await server.checked_with_fixes(uri) is published
    assert len(calls) == 1
    newer = Snapshot(uri, str(path), document.PythonSource(str(path), text + "# more\n"), {None: uri},
                     {uri: text + "# more\n"}, {uri: 2})
    monkeypatch.setattr(server, "snapshot", lambda key: newer)
    assert (await server.checked_with_fixes(uri)).snapshot is newer  # another version: checked anew
    assert len(calls) == 2
