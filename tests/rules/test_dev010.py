"""DEV010 — a host read of a `non_blocking=True` copy to the CPU with no synchronize in between.

Each case is a snippet and the exact `(line, col, code)` reports DEV010 gives on it; the report
points at the read.
"""

from __future__ import annotations

import pytest

from rules.cases import cases_for, reports

case = cases_for("DEV010")

FLAGGED = [
    case("copy_returned_by_a_function_of_the_file_then_read", """
import torch
def fetch(x):
    host = x.to("cpu", non_blocking=True)
    return host
def lengths(x):
    y = fetch(x)
    return y.tolist()
def values(x):
    return fetch(x).numpy()
""", [(7, 12), (9, 12)]),
    case("copies_handed_to_a_method_of_the_class_that_runs_a_layer_on_them", """
import torch
class Offloaded:
    def moe(self, i, state, weights):
        return self.run_at_cpu(i, state.to("cpu", non_blocking=True), weights.to("cpu", non_blocking=True))
    def run_at_cpu(self, i, inputs, weights):
        return self.experts[i](inputs, weights)
""", [(4, 35), (4, 71)]),
    case("copy_handed_to_another_librarys_function", """
import torch
from PIL import Image
def show(image):
    return Image.fromarray(image.to("cpu", non_blocking=True))
""", [(4, 28)]),
    case("a_cpu_method_returns_its_own_move_still_queued", """
import torch
class Batch:
    def _to(self, device=None, non_blocking=False):
        return Batch(*(v.to(device, non_blocking=non_blocking) for v in vars(self).values()))
    def cpu(self):
        return self._to(device="cpu", non_blocking=True)
""", [(6, 16)]),
    case("a_cpu_method_returns_a_tensor_copy_still_queued", """
import torch
class Wrapped:
    def cpu(self):
        return self.data.to("cpu", non_blocking=True)
""", [(4, 16)]),
    case("tolist_after_the_copy", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    return y.tolist()
""", [(4, 12)]),
    # issue 52: what is taken from the copy (a view of its buffer, values computed from it) is read later
    case("an_element_taken_from_the_copy_then_read", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    v = y[0]
    return v.item()
""", [(5, 12)]),
    case("a_view_of_the_copy_bound_again_then_read", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    y = y.view(-1)
    flat = y.flatten()
    return flat.tolist(), y
""", [(6, 12)]),
    case("a_sum_computed_from_the_copy_then_read", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    total = y.sum()
    print(total)
""", [(5, 5)]),
    case("read_chained_onto_the_copy", """
import torch
def f(x):
    return x.to(torch.device("cpu"), non_blocking=True).numpy()
""", [(3, 12)]),
    case("device_keyword_and_builtins", """
import torch
def f(x):
    y = x.to(device="cpu", non_blocking=True)
    print("loss", y)
""", [(4, 5)]),
    case("float_of_an_indexed_element", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    return float(y[0])
""", [(4, 12)]),
    case("read_in_a_nested_block_later", """
import torch
def f(x, verbose):
    y = x.to("cpu", non_blocking=True)
    if verbose:
        print(y.item())
""", [(5, 9)]),
    case("copy_into_a_pinned_buffer", """
import torch
def f(x):
    buf = torch.empty(4, pin_memory=True)
    buf.copy_(x, non_blocking=True)
    return buf.tolist()
""", [(5, 12)]),
    case("module_level_script", """
import torch as th
y = th.load("t.pt", map_location="cuda").to(th.device("cpu"), non_blocking=True)
print(y)
""", [(3, 1)]),
    case("numpy_array_copies_the_values_now", """
import numpy as np
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    a = np.array(y)
    torch.cuda.synchronize()
    return a
""", [(5, 9)]),
    case("numpy_module_reads", """
import numpy as np
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    return np.asarray(y)
""", [(5, 12)]),
    case("handed_to_native_code_right_after_the_copy", """
import torch
def plan_attention(wrapper, indptr):
    host_indptr = indptr.to("cpu", non_blocking=True)
    wrapper.plan(host_indptr, num_heads=8)
""", [(4, 5)]),
    case("handed_to_a_function_of_another_library", """
import torch
from flashinfer import plan
def f(indptr):
    host_indptr = indptr.to("cpu", non_blocking=True)
    return plan(host_indptr[1:])
""", [(5, 12)]),
    case("a_held_library_objects_method_named_like_one_of_this_file", """
import torch
from flashinfer.jit import get_decode_module
class Wrapper:
    def plan(self, indptr, head_dim):
        host_indptr = indptr.to("cpu", non_blocking=True)
        self._module = get_decode_module(indptr.dtype, head_dim)
        self._info = self._module.plan(host_indptr, head_dim)
""", [(7, 22)]),
    case("numpy_under_another_alias_and_a_pinned_buffer", """
import numpy as onp
import torch
def f(x):
    buf = torch.empty(4, pin_memory=True)
    buf.copy_(x, non_blocking=True)
    return onp.asarray(buf)
""", [(6, 12)]),
]

CLEAN = [
    case("copy_returned_by_a_function_that_waits_or_returns_a_landed_value", """
import torch
def fetch(x):
    host = x.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    return host
def either(x, wait):
    if wait:
        return x.cpu()
    return x.to("cpu", non_blocking=True)
def made_on_the_host(n):
    buffer = torch.zeros(n)
    return buffer.to("cpu", non_blocking=True)
def lengths(x):
    return fetch(x).tolist(), either(x, True).tolist(), made_on_the_host(3).tolist()
""", []),
    case("copy_handed_to_a_method_that_synchronizes_first", """
import torch
class Offloaded:
    def moe(self, i, state):
        return self.run_at_cpu(i, state.to("cpu", non_blocking=True))
    def run_at_cpu(self, i, inputs):
        torch.cuda.synchronize()
        return self.experts[i](inputs)
""", []),
    case("copy_handed_to_a_function_that_only_keeps_it", """
import torch
def keep(store, value):
    store.append(value)
def f(store, x):
    keep(store, x.to("cpu", non_blocking=True))
""", []),
    case("copy_handed_to_torch_or_by_keyword", """
import torch
def f(x, sink):
    sink(value=x.to("cpu", non_blocking=True))
    return torch.cat([x.to("cpu", non_blocking=True)])
""", []),
    case("kept_in_a_list_or_measured_is_not_read", """
import torch
def f(x, out):
    y = x.to("cpu", non_blocking=True)
    out.append(y)
    n = len(y)
    torch.cuda.synchronize()
    return n, y.tolist()
""", []),
    case("handed_to_a_function_of_this_file", """
import torch
def consume(t):
    torch.cuda.synchronize()
    return t.tolist()
def f(x):
    y = x.to("cpu", non_blocking=True)
    return consume(y)
""", []),
    case("a_method_of_this_files_own_object_held_by_the_class", """
import torch
class Planner:
    def plan(self, host):
        torch.cuda.synchronize()
        return host.tolist()
class Wrapper:
    def run(self, indptr):
        self._planner = Planner()
        host_indptr = indptr.to("cpu", non_blocking=True)
        return self._planner.plan(host_indptr)
""", []),
    case("a_copy_back_to_the_gpu_is_queued_after_the_first", """
import torch
def f(x, gpu_buf):
    y = x.to("cpu", non_blocking=True)
    gpu_buf.copy_(y, non_blocking=True)
    torch.cuda.synchronize()
    return y.tolist()
""", []),

    case("synchronize_between", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    return y.tolist()
""", []),
    case("accelerator_synchronize_between", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    torch.accelerator.synchronize()
    return y.tolist()
""", []),
    case("event_synchronize_between", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    done = torch.cuda.Event()
    done.record()
    done.synchronize()
    return y.tolist()
""", []),
    case("stream_synchronize_between", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    return y.tolist()
""", []),
    case("blocking_copy", """
import torch
def f(x):
    y = x.to("cpu")
    return y.tolist()
""", []),
    case("non_blocking_false", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=False)
    return y.tolist()
""", []),
    case("source_on_the_cpu_already", """
import torch
def f():
    x = torch.zeros(3)
    y = x.to("cpu", non_blocking=True)
    return y.tolist()
""", []),
    case("module_level_source_on_the_cpu", """
import torch as th
x = th.zeros(3)
y = x.to(th.device("cpu"), non_blocking=True)
print(y)
""", []),
    case("source_taken_to_the_cpu_before", """
import torch
def f(x):
    y = x.cpu().to("cpu", non_blocking=True)
    return y.tolist()
""", []),
    case("another_host_read_waits_for_the_stream", """
import torch
def f(x, n):
    y = x.to("cpu", non_blocking=True)
    k = n.item()
    return y[:k].tolist()
""", []),
    case("a_copy_to_the_gpu_is_not_a_host_read", """
import torch
def f(x):
    y = x.to("cuda", non_blocking=True)
    return y.sum()
""", []),
    # the look-alikes: the copy's shape (metadata, known at once), a view read after a synchronize, a name taken
    # from it and bound again, another value read
    case("the_shape_of_the_copy_is_known_at_once", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    n = y.shape[0]
    m = y.size(1)
    return float(n * m)
""", []),
    case("a_view_of_the_copy_read_after_a_synchronize", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    v = y[0]
    torch.cuda.synchronize()
    return v.item()
""", []),
    case("a_name_taken_from_the_copy_and_bound_again", """
import torch
def f(x, z):
    y = x.to("cpu", non_blocking=True)
    v = y[0]
    v = z
    return v.item(), y
""", []),
    case("rebound_before_the_read", """
import torch
def f(x, z):
    y = x.to("cpu", non_blocking=True)
    y = z
    return y.tolist()
""", []),
    case("copy_into_a_pageable_buffer_is_synchronous", """
import torch
def f(x):
    buf = torch.empty(4)
    buf.copy_(x, non_blocking=True)
    return buf.tolist()
""", []),
    case("numpy_view_read_later_after_a_synchronize", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    a = y.numpy()
    torch.cuda.synchronize()
    return a
""", []),
    case("a_list_of_views_is_not_read_yet", """
import torch
def f(x):
    y = x.to("cpu", non_blocking=True)
    rows = list(y)
    torch.cuda.synchronize()
    return [r.tolist() for r in rows]
""", []),
    case("a_cpu_method_that_waits_for_its_copy", """
import torch
class Batch:
    def cpu(self):
        return self._to(device="cpu", non_blocking=False)
""", []),
    case("handed_to_a_class_of_this_file_that_keeps_it", """
import torch
class Wrapped:
    def __init__(self, data):
        self.data = data
def offload(x):
    return Wrapped(x.to("cpu", non_blocking=True))
""", []),
    case("another_method_returns_a_copy_for_the_caller_to_wait_on", """
import torch
class Batch:
    def offload(self):
        return self._to(device="cpu", non_blocking=True)
""", []),
    case("a_cpu_method_whose_caller_chooses", """
import torch
class Batch:
    def cpu(self, non_blocking=False):
        return self._to(device="cpu", non_blocking=non_blocking)
""", []),
    case("returned_for_the_caller_to_read", """
import torch
def f(x):
    return x.to("cpu", non_blocking=True)
""", []),
]


@pytest.mark.parametrize("snippet, expected", FLAGGED + CLEAN)
def test_dev010(snippet, expected):
    assert reports("DEV010", snippet) == expected


def test_the_message_says_what_to_add_and_no_fix_is_offered():
    from devlint import lint_source

    (diagnostic,) = lint_source("import torch\ndef f(x):\n    return x.to('cpu', non_blocking=True).tolist()\n", "a.py")
    assert "torch.cuda.synchronize()" in diagnostic.message
    assert diagnostic.fix is None
