"""minGPT's tanh-approximated GELU fused into one streaming Triton pass.

The reference spells the formula as eight separate PyTorch ops (pow, two multiplies, add, tanh, add,
two multiplies), each a full read and write of a 256 MiB tensor at full size. This kernel reads x
once and writes y once, using the identity 0.5 * (1 + tanh(z)) = 1 / (1 + exp(-2z)):
    y = x / (1 + exp(-2z)),  z = sqrt(2/pi) * (x + 0.044715 * x^3).
That form has no cancellation near 1 + tanh(z) = 0 and saturates cleanly (exp overflows to inf and
y becomes -0 for very negative x, y = x for very positive x). Expect several times PyTorch's speed
(2 memory passes instead of about 18, so up to roughly 9x), bounded by DRAM bandwidth.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096
SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)  # a global a @triton.jit function reads must be a constexpr


@triton.jit
def new_gelu_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    # int64 offsets keep the addressing safe for tensors of 2^31 elements or more.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, eviction_policy="evict_first").to(tl.float32)
    z = SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))
    y = x / (1.0 + tl.exp(-2.0 * z))
    tl.store(y_ptr + offsets, y, mask=mask, eviction_policy="evict_first")


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            new_gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y
