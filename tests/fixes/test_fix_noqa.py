"""A line suppressed with `# noqa` / `# noqa: DEVnnn` is never rewritten."""

from __future__ import annotations

import pytest

from fixing import check, unchanged


@pytest.mark.parametrize("comment", ["# noqa", "# noqa: DEV004", "# NOQA:DEV004,DEV001", "# noqa: DEV"])
def test_suppressed_line_is_not_rewritten(comment):
    unchanged(
        f"""
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path))  {comment}
        """
    )


def test_noqa_for_another_code_does_not_protect():
    check(
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path))  # noqa: DEV001
        """,
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path, map_location="cpu"))  # noqa: DEV001
        """,
    )


def test_multiline_statement_with_noqa_on_the_report_line():
    unchanged(
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(  # noqa: DEV004
                path,
            ))
        """
    )


def test_fix_reaching_a_noqa_line_is_not_applied():
    # reported on the first line, but the fix would rewrite the suppressed second line
    unchanged(
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(
                path))  # noqa: DEV004
        """
    )


def test_other_lines_of_the_file_are_still_fixed():
    check(
        """
        import torch
        def f(n, device):
            a = torch.zeros(n).to(device)  # noqa
            b = torch.zeros(n).to(device)
            return a, b
        """,
        """
        import torch
        def f(n, device):
            a = torch.zeros(n).to(device)  # noqa
            b = torch.zeros(n, device=device)
            return a, b
        """,
    )


def test_split_move_whose_second_line_has_noqa_is_not_folded():
    unchanged(
        """
        import torch
        def f(n, device):
            x = torch.zeros(n)
            x = x.to(device)  # noqa: DEV002
            return x
        """
    )
