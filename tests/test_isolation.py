"""One rule cannot take a file down, and no value defined by itself sends a rule round for ever.

A rule that raises loses only its own reports for that file: the failure is DEV998 (naming the rule),
the CLI exits 2, flake8 shows the line; DEV999 is only for text Python rejects. The shapes below once
sent a resolver into unbounded recursion and lost the whole file's reports: each stands beside a
`torch.load` whose DEV004 report must survive, through the CLI, flake8, `--fix` and the editor's engine.
DEV004 is in preview: each run names it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT, run_devlint

LOAD = "\n\ndef restore(path):\n    return torch.load(path)\n"  # DEV004 on the file's last line

SELF_DEFINED = {
    "subscript_of_self_attribute": """
        class RunningStats(torch.nn.Module):
            def update(self, k, w, s):
                self.std[k] = (1 - w) * self.std[k] + w * s
                self.std[k].detach()
        """,
    "nonblocking_copy_of_itself": """
        def collect(model, data):
            out = run(model, data)
            out = out.to("cpu", non_blocking=True)
            return out
        """,
    "two_names_defined_by_each_other": """
        def f(x):
            a = b
            b = a
            a.to("cuda")
            return b.numpy()
        """,
    "subscript_defined_by_itself": """
        def f(x, k):
            x[k] = g(x[k])
            x[k].float()
            return torch.cat([x[k], x])
        """,
    "attribute_defined_by_itself": """
        class M(torch.nn.Module):
            def step(self, x):
                self.a = f(self.a)
                self.a.cpu()
                return self.a + torch.zeros(3)
        """,
    "augmented_and_walrus": """
        def f(x):
            y = x.float()
            y += y.to("cuda")
            (y := y.cpu())
            y.numpy()
            return y
        """,
    "loop_that_rebinds": """
        def f(x, loader):
            h = torch.zeros(3)
            for batch in loader:
                h = h.to(batch.device, non_blocking=True)
                h = h + batch
            h.tolist()
            return h
        """,
}


def write_case(tmp_path, name: str) -> str:
    text = "import torch\n" + textwrap.dedent(SELF_DEFINED[name]) + LOAD
    (tmp_path / "case.py").write_text(text)
    return text


def load_line(text: str) -> int:
    return text.count("\n")


def run_flake8(*args: str, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "DEV", "--devlint-preview", *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@pytest.mark.parametrize("name", SELF_DEFINED)
def test_a_value_defined_by_itself_is_analysed_through_the_cli(tmp_path, name):
    text = write_case(tmp_path, name)
    result = run_devlint("--isolated", "--no-cache", "--preview", "case.py", cwd=tmp_path)
    assert "DEV998" not in result.stdout and "DEV999" not in result.stdout, result.stdout
    assert f"case.py:{load_line(text)}:12: DEV004" in result.stdout
    assert result.returncode == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize("name", SELF_DEFINED)
def test_a_value_defined_by_itself_is_analysed_through_flake8(tmp_path, name):
    text = write_case(tmp_path, name)
    result = run_flake8("case.py", cwd=tmp_path)
    assert "DEV998" not in result.stdout, result.stdout
    assert f"case.py:{load_line(text)}:12: DEV004" in result.stdout


@pytest.mark.parametrize("name", SELF_DEFINED)
def test_a_value_defined_by_itself_is_fixed_and_the_editor_sees_the_same(name):
    from devlint import fix_source
    from devlint.engine.settings import Settings
    from devlint.engine.reparse import Reparser
    from devlint.sources import document

    text = "import torch\n" + textwrap.dedent(SELF_DEFINED[name]) + LOAD
    settings = Settings(preview=True)
    fixed = fix_source(text, "case.py", settings, unsafe=True)
    assert fixed.converged and "DEV004" in {d.code for d in fixed.remaining}
    assert not {"DEV998", "DEV999"} & {d.code for d in fixed.remaining}
    reports = document.check(document.PythonSource("case.py", text), settings, reparser=Reparser())
    assert "DEV004" in {d.code for d in reports} and not {"DEV998", "DEV999"} & {d.code for d in reports}


# ---------------------------------------------------------------- a rule that fails on purpose

# The real command with one rule broken on purpose (devlint/engine/faults.py): `CODE` raises in its `finish`,
# `CODE:recursion` recurses without end in its first callback. Installed in the process, never read from outside.
_WITH_FAULT = ("import sys\nfrom devlint.engine import faults\n"
               "code, _, kind = sys.argv.pop(1).partition(':')\n"
               "faults.install(faults.RuleFault(code, kind or 'raise'))\n"
               "from {module} import main\nraise SystemExit(main(sys.argv[1:]))\n")


def run_with_fault(fault: str, command: str, *args: str, cwd):
    module = {"devlint": "devlint.frontends.cli", "flake8": "flake8.main.cli"}[command]
    extra = ("--isolated", "--select", "DEV", "--devlint-preview") if command == "flake8" else ()
    return subprocess.run([sys.executable, "-c", _WITH_FAULT.format(module=module), fault, *extra, *args], cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


BOTH = ("import torch\n\n\ndef f(images: torch.Tensor, device, path):\n    images.to(device)\n"
        "    return model(images), torch.load(path)\n")  # DEV001 (a safe fix) on line 5, DEV004 on line 6


@pytest.mark.parametrize("fault", ["DEV004", "DEV004:recursion"])
def test_a_failing_rule_loses_only_its_reports_and_the_cli_exits_2(tmp_path, fault):
    (tmp_path / "train.py").write_text(BOTH)
    result = run_with_fault(fault, "devlint", "--isolated", "--no-cache", "--preview", "train.py", cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert any(line.startswith("train.py:5:5: DEV001") for line in lines)
    assert not any(": DEV004 " in line for line in lines)
    [internal] = [line for line in lines if " DEV998 " in line]
    assert "internal error: rule DEV004 failed" in internal and "please report it" in internal
    assert "DEV999" not in result.stdout and "syntax error" not in result.stdout
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_a_failing_rule_is_a_visible_dev998_line_in_flake8(tmp_path):
    (tmp_path / "train.py").write_text(BOTH)
    result = run_with_fault("DEV004", "flake8", "train.py", cwd=tmp_path)
    assert "train.py:5:5: DEV001" in result.stdout
    assert "DEV998 internal error: rule DEV004 failed" in result.stdout
    assert ": DEV004 " not in result.stdout and "E999" not in result.stdout
    assert result.returncode == 1


def test_a_failing_rule_does_not_stop_the_other_rules_fixes(tmp_path):
    (tmp_path / "train.py").write_text(BOTH)
    result = run_with_fault("DEV004", "devlint", "--isolated", "--no-cache", "--preview", "--fix", "train.py",
                            cwd=tmp_path)
    assert "    images = images.to(device)\n" in (tmp_path / "train.py").read_text()
    assert result.returncode == 2


def test_dev998_and_dev999_have_rule_pages():
    for code, title in (("DEV998", "internal-error"), ("DEV999", "syntax-error")):
        result = run_devlint("rule", code)
        assert result.returncode == 0 and result.stdout.startswith(f"# {code} ({title})")
