# shipped: https://github.com/flashinfer-ai/flashinfer/pull/564
# Decode wrapper's plan() copied the (possibly GPU) indptr to the host with non_blocking=True and handed it straight to the native planner, with no synchronize; fixed with a blocking .to("cpu").
import torch

from flashinfer.jit import get_batch_decode_module


class DecodeWrapper:
    def __init__(self, float_ws: torch.Tensor, int_ws: torch.Tensor):
        self.device = float_ws.device
        self._float_ws = float_ws
        self._int_ws = int_ws
        self._pinned_ws = torch.empty(int_ws.shape, dtype=torch.uint8, pin_memory=True)

    def plan(self, indptr, indices, last_page_len, num_qo_heads, num_kv_heads, head_dim, page_size):
        batch_size = len(last_page_len)
        self._indptr_buf = indptr.to(self.device, non_blocking=True)
        self._indices_buf = indices.to(self.device, non_blocking=True)
        self._last_page_len_buf = last_page_len.to(self.device, non_blocking=True)

        indptr_host = indptr.to("cpu")

        self._module = get_batch_decode_module(torch.float16, torch.float16, indptr.dtype, head_dim)
        self._plan_info = self._module.plan(
            self._float_ws,
            self._int_ws,
            self._pinned_ws,
            indptr_host,
            batch_size,
            num_qo_heads,
            num_kv_heads,
            page_size,
        )
