"""A fix's edit is computed on the innermost statement that holds it (devlint/engine/fix_edits.py:
`Statements`): rewriting, generating and laying out the whole file for every fix cost a 50,000-line file
11 s per fix, and the whole class a 4,000-line class 0.3 s per fix. The edits and the fixed text are those the
whole file gives, wherever the statement lies and whatever the fix does to it (a rewritten call, a removed
import, a new line of code)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from devlint import fix_source
from devlint.analysis.walk import nodes
from devlint.engine import cst_stage, fix_edits, positions
from devlint.engine.engine import analyze
from devlint.engine.settings import Settings
from devlint.rules.base import Applicability, Fix

from conftest import RULE_DIRS

PREVIEW = Settings(preview=True)

SOURCE = textwrap.dedent('''\
    """A module with fixes in several statements."""
    import torch


    def first(device):
        x = torch.zeros(3).to(device)
        return x

    # a comment before the class
    class Model:
        def forward(self, device):
            return torch.ones(2).to(device)


    y = torch.ones(4).to("cuda")
    ''')


def _edits(source: str, path: str = "example.py") -> list:
    return [(d.code, d.line, d.fix.edits if d.fix else None)
            for d in analyze(source, path, PREVIEW, with_fixes=True).diagnostics]


@pytest.fixture
def whole_file(monkeypatch):
    """The edits and fixed text as computed on the whole file (no statement is told apart)."""

    def compute(action):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(cst_stage, "statement_starts", lambda module, tree: None)
            return action()

    return compute


def test_each_fix_is_rewritten_in_the_innermost_statement_that_holds_it(monkeypatch, whole_file):
    laid_out: list[str] = []
    real = fix_edits.lay_out

    def recording(text, *args):
        laid_out.append(text)
        return real(text, *args)

    monkeypatch.setattr(fix_edits, "lay_out", recording)
    edits = _edits(SOURCE)
    fixed_at = [(code, line) for code, line, fix in edits if fix]
    assert fixed_at == [("DEV002", 6), ("DEV002", 12), ("DEV002", 15), ("DEV003", 15)]
    assert laid_out == ["    x = torch.zeros(3).to(device)\n", "        return torch.ones(2).to(device)\n",
                        "\n\ny = torch.ones(4).to(\"cuda\")\n", "\n\ny = torch.ones(4).to(\"cuda\")\n"]
    laid_out.clear()
    assert whole_file(lambda: _edits(SOURCE)) == edits
    assert laid_out == [SOURCE] * 4  # the whole module, each time


@pytest.mark.parametrize("variant", ["as written", "crlf", "no last line break", "tabs"])
@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_every_fixture_fix_is_the_whole_files(rule_dir, variant, whole_file):
    source = (rule_dir / "bad.py").read_text(encoding="utf-8")
    if variant == "crlf":
        source = source.replace("\n", "\r\n")
    elif variant == "no last line break":
        source = source.rstrip("\n")
    elif variant == "tabs":
        source = source.replace("    ", "\t")
    path = str(rule_dir / "bad.py")
    edits = _edits(source, path)
    assert edits == whole_file(lambda: _edits(source, path))
    fixed = fix_source(source, path, PREVIEW, unsafe=True)
    assert (fixed.source, fixed.fixed) == whole_file(lambda: (lambda r: (r.source, r.fixed))(
        fix_source(source, path, PREVIEW, unsafe=True)))


def _statements(source: str) -> tuple[cst.Module, fix_edits.Statements]:
    import ast

    module = cst.parse_module(source)
    starts = fix_edits.statement_starts(module, ast.parse(source))
    assert starts is not None
    return module, fix_edits.Statements(module, source, starts)


def test_a_fix_across_statements_or_at_an_unended_last_line_is_computed_on_the_whole_file():
    source = "import torch\n\nx = torch.zeros(3)\ny = x.to('cuda')"
    module, statements = _statements(source)
    assert statements.starts == [1, 2, 4]
    x, y = module.body[1], module.body[2]
    both = Fix(Applicability.SAFE, "two statements", {x: x, y: y})
    assert statements.holding(both, 2) is None
    call = x.body[0].value
    one = Fix(Applicability.SAFE, "one statement", {call: call.with_changes(func=cst.Name("f"))})
    assert statements.holding(one, 3) == (13, "\nx = torch.zeros(3)\n", "\nx = f(3)\n")
    whole = Fix(Applicability.SAFE, "the statement itself", {x: x})  # no statement around it: its module alone
    assert statements.holding(whole, 3) == (13, "\nx = torch.zeros(3)\n", "\nx = torch.zeros(3)\n")
    # the last statement's code has a line break its text lacks
    assert statements.holding(Fix(Applicability.SAFE, "last", {y: y}), 4) is None
    assert statements.holding(one, 4) is None  # a line whose statement does not hold the fix


NESTED = textwrap.dedent("""\
    class Model:
        x = 1

        # a comment before the method
        @property
        def first(self):
            a = f(1)  # first
            if a:
                import os
            for item in a:
                b = g(item); import sys
            return a
    """)


def _call_fix(module: cst.Module, name: str) -> Fix:
    found = [node for node in nodes(module) if isinstance(node, cst.Call) and node.func.value == name]
    return Fix(Applicability.SAFE, "rename", {found[0]: found[0].with_changes(func=cst.Name(name * 2))})


def _line_fix(module: cst.Module, kind: type) -> Fix:
    found = [node for node in nodes(module) if isinstance(node, kind)]
    return Fix(Applicability.SAFE, "remove", {found[0]: cst.RemovalSentinel.REMOVE})


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("indent", ["    ", "\t", "  "])
def test_a_fix_inside_blocks_is_the_whole_files_edit(newline, indent):
    source = NESTED.replace("    ", indent).replace("\n", newline)
    module, statements = _statements(source)
    method = module.body[0].body.body[1]
    loop = method.body.body[2]
    cases = [
        (_call_fix(module, "f"), "a = f(1)  # first", "a = ff(1)  # first"),  # a statement of the method
        (_call_fix(module, "g"), "b = g(item); import sys", "b = gg(item); import sys"),  # of the loop
        # a small statement removed from a line that keeps another: the line is the window
        (Fix(Applicability.SAFE, "remove", {loop.body.body[0].body[1]: cst.RemovalSentinel.REMOVE}),
         "b = g(item); import sys", "b = g(item)"),
        # the only statement of a block removed: the block writes `pass`, so the top-level statement is the window
        (Fix(Applicability.SAFE, "remove", {method.body.body[1].body.body[0].body[0]: cst.RemovalSentinel.REMOVE}),
         "class Model:", "class Model:"),
        (Fix(Applicability.SAFE, "remove", {method.body.body[1].body.body[0]: cst.RemovalSentinel.REMOVE}),
         "if a:", "if a:"),
    ]
    for fix, before, after in cases:
        placed = positions.positions_up_to(module, list(fix.replacements))
        line = min(placed[node].start.line for node in fix.replacements)
        edit = fix_edits.fix_edit(module, source, fix, 88, statements, line)
        assert edit == fix_edits.fix_edit(module, source, fix, 88)
        offset, text, new = statements.holding(fix, line)
        assert text.lstrip(" \t").startswith(before)
        assert new.lstrip(" \t").startswith(after)
        if before.startswith(("class", "if")):
            assert "pass" in new
    # a removed statement of a block takes its leading comments with it; the method keeps its decorator
    removal = Fix(Applicability.SAFE, "remove", {method: cst.RemovalSentinel.REMOVE})
    line = positions.positions_up_to(module, [method])[method].start.line
    assert fix_edits.fix_edit(module, source, removal, 88, statements, line) == \
        fix_edits.fix_edit(module, source, removal, 88)


def test_a_removed_statement_takes_its_line_with_it():
    source = "import torch\nimport os\nx = 1\n"
    module, statements = _statements(source)
    removal = Fix(Applicability.SAFE, "remove", {module.body[1]: cst.RemovalSentinel.REMOVE})
    assert fix_edits.fix_edit(module, source, removal, 88, statements, 2) == \
        fix_edits.fix_edit(module, source, removal, 88) == (13, 23, "")


def test_a_rewrite_enters_only_the_nodes_on_the_way_to_what_it_replaces():
    source = "class Big:\n" + "".join(f"    def m{i}(self):\n        return f(x, {i})\n" for i in range(200))
    module = cst.parse_module(source)
    method = module.body[0].body.body[150]
    call = method.body.body[0].body[0].value
    new = call.with_changes(func=cst.Name("g"))
    fix = Fix(Applicability.SAFE, "rename", {call: new})
    entered = fix_edits._on_the_way(module, [call])
    assert entered is not None and len(entered) == 8  # module, class, its block, method, block, line, return, call
    assert fix_edits.apply_fixes(module, [fix]) == source.replace("return f(x, 150)", "return g(x, 150)")
    comma = call.args[0].comma  # a token node: walks leave it out, so the rewrite enters every node
    assert fix_edits._on_the_way(module, [call, comma]) is None


def test_a_method_rewritten_as_a_method_is_its_own_window():
    """A skip marker on a test method replaces the method: the window is the method, never its class (in a test
    class of hundreds of methods, each marker cost 0.8 s of codegen)."""
    source = textwrap.dedent("""\
        import torch


        class TestOps:
            def test_a(self):
                return 1

            def test_b(self):
                return torch.ones(2).cuda()
        """)
    module, statements = _statements(source)
    method = module.body[1].body.body[1]
    marker = cst.Decorator(cst.parse_expression("skip"))
    fix = Fix(Applicability.UNSAFE, "skip", {method: method.with_changes(decorators=[marker])})
    offset, text, new = statements.holding(fix, 8)
    assert text == "\n    def test_b(self):\n        return torch.ones(2).cuda()\n"
    assert new == "\n    @skip\n    def test_b(self):\n        return torch.ones(2).cuda()\n"
    assert source[offset:offset + len(text)] == text
