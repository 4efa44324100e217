"""GEMM through cuBLAS (full fp32), then bias add, multiply and LeakyReLU fused into one Triton pass.

The reference runs the Linear and then two elementwise kernels (multiply, LeakyReLU), each a full read and
write of the (batch, out_features) output. Here the weight-only GEMM goes to cuBLAS and one in-place Triton
pass over 2D tiles applies (y + bias) * multiplier and LeakyReLU. The GEMM dominates at full size, so
expect a modest speedup from the saved memory passes.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_M = 8
BLOCK_N = 512


@triton.jit
def bias_mul_leaky_relu_inplace(y_ptr, bias_ptr, n_rows, n_cols, multiplier, negative_slope,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]
    b = tl.load(bias_ptr + cols, mask=col_mask, other=0.0)
    ptrs = y_ptr + rows[:, None] * n_cols + cols[None, :]
    y = (tl.load(ptrs, mask=mask) + b[None, :]) * multiplier
    # LeakyReLU as PyTorch defines it: x if x > 0 else x * negative_slope.
    tl.store(ptrs, tl.where(y > 0.0, y, y * negative_slope), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, multiplier, negative_slope):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.gemm = nn.Linear(in_features, out_features)
        self.multiplier = multiplier
        self.leaky_relu = nn.LeakyReLU(negative_slope)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.linear(x.contiguous(), self.gemm.weight)
        n_cols = y.shape[-1]
        n_rows = y.numel() // n_cols
        grid = (triton.cdiv(n_rows, BLOCK_M), triton.cdiv(n_cols, BLOCK_N))
        bias_mul_leaky_relu_inplace[grid](y, self.gemm.bias, n_rows, n_cols, float(self.multiplier),
                                          float(self.leaky_relu.negative_slope), BLOCK_M=BLOCK_M,
                                          BLOCK_N=BLOCK_N, num_warps=4)
        return y
