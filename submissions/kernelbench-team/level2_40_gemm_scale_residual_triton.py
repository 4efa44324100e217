"""GEMM through cuBLAS (full fp32), then bias add, scaling and residual add fused into one Triton pass.

The reference runs the Linear, a multiply that writes a new tensor, and an add that reads both tensors and
writes a third: three extra memory passes over the (batch, out_features) output. Here the weight-only GEMM
goes to cuBLAS and one in-place Triton pass over 2D tiles computes z = y + bias, then z * scaling + z, in
the reference's order. The GEMM dominates at full size, so expect a modest speedup.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_M = 8
BLOCK_N = 512


@triton.jit
def bias_scale_residual_inplace(y_ptr, bias_ptr, n_rows, n_cols, scaling, BLOCK_M: tl.constexpr,
                                BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]
    b = tl.load(bias_ptr + cols, mask=col_mask, other=0.0)
    ptrs = y_ptr + rows[:, None] * n_cols + cols[None, :]
    z = tl.load(ptrs, mask=mask) + b[None, :]
    tl.store(ptrs, z * scaling + z, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scaling_factor):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.linear(x.contiguous(), self.matmul.weight)
        n_cols = y.shape[-1]
        n_rows = y.numel() // n_cols
        grid = (triton.cdiv(n_rows, BLOCK_M), triton.cdiv(n_cols, BLOCK_N))
        bias_scale_residual_inplace[grid](y, self.matmul.bias, n_rows, n_cols, float(self.scaling_factor),
                                          BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
        return y
