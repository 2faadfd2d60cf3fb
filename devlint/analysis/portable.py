"""What code that chooses a device, or names a mixed-precision API, may use on the target torch version.

Checked against the torch documentation of each version and the installed torch (2.13):
`torch.set_default_device` came in 2.0 (`set_default_tensor_type` is deprecated since 2.1);
`torch.amp.autocast(device_type, ...)` came in 1.12 (`torch.autocast` in 1.10, but `torch.amp` is
newer: a project pinned to 1.10 or 1.11 has no `torch.amp`);
`torch.amp.GradScaler(device, ...)` came in 2.3, `torch.amp.custom_fwd/custom_bwd(device_type=...)`
in 2.4, `torch.accelerator` in 2.6 (where `current_accelerator()` raises when no accelerator is
there), and `current_accelerator(check_available=True)`, which returns None instead, in 2.7.
`torch.accelerator.synchronize(device, /)`, `current_stream(device, /)`, `current_device_index()` and
`set_device_index(device, /)` are in torch 2.6.0's own `torch/accelerator/__init__.py` (read in its wheel; 2.5.1
has no `torch.accelerator`), and do the same in 2.7.0 but for the error where there is no accelerator. The
constructors `torch.Stream(device, *, priority)` and `torch.Event(device, *, enable_timing, ...)` are first in
torch 2.4.0's `torch/_C/__init__.pyi` (2.3.1's `torch.Stream` has no constructor and there is no `torch.Event`).
`torch.accelerator`'s memory functions (`reset_peak_memory_stats(device, /)`, ...) are first in 2.9.0's
`torch/accelerator/memory.py` (2.8.0 has none).
"""

from __future__ import annotations

from typing import Optional

TorchVersion = tuple[int, int]

SET_DEFAULT_DEVICE = (2, 0)  # torch.set_default_device
AMP_AUTOCAST = (1, 12)  # torch.amp.autocast
AMP_GRAD_SCALER = (2, 3)  # torch.amp.GradScaler
AMP_CUSTOM_FUNCTION = (2, 4)  # torch.amp.custom_fwd / custom_bwd
ACCELERATOR = (2, 6)  # torch.accelerator.is_available / current_accelerator
ACCELERATOR_CHECK_AVAILABLE = (2, 7)  # current_accelerator(check_available=True)
ACCELERATOR_DEVICE_INDEX = (2, 6)  # torch.accelerator.current_device_index / set_device_index / synchronize
ACCELERATOR_MEMORY = (2, 9)  # torch.accelerator.reset_peak_memory_stats and the memory statistics


def has(target: Optional[TorchVersion], since: TorchVersion) -> bool:
    """Does every torch the target allows have an API that appeared in `since`? Unknown: no."""
    return target is not None and target >= since


def accelerator_choice(torch_name: str, target: Optional[TorchVersion], quote: str = '"') -> Optional[str]:
    """`torch.accelerator`'s device, else the CPU, as the target allows; None before torch 2.6."""
    cpu = f"{torch_name}.device({quote}cpu{quote})"
    if has(target, ACCELERATOR_CHECK_AVAILABLE):
        return f"{torch_name}.accelerator.current_accelerator(check_available=True) or {cpu}"
    if has(target, ACCELERATOR):
        return f"{torch_name}.accelerator.current_accelerator() if {torch_name}.accelerator.is_available() else {cpu}"
    return None


def accelerator_type(torch_name: str, target: Optional[TorchVersion], quote: str = '"') -> Optional[str]:
    """The machine's accelerator type as a string (`"cuda"`, `"mps"`, ...), else `"cpu"`, as the target
    allows (None before torch 2.6). Where code keeps the device as a string (and may compare it), it
    stays one. (`current_accelerator()` has no index: its `str` is the type.)"""
    if has(target, ACCELERATOR_CHECK_AVAILABLE):
        return f"str({torch_name}.accelerator.current_accelerator(check_available=True) or {quote}cpu{quote})"
    if has(target, ACCELERATOR):
        return (f"{torch_name}.accelerator.current_accelerator().type if {torch_name}.accelerator.is_available()"
                f" else {quote}cpu{quote}")
    return None


def availability(torch_name: str, backend: str) -> str:
    """The call that says whether `backend` is there."""
    return f"{torch_name}.backends.mps.is_available()" if backend == "mps" else f"{torch_name}.{backend}.is_available()"
