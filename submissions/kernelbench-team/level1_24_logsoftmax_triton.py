"""Row LogSoftmax in Triton: one program per row, an online max / sum-of-exp pass, then one output pass.

Each row (131072 floats, 512 KiB at full size) is too long to keep on chip, so the row is read twice:
pass 1 keeps a per-lane running maximum and a rescaled running sum of exp(x - max); pass 2 writes
x - max - log(sum). The second pass walks the row backwards, so the chunks read last in pass 1 (the
ones most likely still in L2) are re-read first. That is two reads and one write of the tensor, against
the three reads and one write of a max / sum / epilogue softmax; expect roughly 1.0-1.3x, the problem
being purely memory-bound.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096


@triton.jit
def log_softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    lanes = tl.arange(0, BLOCK)
    lane_max = tl.full([BLOCK], float("-inf"), tl.float32)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf"))
        grown = tl.maximum(lane_max, x)
        # A lane that has only seen padding (-inf) must keep sum 0 rather than exp(-inf + inf) = nan.
        empty = grown == float("-inf")
        lane_sum = tl.where(empty, 0.0, lane_sum * tl.exp(lane_max - grown) + tl.exp(x - grown))
        lane_max = grown
    row_max = tl.max(lane_max, axis=0)
    lane_sum = tl.where(lane_max == float("-inf"), 0.0, lane_sum * tl.exp(lane_max - row_max))
    shift = row_max + tl.log(tl.sum(lane_sum, axis=0))
    n_blocks = tl.cdiv(n_cols, BLOCK)
    for i in range(0, n_blocks):
        cols = (n_blocks - 1 - i) * BLOCK + lanes
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        tl.store(y_row + cols, x - shift, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # Bring the softmax dimension last so each row is contiguous.
        moved = x.movedim(self.dim, -1).contiguous()
        n_cols = moved.shape[-1]
        y = torch.empty_like(moved)
        rows = moved.numel() // n_cols if n_cols else 0
        if rows:
            block = min(BLOCK, triton.next_power_of_2(n_cols))
            log_softmax_rows[(rows,)](moved, y, n_cols, BLOCK=block, num_warps=8 if block >= 2048 else 4)
        return y.movedim(-1, self.dim)
