"""LeakyReLU as one streaming Triton pass: x where x > 0, else x * negative_slope.

Memory-bound (one read, one write per element) and PyTorch's elementwise kernel already runs near
peak bandwidth, so expect about 1.0x; the kernel matches it with 4096-element tiles (16 elements per
thread) and streaming cache hints. The select mirrors PyTorch's, so NaN propagates (NaN * slope).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n_elements, negative_slope, BLOCK: tl.constexpr):
    # int64 offsets: the full-size input has 2^29 elements, and the tile base times BLOCK must not wrap.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, eviction_policy="evict_first")
    y = tl.where(x > 0, x, x * negative_slope)
    tl.store(y_ptr + offsets, y, mask=mask, eviction_policy="evict_first")


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            grid = (triton.cdiv(n, BLOCK),)
            leaky_relu_kernel[grid](x, y, n, float(self.negative_slope), BLOCK=BLOCK, num_warps=8)
        return y
