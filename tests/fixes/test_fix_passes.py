"""`--fix` checks each pass's fixed text by parsing it (Python's parser, then LibCST's); the next pass's analysis
takes those trees instead of parsing the same text again, where no data stand-in changes the text it parses."""

from __future__ import annotations

import textwrap

import pytest

from devlint.engine import cst_stage, engine, fix_edits, narrowed_parse
from devlint.engine.settings import Settings

SOURCE = textwrap.dedent('''\
    import torch


    def make(device):
        x = torch.zeros(3).to(device)
        y = torch.ones(2).to(device)
        return x, y, torch.load("weights.pt")  # DEV004 (preview), no fix: the fixed text is checked again
    ''')


def _fixed(source: str, settings: Settings) -> tuple[str, dict, list]:
    result = engine.fix_text(source, "model.py", settings, unsafe=True)
    return result.source, result.fixed, [(d.line, d.code) for d in result.remaining]


@pytest.fixture
def parses(monkeypatch):
    """The texts LibCST parsed, in order."""
    parsed: list[str] = []
    real = cst_stage.parse_in_pieces

    def counting(text, tree, *args):
        parsed.append(text)
        return real(text, tree, *args)

    for stage in (cst_stage, narrowed_parse, fix_edits):  # a check's parse, of its statements, of a fix's text
        monkeypatch.setattr(stage, "parse_in_pieces", counting)
    return parsed


def test_the_next_pass_takes_the_trees_the_fixed_text_was_checked_with(parses, monkeypatch):
    settings = Settings(preview=True)
    fixed = _fixed(SOURCE, settings)
    assert fixed[1] == {"DEV002": 2} and fixed[2] == [(7, "DEV004")]
    assert parses == [SOURCE, fixed[0]]  # the fixed text once: checking the fixes, not again in the next pass
    parses.clear()
    real_analyze = engine.analyze
    monkeypatch.setattr(engine, "analyze", lambda *args, trees=None, **kwargs: real_analyze(*args, **kwargs))
    assert _fixed(SOURCE, settings) == fixed  # parsing every pass's text afresh gives the same
    assert parses == [SOURCE, fixed[0], fixed[0]]


def test_a_fix_that_adds_import_torch_parses_its_text_again(parses):
    source = "from torch.cuda.amp import GradScaler\n\nscaler = GradScaler()\n"
    fixed = _fixed(source, Settings(target_torch=(2, 4)))
    assert fixed[1] == {"DEV008": 2} and fixed[0].startswith("import torch\n")
    assert parses[-1] == fixed[0] and parses.count(fixed[0]) == 1  # the text with the import is another text


def test_trees_given_for_a_text_that_data_stand_ins_change_are_not_used(monkeypatch):
    import ast

    import libcst as cst

    from devlint.engine import stand_ins
    from test_stand_ins import TABLE

    monkeypatch.setattr(stand_ins, "STAND_INS_FROM_CHARS", 0)  # (tried from 256 KB of text; this one is smaller)

    source = f"import torch\n\nTABLE = [\n{TABLE}]\n\n\ndef make(device):\n    return torch.zeros(3).to(device)\n"
    trees = fix_edits.Trees(ast.parse(source), cst.parse_module(source))
    analysis = engine.analyze(source, "table.py", Settings(), trees=trees)
    assert analysis.text != source and analysis.module is not trees.module  # LibCST parsed the stand-ins' text
    plain = source.replace(f"TABLE = [\n{TABLE}]\n", "")
    trees = fix_edits.Trees(ast.parse(plain), cst.parse_module(plain))
    assert engine.analyze(plain, "plain.py", Settings(), trees=trees).module is trees.module
