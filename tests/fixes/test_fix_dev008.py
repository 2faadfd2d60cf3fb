"""DEV008 fix: the `torch.amp` call with the device type, arguments kept; only where the target torch has it."""

from __future__ import annotations

import textwrap

import pytest

from fixing import unchanged

from devlint import fix_source
from devlint.engine.settings import Settings


def fixed_for(code: str, target: tuple[int, int]) -> str:
    result = fix_source(textwrap.dedent(code), "example.py", Settings(target_torch=target)).source
    assert fix_source(result, "example.py", Settings(target_torch=target)).source == result, "a second run changed it"
    return result


def check(before: str, after: str, target: tuple[int, int] = (2, 4)) -> None:
    """`before` fixes to exactly `after` for a project on `target` (default: one with all of `torch.amp`)."""
    assert fixed_for(before, target) == textwrap.dedent(after)


def test_autocast_takes_the_device_type_first():
    check("""
        import torch
        with torch.cuda.amp.autocast(dtype=torch.bfloat16):
            pass
        """, """
        import torch
        with torch.amp.autocast("cuda", dtype=torch.bfloat16):
            pass
        """)


def test_cpu_autocast_keeps_its_device_type():
    check("""
        import torch
        with torch.cpu.amp.autocast():
            pass
        """, """
        import torch
        with torch.amp.autocast("cpu"):
            pass
        """)


def test_positional_arguments_become_keywords_of_the_old_signature():
    # torch.cuda.amp.autocast(enabled, dtype, cache_enabled) vs torch.amp.autocast(device_type, dtype, enabled, ...)
    check("""
        import torch
        with torch.cuda.amp.autocast(amp, torch.half, False):
            pass
        """, """
        import torch
        with torch.amp.autocast("cuda", enabled=amp, dtype=torch.half, cache_enabled=False):
            pass
        """)


def test_keyword_options_are_passed_on():
    check("""
        import torch
        with torch.cuda.amp.autocast(**options):
            pass
        """, """
        import torch
        with torch.amp.autocast("cuda", **options):
            pass
        """)


def test_star_arguments_get_no_fix():
    unchanged("""
        import torch
        with torch.cuda.amp.autocast(*options):
            pass
        """)


def test_imported_name_is_replaced_through_the_torch_module_and_its_import_removed():
    check("""
        from torch.cuda.amp import autocast
        with autocast():
            pass
        """, """
        import torch
        with torch.amp.autocast("cuda"):
            pass
        """)


def test_only_the_names_the_rewrite_left_unused_are_removed():
    # on torch 2.2 the scaler keeps its old call (no fix), so its name stays imported
    check("""
        import torch
        from torch.cuda.amp import GradScaler, autocast
        scaler = GradScaler()
        with autocast():
            pass
        """, """
        import torch
        from torch.cuda.amp import GradScaler
        scaler = GradScaler()
        with torch.amp.autocast("cuda"):
            pass
        """, target=(2, 2))


def test_an_import_that_is_a_try_body_of_its_own_becomes_pass():
    check("""
        import torch
        try:
            from torch.cuda.amp import autocast
        except ImportError:
            pass
        with torch.cuda.amp.autocast():
            pass
        """, """
        import torch
        try:
            pass
        except ImportError:
            pass
        with torch.amp.autocast("cuda"):
            pass
        """)


def test_an_imported_name_used_elsewhere_or_exported_stays():
    unchanged_for = """
        import torch
        from torch.cuda.amp import autocast
        __all__ = ["autocast"]
        with torch.amp.autocast("cuda"):
            pass
        """
    assert fixed_for(unchanged_for, (2, 4)) == textwrap.dedent(unchanged_for)


def test_a_symbol_used_as_a_value_is_reported_without_a_fix():
    code = """
        import torch
        from contextlib import nullcontext
        ctx = torch.cuda.amp.autocast if use_amp else nullcontext
        """
    assert fixed_for(code, (2, 4)) == textwrap.dedent(code)


def test_the_files_alias_for_torch_is_used():
    check("""
        import torch as th
        from torch.cuda import amp
        with amp.autocast():
            pass
        """, """
        import torch as th
        from torch.cuda import amp
        with th.amp.autocast("cuda"):
            pass
        """)


SCALER = """
    import torch
    s = torch.cuda.amp.GradScaler(1024.0, 2.0, enabled=use_amp)
    """


def test_grad_scaler_needs_torch_2_3():
    assert fixed_for(SCALER, (2, 2)) == textwrap.dedent(SCALER)
    assert fixed_for(SCALER, (2, 3)) == textwrap.dedent("""
        import torch
        s = torch.amp.GradScaler("cuda", init_scale=1024.0, growth_factor=2.0, enabled=use_amp)
        """)


def test_unknown_target_gets_no_grad_scaler_fix():
    unchanged(SCALER)


def test_unknown_target_gets_no_autocast_fix_either():
    # a project that declares no torch may run one without `torch.amp` (before 1.12)
    unchanged("""
        import torch
        with torch.cuda.amp.autocast():
            pass
        """)


def test_autocast_needs_torch_1_12():
    code = """
        import torch
        with torch.cuda.amp.autocast():
            pass
        """
    assert fixed_for(code, (1, 11)) == textwrap.dedent(code)
    assert 'torch.amp.autocast("cuda")' in fixed_for(code, (1, 12))


PINNED_TO_AN_OLD_TORCH = """
    import torch
    from torch.cuda.amp import GradScaler, autocast

    scaler = GradScaler()

    def step(model, x):
        with autocast():
            loss = model(x)
        with torch.cuda.amp.autocast(enabled=False):
            return scaler.scale(loss)
    """


@pytest.mark.parametrize("declaration, name", [
    ("torch==1.8.1\nnumpy\n", "requirements.txt"),
    ("-r base.txt\ntorch>=1.7,<1.9  # our cluster\n", "requirements-gpu.txt"),
    ("from setuptools import setup\nsetup(name='p', install_requires=['torch>=1.9.0'])\n", "setup.py"),
    ("[options]\ninstall_requires =\n    numpy\n    torch>=1.6\n", "setup.cfg"),
    ("channels:\n  - pytorch\ndependencies:\n  - python=3.8\n  - pytorch=1.10.2\n", "environment.yml"),
    ('[project]\nname = "p"\ndependencies = ["torch>=1.8"]\n', "pyproject.toml"),
])
def test_a_project_pinned_to_a_torch_without_torch_amp_gets_no_fix(tmp_path, declaration, name):
    (tmp_path / name).write_text(declaration)
    module = tmp_path / "pkg" / "train.py"
    module.parent.mkdir()
    module.write_text(textwrap.dedent(PINNED_TO_AN_OLD_TORCH))
    result = fix_source(module.read_text(), str(module))
    assert result.source == module.read_text()
    assert [d.line for d in result.remaining if d.code == "DEV008"] == [3, 5, 8, 10]  # the reports stand

DECORATED = """
    import torch
    class Scale(torch.autograd.Function):
        @staticmethod
        @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
        def forward(ctx, x):
            return x
        @staticmethod
        @torch.cuda.amp.custom_bwd
        def backward(ctx, grad):
            return grad
    """


def test_custom_fwd_and_bwd_need_torch_2_4():
    assert fixed_for(DECORATED, (2, 3)) == textwrap.dedent(DECORATED)
    assert fixed_for(DECORATED, (2, 4)) == textwrap.dedent("""
        import torch
        class Scale(torch.autograd.Function):
            @staticmethod
            @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
            def forward(ctx, x):
                return x
            @staticmethod
            @torch.amp.custom_bwd(device_type="cuda")
            def backward(ctx, grad):
                return grad
        """)


def test_custom_fwd_called_on_a_function_keeps_it_first():
    assert fixed_for("""
        import torch
        forward = torch.cuda.amp.custom_fwd(forward_impl)
        """, (2, 4)) == textwrap.dedent("""
        import torch
        forward = torch.amp.custom_fwd(forward_impl, device_type="cuda")
        """)


def test_the_target_is_read_from_the_projects_torch_requirement(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["torch>=2.4"]\n')
    module = tmp_path / "train.py"
    module.write_text(textwrap.dedent(SCALER))
    assert 'torch.amp.GradScaler("cuda"' in fix_source(module.read_text(), str(module)).source
