"""L2 row normalisation x / ||x||_2 over dim 1, fused into one Triton pass.

Each program holds one whole row (16384 floats at full size, 32 per thread with 16 warps) in
registers, reduces the sum of squares and writes x / sqrt(sum) without reading x again: one read and
one write, against norm (one read) plus divide (one read, one write) in eager mode: expect roughly
1.3-1.5x. Rows longer than one register tile fall back to a loop that reads x twice; inputs with more
than two dimensions are first permuted so dim 1 is last (an extra copy, not on the 2-D benchmark path).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

MAX_TILE_COLS = 16384
LOOP_BLOCK = 4096


@triton.jit
def l2_norm_row_tile(x_ptr, y_ptr, n_cols, COLS: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, COLS)
    mask = cols < n_cols
    x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
    norm = tl.sqrt(tl.sum(x * x, axis=0))
    tl.store(y_ptr + base + cols, x / norm, mask=mask)


@triton.jit
def l2_norm_long_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n_cols
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + base + cols, mask=cols < n_cols, other=0.0)
        acc += x * x
    norm = tl.sqrt(tl.sum(acc, axis=0))
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        tl.store(y_ptr + base + cols, x / norm, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() > 2:
            # Only dim 1 is reduced: move it last so each reduced line is a contiguous row.
            moved = x.movedim(1, -1)
            rows = self.forward(moved.reshape(-1, moved.shape[-1]))
            return rows.reshape(moved.shape).movedim(-1, 1)
        x = x.contiguous()
        n_rows, n_cols = x.shape[0], x[0].numel() if x.shape[0] else 0
        y = torch.empty_like(x)
        if x.numel() == 0:
            return y
        cols_block = triton.next_power_of_2(n_cols)
        if cols_block <= MAX_TILE_COLS:
            warps = 16 if cols_block >= 8192 else (8 if cols_block >= 2048 else 4)
            l2_norm_row_tile[(n_rows,)](x, y, n_cols, COLS=cols_block, num_warps=warps)
        else:
            l2_norm_long_rows[(n_rows,)](x, y, n_cols, BLOCK=LOOP_BLOCK, num_warps=8)
        return y
