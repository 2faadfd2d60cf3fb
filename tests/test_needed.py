"""LibCST parses only the statements the rules need (devlint/analysis/needed.py): where every rule left after the
screen lists its candidates, the definitions nothing kept can name are left out (a string stands across their
lines), those a kept statement names are parsed for their header, and the reports (and the fixes they offer) are
those of the whole file, at the same lines and columns."""

from __future__ import annotations

import ast
import textwrap

import pytest

from conftest import RULE_DIRS
from devlint.analysis.needed import HEADER as HEADER_ONLY, WHOLE, needed_statements
from devlint.engine.engine import analyze
from devlint.engine.selection import enabled_rules, prefilter, screen_with_facts
from devlint.engine.settings import Settings
from devlint.engine import cst_stage, narrowed_parse
from devlint.rules import all_rules

DEFAULT = Settings()
PREVIEW = Settings(preview=True)


def _reports(source: str, settings: Settings = DEFAULT, whole: bool = False) -> list[tuple]:
    analysis = analyze(source, "example.py", settings, whole=whole)
    return [(d.line, d.col, d.end_line, d.end_col, d.code, d.message, d.fix.applicability if d.fix else None)
            for d in analysis.diagnostics]


def _kept(source: str) -> list[str]:
    """The names (or kinds) of the top-level statements LibCST parses by default, `:header` after a definition
    parsed for its header only; all of them when every statement is parsed whole."""
    tree = ast.parse(source)
    rules, facts = screen_with_facts(source, prefilter(source, enabled_rules(DEFAULT, "example.py")), tree,
                                     preview=False)
    needed = None
    if facts is not None and rules and all(entry.rule.candidates is not None for entry in rules):
        needed = needed_statements(facts, source, [node for entry in rules for node in entry.rule.candidates(facts)])
    return [getattr(statement, "name", type(statement).__name__) + (":header" if what == HEADER_ONLY else "")
            for statement, what in needed or [(statement, WHOLE) for statement in tree.body]]


def _same_as_whole(source: str, settings: Settings = DEFAULT) -> list[tuple]:
    narrowed = _reports(source, settings)
    assert narrowed == _reports(source, settings, whole=True)
    return narrowed


HEADER = "import torch\nimport torch.nn as nn\n\n"

LEFT_OUT = HEADER + textwrap.dedent('''\
    def unused(a):
        return a * 2


    @staticmethod
    def decorated(a):  # a comment
        return [
            a,
        ]

    # a comment between definitions

    class Net(nn.Module):
        def forward(self, x):
            return x


    def make_step(n, device):
        mask = torch.ones(n).to(device)
        return mask
    ''')


def test_definitions_no_kept_statement_names_are_left_out_and_the_reports_stay_where_they_are() -> None:
    assert _kept(LEFT_OUT) == ["Import", "Import", "make_step"]
    reports = _same_as_whole(LEFT_OUT)
    assert [(line, col, code) for line, col, _, _, code, _, _ in reports] == [(22, 12, "DEV002")]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_windows_line_ends_and_a_last_line_without_a_break(newline: str) -> None:
    source = LEFT_OUT.rstrip("\n").replace("\n", newline)
    assert len(_same_as_whole(source)) == 1


def test_a_lone_carriage_return_parses_everything() -> None:
    source = LEFT_OUT.replace("def unused(a):\n", "def unused(a):\r")
    assert len(_same_as_whole(source)) == 1


def test_a_definition_a_kept_statement_names_is_parsed_for_its_header_and_what_that_names() -> None:
    source = HEADER + textwrap.dedent('''\
        def inner():
            return torch.zeros(2)

        def helper(size: "Size" = Default()):
            return inner()

        class Base(nn.Module):
            \tdef forward(self, x):
            \t\treturn x

        class Encoder(Base, metaclass=Meta):
            """Its body is not read."""
            def forward(self, x):
                return inner(x)

        class Size: pass

        def Default(): return 1

        class Meta(type):
            pass

        def train(device):
            x = run(helper)  # named, not called: its header only
            encoder = Encoder()
            encoder.to(device)
            x.to(device)
        ''')
    assert _kept(source) == ["Import", "Import", "helper:header", "Base:header", "Encoder:header", "Size", "Default",
                             "Meta:header", "train"]
    _same_as_whole(source)
    _same_as_whole(source.replace("\n", "\r\n"))


def test_a_module_class_a_kept_statement_calls_is_parsed_whole_for_what_its_forward_returns() -> None:
    """`np.asarray(model(x))` is DEV006's where `forward` returns one tensor on every path: the type oracle reads
    the class's `forward`, so DEV006 lists the class the model is made of (the one the function calls, not another
    class it names)."""
    source = HEADER + textwrap.dedent('''\
        import numpy as np

        class Net(nn.Module):
            def forward(self, x):
                return x.relu()

        class Named(nn.Module):
            def forward(self, x):
                return x.relu()

        def embed(images):
            model = Net().cuda()
            kind = Named
            return np.asarray(model(images.cuda()))
        ''')
    assert _kept(source) == ["Import", "Import", "Import", "Net", "Named:header", "embed"]
    _same_as_whole(source)


def test_a_class_defined_in_a_definition_that_a_kept_statement_names_keeps_that_definition_whole() -> None:
    source = HEADER + textwrap.dedent('''\
        def factory():
            class Layer(nn.Module):
                pass
            return Layer

        def body_on_the_closing_line(
            a,
        ): return a

        def train(device):
            layer = Layer()
            layer.to(device)
            body_on_the_closing_line(1).to(device)
        ''')
    assert _kept(source) == ["Import", "Import", "factory", "body_on_the_closing_line", "train"]
    _same_as_whole(source)


@pytest.mark.parametrize("source, kept", [
    # `set_default_device` anywhere: DEV002 reports nothing in the file
    (HEADER + "def setup():\n    torch.set_default_device('cuda')\n\nx = 1\n\n"
              "def f():\n    return torch.zeros(3).to('cuda')\n", ["Import", "Import", "setup", "Assign", "f"]),
    ("from torch import set_default_device as use\nimport torch\n\ndef setup():\n    use('cuda')\n\n"
     "def f():\n    return torch.zeros(3).to('cuda')\n", ["ImportFrom", "Import", "setup", "f"]),
    # an import in a function binds a torch name for the whole file (the aliases are the file's)
    ("import torch\n\ndef _init():\n    from torch import zeros\n\ndef f():\n    return zeros(3).to('cuda')\n",
     ["Import", "_init", "f"]),
    ("def lazy():\n    import torch\n\ndef f(torch):\n    return torch.zeros(3).to('cuda')\n", ["lazy", "f"]),
    # another library's import in a function binds no torch name: that function is left out
    ("import torch\n\ndef lazy():\n    import pandas as pd\n    from .utils import zeros\n\n"
     "def f():\n    return torch.zeros(3).to('cuda')\n", ["Import", "f"]),
    # an import of numpy or scikit-learn in a function: DEV006 reads their names as the file's
    ("import torch\n\ndef setup():\n    from numpy import asarray\n\ndef other():\n    return 1\n\n"
     "def f(batch):\n    x = batch.cuda()\n    return asarray(x)\n", ["Import", "setup", "f"]),
    ("import torch\n\ndef setup():\n    import sklearn.metrics as M\n\ndef other():\n    return 1\n\n"
     "def f(y, batch):\n    p = batch.cuda()\n    return M.f1_score(y, p)\n", ["Import", "setup", "f"]),
    # a class that calls `super()`: DEV006 reads the overridden method in its base, whole
    ("import torch\n\nclass Base:\n    def process(self, x):\n        return x.detach().cpu().numpy()\n\n"
     "class Other:\n    def g(self):\n        return 1\n\n"
     "class Child(Base):\n    def process(self, x):\n        super().process(x)\n        return x.numpy()\n",
     ["Import", "Base", "Child"]),
    # a class with its own `to()`, wherever it is: the type oracle doubts any object of unknown type
    (HEADER + "class M(nn.Module):\n    def forward(self, x):\n        x.to('cuda')\n\n"
              "def make():\n    class Batch:\n        def to(self, d):\n            return self\n",
     ["Import", "Import", "M", "make"]),
    # another class of a kept name: the class table keeps one of them
    (HEADER + "class A:\n    def to(self, d):\n        return self\n\n"
              "class M(nn.Module):\n    def forward(self, x):\n        x.to('cuda')\n\nclass A:\n    pass\n",
     ["Import", "Import", "A", "M", "A:header"]),
    # a name a function declares `global` and binds: kept whole where a kept statement names it
    (HEADER + "def setup():\n    global layer\n    layer = nn.Linear(2, 2)\n\n"
              "def train(device):\n    layer.to(device)\n", ["Import", "Import", "setup", "train"]),
    # a class named by a string annotation
    (HEADER + "class Stack(nn.Module):\n    pass\n\ndef run(m: 'Stack', d):\n    m[0].to(d)\n",
     ["Import", "Import", "Stack:header", "run"]),
    # a factory of DEV011's kind moved reads the type oracle: its first answers are kept
    ("import torch\n\ndef early():\n    return torch.tensor(z).to('cuda')\n\nimport torch as th\nz = load()\n"
     "y = th.sin(z)\n\ndef g():\n    z.to('cuda')\n\ndef h():\n    return th.zeros(2).to('cuda')\n",
     ["Import", "early", "Import", "Assign", "Assign", "g", "h"]),
])
def test_what_a_definition_says_of_the_whole_file_is_kept(source: str, kept: list[str]) -> None:
    assert _kept(source) == kept
    _same_as_whole(source)


def test_a_discarded_conversion_is_a_candidate_too() -> None:
    source = LEFT_OUT + "\n\ndef half():\n    x = torch.zeros(3)\n    x.half()\n"
    assert _kept(source) == ["Import", "Import", "make_step", "half"]
    assert [code for *_, code, _, _ in _same_as_whole(source)] == ["DEV002", "DEV007"]


def test_where_libcst_does_not_take_what_is_left_the_whole_text_is_parsed(monkeypatch) -> None:
    texts: list[str] = []

    def failing_first(text: str, tree: ast.Module) -> object:
        texts.append(text)
        if len(texts) == 1:
            raise ValueError("not taken")
        return parse_in_pieces(text, tree)

    parse_in_pieces = cst_stage.parse_in_pieces
    for stage in (cst_stage, narrowed_parse):  # the statements needed, then the whole text
        monkeypatch.setattr(stage, "parse_in_pieces", failing_first)
    analysis = analyze(LEFT_OUT, "example.py", DEFAULT)
    assert texts[0] != LEFT_OUT and texts[1] == LEFT_OUT
    assert analysis.module is not None and analysis.module.code == LEFT_OUT
    assert [d.line for d in analysis.diagnostics] == [22]


def test_a_candidate_at_the_module_level_parses_every_statement() -> None:
    # DEV002 looks for `x = x.to(...)` a few statements after the factory: statements in between count
    between = "".join(f"def f{i}():\n    pass\n" for i in range(8))
    source = HEADER + "x = torch.zeros(3)\n" + between + "x = x.to('cuda')\n"
    assert len(_kept(source)) == 2 + 1 + 8 + 1
    _same_as_whole(source)


def test_a_rule_that_reads_the_whole_file_parses_every_statement() -> None:
    assert all(entry.rule.candidates is None for entry in all_rules() if entry.rule.code == "DEV008")
    source = LEFT_OUT + "\n\ndef step(x):\n    with torch.cuda.amp.autocast():\n        return x\n"
    analysis = analyze(source, "example.py", DEFAULT)
    assert [d.code for d in analysis.diagnostics].count("DEV008") == 1
    assert analysis.module is not None and len(analysis.module.body) == len(ast.parse(source).body)


def test_dev010_reads_the_copies_and_the_callers_of_the_functions_that_make_them() -> None:
    """`y = fetch(x)` then `y.tolist()`: the read is in the caller of the function that makes the copy; a function of
    this file left out is still one of the file's (its name is not another library's: `_hands_over`)."""
    source = LEFT_OUT + textwrap.dedent('''\

        def fetch(x):
            return x.to("cpu", non_blocking=True)

        def caller(x):
            y = fetch(x)
            return y.tolist()

        def outer():
            def plan(v):
                return v
            return plan

        def hands(x, wrapper):
            y = x.to("cpu", non_blocking=True)
            wrapper.plan(y)
        ''')
    kept = _kept(source)
    assert "fetch" in kept and "caller" in kept and "hands" in kept and "outer" not in kept
    reports = _same_as_whole(source)
    assert [d[0] for d in reports if d[4] == "DEV010"] == [source.splitlines().index("    return y.tolist()") + 1]
    assert analyze(source, "example.py", DEFAULT).narrowed


def _dev005_candidates(source: str) -> list[ast.AST]:
    rules, facts = screen_with_facts(source, prefilter(source, enabled_rules(PREVIEW, "example.py")), ast.parse(source),
                                     preview=True)
    [dev005] = [entry for entry in rules if entry.rule.code == "DEV005"]
    return list(dev005.rule.candidates(facts))


def test_dev005_reads_the_module_classes_its_functions_make() -> None:
    """`self.encoder = Encoder()`: what a call of `self.encoder` is (a submodule, its layers) is read from the class,
    so DEV005 lists the classes with a `forward` that its functions make, and those these make, by their name."""
    source = HEADER + textwrap.dedent('''\
        class Inner(nn.Module):
            def forward(self, x):
                return x

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = Inner()
            def forward(self, x):
                return self.inner(x)

        class Unrelated(nn.Module):
            """Made nowhere: not read."""
            def forward(self, x):
                return x * 2

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()
            def forward(self, x):
                return self.encoder(torch.cat([x, torch.ones(x.shape[0], 1)], 1))
        ''')
    classes = {node.name for node in _dev005_candidates(source) if isinstance(node, ast.ClassDef)}
    assert classes == {"Encoder", "Inner"}
    assert [d[4] for d in _same_as_whole(source, PREVIEW)].count("DEV005") == 1


def test_dev005_reads_the_functions_its_screen_keeps_and_every_call_of_them() -> None:
    """DEV005 lists as candidates the functions its screen keeps and the calls of those by name: whether every
    caller gives a host tensor silences it (`CallSites`), so a caller left out would change the answer."""
    source = LEFT_OUT + textwrap.dedent('''\

        def pad(x):
            return torch.cat([x, torch.zeros(x.shape[0], 1)], 1)

        def caller():
            return pad(torch.ones(3, 2))

        def other(x):
            return x + 1
        ''')
    held = {getattr(node, "name", None) or type(node).__name__ for node in _dev005_candidates(source)}
    assert held == {"pad", "Call"}
    assert _same_as_whole(source, PREVIEW) == _reports(source, PREVIEW, whole=True)
    assert not [d for d in _reports(source, PREVIEW) if d[4] == "DEV005"]  # the only caller gives a host tensor
    without_the_caller = source.replace("return pad(torch.ones(3, 2))", "return 1")
    assert [d[4] for d in _same_as_whole(without_the_caller, PREVIEW)].count("DEV005") == 1
    analysis = analyze(source, "example.py", PREVIEW)
    assert analysis.narrowed


# LEFT_OUT with a report that offers no fix (a discarded move of a name never read again)
WITHOUT_A_FIX = LEFT_OUT.replace("    mask = torch.ones(n).to(device)\n    return mask",
                                 "    mask = torch.ones(n, device=device)\n    mask.cpu()\n    return n")


def test_fixing_and_fix_edits_parse_every_statement() -> None:
    """Fix edits need the whole tree: `--fix` and the formats that show edits parse every statement. A check whose
    report offers a fix (offered only where `--fix` can lay it out, issue 50) lays it out on the narrowed tree where
    a statement kept whole holds it, with the whole tree's answer (issue 54); a check whose reports offer none leaves
    out what the rules do not read."""
    for with_fixes, whole in ((True, False), (False, True)):
        analysis = analyze(LEFT_OUT, "example.py", DEFAULT, with_fixes=with_fixes, whole=whole)
        assert analysis.module is not None and analysis.module.code == LEFT_OUT
    offering = analyze(LEFT_OUT, "example.py", DEFAULT)
    assert offering.narrowed and offering.module is not None and offering.module.code != LEFT_OUT
    assert [d.fix is not None for d in offering.diagnostics] == [True]
    assert offering.diagnostics == analyze(LEFT_OUT, "example.py", DEFAULT, whole=True).diagnostics
    assert WITHOUT_A_FIX != LEFT_OUT
    narrowed = analyze(WITHOUT_A_FIX, "example.py", DEFAULT)
    assert narrowed.module is not None and [(d.code, d.fix) for d in narrowed.diagnostics] == [("DEV001", None)]
    assert [statement.name.value for statement in narrowed.module.body if hasattr(statement, "name")] == ["make_step"]
    assert narrowed.module.code.count("\n") == WITHOUT_A_FIX.count("\n")  # every line, the same


@pytest.mark.parametrize("settings", [DEFAULT, PREVIEW], ids=["default", "preview"])
@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_every_fixture_gives_the_reports_of_the_whole_file(rule_dir, settings: Settings) -> None:
    for path in sorted(rule_dir.glob("*.py")):
        _same_as_whole(path.read_text(), settings)


def test_a_header_whose_first_member_is_decorated_stands_in_from_the_decorator() -> None:
    source = HEADER + textwrap.dedent('''\
        class Control(Base):
            @override
            def no_sync(self, module):
                return module

            @staticmethod
            def other():
                pass

        class Spaced(Base):
            @ override
            def no_sync(self, module):
                return module

        def train(device):
            control = Control()
            control.to(device)
            Spaced().to(device)
        ''')
    assert _kept(source) == ["Import", "Import", "Control:header", "Spaced", "train"]
    for text in (source, source.replace("    ", "\t"), source.replace("\n", "\r\n")):
        _same_as_whole(text)
        module = analyze(text, "example.py", DEFAULT).module
        assert module is not None and type(module.body[2].body.body[0].body[0].value).__name__ == "SimpleString"


def test_a_function_a_kept_statement_calls_by_name_is_kept_whole_and_what_it_returns_is_read() -> None:
    source = HEADER + textwrap.dedent('''\
        def make_kernel(k):
            k = torch.tensor(k)
            return k / k.sum()


        def helper_named_only(k):
            return k


        def blur(img, device):
            kernel = make_kernel([1, 3, 3, 1])
            kernel.to(device)
            return img * kernel, helper_named_only
        ''')
    assert _kept(source) == ["Import", "Import", "make_kernel", "helper_named_only:header", "blur"]
    assert [report[4] for report in _same_as_whole(source)] == ["DEV001"]


def test_a_star_import_is_kept_the_names_it_brings_may_be_torch() -> None:
    source = "from models.common import *\n\n" + LEFT_OUT.removeprefix(HEADER)
    assert _kept(source) == ["ImportFrom", "make_step"]


def test_a_fix_on_a_narrowed_tree_that_writes_code_otherwise_is_checked_again_whole() -> None:
    """The narrowed tree's default indent is the first indent LibCST finds in what it is given: where the left-out
    definition held the file's first indented block (two spaces here, four below), the fix is laid out on the
    whole tree, the check made again on every statement."""
    two_space = textwrap.dedent('''\
        import torch


        def unused(a):
          return a * 2


        def make_step(n, device):
            mask = torch.ones(n).to(device)
            return mask
    ''')
    first = analyze(two_space, "example.py", DEFAULT)
    assert first.diagnostics == analyze(two_space, "example.py", DEFAULT, whole=True).diagnostics
    assert [d.fix is not None for d in first.diagnostics] == [True]
    assert not first.narrowed and first.module is not None and first.module.code == two_space
    four_space = two_space.replace("\n  return a * 2", "\n    return a * 2")
    second = analyze(four_space, "example.py", DEFAULT)
    assert second.narrowed and second.diagnostics == analyze(four_space, "example.py", DEFAULT, whole=True).diagnostics
