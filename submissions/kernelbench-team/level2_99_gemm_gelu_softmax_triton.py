"""GEMM with its bias through cuBLAS (full fp32), then exact (erf) GELU and row softmax fused into one Triton pass.

The reference runs the Linear, a GELU that writes a second (batch, out_features) tensor, and a softmax
that reads it (at least twice) and writes a third. Here the Linear is the same cuBLAS addmm the reference
calls (bias in the GEMM's epilogue, so its output is the reference's to the bit: the softmax of large
logits amplifies any rounding difference there), and one Triton program per row applies GELU and softmax
in place. When a row fits in one tile (out_features <= 4096, as at full size) it is loaded once, kept in
registers, and written once; longer rows use an online max/sum pass and a normalising pass that recomputes
the GELU. The GEMM dominates at full size, so expect a modest speedup from the saved memory passes.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

MAX_TILE = 4096


@triton.jit
def gelu_tile(y_row, cols, mask):
    z = tl.load(y_row + cols, mask=mask, other=0.0)
    g = 0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))
    # Padding lanes become -inf so they add nothing to the max or the sum.
    return tl.where(mask, g, float("-inf"))


@triton.jit
def gelu_softmax_inplace(y_ptr, n_cols, BLOCK: tl.constexpr, ONE_TILE: tl.constexpr):
    row = tl.program_id(0)
    y_row = y_ptr + row.to(tl.int64) * n_cols
    offsets = tl.arange(0, BLOCK)
    if ONE_TILE:
        mask = offsets < n_cols
        g = gelu_tile(y_row, offsets, mask)
        e = tl.exp(g - tl.max(g, axis=0))
        tl.store(y_row + offsets, e / tl.sum(e, axis=0), mask=mask)
    else:
        # n_cols > BLOCK, so every lane sees a real value in the first tile and run_max is finite from then on.
        run_max = tl.full([BLOCK], float("-inf"), tl.float32)
        run_sum = tl.zeros([BLOCK], tl.float32)
        for start in range(0, n_cols, BLOCK):
            cols = start + offsets
            g = gelu_tile(y_row, cols, cols < n_cols)
            new_max = tl.maximum(run_max, g)
            run_sum = run_sum * tl.exp(run_max - new_max) + tl.exp(g - new_max)
            run_max = new_max
        row_max = tl.max(run_max, axis=0)
        row_sum = tl.sum(run_sum * tl.exp(run_max - row_max), axis=0)
        for start in range(0, n_cols, BLOCK):
            cols = start + offsets
            mask = cols < n_cols
            g = gelu_tile(y_row, cols, mask)
            tl.store(y_row + cols, tl.exp(g - row_max) / row_sum, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x.contiguous())
        rows, n_cols = y.shape
        block = min(MAX_TILE, triton.next_power_of_2(n_cols))
        gelu_softmax_inplace[(rows,)](y, n_cols, BLOCK=block, ONE_TILE=n_cols <= block,
                                      num_warps=8 if block >= 2048 else 4)
        return y
