"""GEMM through cuBLAS (full fp32), then the bias add and ReLU fused into one Triton pass in place."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_inplace(y_ptr, bias_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    y = tl.load(y_ptr + offsets, mask=mask)
    b = tl.load(bias_ptr + offsets % n_cols, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(y + b, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.linear(x, self.gemm.weight)
        n = y.numel()
        block = 4096
        bias_relu_inplace[(triton.cdiv(n, block),)](y, self.bias, n, y.shape[-1], BLOCK=block, num_warps=8)
        return y
