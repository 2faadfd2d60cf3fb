"""Jupyter notebooks: code cells are linted as one module, reports name the cell, fixes touch only
the changed cells' source, and everything else in the file stays byte for byte."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from conftest import FIXTURES, RULE_DIRS, expected_fix, run_devlint
from devlint.runner.discovery import discover
from devlint.sources.files import SourceError
from devlint.sources.notebook import Mask, fix_notebook, lint_notebook, mask_lines, parse_notebook, read_notebook
from devlint.runner.runner import Mode, process
from devlint.engine.line_length import line_limit
from devlint.engine.target_torch import target_torch
from devlint.engine.settings import Settings

TRAINING = FIXTURES / "notebooks" / "training.ipynb"
TRAINING_FIXED = FIXTURES / "notebooks" / "training.fixed.ipynb"
# Rules in preview the examples here use: they run where their code is named (extend-select).
NAMED = ("DEV002", "DEV003", "DEV004", "DEV005")  # fixtures with shapes in preview: checked with preview on


def code(source, **fields) -> dict:
    """A code cell; `source` a string (split into nbformat's list of lines) or ("raw string",)."""
    if isinstance(source, tuple):
        value = source[0]
    else:
        value = source.splitlines(keepends=True)
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": value, **fields}


def markdown(source: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source.splitlines(keepends=True)}


def notebook_text(*cells, indent=1, sort_keys=True, ensure_ascii=False, newline=True) -> str:
    data = {"cells": list(cells), "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4,
            "nbformat_minor": 5}
    return json.dumps(data, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii) + ("\n" if newline else "")


def reports(text: str, settings: Settings = Settings()) -> list[tuple[int, int, int, str]]:
    return [(d.cell, d.line, d.col, d.code) for d in lint_notebook(parse_notebook("nb.ipynb", text), settings)]


def fixed_sources(text: str, settings: Settings = Settings()) -> list:
    new, _ = fix_notebook(parse_notebook("nb.ipynb", text), settings, unsafe=True)
    return [cell["source"] for cell in json.loads(new)["cells"]]


# --- positions -------------------------------------------------------------------------------------


def test_training_notebook_reports_each_rule_at_its_cell_line_and_column():
    notebook = read_notebook(str(TRAINING))
    found = [(d.cell, d.line, d.col, d.code) for d in lint_notebook(notebook, Settings(preview=True))]
    assert found == [
        (4, 2, 10, "DEV003"),  # device = "cuda"
        (8, 13, 21, "DEV005"),  # torch.arange in forward
        (8, 19, 1, "DEV003"),  # model.cuda()
        (9, 2, 23, "DEV004"),  # torch.load without map_location
        (9, 3, 17, "DEV002"),  # torch.ones(10).to(device)
        (12, 6, 9, "DEV001"),  # images.to(device)
        (14, 2, 11, "DEV004"),  # the second load (the first has `# noqa: DEV004`)
    ]


def test_cells_are_counted_among_all_cells_markdown_included():
    text = notebook_text(markdown("# Title"), code("import torch\nx = torch.zeros(2)\n"), markdown("text"),
                         code("x.to(dev)\n"))
    assert reports(text) == [(4, 1, 1, "DEV001")]


def test_names_from_earlier_cells_are_known_in_later_ones():
    text = notebook_text(code("import torch\n"), code("from torch import nn\nlayer = nn.Linear(2, 2)\n"),
                         code("layer.to(dev)\nweights = torch.zeros(3)\nweights.to(dev)\n"))
    assert reports(text) == [(3, 3, 1, "DEV001")]  # a module is moved in place; a tensor is not


def test_notebook_line_is_the_file_line_holding_the_reported_source_line():
    text = TRAINING.read_text()
    file_lines = text.splitlines()
    notebook = read_notebook(str(TRAINING))
    for diagnostic in lint_notebook(notebook, Settings(preview=True)):
        cell = next(c for c in notebook.cells if c.number == diagnostic.cell)
        cell_line = cell.source.splitlines(keepends=True)[diagnostic.line - 1]
        assert json.loads(file_lines[diagnostic.notebook_line - 1].strip().rstrip(",")) == cell_line


def test_a_string_source_points_at_the_line_of_its_string():
    text = notebook_text(code(("import torch\nx = torch.zeros(2)\nx.to(dev)\n",)))
    (diagnostic,) = lint_notebook(parse_notebook("nb.ipynb", text), Settings())
    assert (diagnostic.cell, diagnostic.line, diagnostic.col) == (1, 3, 1)
    assert text.splitlines()[diagnostic.notebook_line - 1].strip().startswith('"source": "import torch')


def test_text_output_names_the_cell(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook_text(code("import torch\n"), code("x = torch.zeros(2)\nx.to(dev)\n")))
    result = run_devlint(str(path), "--isolated")
    assert result.returncode == 1
    assert result.stdout.startswith(f"{path}:cell 2:2:1: DEV001 [*] ")


def test_fix_edits_are_offsets_into_the_cell_source(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook_text(code("import torch\n"), code("x = torch.zeros(2)\nx.to(dev)  # move\n")))
    (diagnostic,) = process(str(path), Settings(), Mode(with_edits=True)).diagnostics
    (edit,) = diagnostic.fix.edits
    source = "x = torch.zeros(2)\nx.to(dev)  # move\n"
    assert (edit.start_line, edit.end_line) == (2, 2)
    assert source[:edit.start] + edit.content + source[edit.end:] == "x = torch.zeros(2)\nx = x.to(dev)  # move\n"


# --- masking IPython syntax --------------------------------------------------------------------------

BUG = "x.to(dev)\n"  # DEV001 after the cell below binds `x` to a tensor
SETUP = code("import torch\nx = torch.zeros(2)\nprint(x)\n")


@pytest.mark.parametrize("cell", [
    "%time x.to(dev)\n",
    "%matplotlib inline\n",
    "!pip install x.to(dev)\n",
    "files = !ls x.cuda()\n",
    "out = %timeit -o x.to(dev)\n",
    "x.to?\n",
    "?x.to\n",
    "torch.load??\n",
    "%%capture\nx.to(dev)\nx.cuda()\n",
    "\n%%time\nx.to(dev)\n",
    "for i in range(2):\n    %time x.to(dev)\n",
    "%time x.to(\\\n    dev)\n",
    "%time x.to(\n    dev)\n",
], ids=repr)
def test_ipython_syntax_is_masked_and_never_reported(cell):
    text = notebook_text(SETUP, code(cell), code(BUG))
    assert reports(text) == [(3, 1, 1, "DEV001")]


@pytest.mark.parametrize("cell, line", [
    ('label = "%d%%" % 3\nx.to(dev)\n', 2),
    ('doc = """\n%time is a magic?\n!not a shell\n"""\nx.to(dev)\n', 5),
    ("# what does %time do?\nx.to(dev)\n", 2),
    ("y = (1,\n     2)  # ?\nx.to(dev)\n", 3),
])
def test_percent_and_question_marks_in_python_are_not_masked(cell, line):
    text = notebook_text(SETUP, code(cell))
    assert reports(text) == [(2, line, 1, "DEV001")]


def test_mask_lines_marks_the_statement_then_its_continuation():
    lines = ["%time f(\n", "  1)\n", "g()\n", "!echo \\\n", "  done\n"]
    assert mask_lines(lines) == [Mask.STATEMENT, Mask.BLANK, Mask.KEEP, Mask.STATEMENT, Mask.BLANK]


def test_a_cell_magic_masks_the_whole_cell():
    assert mask_lines(["%%bash\n", "x.to(dev)\n"]) == [Mask.BLANK, Mask.BLANK]


def test_fix_never_rewrites_masked_lines():
    text = notebook_text(SETUP, code("%time x.to(dev)\nx.to(dev)\n!pip install torch\n"))
    assert fixed_sources(text)[1] == ["%time x.to(dev)\n", "x = x.to(dev)\n", "!pip install torch\n"]


# --- noqa and per-file-ignores ------------------------------------------------------------------------


def test_noqa_inside_a_cell_suppresses_that_line():
    text = notebook_text(SETUP, code("x.to(dev)  # noqa\nx.to(dev)  # noqa: DEV001\nx.to(dev)  # noqa: DEV003\n"))
    assert reports(text) == [(2, 3, 1, "DEV001")]


def test_noqa_lines_are_not_fixed():
    text = notebook_text(SETUP, code("x.to(dev)  # noqa\n"))
    assert fixed_sources(text)[1] == ["x.to(dev)  # noqa\n"]


def test_per_file_ignores_match_notebooks(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "nb.ipynb").write_text(notebook_text(code('import torch\ndevice = "cuda"\n')))
    (tmp_path / "train.py").write_text('import torch\ndevice = "cuda"\n')
    result = run_devlint(".", "--isolated", "--preview", "--per-file-ignores",
                         "notebooks/*.ipynb:DEV003", cwd=tmp_path)
    assert result.stdout.splitlines() == ["train.py:2:10: DEV003 hard-coded CUDA device in the assignment to"
                                          " `device`; choose the device from what the machine has"]


# --- fixes -------------------------------------------------------------------------------------------


def test_fix_of_training_is_exactly_training_fixed():
    new, result = fix_notebook(read_notebook(str(TRAINING)), Settings(preview=True), unsafe=True)
    assert new == TRAINING_FIXED.read_text(encoding="utf-8")
    assert result.remaining == []
    assert result.fixed == {"DEV001": 1, "DEV002": 1, "DEV003": 2, "DEV004": 2, "DEV005": 1}


def test_training_fixed_is_clean_and_fixing_it_again_changes_nothing():
    notebook = read_notebook(str(TRAINING_FIXED))
    assert lint_notebook(notebook, Settings(preview=True)) == []
    assert fix_notebook(notebook, Settings(preview=True), unsafe=True)[0] == notebook.text


def test_fix_changes_only_source_lines_and_nothing_else():
    before, after = TRAINING.read_text(encoding="utf-8"), TRAINING_FIXED.read_text(encoding="utf-8")
    changed = [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:1] in "+-"]
    assert len(changed) == 14  # 7 fixes, each on one line: 7 lines out, 7 in
    for line in changed:
        assert isinstance(json.loads(line[2:].strip().rstrip(",")), str)  # one string of a source list
    old, new = json.loads(before), json.loads(after)
    for cell in (*old["cells"], *new["cells"]):
        cell.pop("source")
    assert old == new  # outputs, execution counts, ids, metadata: identical


def test_fix_preserves_outputs_metadata_and_ids_of_changed_cells():
    cell = code("import torch\nx = torch.zeros(2)\nx.to(dev)", id="a1b2", execution_count=3,
                metadata={"tags": ["train"]}, outputs=[{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}])
    new = json.loads(fix_notebook(parse_notebook("nb.ipynb", notebook_text(cell)), Settings())[0])
    assert new["cells"][0] == {**cell, "source": ["import torch\n", "x = torch.zeros(2)\n", "x = x.to(dev)"]}


FORMATS = {
    "nbformat (indent 1, sorted keys)": {},
    "indent 2, keys as written": {"indent": 2, "sort_keys": False},
    "tabs": {"indent": "\t"},
    "one line": {"indent": None},
    "non-ASCII escaped": {"ensure_ascii": True},
    "no final newline": {"newline": False},
}


@pytest.mark.parametrize("style", FORMATS.values(), ids=FORMATS.keys())
@pytest.mark.parametrize("as_string", [False, True], ids=["list source", "string source"])
def test_fix_keeps_the_file_formatting_byte_for_byte(style, as_string):
    def cells(source: str) -> list[dict]:
        body = (source,) if as_string else source
        return [markdown("# Größe"), code("import torch\n"), code(body, metadata={"µ": 1})]

    before = 'x = torch.zeros(2)  # größe\nx.to(dev)\ny = 1'
    after = 'x = torch.zeros(2)  # größe\nx = x.to(dev)\ny = 1'
    original = notebook_text(*cells(before), **style)
    new, result = fix_notebook(parse_notebook("nb.ipynb", original), Settings())
    assert result.fixed == {"DEV001": 1}
    assert new == notebook_text(*cells(after), **style)


def test_a_cell_without_final_newline_keeps_it_missing_and_one_with_it_keeps_it():
    text = notebook_text(SETUP, code("x.to(dev)"), code("x.to(dev)\n"))
    assert fixed_sources(text)[1:] == [["x = x.to(dev)"], ["x = x.to(dev)\n"]]


def test_a_fix_that_would_span_two_cells_is_not_applied_and_stays_reported():
    # `x = torch.zeros(2)` then `x = x.to(dev)` merges into one statement (DEV002), across cells here.
    text = notebook_text(code("import torch\nx = torch.zeros(2)\n"), code("x = x.to(device)\n"))
    # (a copy made once at a notebook's top level: a preview shape of DEV002)
    new, result = fix_notebook(parse_notebook("nb.ipynb", text), Settings(preview=True), unsafe=True)
    assert new == text
    assert [(d.cell, d.line, d.code) for d in result.remaining] == [(1, 2, "DEV002")]


def test_fix_and_diff_from_the_command_line(tmp_path):
    path = tmp_path / "nb.ipynb"
    original = notebook_text(SETUP, code("x.to(dev)\n"))
    path.write_text(original)
    diff = run_devlint("--diff", str(path), "--isolated")
    assert diff.returncode == 1 and path.read_text() == original
    assert [line for line in diff.stdout.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
        '-    "x.to(dev)\\n"', '+    "x = x.to(dev)\\n"']
    fix = run_devlint("--fix", str(path), "--isolated")
    assert fix.returncode == 0, fix.stderr
    assert path.read_text() == original.replace('"x.to(dev)\\n"', '"x = x.to(dev)\\n"')


# --- broken notebooks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("content, reason", [
    ('{"cells": [', "not a Jupyter notebook: invalid JSON (Expecting value at line 1 column 12)"),
    ('{"cells": [], "nbformat": 3}', "not a Jupyter notebook in nbformat 4 (nbformat is 3)"),
    ("[1, 2]", 'not a Jupyter notebook: no "cells" list at the top level'),
    ('{"cells": {}, "nbformat": 4}', 'not a Jupyter notebook: "cells" is not a list'),
    ('{"cells": [{"source": "x"}], "nbformat": 4}', 'not a Jupyter notebook: cell 1 has no "cell_type"'),
    ('{"cells": [{"cell_type": "code", "source": 3}], "nbformat": 4}',
     "not a Jupyter notebook: cell 1's \"source\" is not text"),
])
def test_a_file_that_is_not_an_nbformat_4_notebook_is_a_clear_error(content, reason):
    with pytest.raises(SourceError) as error:
        parse_notebook("nb.ipynb", content)
    assert str(error.value).startswith(f"nb.ipynb: {reason}")


def test_bad_notebooks_exit_2_and_the_other_files_are_still_checked(tmp_path):
    (tmp_path / "broken.ipynb").write_text("{not json")
    (tmp_path / "latin1.ipynb").write_bytes(b'{"cells": [], "nbformat": 4, "x": "\xe9"}')
    (tmp_path / "train.py").write_text("import torch\ntorch.load(p)\n")
    result = run_devlint(".", "--isolated", "--preview", cwd=tmp_path)
    assert result.returncode == 2
    assert "train.py:2:1: DEV004" in result.stdout
    assert "devlint: error: broken.ipynb: not a Jupyter notebook: invalid JSON" in result.stderr
    assert "devlint: error: latin1.ipynb: not a Jupyter notebook: not UTF-8" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_cell_with_a_syntax_error_is_reported_and_the_other_cells_still_checked_and_fixed():
    text = notebook_text(SETUP, code("def f(:\n    pass\n"), code("x.to(dev)\n"))
    assert reports(text) == [(2, 1, 7, "DEV999"), (3, 1, 1, "DEV001")]  # where Python places it, as in a .py
    assert fixed_sources(text)[1:] == [["def f(:\n", "    pass\n"], ["x = x.to(dev)\n"]]


def test_a_cell_python_rejects_is_dev999_in_a_notebook_no_rule_can_report_on():
    text = notebook_text(code("import json\n"), code("def f(:\n    pass\n"))
    assert reports(text) == [(2, 1, 7, "DEV999")]


def test_a_notebook_without_code_cells_is_clean():
    assert reports(notebook_text(markdown("# Notes"))) == []


# --- discovery ---------------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "nb.ipynb").write_text(notebook_text(SETUP))
    (tmp_path / "train.py").write_text("")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(notebook_text(SETUP))
    (tmp_path / "notes.txt").write_text("")
    return tmp_path


def test_discovery_finds_notebooks_next_to_python_files_but_not_checkpoints(project):
    settings = Settings(root=str(project))
    assert sorted(Path(p).name for p in discover([str(project)], settings)) == ["nb.ipynb", "train.py"]


def test_notebooks_can_be_excluded_like_any_file(project):
    settings = Settings(root=str(project), extend_exclude=("*.ipynb",))
    assert [Path(p).name for p in discover([str(project)], settings)] == ["train.py"]


def test_a_notebook_named_explicitly_is_checked_even_when_excluded(project):
    settings = Settings(root=str(project), extend_exclude=("*.ipynb",))
    assert list(discover([str(project / "nb.ipynb")], settings)) == [str(project / "nb.ipynb")]


# --- the rule fixtures as notebooks ----------------------------------------------------------------


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_a_rule_fixture_split_into_cells_is_fixed_as_the_py_file_is(rule_dir):
    # Top-level blocks (separated by two blank lines) become cells; the last line of each lacks "\n".
    chunks = (rule_dir / "bad.py").read_text().split("\n\n\n")
    text = notebook_text(markdown(f"# {rule_dir.name}"), *(code(chunk) for chunk in chunks))
    # at the line limit and for the torch version the fixtures are made with (the configuration above them);
    # with a rule in NAMED (in preview) named by its code, so that its fixes apply: its fixed.py
    rule = rule_dir.name.split("-", 1)[0]
    named = rule in NAMED
    settings = Settings(line_length=line_limit(None, str(rule_dir / "bad.py")),
                        target_torch=target_torch(None, str(rule_dir / "bad.py")),
                        preview=named)
    sources = ["".join(source) for source in fixed_sources(text, settings)[1:]]
    assert "\n\n\n".join(sources) == expected_fix(rule_dir, preview=named)


def test_the_fixture_notebooks_are_what_nbformat_itself_writes():
    nbformat = pytest.importorskip("nbformat")
    for path in (TRAINING, TRAINING_FIXED):
        notebook = nbformat.read(str(path), as_version=4)
        nbformat.validate(notebook)
        assert nbformat.writes(notebook) + "\n" == path.read_text(encoding="utf-8")


def test_an_added_import_goes_into_the_cell_of_the_last_import():
    text = notebook_text(markdown("# Setup"), code("import numpy as np"), code('dev = torch.device("cuda")\n'))
    new, result = fix_notebook(parse_notebook("nb.ipynb", text), Settings(preview=True), unsafe=True)
    assert result.fixed == {"DEV003": 1}
    assert new == notebook_text(markdown("# Setup"), code("import numpy as np\nimport torch"),
                                code('dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'))
