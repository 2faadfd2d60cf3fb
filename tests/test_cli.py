"""The `devlint` command's contract: exit codes, selection, noqa, configuration, file discovery."""

from __future__ import annotations

import textwrap

import pytest

from conftest import run_devlint
from devlint.frontends.cli import main
from devlint.frontends.report.page import rule_page

BUGGY = textwrap.dedent("""\
    import torch

    x = torch.zeros(3) if torch.cuda.is_available() else torch.ones(3)
    x.to("cpu")
    state = torch.jit.load("model.pt")
    device = torch.device("cuda")
    """)  # DEV003 and DEV004 named report it: the file checks for CUDA, and loads a scripted module
BUGGY_CODES = ["DEV001", "DEV003", "DEV004"]
NAME_PREVIEW = ("--preview",)  # BUGGY's DEV003 and DEV004 are in preview: off unless named
CLEAN = "import torch\n\nx = torch.zeros(3, device='cpu')\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project directory, made the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *args: str) -> tuple[int, list[str], str]:
    """Run devlint in-process: (exit code, codes reported in order, stderr)."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, [line.split(": ", 1)[1].split()[0] for line in out.splitlines()], err


def test_clean_file_exits_0(project, capsys):
    (project / "ok.py").write_text(CLEAN)
    assert check(capsys, "ok.py")[:2] == (0, [])


def test_reports_exit_1_sorted_by_position(project, capsys):
    (project / "bad.py").write_text(BUGGY)
    code, codes, err = check(capsys, *NAME_PREVIEW, "bad.py")
    assert (code, codes) == (1, ["DEV001", "DEV004", "DEV003"])
    assert "Found 3 reports" in err


def test_text_lines_have_flake8_form_and_fix_marker(project, capsys):
    (project / "bad.py").write_text(BUGGY)
    main(["bad.py"])
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("bad.py:4:1: DEV001 [*] `x.to(...)` result is discarded")


def test_default_path_is_the_current_directory(project, capsys):
    (project / "bad.py").write_text(BUGGY)
    assert check(capsys)[0] == 1


def test_no_default_path_with_no_paths_checks_nothing(project, capsys):
    (project / "bad.py").write_text(BUGGY)
    code, codes, err = check(capsys, "--no-default-path")
    assert (code, codes) == (0, [])
    assert "0 files checked" in err


@pytest.mark.parametrize("args", [
    ["--no-such-flag"],
    ["--select", "XYZ1"],
    ["--ignore", "DEV7"],
    ["--output-format", "xml"],
    ["missing.py"],
])
def test_usage_errors_exit_2_with_one_line(project, capsys, args):
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("devlint: error: ") and err.count("\n") == 1


def test_exit_zero_keeps_the_reports(project, capsys):
    (project / "bad.py").write_text(BUGGY)
    code, codes, _ = check(capsys, "--exit-zero", *NAME_PREVIEW, "bad.py")
    assert (code, codes) == (0, ["DEV001", "DEV004", "DEV003"])


def test_quiet_prints_no_summary(project, capsys):
    (project / "bad.py").write_text(BUGGY)
    code, codes, err = check(capsys, "--quiet", *NAME_PREVIEW, "bad.py")
    assert (code, len(codes), err) == (1, 3, "")


def test_statistics_count_per_code_with_fix_marker(project, capsys):
    (project / "bad.py").write_text(BUGGY + "y = torch.zeros(2)\ny.cuda()\n")
    assert main(["--statistics", "--quiet", "--select", "DEV001,DEV004", "bad.py"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2:] == ["     2  DEV001  [*] discarded-tensor-move", "     1  DEV004      load-without-map-location"]


def test_statistics_print_only_the_counts(project, capsys):
    (project / "bad.py").write_text(BUGGY)
    assert main(["--statistics", "--quiet", *NAME_PREVIEW, "bad.py"]) == 1
    assert capsys.readouterr().out == ("     1  DEV001  [*] discarded-tensor-move\n"
                                       "     1  DEV003      hardcoded-cuda\n"
                                       "     1  DEV004      load-without-map-location\n")


def test_statistics_with_json_are_ruffs_statistics_objects(project, capsys):
    import json

    (project / "bad.py").write_text(BUGGY)
    main(["--statistics", "--output-format", "json", *NAME_PREVIEW, "bad.py"])
    out, err = capsys.readouterr()
    assert json.loads(out)[0] == {"code": "DEV001", "name": "discarded-tensor-move", "count": 1, "fixable": True}
    assert "Found 3 reports" in err


@pytest.mark.parametrize("args, expected", [
    (["--select", "DEV001"], ["DEV001"]),
    (["--select", "DEV00", "--preview"], ["DEV001", "DEV004", "DEV003"]),  # a prefix takes preview rules in preview
    (["--select", "dev001,DEV004"], ["DEV001", "DEV004"]),
    (["--ignore", "DEV001", *NAME_PREVIEW], ["DEV004", "DEV003"]),
    (["--ignore", "DEV"], []),
    (["--ignore", "DEV0", "--extend-select", "DEV003"], ["DEV003"]),  # the more specific entry wins
    (["--select", "DEV001", "--extend-select", "DEV003"], ["DEV001", "DEV003"]),
    (["--select", "DEV00", "--ignore", "DEV00"], []),  # a tie goes to ignore, as in flake8
])
def test_select_ignore_and_extend_select_take_codes_and_prefixes(project, capsys, args, expected):
    (project / "bad.py").write_text(BUGGY)
    assert check(capsys, *args, "bad.py")[1] == expected


@pytest.mark.parametrize("comment, expected", [
    ("  # noqa", ["DEV004", "DEV003"]),
    ("  # noqa: DEV001", ["DEV004", "DEV003"]),
    ("  # NOQA:DEV001,DEV004", ["DEV004", "DEV003"]),
    ("  # noqa: DEV004", ["DEV001", "DEV004", "DEV003"]),  # another code: not suppressed
])
def test_noqa_on_the_reported_line(project, capsys, comment, expected):
    (project / "bad.py").write_text(BUGGY.replace('x.to("cpu")', 'x.to("cpu")' + comment))
    assert check(capsys, *NAME_PREVIEW, "bad.py")[1] == expected


def test_noqa_line_is_not_rewritten_by_fix(project, capsys):
    source = BUGGY.replace('x.to("cpu")', 'x.to("cpu")  # noqa')
    (project / "bad.py").write_text(source)
    main(["--fix", "--select", "DEV001", "bad.py"])
    assert (project / "bad.py").read_text() == source


def test_pyproject_configuration_is_found_from_a_subdirectory(project, capsys):
    (project / "pyproject.toml").write_text('[tool.devlint]\nignore = ["DEV001"]\n'
                                            'preview = true\n')
    (project / "src").mkdir()
    (project / "src" / "bad.py").write_text(BUGGY)
    assert check(capsys, "src/bad.py")[1] == ["DEV004", "DEV003"]


def test_setup_cfg_configuration(project, capsys):
    (project / "setup.cfg").write_text("[devlint]\nselect = DEV003,\n    DEV004\n")
    (project / "bad.py").write_text(BUGGY)
    assert check(capsys, "bad.py")[1] == ["DEV004", "DEV003"]


def test_command_line_flags_win_over_configuration(project, capsys):
    (project / "pyproject.toml").write_text('[tool.devlint]\nselect = ["DEV003"]\n')
    (project / "bad.py").write_text(BUGGY)
    assert check(capsys, "--select", "DEV001", "bad.py")[1] == ["DEV001"]


def test_isolated_ignores_configuration(project, capsys):
    (project / "pyproject.toml").write_text('[tool.devlint]\nselect = ["DEV003"]\n')
    (project / "bad.py").write_text(BUGGY)
    assert len(check(capsys, "--isolated", *NAME_PREVIEW, "bad.py")[1]) == 3


def test_per_file_ignores_from_configuration(project, capsys):
    (project / "pyproject.toml").write_text('[tool.devlint]\npreview = true\n'
                                            'per-file-ignores = { "tests/*" = ["DEV003"] }\n')
    (project / "tests").mkdir()
    (project / "tests" / "bad.py").write_text(BUGGY)
    assert check(capsys, "tests/bad.py")[1] == ["DEV001", "DEV004"]


@pytest.mark.parametrize("name, text, fragment", [
    ("pyproject.toml", '[tool.devlint]\nselct = ["DEV001"]\n', "unknown key 'selct'"),
    ("setup.cfg", "[devlint]\nignor = DEV001\n", "unknown key 'ignor'"),
    ("pyproject.toml", '[tool.devlint]\nselect = ["DEV7"]\n', "unknown code or prefix 'DEV7'"),
    ("pyproject.toml", '[tool.devlint]\nunsafe-fixes = "maybe"\n', "'unsafe-fixes' must be true or false"),
    ("pyproject.toml", "[tool.devlint\n", "not valid TOML"),
])
def test_bad_configuration_exits_2_naming_the_problem(project, capsys, name, text, fragment):
    (project / name).write_text(text)
    (project / "bad.py").write_text(BUGGY)
    code = main(["bad.py"])
    err = capsys.readouterr().err
    assert code == 2
    assert fragment in err and "Traceback" not in err


def test_default_excludes_skip_virtualenvs_and_build_output(project, capsys):
    for directory in (".venv/lib", "build", "node_modules/pkg", "src/__pycache__"):
        (project / directory).mkdir(parents=True)
        (project / directory / "bad.py").write_text(BUGGY)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "src" / "bad.py").write_text(BUGGY)
    main(["."])
    out = capsys.readouterr().out
    assert {line.split(":")[0] for line in out.splitlines()} == {"src/bad.py"}


def test_extend_exclude_from_configuration(project, capsys):
    (project / "setup.cfg").write_text("[devlint]\nextend-exclude = third_party\n")
    (project / "third_party").mkdir()
    (project / "third_party" / "bad.py").write_text(BUGGY)
    assert check(capsys, ".")[:2] == (0, [])


def test_files_named_explicitly_are_checked_even_when_excluded(project, capsys):
    (project / "build").mkdir()
    (project / "build" / "bad.py").write_text(BUGGY)
    assert check(capsys, ".")[0] == 0
    assert check(capsys, "build/bad.py")[0] == 1


def test_rules_lists_code_name_and_fix_availability(capsys):
    from devlint.rules import all_rules

    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in lines] == [[e.rule.code, e.rule.name] for e in all_rules()]
    assert all(f"fix: {e.rule.fix_safety.value}" in line for e, line in zip(all_rules(), lines))


@pytest.mark.parametrize("code", ["DEV004", "dev004"])
def test_rule_prints_the_page(capsys, code):
    from devlint.rules import get_rule

    assert main(["rule", code]) == 0
    assert capsys.readouterr().out == rule_page(get_rule("DEV004"))


@pytest.mark.parametrize("args", [["rule"], ["rule", "DEV777"], ["rules", "extra"]])
def test_rule_subcommand_misuse_exits_2(capsys, args):
    assert main(args) == 2
    assert capsys.readouterr().err.startswith("devlint: error: ")


def test_the_real_command_exits_1_on_reports_and_writes_the_summary_to_stderr(tmp_path):
    (tmp_path / "bad.py").write_text(BUGGY)
    result = run_devlint(*NAME_PREVIEW, "bad.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.count("\n") == 3 and "Found 3 reports" in result.stderr
