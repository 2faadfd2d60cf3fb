"""A real editor: Neovim's built-in LSP client, headless, against `devlint lsp`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

NVIM = shutil.which("nvim")
pytestmark = pytest.mark.skipif(
    NVIM is None, reason="Neovim is not installed (apt-get install neovim; .ci/run installs it where it can)")
pytest.importorskip("pygls", reason="`devlint lsp` needs the lsp extra (pygls)")

SOURCE = "import torch\nstate = torch.load(path)\nmodel.load_state_dict(torch.load(path))\n"


def test_neovim_shows_devlints_reports_and_applies_its_quick_fix(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\npreview = true\n')  # in preview: named
    module = tmp_path / "model.py"
    module.write_text(SOURCE)
    out = tmp_path / "seen.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DEVLINT_FILE": str(module), "DEVLINT_OUT": str(out),
           "DEVLINT_PYTHON": sys.executable, "DEVLINT_FIX_LINE": "2", "XDG_STATE_HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    script = ROOT / "tests" / "editors" / "neovim_lsp.lua"
    subprocess.run([NVIM, "--headless", "-n", "-i", "NONE", "-u", "NONE", "-c", f"luafile {script}"],
                   env=env, cwd=tmp_path, timeout=180, check=False, capture_output=True)
    seen = json.loads(out.read_text())
    assert seen["error"] is None
    assert sorted((d["line"], d["col"], d["code"], d["source"]) for d in seen["diagnostics"]) == [
        (1, 8, "DEV004", "devlint"), (2, 22, "DEV004", "devlint")]
    assert seen["actions"] == ['Add `map_location="cpu"` (DEV004)', "Disable DEV004 for this line"]
    assert seen["applied"] == 'Add `map_location="cpu"` (DEV004)'
    assert seen["lines"] == ["import torch", "state = torch.load(path)",
                             'model.load_state_dict(torch.load(path, map_location="cpu"))']
