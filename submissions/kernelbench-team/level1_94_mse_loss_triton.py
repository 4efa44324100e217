"""Mean squared error in Triton: one fused pass over both inputs, then a tiny deterministic final sum.

The reference runs three kernels (subtract, square, mean) and writes two full-size intermediates
(1 GiB each at full size). Here each program reads its contiguous chunk of predictions and targets
once, keeps per-lane fp32 sums of (p - t)^2, and writes one partial sum; a single-program kernel adds
the partials as a tree and divides by n. Nothing full-size is written, so traffic drops from about
6 GiB to 2 GiB: expect roughly 2x to 3x. No atomics, so the result is the same on every call.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096
MAX_PARTS = 2048  # partial sums; a power of two so the final kernel reduces them in one tile


@triton.jit
def squared_error_parts(p_ptr, t_ptr, part_ptr, n, tiles_per_part, BLOCK: tl.constexpr):
    part = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    first = part.to(tl.int64) * tiles_per_part * BLOCK
    acc = tl.zeros([BLOCK], tl.float32)
    for tile in range(0, tiles_per_part):
        idx = first + tile * BLOCK + offsets
        mask = idx < n
        d = tl.load(p_ptr + idx, mask=mask, other=0.0) - tl.load(t_ptr + idx, mask=mask, other=0.0)
        acc += d * d
    tl.store(part_ptr + part, tl.sum(acc, axis=0))


@triton.jit
def mean_of_parts(part_ptr, out_ptr, n_parts, n, MAX_PARTS: tl.constexpr):
    idx = tl.arange(0, MAX_PARTS)
    parts = tl.load(part_ptr + idx, mask=idx < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(parts, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p = predictions.contiguous()
        t = targets.contiguous()
        n = p.numel()
        tiles = triton.cdiv(n, BLOCK)
        tiles_per_part = max(1, triton.cdiv(tiles, MAX_PARTS))
        n_parts = max(1, triton.cdiv(tiles, tiles_per_part))
        parts = torch.empty(n_parts, device=p.device, dtype=torch.float32)
        out = torch.empty((), device=p.device, dtype=p.dtype)
        squared_error_parts[(n_parts,)](p, t, parts, n, tiles_per_part, BLOCK=BLOCK, num_warps=8)
        mean_of_parts[(1,)](parts, out, n_parts, n, MAX_PARTS=MAX_PARTS, num_warps=8)
        return out
