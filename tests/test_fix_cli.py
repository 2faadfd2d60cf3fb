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
        return torch.load(path)["step"]
    """
)
SAFE_FIXED = SAFE_AND_UNSAFE.replace("torch.load(path))", 'torch.load(path, map_location="cpu"))')
ALL_FIXED = SAFE_FIXED.replace('return torch.load(path)["step"]', 'return torch.load(path, map_location="cpu")["step"]')
CLEAN = "import torch\n\nx = torch.zeros(3)\n"


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SAFE_AND_UNSAFE)
    return path


def test_check_marks_fixable_reports_and_counts_them(module):
    result = run_devlint("--isolated", "--preview", str(module))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"{module}:5:27: DEV004 [*] `torch.load(...)` without `map_location` fails on a machine without the device"
        ' the checkpoint was saved from; pass `map_location=` (e.g. `"cpu"` or your device)',
        f"{module}:6:12: DEV004 `torch.load(...)` without `map_location` fails on a machine without the device"
        ' the checkpoint was saved from; pass `map_location=` (e.g. `"cpu"` or your device)',
    ]
    assert "1 fixable with --fix, 1 more with --unsafe-fixes" in result.stderr


def test_check_with_unsafe_fixes_marks_both(module):
    result = run_devlint("--isolated", "--preview", "--unsafe-fixes", str(module))
    assert [line.split(": ", 1)[1][:10] for line in result.stdout.splitlines()] == ["DEV004 [*]", "DEV004 [*]"]


def test_fix_applies_safe_fixes_and_says_what_remains(module):
    result = run_devlint("--isolated", "--preview", "--fix", str(module))
    assert module.read_text() == SAFE_FIXED
    assert result.returncode == 1  # the unsafe one remains
    assert "1 fixed, 1 remaining" in result.stderr
    assert result.stdout.count("DEV004") == 1


def test_fix_with_unsafe_fixes_leaves_nothing_and_exits_zero(module):
    result = run_devlint("--isolated", "--preview", "--fix", "--unsafe-fixes", str(module))
    assert module.read_text() == ALL_FIXED
    assert result.returncode == 0
    assert "2 fixed, 0 remaining" in result.stderr
    assert result.stdout == ""


def test_unsafe_fixes_from_the_config_file(tmp_path, module):
    (tmp_path / "pyproject.toml").write_text("[tool.devlint]\nunsafe-fixes = true\npreview = true\n")
    result = run_devlint("--fix", "--unsafe-fixes", str(module), cwd=tmp_path)
    assert module.read_text() == ALL_FIXED
    assert result.returncode == 0


def test_second_fix_run_is_a_no_op(module):
    run_devlint("--isolated", "--preview", "--fix", "--unsafe-fixes", str(module))
    result = run_devlint("--isolated", "--preview", "--fix", "--unsafe-fixes", str(module))
    assert module.read_text() == ALL_FIXED
    assert "0 fixed, 0 remaining" in result.stderr
    assert result.returncode == 0


def test_diff_prints_a_unified_diff_and_writes_nothing(module):
    result = run_devlint("--isolated", "--preview", "--diff", str(module))
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
    run_devlint("--isolated", "--preview", "--fix", str(module))
    assert module.read_text() == SAFE_FIXED
    assert stat.S_IMODE(os.stat(module).st_mode) == 0o751


def test_fix_keeps_bom_and_crlf_byte_for_byte(module):
    module.write_bytes(b"\xef\xbb\xbf" + SAFE_AND_UNSAFE.replace("\n", "\r\n").encode())
    run_devlint("--isolated", "--preview", "--fix", str(module))
    assert module.read_bytes() == b"\xef\xbb\xbf" + SAFE_FIXED.replace("\n", "\r\n").encode()


def test_fix_keeps_a_latin1_coding_cookie(module):
    text = "# -*- coding: latin-1 -*-\n# café\n" + SAFE_AND_UNSAFE
    module.write_bytes(text.encode("latin-1"))
    run_devlint("--isolated", "--preview", "--fix", str(module))
    assert module.read_bytes() == ("# -*- coding: latin-1 -*-\n# café\n" + SAFE_FIXED).encode("latin-1")


def test_file_changed_on_disk_since_read_is_not_overwritten(module, monkeypatch, capsys):
    from devlint.frontends import cli
    from devlint.sources import document

    real_fix_text = document.fix_text

    def fix_while_someone_edits(source, path, *args, **kwargs):
        result = real_fix_text(source, path, *args, **kwargs)
        with open(path, "a") as handle:
            handle.write("# edited meanwhile\n")
        return result

    monkeypatch.setattr(document, "fix_text", fix_while_someone_edits)
    assert cli.main(["--isolated", "--preview", "--fix", str(module)]) == 2
    assert module.read_text() == SAFE_AND_UNSAFE + "# edited meanwhile\n"
    out, err = capsys.readouterr()
    assert f"devlint: error: {module}: file changed on disk while being fixed; not written" in err
    assert "0 fixed, 2 remaining" in err  # what was read is still unfixed
    assert out.count("DEV004") == 2
    assert "Traceback" not in err


def test_fix_producing_unparsable_code_is_never_written(module, monkeypatch, capsys):
    from devlint.engine import fix_edits
    from devlint.frontends import cli

    monkeypatch.setattr(fix_edits, "apply_fixes", lambda module, fixes, **kwargs: "def broken(:\n")
    assert cli.main(["--isolated", "--preview", "--fix", "--unsafe-fixes", str(module)]) == 2
    assert module.read_text() == SAFE_AND_UNSAFE
    err = capsys.readouterr().err
    assert "fix would produce code that does not parse; file left unchanged" in err


def test_a_fix_only_libcst_would_parse_is_never_written(module, monkeypatch, capsys):
    # LibCST reads `b"é"` and `"\\N{no such name}"`; Python rejects both: such a text would be written, then DEV999
    from devlint.engine import fix_edits
    from devlint.frontends import cli

    real_apply = fix_edits.apply_fixes
    for rejected in ('b"\u00e9"', '"\\N{no such name}"'):
        def python_rejects(module_node, fixes, **kwargs):
            return real_apply(module_node, fixes, **kwargs).replace('"cpu"', rejected)

        monkeypatch.setattr(fix_edits, "apply_fixes", python_rejects)
        assert cli.main(["--isolated", "--preview", "--fix", "--unsafe-fixes", str(module)]) == 2
        assert module.read_text() == SAFE_AND_UNSAFE
        assert "fix would produce code that does not parse; file left unchanged" in capsys.readouterr().err


def test_one_unparsable_fix_leaves_the_whole_file_unchanged(module, monkeypatch, capsys):
    from devlint.engine import fix_edits
    from devlint.frontends import cli

    real_apply = fix_edits.apply_fixes

    def break_the_unsafe_one(module_node, fixes, **kwargs):
        text = real_apply(module_node, fixes, **kwargs)
        return text.replace('return torch.load(path, map_location="cpu")', "return (")

    monkeypatch.setattr(fix_edits, "apply_fixes", break_the_unsafe_one)
    assert cli.main(["--isolated", "--preview", "--fix", "--unsafe-fixes", str(module)]) == 2
    assert module.read_text() == SAFE_AND_UNSAFE


# --- --diff output is a patch `git apply` takes ------------------------------------------------


def _git_repo(tmp_path, files: dict[str, str]):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name, text in files.items():
        with open(tmp_path / name, "w", newline="") as handle:
            handle.write(text)
    return tmp_path


def _git_apply(repo, patch: str, *extra: str):
    import subprocess

    data = patch.encode() if isinstance(patch, str) else patch
    return subprocess.run(["git", "apply", *extra, "-"], cwd=repo, input=data, capture_output=True)


def _diff_bytes(repo, *args: str) -> bytes:
    """`devlint --diff` output as bytes (text mode would turn its CRLF lines into LF)."""
    import subprocess
    import sys

    from conftest import ROOT

    result = subprocess.run([sys.executable, "-m", "devlint", "--diff", *args], cwd=repo, capture_output=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 1, result.stderr
    return result.stdout


@pytest.mark.parametrize(
    "text",
    [
        SAFE_AND_UNSAFE,
        SAFE_AND_UNSAFE.rstrip("\n"),  # no line break at the end, on the changed line
        SAFE_AND_UNSAFE.replace("\n", "\r\n"),
        "import torch\n\n\ndef restore(path):\n    return torch.load(path)[\"model\"]\n\x0c\n# after a form feed\n",
    ],
    ids=["plain", "no-trailing-newline", "crlf", "form-feed"],
)
def test_diff_applies_with_git_apply_and_gives_the_fixed_file(tmp_path, text):
    repo = _git_repo(tmp_path, {"model.py": text})
    patch = _diff_bytes(repo, "--isolated", "--preview", "--unsafe-fixes", "model.py")
    assert _git_apply(repo, patch, "--check").returncode == 0, patch
    assert _git_apply(repo, patch).returncode == 0
    from devlint import fix_source
    from devlint.engine.settings import Settings

    with open(repo / "model.py", newline="") as handle:
        assert handle.read() == fix_source(text, "model.py", Settings(preview=True), unsafe=True).source
    assert (b"\\ No newline at end of file" in patch) != text.endswith("\n")


def test_diff_of_a_file_in_a_subdirectory_applies_from_the_current_directory(tmp_path):
    repo = _git_repo(tmp_path, {})
    (repo / "pkg").mkdir()
    (repo / "pkg" / "model.py").write_text(SAFE_AND_UNSAFE)
    result = run_devlint("--isolated", "--preview", "--diff", ".", cwd=repo)
    assert "--- a/pkg/model.py" in result.stdout and "+++ b/pkg/model.py" in result.stdout
    assert _git_apply(repo, result.stdout).returncode == 0
    assert (repo / "pkg" / "model.py").read_text() == SAFE_FIXED


def test_notebook_diff_applies_with_git_apply(tmp_path):
    import json

    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": ["import torch\n", "state = torch.load(path)"]}
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    repo = _git_repo(tmp_path, {"train.ipynb": text})  # no line break at the end either
    patch = _diff_bytes(repo, "--isolated", "--preview", "--unsafe-fixes", "train.ipynb")
    assert _git_apply(repo, patch).returncode == 0, patch
    assert json.loads((repo / "train.ipynb").read_text())["cells"][0]["source"][1] == \
        'state = torch.load(path, map_location="cpu")'


# --- --fix runs until nothing changes --------------------------------------------------------

CHAIN = textwrap.dedent(
    """\
    import torch


    def make_step(device):
        x = torch.zeros(4, 4)
        x.to(device)
        return x
    """
)


def test_fix_and_diff_leave_neither_report_of_a_chain_and_count_both(tmp_path):
    module = tmp_path / "chain.py"
    module.write_text(CHAIN)
    expected = CHAIN.replace("torch.zeros(4, 4)\n    x.to(device)\n", "torch.zeros(4, 4, device=device)\n")
    diff = run_devlint("--isolated", "--diff", str(module))
    assert "-    x.to(device)" in diff.stdout and "+    x = torch.zeros(4, 4, device=device)" in diff.stdout
    assert "x = x.to(device)" not in diff.stdout
    assert "2 would be fixed, 0 remaining" in diff.stderr
    result = run_devlint("--isolated", "--fix", str(module))
    assert module.read_text() == expected
    assert result.returncode == 0
    assert "2 fixed, 0 remaining" in result.stderr


def test_fixes_that_never_settle_warn_and_keep_the_last_result(tmp_path, monkeypatch, capsys):
    from devlint.engine import engine
    from devlint.frontends import cli
    from devlint.contract.diagnostics import FixResult

    module = tmp_path / "model.py"
    module.write_text(SAFE_AND_UNSAFE)
    real = engine._fix_text

    def never_settles(*args, **kwargs):
        result = real(*args, **kwargs)
        return FixResult(result.source, result.fixed, result.remaining, result.unparsable, converged=False)

    monkeypatch.setattr(engine, "_fix_text", never_settles)
    assert cli.main(["--isolated", "--preview", "--fix", "--unsafe-fixes", "--jobs", "1",
                     str(module)]) == 0
    assert module.read_text() == ALL_FIXED
    err = capsys.readouterr().err
    assert f"devlint: warning: {module}: fixes kept changing the file after 100 rounds" in err
    assert "2 fixed, 0 remaining" in err


# --- the line limit -----------------------------------------------------------------------------


def test_line_length_in_devlint_configuration_overrides_the_formatter(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.devlint]\nline-length = 40\npreview = true\n\n[tool.black]\nline-length = 120\n")
    module = tmp_path / "model.py"
    module.write_text("import torch\nstate = torch.load(checkpoint_path)\n")
    result = run_devlint("--fix", "--unsafe-fixes", str(module), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert module.read_text() == 'import torch\nstate = torch.load(\n    checkpoint_path, map_location="cpu"\n)\n'


def test_formatter_line_length_is_read_with_isolated_too(tmp_path):
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 40\n")
    module = tmp_path / "model.py"
    module.write_text("import torch\nstate = torch.load(checkpoint_path)\n")
    run_devlint("--isolated", "--preview", "--fix", "--unsafe-fixes", str(module), cwd=tmp_path)
    assert module.read_text().count("\n") == 4  # the arguments hugged on one indented line, as black lays them


@pytest.mark.parametrize("value", ["0", "true", '"wide"', "1000"])
def test_bad_line_length_is_a_configuration_error(tmp_path, value):
    (tmp_path / "pyproject.toml").write_text(f"[tool.devlint]\nline-length = {value}\n")
    (tmp_path / "model.py").write_text(CLEAN)
    result = run_devlint(str(tmp_path / "model.py"), cwd=tmp_path)
    assert result.returncode == 2
    assert "'line-length' must be a whole number from 1 to 320" in result.stderr


def test_line_length_flag_sets_the_limit(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 120\n")
    module = tmp_path / "model.py"
    module.write_text("import torch\nstate = torch.load(checkpoint_path)\n")
    result = run_devlint("--isolated", "--preview", "--fix", "--unsafe-fixes", "--line-length", "40",
                         str(module), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert module.read_text() == 'import torch\nstate = torch.load(\n    checkpoint_path, map_location="cpu"\n)\n'
    assert run_devlint("--line-length", "0", str(module)).returncode == 2


def test_notebook_fix_leaves_neither_report_of_a_chain(tmp_path):
    import json

    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": CHAIN.splitlines(keepends=True)}
    path = tmp_path / "chain.ipynb"
    path.write_text(json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    result = run_devlint("--isolated", "--fix", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 fixed, 0 remaining" in result.stderr
    source = "".join(json.loads(path.read_text())["cells"][0]["source"])
    assert source == CHAIN.replace("torch.zeros(4, 4)\n    x.to(device)\n", "torch.zeros(4, 4, device=device)\n")


# --- --fix-only and --exit-non-zero-on-fix, as ruff defines them ------------------------------------

def test_fix_exits_0_when_nothing_is_left_and_1_with_exit_non_zero_on_fix(tmp_path):
    for flags, expected in ((["--fix"], 0), (["--fix", "--exit-non-zero-on-fix"], 1)):
        path = tmp_path / "model.py"
        path.write_text(SAFE_AND_UNSAFE)
        result = run_devlint("--isolated", "--preview", "--unsafe-fixes", *flags, "model.py",
                             cwd=tmp_path)
        assert (result.returncode, path.read_text()) == (expected, ALL_FIXED), flags
    clean = run_devlint("--isolated", "--preview", "--fix", "--exit-non-zero-on-fix", "model.py",
                        cwd=tmp_path)
    assert clean.returncode == 0  # nothing fixed, nothing left


def test_fix_only_fixes_reports_nothing_and_exits_0_with_reports_left(module):
    result = run_devlint("--isolated", "--preview", "--fix-only", "model.py", cwd=module.parent)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "Fixed 1 report.\n")
    assert module.read_text() == SAFE_FIXED  # the unsafe fix's report is left, silently
    again = run_devlint("--isolated", "--preview", "--fix-only", "model.py", cwd=module.parent)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # ruff: no summary when nothing was fixed


def test_fix_only_with_exit_non_zero_on_fix_fails_only_when_it_fixed(module):
    fixed = run_devlint("--isolated", "--preview", "--fix-only", "--exit-non-zero-on-fix", "model.py",
                        cwd=module.parent)
    assert (fixed.returncode, module.read_text()) == (1, SAFE_FIXED)
    nothing = run_devlint("--isolated", "--preview", "--fix-only", "--exit-non-zero-on-fix", "model.py",
                          cwd=module.parent)
    assert nothing.returncode == 0


def test_fix_only_with_diff_prints_the_diff_and_writes_nothing(module):
    result = run_devlint("--isolated", "--preview", "--fix-only", "--diff", "model.py",
                         cwd=module.parent)
    assert result.returncode == 1 and result.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert result.stderr == "Would fix 1 report.\n" and module.read_text() == SAFE_AND_UNSAFE
