"""Sigmoid as one streaming Triton pass: 1 / (1 + exp(-x)), one 4096-element tile per program.

The problem is purely memory-bound (one read and one write of each element), and PyTorch's own
elementwise kernel already streams close to peak bandwidth, so expect a speedup of about 1.0x; the
kernel's job is to match it with 16 elements per thread and streaming cache hints. The formula is
exact in its limits: exp(-x) overflows to inf for very negative x and gives 0, and NaN propagates.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    # int64 offsets: the full-size input has 2^29 elements, and the tile base times BLOCK must not wrap.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, eviction_policy="evict_first").to(tl.float32)
    y = 1.0 / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offsets, y, mask=mask, eviction_policy="evict_first")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            sigmoid_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
