"""Load: a tree of 20,000 small files and one of 200 large files complete, with peak memory that
does not grow with the number of files, and (when `--jobs` exists) the same output as `--jobs 1`.

Minutes of CPU, so out of the default suite: DEVLINT_LOAD_TESTS=1 pytest tests/test_load.py
(DEVLINT_LOAD_SCALE=0.1 for a tenth of the files). Figures go in docs/reliability.md."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not os.environ.get("DEVLINT_LOAD_TESTS"), reason="slow; DEVLINT_LOAD_TESTS=1")
SCALE = float(os.environ.get("DEVLINT_LOAD_SCALE", "1"))

SMALL = "import torch\n\n\ndef load(path):\n    return torch.load(path)\n\n\nx = torch.zeros(3)\nx.to('cuda')\n"
LARGE_UNIT = (
    "def block_{i}(batch, device):\n"
    "    mask = torch.ones(batch.shape[0]).to(device)\n"
    "    state = torch.load('part_{i}.pt')\n"
    "    return batch * mask + {i}\n\n\n"
)


def make_tree(root, files: int, text_of) -> None:
    for i in range(files):
        directory = root / f"pkg{i // 500}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"m{i}.py").write_text(text_of(i))


def devlint(root, *args: str) -> tuple[subprocess.CompletedProcess, int]:
    """The run and its peak resident memory in KiB (this child only: each run is a new process
    and ru_maxrss of RUSAGE_CHILDREN is the largest child so far, so runs go smallest first)."""
    result = subprocess.run([sys.executable, "-m", "devlint", "--isolated", "-q", *args, "."], cwd=root,
                            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "Traceback" not in result.stderr
    return result, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def has_jobs_flag() -> bool:
    from devlint.frontends.cli import build_parser

    return any("--jobs" in action.option_strings for action in build_parser()._actions)


def check_tree(tmp_path, files: int, text_of) -> None:
    small, large = tmp_path / "tenth", tmp_path / "full"
    make_tree(small, max(files // 10, 1), text_of)
    make_tree(large, files, text_of)
    result_small, memory_small = devlint(small)
    result, memory = devlint(large)
    print(f"\n{files} files: peak RSS {memory} KiB (a tenth of the files: {memory_small} KiB)")
    assert result.returncode == 1 and result_small.returncode == 1
    assert len(result.stdout.splitlines()) >= files
    assert memory < memory_small * 1.5 + 50_000  # flat: ten times the files, not ten times the memory
    if has_jobs_flag():
        single, _ = devlint(large, "--jobs", "1")
        assert result.stdout == single.stdout


def test_twenty_thousand_small_files(tmp_path):
    check_tree(tmp_path, int(20_000 * SCALE), lambda i: SMALL)


def test_two_hundred_large_files(tmp_path):
    check_tree(tmp_path, int(200 * SCALE), lambda i: "import torch\n\n\n" + "".join(
        LARGE_UNIT.format(i=j) for j in range(500)))
