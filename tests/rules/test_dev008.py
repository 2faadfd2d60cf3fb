"""DEV008 — deprecated device-specific AMP.

Each case is a snippet and the exact `(line, col, code)` reports DEV008 gives on it; the report
points at the call (or at a decorator written without parentheses).
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, reports

case = cases_for("DEV008")

FLAGGED = [
    case("a_test_that_the_deprecated_api_is_there_is_no_fallback", """
        import contextlib
        import functools
        import torch
        if torch.cuda.is_available() and hasattr(torch.cuda, "amp") and hasattr(torch.cuda.amp, "autocast"):
            autocast = functools.partial(torch.cuda.amp.autocast, dtype=torch.bfloat16)
        else:
            @contextlib.contextmanager
            def autocast():
                yield
    """, [(5, 34)]),
    case("cuda_autocast_written_out", """
        import torch
        with torch.cuda.amp.autocast():
            pass
    """, [(2, 6)]),
    case("cpu_autocast_written_out", """
        import torch
        with torch.cpu.amp.autocast(dtype=torch.bfloat16):
            pass
    """, [(2, 6)]),
    case("grad_scaler_written_out", """
        import torch
        scaler = torch.cuda.amp.GradScaler()
    """, [(2, 10)]),
    case("names_imported_from_torch_cuda_amp", """
        from torch.cuda.amp import GradScaler, autocast
        scaler = GradScaler()
        with autocast():
            pass
    """, [(1, 1), (2, 10), (3, 6)]),
    case("imported_under_another_name", """
        from torch.cuda.amp import autocast as amp_autocast
        with amp_autocast(enabled=True):
            pass
    """, [(1, 1), (2, 6)]),
    case("amp_module_imported_from_torch_cuda", """
        from torch.cuda import amp
        with amp.autocast():
            pass
    """, [(2, 6)]),
    case("amp_module_imported_as_an_alias", """
        import torch.cuda.amp as cuda_amp
        scaler = cuda_amp.GradScaler(init_scale=1024)
    """, [(2, 10)]),
    case("torch_imported_as_th", """
        import torch as th
        with th.cuda.amp.autocast():
            pass
    """, [(2, 6)]),
    case("decorators_with_and_without_parentheses", """
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
    """, [(4, 6), (8, 6)]),
    case("decorators_imported_by_name", """
        from torch.cuda.amp import custom_bwd, custom_fwd
        @custom_fwd
        def forward(ctx, x):
            return x
        @custom_bwd
        def backward(ctx, grad):
            return grad
    """, [(1, 1), (2, 2), (5, 2)]),
    case("autocast_as_a_decorator", """
        import torch
        @torch.cuda.amp.autocast()
        def forward(self, x):
            return x
    """, [(2, 2)]),
    case("submodule_path", """
        from torch.cuda.amp.grad_scaler import GradScaler
        scaler = GradScaler()
    """, [(1, 1), (2, 10)]),
    case("import_line_inside_try", """
        try:
            from torch.cuda.amp import GradScaler, autocast
        except ImportError:
            GradScaler = autocast = None
    """, [(2, 5)]),
    case("import_line_of_names_used_nowhere", """
        from torch.cuda.amp import autocast
    """, [(1, 1)]),
    case("symbol_chosen_as_a_value", """
        import torch
        from contextlib import nullcontext
        ctx = torch.cuda.amp.autocast if use_amp else nullcontext
        with ctx():
            pass
    """, [(3, 7)]),
    case("symbol_passed_on_and_returned", """
        import functools
        import torch
        bf16 = functools.partial(torch.cuda.amp.autocast, dtype=torch.bfloat16)
        def context():
            return torch.cpu.amp.autocast
    """, [(3, 26), (5, 12)]),
    case("symbol_referenced_plainly", """
        import torch
        context = torch.cuda.amp.autocast
    """, [(2, 11)]),
]

NOT_FLAGGED = [
    case("torch_amp_is_the_replacement", """
        import torch
        with torch.amp.autocast("cuda"):
            scaler = torch.amp.GradScaler("cuda")
    """, []),
    case("torch_autocast", """
        import torch
        with torch.autocast("cuda", dtype=torch.bfloat16):
            pass
    """, []),
    case("names_imported_from_torch_amp", """
        from torch.amp import GradScaler, autocast
        scaler = GradScaler("cuda")
    """, []),
    case("in_a_branch_on_the_torch_version", """
        import torch
        if torch.__version__ < "2.4":
            custom_fwd = torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
        else:
            custom_fwd = torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    """, []),
    case("in_a_conditional_expression_on_a_version_flag", """
        import torch
        scaler = torch.amp.GradScaler(device=d) if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()
    """, []),
    case("a_name_bound_to_the_old_symbol_in_one_branch_and_the_new_in_the_other", """
        import torch
        if OLD_TORCH:
            custom_fwd = torch.cuda.amp.custom_fwd
        else:
            custom_fwd = torch.amp.custom_fwd
    """, []),
    case("in_a_branch_on_the_api_being_there", """
        import torch
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()
    """, []),
    case("in_an_except_fallback", """
        import torch
        try:
            scaler = torch.amp.GradScaler("cuda")
        except AttributeError:
            scaler = torch.cuda.amp.GradScaler()
    """, []),
    case("name_bound_by_two_imports", """
        try:
            from torch.amp import autocast
        except ImportError:
            from torch.cuda.amp import autocast
        with autocast("cuda"):
            pass
    """, []),
    case("name_rebound_after_the_import", """
        from torch.cuda.amp import autocast
        autocast = make_context
        with autocast():
            pass
    """, []),
    case("named_in_a_type_test", """
        import torch
        def check(scaler):
            assert isinstance(scaler, torch.cuda.amp.GradScaler)
    """, []),
    case("a_decorator_that_reads_its_signature", """
        import torch
        @delegates(torch.cuda.amp.GradScaler)
        def to_fp16(learn, **kwargs):
            pass
    """, []),
    case("in_an_annotation", """
        import torch
        def step(scaler: torch.cuda.amp.GradScaler) -> None:
            pass
    """, []),
    case("importing_the_amp_module_of_torch_cuda", """
        from torch.cuda import amp
    """, []),
    case("import_line_in_an_except_fallback", """
        try:
            from torch.amp import GradScaler
        except ImportError:
            from torch.cuda.amp import GradScaler
    """, []),
    case("someone_elses_amp", """
        import apex.amp as amp
        with amp.autocast():
            pass
    """, []),
]


@pytest.mark.parametrize("code, expected", FLAGGED + NOT_FLAGGED)
def test_dev008(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert reports("DEV008", code) == expected
