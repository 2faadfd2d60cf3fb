"""action.yml: a composite GitHub Action whose shell steps run here as they would on a runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
BAD = "fixtures/DEV004-load-without-map-location/bad.py"


def run_step(name: str, tmp_path, **inputs: str) -> subprocess.CompletedProcess:
    """Run one `run:` step with bash, its `${{ inputs.X }}` env values taken from `inputs` (else the defaults),
    with `devlint` and `python` resolving to this checkout."""
    step = STEPS[name]
    values = {key: spec.get("default", "") for key, spec in ACTION["inputs"].items()} | inputs
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "PATH": f"{tmp_path}{os.pathsep}{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
    shim = tmp_path / "devlint"  # whatever `devlint` is installed, run this checkout's
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m devlint "$@"\n')
    shim.chmod(0o755)
    for key, value in step.get("env", {}).items():
        expression = value.strip()
        assert expression.startswith("${{ inputs.") and expression.endswith("}}"), expression
        env[key] = values[expression[len("${{ inputs."):-2].strip()]
    return subprocess.run(["bash", "-c", step["run"]], cwd=ROOT, env=env, capture_output=True, text=True)


def test_action_is_composite_with_the_documented_inputs():
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"paths", "args", "upload-sarif", "sarif-file", "version"}
    assert all(step.get("shell") == "bash" for step in ACTION["runs"]["steps"] if "run" in step)


def test_inputs_reach_scripts_only_through_the_environment():
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]


def test_install_step_installs_the_action_checkout_or_a_pinned_version():
    script = STEPS["Install devlint"]["run"]
    assert 'pip install "$GITHUB_ACTION_PATH"' in script and 'pip install "devlint==$DEVLINT_VERSION"' in script


def test_check_step_annotates_and_fails_on_reports(tmp_path):
    result = run_step("Run devlint", tmp_path, paths=BAD)
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and all(line.startswith(f"::error file={BAD},line=") for line in lines)


def test_check_step_passes_args_through(tmp_path):
    result = run_step("Run devlint", tmp_path, paths=BAD, args="--ignore DEV004")
    assert (result.returncode, result.stdout) == (0, "")


def test_sarif_step_writes_the_file_and_never_fails_the_job(tmp_path):
    target = tmp_path / "out.sarif"
    step = STEPS["Write SARIF"]
    assert step["if"] == "inputs.upload-sarif == 'true'"
    result = run_step("Write SARIF", tmp_path, paths=BAD, **{"sarif-file": str(target)})
    assert result.returncode == 0, result.stderr
    assert len(json.loads(target.read_text())["runs"][0]["results"]) == 3


def test_upload_step_uses_codeql_upload_sarif_with_the_same_file():
    step = STEPS["Upload SARIF to code scanning"]
    assert step["uses"].startswith("github/codeql-action/upload-sarif@")
    assert step["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    assert step["if"] == STEPS["Write SARIF"]["if"]


@pytest.mark.parametrize("name", ["Write SARIF", "Run devlint"])
def test_bad_args_exit_2(tmp_path, name):
    result = run_step(name, tmp_path, paths=BAD, args="--select NOPE", **{"sarif-file": str(tmp_path / "x")})
    assert result.returncode == 2
