"""DEV012 fix: the `torch.accelerator` twin, only where the target torch has it; its guard too where the guard
would skip it on other accelerators."""

from __future__ import annotations

import textwrap

from devlint import fix_source
from devlint.engine.settings import Settings

PORTABLE = 'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'


def fixed_for(code: str, target: "tuple[int, int] | None" = (2, 7), unsafe: bool = False) -> str:
    settings = Settings(preview=True, target_torch=target)
    result = fix_source(PORTABLE + textwrap.dedent(code), "example.py", settings, unsafe=unsafe).source
    assert fix_source(result, "example.py", settings, unsafe=unsafe).source == result, "a second run changed it"
    return result.removeprefix(PORTABLE)


def check(before: str, after: str, **options: object) -> None:
    assert fixed_for(before, **options) == textwrap.dedent(after)  # type: ignore[arg-type]


def test_synchronize_becomes_the_accelerators():
    check("""
        torch.cuda.synchronize()
        """, """
        torch.accelerator.synchronize()
        """)


def test_a_device_keyword_becomes_positional():
    # torch.accelerator.synchronize(device=None, /): positional only
    check("""
        torch.cuda.synchronize(device=device)
        """, """
        torch.accelerator.synchronize(device)
        """)


def test_the_availability_guard_of_the_call_alone_becomes_the_accelerators():
    check("""
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        if torch.cuda.is_available(): torch.cuda.synchronize()
        """, """
        if torch.accelerator.is_available():
            torch.accelerator.synchronize()
        if torch.accelerator.is_available(): torch.accelerator.synchronize()
        """)


def test_a_guard_around_a_call_given_a_device_is_kept():
    # the device was chosen by the CUDA check: on an Apple machine it is "cpu", which the accelerator's refuses
    check("""
        if torch.cuda.is_available():
            torch.cuda.synchronize(device)
        """, """
        if torch.cuda.is_available():
            torch.accelerator.synchronize(device)
        """)


def test_a_guard_around_more_than_the_call_is_kept():
    check("""
        if torch.cuda.is_available():
            torch.cuda.synchronize()
            print("synchronised")
        """, """
        if torch.cuda.is_available():
            torch.accelerator.synchronize()
            print("synchronised")
        """)


def test_current_stream_is_unsafe():
    code = """
        s = torch.cuda.current_stream()
        """
    check(code, code)
    check(code, """
        s = torch.accelerator.current_stream()
        """, unsafe=True)


def test_torch_2_6_has_the_twins():
    # torch 2.6.0's torch/accelerator/__init__.py defines synchronize(device, /) and current_stream(device, /)
    check("""
        torch.cuda.synchronize(device=dev)
        s = torch.cuda.current_stream()
        """, """
        torch.accelerator.synchronize(dev)
        s = torch.accelerator.current_stream()
        """, target=(2, 6), unsafe=True)


def test_no_fix_before_torch_2_6_or_with_an_unknown_target():
    code = """
        torch.cuda.synchronize()
        """
    check(code, code, target=(2, 5))
    check(code, code, target=None)


def test_peak_memory_statistics_are_reset_by_the_accelerators_from_torch_2_9():
    # torch.accelerator.reset_peak_memory_stats(device, /) is in 2.9.0's torch/accelerator/memory.py, not in 2.8.0
    code = """
        torch.cuda.reset_peak_memory_stats(device=dev)
        """
    check(code, """
        torch.accelerator.reset_peak_memory_stats(dev)
        """, target=(2, 9), unsafe=True)
    check(code, code, target=(2, 9))  # unsafe: without --unsafe-fixes it stays
    check(code, code, target=(2, 8), unsafe=True)


def test_no_fix_where_no_twin_exists():
    code = """
        s = torch.cuda.Stream()
        e = torch.cuda.Event(enable_timing=True)
        """
    check(code, code, unsafe=True)


def test_the_file_alias_for_torch_is_used():
    settings = Settings(preview=True, target_torch=(2, 7))
    code = 'import torch as th\ndevice = "cuda" if th.cuda.is_available() else "cpu"\nth.cuda.synchronize()\n'
    assert fix_source(code, "example.py", settings).source == code.replace("th.cuda.synchronize", "th.accelerator.synchronize")
