"""GEMM through cuBLAS (full fp32), then bias add, sigmoid and the row sum fused into one Triton reduction.

The reference runs the Linear, a sigmoid that writes a second (batch, hidden) tensor, and a sum that reads
it back. Here the weight-only GEMM goes to cuBLAS and one Triton program per row reads the GEMM output
once, adds the bias, applies the sigmoid and accumulates the row sum in fp32 registers, writing only the
(batch, 1) result: the sigmoid tensor is never materialised. The GEMM dominates at full size, so expect a
modest speedup from the two saved memory passes.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_sigmoid_row_sum(y_ptr, bias_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    y_row = y_ptr + row.to(tl.int64) * n_cols
    offsets = tl.arange(0, BLOCK)
    # Per-lane partial sums, reduced across lanes once at the end.
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        mask = cols < n_cols
        z = tl.load(y_row + cols, mask=mask, other=0.0) + tl.load(bias_ptr + cols, mask=mask, other=0.0)
        acc += tl.where(mask, 1.0 / (1.0 + tl.exp(-z)), 0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.linear = nn.Linear(input_size, hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.linear(x.contiguous(), self.linear.weight)
        rows, n_cols = y.shape
        out = torch.empty(rows, 1, device=y.device, dtype=y.dtype)
        block = min(2048, triton.next_power_of_2(n_cols))
        bias_sigmoid_row_sum[(rows,)](y, self.linear.bias, out, n_cols, BLOCK=block,
                                      num_warps=8 if block >= 2048 else 4)
        return out
