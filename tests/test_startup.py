"""Start-up: what a run imports before it knows it needs it.

A pre-commit hook checks a handful of files and an editor one buffer per keystroke, so start-up is
what their users wait for. LibCST's import alone is a third of a one-file run, and most files never
reach it: the text prefilter or the `ast` screen drops every rule first. So neither `import
devlint.frontends.cli` nor a run on such a file may import LibCST, nor torch (never, in the linter), the
language server's libraries or rich. The import list is Python's own (`-X importtime`), of a real
process started as users start it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from devlint.rules import all_rules
from devlint.engine.selection import prefilter, screen

HEAVY = ("libcst", "torch", "pygls", "lsprotocol", "rich")

NO_TORCH = "def add(a, b):\n    return a + b\n"
# torch code with the words of several rules (`.to(`, `zeros`, `"cuda"`, `load`) and no candidate:
# the moves' results are used, the factory has `device=`, "cuda" is only compared.
SCREENED_OUT = """\
import torch


def forward(x, device):
    y = x.to(device) * 2
    mask = torch.zeros(3, device=device)
    if device.type == "cuda":
        y = y + 1
    return y + mask
"""
# The same with a report: its file reaches LibCST (the control that the import list is read right).
REACHES_LIBCST = SCREENED_OUT.replace("torch.zeros(3, device=device)", "torch.zeros(3).to(device)")


def imported(*args: str) -> set[str]:
    """The modules `python -X importtime ARGS` imports (this checkout's devlint). Python lists what
    import statements import: a module that `importlib.import_module` loads (a rule's visitor, an
    output format) is not listed itself, but what its own import statements pull in is."""
    result = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode in (0, 1), result.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
            if line.startswith("import time:") and not line.endswith("imported package")}


def heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in HEAVY)


def check(path: Path) -> set[str]:
    return imported("-m", "devlint", "--isolated", "--no-cache", str(path))


def test_importing_the_cli_imports_nothing_heavy():
    modules = imported("-c", "import devlint.frontends.cli")
    assert "devlint.frontends.cli" in modules
    assert heavy(modules) == []


def test_checking_a_file_without_torch_imports_nothing_heavy(tmp_path):
    path = tmp_path / "add.py"
    path.write_text(NO_TORCH)
    modules = check(path)
    assert "devlint.engine.engine" in modules  # the file was checked
    assert heavy(modules) == []


def test_a_run_on_a_named_file_imports_no_parser_its_folders_do_not_need(tmp_path):
    # No configuration file, no walk, no cache, no fix: the exclude patterns (pathspec), TOML and INI
    # parsers, git (subprocess), the cache's hashes and the fix writer's temporary files are not needed.
    path = tmp_path / "add.py"
    path.write_text(NO_TORCH)
    modules = check(path)
    assert "devlint.engine.engine" in modules
    unneeded = {"pathspec", "tomllib", "configparser", "subprocess", "hashlib", "tempfile", "devlint.runner.cache"}
    # (what the interpreter's own start imports is not devlint's: a site's `.pth` file may import certifi, and
    # with it `importlib.resources` and `tempfile`)
    assert sorted(unneeded & (modules - imported("-c", "pass"))) == []


def test_checking_torch_code_that_the_screen_drops_imports_nothing_heavy(tmp_path):
    rules = list(all_rules())
    assert prefilter(SCREENED_OUT, rules), "the prefilter must let the file through to the screen"
    assert screen(SCREENED_OUT, prefilter(SCREENED_OUT, rules)) == []
    path = tmp_path / "model.py"
    path.write_text(SCREENED_OUT)
    assert heavy(check(path)) == []


def test_the_flake8_plugin_on_torch_code_that_the_screen_drops_imports_nothing_heavy(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SCREENED_OUT)
    modules = imported("-m", "flake8", "--isolated", "--select", "DEV", str(path))
    assert "devlint.engine.engine" in modules  # the plugin checked the file
    assert heavy(modules) == []


def test_a_file_that_reaches_libcst_imports_it(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(REACHES_LIBCST)
    modules = check(path)
    assert "devlint.engine.cst_stage" in modules
    assert {name.split(".")[0] for name in heavy(modules)} == {"libcst"}


def loaded(front_end: str, *args: str) -> set[str]:
    """Every module in `sys.modules` once `python -m FRONT_END ARGS` is done (what `importlib` loads included)."""
    code = ("import json, runpy, sys\nsys.argv = sys.argv[1:]\ntry:\n"
            f"    runpy.run_module({front_end!r}, run_name='__main__', alter_sys=True)\n"
            "except SystemExit:\n    pass\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)")
    result = subprocess.run([sys.executable, "-c", code, front_end, *args], capture_output=True, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return set(json.loads(result.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("front_end", ["devlint", "flake8"])
def test_of_libcst_a_run_loads_its_nodes_parser_and_visitors_only(tmp_path, front_end):
    # `import libcst` alone would load its metadata providers, helpers and the parser's configuration detection
    # too: devlint/engine/libcst_loader.py
    path = tmp_path / "model.py"
    path.write_text(REACHES_LIBCST)
    arguments = ("--no-cache",) if front_end == "devlint" else ("--select", "DEV")
    modules = loaded(front_end, "--isolated", *arguments, str(path))
    assert {"devlint.engine.cst_stage", "libcst._nodes.expression", "libcst.native"} <= modules
    unused = ("libcst.metadata", "libcst.helpers", "libcst.codemod", "libcst.matchers", "libcst._parser.detect_config")
    assert sorted(name for name in modules if name.startswith(unused)) == []


@pytest.mark.parametrize("entry", all_rules(), ids=lambda entry: entry.rule.code)
def test_every_rule_package_has_one_visitor_for_its_rule(entry):
    assert entry.visitor.rule is entry.rule
    assert entry.visitor.__module__ == entry.visitor_module
