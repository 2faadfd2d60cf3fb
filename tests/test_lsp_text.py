"""The server's text arithmetic: columns in the client's encoding, whole-line edits. (The `# noqa`
edit is the engine's, shared with `--add-noqa`: tests/test_noqa.py.)"""

from __future__ import annotations

import pytest

from devlint.frontends.lsp.text import UTF8, UTF16, UTF32, Lines, changed_lines

LINE = 'x = "😀漢"; y = torch.load(p)'  # an astral emoji, then a CJK character, before the report


@pytest.mark.parametrize("encoding, emoji, cjk", [(UTF16, 2, 1), (UTF8, 4, 3), (UTF32, 1, 1)])
def test_columns_count_units_of_the_negotiated_encoding(encoding, emoji, cjk):
    lines = Lines(LINE, encoding)
    column = LINE.index("torch")
    assert lines.to_units(0, column) == column - 2 + emoji + cjk
    assert lines.to_characters(0, column - 2 + emoji + cjk) == column


def test_columns_of_an_ascii_line_are_characters_in_every_encoding():
    assert {Lines("import torch", e).to_units(0, 7) for e in (UTF8, UTF16, UTF32)} == {7}


def test_the_end_of_a_text_is_after_its_last_character():
    assert Lines("a\n😀", UTF16).end() == (1, 2)


@pytest.mark.parametrize("old, new, expected", [
    ("a\nb\nc", "a\nX\nc", (1, 2, "X\n")),
    ("a\n", "a\nb\n", (1, 2, "b\n")),
    ("a\nb\n", "a\n", (1, 3, "")),  # to the end of the text
    ("a", "ab", (0, 1, "ab")),
    ("same\n", "same\n", None),
])
def test_changed_lines_is_the_smallest_whole_line_edit(old, new, expected):
    assert changed_lines(old, new) == expected
    if expected is not None:
        first, after, replacement = expected
        lines = old.split("\n")
        kept_before = "".join(line + "\n" for line in lines[:first])
        kept_after = "\n".join(lines[after:]) if after < len(lines) else ""
        assert kept_before + replacement + kept_after == new
