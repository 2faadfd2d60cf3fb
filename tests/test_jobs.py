"""`--jobs N`: the same output, in the same order, whatever the number of worker processes."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT, RULE_DIRS, run_devlint
from devlint.runner import parallel
from devlint.runner.parallel import MIN_FILES_FOR_WORKERS, workers_pay
from devlint.runner.runner import Mode, run
from devlint.engine.settings import Settings

MOVE = "import torch\nx = torch.randn(3)\nx.to(dev)\n"


def _tree(tmp_path, count=40):
    for i in range(count):
        directory = tmp_path / f"pkg{i % 3}"
        directory.mkdir(exist_ok=True)
        source = MOVE if i % 2 else "import torch\nstate = torch.load(p)\n"
        (directory / f"m{i:02}.py").write_text(source)


def test_workers_print_the_same_reports_in_the_same_order_as_one_process(tmp_path):
    _tree(tmp_path)
    named = ("--preview",)  # the torch.load files' rule, in preview
    one = run_devlint(".", "--isolated", "--no-cache", *named, "--jobs", "1", cwd=tmp_path)
    many = run_devlint(".", "--isolated", "--no-cache", *named, "--jobs", "3", cwd=tmp_path)
    assert one.stdout.count("\n") == 40
    assert (many.stdout, many.stderr, many.returncode) == (one.stdout, one.stderr, one.returncode)


def test_fixtures_report_the_same_with_workers():
    paths = [str(d) for d in RULE_DIRS]
    named = ("--preview",)  # rules in preview, with fixtures here
    one = run_devlint(*paths, "--isolated", "--no-cache", *named, "-j", "1")
    many = run_devlint(*paths, "--isolated", "--no-cache", *named, "-j", "2")
    assert one.stdout and many.stdout == one.stdout


def test_fix_with_workers_fixes_every_file_once(tmp_path):
    _tree(tmp_path)
    result = run_devlint(".", "--isolated", "--fix", "--jobs", "2", cwd=tmp_path)
    assert "20 fixed" in result.stderr
    fixed = [p for p in tmp_path.rglob("*.py") if p.read_text().endswith("x = x.to(dev)\n")]
    assert len(fixed) == 20


def test_diff_with_workers_matches_one_process(tmp_path):
    _tree(tmp_path)
    one = run_devlint(".", "--isolated", "--diff", "--jobs", "1", cwd=tmp_path)
    many = run_devlint(".", "--isolated", "--diff", "--jobs", "2", cwd=tmp_path)
    assert one.stdout.count("+x = x.to(dev)") == 20 and many.stdout == one.stdout


def test_jobs_must_be_a_positive_number(tmp_path):
    for value in ("0", "many"):
        result = run_devlint(".", "--jobs", value, cwd=tmp_path)
        assert result.returncode == 2 and "--jobs" in result.stderr and "Traceback" not in result.stderr


def test_a_pre_commit_run_of_ten_files_is_checked_in_one_process():
    assert not workers_pay(10, jobs=2)
    assert workers_pay(MIN_FILES_FOR_WORKERS, jobs=2)
    assert not workers_pay(1000, jobs=1)


def test_too_few_files_for_workers_never_start_a_pool(tmp_path, monkeypatch):
    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(parallel, "run_parallel", no_pool)
    paths = []
    for i in range(3):
        path = tmp_path / f"m{i}.py"
        path.write_text(MOVE)
        paths.append(str(path))
    outcomes = list(run(paths, Settings(), Mode(), jobs=2))
    assert [[d.code for d in outcome.diagnostics] for outcome in outcomes] == [["DEV001"]] * 3


def test_a_worker_imports_libcst_only_for_a_file_that_needs_it_then_freezes_it_for_the_collector(tmp_path):
    # a warm run (every file from the cache) never pays for LibCST; a chunk that parses freezes it, and
    # the visitors, out of the collector's sight
    (tmp_path / "cached.py").write_text("x = 1\n")
    (tmp_path / "parsed.py").write_text(MOVE)
    code = (
        "import gc, sys\n"
        "from devlint.runner.parallel import _start_worker, _check_chunk\n"
        "from devlint.runner.runner import Mode, process\n"
        "from devlint.engine.settings import Settings\n"
        "_start_worker()\n"
        f"_check_chunk(process, [{str(tmp_path / 'cached.py')!r}], Settings(), Mode(), None)\n"
        "print('libcst' in sys.modules, gc.get_freeze_count() > 0)\n"
        f"_check_chunk(process, [{str(tmp_path / 'parsed.py')!r}], Settings(), Mode(), None)\n"
        "print('libcst' in sys.modules, 'devlint.rules.dev001_discarded_move.visitor' in sys.modules,"
        " gc.get_freeze_count() > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.split() == ["False", "False", "True", "True", "True"]
