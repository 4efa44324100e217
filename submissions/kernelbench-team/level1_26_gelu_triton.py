"""Exact (erf-based) GELU as one streaming Triton pass: 0.5 * x * (1 + erf(x / sqrt(2))).

Same formula as PyTorch's CUDA kernel, with erf from the device math library (full fp32 accuracy).
Memory-bound (one read, one write per element) and PyTorch's elementwise kernel already runs near
peak bandwidth, so expect about 1.0x; the erf arithmetic hides behind the loads.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096
INV_SQRT2 = tl.constexpr(0.7071067811865476)  # a global a @triton.jit function reads must be a constexpr


@triton.jit
def gelu_erf_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    # int64 offsets: the full-size input has 2^29 elements, and the tile base times BLOCK must not wrap.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, eviction_policy="evict_first").to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * INV_SQRT2))
    tl.store(y_ptr + offsets, y, mask=mask, eviction_policy="evict_first")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            gelu_erf_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
