"""L1 row normalisation x / mean(|x|) over dim 1 (KernelBench's definition), fused into one Triton pass.

Rows are short (512 floats at full size) and numerous (1M), so each program takes a [ROWS, cols] tile
of several whole rows, reduces |x| along each row in registers and writes x / mean from the same
registers: one read and one write of the tensor, against abs / sum / divide in eager mode (about four
memory passes plus an |x| intermediate): expect roughly 2-3x. Rows too long for a register tile fall
back to a per-row loop that reads x twice; inputs with more than two dimensions are first permuted
so dim 1 is last (an extra copy, not on the 2-D benchmark path).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

TILE_ELEMENTS = 4096
MAX_TILE_COLS = 8192
LOOP_BLOCK = 4096


@triton.jit
def l1_norm_tile(x_ptr, y_ptr, n_rows, n_cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, COLS)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    mean = tl.sum(tl.abs(x), axis=1) / n_cols
    tl.store(y_ptr + offs, x / mean[:, None], mask=mask)


@triton.jit
def l1_norm_long_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * n_cols
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        acc += tl.abs(tl.load(x_ptr + base + cols, mask=cols < n_cols, other=0.0))
    mean = tl.sum(acc, axis=0) / n_cols
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        mask = cols < n_cols
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        tl.store(y_ptr + base + cols, x / mean, mask=mask)


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
            rows_block = max(1, TILE_ELEMENTS // cols_block)
            warps = 8 if cols_block >= 4096 else 4
            l1_norm_tile[(triton.cdiv(n_rows, rows_block),)](x, y, n_rows, n_cols, ROWS=rows_block,
                                                            COLS=cols_block, num_warps=warps)
        else:
            l1_norm_long_rows[(n_rows,)](x, y, n_cols, BLOCK=LOOP_BLOCK, num_warps=8)
        return y
