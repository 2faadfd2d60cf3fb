"""`# noqa` as flake8 reads it: the real `devlint` command and the real `flake8` with the plugin
report the same lines of the same files; file-level directives; where a new `# noqa` goes
(`noqa_edit`, for `devlint --add-noqa` and the editor's "Disable DEVnnn for this line")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_devlint
from devlint.engine.noqa import NoqaEdit, Suppressions, noqa_edit

LOAD = 'torch.load("m.pt")'
# The examples' rules in preview (DEV003, DEV004): both commands run them where named by their code.
NAMED = ("--preview",)
# (comment after a DEV004 report, whether flake8 suppresses it)
INLINE_CASES = [
    ("# noqa", True),
    ("# noqa:DEV004", True),
    ("# noqa: DEV004", True),
    ("# NOQA: DEV004,DEV001", True),
    ("# NoQA:DEV001 DEV004", True),
    ("# noqa:E501,DEV004,", True),
    ("# noqa: DEV00", True),  # a prefix
    ("#noqa:DEV004", False),  # flake8 wants exactly one space after `#`
    ("#noqa", False),
    ("# noqa: dev004", False),  # codes compare case-sensitively
    ("# noqa:DEV001", False),
    ("# noqa:E501 because DEV004", False),  # the list ends at the first word that is no code
    ("# noqa : DEV001", True),  # a list that does not parse makes a bare noqa
    ("# noqa:  DEV001", True),
    ("# noqa:DEV", True),
    ("# type: ignore  # noqa: DEV004", True),
]


def _flake8_lines(path: Path) -> list[int]:
    result = subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV", "--devlint-preview", "--isolated", path.name],
                            cwd=path.parent, capture_output=True, text=True, env=_env())
    assert result.returncode in (0, 1), result.stderr
    return [int(line.split(":")[1]) for line in result.stdout.splitlines()]


def _devlint_lines(path: Path) -> list[int]:
    result = run_devlint("--isolated", "--no-cache", *NAMED, path.name, cwd=path.parent)
    assert result.returncode in (0, 1), result.stderr
    return [int(line.split(":")[1]) for line in result.stdout.splitlines()]


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_inline_noqa_suppresses_exactly_what_flake8_suppresses(tmp_path):
    source = "import torch\n" + "".join(f"{LOAD}  {comment}\n" for comment, _ in INLINE_CASES)
    path = tmp_path / "cases.py"
    path.write_text(source)
    expected = [line for line, (_, suppressed) in enumerate(INLINE_CASES, 2) if not suppressed]
    assert _flake8_lines(path) == expected
    assert _devlint_lines(path) == expected


MULTI_LINE = textwrap.dedent('''\
    import torch
    a = torch.load(  # noqa: DEV004
        "m.pt")
    b = torch.load(
        "m.pt")  # noqa: DEV004
    c = torch.load("""
    m.pt""")  # noqa: DEV004
    d = torch.load("m.pt" \\
                   )  # noqa: DEV004
    ''')


def test_noqa_in_multi_line_statements_is_attributed_as_flake8_does(tmp_path):
    path = tmp_path / "multi.py"
    path.write_text(MULTI_LINE)
    # Brackets keep one line each (the closing line's noqa is not the call's); a string or a
    # backslash joins its lines.
    assert _flake8_lines(path) == _devlint_lines(path) == [4]


@pytest.mark.parametrize("header, reported", [
    ("# flake8: noqa", []),
    ("  # FLAKE8= NOQA", []),
    ("# flake8: noqa: E501", []),  # flake8 7 skips the whole file also when codes follow
    ("#flake8: noqa", [3, 4]),  # no space after `#`: not the directive
    ("x = 1  # flake8: noqa", [3, 4]),  # on a line with code: not the directive
])
def test_file_level_flake8_noqa_as_flake8(tmp_path, header, reported):
    path = tmp_path / "f.py"
    path.write_text(f"import torch\n{header}\n{LOAD}\ndevice = torch.device('cuda')\n")
    assert _flake8_lines(path) == _devlint_lines(path) == reported


@pytest.mark.parametrize("header, reported", [
    ("# devlint: noqa", []),
    ("# devlint: noqa: DEV004", [4]),
    ("# devlint: noqa:DEV004, DEV003", []),
    ("# devlint: noqa: DEV00", []),
])
def test_devlint_file_directive_in_the_cli_and_the_flake8_plugin(tmp_path, header, reported):
    path = tmp_path / "f.py"
    path.write_text(f"import torch\n{header}\n{LOAD}\ndevice = torch.device('cuda')\n")
    assert _devlint_lines(path) == _flake8_lines(path) == reported


ADOPT = textwrap.dedent('''\
    import torch

    x = torch.zeros(3)
    x.to("cpu")  # keeps its comment
    state = torch.load("m.pt")  # noqa: E501
    other = torch.load("m.pt")  # noqa:E501 reason
    c = torch.load("""
    m.pt""")
    d = torch.load(
        "m.pt")
    torch.load("a"); x.to("cpu")
    ''').replace("\n", "\r\n", 1)  # a CRLF line stays CRLF

ADOPTED = textwrap.dedent('''\
    import torch

    x = torch.zeros(3)
    x.to("cpu")  # keeps its comment  # noqa: DEV001
    state = torch.load("m.pt")  # noqa: E501, DEV004
    other = torch.load("m.pt")  # noqa:E501, DEV004 reason
    c = torch.load("""
    m.pt""")  # noqa: DEV004
    d = torch.load(  # noqa: DEV004
        "m.pt")
    torch.load("a"); x.to("cpu")  # noqa: DEV001, DEV004
    ''').replace("\n", "\r\n", 1)


@pytest.mark.parametrize("source, line, expected", [
    ("y = torch.load(p)\n", 1, NoqaEdit(1, 17, 17, "  # noqa: DEV004")),
    ("y = torch.load(p)   \n", 1, NoqaEdit(1, 17, 20, "  # noqa: DEV004")),  # trailing blanks go
    ("y = torch.load(p)  \r\n", 1, NoqaEdit(1, 17, 19, "  # noqa: DEV004")),  # the CR stays
    ("y = torch.load(p)  # load it\n", 1, NoqaEdit(1, 28, 28, "  # noqa: DEV004")),  # after a comment
    ("y = torch.load(p)  # noqa: E501\n", 1, NoqaEdit(1, 31, 31, ", DEV004")),
    ("y = torch.load(p)  # noqa:E501,W291  # why\n", 1, NoqaEdit(1, 35, 35, ", DEV004")),
    # flake8 reads a string's lines, and a backslash continuation's, as one: the comment goes after them
    ('y = torch.load(p, f("""\n""")); z = 1\n', 1, NoqaEdit(2, 12, 12, "  # noqa: DEV004")),
    ("y = torch.load(p) + \\\n    1\n", 1, NoqaEdit(2, 5, 5, "  # noqa: DEV004")),
    # in brackets, each physical line is flake8's line
    ("y = torch.load(\n    p)\n", 1, NoqaEdit(1, 15, 15, "  # noqa: DEV004")),
])
def test_a_noqa_goes_where_flake8_reads_it_for_the_report(source, line, expected):
    assert noqa_edit(Suppressions(source), line, ["DEV004"]) == expected


@pytest.mark.parametrize("source", [
    "y = torch.load(p)  # noqa\n",  # suppressed already
    "y = torch.load(p)  # noqa: DEV00\n",  # by a prefix
    's = "# noqa: E501"; torch.load(s)\n',  # flake8 reads the string's noqa first: no comment can count
    "y = torch.load(p\n",  # does not tokenize: nothing is known
])
def test_no_noqa_where_none_is_needed_or_none_can_count(source):
    assert noqa_edit(Suppressions(source), 1, ["DEV004"]) is None


def test_only_the_codes_not_suppressed_yet_are_added():
    source = "torch.load(a); x.to(d)  # noqa: DEV001\n"
    assert noqa_edit(Suppressions(source), 1, ["DEV001", "DEV004"]) == NoqaEdit(1, 38, 38, ", DEV004")


def test_add_noqa_comments_every_report_where_flake8_reads_it_and_is_idempotent(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes(ADOPT.encode())
    first = run_devlint("--isolated", "--no-cache", *NAMED, "--add-noqa", ".", cwd=tmp_path)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "Added 6 noqa directives.\n")
    assert path.read_bytes() == ADOPTED.encode()
    again = run_devlint("--isolated", "--no-cache", *NAMED, "--add-noqa", ".", cwd=tmp_path)
    assert (again.returncode, again.stderr) == (0, "Added 0 noqa directives.\n")
    assert path.read_bytes() == ADOPTED.encode()
    assert _devlint_lines(path) == _flake8_lines(path) == []


def test_add_noqa_only_for_the_selected_codes(tmp_path):
    path = tmp_path / "train.py"
    path.write_text("import torch\nx = torch.zeros(3)\nx.to('cpu')\nstate = torch.jit.load('m.pt')\n")
    result = run_devlint("--isolated", "--no-cache", "--add-noqa", "--select", "DEV004", "train.py", cwd=tmp_path)
    assert result.returncode == 0
    assert path.read_text() == ("import torch\nx = torch.zeros(3)\nx.to('cpu')\n"
                                "state = torch.jit.load('m.pt')  # noqa: DEV004\n")


def test_add_noqa_never_rewrites_a_string_that_looks_like_a_noqa(tmp_path):
    path = tmp_path / "s.py"
    text = 'import torch\ns = "# noqa: E501"; torch.load(s)\n'
    path.write_text(text)
    result = run_devlint("--isolated", "--no-cache", *NAMED, "--add-noqa", "s.py", cwd=tmp_path)
    # flake8 reads the string's noqa first, so no comment can silence the report: nothing is written.
    assert (result.returncode, result.stderr, path.read_text()) == (0, "Added 0 noqa directives.\n", text)


def test_add_noqa_cannot_be_combined_with_fix(tmp_path):
    result = run_devlint("--add-noqa", "--fix", ".", cwd=tmp_path)
    assert result.returncode == 2 and "cannot be combined" in result.stderr


def test_add_noqa_leaves_notebooks_alone_with_a_warning(tmp_path):
    notebook = tmp_path / "training.ipynb"
    shutil.copy(ROOT / "fixtures" / "notebooks" / "training.ipynb", notebook)
    before = notebook.read_bytes()
    result = run_devlint("--isolated", "--no-cache", "--add-noqa", ".", cwd=tmp_path)
    assert result.returncode == 0
    assert "devlint: warning: training.ipynb: --add-noqa does not write into notebooks" in result.stderr
    assert notebook.read_bytes() == before
