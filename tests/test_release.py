"""The project is releasable: `python -m build` gives an sdist and a wheel that pass `twine check`,
the wheel installs the `devlint` command and the flake8 entry point, a tag is released only when it
names the version and a dated CHANGELOG section, and the hooks' description names every rule."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from conftest import FIXTURES, ROOT, fresh_venv

sys.path.insert(0, str(ROOT / ".ci"))
import release_notes  # noqa: E402

needs_build = pytest.mark.skipif(
    importlib.util.find_spec("build") is None or importlib.util.find_spec("twine") is None,
    reason="build and twine are in the `test` extra; not installed here")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel) as `python -m build` makes them: the wheel is built from the sdist, as pip builds
    one from a downloaded sdist. Once per module: about 20 s (an isolated environment with setuptools)."""
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    version = release_notes.package_version()
    sdist, wheel = out / f"devlint-{version}.tar.gz", out / f"devlint-{version}-py3-none-any.whl"
    assert sorted(path.name for path in out.iterdir()) == sorted([sdist.name, wheel.name])
    return sdist, wheel


@needs_build
def test_build_gives_an_sdist_and_a_wheel_that_twine_check_passes(built):
    sdist, wheel = built
    version = release_notes.package_version()
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = archive.read(f"devlint-{version}.dist-info/entry_points.txt").decode()
    assert "devlint/rules/dev010_unsynchronised_nonblocking_read/visitor.py" in names
    # fixtures/ is the one copy in the repository; the wheel carries it whole for `devlint confirm`
    assert {f"devlint/frontends/runtime/fixtures/{path.relative_to(FIXTURES).as_posix()}"
            for path in FIXTURES.rglob("*") if path.is_file() and "__pycache__" not in path.parts} <= set(names)
    assert "devlint = devlint.frontends.cli:main" in entry_points
    assert "DEV = devlint.frontends.flake8:Plugin" in entry_points
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"CHANGELOG.md", "LICENSE", "README.md", "fixtures/DEV001-discarded-tensor-move/bad.py",
            "docs/rules/DEV010.md", "tests/test_release.py", "setup.py"} <= members


@needs_build
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is in the `runtime` extra")
def test_devlint_confirm_runs_the_fixtures_the_wheel_carries_where_it_is_installed(built, tmp_path):
    """The wheel built from the sdist, in a fresh virtualenv outside the checkout, run from a folder
    outside it too: the fixtures travel as package data. The virtualenv sees this interpreter's torch
    and LibCST; devlint itself must be the wheel's."""
    _, wheel = built
    env = fresh_venv(tmp_path, system_site_packages=True)
    env_python = str(tmp_path / "venv" / "bin" / "python")
    installed = subprocess.run([env_python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], env=env,
                               capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    imported = subprocess.run([env_python, "-c", "import devlint; print(devlint.__file__)"], cwd=elsewhere, env=env,
                              capture_output=True, text=True)
    package = Path(imported.stdout.strip()).resolve().parent
    assert package.is_relative_to((tmp_path / "venv").resolve()), imported.stdout + imported.stderr
    done = subprocess.run(["devlint", "confirm", "--device", "cpu", "--json", "confirm.json"], cwd=elsewhere,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    results = json.loads((elsewhere / "confirm.json").read_text())["results"]
    ran = {Path(s["path"]).parent.parent for r in results for s in r["snippets"] if s["variant"] != "autofix"}
    assert ran == {package / "frontends" / "runtime" / "fixtures"}
    # as in the checkout (tests/test_runtime_confirm.py): DEV010, DEV011, DEV013, DEV015, DEV016 and DEV017 are shown, not judged, on a CPU
    from devlint.rules import rule_codes
    assert {r["rule"]: r["verdict"] for r in results} == {
        code: "skipped" if code in ("DEV010", "DEV011", "DEV013", "DEV015", "DEV016", "DEV017") else "confirmed" for code in rule_codes()}
    assert f"{len(rule_codes()) - 6} confirmed, 6 skipped" in done.stderr


CHANGELOG = "# Changelog\n\n## 0.2.0 (unreleased)\n\n- next\n\n## 0.1.0 (2026-12-01)\n\n- first\n"


def test_a_tag_is_released_with_its_changelog_section_as_notes():
    assert release_notes.notes("v0.1.0", CHANGELOG, "0.1.0") == "- first"


@pytest.mark.parametrize("tag, version, reason", [
    ("v0.1.1", "0.1.0", "is not the package's version: v0.1.0"),
    ("0.1.0", "0.1.0", "is not the package's version"),
    ("v0.2.0", "0.2.0", "still marked unreleased"),
    ("v0.3.0", "0.3.0", "no section '## 0.3.0'"),
])
def test_a_tag_that_is_not_ready_is_refused(tag, version, reason):
    with pytest.raises(SystemExit, match=re.escape(reason)):
        release_notes.notes(tag, CHANGELOG, version)


def test_the_changelog_has_a_section_for_the_current_version():
    heading, body = release_notes.section((ROOT / "CHANGELOG.md").read_text(), release_notes.package_version())
    assert body


def test_the_built_version_is_the_one_release_notes_reads():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "devlint.contract.project.__version__"}
    from devlint import __version__

    assert __version__ == release_notes.package_version()


def _tag_here(tag: str) -> bool:
    return shutil.which("git") is not None and subprocess.run(
        ["git", "rev-parse", "-q", "--verify", f"refs/tags/{tag}"], cwd=ROOT, capture_output=True).returncode == 0


def test_the_version_is_a_release_tagged_here_or_the_one_the_release_steps_prepare():
    """The README's `rev:` is `v` + this version (tests/test_docs.py). Where that tag is here, it is the release
    of this version, with a dated CHANGELOG section; where it is not yet (a fresh clone before the release is
    tagged), CHANGELOG.md has the version's section, which the release steps date before they tag it."""
    version = release_notes.package_version()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    if not _tag_here(f"v{version}"):
        assert release_notes.section(changelog, version)[1]
        assert "## Releasing" in changelog and "git tag vX.Y.Z" in changelog
        return
    tagged = subprocess.run(["git", "show", f"v{version}:devlint/contract/project.py"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    assert f'__version__ = "{version}"' in tagged
    tagged_changelog = subprocess.run(["git", "show", f"v{version}:CHANGELOG.md"], cwd=ROOT,
                                      capture_output=True, text=True, check=True).stdout
    assert release_notes.notes(f"v{version}", tagged_changelog, version)  # dated: what the workflow released


def test_the_release_workflow_runs_on_tags_and_checks_the_tag_first():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    assert workflow[True]["push"]["tags"] == ["v*"]  # (YAML 1.1 reads the key `on` as True)
    build_steps = [step.get("run", "") for step in workflow["jobs"]["build"]["steps"]]
    assert any("release_notes.py" in run for run in build_steps[:3])
    assert any("twine check --strict" in run for run in build_steps)
    assert workflow["jobs"]["pypi"]["permissions"] == {"id-token": "write"}


def test_the_hooks_describe_every_rule():
    from devlint.rules import rule_codes

    codes = rule_codes()
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    check = next(hook for hook in hooks if hook["id"] == "devlint")
    assert f"({codes[0]}-{codes[-1]})" in check["description"]
