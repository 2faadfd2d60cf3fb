"""DEV008 fix: the `torch.amp` call with the device type, arguments kept; only where the target torch has it."""

from __future__ import annotations

import textwrap

from fixing import check, unchanged

from devlint import fix_source
from devlint.engine.settings import Settings


def fixed_for(code: str, target: tuple[int, int]) -> str:
    return fix_source(textwrap.dedent(code), "example.py", Settings(target_torch=target)).source


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


def test_imported_name_is_replaced_through_the_torch_module():
    check("""
        from torch.cuda.amp import autocast
        with autocast():
            pass
        """, """
        from torch.cuda.amp import autocast
        import torch
        with torch.amp.autocast("cuda"):
            pass
        """)


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
