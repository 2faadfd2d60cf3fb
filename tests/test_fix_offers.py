"""A fix is offered exactly where `--fix` applies it: `[*]`, the JSON `fix`, and the file `--fix --unsafe-fixes`
writes agree, report by report, on every rule's fixture and on the README's own example."""

from __future__ import annotations

import difflib
import json
import shutil

import pytest

from conftest import RULE_DIRS, run_devlint

# The README's `[tool.devlint]` example targets torch 2.6: the fixes then use `torch.accelerator`, longer lines.
TARGETS = {"default": "", "torch-2.6": 'target-torch = "2.6"\n'}


def _project(tmp_path, target: str):
    (tmp_path / "pyproject.toml").write_text(f"[tool.devlint]\npreview = true\n{target}")
    return tmp_path


def _json_reports(*args: str, cwd) -> list[dict]:
    result = run_devlint("--unsafe-fixes", "--output-format", "json", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def _marked(*args: str, cwd) -> set[tuple[int, int, str]]:
    """(line, col, code) of the concise reports marked `[*]`."""
    result = run_devlint("--unsafe-fixes", "--output-format", "concise", *args, cwd=cwd)
    marked = set()
    for line in result.stdout.splitlines():
        _, row, col, rest = line.split(":", 3)  # (the file names here hold no colon)
        code, _, message = rest.strip().partition(" ")
        if message.startswith("[*]"):
            marked.add((int(row), int(col), code))
    return marked


def _changed_lines(before: str, after: str) -> set[int]:
    """The (1-based) lines of `before` that `after` replaced or removed, and the lines an insertion went before."""
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(), autojunk=False)
    for tag, first, last, _, _ in matcher.get_opcodes():
        if tag != "equal":
            changed.update(range(first + 1, max(last, first + 1) + 1))
    return changed


def _offers(reports: list[dict]) -> dict[tuple[int, int, str], dict]:
    return {(r["line"], r["column"], r["code"]): r["fix"] for r in reports if r["fix"] is not None}


@pytest.mark.parametrize("target", TARGETS.values(), ids=TARGETS.keys())
@pytest.mark.parametrize("rule_dir", RULE_DIRS, ids=lambda p: p.name)
def test_every_offered_fix_of_a_fixture_is_marked_and_applied(tmp_path, rule_dir, target):
    project = _project(tmp_path, target)
    shutil.copy(rule_dir / "bad.py", project / "bad.py")
    before = (project / "bad.py").read_text()
    offers = _offers(_json_reports("bad.py", cwd=project))
    assert _marked("bad.py", cwd=project) == set(offers)
    after_fix = _json_reports("--fix", "bad.py", cwd=project)
    changed = _changed_lines(before, (project / "bad.py").read_text())
    for (line, col, code), fix in offers.items():
        rows = {row for edit in fix["edits"] if not edit["content"].startswith("import ")
                for row in range(edit["location"]["row"], edit["end_location"]["row"] + 1)}
        assert rows & changed, f"{code} at {line}:{col} offers a fix that --fix did not apply"
    assert _offers(after_fix) == {}  # what is left after fixing offers nothing


README_EXAMPLE = 'import torch\n\ndevice = "cuda"  # the GPU\nx = torch.zeros(3, device=device)\n'
README_EXAMPLE_FIXED = (
    "import torch\n\n"
    "device = (\n"
    "    torch.accelerator.current_accelerator().type\n"
    "    if torch.accelerator.is_available()\n"
    '    else "cpu"\n'
    ")  # the GPU\n"
    "x = torch.zeros(3, device=device)\n"
)


def test_a_device_assignment_with_a_trailing_comment_is_fixed_keeping_the_comment(tmp_path):
    project = _project(tmp_path, TARGETS["torch-2.6"])
    (project / "train.py").write_text(README_EXAMPLE)
    assert _marked("train.py", cwd=project) == {(3, 10, "DEV003")}
    assert set(_offers(_json_reports("train.py", cwd=project))) == {(3, 10, "DEV003")}
    result = run_devlint("--fix", "--unsafe-fixes", "train.py", cwd=project)
    assert (project / "train.py").read_text() == README_EXAMPLE_FIXED
    assert "1 fixed, 0 remaining" in result.stderr
