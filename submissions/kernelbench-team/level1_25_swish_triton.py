"""Swish (x * sigmoid(x)) fused into one streaming Triton pass: x / (1 + exp(-x)).

PyTorch's reference runs two kernels (sigmoid, then the multiply) and materialises the sigmoid, so
it makes five passes over memory (read x, write s, read x and s, write y); this kernel makes two
(read x, write y). Expect roughly 2-2.5x at full size, bounded by DRAM bandwidth.
For very negative x, exp(-x) overflows to inf and the quotient is -0, as in the reference; NaN
propagates.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def swish_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    # int64 offsets: the full-size input has 2^29 elements, and the tile base times BLOCK must not wrap.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, eviction_policy="evict_first").to(tl.float32)
    y = x / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offsets, y, mask=mask, eviction_policy="evict_first")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            swish_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
