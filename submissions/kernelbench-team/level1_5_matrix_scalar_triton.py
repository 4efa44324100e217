"""Matrix times a Python float scalar in Triton: one streaming pass, 4096 elements per program.

This is a pure bandwidth problem (read A once, write C once), exactly what PyTorch's own elementwise
kernel already does, so expect parity (about 1.0x), not a speedup. The scalar is passed as a kernel
argument (fp32, as PyTorch also rounds it for an fp32 tensor), so a new scalar needs no recompilation.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def scale_elements(a_ptr, c_ptr, s, n_elements, BLOCK: tl.constexpr):
    # int64 offsets: the full-size matrix has 2^29 elements and larger inputs may pass 2^31.
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a * s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        A = A.contiguous()
        C = torch.empty_like(A)
        n = A.numel()
        scale_elements[(triton.cdiv(n, BLOCK),)](A, C, float(s), n, BLOCK=BLOCK, num_warps=8)
        return C
