"""Max over one dimension (dimension removed) in Triton, for the layout (batch, dim1, dim2).

The tensor is viewed as (outer, reduced, inner). Each program owns one outer index and a block of 128
consecutive inner positions, and walks the reduced axis in [32, 128] tiles (coalesced 512-byte row
segments), keeping running maxima in registers until one final reduction over the tile's first axis.
NaN propagates as in torch.max. At full size that is 1536 programs reading the 3 GiB input once; the
reference is already a single-pass reduction, so expect parity (about 0.9-1.1x), not a big win.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_R = 32
BLOCK_INNER = 128


@triton.jit
def max_keep_nan(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def max_middle(x_ptr, y_ptr, n_red, n_inner, BLOCK_R: tl.constexpr, BLOCK_INNER: tl.constexpr):
    outer = tl.program_id(0).to(tl.int64)
    inner = tl.program_id(1) * BLOCK_INNER + tl.arange(0, BLOCK_INNER)
    inner_mask = inner < n_inner
    base = x_ptr + outer * n_red * n_inner
    red = tl.arange(0, BLOCK_R)
    acc = tl.full([BLOCK_R, BLOCK_INNER], float("-inf"), tl.float32)
    for r0 in range(0, n_red, BLOCK_R):
        r = r0 + red
        mask = (r[:, None] < n_red) & inner_mask[None, :]
        offs = r[:, None].to(tl.int64) * n_inner + inner[None, :]
        acc = max_keep_nan(acc, tl.load(base + offs, mask=mask, other=float("-inf")))
    tl.store(y_ptr + outer * n_inner + inner, tl.reduce(acc, 0, max_keep_nan), mask=inner_mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        dim = self.dim % x.dim()
        n_red = x.shape[dim]
        if n_red == 0:
            raise ValueError("max over an empty dimension is undefined")
        n_outer = x.shape[:dim].numel()
        n_inner = x.shape[dim + 1:].numel()
        y = torch.empty((*x.shape[:dim], *x.shape[dim + 1:]), device=x.device, dtype=x.dtype)
        if y.numel() == 0:
            return y
        inner_block = min(BLOCK_INNER, triton.next_power_of_2(n_inner))
        grid = (n_outer, triton.cdiv(n_inner, inner_block))
        max_middle[grid](x, y, n_red, n_inner, BLOCK_R=BLOCK_R, BLOCK_INNER=inner_block, num_warps=4)
        return y
