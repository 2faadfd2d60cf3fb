"""The result cache: same reports warm as cold, keyed so that it can never serve a stale result."""

from __future__ import annotations

import os

import pytest
from dataclasses import replace

from devlint.runner.cache import MARKER, Cache, clean
from devlint.runner.runner import Mode, process
from devlint.engine.settings import Settings

from conftest import run_devlint

BAD = "import torch\nstate = torch.load(path)\n"
GOOD = "import torch\nstate = torch.load(path, map_location='cpu')\n"
NAMED = Settings(preview=True)  # BAD's DEV004 is in preview: off unless named


def _codes(outcome):
    return [(d.line, d.col, d.code) for d in outcome.diagnostics]


def _entries(directory):
    return sorted(name for _, _, names in os.walk(directory) for name in names if name.endswith(".json"))


def test_a_warm_run_prints_exactly_what_the_cold_run_printed(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    cold = run_devlint(".", "--isolated", "--preview", cwd=tmp_path)
    assert _entries(tmp_path / ".devlint_cache")  # the cold run stored its result
    warm = run_devlint(".", "--isolated", "--preview", cwd=tmp_path)
    assert "train.py:2:9: DEV004" in cold.stdout
    assert (warm.stdout, warm.stderr, warm.returncode) == (cold.stdout, cold.stderr, cold.returncode)


def test_a_cached_result_is_served_from_the_files_bytes_without_decoding_them(tmp_path, monkeypatch):
    from devlint.sources import document

    path = tmp_path / "train.py"
    path.write_text(BAD)
    cache = Cache(str(tmp_path / "cache"))
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]
    monkeypatch.setattr(document, "decode_source", lambda *_: (_ for _ in ()).throw(AssertionError("decoded")))
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]


def test_a_file_that_cannot_be_decoded_is_an_error_with_the_cache_too(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes(b"# coding: ascii\nname = '\xe9'\n")
    outcome = process(str(path), NAMED, Mode(), Cache(str(tmp_path / "cache")))
    assert outcome.error is not None and "cannot decode" in outcome.error


def test_the_cache_directory_ignores_itself_in_git(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    run_devlint(".", "--isolated", cwd=tmp_path)
    assert (tmp_path / ".devlint_cache" / ".gitignore").read_text() == "*\n"


def test_a_cached_result_is_not_used_once_the_file_changes(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(GOOD)
    cache = Cache(str(tmp_path / "cache"))
    assert _codes(process(str(path), NAMED, Mode(), cache)) == []
    path.write_text(BAD)
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]


def test_a_cached_result_is_not_used_under_other_settings(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(BAD)
    cache = Cache(str(tmp_path / "cache"))
    assert _codes(process(str(path), replace(NAMED, ignore=("DEV004",)), Mode(), cache)) == []
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]
    assert _codes(process(str(path), replace(NAMED, per_file_ignores=(("train.py", ("DEV004",)),), root=str(tmp_path)),
                          Mode(), cache)) == []


def test_the_key_changes_with_devlints_own_code(tmp_path, monkeypatch):
    import devlint.runner.cache as cache_module

    cache = Cache(str(tmp_path))
    before = cache.key("a.py", b"x", Settings(), False)
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "an edited rule")
    assert cache.key("a.py", b"x", Settings(), False) != before


def test_a_cached_result_is_not_used_for_another_target_torch(tmp_path):
    # which fixes are offered follows the target torch version: `[*]` must not come from another target
    path = tmp_path / "train.py"
    path.write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    cache = Cache(str(tmp_path / "cache"))
    unknown = process(str(path), Settings(), Mode(), cache).diagnostics
    assert [d.fix for d in unknown] == [None]
    known = process(str(path), Settings(target_torch=(2, 3)), Mode(), cache).diagnostics
    assert [d.fix is not None for d in known] == [True]
    project = tmp_path / "project"  # (a directory's requirement is read once per run)
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["torch>=2.4"]\n')
    (project / "train.py").write_text(path.read_text())
    declared = process(str(project / "train.py"), Settings(), Mode(), cache).diagnostics
    assert [d.fix is not None for d in declared] == [True]


def test_a_corrupt_entry_is_a_miss_and_the_file_is_checked_again(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(BAD)
    directory = tmp_path / "cache"
    cache = Cache(str(directory))
    process(str(path), NAMED, Mode(), cache)
    for entry in directory.rglob("*.json"):
        entry.write_text('{"key": "trunc')
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]


def test_an_unwritable_cache_is_skipped_silently(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(BAD)
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    assert _codes(process(str(path), NAMED, Mode(), Cache(str(blocker)))) == [(2, 9, "DEV004")]


def test_no_cache_writes_nothing_and_cache_dir_moves_it(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    run_devlint(".", "--isolated", "--no-cache", cwd=tmp_path)
    assert not (tmp_path / ".devlint_cache").exists()
    run_devlint(".", "--isolated", "--cache-dir", "elsewhere", cwd=tmp_path)
    assert _entries(tmp_path / "elsewhere") and not (tmp_path / ".devlint_cache").exists()


def test_fix_runs_do_not_use_the_cache(tmp_path):
    (tmp_path / "train.py").write_text("import torch\nx = torch.randn(3)\nx.to(dev)\n")
    run_devlint(".", "--isolated", "--fix", cwd=tmp_path)
    assert not (tmp_path / ".devlint_cache").exists()
    assert (tmp_path / "train.py").read_text().endswith("x = x.to(dev)\n")


def test_the_cache_lives_next_to_the_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.devlint]\nselect = ['DEV']\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(BAD)
    run_devlint(".", cwd=tmp_path / "src")
    assert _entries(tmp_path / ".devlint_cache")


def test_clean_removes_the_cache_and_only_a_devlint_cache(tmp_path):
    (tmp_path / "train.py").write_text(BAD)
    run_devlint(".", "--isolated", cwd=tmp_path)
    assert (tmp_path / ".devlint_cache" / MARKER).is_file()
    result = run_devlint("clean", cwd=tmp_path)
    assert result.returncode == 0 and not (tmp_path / ".devlint_cache").exists()
    (tmp_path / "precious").mkdir()
    refused = run_devlint("clean", "--cache-dir", "precious", cwd=tmp_path)
    assert refused.returncode == 2 and "not a devlint cache" in refused.stderr
    assert (tmp_path / "precious").is_dir()
    assert clean(str(tmp_path / "missing")) is False


def test_a_notebook_is_served_from_the_cache_with_its_cells(tmp_path, monkeypatch):
    """A warm run reads a notebook's reports from the cache instead of checking it again (a notebook
    used to be checked on every run: three times the warm run's time with one notebook)."""
    from conftest import FIXTURES
    from devlint.sources import document

    path = tmp_path / "training.ipynb"
    path.write_bytes((FIXTURES / "notebooks" / "training.ipynb").read_bytes())
    cache = Cache(str(tmp_path / "cache"))
    cold = process(str(path), Settings(), Mode(), cache).diagnostics
    assert cold and all(d.cell is not None and d.notebook_line is not None for d in cold)

    def checked_again(*args, **kwargs):
        raise AssertionError("the notebook was checked again")

    monkeypatch.setattr(document, "check", checked_again)
    assert process(str(path), Settings(), Mode(), cache).diagnostics == cold


def _sources(folder, count, text=BAD):
    paths = []
    for i in range(count):
        path = folder / f"m{i:02}.py"
        path.write_text(text)
        paths.append(str(path))
    return paths


def test_a_run_whose_files_are_all_cached_starts_no_worker(tmp_path, monkeypatch):
    from devlint.runner import parallel, runner

    paths = _sources(tmp_path, 20)
    cache = Cache(str(tmp_path / "cache"))
    cold = [_codes(outcome) for outcome in runner.run(paths, NAMED, Mode(), jobs=1, cache=cache)]

    def no_workers(*_args, **_kwargs):
        raise AssertionError("a worker was started")

    monkeypatch.setattr(parallel, "run_parallel", no_workers)
    assert [_codes(outcome) for outcome in runner.run(paths, NAMED, Mode(), jobs=2, cache=cache)] == cold


def test_cached_and_checked_outcomes_come_in_the_order_of_the_files(tmp_path):
    from devlint.runner import runner

    paths = _sources(tmp_path, 40)
    cache = Cache(str(tmp_path / "cache"))
    list(runner.run(paths[::2], NAMED, Mode(), jobs=1, cache=cache))  # every other file cached
    for path in paths[1::4]:
        with open(path, "w") as handle:
            handle.write(GOOD)  # and some of the others with nothing to report
    serial = [(o.path, _codes(o)) for o in runner.run(paths, NAMED, Mode(), jobs=1)]
    assert [(o.path, _codes(o)) for o in runner.run(paths, NAMED, Mode(), jobs=2, cache=cache)] == serial
    assert [path for path, _ in serial] == paths and serial[1][1] == [] and serial[2][1] == [(2, 9, "DEV004")]


def test_a_run_that_finds_few_files_cached_leaves_the_lookups_to_the_workers(tmp_path, monkeypatch):
    """A cold cache (a first run, a CI runner) is looked up in the main process only until it is plain that it
    holds few of the files: each file is not looked up twice there and in a worker. The outcomes are the same."""
    from devlint.runner import runner

    monkeypatch.setattr(runner, "LOOKUPS_BEFORE_GIVING_UP", 8)
    paths = _sources(tmp_path, 30)
    cache = Cache(str(tmp_path / "cache"))
    list(runner.run(paths[:3], NAMED, Mode(), jobs=1, cache=cache))  # 3 of the first 8 cached: fewer than half
    looked_up = []
    cached = runner._cached

    def counted(path, *args):
        looked_up.append(path)
        return cached(path, *args)

    monkeypatch.setattr(runner, "_cached", counted)
    serial = [(o.path, _codes(o)) for o in runner.run(paths, NAMED, Mode(), jobs=1)]
    assert [(o.path, _codes(o)) for o in runner.run(paths, NAMED, Mode(), jobs=2, cache=cache)] == serial
    assert looked_up == paths[:8]
    looked_up.clear()
    list(runner.run(paths, NAMED, Mode(), jobs=2, cache=cache))  # now every file is cached: all looked up here
    assert looked_up == paths


def _unreadable(monkeypatch):
    from devlint.runner import runner

    def refuse(path):
        raise AssertionError(f"{path} was read")

    monkeypatch.setattr(runner, "read_bytes", refuse)


def test_a_file_unchanged_for_a_while_is_served_by_its_status_without_being_read(tmp_path, monkeypatch):
    from devlint.engine import project

    monkeypatch.setattr(project, "RACY_SECONDS", -1.0)  # as if the file had been written long ago
    path = tmp_path / "train.py"
    path.write_text(BAD)
    cache = Cache(str(tmp_path / "cache"))
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]
    _unreadable(monkeypatch)
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]


def test_a_file_rewritten_with_its_size_and_modification_time_is_read_again(tmp_path, monkeypatch):
    # Writing moves the file's change time, which `os.utime` cannot set back: the status is another one.
    from devlint.engine import project

    monkeypatch.setattr(project, "RACY_SECONDS", -1.0)
    path = tmp_path / "train.py"
    path.write_text(BAD)
    before = os.stat(path)
    cache = Cache(str(tmp_path / "cache"))
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]
    path.write_text(BAD.replace("torch.load", "torch.loaf"))  # the same size, nothing to report
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size and os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert _codes(process(str(path), NAMED, Mode(), cache)) == []


def test_the_status_of_a_file_changed_just_now_stands_for_nothing(tmp_path, monkeypatch):
    # It may change again within one tick of a coarse clock without its times moving: its bytes stay the key.
    path = tmp_path / "train.py"
    path.write_text(BAD)
    cache = Cache(str(tmp_path / "cache"))
    assert _codes(process(str(path), NAMED, Mode(), cache)) == [(2, 9, "DEV004")]
    _unreadable(monkeypatch)
    with pytest.raises(AssertionError, match="was read"):
        process(str(path), NAMED, Mode(), cache)
