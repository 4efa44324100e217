"""Tanh as one streaming Triton pass, from one exp per element, accurate to a few ulp everywhere.

For |x| >= 0.125: tanh|x| = (1 - t) / (1 + t) with t = exp(-2|x|), which never overflows (t <= 1)
and saturates cleanly to 1. Below 0.125 that form loses relative accuracy to cancellation in 1 - t,
so the odd Taylor series to x^7 is used instead (the first dropped term is below 1e-9 relative).
The sign is restored at the end; NaN propagates through exp.

Memory-bound (one read, one write per element) and PyTorch's elementwise kernel already runs near
peak bandwidth, so expect about 1.0x: the arithmetic hides behind the loads.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def tanh_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    # int64 offsets: the full-size input has 2^29 elements, and the tile base times BLOCK must not wrap.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, eviction_policy="evict_first").to(tl.float32)
    a = tl.abs(x)
    t = tl.exp(-2.0 * a)
    large = (1.0 - t) / (1.0 + t)
    a2 = a * a
    # x - x^3/3 + 2x^5/15 - 17x^7/315, in Horner form.
    small = a * (1.0 + a2 * (-0.3333333333333333 + a2 * (0.13333333333333333 + a2 * -0.05396825396825397)))
    r = tl.where(a < 0.125, small, large)
    y = tl.where(x < 0, -r, r)
    tl.store(y_ptr + offsets, y, mask=mask, eviction_policy="evict_first")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            tanh_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
