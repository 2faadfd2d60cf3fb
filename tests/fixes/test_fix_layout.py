"""How a fix lays out what it rewrites: CRLF and tab indentation kept, lines that were split stay
split, a rewritten line over the project's limit is broken as black would break it, and
`--fix` runs until nothing changes."""

from __future__ import annotations

import re
import textwrap

import pytest

from conftest import RULE_DIRS, expected_fix
from devlint import fix_source, lint_source
from devlint.engine import engine
from devlint.contract.diagnostics import Applicability
from devlint.engine.line_length import line_limit
from devlint.rules import RuleEntry
from devlint.rules.base import Fix, RuleVisitor
from devlint.rules.rule import FixSafety, Rule
from devlint.engine.settings import Settings


def _tabs(text: str) -> str:
    return re.sub(r"^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), text, flags=re.MULTILINE)


def _fixed(code: str, limit: int = 88, *, unsafe: bool = True) -> str:
    settings = Settings(line_length=limit, preview=True)  # DEV011 (in preview) fixes host data too
    source = textwrap.dedent(code)
    result = fix_source(source, "example.py", settings, unsafe=unsafe).source
    assert fix_source(result, "example.py", settings, unsafe=unsafe).source == result, "a second run changed it"
    return result


def _check(before: str, after: str, limit: int = 88) -> None:
    assert _fixed(before, limit) == textwrap.dedent(after)


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_crlf_fixture_fixes_to_crlf_fixed(rule_dir):
    bad = (rule_dir / "bad.py").read_text().replace("\n", "\r\n")
    expected = expected_fix(rule_dir, preview=True).replace("\n", "\r\n")
    assert fix_source(bad, str(rule_dir / "bad.py"), Settings(preview=True), unsafe=True).source == expected


@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_tab_indented_fixture_fixes_to_tab_indented_fixed(rule_dir):
    bad = _tabs((rule_dir / "bad.py").read_text())
    expected = _tabs(expected_fix(rule_dir, preview=True))
    assert fix_source(bad, str(rule_dir / "bad.py"), Settings(preview=True), unsafe=True).source == expected


# --- a new keyword in an argument list laid out over several lines ---------------------------


def test_new_keyword_goes_below_its_siblings_keeping_the_trailing_comma():
    _check(
        """
        import torch
        state = torch.load(
            path,
            weights_only=True,
        )
        """,
        """
        import torch
        state = torch.load(
            path,
            weights_only=True,
            map_location="cpu",
        )
        """,
    )


def test_new_keyword_without_trailing_comma_adds_none():
    _check(
        """
        import torch
        state = torch.load(
            path,
            weights_only=True
        )
        """,
        """
        import torch
        state = torch.load(
            path,
            weights_only=True,
            map_location="cpu"
        )
        """,
    )


def test_comment_after_the_last_argument_stays_on_its_line():
    _check(
        """
        import torch
        state = torch.load(
            path,
            weights_only=True  # trusted
        )
        other = torch.load(
            path,  # the file
        )
        """,
        """
        import torch
        state = torch.load(
            path,
            weights_only=True,  # trusted
            map_location="cpu"
        )
        other = torch.load(
            path,  # the file
            map_location="cpu",
        )
        """,
    )


def test_arguments_sharing_a_line_take_the_new_one_on_that_line():
    _check(
        """
        import torch
        state = torch.load(
            path, weights_only=True
        )
        """,
        """
        import torch
        state = torch.load(
            path, weights_only=True, map_location="cpu"
        )
        """,
    )


def test_shared_argument_line_over_the_limit_becomes_one_argument_per_line():
    _check(
        """
        import torch
        state = torch.load(
            checkpoint_path, weights_only=True
        )
        """,
        """
        import torch
        state = torch.load(
            checkpoint_path,
            weights_only=True,
            map_location="cpu",
        )
        """,
        limit=40,
    )


def test_move_split_over_lines_is_not_joined_onto_one_line():
    _check(
        """
        import torch
        def f(device):
            x = torch.zeros(4).to(
                device
            )
            return x
        """,
        """
        import torch
        def f(device):
            x = torch.zeros(
                4,
                device=device,
            )
            return x
        """,
    )


def test_multi_line_move_assigned_back_keeps_its_lines():
    _check(
        """
        import torch
        def f(device):
            x = torch.ones(3)
            y = x * 2
            y.to(
                device
            )
            return y
        """,
        """
        import torch
        def f(device):
            x = torch.ones(3)
            y = x * 2
            y = y.to(
                device
            )
            return y
        """,
    )


# --- a rewritten line over the limit ---------------------------------------------------------


def test_assignment_over_the_limit_puts_the_arguments_on_one_indented_line():
    _check(
        """
        import torch
        def f(x, device):
            noise = torch.randn(x.shape[0], x.shape[1], x.shape[2]).to(device)
            return noise
        """,
        """
        import torch
        def f(x, device):
            noise = torch.randn(
                x.shape[0], x.shape[1], x.shape[2], device=device
            )
            return noise
        """,
        limit=64,
    )


def test_assignment_over_the_limit_is_broken_and_a_trailing_comment_follows_the_paren():
    _check(
        """
        import torch
        def f(checkpoint_directory):
            state = torch.load(os.path.join(checkpoint_directory, "model.pt"))  # trusted
            return state["model"]
        """,
        """
        import torch
        def f(checkpoint_directory):
            state = torch.load(
                os.path.join(checkpoint_directory, "model.pt"),
                map_location="cpu",
            )  # trusted
            return state["model"]
        """,
        limit=72,
    )


def test_chained_call_after_the_broken_one_stays_on_the_closing_line():
    _check(
        """
        import torch
        def f(x, device):
            mask = torch.ones(x.shape[0], x.shape[1], dtype=torch.bool).to(device).float()
            return mask
        """,
        """
        import torch
        def f(x, device):
            mask = torch.ones(
                x.shape[0], x.shape[1], dtype=torch.bool, device=device
            ).float()
            return mask
        """,
        limit=72,
    )


def test_nested_call_breaks_every_bracket_around_it_on_that_line():
    _check(
        """
        import torch
        def f(x, device):
            out = torch.cat([x, torch.zeros(x.shape[0], 4, dtype=x.dtype).to(device)], dim=0)
            return out
        """,
        """
        import torch
        def f(x, device):
            out = torch.cat(
                [
                    x,
                    torch.zeros(
                        x.shape[0],
                        4,
                        dtype=x.dtype,
                        device=device,
                    ),
                ],
                dim=0,
            )
            return out
        """,
        limit=72,
    )


def test_single_argument_around_the_broken_call_gets_no_trailing_comma():
    _check(
        """
        import torch
        def f(model, checkpoint_directory):
            model.load_state_dict(torch.load(os.path.join(checkpoint_directory, "model.pt")))
        """,
        """
        import torch
        def f(model, checkpoint_directory):
            model.load_state_dict(
                torch.load(
                    os.path.join(checkpoint_directory, "model.pt"),
                    map_location="cpu",
                )
            )
        """,
        limit=72,
    )


def test_line_under_the_limit_is_left_on_one_line():
    _check(
        """
        import torch
        state = torch.load(path)
        """,
        """
        import torch
        state = torch.load(path, map_location="cpu")
        """,
        limit=44,
    )


def test_no_fix_where_the_only_layout_black_would_write_wraps_the_expression():
    code = """
        import torch
        def f(checkpoint_directory, default):
            return torch.load(os.path.join(checkpoint_directory, "model.pt")) or default
        """
    assert _fixed(code, limit=72) == textwrap.dedent(code)
    settings = Settings(line_length=72, preview=True)  # DEV004 is in preview: named
    remaining = fix_source(textwrap.dedent(code), "example.py", settings, unsafe=True).remaining
    assert [d.code for d in remaining] == ["DEV004"]


def test_crlf_line_breaks_in_a_broken_call():
    source = 'import torch\r\nstate = torch.load(checkpoint_path)\r\n'
    result = fix_source(source, "example.py", Settings(line_length=40, preview=True), unsafe=True).source
    assert result == 'import torch\r\nstate = torch.load(\r\n    checkpoint_path, map_location="cpu"\r\n)\r\n'


# --- the fixed output of a black-formatted file stays black-formatted ------------------------

BLACK_FORMATTED = [
    """
    def f(x, device):
        noise_tensor_for_the_model = torch.randn(x.shape[0], x.shape[1], x.shape[2]).to(device)
        return noise_tensor_for_the_model
    """,
    """
    def f(x, device):
        out = torch.cat([x, torch.zeros(x.shape[0], x.shape[1], dtype=x.dtype).to(device)], dim=0)
        return out
    """,
    """
    def f(path, model):
        model.load_state_dict(torch.load(os.path.join(checkpoint_directory, "weights.pth")))
        return torch.jit.load(path), torch.load(path, map_location="cuda")
    """,
    """
    def f(x, device):
        mask = torch.ones(
            x.shape[0], x.shape[1], x.shape[2], x.shape[3], x.shape[4], dtype=torch.bool
        ).to(device)
        return mask
    """,
    """
    def f(x, device):
        y = x.new_zeros(3)
        x.to(device_of_the_model_that_has_a_long_long_long_long_long_long_long_long_name)
        return x, y
    """,
]


@pytest.mark.parametrize("index", range(len(BLACK_FORMATTED)))
def test_fixed_black_formatted_file_stays_black_formatted(index):
    black = pytest.importorskip("black")
    mode = black.Mode(line_length=88)
    source = black.format_str("import os\n\nimport torch\n" + textwrap.dedent(BLACK_FORMATTED[index]), mode=mode)
    settings = Settings(line_length=88, preview=True)  # DEV004, in preview, named: it fixes the third
    fixed = fix_source(source, "example.py", settings, unsafe=True).source
    assert fixed != source
    assert black.format_str(fixed, mode=mode) == fixed


def _black_keeps(fixed: str, limit: int) -> None:
    """black (where the test environment has it) writes `fixed` as it is: the fix's layout is black's."""
    try:
        import black
    except ImportError:
        return
    assert black.format_str(fixed, mode=black.Mode(line_length=limit)) == fixed


def test_overflowing_fix_hugs_its_arguments_on_one_indented_line_as_black_does():
    before = "import torch\n\n\ndef f(x, device):\n    noise = torch.randn(x.shape[0], x.shape[1]).to(device)\n"
    after = (
        "import torch\n\n\ndef f(x, device):\n"
        "    noise = torch.randn(\n"
        "        x.shape[0], x.shape[1], device=device\n"
        "    )\n"
    )
    fixed = _fixed(before, limit=50)
    assert fixed == after
    _black_keeps(fixed, 50)


def test_arguments_too_long_for_one_indented_line_go_one_per_line_with_a_trailing_comma():
    before = "import torch\n\n\ndef f(x, device):\n    noise = torch.randn(x.shape[0], x.shape[1]).to(device)\n"
    after = (
        "import torch\n\n\ndef f(x, device):\n"
        "    noise = torch.randn(\n"
        "        x.shape[0],\n"
        "        x.shape[1],\n"
        "        device=device,\n"
        "    )\n"
    )
    fixed = _fixed(before, limit=40)
    assert fixed == after
    _black_keeps(fixed, 40)


# --- the line limit a fix reads ---------------------------------------------------------------


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("pyproject.toml", "[tool.ruff]\nline-length = 100\n", 100),
        ("pyproject.toml", "[tool.black]\nline-length = 110\n", 110),
        ("pyproject.toml", "[tool.ruff]\nline-length = 100\n[tool.black]\nline-length = 110\n", 100),
        ("pyproject.toml", "[project]\nname = 'x'\n", 88),
        ("ruff.toml", "line-length = 79\n", 79),
        (".ruff.toml", "line-length = 99\n", 99),
        ("setup.cfg", "[flake8]\nmax-line-length = 120\n", 120),
        ("tox.ini", "[flake8]\nmax_line_length = 101\n", 101),
        (".flake8", "[flake8]\nmax-line-length = 95\n", 95),
        ("pyproject.toml", "not toml [", 88),
    ],
)
def test_line_limit_is_read_from_the_formatter_configuration(tmp_path, name, text, expected):
    (tmp_path / name).write_text(text)
    module = tmp_path / "model.py"
    module.write_text("")
    assert line_limit(None, str(module)) == expected


def test_nearest_configuration_wins_and_devlint_setting_overrides(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 120\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "ruff.toml").write_text("line-length = 72\n")
    module = package / "model.py"
    module.write_text("")
    other = tmp_path / "other.py"
    other.write_text("")
    assert line_limit(None, str(module)) == 72
    assert line_limit(None, str(other)) == 120
    assert line_limit(60, str(module)) == 60
    assert line_limit(None, "<string>") == 88


def test_fix_of_a_file_uses_the_limit_beside_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 40\n")
    module = tmp_path / "model.py"
    source = "import torch\nstate = torch.load(checkpoint_path)\n"
    module.write_text(source)
    result = fix_source(source, str(module), Settings(preview=True), unsafe=True).source
    assert result == 'import torch\nstate = torch.load(\n    checkpoint_path, map_location="cpu"\n)\n'


# --- --fix runs until nothing changes ---------------------------------------------------------


def test_discarded_move_after_a_factory_ends_as_the_factory_on_the_device():
    # DEV001's fix (`x = x.to(device)`) makes DEV002's two-statement pair; one run fixes both
    source = textwrap.dedent(
        """\
        import torch
        def f_step(device):
            x = torch.zeros(4, 4)
            x.to(device)
            return x
        """
    )
    result = fix_source(source, "example.py")
    assert result.source == textwrap.dedent(
        """\
        import torch
        def f_step(device):
            x = torch.zeros(4, 4, device=device)
            return x
        """
    )
    assert result.fixed == {"DEV001": 1, "DEV002": 1}
    assert result.remaining == []
    assert result.converged


_STUB = Rule(code="DEV900", name="stub", summary="s", why="w", example="e", instead="i",
             fix_safety=FixSafety.SAFE, fix="f", tokens=())


class _Step(RuleVisitor):
    """`step(n)` -> `step(n + 1)` while n < 3: each fix makes the next report (a chain of three);
    `flip(a)` <-> `flip(b)` undo each other; `grow(n)` never stops."""

    rule = _STUB
    needs_torch_import = False

    def visit_Call(self, node):  # type: ignore[no-untyped-def]
        import libcst as cst

        if not isinstance(node.func, cst.Name) or not node.args:
            return
        value = node.args[0].value
        name = node.func.value
        if name in ("step", "grow") and isinstance(value, cst.Integer):
            n = int(value.value)
            if name == "grow" or n < 3:
                new = node.with_changes(args=[node.args[0].with_changes(value=cst.Integer(str(n + 1)))])
                self.report(node, "step", Fix(Applicability.SAFE, "step", {node: new}))
        elif name == "flip" and isinstance(value, cst.Name):
            other = "b" if value.value == "a" else "a"
            new = node.with_changes(args=[node.args[0].with_changes(value=cst.Name(other))])
            self.report(node, "flip", Fix(Applicability.SAFE, "flip", {node: new}))


@pytest.fixture
def stub_rule(monkeypatch):
    monkeypatch.setattr(engine, "enabled_rules", lambda settings, path: [RuleEntry(_STUB, __name__)])


def test_fix_runs_again_while_a_fix_makes_another_report(stub_rule):
    result = fix_source("step(0)\n", "example.py")
    assert result.source == "step(3)\n"
    assert result.fixed == {"DEV900": 3}  # three rounds, one fix each
    assert result.converged and result.remaining == []


def test_fixes_that_undo_each_other_stop_and_say_so(stub_rule):
    result = fix_source("flip(a)\n", "example.py")
    assert result.source == "flip(a)\n"
    assert not result.converged


def test_fixes_that_never_settle_stop_after_the_bound(stub_rule, monkeypatch):
    monkeypatch.setattr(engine, "MAX_FIX_PASSES", 5)
    result = fix_source("grow(0)\n", "example.py")
    assert result.source == "grow(5)\n"
    assert result.fixed == {"DEV900": 5}
    assert not result.converged


# --- breaking a line never changes what it means ----------------------------------------------


def test_parenthesised_expression_gets_no_trailing_comma():
    # `(a - b,)` would be a tuple: only call arguments and displays take the magic comma
    result = _fixed(
        """
        import torch
        def f(pos, num_positive, num_total, device):
            labels = torch.tensor([pos] * (num_positive - num_total)).to(device)
            return labels
        """,
        limit=40,
    )
    assert "[pos] * (num_positive - num_total)," in result  # the call's comma, not the parentheses'
    assert "num_total,\n" not in result


def test_single_subscript_around_the_broken_call_gets_no_trailing_comma():
    _check(
        """
        import torch
        def f(x, device):
            y = x[torch.arange(number_of_rows_in_the_batch).to(device)]
            return y
        """,
        """
        import torch
        def f(x, device):
            y = x[
                torch.arange(
                    number_of_rows_in_the_batch,
                    device=device,
                )
            ]
            return y
        """,
        limit=60,
    )


def test_no_fix_where_an_operator_follows_the_call_inside_brackets():
    code = """
        import torch
        def f(labels, num_positive, num_total, device):
            labels.append(torch.zeros(num_positive + num_total).to(device) - 1)
        """
    assert _fixed(code, limit=60) == textwrap.dedent(code)


@pytest.mark.parametrize(
    "line",
    [
        "    return d if isinstance(d, torch.Tensor) else torch.tensor(values_of_the_batch).cuda()",
        "    if isinstance(d, int): d = torch.tensor(values_of_the_batch_and_more).cuda()",
    ],
    ids=["conditional-expression", "compound-statement-on-one-line"],
)
def test_no_fix_where_black_would_split_before_the_call(line):
    code = f"import torch\ndef f(d, values_of_the_batch, values_of_the_batch_and_more):\n{line}\n"
    settings = Settings(line_length=72, extend_select=("DEV011",), preview=True)  # `torch.tensor(data).cuda()`: host data
    assert "DEV011" in [d.code for d in lint_source(code, "example.py", settings)]
    assert fix_source(code, "example.py", settings, unsafe=True).source == code


def test_parentheses_around_a_right_hand_side_go_once_the_call_is_broken():
    # black drops the parentheses it put around a right-hand side that did not fit, once the call
    # in it is broken over lines
    _check(
        """
        import torch
        def f(x, device):
            mask = (
                torch.ones(x.shape[0], x.shape[1], x.shape[2], dtype=torch.bool).to(device).float()
            )
            return mask
        """,
        """
        import torch
        def f(x, device):
            mask = torch.ones(
                x.shape[0],
                x.shape[1],
                x.shape[2],
                dtype=torch.bool,
                device=device,
            ).float()
            return mask
        """,
        limit=80,
    )
