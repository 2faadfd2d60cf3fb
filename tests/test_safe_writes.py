"""`--fix` never loses a byte: it writes a temporary file in the same directory and renames it over
the original (so a reader sees the old file or the new one, never half of one), keeps the mode,
refuses to overwrite a file that changed since it was read, and reports what it cannot write while
still fixing the rest.

Leftovers: a run killed between creating its temporary file and renaming it (SIGKILL, power loss)
can leave `.devlint-XXXXXXXX.tmp` next to the file. That name never ends in `.py`, so devlint,
flake8 and Python never take it for source; the original is intact and it is safe to delete."""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import time

import pytest

from devlint import fix_source
from devlint.engine.settings import Settings
from tests.conftest import ROOT, run_devlint

BUGGY = (
    "import torch\n"
    "state = torch.load('model.pt')\n"  # DEV004 (unsafe fix)
    "device = 'cuda'\n"  # DEV003
    "weights = torch.load('weights.pt')\n"
)
# DEV003 and DEV004 are in preview: every run here names them.
RULES = ("--preview",)


def fixed(text: str) -> str:
    return fix_source(text, "x.py", Settings(preview=True), unsafe=True).source


def leftovers(root) -> list[str]:
    return sorted(str(p) for p in root.rglob(".devlint-*"))


def test_fix_writes_the_complete_fixed_file_and_keeps_its_mode(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(BUGGY)
    path.chmod(0o751)
    result = run_devlint("--isolated", *RULES, "--fix", "--unsafe-fixes", "model.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert path.read_text() == fixed(BUGGY) != BUGGY
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert leftovers(tmp_path) == []


def test_fix_goes_through_a_temporary_file_in_the_same_directory_and_a_rename(tmp_path, monkeypatch):
    from devlint.sources import files

    path = tmp_path / "model.py"
    path.write_text(BUGGY)
    renames = []
    real_replace = os.replace

    def recording_replace(src, dst):
        renames.append((os.path.dirname(src), os.path.basename(src), dst))
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", recording_replace)
    source = files.read_source(str(path))
    files.write_source(source, fixed(BUGGY))
    [(directory, name, target)] = renames
    assert directory == str(tmp_path) and target == str(path)
    assert name.startswith(".devlint-") and name.endswith(".tmp")


def test_a_failed_rename_leaves_the_original_and_no_temporary_file(tmp_path, monkeypatch):
    from devlint.sources import files

    path = tmp_path / "model.py"
    path.write_text(BUGGY)

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", failing_replace)
    with pytest.raises(files.SourceError, match="model.py: cannot write file: No space left on device"):
        files.write_source(files.read_source(str(path)), fixed(BUGGY))
    assert path.read_text() == BUGGY
    assert leftovers(tmp_path) == []


def test_fix_through_a_symlink_writes_the_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.py"
    target.write_text(BUGGY)
    os.symlink("real.py", tmp_path / "link.py")
    result = run_devlint("--isolated", *RULES, "--fix", "--unsafe-fixes", "link.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert os.path.islink(tmp_path / "link.py")
    assert target.read_text() == fixed(BUGGY)


def test_a_file_changed_while_being_fixed_is_not_overwritten(tmp_path, monkeypatch, capsys):
    from devlint.frontends import cli
    from devlint.sources import document

    (tmp_path / "a.py").write_text(BUGGY)
    (tmp_path / "b.py").write_text(BUGGY)
    edited = BUGGY + "# saved by the editor meanwhile\n"
    real_fix_text = document.fix_text

    def fix_while_someone_edits(source, path, *args, **kwargs):
        result = real_fix_text(source, path, *args, **kwargs)
        if path.endswith("a.py"):
            (tmp_path / "a.py").write_text(edited)
        return result

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(document, "fix_text", fix_while_someone_edits)
    code = cli.main(["--isolated", *RULES, "--fix", "--unsafe-fixes", "."])
    err = capsys.readouterr().err
    assert code == 2
    assert "devlint: error: a.py: file changed on disk while being fixed; not written" in err
    assert (tmp_path / "a.py").read_text() == edited
    assert (tmp_path / "b.py").read_text() == fixed(BUGGY)


def test_an_unwritable_file_is_reported_and_the_others_are_fixed(tmp_path, monkeypatch, capsys):
    """As root nothing is unwritable, so the refusal is simulated where the temporary file is made."""
    import tempfile

    from devlint.frontends import cli

    for name in ("locked", "open"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text(BUGGY)
    real_mkstemp = tempfile.mkstemp

    def refusing_mkstemp(*args, dir=None, **kwargs):
        if os.path.basename(dir) == "locked":
            raise PermissionError(13, "Permission denied")
        return real_mkstemp(*args, dir=dir, **kwargs)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "mkstemp", refusing_mkstemp)
    code = cli.main(["--isolated", *RULES, "--fix", "--unsafe-fixes", "."])
    err = capsys.readouterr().err
    assert code == 2
    assert "devlint: error: locked/m.py: cannot write file: Permission denied" in err
    assert (tmp_path / "locked" / "m.py").read_text() == BUGGY
    assert (tmp_path / "open" / "m.py").read_text() == fixed(BUGGY)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into a read-only directory")
def test_an_unwritable_directory_for_real(tmp_path):
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro" / "m.py").write_text(BUGGY)
    (tmp_path / "ro").chmod(0o555)
    try:
        result = run_devlint("--isolated", *RULES, "--fix", "--unsafe-fixes", "ro", cwd=tmp_path)
    finally:
        (tmp_path / "ro").chmod(0o755)
    assert result.returncode == 2 and "cannot write file: Permission denied" in result.stderr
    assert (tmp_path / "ro" / "m.py").read_text() == BUGGY


def _tree(root, count: int) -> dict[str, tuple[bytes, bytes]]:
    """`count` files with fixable bugs: path -> (original, complete fixed version)."""
    variants = [BUGGY + "".join(f"layer_{j} = torch.load('part_{v}_{j}.pt')\n" for j in range(20)) for v in range(3)]
    versions = [(text.encode(), fixed(text).encode()) for text in variants]
    expected = {}
    for i in range(count):
        path = root / f"pkg{i % 10}" / f"module_{i}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(versions[i % 3][0])
        expected[str(path)] = versions[i % 3]
    return expected


def test_sigkill_at_random_moments_leaves_each_file_original_or_completely_fixed(tmp_path):
    seed = int(os.environ.get("DEVLINT_KILL_SEED", time.time_ns() % 10_000))
    rng = random.Random(seed)
    command = [sys.executable, "-m", "devlint", "--isolated", *RULES, "--fix", "--unsafe-fixes", "-q", "."]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kinds_seen: set[bool] = set()
    for round_number in range(4):
        root = tmp_path / f"round{round_number}"
        root.mkdir()
        expected = _tree(root, 60)
        process = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 2.5))
        process.send_signal(signal.SIGKILL)
        process.wait()
        for path, (original, complete) in expected.items():
            data = open(path, "rb").read()
            assert data in (original, complete), f"{path} is neither original nor fixed (seed {seed})"
            kinds_seen.add(data == complete)
        stray = [p for p in leftovers(root) if not (os.path.basename(p).startswith(".devlint-") and p.endswith(".tmp"))]
        assert stray == [], f"temporary files that could pass for source (seed {seed})"
        assert not any(p.endswith(".py") for p in leftovers(root))
    # a later run over the last tree finishes the job
    assert subprocess.run(command, cwd=root, env=env, capture_output=True).returncode in (0, 1)
    assert all(open(p, "rb").read() == complete for p, (_, complete) in expected.items())
    assert kinds_seen, f"no file was examined (seed {seed})"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_die_with_a_killed_parent(tmp_path):
    """A `--fix --jobs 2` killed with SIGKILL must not leave workers fixing files behind."""
    for i in range(400):
        (tmp_path / f"m{i}.py").write_text(BUGGY)
    command = [sys.executable, "-m", "devlint", "--isolated", *RULES, "--fix", "--unsafe-fixes", "-q", "--jobs", "2",
               "."]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    deadline = time.monotonic() + 30
    while not workers and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
        children = f"/proc/{process.pid}/task/{process.pid}/children"
        try:
            workers = [int(pid) for pid in open(children).read().split()]
        except OSError:
            workers = []
    if not workers:
        process.wait()
        pytest.skip("the run ended before its workers could be seen")
    process.send_signal(signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + 10
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [pid for pid in alive if os.path.exists(f"/proc/{pid}") and "Z" not in _state(pid)]
    assert alive == []


def _state(pid: int) -> str:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"
