"""The reports an editor keeps while a line is half typed (devlint/frontends/lsp/resilient.py)."""

from __future__ import annotations

from devlint.engine.engine import analyze
from devlint.engine.settings import Settings
from devlint.frontends.lsp.resilient import kept_reports

BEFORE = ("import torch\n\n\ndef f(path):\n    return torch.load(path)\n\n\n"
          "def g(path):\n    return torch.load(path)\n\n\ndef h(path):\n    return torch.load(path)\n")


def lines_of(reports):
    return [(d.code, d.line) for d in reports]


def test_statements_before_and_after_the_edit_keep_their_reports_moved_to_where_they_are_now():
    old = analyze(BEFORE, "m.py", Settings(preview=True)).diagnostics  # DEV004, in preview, named
    assert lines_of(old) == [("DEV004", 5), ("DEV004", 9), ("DEV004", 13)]
    new = BEFORE.replace("    return torch.load(path)\n\n\ndef h", "    return torch.load(path\n\n\n\ndef h")
    kept = kept_reports(BEFORE, old, new)
    assert lines_of(kept) == [("DEV004", 5), ("DEV004", 14)]  # g's statement was edited: its report goes
    assert all(d.fix is None for d in kept)


def test_nothing_is_kept_from_a_text_that_did_not_parse():
    assert kept_reports("def f(:\n", [], "def f(:\n  x\n") == []
