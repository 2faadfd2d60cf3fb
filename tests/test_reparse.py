"""`Reparser` (devlint/engine/reparse.py): a version parsed from the last one is the tree LibCST parses
from the whole text, node for node, whatever the edit; and an edit in one function re-parses
only that function; a whole file parsed in pieces is LibCST's tree of it too."""

from __future__ import annotations

import ast
from typing import Callable, Optional

import libcst as cst
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from devlint.engine.engine import analyze
from devlint.engine.settings import Settings
from devlint.engine.reparse import Reparser
from devlint.sources import document
from generated_programs import PROGRAMS
from tests.conftest import RULE_DIRS
from tests.test_properties import FUZZ

# DEV003, DEV004 and DEV005 are rules in preview: named, so that their reports are compared too.
NAMED = Settings(preview=True)

BASE = '''"""A module."""
# a comment at the top

import torch


def first(x):
    y = x + 1
    return y


# between, at column 0
@decorator
def second(x):
    if x:
        return torch.zeros(3).to("cuda")
    return x
    # an indented comment that ends the block


class Third:
    def method(self):
        a = 1; b = 2
        return a + b
# the end
'''


def parsed_again(parser: Reparser, text: str) -> Optional[cst.Module]:
    """`parser.parse(text)`, checked against LibCST's parse of the whole text (None: neither parses)."""
    try:
        expected = cst.parse_module(text)
    except Exception as error:  # noqa: BLE001 - the reparser must fail the same way
        with pytest.raises(type(error)):
            parser.parse(text)
        return None
    got = parser.parse(text)
    assert got.code == expected.code  # the text itself, but for LibCST's own slips (a blank line lost)
    assert got.deep_equals(expected)
    for attribute in ("default_indent", "default_newline", "has_trailing_newline"):  # (deep_equals: the rest)
        assert getattr(got, attribute) == getattr(expected, attribute), attribute
    return got


def with_line(text: str, number: int, line: Optional[str], *, replace: bool = False) -> str:
    """`text` with `line` inserted before line `number` (1-based), or put in its place (None: removed)."""
    lines = text.split("\n")
    if replace or line is None:
        del lines[number - 1]
    if line is not None:
        lines.insert(number - 1, line)
    return "\n".join(lines)


def test_an_edit_in_one_function_parses_only_that_function_and_reuses_the_others() -> None:
    parser = Reparser()
    before = parsed_again(parser, BASE)
    assert before is not None
    after = parsed_again(parser, BASE.replace("    y = x + 1\n", "    y = x + 2\n"))
    assert after is not None
    assert parser.spliced == 1
    assert after.body[:2] == before.body[:2]  # the docstring and the import: the same nodes
    assert after.body[2] is not before.body[2]  # `first`, which changed
    assert after.body[3:] == before.body[3:]


CLASS = '''import torch


class Pipeline:
    """A class of many methods, as a model file or a pipeline is."""

    scale = 2; shift = 1

    def first(self, x):
        """Doubles.

Its docstring has a line at column 0."""
        return x * self.scale

    # a comment at the class body's indent
    @torch.no_grad()
    def second(self, x):
        y = x + 1
        return y
        # an indented comment that ends the block

    def third(self, x):
        return x - self.shift
'''


def _parsed_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the reparser hands to LibCST from now on."""
    from devlint.engine import reparse

    texts: list[str] = []
    real = reparse.parse_module
    monkeypatch.setattr(reparse, "parse_module", lambda text: texts.append(text) or real(text))
    return texts


def test_an_edit_in_one_method_of_a_class_parses_only_that_method(monkeypatch: pytest.MonkeyPatch) -> None:
    parser = Reparser()
    before = parsed_again(parser, CLASS)
    texts = _parsed_texts(monkeypatch)
    doubled = CLASS.replace("        return x * self.scale\n", "        return x * self.scale * 2\n")
    after = parsed_again(parser, doubled)
    assert before is not None and after is not None
    (text,) = texts  # inside a stand-in class, at the depth the method has in the file
    assert text.startswith("class _:\n") and "def first" in text and "def second" not in text
    old_body, new_body = before.body[1].body.body, after.body[1].body.body  # type: ignore[attr-defined]
    assert [a is b for a, b in zip(old_body, new_body)] == [True, True, False, True, True]


@pytest.mark.parametrize("edit", [
    lambda t: t.replace("        return x * self.scale\n", "        return x * self.scale + 1\n"),
    lambda t: t.replace("Its docstring", "The docstring"),  # a string's line at column 0
    lambda t: t.replace("    # a comment at the class body's indent\n", "    # another comment\n"),
    lambda t: t.replace("        # an indented comment that ends the block\n", ""),
    lambda t: t.replace("    def third", "    # a new comment\n\n    def third"),
    lambda t: t.replace("    @torch.no_grad()\n", ""),
    lambda t: t.replace("        return x - self.shift\n", "        return x - self.shift\n    x = 1\n"),
    lambda t: t.replace("scale = 2; shift = 1", "scale = 3; shift = 1"),
    lambda t: t.replace("\n", "\r\n").replace("y = x + 1", "y = x + 2"),
    lambda t: t.replace("    def second", "  def second"),  # an indent error
    lambda t: t + "# a comment typed at the end\n",
    lambda t: t + "\n# two lines\n# at the end",
    lambda t: t + "    # an indented comment at the end\n",
], ids=lambda edit: "")
def test_edits_inside_a_class_and_after_it_give_the_tree_of_the_whole_text(edit: Callable[[str], str]) -> None:
    parser = Reparser()
    parsed_again(parser, CLASS)
    parsed_again(parser, edit(CLASS))


@pytest.mark.parametrize("base", ["x = 1", "x = 1\n# a", "x = 1\r\n# a\r\n", "class A:\n    x = 1", "x = 1\n\n\n"])
@pytest.mark.parametrize("typed", ["\n# typed", "# typed\n", "\n\n# typed\n", "\n    # indented", "\ny = 2"])
def test_lines_typed_after_the_last_statement_give_the_tree_of_the_whole_text(base: str, typed: str) -> None:
    parser = Reparser()
    parsed_again(parser, base)
    parsed_again(parser, base + typed)
    parsed_again(parser, base + typed + "\n# and more")


def test_a_comment_typed_at_the_end_parses_only_the_lines_after_the_last_statement(
        monkeypatch: pytest.MonkeyPatch) -> None:
    parser = Reparser()
    parsed_again(parser, CLASS)
    texts = _parsed_texts(monkeypatch)
    parsed_again(parser, CLASS + "# typed\n")
    assert texts == ["# typed\n"]


def test_the_same_text_again_is_the_same_tree() -> None:
    parser = Reparser()
    assert parser.parse(BASE) is parser.parse(BASE)


EDITS: dict[str, Callable[[str], str]] = {
    "a line in a function": lambda t: t.replace("return y", "return y * 2"),
    "a comment appended at the end": lambda t: t + "# edit\n",
    "a line appended without a newline": lambda t: t + "x = 1",
    "the header": lambda t: "# new first line\n" + t,
    "the docstring": lambda t: t.replace('"""A module."""', '"""A module, documented."""'),
    "an indented comment after a block, in a gap": lambda t: t.replace("\n\n# between", "\n    # mine now\n# between"),
    "a blank line before a comment in a gap": lambda t: t.replace("# between", "\n# between"),
    "a statement into a gap": lambda t: t.replace("# between, at column 0\n", "z = 3\n"),
    "a decorator": lambda t: t.replace("@decorator\n", "@decorator\n@another\n"),
    "two statements on one line split": lambda t: t.replace("a = 1; b = 2", "a = 1\n        b = 2"),
    "the first block's indent": lambda t: t.replace("    y = x + 1\n    return y\n", "  y = x + 1\n  return y\n"),
    "a later block's indent": lambda t: t.replace("        a = 1; b = 2\n        return a + b\n",
                                                  "        a = 1; b = 2\n        return (a +\n  b)\n"),
    "a block removed": lambda t: t.replace("    if x:\n        return torch.zeros(3).to(\"cuda\")\n", ""),
    "a function dedented into the module": lambda t: t.replace("    def method(self):", "def method(self):"),
    "an unclosed bracket": lambda t: t.replace("y = x + 1", "y = (x + 1"),
    "an unclosed string swallowing the rest": lambda t: t.replace("y = x + 1", 'y = """x + 1'),
    "everything removed": lambda t: "",
    "only comments left": lambda t: "# one\n\n# two\n",
    "Windows newlines in one line": lambda t: t.replace("return y\n", "return y\r\n"),
    "a Windows newline on the first line": lambda t: t.replace("\n", "\r\n", 1),
    "a form feed": lambda t: t.replace("# between", "\f# between"),
    "an old Mac newline": lambda t: t.replace("return y\n", "return y\r"),
    "the trailing newline removed": lambda t: t.rstrip("\n"),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_each_kind_of_edit_gives_the_tree_of_the_whole_text(name: str) -> None:
    parser = Reparser()
    parsed_again(parser, BASE)
    edited = EDITS[name](BASE)
    assert edited != BASE
    parsed_again(parser, edited)
    parsed_again(parser, BASE)  # and back


def test_windows_newlines_throughout() -> None:
    parser = Reparser()
    text = BASE.replace("\n", "\r\n")
    parsed_again(parser, text)
    parsed_again(parser, text.replace("return y", "return y + 1"))
    assert parser.spliced == 1
    parsed_again(parser, text.replace("return y", "return y + 1") + "x = 2\n")  # a "\n" among "\r\n"


def test_an_edit_in_a_class_of_windows_newlines_in_a_file_of_unix_ones() -> None:
    # the stand-in `class _:` line ends as the file's first line does; every line of the class keeps its own ending
    text = ("x = 1\n\n\nclass A:\r\n    a = 1\r\n\r\n    def f(self):\r\n        return 1\r\n\r\n"
            "    def g(self):\r\n        return 2\r\n\r\n    def h(self):\r\n        return 3\r\n")
    parser = Reparser()
    parsed_again(parser, text)
    parsed_again(parser, text.replace("return 2", "return 22"))
    assert parser.spliced == 1


def test_after_a_syntax_error_the_next_version_parses_again() -> None:
    parser = Reparser()
    parsed_again(parser, BASE)
    parsed_again(parser, BASE.replace("return y", "return y +"))
    parsed_again(parser, BASE)


@pytest.mark.parametrize("directory", RULE_DIRS, ids=lambda d: d.name)
def test_line_edits_of_each_fixture(directory) -> None:  # type: ignore[no-untyped-def]
    """Every line of the fixture: a comment at its indent before it, the line removed, the line twice."""
    text = (directory / "bad.py").read_text()
    parser = Reparser()
    parsed_again(parser, text)
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        indent = line[:len(line) - len(line.lstrip())]
        for edited in (with_line(text, number, indent + "# edit"), with_line(text, number, None),
                       with_line(text, number, line)):
            parsed_again(parser, edited)
            parsed_again(parser, text)
    assert parser.spliced > len(lines)  # most of them were splices


def test_reports_are_the_same_with_the_reparser() -> None:
    """What an editor is told: every report and fix, after each edit of each fixture."""
    for directory in RULE_DIRS:
        text = (directory / "bad.py").read_text()
        parser = Reparser()
        lines = text.split("\n")
        for number in range(1, len(lines) + 1, 6):
            edited = with_line(text, number, None)
            for version in (text, edited):
                expected = analyze(version, "bad.py", NAMED, with_fixes=True).diagnostics
                assert analyze(version, "bad.py", NAMED, with_fixes=True, reparser=parser).diagnostics == expected


def test_a_notebook_edited_cell_by_cell_reports_the_same_with_the_reparser() -> None:
    """The editor's notebooks: the joined module of the code cells is parsed from its last version."""
    cells = [(1, "import torch\n"), (2, "x = torch.zeros(3)\nx.to('cuda')\n"), (4, "state = torch.load('m.pt')\n")]
    parser = Reparser()
    for edit in range(3):
        cells[1] = (2, cells[1][1] + f"y{edit} = x.sum()\n")
        source = document.from_cells("nb.ipynb", cells)
        expected = document.check(source, NAMED, with_fixes=True)
        assert {report.code for report in expected} >= {"DEV001", "DEV004"}
        assert document.check(source, NAMED, with_fixes=True, reparser=parser) == expected
    assert parser.spliced == 2


@st.composite
def program_and_edits(draw) -> tuple[str, list[tuple[int, Optional[str]]]]:
    program = draw(PROGRAMS)
    count = program.count("\n") + 1
    line = st.one_of(st.none(), st.sampled_from(["", "# c", "    # deep", "x = 1", "    pass", "def f():", ")"]))
    return program, draw(st.lists(st.tuples(st.integers(1, count), line), min_size=1, max_size=4))


@FUZZ
@given(program_and_edits())
@example(("importcase.case;import x\n\n \n\n\n\n", [(1, None)]))  # LibCST's code is not this text
def test_generated_programs_and_edits(case: tuple[str, list[tuple[int, Optional[str]]]]) -> None:
    program, edits = case
    parser = Reparser()
    parsed_again(parser, program)
    text = program
    for number, line in edits:
        number = min(number, text.count("\n") + 1)
        text = with_line(text, number, line)
        parsed_again(parser, text)


# A whole file parsed in pieces (`parse_in_pieces`): LibCST's tree of the whole text, whatever the text.

def parsed_in_pieces(text: str, monkeypatch: pytest.MonkeyPatch, piece: int = 1) -> int:
    """How many texts `parse_in_pieces(text)` handed to LibCST, checked to give LibCST's tree of `text`
    (with `piece` 1: a piece at every boundary the text has)."""
    from devlint.engine import reparse

    parsed: list[str] = []
    real = reparse.parse_module
    monkeypatch.setattr(reparse, "parse_module", lambda part: parsed.append(part) or real(part))
    tree = ast.parse(text)
    try:
        expected = cst.parse_module(text)
    except Exception as error:  # noqa: BLE001 - the pieces must fail the same way
        with pytest.raises(type(error)):
            reparse.parse_in_pieces(text, tree, piece)
        return len(parsed)
    got = reparse.parse_in_pieces(text, tree, piece)
    assert got.code == expected.code
    assert got.deep_equals(expected)
    for attribute in ("default_indent", "default_newline", "has_trailing_newline", "encoding"):
        assert getattr(got, attribute) == getattr(expected, attribute), attribute
    monkeypatch.setattr(reparse, "parse_module", real)
    return len(parsed)


def test_a_large_text_is_parsed_in_pieces_into_libcsts_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    text = BASE + CLASS * 3
    # a piece per top-level statement, but `Third`: the indented comment above it may be `second`'s; `first`, a
    # function, in 2: its two statements (not `second`: the comment indented at its end may be its `if`'s); and
    # each `Pipeline`, a class, in 4: its docstring, `scale = 2; shift = 1`, `first`, and `second` with `third`
    # (the comment indented under `second` may be its block's)
    assert parsed_in_pieces(text, monkeypatch) == 20
    assert parsed_in_pieces(text, monkeypatch, piece=len(text) // 3) == 2  # pieces of a third or more
    assert parsed_in_pieces(text, monkeypatch, piece=len(text)) == 1  # under two pieces: whole


@pytest.mark.parametrize("text", [
    # the first indented block is the file's default indent; a piece whose own first block is another
    "def f():\n    return 1\n\n\ndef g():\n  return 2\n\n\ndef h():\n    return 3\n",
    "x = 1\n\n\ndef g():\n  return 2\n\n\ndef h():\n    return 3\n",
    # newlines: a piece's default newline is its first line's
    "x = 1\r\ny = 2\n\n\ndef g():\n    return 2\r\n",
    "x = 1\r\n\r\ndef g():\r\n    return 2\r\n",
    # a comment indented under a block is no boundary: it may be the block's
    "def f():\n    return 1\n    # the block's\n\ndef g():\n    return 2\n",
    "def f():\n    return 1\n  # whose?\n# the next one's\ndef g():\n    return 2\n# the module's footer\n",
    # decorators, statements joined by `;`, a header, no trailing newline, tabs
    "# header\n\n@a\n@b(1)\ndef f(): pass\nx = 1; y = 2\nclass C:\n\tdef m(self):\n\t\treturn 1\nz = 3",
    "\"\"\"Doc.\"\"\"\n\nif x:\n    pass\nelse:\n    pass\n\n\n\nwhile y:\n    break\n",
    # a class's body in pieces: what lies after it, its indents, its gaps, its header
    "class A:\n    def f(self):\n        return 1\n\n    # body\n    def g(self):\n        return 2\n"
    "    # the block's footer\n# the module's\n",
    "def f():\n    return 1\n\n\nclass A:\n  x = 1\n  y = 2\n  def g(self):\n      return 3\n",
    "class A:\n    def f(self):\n      return 1\n    def g(self):\n        return 2\nx = 1\n",
    "class A:\r\n    x = 1\r\n\r\n    y = 2\r\n",
    "class A:\n    x = 1\n# at column 0\n    @d\n    def f(self): pass\n    z = 3\n",
    'class A:\n    """Doc\nat column 0."""\n    x = 1\n    y = 2\n',
    "# top\n\nclass A:  # c\n    x = 1\n\n    y = 2\n\n\nclass B:\n    z = 3\n    w = 4",
    "x = 1\n\n\nclass A:\r\n    y = 1\r\n    z = 2\r\n",
    # other blocks whose body is the last thing they hold, cut the same way; those with `else` and the like are not
    "def f(x):\n    y = 1\n\n    # gap\n    return y\n    # the block's footer\nz = 2\n",
    "async def f(x):\n    async with a:\n        pass\n    await x\n    async for i in y:\n        yield i\n",
    "@dec\ndef f():\n    global g\n    def inner():\n        nonlocal g\n    return inner\n",
    "if __name__ == '__main__':\n    main()\n\n    # done\n    exit(0)\n",
    "if x:\n    a = 1\n    b = 2\nelif y:\n    c = 3\nelse:\n    d = 4\n",
    "with open(p) as f, lock:\n    data = f.read()\n    rows = data.split()\n",
    "for i in range(3):\n    a = i\n    b = i\nelse:\n    c = 1\n",
    "while True:\n    a = 1\n    break\ntry:\n    x = 1\n    y = 2\nexcept E:\n    pass\n",
    "def f():\r\n    x = 1\r\n\r\n    y = 2\r\n",
    "def f():\n\tx = 1\n\ty = 2\n\tif x:\n\t\treturn y\n",
], ids=["indent-later", "indent-first-piece-has-none", "mixed-newlines", "windows", "indented-comment",
        "comment-gaps", "decorators-joined-tabs", "docstring-compound", "class-footers", "class-indent-later",
        "class-nested-indents", "class-windows", "class-column-0-comment", "class-docstring-column-0",
        "class-header-no-final-newline", "class-mixed-newlines", "def-footers", "async-def", "def-scopes",
        "if-main", "if-else", "with", "for-else", "while-try", "def-windows", "def-tabs"])
def test_pieces_that_would_store_otherwise_give_libcsts_tree(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed_in_pieces(text, monkeypatch)


@pytest.mark.parametrize("directory", RULE_DIRS, ids=lambda d: d.name)
def test_each_fixture_in_pieces(directory, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    for path in sorted(directory.rglob("*.py")):
        parsed_in_pieces(path.read_text(encoding="utf-8"), monkeypatch)


@FUZZ
@given(PROGRAMS)
def test_generated_programs_in_pieces(program: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        parsed_in_pieces(program, monkeypatch)
