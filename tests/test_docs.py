"""Documentation generated from, or checked against, the code: rule pages, the README's rules table,
and the README's copy-paste snippets (they must parse, and their devlint commands must run)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from conftest import ROOT
from devlint import DOCS_URL, PROJECT_URL
from devlint.frontends.report.docs import readme_with_table, rule_pages, rules_table, table_row
from devlint.rules import all_rules
from devlint.frontends.report.page import rule_page

README = (ROOT / "README.md").read_text()
FENCED = re.compile(r"^```(\w+)\n(.*?)^```", re.M | re.S)
BUGGY = "import torch\n\nx = torch.zeros(3)\nx.to('cpu')\nstate = torch.load('model.pt')\n"


def blocks(language: str) -> list[str]:
    return [body for lang, body in FENCED.findall(README) if lang == language]


def yaml_blocks() -> list[dict]:
    return [yaml.safe_load(body) for body in blocks("yaml")]


# --- generated documentation --------------------------------------------------------------------

def test_committed_rule_pages_are_the_generated_ones():
    committed = {path.name: path.read_text() for path in (ROOT / "docs" / "rules").glob("*.md")}
    assert committed == rule_pages(), "regenerate with: python -m devlint.frontends.report.docs"


def test_readme_rules_table_is_generated_from_the_metadata():
    assert readme_with_table(README) == README, "regenerate with: python -m devlint.frontends.report.docs"
    table = rules_table()
    for entry in all_rules():
        rule = entry.rule
        link = f"[{rule.code}](docs/rules/{rule.code}.md)"
        tier = "preview" if rule.preview else "default"
        assert f"| {link} | {rule.name} | {rule.summary} | {rule.fix_safety.value} | {tier} |" in table


def test_a_preview_rule_says_so_in_its_row_and_on_its_page():
    from dataclasses import replace

    rule = replace(all_rules()[0].rule, preview=True)
    assert "| preview |" in table_row(rule)
    assert "in **preview**" in rule_page(rule) and "`--preview`" in rule_page(rule)
    assert "preview" not in rule_page(all_rules()[0].rule).split("## What it does")[0]


def test_a_rules_preview_shapes_get_their_own_section_on_its_page():
    from dataclasses import replace

    rule = replace(all_rules()[0].rule, preview_shapes="`x.to(d)` of an unknown `x`.")
    assert "\n## In preview\n\nWith `--preview` the rule also reports: `x.to(d)` of an unknown `x`.\n" in rule_page(rule)
    assert "## In preview" not in rule_page(all_rules()[0].rule)


def test_rule_urls_point_at_the_committed_pages():
    assert DOCS_URL == f"{PROJECT_URL}/blob/main/docs/rules"
    for entry in all_rules():
        relative = entry.rule.url[len(f"{PROJECT_URL}/blob/main/"):]
        assert (ROOT / relative).is_file()


def test_regenerating_changes_nothing(tmp_path):
    from devlint.frontends.report.docs import write_docs

    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs" / "rules").mkdir(parents=True)
    for name, text in rule_pages().items():
        (tmp_path / "docs" / "rules" / name).write_text(text)
    assert write_docs(str(tmp_path)) == []


# --- README snippets ----------------------------------------------------------------------------

def test_every_yaml_and_toml_snippet_parses():
    assert len(blocks("yaml")) >= 4 and blocks("toml")
    for body in blocks("yaml"):
        assert isinstance(yaml.safe_load(body), dict)
    for body in blocks("toml"):
        tomllib.loads(body)


def test_toml_configuration_snippet_is_valid_devlint_configuration():
    from devlint.runner.config import settings_from
    from devlint.rules import rule_codes

    sections = [tomllib.loads(body)["tool"]["devlint"] for body in blocks("toml") if "tool" in tomllib.loads(body)]
    assert sections
    for section in sections:
        settings_from(section, "README.md", ".", rule_codes())


def test_editor_snippets_start_devlint_lsp():
    import json

    helix = [tomllib.loads(body) for body in blocks("toml") if "language-server" in tomllib.loads(body)]
    assert [config["language-server"]["devlint"] for config in helix] == [{"command": "devlint", "args": ["lsp"]}]
    (vscode,) = [json.loads(body) for body in blocks("json") if "glspc.server.command" in body]
    assert (vscode["glspc.server.command"], vscode["glspc.server.commandArguments"]) == ("devlint", ["lsp"])
    neovim = blocks("lua")
    assert len(neovim) == 2 and all('cmd = { "devlint", "lsp" }' in body for body in neovim)
    assert '("devlint" "lsp")' in "".join(blocks("elisp"))


def test_pre_commit_snippets_name_this_project_its_hooks_and_the_release_of_this_version():
    from devlint import __version__

    hook_ids = {hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    repos = [repo for config in yaml_blocks() for repo in config.get("repos", [])]
    ours = [repo for repo in repos if repo["repo"] == PROJECT_URL]
    # `rev:` is the tag of this code's version, so the snippet runs the devlint this README describes; a
    # release sets both (CHANGELOG.md, Releasing). tests/test_readme_commands.py runs the hooks at that tag.
    assert ours and all(repo["rev"] == f"v{__version__}" for repo in ours)
    assert all(hook["id"] in hook_ids for repo in ours for hook in repo["hooks"])
    flake8 = [repo for repo in repos if repo["repo"].endswith("/flake8")]
    assert flake8 and flake8[0]["hooks"][0]["additional_dependencies"] == [
        f"devlint @ git+{PROJECT_URL}@v{__version__}"]
    assert "--extend-select=DEV" in flake8[0]["hooks"][0]["args"]
    pins = re.findall(r"(?:@|rev: )(v\d+\.\d+\.\d+)", README)  # the Install section's pin too
    assert len(pins) >= 3 and set(pins) == {f"v{__version__}"}


def workflow_steps() -> list[dict]:
    return [step for config in yaml_blocks() for job in config.get("jobs", {}).values() for step in job["steps"]]


def test_workflow_uses_this_action_with_its_real_inputs():
    action_inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    slug = PROJECT_URL.removeprefix("https://github.com/")
    ours = [step for step in workflow_steps() if step.get("uses", "").startswith(f"{slug}@")]
    assert ours and all(step["uses"] == f"{slug}@main" for step in ours)  # (the comment names the release pin)
    assert all(set(step.get("with", {})) <= action_inputs for step in ours)
    uploads = [step for step in workflow_steps()
               if step.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert uploads, "the README shows uploading SARIF"


def snippet_commands() -> list[str]:
    """Every devlint command in the README's shell snippets and workflow `run:` steps, in order."""
    commands = [line.split("  #")[0].strip() for body in blocks("sh") for line in body.splitlines()]
    commands += [step["run"] for step in workflow_steps() if "run" in step]
    return [command for command in commands if command.startswith("devlint ")]


@pytest.fixture
def user_project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(BUGGY)
    return tmp_path


def test_snippet_devlint_commands_run(user_project, tmp_path):
    commands = snippet_commands()
    assert len(commands) >= 8
    shim = tmp_path / "bin" / "devlint"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m devlint "$@"\n')
    shim.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}"}
    for command in commands:
        shlex.split(command)  # well-formed shell words
        result = subprocess.run(["bash", "-c", command], cwd=user_project, env=env, capture_output=True, text=True)
        assert result.returncode in (0, 1), f"{command}: {result.stderr}"
        assert "error" not in result.stderr, f"{command}: {result.stderr}"
    assert (user_project / "devlint-baseline.json").is_file() and (user_project / "devlint.sarif").is_file()
