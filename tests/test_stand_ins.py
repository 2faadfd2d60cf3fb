"""Data stand-ins (devlint/engine/stand_ins.py): a large display of constants is parsed as a one-element
display over the same lines, so a generated table costs a tokenizer's pass; what devlint reports, the
fix edits it shows and the fixed text are those of the whole text, and Python's syntax errors stay."""

from __future__ import annotations

import ast
import io
import random
import tokenize

import pytest

from devlint.engine import stand_ins
from devlint.engine.engine import analyze, fix_text
from devlint.engine.settings import Settings
from devlint.engine.stand_ins import NUMBERS_MIN_CHARS, STAND_IN_MIN_CHARS, data_stand_ins, with_stand_ins


def _rows(count: int, seed: int = 0) -> str:
    generator = random.Random(seed)
    return "".join("    (" + ", ".join(f"{generator.uniform(-1, 1):.6f}" for _ in range(6)) + "),\n"
                   for _ in range(count))


TABLE = _rows(100)  # about 5.6 KB: over STAND_IN_MIN_CHARS
REAL_STAND_INS_FROM_CHARS = stand_ins.STAND_INS_FROM_CHARS


@pytest.fixture(autouse=True)
def stand_ins_for_small_texts(monkeypatch):
    """Stand-ins are tried from 256 KB of text; the tests' texts are smaller, to keep them fast."""
    monkeypatch.setattr(stand_ins, "STAND_INS_FROM_CHARS", 0)

MODULE = f'''"""A generated table."""
import torch

WEIGHTS = [
{TABLE}]  # noqa: E501 (generated)
NAMES = {{"alpha": 1, "beta": [2, 3], "gamma": None}}


def lookup(device):
    t = torch.zeros(len(WEIGHTS)).to(device)
    return t


LATE = [  # a second table, after the code
{TABLE}]
t2 = torch.ones(3).to("cuda")
'''


def test_a_large_table_is_replaced_and_every_other_line_is_kept():
    text = with_stand_ins(MODULE)
    assert text is not None and len(text) < len(MODULE) // 4
    original, standing = MODULE.split("\n"), text.split("\n")
    assert len(standing) == len(original)
    changed = [i for i, (a, b) in enumerate(zip(original, standing)) if a != b]
    assert all(original[i].startswith("    (") or original[i].startswith(("WEIGHTS", "LATE", "]"))
               for i in changed)
    # the code after a table is at the same line and column
    assert [line for line in standing if "torch.zeros" in line] == ["    t = torch.zeros(len(WEIGHTS)).to(device)"]
    assert isinstance(ast.parse(text).body[2].value, ast.List)  # still a list, not an empty one
    assert ast.parse(text).body[2].value.elts


@pytest.fixture
def whole_text_fix(monkeypatch):
    """fix_text as it is without stand-ins: LibCST parses the whole text."""
    import devlint.engine.engine as engine

    def fix(source: str, settings: Settings) -> str:
        with monkeypatch.context() as patch:
            patch.setattr(engine, "data_stand_ins", lambda text: None)
            return fix_text(source, "table.py", settings, unsafe=True).source

    return fix


def test_reports_fix_edits_and_fixed_text_are_those_of_the_whole_text(whole_text_fix):
    settings = Settings(preview=True)
    with_stand_ins_ = analyze(MODULE, "table.py", settings, with_fixes=True)
    whole = analyze(MODULE, "table.py", settings, with_fixes=True, stand_ins=False)
    assert with_stand_ins_.text != MODULE and whole.text == MODULE
    assert [(d.code, d.line, d.col, d.end_line, d.end_col, d.message, d.fix) for d in with_stand_ins_.diagnostics] \
        == [(d.code, d.line, d.col, d.end_line, d.end_col, d.message, d.fix) for d in whole.diagnostics]
    assert [d.code for d in whole.diagnostics] == ["DEV002", "DEV002", "DEV003"]
    fixed = fix_text(MODULE, "table.py", settings, unsafe=True)
    assert fixed.source == whole_text_fix(MODULE, settings)
    assert "torch.zeros(len(WEIGHTS), device=device)" in fixed.source
    assert fixed.source.count(TABLE) == 2  # the data, byte for byte


def test_a_fix_that_adds_import_torch_is_mapped_past_the_table(whole_text_fix):
    source = f"from torch.cuda.amp import GradScaler\n\nTABLE = [\n{TABLE}]\n\nscaler = GradScaler()\n"
    settings = Settings(target_torch=(2, 4))
    fixed = fix_text(source, "amp.py", settings, unsafe=True)
    assert fixed.fixed and "import torch\n" in fixed.source and TABLE in fixed.source
    assert fixed.source == whole_text_fix(source, settings)


def test_a_fix_on_the_lines_next_to_a_table_is_made(whole_text_fix):
    source = (f"import torch\ndef f_step(device):\n    return torch.zeros(3).to(device)\nTABLE = [\n{TABLE}]\n"
              f"def g_step(device):\n    return torch.ones(2).to(device)\n")
    fixed = fix_text(source, "table.py", Settings(), unsafe=True)
    assert fixed.fixed == {"DEV002": 2} and fixed.source == whole_text_fix(source, Settings())
    assert "return torch.zeros(3, device=device)\nTABLE = [\n" in fixed.source and TABLE in fixed.source


def test_crlf_line_ends_are_kept():
    source = MODULE.replace("\n", "\r\n")
    text = with_stand_ins(source)
    assert text is not None and text.count("\r\n") == source.count("\r\n") and "\n" not in text.replace("\r\n", "")
    assert [d.line for d in analyze(source, "t.py").diagnostics] == [d.line for d in analyze(MODULE, "t.py").diagnostics]


@pytest.mark.parametrize("broken, line", [
    ("[\n{rows}    1.0 2.0,\n]", None),                  # two elements without a comma
    ("[\n{rows}    0777,\n]", None),                    # a leading zero Python rejects
    ("[\n{rows}    b'\u00e9',\n]", None),                # a byte string of other than ASCII
    ("{{\n{rows}    1, 2: 3,\n}}", None),                # a set and a dict at once
    ("[\n{rows}    (1.0,, 2.0),\n]", None),             # two commas
])
def test_a_table_python_rejects_is_still_a_syntax_error_where_python_says(broken, line):
    source = "import torch\nX = " + broken.format(rows=TABLE) + "\ny = torch.zeros(2).to('cuda')\n"
    try:
        ast.parse(source)
    except SyntaxError as error:
        expected = error.lineno
    else:  # pragma: no cover - the case must be one Python rejects
        pytest.fail("Python parses the broken table")
    reports = analyze(source, "t.py").diagnostics
    assert [(d.code, d.line) for d in reports] == [("DEV999", expected)]


@pytest.mark.parametrize("display", [
    "[\n{rows}    scale,\n]",                 # a name: a rule may read it
    "[\n{rows}    f'{{x}}',\n]",              # an f-string holds code
    "[\n{rows}    'cuda:0',\n]",              # a device string
    "[\n{rows}    torch.float32,\n]",         # an attribute
    "{{\n{rows}    1.5,\n}}",                 # a set
])
def test_what_a_rule_may_read_is_never_replaced(display):
    source = "import torch\nX = " + display.format(rows=TABLE) + "\n"
    assert with_stand_ins(source) is None


@pytest.mark.parametrize("source", [
    "import torch\nX = [\n{rows}] + EXTRA\n",           # not the whole value
    "import torch\ndef f(x=[\n{rows}]):\n    pass\n",  # a default, inside brackets
    "import torch\nX += [\n{rows}]\n",                  # not a plain assignment
    "import torch\nX = [\n{rows}]; y = 1\n",            # the statement goes on
])
def test_only_the_whole_value_of_an_assignment_is_replaced(source):
    assert with_stand_ins(source.format(rows=TABLE)) is None


def test_small_texts_and_small_tables_are_parsed_whole(monkeypatch):
    monkeypatch.setattr(stand_ins, "STAND_INS_FROM_CHARS", REAL_STAND_INS_FROM_CHARS)
    assert with_stand_ins("X = [\n" + _rows(200) + "]\n") is None  # under STAND_INS_FROM_CHARS
    many_small = "X = [1, 2, 3]\n" * (REAL_STAND_INS_FROM_CHARS // 14 + 1)
    assert with_stand_ins(many_small) is None  # every display under STAND_IN_MIN_CHARS
    assert with_stand_ins("X = [\n" + _rows(5000) + "]\n") is not None  # 285 KB
    assert STAND_IN_MIN_CHARS < REAL_STAND_INS_FROM_CHARS


def test_tuples_dicts_and_single_line_tables_keep_their_kind_and_place():
    row = ", ".join(str(i) for i in range(2000))
    source = (f"A = ({row},)\nB = {{" + ", ".join(f"{i}: {i}.5" for i in range(1500)) + "}\n"
              f"C = [{row}]  # one line\n" + "D = [\n" + TABLE + "]\n")
    text = with_stand_ins(source)
    assert text is not None and text != source

    def places(tree: ast.Module) -> list:
        return [(type(s.value).__name__, s.value.lineno, s.value.col_offset, s.value.end_lineno,
                 s.value.end_col_offset) for s in tree.body]

    assert places(ast.parse(text)) == places(ast.parse(source))
    assert [type(s.value).__name__ for s in ast.parse(text).body] == ["Tuple", "Dict", "List", "List"]


ROW = ", ".join(f"{i / 7:.5f}" for i in range(40))  # 359 characters of numbers: under STAND_IN_MIN_CHARS
ONE_A_LINE = "import torch\n" + "".join(
    f"W_{i} = [{ROW}]\nV_{i} = torch.tensor([[{ROW}], [{ROW}]], dtype=torch.float32)\n" for i in range(20)
) + "y = torch.zeros(3).to(device)  # after the tables\n"


def test_one_table_a_line_is_replaced_in_an_assignment_and_as_a_calls_first_argument():
    assert len(ROW) < STAND_IN_MIN_CHARS and len(ROW) > NUMBERS_MIN_CHARS
    found = data_stand_ins(ONE_A_LINE)
    assert found is not None and ROW not in found.text
    original, standing = ast.parse(ONE_A_LINE), ast.parse(found.text)

    def places(tree: ast.Module) -> list:  # each statement, its value, a call's first argument and keywords
        values = [statement.value for statement in tree.body if isinstance(statement, ast.Assign)]
        nodes = [*tree.body, *values, *(part for value in values if isinstance(value, ast.Call)
                                        for part in (value.args[0], *value.keywords))]
        return [(type(node).__name__, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
                for node in nodes]

    assert places(standing) == places(original)
    call = standing.body[2].value
    assert isinstance(call, ast.Call) and isinstance(call.args[0], ast.List) and call.keywords[0].arg == "dtype"
    assert found.code_size < len(ONE_A_LINE) // 10  # the stand-ins' padding is not code


def test_a_fix_on_a_line_of_a_one_line_table_is_made_with_the_table(whole_text_fix):
    settings = Settings(preview=True)
    source = ONE_A_LINE + (f"\n\ndef train_step(device, batches):\n    for b in batches:\n"
                           f"        w = torch.tensor([{ROW}])\n        w = w.to(device)\n        b + w\n")
    standing = analyze(source, "table.py", settings, with_fixes=True)
    whole = analyze(source, "table.py", settings, with_fixes=True, stand_ins=False)
    assert standing.text != source and f"torch.tensor([{ROW}])" not in standing.text
    assert [d.code for d in whole.diagnostics] == ["DEV002", "DEV011"]
    assert standing.diagnostics == whole.diagnostics  # messages, descriptions and edits quote the table
    fixed = fix_text(source, "table.py", settings, unsafe=True)
    assert fixed.fixed == {"DEV002": 1, "DEV011": 1} and fixed.source == whole_text_fix(source, settings)
    assert f"[{ROW}],\n            device=device," in fixed.source


@pytest.mark.parametrize("source", [
    "x = f(w=[{row}])\n",                             # a keyword's value
    'DOC = """\nx = [{row}]\n"""\n',                   # inside a string
    "x = torch.tensor([\n{row}\n])\n",                # over lines in a call: a fix there changes its last line
    "x = torch.tensor([{row}] + [1])\n",              # not the whole argument
    "x = torch.tensor(y, [{row}])\n",                 # not the first argument
    "assert x == [{row}]\n",                          # a comparison
    "x += [{row}]\n",                                 # not a plain assignment
    "x = [{row}, y]\n",                               # a name among the numbers
])
def test_a_display_of_numbers_is_replaced_only_where_a_tables_may_be(source):
    assert with_stand_ins("import torch\n" + source.format(row=ROW)) is None


def _corrupted_tables(count: int, seed: int) -> list[str]:
    """Tables of constants, each with a random small corruption or none: a dropped or doubled comma, a
    stray token, a leading zero, an unclosed bracket, a string prefix, a name, a sign in the wrong place."""
    generator = random.Random(seed)
    damage = [",", ",,", "0777", "07", "1_", "'a' 'b'", "b'\\xff'", "f'x'", "x", "-", "+-1", "(", "]", "}", ":",
              "None", "True", "1e", "0x1G", "1j", "...", "lambda: 0", "*a", "**b", "'''", "0_0", "00", "1.e5"]
    texts = []
    for _ in range(count):
        opening, closing = generator.choice([("[", "]"), ("(", ")"), ("{", "}")])
        rows = []
        for i in range(400):
            value = f"{generator.uniform(-9, 9):.4f}"
            rows.append(f"    {i}: {value}," if opening == "{" else f"    {value},")
        if generator.random() < 0.8:
            row = generator.randrange(len(rows))
            rows[row] = rows[row].rstrip(",") + " " + generator.choice(damage) + ","
        texts.append(f"import torch\nX = {opening}\n" + "\n".join(rows) + f"\n{closing}\n"
                     "y = torch.zeros(3).to(device)\n")
        if opening != "{":  # and the same data one table a line, as assignments and as a call's argument
            lines = ["".join(rows[i:i + 40]).strip() for i in range(0, len(rows), 40)]
            texts.append("import torch\n" + "".join(
                f"W{i} = {opening}{line}{closing}\nV{i} = torch.tensor({opening}{line}{closing})\n"
                for i, line in enumerate(lines)) + "y = torch.zeros(3).to(device)\n")
    return texts


@pytest.mark.parametrize("seed", range(4))
def test_stand_ins_never_hide_a_syntax_error_nor_move_what_follows(seed):
    replaced = rejected = 0
    for source in _corrupted_tables(60, seed):
        text = with_stand_ins(source)
        try:
            original = ast.parse(source)
        except SyntaxError as error:
            original, where = None, (error.lineno, error.offset, error.msg)
            rejected += 1
        if text is None:
            continue
        replaced += 1
        if original is None:  # a table Python rejects is never replaced: the text still fails, there
            with pytest.raises(SyntaxError) as raised:
                ast.parse(text)
            assert (raised.value.lineno, raised.value.offset, raised.value.msg) == where, source
            assert "\nX = " not in source  # (one table a line: the others, which parse, were replaced)
            continue
        tree = ast.parse(text)
        last, last_original = tree.body[-1], original.body[-1]
        assert (last.lineno, last.col_offset, last.end_lineno, last.end_col_offset) == \
            (last_original.lineno, last_original.col_offset, last_original.end_lineno, last_original.end_col_offset)
    assert replaced and rejected  # both kinds were tried


def _tables_of_strings(count: int, seed: int) -> list[str]:
    """Tables whose strings hold what could end a quick reading of them early: escaped quotes, the other quote,
    `#`, `=`, brackets, backslash-continued lines (also with Windows line ends), triple quotes, byte and raw
    prefixes, comments between rows, implicitly joined strings."""
    generator = random.Random(seed)
    strings = ["'it\\'s'", '"say \\"hi\\""', "'a # not a comment'", '"x = [1, (2)]"', "'''tri'ple'''", '"""a\nb"""',
               "r'\\d+'", "b'\\x00'", "'con\\\ntinued'", "'\\\\'", '"\\\\"', "'a' 'b'", "u'x'", "R\"\\\"\""]
    texts = []
    for _ in range(count):
        newline = generator.choice(["\n", "\r\n"])
        rows = []
        for i in range(300):
            row = f"    {generator.choice(strings)}, {generator.uniform(-9, 9):.3f},"
            if generator.random() < 0.1:
                row += "  # a comment ' with \" quotes"
            rows.append(row)
        text = "import torch\nX = \\\n    [\n" + "\n".join(rows) + "\n]\ny = 1\n"
        texts.append(text.replace("\n", newline))
    return texts


def _displays_found(source: str) -> list:
    """What the tokenizer's pass finds (as `with_stand_ins` runs it)."""
    starts = [0]
    for line in io.StringIO(source, newline=""):
        starts.append(starts[-1] + len(line))
    try:
        return list(stand_ins._data_displays(source, starts))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


@pytest.mark.parametrize("seed", range(3))
def test_the_quick_look_lets_every_table_the_tokenizer_finds_through(seed):
    # `_looked_for` answers None only where the tokenizer's pass would find nothing to replace
    found = 0
    for source in [*_tables_of_strings(20, seed), *_corrupted_tables(20, seed), MODULE]:
        if _displays_found(source):
            found += 1
            assert stand_ins._looked_for(source) is not None, source
    assert found >= 20


def test_a_large_text_without_a_table_worth_the_pass_is_never_tokenized(monkeypatch):
    monkeypatch.setattr(stand_ins, "STAND_INS_FROM_CHARS", REAL_STAND_INS_FROM_CHARS)
    code = "".join(f"def f{i}(x, y=(1, 2)):\n    '''Doc {i}: (a, b) = [c]'''\n    z = [x, y] * {i}\n    return z\n\n\n"
                   for i in range(4000))
    assert len(code) > REAL_STAND_INS_FROM_CHARS

    def no_tokenizer(*args, **kwargs):
        raise AssertionError("tokenized")

    monkeypatch.setattr(stand_ins.tokenize, "generate_tokens", no_tokenizer)
    assert with_stand_ins(code) is None
    # a 5.6 KB table in 360 KB of code would save less than the pass costs
    assert with_stand_ins(code + "TABLE = [\n" + TABLE + "]\n") is None
    eighth = _rows(len(code) // 6 // len(_rows(1)))  # a table an eighth of the whole is looked for with the tokenizer
    with pytest.raises(AssertionError, match="tokenized"):
        with_stand_ins(code + "TABLE = [\n" + eighth + "]\n")
    with pytest.raises(AssertionError, match="tokenized"):  # and so is one as large as a text tried at all
        with_stand_ins(code * 8 + "TABLE = [\n" + _rows(REAL_STAND_INS_FROM_CHARS // len(_rows(1)) + 1) + "]\n")
