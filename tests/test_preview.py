"""Preview: a rule in preview is off unless preview is on (then selected like any other) or its full
code is selected (`--select DEV004`: naming the rule asks for it);
a rule's visitor asks `self.preview` before reporting a shape in preview; every front end can turn it on."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

import devlint.engine.settings as settings_module
from conftest import ROOT
from devlint.engine.settings import Settings
from devlint.frontends.cli import main
from devlint.runner.config import ConfigError, settings_from
from devlint.rules import rule_codes

# DEV001, and DEV004 at its default shapes (the load goes into `load_state_dict`)
BUGGY = "import torch\nx = torch.zeros(3)\nx.to('cpu')\nnet.load_state_dict(torch.load('model.pt'))\n"


@pytest.fixture
def dev004_in_preview(monkeypatch):
    """DEV004 stands in for a rule in preview (the rule table itself is not changed)."""
    monkeypatch.setattr(settings_module, "preview_codes", lambda: frozenset({"DEV004"}))


@pytest.mark.parametrize("select", [("DEV",), ("DEV00",), ("ALL",)])
def test_a_preview_rule_is_off_without_preview_when_selected_by_a_prefix(dev004_in_preview, select):
    assert not Settings(select=select).enabled("DEV004")
    assert not Settings(select=("DEV001",), extend_select=select).enabled("DEV004")


def test_a_preview_rule_named_by_its_code_runs_without_preview(dev004_in_preview):
    # naming the rule is asking for it; its preview shapes still need preview (RuleVisitor.preview)
    assert Settings(select=("DEV004",)).enabled("DEV004")
    assert Settings(extend_select=("DEV004",)).enabled("DEV004")
    assert not Settings(select=("DEV004",), ignore=("DEV004",)).enabled("DEV004")


@pytest.mark.parametrize("select", [("DEV",), ("DEV00",), ("DEV004",), ("ALL",)])
def test_with_preview_a_preview_rule_is_selected_by_code_prefix_or_all(dev004_in_preview, select):
    assert Settings(select=select, preview=True).enabled("DEV004")


def test_with_preview_a_preview_rule_still_obeys_ignore_and_selection(dev004_in_preview):
    assert not Settings(preview=True, ignore=("DEV004",)).enabled("DEV004")
    assert not Settings(select=("DEV001",), preview=True).enabled("DEV004")


def test_preview_changes_nothing_for_a_rule_not_in_preview(dev004_in_preview):
    assert Settings().enabled("DEV001") and Settings(preview=True).enabled("DEV001")


def test_preview_is_off_by_default():
    assert Settings().preview is False


@pytest.mark.parametrize("raw, expected", [({"preview": True}, True), ({"preview": False}, False), ({}, False)])
def test_preview_in_the_configuration(raw, expected):
    assert settings_from(raw, "pyproject.toml", ".", rule_codes()).preview is expected


def test_preview_in_the_configuration_must_be_a_switch():
    with pytest.raises(ConfigError, match="'preview' must be true or false"):
        settings_from({"preview": "sometimes"}, "pyproject.toml", ".", rule_codes())


def _codes(capsys, *args: str) -> tuple[list[str], str]:
    main(["--exit-zero", "--no-cache", "--output-format", "concise", *args])
    out, err = capsys.readouterr()
    return [line.split(": ", 1)[1].split()[0] for line in out.splitlines()], err


def test_the_command_line_turns_preview_on_and_off(tmp_path, monkeypatch, capsys, dev004_in_preview):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    assert _codes(capsys, "train.py")[0] == ["DEV001"]
    assert _codes(capsys, "--preview", "train.py")[0] == ["DEV001", "DEV004"]
    (tmp_path / "pyproject.toml").write_text("[tool.devlint]\npreview = true\n")
    assert _codes(capsys, "train.py")[0] == ["DEV001", "DEV004"]
    assert _codes(capsys, "--no-preview", "train.py")[0] == ["DEV001"]


def test_selecting_a_preview_rule_by_its_code_runs_it(tmp_path, monkeypatch, capsys, dev004_in_preview):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    codes, err = _codes(capsys, "--select", "DEV004", "train.py")
    assert codes == ["DEV004"] and "preview" not in err
    assert _codes(capsys, "--select", "DEV", "train.py")[0] == ["DEV001"]


def test_the_cache_keeps_results_with_and_without_preview_apart(tmp_path, dev004_in_preview):
    from devlint.runner.cache import Cache
    from devlint.runner.runner import Mode, process

    path = tmp_path / "train.py"
    path.write_text(BUGGY)
    cache = Cache(str(tmp_path / "cache"))
    codes = [[d.code for d in process(str(path), Settings(preview=preview), Mode(), cache).diagnostics]
             for preview in (False, True, False)]
    assert codes == [["DEV001"], ["DEV001", "DEV004"], ["DEV001"]]


def test_the_cache_key_includes_preview_for_the_shapes_of_a_rule_not_in_preview(tmp_path):
    from devlint.runner.cache import Cache

    cache = Cache(str(tmp_path))
    keys = {cache.key("train.py", b"x", Settings(preview=preview), False) for preview in (False, True)}
    assert len(keys) == 2


def test_a_visitor_is_told_whether_preview_is_on(monkeypatch):
    from devlint.engine.engine import analyze
    from devlint.rules.base import RuleVisitor

    seen: list[bool] = []
    original = RuleVisitor.__init__

    def recording(self, ctx):  # type: ignore[no-untyped-def]
        original(self, ctx)
        if self.rule.code == "DEV004":
            seen.append(self.preview)

    monkeypatch.setattr(RuleVisitor, "__init__", recording)
    analyze(BUGGY, "train.py", Settings(select=("DEV004",)))
    analyze(BUGGY, "train.py", Settings(select=("DEV004",), preview=True))
    assert seen == [False, True]


def test_the_flake8_plugin_reads_its_preview_option(monkeypatch):
    from devlint.frontends import flake8

    monkeypatch.setattr(flake8, "_PREVIEW", False)
    flake8.Plugin.parse_options(argparse.Namespace(devlint_preview=True))
    assert flake8._settings_for("train.py").preview is True
    flake8.Plugin.parse_options(argparse.Namespace(devlint_preview=False))
    assert flake8._settings_for("train.py").preview is False


def test_flake8_takes_the_preview_option_on_the_command_line_and_in_its_configuration(tmp_path):
    (tmp_path / "train.py").write_text(BUGGY)
    (tmp_path / "setup.cfg").write_text("[flake8]\ndevlint-preview = true\n")
    for args in (["--isolated", "--devlint-preview"], []):
        result = subprocess.run([sys.executable, "-m", "flake8", "--select", "DEV", *args, "train.py"],
                                cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)})
        assert result.returncode == 1 and "DEV004" in result.stdout, result.stderr


def test_flake8_runs_a_preview_rule_named_in_its_select(tmp_path):
    assert "DEV011" in settings_module.preview_codes()  # a rule in preview now
    (tmp_path / "train.py").write_text("import torch\nx = torch.tensor([1, 2, 3]).to(device)\n")
    for select, expected in (("DEV011", True), ("DEV", False)):
        result = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", select, "train.py"],
                                cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)})
        assert ("DEV011" in result.stdout) is expected, (select, result.stdout, result.stderr)
