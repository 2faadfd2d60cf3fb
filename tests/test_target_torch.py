"""The target torch version: configured, else read from the project's own requirement on torch."""

from __future__ import annotations

import pytest

from conftest import run_devlint
from devlint.engine.target_torch import declared_torch, parse_target_torch, target_torch


@pytest.mark.parametrize("requirement, version", [
    ("torch>=2.6", (2, 6)),
    ("torch >= 2.6.1", (2, 6)),
    ("torch~=2.5.1", (2, 5)),
    ("torch==2.4.*", (2, 4)),
    ("torch>=2.1,<3", (2, 1)),
    ("torch (>=2.3)", (2, 3)),
    ("torch[opt]>=2.2; python_version >= '3.9'", (2, 2)),
    ("torch>=2.6.0+cu121", (2, 6)),
    ("Torch>=2.7", (2, 7)),
])
def test_lower_bound_of_the_torch_requirement(requirement, version):
    assert declared_torch({"dependencies": [requirement]}) == version


@pytest.mark.parametrize("requirement", [
    "torch", "torch<2.5", "torch!=2.5.0", "torch>=2.6.0rc1", "torch @ https://example.com/torch.whl",
])
def test_no_lower_bound_we_can_read_is_unknown(requirement):
    assert declared_torch({"dependencies": [requirement]}) is None


def test_a_requirement_on_another_package_says_nothing():
    assert declared_torch({"dependencies": ["torchvision>=0.20", "numpy>=2"]}) is None


def test_optional_dependencies_count_when_the_dependencies_do_not_name_torch():
    project = {"dependencies": ["numpy"], "optional-dependencies": {"gpu": ["torch>=2.6"], "cpu": ["torch>=2.4"]}}
    assert declared_torch(project) == (2, 4)  # the lowest any way of installing allows


def test_two_requirements_on_torch_take_the_lowest():
    assert declared_torch({"dependencies": ["torch>=2.6; sys_platform != 'darwin'",
                                            "torch>=2.2; sys_platform == 'darwin'"]}) == (2, 2)


def test_dynamic_dependencies_are_unknown():
    assert declared_torch({"dynamic": ["dependencies"], "dependencies": ["torch>=2.6"]}) is None


def test_configured_target_wins_over_the_project(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["torch>=2.6"]\n')
    module = tmp_path / "pkg" / "train.py"
    module.parent.mkdir()
    module.write_text("")
    assert target_torch(None, str(module)) == (2, 6)
    assert target_torch((2, 7), str(module)) == (2, 7)


def test_parse_target_torch():
    assert parse_target_torch("2.6") == (2, 6)
    assert parse_target_torch("2.10") == (2, 10)
    assert parse_target_torch("2") is None
    assert parse_target_torch("latest") is None


def test_target_torch_in_the_configuration_decides_the_fix(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.devlint]\ntarget-torch = "2.4"\n')
    module = tmp_path / "train.py"
    module.write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    result = run_devlint("--fix", str(module), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert module.read_text() == 'import torch\nscaler = torch.amp.GradScaler("cuda")\n'


def test_target_torch_flag(tmp_path):
    module = tmp_path / "train.py"
    module.write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    assert run_devlint("--isolated", "--fix", str(module), cwd=tmp_path).returncode == 1  # 2.1 assumed: no fix
    assert run_devlint("--isolated", "--fix", "--target-torch", "2.3", str(module), cwd=tmp_path).returncode == 0
    assert module.read_text() == 'import torch\nscaler = torch.amp.GradScaler("cuda")\n'


@pytest.mark.parametrize("value", ["2.6", "'2'", '"latest"'])
def test_bad_target_torch_is_a_configuration_error(tmp_path, value):
    (tmp_path / "pyproject.toml").write_text(f"[tool.devlint]\ntarget-torch = {value}\n")
    (tmp_path / "m.py").write_text("import torch\n")
    result = run_devlint(str(tmp_path / "m.py"), cwd=tmp_path)
    assert result.returncode == 2
    assert "'target-torch' must be a torch version as a string" in result.stderr


def test_bad_target_torch_flag_is_a_usage_error(tmp_path):
    assert run_devlint("--target-torch", "two", str(tmp_path), cwd=tmp_path).returncode == 2


def _project(tmp_path, files: dict) -> str:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    module = tmp_path / "pkg" / "train.py"
    module.parent.mkdir()
    module.write_text("")
    return str(module)


def test_requirements_files_declare_the_target(tmp_path):
    module = _project(tmp_path, {"requirements.txt": "numpy\ntorch>=2.4  # cuda 12\n",
                                 "requirements-dev.txt": "-r requirements.txt\ntorch==2.6.*\n"})
    assert target_torch(None, module) == (2, 4)  # the lowest any file allows


def test_setup_py_install_requires_through_a_name(tmp_path):
    module = _project(tmp_path, {"setup.py": "REQUIRED = ['torch~=2.5.1']\nsetup(install_requires=REQUIRED)\n"})
    assert target_torch(None, module) == (2, 5)


def test_environment_yml_reads_dependencies_not_channels(tmp_path):
    module = _project(tmp_path, {"environment.yml": "channels:\n  - pytorch\ndependencies:\n  - pytorch=2.3.1\n"
                                                   "  - pip:\n    - torch>=2.2\n"})
    assert target_torch(None, module) == (2, 2)


def test_a_pyproject_with_dynamic_dependencies_leaves_them_to_setup_py(tmp_path):
    module = _project(tmp_path, {"pyproject.toml": '[project]\nname = "p"\ndynamic = ["dependencies"]\n',
                                 "setup.py": "setup(install_requires=['torch>=2.6'])\n"})
    assert target_torch(None, module) == (2, 6)


def test_a_requirement_without_a_bound_anywhere_makes_it_unknown(tmp_path):
    module = _project(tmp_path, {"requirements.txt": "torch\n", "setup.py": "setup(install_requires=['torch>=2.6'])\n"})
    assert target_torch(None, module) is None
