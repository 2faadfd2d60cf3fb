"""`devlint --fix`, `--diff`, `--unsafe-fixes` as a user sees them: output, exit codes, files on disk."""

from __future__ import annotations

import os
import stat
import textwrap

import pytest

from conftest import run_devlint

SAFE_AND_UNSAFE = textwrap.dedent(
    """\
    import torch


    def restore(model, path):
        model.load_state_dict(torch.load(path))
        return torch.load(path)
    """
)
SAFE_FIXED = SAFE_AND_UNSAFE.replace("torch.load(path))", 'torch.load(path, map_location="cpu"))')
ALL_FIXED = SAFE_FIXED.replace("return torch.load(path)", 'return torch.load(path, map_location="cpu")')
CLEAN = "import torch\n\nx = torch.zeros(3)\n"


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SAFE_AND_UNSAFE)
    return path


def test_check_marks_fixable_reports_and_counts_them(module):
    result = run_devlint("--isolated", str(module))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"{module}:5:27: DEV004 [*] `torch.load(...)` without `map_location` fails where the saving device is missing;"
        ' pass `map_location=` (e.g. `"cpu"` or your device)',
        f"{module}:6:12: DEV004 `torch.load(...)` without `map_location` fails where the saving device is missing;"
        ' pass `map_location=` (e.g. `"cpu"` or your device)',
    ]
    assert "1 fixable with --fix, 1 more with --unsafe-fixes" in result.stderr


def test_check_with_unsafe_fixes_marks_both(module):
    result = run_devlint("--isolated", "--unsafe-fixes", str(module))
    assert [line.split(": ", 1)[1][:10] for line in result.stdout.splitlines()] == ["DEV004 [*]", "DEV004 [*]"]


def test_fix_applies_safe_fixes_and_says_what_remains(module):
    result = run_devlint("--isolated", "--fix", str(module))
    assert module.read_text() == SAFE_FIXED
    assert result.returncode == 1  # the unsafe one remains
    assert "1 fixed, 1 remaining" in result.stderr
    assert result.stdout.count("DEV004") == 1


def test_fix_with_unsafe_fixes_leaves_nothing_and_exits_zero(module):
    result = run_devlint("--isolated", "--fix", "--unsafe-fixes", str(module))
    assert module.read_text() == ALL_FIXED
    assert result.returncode == 0
    assert "2 fixed, 0 remaining" in result.stderr
    assert result.stdout == ""


def test_unsafe_fixes_from_the_config_file(tmp_path, module):
    (tmp_path / "pyproject.toml").write_text("[tool.devlint]\nunsafe-fixes = true\n")
    result = run_devlint("--fix", str(module), cwd=tmp_path)
    assert module.read_text() == ALL_FIXED
    assert result.returncode == 0


def test_second_fix_run_is_a_no_op(module):
    run_devlint("--isolated", "--fix", "--unsafe-fixes", str(module))
    result = run_devlint("--isolated", "--fix", "--unsafe-fixes", str(module))
    assert module.read_text() == ALL_FIXED
    assert "0 fixed, 0 remaining" in result.stderr
    assert result.returncode == 0


def test_diff_prints_a_unified_diff_and_writes_nothing(module):
    result = run_devlint("--isolated", "--diff", str(module))
    assert module.read_text() == SAFE_AND_UNSAFE
    assert result.returncode == 1
    assert result.stdout.startswith(f"--- a/{module}\n+++ b/{module}\n@@ ")
    assert "-    model.load_state_dict(torch.load(path))\n" in result.stdout
    assert '+    model.load_state_dict(torch.load(path, map_location="cpu"))\n' in result.stdout
    assert "return torch.load(path, map_location" not in result.stdout  # unsafe: not without --unsafe-fixes


def test_diff_with_nothing_to_fix_exits_zero(tmp_path):
    path = tmp_path / "clean.py"
    path.write_text(CLEAN)
    result = run_devlint("--isolated", "--diff", str(path))
    assert result.returncode == 0
    assert result.stdout == ""


def test_fix_on_a_clean_file_exits_zero_and_does_not_touch_it(tmp_path):
    path = tmp_path / "clean.py"
    path.write_text(CLEAN)
    before = os.stat(path).st_mtime_ns
    result = run_devlint("--isolated", "--fix", str(path))
    assert result.returncode == 0
    assert os.stat(path).st_mtime_ns == before


def test_fix_keeps_the_file_mode(module):
    os.chmod(module, 0o751)
    run_devlint("--isolated", "--fix", str(module))
    assert module.read_text() == SAFE_FIXED
    assert stat.S_IMODE(os.stat(module).st_mode) == 0o751


def test_fix_keeps_bom_and_crlf_byte_for_byte(module):
    module.write_bytes(b"\xef\xbb\xbf" + SAFE_AND_UNSAFE.replace("\n", "\r\n").encode())
    run_devlint("--isolated", "--fix", str(module))
    assert module.read_bytes() == b"\xef\xbb\xbf" + SAFE_FIXED.replace("\n", "\r\n").encode()


def test_fix_keeps_a_latin1_coding_cookie(module):
    text = "# -*- coding: latin-1 -*-\n# café\n" + SAFE_AND_UNSAFE
    module.write_bytes(text.encode("latin-1"))
    run_devlint("--isolated", "--fix", str(module))
    assert module.read_bytes() == ("# -*- coding: latin-1 -*-\n# café\n" + SAFE_FIXED).encode("latin-1")


def test_file_changed_on_disk_since_read_is_not_overwritten(module, monkeypatch, capsys):
    from devlint import cli, runner

    real_fix_text = runner.fix_text

    def fix_while_someone_edits(source, path, *args, **kwargs):
        result = real_fix_text(source, path, *args, **kwargs)
        with open(path, "a") as handle:
            handle.write("# edited meanwhile\n")
        return result

    monkeypatch.setattr(runner, "fix_text", fix_while_someone_edits)
    assert cli.main(["--isolated", "--fix", str(module)]) == 2
    assert module.read_text() == SAFE_AND_UNSAFE + "# edited meanwhile\n"
    out, err = capsys.readouterr()
    assert f"devlint: error: {module}: file changed on disk while being fixed; not written" in err
    assert "0 fixed, 2 remaining" in err  # what was read is still unfixed
    assert out.count("DEV004") == 2
    assert "Traceback" not in err


def test_fix_producing_unparsable_code_is_never_written(module, monkeypatch, capsys):
    from devlint import cli, engine

    monkeypatch.setattr(engine, "apply_fixes", lambda module, fixes, **kwargs: "def broken(:\n")
    assert cli.main(["--isolated", "--fix", "--unsafe-fixes", str(module)]) == 2
    assert module.read_text() == SAFE_AND_UNSAFE
    err = capsys.readouterr().err
    assert "fix would produce code that does not parse; file left unchanged" in err


def test_one_unparsable_fix_leaves_the_whole_file_unchanged(module, monkeypatch, capsys):
    from devlint import cli, engine

    real_apply = engine.apply_fixes

    def break_the_unsafe_one(module_node, fixes, **kwargs):
        text = real_apply(module_node, fixes, **kwargs)
        return text.replace('return torch.load(path, map_location="cpu")', "return (")

    monkeypatch.setattr(engine, "apply_fixes", break_the_unsafe_one)
    assert cli.main(["--isolated", "--fix", "--unsafe-fixes", str(module)]) == 2
    assert module.read_text() == SAFE_AND_UNSAFE
