"""Hostile input: every file a repository can hold gives a report or a one-line message, never a
traceback, and `--fix` keeps every byte it does not mean to change.

Exit codes: 1 when there are reports (syntax errors are reports, DEV999); 2 when a file cannot be
read or decoded (the message names the path and why; the other files are still checked), for a
path that does not exist, and for bad options or configuration."""

from __future__ import annotations

import os

import pytest

from tests.conftest import run_devlint

TORCH_BUG = "import torch\nstate = torch.load('model.pt')\n"  # DEV004 on line 2 (an unsafe fix)


def check(*args: str, cwd):
    """`devlint --isolated` with DEV004, a preview rule, named: TORCH_BUG is the report these tests expect."""
    result = run_devlint("--isolated", "--preview", *args, cwd=cwd)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def write(path, data: bytes):
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------- syntax errors


def test_syntax_error_is_dev999_at_its_position_and_the_run_goes_on(tmp_path):
    write(tmp_path / "a_broken.py", b"import torch\nx = (1,\ny = 2\nx.to(d)\ndef f(:\n")
    write(tmp_path / "b_fine.py", TORCH_BUG.encode())
    result = check(".", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("a_broken.py:") and " DEV999 syntax error: " in lines[0]
    line, col = lines[0].split(":")[1:3]
    assert (int(line), int(col)) >= (2, 1)
    assert lines[1].startswith("b_fine.py:2:9: DEV004 ")


NO_KEYWORD_BROKEN = b"def f(:\n    return 1\n"  # no rule's keyword: the prefilter leaves no rule to run


def test_a_file_no_rule_can_report_on_is_still_dev999_where_python_rejects_it(tmp_path):
    write(tmp_path / "broken.py", NO_KEYWORD_BROKEN)
    write(tmp_path / "fine.py", b"def f(x):\n    return x\n")
    result = check(".", cwd=tmp_path)
    assert result.stdout.splitlines() == ["broken.py:1:7: DEV999 syntax error: invalid syntax"]
    assert result.returncode == 1 and "All checks passed" not in result.stderr + result.stdout


def test_flake8_reports_its_own_e999_for_such_a_file_and_the_plugin_adds_nothing(tmp_path):
    import subprocess
    import sys

    from tests.conftest import ROOT

    write(tmp_path / "broken.py", NO_KEYWORD_BROKEN)
    result = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "DEV,E999", "broken.py"],
                            cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert [line.split(" ", 2)[1] for line in result.stdout.splitlines()] == ["E999"], result.stdout + result.stderr
    assert result.returncode == 1


def test_syntax_error_file_is_left_alone_by_fix(tmp_path):
    data = b"import torch\nx = torch.zeros(3).cuda(\n"
    path = write(tmp_path / "broken.py", data)
    result = check("--fix", "--unsafe-fixes", "broken.py", cwd=tmp_path)
    assert result.returncode == 1 and "DEV999" in result.stdout
    assert path.read_bytes() == data


# ---------------------------------------------------------------- encodings and line endings


def test_invalid_utf8_names_the_path_and_byte_and_other_files_are_checked(tmp_path):
    write(tmp_path / "a.py", b"import torch\nname = '\xff\xfe'\n")
    write(tmp_path / "b.py", TORCH_BUG.encode())
    result = check(".", cwd=tmp_path)
    assert result.returncode == 2
    assert "devlint: error: a.py: cannot decode file as utf-8 at byte 21: invalid start byte" in result.stderr
    assert "b.py:2:9: DEV004" in result.stdout
    assert "1 file could not be checked" in result.stderr


def test_coding_cookie_is_honoured_and_fix_writes_latin1_back(tmp_path):
    data = "# -*- coding: latin-1 -*-\n# café\n".encode("latin-1") + TORCH_BUG.encode()
    path = write(tmp_path / "latin.py", data)
    assert check("latin.py", cwd=tmp_path).stdout.startswith("latin.py:4:9: DEV004")
    result = check("--fix", "--unsafe-fixes", "latin.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    fixed = path.read_bytes()
    assert fixed.startswith("# -*- coding: latin-1 -*-\n# café\n".encode("latin-1"))
    assert b"map_location" in fixed
    fixed.decode("latin-1")
    with pytest.raises(UnicodeDecodeError):
        fixed.decode("utf-8")


def test_unknown_coding_cookie_is_a_clear_error(tmp_path):
    write(tmp_path / "odd.py", b"# coding: no-such-codec\nimport torch\n")
    result = check("odd.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "devlint: error: odd.py: cannot decode file: unknown encoding: no-such-codec" in result.stderr


@pytest.mark.parametrize("name, data", [
    ("bom", b"\xef\xbb\xbf" + TORCH_BUG.encode()),
    ("crlf", TORCH_BUG.replace("\n", "\r\n").encode()),
    ("mixed", b"import torch\r\nx = 1\nstate = torch.load('m.pt')\r\ny = 2\rz = 3\n"),
    ("tabs_and_form_feed", b"import torch\n\x0c\nif True:\n\tstate = torch.load('m.pt')\n\tx = 1\n"),
])
def test_fix_changes_only_the_fixed_statement_byte_for_byte(tmp_path, name, data):
    path = write(tmp_path / f"{name}.py", data)
    result = check("--fix", "--unsafe-fixes", path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = data.replace(b"torch.load('m.pt')", b"torch.load('m.pt', map_location=\"cpu\")").replace(
        b"torch.load('model.pt')", b"torch.load('model.pt', map_location=\"cpu\")")
    assert path.read_bytes() == expected


def test_bom_file_is_linted_at_the_right_column(tmp_path):
    write(tmp_path / "bom.py", b"\xef\xbb\xbf" + TORCH_BUG.encode())
    assert check("bom.py", cwd=tmp_path).stdout.startswith("bom.py:2:9: DEV004")


@pytest.mark.parametrize("data", [b"", b"\n", b"\xef\xbb\xbf", b"   \n\t\n", b"\x0c"])
def test_empty_and_blank_files_pass(tmp_path, data):
    write(tmp_path / "empty.py", data)
    result = check("empty.py", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == ""


# ---------------------------------------------------------------- size and depth


@pytest.mark.skipif(not os.environ.get("DEVLINT_SLOW_TESTS"), reason="minutes on a busy machine; DEVLINT_SLOW_TESTS=1")
def test_hundred_thousand_line_file(tmp_path):
    body = "".join(f"x{i} = {i}\n" for i in range(100_000))
    write(tmp_path / "big.py", ("import torch\n" + body + "state = torch.load('m.pt')\n").encode())
    result = check("big.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [line for line in result.stdout.splitlines() if "DEV004" in line]
    assert result.stdout.startswith("big.py:100002:9: DEV004")


@pytest.mark.parametrize("expression", [
    "not " * 1000 + "flag",  # 1,000-deep unary chain: valid Python, deep for LibCST
    "0" + " + 1" * 1000,  # 1,000-deep binary operator tree
    "(" * 200 + "1" + ")" * 200,  # the deepest bracket nesting CPython accepts
])
def test_deep_valid_code_is_analysed_not_reported_as_too_deep(tmp_path, expression):
    write(tmp_path / "deep.py", (TORCH_BUG + f"value = {expression}\n").encode())
    result = check("deep.py", cwd=tmp_path)
    assert result.stdout.splitlines() == [result.stdout.splitlines()[0]]
    assert result.stdout.startswith("deep.py:2:9: DEV004"), result.stdout
    assert result.returncode == 1


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("(", ")"), ("{", "}")])
def test_thousand_deep_brackets_are_cpythons_syntax_error(tmp_path, opening, closing):
    write(tmp_path / "deep.py", (TORCH_BUG + "value = " + opening * 1000 + closing * 1000 + "\n").encode())
    result = check("deep.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("deep.py:3:209: DEV999 syntax error: too many nested parentheses")


def test_analysis_that_exhausts_even_the_large_stack_is_dev998_at_1_1_never_dev999(monkeypatch):
    from devlint.engine import cst_stage, engine
    from devlint.engine.settings import Settings

    def bottomless(*args, **kwargs):  # stands in for code deeper than any stack
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(cst_stage, "check", bottomless)
    source = TORCH_BUG + "value = flag\n"
    settings = Settings(preview=True)  # TORCH_BUG's DEV004 is in preview: name it
    [report] = engine.analyze(source, "deep.py", settings).diagnostics
    assert (report.line, report.col, report.code) == (1, 1, "DEV998")
    assert report.message.startswith("internal error: this file is nested too deeply for devlint to analyse")
    assert engine.fix_text(source, "deep.py", settings, unsafe=True).source == source


@pytest.mark.parametrize("terms", [100, 1_000, 2_900])
def test_long_sums_python_parses_are_analysed(tmp_path, terms):
    total = " + ".join(f"x{i}" for i in range(terms))
    write(tmp_path / "long.py", (TORCH_BUG + f"total = {total}\n").encode())
    result = check("long.py", cwd=tmp_path)
    assert result.stdout.splitlines() == ["long.py:2:9: DEV004 " + result.stdout.split(" DEV004 ")[1].splitlines()[0]]
    assert result.returncode == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("terms", [3_000, 5_000])
def test_sums_too_long_for_pythons_parser_are_dev999_at_their_line(tmp_path, terms):
    total = " + ".join(f"x{i}" for i in range(terms))
    write(tmp_path / "long.py", (TORCH_BUG + f"total = {total}\n").encode())
    result = check("long.py", cwd=tmp_path)
    assert result.stdout.startswith("long.py:3:1: DEV999 syntax error: too long or too deeply nested for Python's parser")
    assert result.returncode == 1 and "All checks passed" not in result.stderr and "Traceback" not in result.stderr


def test_syntax_error_is_pythons_line_column_and_message(tmp_path):
    write(tmp_path / "broken.py", b"import torch\ndef f(:\n    return torch.load('m.pt')\n")
    result = check("broken.py", cwd=tmp_path)
    assert result.stdout.splitlines() == ["broken.py:2:7: DEV999 syntax error: invalid syntax"]


def test_very_long_line(tmp_path):
    line = "state = torch.load('m.pt'); data = [" + ", ".join("0" for i in range(50_000)) + "]\n"
    write(tmp_path / "long.py", ("import torch\n" + line).encode())
    result = check("long.py", cwd=tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("long.py:2:9: DEV004")


# ---------------------------------------------------------------- not Python at all


@pytest.mark.parametrize("data", [b"import torch\x00\n", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4])
def test_nul_bytes_and_binary_content_are_a_clear_error(tmp_path, data):
    write(tmp_path / "blob.py", data)
    result = check("blob.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "devlint: error: blob.py: file contains NUL bytes; not Python source" in result.stderr


def test_binary_without_nul_bytes_is_a_decoding_error(tmp_path):
    write(tmp_path / "blob.py", bytes(range(0x80, 0x100)))
    result = check("blob.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "devlint: error: blob.py: cannot decode file: invalid or missing encoding declaration" in result.stderr


# ---------------------------------------------------------------- the file system


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads a chmod 000 file anyway")
def test_unreadable_file_for_real(tmp_path):
    path = write(tmp_path / "secret.py", TORCH_BUG.encode())
    path.chmod(0)
    try:
        result = check("secret.py", cwd=tmp_path)
    finally:
        path.chmod(0o644)
    assert result.returncode == 2
    assert "devlint: error: secret.py: cannot read file: permission denied" in result.stderr


def test_unreadable_file_is_reported_and_the_others_checked(tmp_path, monkeypatch, capsys):
    """As root a chmod 000 file stays readable, so the refusal is simulated where devlint opens it."""
    import builtins

    from devlint.frontends import cli

    write(tmp_path / "a.py", TORCH_BUG.encode())
    write(tmp_path / "b.py", TORCH_BUG.encode())
    real_open = builtins.open

    def refusing_open(file, *args, **kwargs):
        if os.path.basename(str(file)) == "a.py":
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(builtins, "open", refusing_open)
    code = cli.main(["--isolated", "--preview", "."])
    out, err = capsys.readouterr()
    assert code == 2
    assert "devlint: error: a.py: cannot read file: permission denied" in err
    assert out.startswith("b.py:2:9: DEV004")


def test_directory_named_like_a_python_file(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    write(tmp_path / "pkg.py" / "inner.py", TORCH_BUG.encode())
    result = check(".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith("pkg.py/inner.py:2:9: DEV004")


def test_directory_named_like_a_python_file_reached_by_a_link_to_it(tmp_path):
    from devlint.sources.files import SourceError, read_source

    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "alias.py")
    with pytest.raises(SourceError, match="alias.py: is a directory, not a Python file"):
        read_source(str(tmp_path / "alias.py"))


def test_broken_and_looping_symlinks_are_reported_and_the_run_goes_on(tmp_path):
    os.symlink("nowhere.py", tmp_path / "broken.py")
    os.symlink("loop.py", tmp_path / "loop.py")
    write(tmp_path / "z.py", TORCH_BUG.encode())
    result = check(".", cwd=tmp_path)
    assert result.returncode == 2
    assert "devlint: error: broken.py: file not found (deleted, or a broken symbolic link)" in result.stderr
    assert "devlint: error: loop.py: cannot read file: Too many levels of symbolic links" in result.stderr
    assert result.stdout.startswith("z.py:2:9: DEV004")


def test_file_deleted_between_discovery_and_reading(tmp_path, monkeypatch, capsys):
    from devlint.frontends import cli
    from devlint.runner import discovery

    write(tmp_path / "gone.py", TORCH_BUG.encode())
    write(tmp_path / "kept.py", TORCH_BUG.encode())
    real_discover = discovery.discover

    def discover_then_delete(paths, settings, skipped=None):
        found = list(real_discover(paths, settings, skipped))
        os.unlink(tmp_path / "gone.py")
        return iter(found)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(discovery, "discover", discover_then_delete)
    code = cli.main(["--isolated", "--preview", "."])
    out, err = capsys.readouterr()
    assert code == 2
    assert "devlint: error: gone.py: file not found (deleted, or a broken symbolic link)" in err
    assert out.startswith("kept.py:2:9: DEV004")


def test_path_that_does_not_exist(tmp_path):
    result = check("missing.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == "devlint: error: missing.py: no such file or directory"


# ---------------------------------------------------------------- options and configuration


def test_unknown_code_in_select_lists_the_valid_ones(tmp_path):
    result = check("--select", "DEV9x", ".", cwd=tmp_path)
    assert result.returncode == 2
    from devlint.rules import rule_codes

    # every rule's code, then the engine's: over max-file-size, internal error, syntax error
    valid = ", ".join((*rule_codes(), "DEV997", "DEV998", "DEV999"))
    assert "DEV001, DEV002" in valid
    assert result.stderr.strip() == f"devlint: error: --select: unknown code or prefix 'DEV9x'; valid codes: {valid}"


@pytest.mark.parametrize("config, message", [
    ("[tool.devlint]\nselct = ['DEV001']\n", "unknown key 'selct' in devlint configuration (did you mean 'select'?)"),
    ("[tool.devlint]\nselect = ['XYZ']\n", "unknown code or prefix 'XYZ'"),
    ("[tool.devlint]\nselect = 3\n", "pyproject.toml"),
    ("[tool.devlint]\nunsafe-fixes = 'yes please'\n", "unsafe-fixes"),
    ("[tool.devlint\nselect = ['DEV001']\n", "not valid TOML"),
    ("[tool]\ndevlint = 1\n", "[tool.devlint] must be a table"),
])
def test_bad_configuration_is_one_line_and_exit_2(tmp_path, config, message):
    write(tmp_path / "pyproject.toml", config.encode())
    write(tmp_path / "a.py", TORCH_BUG.encode())
    result = run_devlint("a.py", cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("devlint: error: ") and message in result.stderr


def test_bad_setup_cfg(tmp_path):
    write(tmp_path / "setup.cfg", b"[devlint]\nignore = DEV0O1\n")
    result = run_devlint(".", cwd=tmp_path)
    assert result.returncode == 2
    assert "unknown code or prefix 'DEV0O1'" in result.stderr and "Traceback" not in result.stderr


def test_an_empty_f_string_where_a_device_may_go_is_read_past():
    """`print(f"")`: an f-string with no parts as a call's first argument (the screen reads a device string built at
    run time from its first part; this one has none). Found by the crash hunt in sd-scripts' `train_util.py`."""
    from devlint import lint_source
    from devlint.engine.settings import Settings

    code = 'import torch\nprint(f"")\nlog = {"device": f""}\nx = torch.zeros(2).to(f"")\n'
    assert [d.code for d in lint_source(code, "x.py", Settings(preview=True))] == ["DEV002"]  # (a one-time copy)
    assert [d.code for d in lint_source(code, "x.py", Settings())] == []
