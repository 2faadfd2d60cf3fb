"""action.yml: a composite GitHub Action, run here step by step as a runner would run it.

`run_action` plays the runner on a temporary git repository, without network: it evaluates each
step's `if:`, gives `run:` steps their `env:` (`${{ inputs.* }}`, `${{ steps.*.outputs.* }}`), runs
them with the runner's `bash --noprofile --norc -eo pipefail`, collects `$GITHUB_OUTPUT`, honours
`continue-on-error` and stops at the first failing step. `uses:` steps (the SARIF upload) are recorded,
not run, and the install step is replaced by a `devlint` on PATH that runs this checkout."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Optional

import pytest
import yaml

from conftest import ROOT

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
BAD = 'import torch\n\ndef training_step(device):\n    state = torch.zeros(3).to(device)\n'
PUSH = {"event_name": "push", "repository": "me/project"}
PR_FROM_BRANCH = {"event_name": "pull_request", "repository": "me/project",
                  "event": {"pull_request": {"head": {"repo": {"full_name": "me/project"}}}}}
PR_FROM_FORK = {**PR_FROM_BRANCH, "event": {"pull_request": {"head": {"repo": {"full_name": "someone/project"}}}}}


# --- the runner's part --------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:('[^']*')|(&&|\|\||==|!=|!|\(|\))|([A-Za-z_][\w.-]*))")


def evaluate(expression: str, context: dict[str, Any]) -> Any:
    """A GitHub Actions expression of the kinds action.yml uses: names (`inputs.upload-sarif`),
    'strings', ==, !=, &&, ||, ! and parentheses."""
    python, position = [], 0
    expression = expression.strip()
    if expression.startswith("${{") and expression.endswith("}}"):
        expression = expression[3:-2]
    while position < len(expression.rstrip()):
        match = _TOKEN.match(expression, position)
        assert match, f"unsupported expression: {expression[position:]!r}"
        string, operator, name = match.groups()
        if string is not None:
            python.append(repr(string[1:-1]))
        elif operator is not None:
            python.append({"&&": " and ", "||": " or ", "!": " not "}.get(operator, operator))
        else:
            python.append(f"_lookup({name!r})")
        position = match.end()

    def _lookup(name: str) -> Any:
        value: Any = context
        for part in name.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value

    return eval("".join(python), {"_lookup": _lookup})  # noqa: S307 -- tokens checked above


@dataclass
class Job:
    ran: list[str] = field(default_factory=list)  # steps run (or, for `uses:`, that would run)
    skipped: list[str] = field(default_factory=list)
    failed_step: Optional[str] = None
    logs: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)

    @property
    def succeeded(self) -> bool:
        return self.failed_step is None


def run_action(workspace, tmp_path, github: dict, **inputs: str) -> Job:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "devlint"  # the install step's result: this checkout's devlint
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m devlint "$@"\n')
    shim.chmod(0o755)
    context: dict[str, Any] = {
        "inputs": {key: spec.get("default", "") for key, spec in ACTION["inputs"].items()} | inputs,
        "github": github, "steps": {},
    }
    job = Job()
    for index, step in enumerate(ACTION["runs"]["steps"]):
        name = step["name"]
        if "if" in step and not evaluate(step["if"], context):
            job.skipped.append(name)
            continue
        job.ran.append(name)
        if "uses" in step or name == "Install devlint":
            continue  # no network: the upload is only recorded, the install is the shim
        output = tmp_path / f"output-{index}"
        output.write_text("")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_OUTPUT": str(output),
               "GITHUB_STEP_SUMMARY": str(tmp_path / "step-summary.md"),
               "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
        env.update({key: str(evaluate(value, context) or "") for key, value in step.get("env", {}).items()})
        script = tmp_path / f"step-{index}.sh"
        script.write_text(step["run"])
        result = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=workspace,
                                env=env, capture_output=True, text=True)
        job.logs[name] = result
        if "id" in step:
            pairs = (line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
            context["steps"][step["id"]] = {"outputs": dict(pairs)}
        if result.returncode != 0 and not step.get("continue-on-error"):
            job.failed_step = name
            break
    return job


@pytest.fixture
def repository(tmp_path):
    """A git repository whose `src/train.py` has one DEV002 report."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "src" / "train.py").write_text(BAD)
    return repo


# --- the action, end to end ---------------------------------------------------------------------

def test_push_annotates_first_then_writes_sarif_and_fails_the_job_on_reports(repository, tmp_path):
    job = run_action(repository, tmp_path, PUSH, paths="src", **{"upload-sarif": "true"})
    assert job.ran == ["Set up Python", "Install devlint", "Run devlint", "Write SARIF",
                       "Upload SARIF to code scanning", "Fail on reports"]
    assert (job.succeeded, job.failed_step) == (False, "Fail on reports")
    annotations = job.logs["Run devlint"].stdout.splitlines()
    assert annotations == [annotation for annotation in annotations if annotation.startswith("::error ")]
    assert [line.split("::")[1] for line in annotations] == [
        "error file=src/train.py,line=4,col=13,endLine=4,endColumn=27,title=DEV002"]
    sarif = json.loads((repository / "devlint.sarif").read_text())
    [result] = sarif["runs"][0]["results"]
    assert result["ruleId"] == "DEV002"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/train.py"


def test_a_clean_repository_passes(repository, tmp_path):
    (repository / "src" / "train.py").write_text("x = 1\n")
    job = run_action(repository, tmp_path, PUSH, paths="src")
    assert job.succeeded and job.logs["Run devlint"].stdout == ""


def test_pull_request_from_a_branch_uploads_sarif(repository, tmp_path):
    job = run_action(repository, tmp_path, PR_FROM_BRANCH, paths="src", **{"upload-sarif": "true"})
    assert "Upload SARIF to code scanning" in job.ran and (repository / "devlint.sarif").exists()


def test_pull_request_from_a_fork_skips_sarif_but_still_annotates(repository, tmp_path):
    job = run_action(repository, tmp_path, PR_FROM_FORK, paths="src", **{"upload-sarif": "true"})
    assert job.skipped == ["Write SARIF", "Upload SARIF to code scanning"]
    assert not (repository / "devlint.sarif").exists()
    assert job.logs["Run devlint"].stdout.startswith("::error file=src/train.py,")
    assert job.failed_step == "Fail on reports"


def test_sarif_steps_never_fail_the_job(repository, tmp_path):
    """An unwritable SARIF path fails the SARIF step; the job's outcome is still devlint's."""
    (repository / "src" / "train.py").write_text("x = 1\n")
    job = run_action(repository, tmp_path, PUSH, paths="src",
                     **{"upload-sarif": "true", "sarif-file": "no/such/folder/devlint.sarif"})
    assert job.logs["Write SARIF"].returncode != 0
    assert job.succeeded


def test_without_upload_sarif_no_sarif_step_runs(repository, tmp_path):
    job = run_action(repository, tmp_path, PUSH, paths="src")
    assert job.skipped == ["Write SARIF", "Upload SARIF to code scanning"]


def test_annotation_paths_are_relative_to_the_repository_root_from_a_subfolder(repository, tmp_path):
    job = run_action(repository / "src", tmp_path, PUSH, paths=".")
    assert job.logs["Run devlint"].stdout.startswith("::error file=src/train.py,line=4,")


def test_args_are_split_on_whitespace_and_never_glob_expanded(repository, tmp_path):
    """`bad_*.py` reaches devlint as a pattern that excludes both files; expanded by the shell, the
    second file would become a path to check."""
    (repository / "src" / "train.py").unlink()
    (repository / "bad_one.py").write_text(BAD)
    (repository / "bad_two.py").write_text(BAD)
    job = run_action(repository, tmp_path, PUSH, paths=".", args="--extend-exclude  bad_*.py")
    assert (job.succeeded, job.logs["Run devlint"].stdout) == (True, "")


def test_args_pass_options_through(repository, tmp_path):
    job = run_action(repository, tmp_path, PUSH, paths="src", args="--ignore DEV002")
    assert job.succeeded and job.logs["Run devlint"].stdout == ""


def test_bad_args_fail_the_job_with_devlints_usage_error(repository, tmp_path):
    job = run_action(repository, tmp_path, PUSH, paths="src", args="--select NOPE")
    assert job.failed_step == "Fail on reports" and job.logs["Fail on reports"].returncode == 2
    assert "devlint: error:" in job.logs["Run devlint"].stderr


# --- the action file's shape --------------------------------------------------------------------

def test_action_is_composite_with_the_documented_inputs():
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"paths", "args", "upload-sarif", "sarif-file", "python-version", "version"}
    assert all(step.get("shell") == "bash" for step in ACTION["runs"]["steps"] if "run" in step)


def test_inputs_reach_scripts_only_through_the_environment():
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]


def test_install_step_installs_the_action_checkout_or_a_pinned_version():
    script = STEPS["Install devlint"]["run"]
    assert 'pip install "$GITHUB_ACTION_PATH"' in script and 'pip install "devlint==$DEVLINT_VERSION"' in script


def test_sarif_steps_continue_on_error_and_upload_the_written_file():
    write, upload = STEPS["Write SARIF"], STEPS["Upload SARIF to code scanning"]
    assert write["continue-on-error"] is True and upload["continue-on-error"] is True
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}" == write["env"]["DEVLINT_SARIF"]
    assert upload["if"] == write["if"]


# --- Python, paths with spaces, GitHub's annotation limits ---------------------------------------

def test_the_action_sets_up_python_unless_told_not_to(repository, tmp_path):
    setup = STEPS["Set up Python"]
    assert setup["uses"].startswith("actions/setup-python@")
    assert setup["with"]["python-version"] == "${{ inputs.python-version }}"
    assert ACTION["runs"]["steps"][0] is setup  # before anything runs `python`
    assert "Set up Python" in run_action(repository, tmp_path, PUSH).ran
    assert "Set up Python" in run_action(repository, tmp_path, PUSH, **{"python-version": ""}).skipped


def test_paths_one_per_line_keep_their_spaces(repository, tmp_path):
    spaced = repository / "my project" / "train set.py"
    spaced.parent.mkdir()
    spaced.write_text(BAD)
    job = run_action(repository, tmp_path, PUSH, paths="my project/train set.py\nsrc\n", **{"upload-sarif": "true"})
    log = job.logs["Run devlint"].stdout
    assert "file=my project/train set.py,line=4" in log and "file=src/train.py,line=4" in log
    sarif = json.loads((repository / "devlint.sarif").read_text(encoding="utf-8"))
    uris = {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for result in sarif["runs"][0]["results"]}
    assert uris == {"my%20project/train%20set.py", "src/train.py"}
    assert job.failed_step == "Fail on reports"


def test_paths_on_one_line_are_split_on_whitespace_with_globs(repository, tmp_path):
    (repository / "lib").mkdir()
    (repository / "lib" / "model.py").write_text(BAD)
    log = run_action(repository, tmp_path, PUSH, paths="src l*").logs["Run devlint"].stdout
    assert "file=src/train.py" in log and "file=lib/model.py" in log


def test_past_githubs_annotation_limit_a_notice_and_the_job_summary_carry_every_report(repository, tmp_path):
    """GitHub shows 10 error annotations per step and 50 per job; the rest are only in the log.
    Past 10, a notice says so and the job summary lists every report."""
    more = "".join(f'    state{n} = torch.zeros(3).to(device)\n' for n in range(11))
    (repository / "src" / "train.py").write_text(BAD + more)
    job = run_action(repository, tmp_path, PUSH)
    log = job.logs["Run devlint"].stdout
    assert log.count("::error ") == 12
    assert "::notice title=devlint::12 reports; GitHub shows the first 10 as annotations" in log
    summary = (tmp_path / "step-summary.md").read_text()
    assert summary.startswith("### devlint: 12 reports\n```\n")
    assert summary.count("DEV002") == 12 and "src/train.py:15:15: DEV002" in summary


def test_ten_reports_or_fewer_need_no_notice(repository, tmp_path):
    job = run_action(repository, tmp_path, PUSH)
    assert "::notice" not in job.logs["Run devlint"].stdout
    assert not (tmp_path / "step-summary.md").exists()


def test_a_workflow_runs_the_action_on_linux_macos_and_windows():
    """GitHub runs it (the runners cannot be played here): UTF-8 SARIF for a non-Latin line in a
    folder with a space, and a failed step, on each operating system."""
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "action.yml").read_text(encoding="utf-8"))
    job = workflow["jobs"]["action"]
    assert job["strategy"]["matrix"]["os"] == ["ubuntu-latest", "macos-latest", "windows-latest"]
    [action] = [step for step in job["steps"] if step.get("uses") == "./"]
    assert action["with"]["paths"].strip() == "demo/my project" and action["with"]["upload-sarif"] == "true"
    script = job["steps"][-1]["run"]
    assert 'decode("utf-8")' in script and "demo/my%20project/train.py" in script
