"""GEMM through cuBLAS (full fp32), then bias add, subtract, multiply and ReLU fused into one Triton pass.

The reference runs the Linear and then three separate elementwise kernels, each reading and writing the
whole (batch, out_features) output. Here the weight-only GEMM goes to cuBLAS and a single in-place Triton
pass over 2D tiles applies (y + bias - subtract) * multiply and ReLU, so the output is read and written once
after the GEMM. The GEMM dominates at full size, so expect a modest speedup (roughly the three saved
memory passes), not a large one.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_M = 8
BLOCK_N = 512


@triton.jit
def bias_sub_mul_relu_inplace(y_ptr, bias_ptr, n_rows, n_cols, sub, mul, BLOCK_M: tl.constexpr,
                              BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    mask = (rows[:, None] < n_rows) & col_mask[None, :]
    # One bias load per column tile, broadcast over the tile's rows.
    b = tl.load(bias_ptr + cols, mask=col_mask, other=0.0)
    ptrs = y_ptr + rows[:, None] * n_cols + cols[None, :]
    y = tl.load(ptrs, mask=mask)
    y = ((y + b[None, :]) - sub) * mul
    tl.store(ptrs, tl.maximum(y, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.linear = nn.Linear(in_features, out_features)
        self.subtract_value = subtract_value
        self.multiply_value = multiply_value

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.linear(x.contiguous(), self.linear.weight)
        n_cols = y.shape[-1]
        n_rows = y.numel() // n_cols
        grid = (triton.cdiv(n_rows, BLOCK_M), triton.cdiv(n_cols, BLOCK_N))
        bias_sub_mul_relu_inplace[grid](y, self.linear.bias, n_rows, n_cols, float(self.subtract_value),
                                        float(self.multiply_value), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                        num_warps=4)
        return y
