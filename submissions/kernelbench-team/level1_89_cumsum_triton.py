"""Inclusive prefix sum along one dimension in Triton: one program per row, block scans plus a carry.

Each program walks its row in BLOCK-wide chunks: a parallel scan (tl.cumsum) inside the chunk, plus
the running total of all earlier chunks, which is then advanced by the chunk's sum. The row is read
once and written once, which is the minimum traffic; the only serial dependency is one scalar add per
chunk, so loads of the next chunk overlap. A non-last `dim` is moved to the end first (one extra copy
each way); the problem's dim=1 on a 2-D input needs no copy.

PyTorch's CUDA cumsum over the innermost dimension is also a single-pass row scan, so expect about
parity (roughly 0.9x to 1.3x).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def row_cumsum(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * n_cols
    offsets = tl.arange(0, BLOCK)
    carry = tl.zeros([], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offsets
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        tl.store(y_ptr + base + cols, tl.cumsum(x, axis=0) + carry, mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        moved = x.movedim(self.dim, -1).contiguous()
        n_cols = moved.shape[-1]
        n_rows = moved.numel() // max(n_cols, 1)
        y = torch.empty_like(moved)
        if moved.numel() > 0:
            row_cumsum[(n_rows,)](moved, y, n_cols, BLOCK=BLOCK, num_warps=8)
        return y.movedim(-1, self.dim).contiguous()
